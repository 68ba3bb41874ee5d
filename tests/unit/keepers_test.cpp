// Unit tests of level 2's keepers (docs/design.md, "Keepers"): a slot of
// level 2 that a cancel (or the move of a pending timer) empties keeps a
// link of no timer until it starts or is diverted. None of it may show:
// a wheel of keepers alone is empty, has no next deadline and fires
// nothing; timers scheduled into a kept slot fire once, at their deadline,
// in (deadline, scheduling) order; the keeper leaves the slot at its start,
// at its diversion, and with expire_all() and clear(); and the invariants
// hold throughout.
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using u64 = std::uint64_t;

constexpr u64 level2_slot = u64{1} << 12;  // the width of a slot of level 2

// The hooks fired, in order, with now at each firing.
struct firings {
  std::vector<const tw::timer_hook*> hooks;
  std::vector<u64> at;
};

template <class Wheel>
auto recorder(Wheel& w, firings& f) {
  return [&w, &f](tw::timer_hook& h) {
    f.hooks.push_back(&h);
    f.at.push_back(w.now());
  };
}

// Every observer of a wheel that holds no timer, whatever it keeps.
template <class Wheel>
void expect_no_timer(Wheel& w) {
  w.check_invariants();
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.size(), 0U);
  EXPECT_EQ(w.next_deadline(), std::nullopt);
  EXPECT_EQ(w.time_until_next(), std::numeric_limits<u64>::max());
  std::size_t visited = 0;
  w.for_each_pending([&](const tw::timer_hook&) { ++visited; });
  EXPECT_EQ(visited, 0U);
  const u64 now = w.now();
  EXPECT_EQ(w.advance_to_next([](tw::timer_hook&) { ADD_FAILURE() << "fired a keeper"; }), 0U);
  EXPECT_EQ(w.now(), now);
}

// Pops the one timer left, due at `deadline`, and checks the wheel empty.
template <class Wheel>
void expect_last_pop(Wheel& w, u64 deadline) {
  firings f;
  EXPECT_EQ(w.advance_to_next(recorder(w, f)), 1U);
  EXPECT_EQ(f.at, std::vector<u64>{deadline});
  expect_no_timer(w);
}

TEST(Keepers, CancelledLevel2TimersLeaveNoTimerBehind) {
  std::vector<tw::timer_hook> h(64);
  tw::wheel<> w;
  // One timer in each slot of level 2 after now's, then each cancelled.
  for (std::size_t s = 1; s < 64; ++s) w.schedule(h[s], s * level2_slot + s);
  for (std::size_t s = 1; s < 64; ++s) {
    EXPECT_EQ(w.next_deadline(), std::optional<u64>(s * level2_slot + s));
    EXPECT_TRUE(w.cancel(h[s]));
    w.check_invariants();
  }
  expect_no_timer(w);
  // Advancing through the kept slots' starts fires nothing.
  EXPECT_EQ(w.advance(70 * level2_slot, [](tw::timer_hook&) { ADD_FAILURE(); }), 0U);
  EXPECT_EQ(w.now(), 70 * level2_slot);
  expect_no_timer(w);
}

TEST(Keepers, AMovedTimerLeavesItsSlotKept) {
  tw::timer_hook a;
  tw::wheel<> w;
  w.schedule(a, 5 * level2_slot);
  w.schedule(a, 9 * level2_slot + 3);  // a schedule of a pending timer moves it
  w.check_invariants();
  EXPECT_EQ(w.next_deadline(), std::optional<u64>(9 * level2_slot + 3));
  expect_last_pop(w, 9 * level2_slot + 3);
}

TEST(Keepers, TimersScheduledIntoAKeptSlotFireInOrder) {
  std::vector<tw::timer_hook> h(6);
  tw::wheel<> w;
  const u64 slot = 7 * level2_slot;
  w.schedule(h[0], slot + 100);
  EXPECT_TRUE(w.cancel(h[0]));  // slot 7 kept
  w.schedule(h[1], slot + 200);
  w.schedule(h[2], slot + 100);
  w.schedule(h[3], slot + 200);  // after h[1], of the same deadline
  w.check_invariants();
  EXPECT_TRUE(w.cancel(h[1]));
  EXPECT_TRUE(w.cancel(h[2]));
  w.schedule(h[4], slot + 200);  // after h[3]
  w.schedule(h[5], slot + 50);
  w.check_invariants();
  EXPECT_EQ(w.size(), 3U);
  EXPECT_FALSE(w.empty());
  EXPECT_EQ(w.next_deadline(), std::optional<u64>(slot + 50));
  firings f;
  EXPECT_EQ(w.advance(slot + 1000, recorder(w, f)), 3U);
  EXPECT_EQ(f.hooks, (std::vector<const tw::timer_hook*>{&h[5], &h[3], &h[4]}));
  EXPECT_EQ(f.at, (std::vector<u64>{slot + 50, slot + 200, slot + 200}));
  expect_no_timer(w);
}

