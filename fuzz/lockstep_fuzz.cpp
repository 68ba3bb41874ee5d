// libFuzzer target: every timer structure in lockstep against the model.
//
// The input bytes are the choices of the random operation generator of the
// differential tests (tests/support/op_generator.hpp) in place of its
// seeded PRNG, so any input is a valid operation stream: schedules near,
// far, in the past, at the largest instant ahead, on slot edges and tied
// with pending timers; ranges (and refused ones); cancels; reschedules;
// advances by 0, 1, small and huge jumps and to the next deadline; partial
// pulls; expire_all; clear; advances behind now; and callbacks that schedule
// into the same advance, cancel, reschedule themselves and try to advance
// from inside. Every structure of the chosen group runs the stream beside
// the model (tests/support/lockstep.hpp), which checks every fire (timer,
// now(), size()), every return value and error, size, next_deadline,
// time_until_next and every timer's pending() and deadline() after every
// operation, and check_invariants after every eighth and after the last.
//
// Input format: the first byte picks the group (below); then each choice
// reads the fewest whole bytes that cover it (little endian), reduced modulo
// the number of options, missing bytes reading as 0: first the start time and
// the number of timers, then one operation after another until the input
// ends.
//
// A mismatch prints the group, the first difference and every operation of
// the input, then aborts. Replay an input without libFuzzer, with any
// compiler: lockstep_fuzz_replay FILE... (fuzz/replay_main.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "support/lockstep.hpp"
#include "support/op_generator.hpp"
#include "support/structures.hpp"
#if TIMERWHEEL_FUZZ_C
#include "support/c_structure.hpp"
#endif

namespace {

namespace tt = timerwheel_test;
namespace tw = timerwheel;
namespace twr = timerwheel::reference;
using u64 = std::uint64_t;
using u32 = std::uint32_t;

// The input as the generator's source of choices.
class byte_source {
 public:
  byte_source(const std::uint8_t* data, std::size_t size) : data_(data), left_(size) {}

  bool exhausted() const { return left_ == 0; }

  u64 next() { return read(8); }

  // In [0, n); n == 0 means the full 64-bit range.
  u64 below(u64 n) {
    if (n == 0) return next();
    if (n == 1) return 0;
    const u64 top = n - 1;
    unsigned bytes = 1;
    while (bytes < 8 && (top >> (8 * bytes)) != 0) ++bytes;
    return read(bytes) % n;
  }

  u64 between(u64 lo, u64 hi) {
    if (lo == 0 && hi == ~u64{0}) return next();
    return lo + below(hi - lo + 1);
  }

  bool percent(unsigned p) { return below(100) < p; }

 private:
  u64 read(unsigned bytes) {
    u64 v = 0;
    for (unsigned i = 0; i < bytes && left_ != 0; ++i, --left_) v |= u64{*data_++} << (8 * i);
    return v;
  }

  const std::uint8_t* data_;
  std::size_t left_;
};

// The groups. basic_wheel runs with a horizon of 1024 ticks here (its
// check_invariants walks every slot, and the fuzzer wants many runs a
// second); the default one runs in tests/conformance/lockstep_test.cpp.
template <class Tick>
using fuzz_schemes =
    typename tt::unbounded_schemes<Tick>::template plus<twr::basic_wheel<Tick, 1024>>;

//   0 every:     every structure, 32-bit instants within 1024 ticks, from
//                just below 2^32.
//   1 bounded64: every 64-bit structure within 1024 ticks, from 0, anywhere
//                or just below the end of time.
//   2 wide64:    every 64-bit structure but basic_wheel, over all 64 bits.
//   3 wrap32:    every structure but basic_wheel, up to 2^31 - 1 ahead, from
//                just below 2^32.
//   4 tiny:      tiny wheels (2-bit levels, far lists) and the schemes with
//                tiny tables, within 64 ticks, from just below 2^32.
// The C face (the C API of the compiled library, tests/support/c_structure.hpp)
// joins every group but tiny, when the C library is built.
#if TIMERWHEEL_FUZZ_C
using c_lanes64 = tt::c_wheels64;
using c_lanes32 = tt::c_wheels32;
#else
using c_lanes64 = tt::structure_list<>;
using c_lanes32 = tt::structure_list<>;
#endif
using fuzz_every = tt::concat_t<tt::wheels64, tt::wheels32, fuzz_schemes<u64>, fuzz_schemes<u32>,
                                c_lanes64, c_lanes32>;
using fuzz_bounded64 = tt::concat_t<tt::wheels64, fuzz_schemes<u64>, c_lanes64>;
using fuzz_wide64 = tt::concat_t<tt::group_wide64, c_lanes64>;
using fuzz_wrap32 = tt::concat_t<tt::group_wrap32, c_lanes64, c_lanes32>;
using fuzz_tiny = tt::concat_t<
    tt::structure_list<tw::wheel<tw::levels<u32, 2, 2>>, tw::wheel<tw::levels<u32, 2, 2, 2>>,
                       tw::wheel<tw::levels<u64, 2, 2>>, tw::wheel<tw::levels<u64, 1, 3>>>,
    tt::tiny_schemes<u32, 64>, tt::tiny_schemes<u64, 64>>;

constexpr const char* group_names[] = {"every", "bounded64", "wide64", "wrap32", "tiny"};

// Keeps an input's cost bounded: callbacks that reschedule themselves stop
// acting after this many fires of one advance.
constexpr u64 max_fires_per_advance = 2000;

// Structures' invariants are checked after every this many steps and after the last.
constexpr std::size_t invariant_interval = 8;

template <class Group>
void run(byte_source& in, std::size_t size, const char* group) {
  const tt::timeline line = Group::common_timeline();
  const u64 start = tt::op_generator<byte_source>::pick_start(in, line);
  const std::size_t pool = tt::op_generator<byte_source>::pick_pool_size(in);
  tt::lockstep lanes(line, start, pool, 0);  // keeps every operation for the report
  // The wheels' check_invariants walks every slot and took more than half of each run when it
  // ran after every step; every observable answer is still compared after every step.
  lanes.check_invariants_every(invariant_interval);
  Group::add_to(lanes);
  // (Every step reads at least two bytes: the end of time comes, if at all,
  // in the last fiftieth of the longest stream the input could hold.)
  tt::op_generator<byte_source> gen(in, lanes.scene(), size / 2, max_fires_per_advance);
  lanes.compare();
  while (!lanes.failed() && !in.exhausted()) lanes.step(gen.next());
  if (!lanes.failed()) lanes.compare();  // the invariants after the last step too
  if (lanes.failed()) {
    std::fprintf(stderr, "lockstep_fuzz: group %s, start %llu, %zu timers: %s\n", group,
                 static_cast<unsigned long long>(start), pool, lanes.report().c_str());
    std::fflush(stderr);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  byte_source in(data, size);
  const auto group = static_cast<unsigned>(in.below(5));
  switch (group) {
    case 0:
      run<fuzz_every>(in, size, group_names[group]);
      break;
    case 1:
      run<fuzz_bounded64>(in, size, group_names[group]);
      break;
    case 2:
      run<fuzz_wide64>(in, size, group_names[group]);
      break;
    case 3:
      run<fuzz_wrap32>(in, size, group_names[group]);
      break;
    default:
      run<fuzz_tiny>(in, size, group_names[group]);
      break;
  }
  return 0;
}
