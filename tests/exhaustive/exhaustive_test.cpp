// Exhaustive test: EVERY operation sequence of 1 to 6 operations over a small
// alphabet, run on tiny configurations in lockstep against the model
// (tests/support/lockstep.hpp): the fire sequence (timer, now() and size()
// at each fire), take_expired's order, return values, size, next_deadline,
// time_until_next, every timer's pending() and deadline(), and
// check_invariants. Each sequence is run from scratch and compared after its
// last operation; its prefixes are sequences of their own, so every state
// reached is compared, and every callback is checked on every run.
//
// The structures are the smallest that still have every part: wheels of two
// and of three 2-bit levels with their far lists, over 32-bit ticks that
// wrap, and the seven reference schemes with tiny parameters (a basic wheel
// of 8 ticks, hashed wheels of 4 slots, hierarchical arrays of 2 x 3 slots
// and an overflow list), so that a deadline 5 ticks ahead already crosses
// levels, blocks and tables.
//
// Two timers, A and B. The letters:
//   A+1, A+5   schedule (or move) A at now + 1 / now + 5
//   B+0, B+3   schedule (or move) B at now (due at once) / now + 3
//   xA         cancel A (waiting, queued, or idle)
//   >1 >4 >21  advance by 1, 4, 21 ticks, callback form (21: past a far block
//              and, from below the wrap, across it)
//   pull       advance by 2 ticks in the pull form and take one timer,
//              leaving any other queued (the next callback advance hands it
//              over first)
// Two enumerations, each of every sequence of 1 to 6 letters over 6 letters
// (6 + 6^2 + ... + 6^6 = 55986 sequences, each run on all 9 structures):
//   from 3 ticks below the 32-bit wrap: A+1 A+5 B+0 B+3 >1 >21 (moves,
//     FIFO ties, due-now timers, cascades and far timers across the wrap);
//   from 3 ticks below a 16-tick far block past the wrap: A+5 B+0 B+3 xA >4
//     pull (the far list's block turning over, cancels, partial pulls).
// About 20 to 30 s each in the dev preset (Debug, ASan+UBSan).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/lockstep.hpp"
#include "support/structures.hpp"

namespace {

namespace tt = timerwheel_test;
namespace tw = timerwheel;
using u64 = std::uint64_t;
using u32 = std::uint32_t;

using tiny_structures = tt::concat_t<
    tt::structure_list<tw::wheel<tw::levels<u32, 2, 2>>, tw::wheel<tw::levels<u32, 2, 2, 2>>>,
    tt::tiny_schemes<u32, 8>>;

struct letter {
  enum class kind { schedule, cancel, advance, pull };
  const char* name;
  kind what;
  std::size_t timer;
  u64 delta;
};

constexpr std::size_t A = 0;
constexpr std::size_t B = 1;
constexpr letter a1{"A+1", letter::kind::schedule, A, 1};
constexpr letter a5{"A+5", letter::kind::schedule, A, 5};
constexpr letter b0{"B+0", letter::kind::schedule, B, 0};
constexpr letter b3{"B+3", letter::kind::schedule, B, 3};
constexpr letter xa{"xA", letter::kind::cancel, A, 0};
constexpr letter go1{">1", letter::kind::advance, 0, 1};
constexpr letter go4{">4", letter::kind::advance, 0, 4};
constexpr letter go21{">21", letter::kind::advance, 0, 21};
constexpr letter pull{"pull", letter::kind::pull, 0, 2};

constexpr std::size_t max_length = 6;

// Plays one sequence on every structure and compares them with the model
// after its last operation (its prefixes are sequences of their own, each
// compared after its own last operation; every callback is checked on every
// replay). Returns the report of the first mismatch, or an empty string.
std::string play(const tt::timeline& line, u64 start, const letter* const* seq, std::size_t n) {
  tt::lockstep run(line, start, 2, 0);
  tiny_structures::add_to(run);
  if (n == 0 && !run.compare()) return run.report();  // the empty sequence
  for (std::size_t k = 0; k < n; ++k) {
    const letter& l = *seq[k];
    tt::scenario& sc = run.scene();
    const bool last = k + 1 == n;
    switch (l.what) {
      case letter::kind::schedule:
        run.step(tt::scenario::act(sc.schedule(l.timer, sc.now() + l.delta)), last);
        break;
      case letter::kind::cancel:
        run.step(tt::scenario::act(sc.cancel(l.timer)), last);
        break;
      case letter::kind::advance:
        run.step(sc.advance(sc.now() + l.delta), last);
        break;
      case letter::kind::pull: {
        tt::operation op = sc.pull(sc.now() + l.delta);
        sc.take_into(op, 1);
        run.step(std::move(op), last);
        break;
      }
    }
    if (run.failed()) return run.report();
  }
  return {};
}

// Every sequence of 1 to `length` letters, depth first. Returns how many.
template <std::size_t N>
u64 enumerate(u64 start, const std::array<letter, N>& letters, std::size_t length) {
  const tt::timeline line = tiny_structures::common_timeline();
  std::vector<const letter*> seq;
  u64 count = 0;
  bool failed = false;
  const auto explore = [&](const auto& self) -> void {
    for (const letter& l : letters) {
      if (failed) return;
      seq.push_back(&l);
      ++count;
      const std::string failure = play(line, start, seq.data(), seq.size());
      if (!failure.empty()) {
        std::string spelled;
        for (const letter* x : seq) spelled += std::string(spelled.empty() ? "" : " ") + x->name;
        ADD_FAILURE() << "sequence " << spelled << " from " << start << ": " << failure;
        failed = true;
      } else if (seq.size() < length) {
        self(self);
      }
      seq.pop_back();
    }
  };
  if (const std::string failure = play(line, start, nullptr, 0); !failure.empty()) {
    ADD_FAILURE() << "the empty sequence from " << start << ": " << failure;
    return 0;
  }
  explore(explore);
  return count;
}

// Sum of N^k for k = 1..length.
constexpr u64 sequences(u64 n, std::size_t length) {
  u64 total = 0;
  u64 p = 1;
  for (std::size_t k = 0; k < length; ++k) total += (p *= n);
  return total;
}

void run(u64 start, const std::array<letter, 6>& letters) {
  const u64 n = enumerate(start, letters, max_length);
  EXPECT_EQ(n, sequences(letters.size(), max_length));
  std::printf("%llu sequences of 1 to %zu operations from %llu, each on %zu structures\n",
              static_cast<unsigned long long>(n), max_length,
              static_cast<unsigned long long>(start), tiny_structures::size);
}

TEST(Exhaustive, EverySequenceFromJustBelowTheWrap) {
  run((u64{1} << 32) - 3, {a1, a5, b0, b3, go1, go21});
}

TEST(Exhaustive, EverySequenceFromJustBelowAFarBlock) {
  run((u64{1} << 32) + 13, {a5, b0, b3, xa, go4, pull});
}

}  // namespace
