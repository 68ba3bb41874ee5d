// Unit tests of level 2's lead lists (docs/design.md, "Four walks"): a
// cascade from level 3 or 4 puts what its front walk takes in the lead list
// of each level-2 slot and what its back walk takes in front of the slot's
// own list; a level-2 slot holding both cascades from four ends. Timers of
// one deadline come down from above, move ahead of time, are scheduled
// straight into level 2 and are cancelled, through jumps, coarse steps and
// one-tick steps; every one fires once, at its deadline, in (deadline,
// scheduling) order, and the wheel's invariants hold throughout.
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using u64 = std::uint64_t;

constexpr u64 level3_slot = u64{1} << 18;  // the width of a slot of level 3
constexpr u64 level4_slot = u64{1} << 24;

// A wheel, its hooks and the order they must fire in: every timer still
// pending, in scheduling order, each with its deadline.
template <class Config = tw::default_config>
struct scene {
  std::vector<tw::timer_hook> hooks;
  tw::wheel<Config> w;
  std::vector<std::size_t> order;  // pending timers, in scheduling order
  std::vector<u64> deadline;
  std::vector<std::size_t> fired;
  std::vector<bool> done;  // fired
  std::size_t next = 0;

  scene(std::size_t n, u64 now) : hooks(n + 1), w(now), deadline(n + 1), done(n + 1) {}

  std::size_t busy() const { return hooks.size() - 1; }

  void schedule(u64 at) {
    ASSERT_LT(next, busy());
    w.schedule(hooks[next], at);
    deadline[next] = at;
    order.push_back(next++);
  }

  void cancel(std::size_t i) {
    ASSERT_TRUE(w.cancel(hooks[i]));
    order.erase(std::find(order.begin(), order.end(), i));
  }

  // Advances to `to`, the busy timer due at every step so that each
  // advance does work (and the spreading moves timers).
  void advance(u64 to) {
    w.schedule(hooks[busy()], to);
    w.advance(to, [this](tw::timer_hook& h) {
      const auto i = static_cast<std::size_t>(&h - hooks.data());
      if (i == busy()) return;
      EXPECT_EQ(w.now(), deadline[i]) << "timer " << i;
      EXPECT_FALSE(done[i]) << "timer " << i << " fired twice";
      done[i] = true;
      fired.push_back(i);
    });
  }

  std::size_t pending() const {
    std::size_t n = 0;
    for (std::size_t i : order) n += done[i] ? 0 : 1;
    return n;
  }

  std::optional<u64> earliest() const {
    std::optional<u64> e;
    for (std::size_t i : order)
      if (!done[i] && (!e || deadline[i] < *e)) e = deadline[i];
    return e;
  }

  std::vector<std::size_t> expected() const {
    std::vector<std::size_t> want = order;
    std::stable_sort(want.begin(), want.end(),
                     [this](std::size_t a, std::size_t b) { return deadline[a] < deadline[b]; });
    return want;
  }
};

// How now moves up to the start of the slot that cascades.
enum class approach { jump, coarse_steps, one_tick_steps };