// Keepers in the slots of level 2 before every timer: the next deadline,
// the pop and the advance look past them, to level 3 and to the spare
// bank of level 2 that the spreading of level 3 fills.
TEST(Keepers, KeptSlotsBeforeLaterTimers) {
  for (const u64 later : {u64{300'000}, u64{(1 << 18) + 5 * level2_slot + 9}}) {
    SCOPED_TRACE(later);
    std::vector<tw::timer_hook> h(40);
    tw::wheel<> w;
    for (std::size_t s = 0; s < 30; ++s) w.schedule(h[s], (s + 2) * level2_slot + s);
    for (std::size_t s = 0; s < 30; ++s) w.cancel(h[s]);
    w.schedule(h[30], later);
    w.check_invariants();
    EXPECT_EQ(w.next_deadline(), std::optional<u64>(later));
    EXPECT_EQ(w.size(), 1U);
    // Across part of the kept slots, one tick at a time in level 2's last
    // quarters, so that the spreading looks at them (none is diverted:
    // each holds its keeper alone).
    for (u64 t = 1; t < 12 * level2_slot; t += 7) {
      EXPECT_EQ(w.advance(t, [](tw::timer_hook&) { ADD_FAILURE(); }), 0U);
      if (t % 1001 == 0) w.check_invariants();
    }
    w.check_invariants();
    EXPECT_EQ(w.next_deadline(), std::optional<u64>(later));
    expect_last_pop(w, later);
  }
}

// A kept slot that fills again past small_slot timers is diverted in its
// level's last quarter: the keeper leaves, and its timers move ahead of
// its start and fire in order.
TEST(Keepers, AKeptSlotThatFillsIsDivertedAndFiresInOrder) {
  std::vector<tw::timer_hook> h(201);
  tw::wheel<> w;
  const u64 slot = 3 * level2_slot;
  w.schedule(h[200], slot + 1);
  w.cancel(h[200]);
  for (std::size_t i = 0; i < 200; ++i) w.schedule(h[i], slot + (i * 37) % 500);
  std::vector<std::size_t> want(200);
  for (std::size_t i = 0; i < 200; ++i) want[i] = i;
  std::stable_sort(want.begin(), want.end(),
                   [](std::size_t a, std::size_t b) { return (a * 37) % 500 < (b * 37) % 500; });
  firings f;
  // One tick at a time through the level's last quarter before the slot.
  for (u64 t = slot - level2_slot / 4 - 8; t <= slot + 500; ++t) {
    w.advance(t, recorder(w, f));
    if (t % 97 == 0) w.check_invariants();
  }
  ASSERT_EQ(f.hooks.size(), 200U);
  for (std::size_t k = 0; k < 200; ++k) {
    EXPECT_EQ(f.hooks[k], &h[want[k]]) << k;
    EXPECT_EQ(f.at[k], slot + (want[k] * 37) % 500) << k;
  }
  expect_no_timer(w);
}

TEST(Keepers, ExpireAllAndClearTakeTheKeepers) {
  for (const bool expire : {true, false}) {
    SCOPED_TRACE(expire);
    std::vector<tw::timer_hook> h(20);
    tw::wheel<> w;
    for (std::size_t s = 0; s < 10; ++s) w.schedule(h[s], (s + 1) * level2_slot + 5);
    for (std::size_t s = 0; s < 10; s += 2) w.cancel(h[s]);
    for (std::size_t s = 10; s < 20; ++s) w.schedule(h[s], (s - 9) * level2_slot + 1);
    w.check_invariants();
    if (expire) {
      firings f;
      EXPECT_EQ(w.expire_all(recorder(w, f)), 15U);
      std::vector<const tw::timer_hook*> want;
      for (std::size_t s = 0; s < 10; ++s) {
        want.push_back(&h[s + 10]);
        if (s % 2 == 1) want.push_back(&h[s]);
      }
      EXPECT_EQ(f.hooks, want);
    } else {
      w.clear();
      for (const tw::timer_hook& t : h) EXPECT_FALSE(t.pending());
    }
    expect_no_timer(w);
    // The slots take timers again as any empty slot does.
    w.schedule(h[0], 4 * level2_slot + 2);
    w.schedule(h[1], 4 * level2_slot + 2);
    firings f;
    EXPECT_EQ(w.advance(5 * level2_slot, recorder(w, f)), 2U);
    EXPECT_EQ(f.hooks, (std::vector<const tw::timer_hook*>{&h[0], &h[1]}));
    expect_no_timer(w);
  }
}

// Churn with few timers, most in level 2, where slots are kept and opened
// again over and over, against a plain list of what is pending: next
// deadline and emptiness at every step, every firing at its deadline.
TEST(Keepers, ChurnWithFewTimersMatchesAPlainList) {
  constexpr std::size_t n = 24;
  std::vector<tw::timer_hook> h(n);
  tw::wheel<> w;
  std::vector<std::optional<u64>> due(n);
  timerwheel_test::rng rng(0x4B33);
  std::size_t fired = 0;
  for (u64 step = 1; step < 200'000; ++step) {
    const std::size_t i = rng.below(n);
    if (due[i] && rng.below(2) == 0) {
      EXPECT_TRUE(w.cancel(h[i]));
      due[i].reset();
    } else {
      const u64 at = w.now() + 1 + rng.below(u64{1} << 18);
      w.schedule(h[i], at);
      due[i] = at;
    }
    w.advance(w.now() + 1, [&](tw::timer_hook& t) {
      const auto k = static_cast<std::size_t>(&t - h.data());
      ASSERT_TRUE(due[k].has_value());
      EXPECT_EQ(*due[k], w.now());
      due[k].reset();
      ++fired;
    });
    std::optional<u64> earliest;
    for (const auto& d : due)
      if (d && (!earliest || *d < *earliest)) earliest = d;
    ASSERT_EQ(w.next_deadline(), earliest) << "step " << step;
    ASSERT_EQ(w.empty(), !earliest) << "step " << step;
    if (step % 4096 == 0) w.check_invariants();
  }
  EXPECT_GT(fired, 0U);
}

}  // namespace