// `n` timers of a handful of deadlines (many equal) in the first level-3
// slot of the block that starts at `start` (a start of level 3 or of level
// 4), scheduled `lead` ticks before it, so that they cascade from level 3
// or 4 into level 2; then, after that start, more of the same deadlines
// straight into level 2, and cancels of old and new ones, before the level-2
// slots start.
template <class Config = tw::default_config>
void check_through_lead_lists(u64 start, u64 lead, approach how, u64 seed, std::size_t n) {
  scene<Config> s(2 * n, start - lead);
  timerwheel_test::rng rng(seed);
  const auto pick = [&] {
    // Five level-2 slots, three level-1 slots in each, two deadlines in
    // each of those; one in nine in the first level-2 slot, which the
    // start sends straight to levels 1 and 0.
    const u64 slot2 = rng.below(9) == 0 ? 0 : 1 + rng.below(5);
    return start + 4096 * slot2 + 64 * (1 + rng.below(3)) + rng.below(2);
  };
  for (std::size_t i = 0; i < n; ++i) s.schedule(pick());
  u64 now = start - lead;
  switch (how) {
    case approach::jump:
      break;
    case approach::coarse_steps:
      for (; now + 1024 < start; now += 1024) s.advance(now + 1024);
      break;
    case approach::one_tick_steps:
      // Through level 3's last sixteenth a tick at a time (its moves
      // ramp up to the most an advance), the rest in coarse steps.
      for (; now + 1024 < start - level3_slot / 16; now += 1024) s.advance(now + 1024);
      for (; now + 1 < start; ++now) s.advance(now + 1);
      break;
  }
  s.w.check_invariants();
  s.advance(start + 1);  // the start: level 3 (and 4) cascade
  s.w.check_invariants();
  EXPECT_EQ(s.w.next_deadline(), s.earliest());
  for (std::size_t i = 0; i < n / 2; ++i) s.schedule(pick());
  for (std::size_t k = 0; k < n / 8; ++k) s.cancel(s.order[rng.below(s.order.size())]);
  s.w.check_invariants();
  EXPECT_EQ(s.w.next_deadline(), s.earliest());
  // Through the level-2 slots: in steps of 1024 ticks, as long as level 2's
  // last quarter, so that each slot cascades from four ends when it starts;
  // or one tick at a time across the first slot's start, then in steps of
  // 1000, so that the spreading moves each slot ahead of its start, its
  // lead list joined to its own.
  u64 step = 1024;
  if (how == approach::one_tick_steps) {
    for (u64 t = start + 2; t < start + 4096 + 64; ++t) s.advance(t);
    step = 1000;
  }
  for (u64 t = s.w.now() + step; t < start + 7 * 4096; t += step) {
    s.advance(t);
    s.w.check_invariants();
    EXPECT_EQ(s.w.next_deadline(), s.earliest());
  }
  EXPECT_TRUE(s.w.empty());
  EXPECT_EQ(s.fired, s.expected());
}

TEST(LeadLists, FifoThroughACascadeFromLevel3) {
  for (const approach how : {approach::jump, approach::coarse_steps, approach::one_tick_steps}) {
    for (const std::size_t n : {12U, 40U, 600U, 5000U}) {
      SCOPED_TRACE(testing::Message() << "approach " << static_cast<int>(how) << ", n " << n);
      check_through_lead_lists(3 * level3_slot, level3_slot, how, n, n);
    }
  }
}

// At a start of level 4, level 3's first slot cascades into the lead lists
// first, then what is left of level 4's slot comes in front of them.
TEST(LeadLists, FifoThroughACascadeFromLevel4) {
  for (const approach how : {approach::jump, approach::coarse_steps}) {
    for (const std::size_t n : {40U, 3000U}) {
      SCOPED_TRACE(testing::Message() << "approach " << static_cast<int>(how) << ", n " << n);
      // Coarse steps through the last 64 Ki ticks before the start: the
      // spreading of level 4 moves part of its slot to level 3 ahead of
      // time (up to 32 timers an advance there).
      check_through_lead_lists(2 * level4_slot, u64{1} << 16, how, n + 1, n);
    }
  }
}

// 200 timers of two level-2 slots cascade from level 3: each slot's lead
// list takes the older half (the front walk's), its own list the rest.
// Cancels empty the second slot's own list, leaving its lead list alone
// (its bit stays set, and it cascades when it starts), and both lists of the
// first; expire_all() and clear() take the lead lists too.
TEST(LeadLists, CancelExpireAllAndClearTakeTheLeadLists) {
  for (int ending = 0; ending < 3; ++ending) {
    SCOPED_TRACE(ending);
    const u64 start = level3_slot;
    scene<> s(400, 0);
    for (std::size_t i = 0; i < 200; ++i) s.schedule(start + 4096 * (1 + i % 2) + 64 + i % 3);
    s.advance(start);
    s.w.check_invariants();
    // The walks meet near timer 96: the second slot's own list holds odd
    // timers from about 97 up.
    for (std::size_t i = 199; i >= 91; i -= 2) {
      s.cancel(i);
      s.w.check_invariants();
    }
    EXPECT_EQ(s.w.next_deadline(), std::optional<u64>(start + 4096 + 64));
    for (std::size_t i = 0; i < 200; i += 2) {
      s.cancel(i);
      s.w.check_invariants();
    }
    EXPECT_EQ(s.w.next_deadline(), std::optional<u64>(start + 4096 * 2 + 64));
    for (std::size_t i = 0; i < 100; ++i) s.schedule(start + 4096 * 3 + 64 + i % 3);
    s.w.check_invariants();
    EXPECT_EQ(s.w.size(), s.order.size());
    if (ending == 0) {
      s.advance(start + 4096 * 4);
      EXPECT_EQ(s.fired, s.expected());
    } else if (ending == 1) {
      s.w.expire_all([&](tw::timer_hook& h) {
        s.fired.push_back(static_cast<std::size_t>(&h - s.hooks.data()));
      });
      EXPECT_EQ(s.fired, s.expected());
    } else {
      s.w.clear();
      for (std::size_t i : s.order) EXPECT_FALSE(s.hooks[i].pending());
    }
    s.w.check_invariants();
    EXPECT_TRUE(s.w.empty());
  }
}

// A level-2 slot holding both lists, diverted and walked from four ends
// part of the way (one tick at a time through the first 200 ticks of its
// last quarter: 800 moves, the first 256 from the back alone). The
// earliest deadline is that of timers 520 to 590 of the 1,200 that cascade
// from level 3, which end the lead list (the front walk takes timers 0 to
// about 595): by then the lead list's back walk has taken them all. Then: every
// timer of it cancelled in a random order (one of its two waiting lists
// empties first, and the slot stays occupied until the other does);
// expire_all(), which ends the diversion and takes the timers back in
// order; clear(); or one tick at a time through its start.
enum class mid_diversion { cancel_all, expire_all, clear, through_start };

template <class Config = tw::default_config>
void check_mid_diversion(mid_diversion end, u64 seed) {
  const u64 start = level3_slot;
  scene<Config> s(2000, 0);
  timerwheel_test::rng rng(seed);
  const auto pick = [&] { return start + 4096 + 64 * (2 + rng.below(3)) + rng.below(2); };
  for (std::size_t i = 0; i < 1200; ++i)
    s.schedule(i >= 520 && i <= 590 ? start + 4096 + 64 : pick());
  s.advance(start);  // level 3 cascades: level 2's slot 1 takes both lists
  for (std::size_t i = 0; i < 600; ++i) s.schedule(pick());
  s.advance(start + 3072);
  for (u64 t = start + 3073; t <= start + 3272; ++t) s.advance(t);
  s.w.check_invariants();
  EXPECT_EQ(s.w.next_deadline(), std::optional<u64>(start + 4096 + 64));
  EXPECT_EQ(s.w.size(), s.pending());
  switch (end) {
    case mid_diversion::cancel_all:
      while (!s.order.empty()) {
        s.cancel(s.order[rng.below(s.order.size())]);
        s.w.check_invariants();
        ASSERT_EQ(s.w.next_deadline(), s.earliest());
      }
      break;
    case mid_diversion::expire_all:
      s.w.expire_all([&](tw::timer_hook& h) {
        s.fired.push_back(static_cast<std::size_t>(&h - s.hooks.data()));
      });
      break;
    case mid_diversion::clear:
      s.w.clear();
      for (std::size_t i : s.order) EXPECT_FALSE(s.hooks[i].pending());
      s.order.clear();
      break;
    case mid_diversion::through_start:
      for (u64 t = start + 3273; t < start + 4096 + 320; ++t) s.advance(t);
      break;
  }
  s.w.check_invariants();
  EXPECT_TRUE(s.w.empty());
  EXPECT_EQ(s.fired, s.expected());
}

TEST(LeadLists, FourWalksOfADivertedSlotEndedByCancelsExpireAllClearOrItsStart) {
  for (u64 seed = 1; seed <= 3; ++seed) {
    for (const mid_diversion end : {mid_diversion::cancel_all, mid_diversion::expire_all,
                                    mid_diversion::clear, mid_diversion::through_start}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", ending " << static_cast<int>(end));
      check_mid_diversion(end, seed);
    }
  }
}

// Four 6-bit levels and a far list beyond them: level 3 is the top level,
// and what lies past it comes down from the far list at the start of each
// of its blocks, into level 3 and, from there, into level 2's lead lists.
using four_levels_and_far = tw::levels<u64, 6, 6, 6, 6>;

TEST(LeadLists, WithAFarListBeyondLevel3) {
  for (const approach how : {approach::jump, approach::coarse_steps, approach::one_tick_steps}) {
    SCOPED_TRACE(testing::Message() << "approach " << static_cast<int>(how));
    check_through_lead_lists<four_levels_and_far>(3 * level3_slot, level3_slot, how, 7, 3000);
    // From beyond the top level: 2^24 ticks ahead, in the far list.
    check_through_lead_lists<four_levels_and_far>(level4_slot, u64{1} << 16, how, 8, 3000);
  }
  for (const mid_diversion end : {mid_diversion::cancel_all, mid_diversion::expire_all,
                                  mid_diversion::clear, mid_diversion::through_start}) {
    SCOPED_TRACE(static_cast<int>(end));
    check_mid_diversion<four_levels_and_far>(end, 9);
  }
}

}  // namespace
