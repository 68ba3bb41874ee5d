// Unit tests of timerwheel::wheel: every member, every error, and the order
// and re-entrancy guarantees of the contract in DESIGN.md.
#include <timerwheel/concepts.hpp>
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/range_choice.hpp"
#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using timerwheel_test::most_trailing_zeros_in;
using timerwheel_test::trailing_zeros;

static_assert(sizeof(tw::timer_hook) <= 32);
static_assert(std::is_same_v<tw::wheel<>::tick_type, std::uint64_t>);
static_assert(std::is_same_v<tw::wheel<>::hook_type, tw::timer_hook>);
static_assert(std::is_same_v<tw::wheel<tw::default_config>, tw::wheel<>>);
static_assert(std::is_default_constructible_v<tw::timer_hook>);
static_assert(std::is_copy_constructible_v<tw::timer_hook>);
// The constructor is explicit: a tick does not silently become a wheel.
static_assert(!std::is_convertible_v<std::uint64_t, tw::wheel<>>);
static_assert(
    std::is_nothrow_invocable_v<decltype(&tw::wheel<>::cancel), tw::wheel<>&, tw::timer_hook&>);
static_assert(tw::timer_structure<tw::wheel<>>);

// A callback of the wrong shape is refused at the call, by the member's
// constraint (an unconstrained template would accept the call and fail
// deep inside its body).
template <class S, class F>
concept advance_takes = requires(S& s, F f) {
  s.advance(typename S::tick_type{1}, f);
};
template <class S, class F>
concept expire_all_takes = requires(S& s, F f) {
  s.expire_all(f);
};
template <class S, class F>
concept for_each_pending_takes = requires(const S& s, F f) {
  s.for_each_pending(f);
};
struct wrong_callback {
  void operator()(int) const {}
};
struct mutating_visitor {
  void operator()(tw::timer_hook&) const {}
};
static_assert(advance_takes<tw::wheel<>, void (*)(tw::timer_hook&)>);
static_assert(!advance_takes<tw::wheel<>, wrong_callback>);
static_assert(!expire_all_takes<tw::wheel<>, wrong_callback>);
static_assert(!for_each_pending_takes<tw::wheel<>, wrong_callback>);
static_assert(!for_each_pending_takes<tw::wheel<>, mutating_visitor>);

using far_config = tw::levels<std::uint64_t, 8, 8>;
using uneven_config = tw::levels<std::uint64_t, 4, 6, 8, 10>;

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// A wheel with a fixed array of hooks (declared first, so that the wheel is
// destroyed before them) and a record of what fired and when.
template <class Config = tw::default_config>
struct rig {
  using wheel_type = tw::wheel<Config>;
  using tick = typename wheel_type::tick_type;
  using hook = typename wheel_type::hook_type;

  struct shot {
    std::size_t index;
    tick now;
    bool operator==(const shot&) const = default;
  };

  std::vector<hook> hooks;
  wheel_type w;
  std::vector<shot> fired;

  explicit rig(std::size_t n = 32, tick now = 0) : hooks(n), w(now) {}

  hook& operator[](std::size_t i) { return hooks.at(i); }

  std::size_t index(const hook& h) const {
    const auto i = static_cast<std::size_t>(&h - hooks.data());
    EXPECT_LT(i, hooks.size()) << "a callback got a hook that is not one of the rig's";
    return i;
  }

  // The callback that records each fire: which hook, and now() during it.
  auto record() {
    return [this](hook& h) {
      EXPECT_FALSE(h.pending()) << "a timer must be unlinked before its callback runs";
      fired.push_back({index(h), w.now()});
    };
  }

  std::vector<std::size_t> fired_indices() const {
    std::vector<std::size_t> out;
    for (const auto& s : fired) out.push_back(s.index);
    return out;
  }

  std::size_t count_pending() const {
    return static_cast<std::size_t>(
        std::count_if(hooks.begin(), hooks.end(), [](const hook& h) { return h.pending(); }));
  }
};

using idx = std::vector<std::size_t>;

// ---------------------------------------------------------------------------
// Construction and the empty wheel.

TEST(Wheel, DefaultConstructedIsEmptyAtZero) {
  tw::wheel<> w;
  EXPECT_EQ(w.now(), 0U);
  EXPECT_EQ(w.size(), 0U);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.next_deadline(), std::nullopt);
  EXPECT_EQ(w.time_until_next(), kMax);
  EXPECT_EQ(w.take_expired(), nullptr);
  w.check_invariants();
}

TEST(Wheel, ConstructedAtAGivenNow) {
  const std::uint64_t start = 0x0123456789ABCDEFULL;
  tw::wheel<> w(start);
  EXPECT_EQ(w.now(), start);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.time_until_next(), kMax);
  w.check_invariants();
}

TEST(Wheel, EmptyAdvanceMovesNowAndFiresNothing) {
  rig r;
  EXPECT_EQ(r.w.advance(0, r.record()), 0U);
  EXPECT_EQ(r.w.now(), 0U);
  EXPECT_EQ(r.w.advance(1000, r.record()), 0U);
  EXPECT_EQ(r.w.now(), 1000U);
  EXPECT_EQ(r.w.advance(std::uint64_t{1} << 50, r.record()), 0U);
  EXPECT_EQ(r.w.now(), std::uint64_t{1} << 50);
  EXPECT_EQ(r.w.advance((std::uint64_t{1} << 50) + 7), 0U);  // pull form
  EXPECT_EQ(r.w.now(), (std::uint64_t{1} << 50) + 7);
  EXPECT_TRUE(r.fired.empty());
  r.w.check_invariants();
}

// ---------------------------------------------------------------------------
// schedule and cancel.

TEST(Wheel, ScheduleMakesPendingAndFiresAtItsDeadline) {
  rig r;
  r.w.schedule(r[0], 10);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), 10U);
  EXPECT_EQ(r.w.size(), 1U);
  EXPECT_FALSE(r.w.empty());
  r.w.check_invariants();

  EXPECT_EQ(r.w.advance(9, r.record()), 0U);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r.w.now(), 9U);
  EXPECT_EQ(r.w.advance(10, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 10}}));
  EXPECT_FALSE(r[0].pending());
  EXPECT_TRUE(r.w.empty());
  r.w.check_invariants();

  // A fired timer does not fire again.
  EXPECT_EQ(r.w.advance(1000, r.record()), 0U);
  EXPECT_EQ(r.fired.size(), 1U);
}

TEST(Wheel, AdvancePastADeadlineFiresWithNowAtTheDeadline) {
  rig r;
  const std::uint64_t far = (std::uint64_t{1} << 50) + 3;
  r.w.schedule(r[0], far);
  r.w.schedule(r[1], 5);
  EXPECT_EQ(r.w.advance(std::uint64_t{1} << 60, r.record()), 2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{1, 5}, {0, far}}));
  EXPECT_EQ(r.w.now(), std::uint64_t{1} << 60);
}

TEST(Wheel, ScheduleAtNowIsDueAndFiresOnAdvanceByZero) {
  rig r(4, 500);
  r.w.schedule(r[0], 500);
  EXPECT_EQ(r[0].deadline(), 500U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(500));
  EXPECT_EQ(r.w.time_until_next(), 0U);
  EXPECT_TRUE(r.fired.empty()) << "never fires inside schedule";
  EXPECT_EQ(r.w.advance(500, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 500}}));
  r.w.check_invariants();
}

TEST(Wheel, ScheduleInThePastIsTakenAsNowAndFiresAfterThoseAlreadyDue) {
  rig r(8, 1000);
  r.w.schedule(r[0], 1000);  // due at now
  r.w.schedule(r[1], 999);   // in the past: taken as now, after r[0]
  r.w.schedule(r[2], 0);     // far in the past: taken as now, after r[1]
  r.w.schedule(r[3], 1001);
  EXPECT_EQ(r[1].deadline(), 1000U);
  EXPECT_EQ(r[2].deadline(), 1000U);
  EXPECT_TRUE(r[2].pending());
  EXPECT_EQ(r.w.size(), 4U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(1000));
  EXPECT_EQ(r.w.time_until_next(), 0U);
  r.w.check_invariants();
  EXPECT_TRUE(r.fired.empty());

  EXPECT_EQ(r.w.advance(1000, r.record()), 3U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 2}));
  for (const auto& s : r.fired) EXPECT_EQ(s.now, 1000U);
  EXPECT_EQ(r.w.advance(1001, r.record()), 1U);
  EXPECT_EQ(r.fired.back(), (rig<>::shot{3, 1001}));
}

TEST(Wheel, ScheduleInThePastAfterTimeMovedFiresAtNextAdvance) {
  rig r;
  r.w.schedule(r[0], 50);
  EXPECT_EQ(r.w.advance(40, r.record()), 0U);
  r.w.schedule(r[1], 10);  // behind now (40)
  EXPECT_EQ(r[1].deadline(), 40U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(40));
  EXPECT_EQ(r.w.advance(60, r.record()), 2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{1, 40}, {0, 50}}));
}

TEST(Wheel, ScheduleAtTheLargestTick) {
  rig r(4, 7);
  r.w.schedule(r[0], kMax);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), kMax);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(kMax));
  EXPECT_EQ(r.w.time_until_next(), kMax - 7);
  r.w.check_invariants();

  EXPECT_EQ(r.w.advance(kMax - 1, r.record()), 0U);
  EXPECT_EQ(r.w.time_until_next(), 1U);
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(kMax, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, kMax}}));
  EXPECT_EQ(r.w.now(), kMax);

  // At the end of time everything is due at once.
  r.w.schedule(r[1], 3);
  r.w.schedule(r[2], kMax);
  EXPECT_EQ(r[1].deadline(), kMax);
  EXPECT_EQ(r.w.time_until_next(), 0U);
  EXPECT_EQ(r.w.advance(kMax, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 2}));
  r.w.check_invariants();
}

TEST(Wheel, CancelReportsWhetherPending) {
  rig r;
  EXPECT_FALSE(r.w.cancel(r[0])) << "a never scheduled hook";
  r.w.schedule(r[0], 100);
  r.w.schedule(r[1], 100);
  r.w.schedule(r[2], 5);  // will fire
  EXPECT_TRUE(r.w.cancel(r[0]));
  EXPECT_FALSE(r[0].pending());
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_FALSE(r.w.cancel(r[0])) << "a second cancel is a no-op";
  EXPECT_EQ(r.w.size(), 2U);
  r.w.check_invariants();

  EXPECT_EQ(r.w.advance(100, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{2, 1}));
  EXPECT_FALSE(r.w.cancel(r[1])) << "a fired timer is not pending";
  EXPECT_TRUE(r.w.empty());
}

TEST(Wheel, CancelOfADueTimerInThePast) {
  rig r(4, 100);
  r.w.schedule(r[0], 3);
  EXPECT_TRUE(r.w.cancel(r[0]));
  EXPECT_EQ(r.w.advance(100, r.record()), 0U);
  EXPECT_TRUE(r.fired.empty());
}

TEST(Wheel, CancelAtEveryLevelLeavesTheOthers) {
  rig r(64);
  for (std::size_t i = 0; i < 64; ++i) r.w.schedule(r[i], std::uint64_t{1} << i);
  for (std::size_t i = 0; i < 64; i += 2) EXPECT_TRUE(r.w.cancel(r[i]));
  r.w.check_invariants();
  EXPECT_EQ(r.w.size(), 32U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(2));
  EXPECT_EQ(r.w.advance(kMax, r.record()), 32U);
  idx expected;
  for (std::size_t i = 1; i < 64; i += 2) expected.push_back(i);
  EXPECT_EQ(r.fired_indices(), expected);
  for (const auto& s : r.fired) EXPECT_EQ(s.now, std::uint64_t{1} << s.index);
}

TEST(Wheel, RescheduleOfAPendingHookMoves) {
  rig r;
  r.w.schedule(r[0], 10);
  r.w.schedule(r[0], 20);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), 20U);
  EXPECT_EQ(r.w.size(), 1U);
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(15, r.record()), 0U);
  r.w.schedule(r[0], 12);  // earlier than before, but behind now: due at 15
  EXPECT_EQ(r[0].deadline(), 15U);
  EXPECT_EQ(r.w.size(), 1U);
  EXPECT_EQ(r.w.advance(30, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 15}}));
}

TEST(Wheel, RescheduleCountsAsNewForFifo) {
  rig r;
  for (std::size_t i = 0; i < 4; ++i) r.w.schedule(r[i], 100);
  r.w.schedule(r[1], 100);  // same deadline: moves to the back
  r.w.schedule(r[0], 100);
  EXPECT_EQ(r.w.size(), 4U);
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(100, r.record()), 4U);
  EXPECT_EQ(r.fired_indices(), (idx{2, 3, 1, 0}));
}

TEST(Wheel, FifoForEqualDeadlines) {
  rig r(40);
  // Scheduled in a shuffled hook order, so that neither addresses nor
  // indices can explain the order that comes out.
  idx order(40);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = (i * 17) % 40;
  for (auto i : order) r.w.schedule(r[i], 777);
  EXPECT_EQ(r.w.advance(1000, r.record()), 40U);
  EXPECT_EQ(r.fired_indices(), order);
}

TEST(Wheel, FifoAtEveryDistanceFromNow) {
  // Equal deadlines scheduled from the same now land in the same slot of the
  // same level, whatever the level.
  for (unsigned bit = 0; bit < 64; ++bit) {
    SCOPED_TRACE(bit);
    rig r(6, 1);
    const std::uint64_t d = 1 + (std::uint64_t{1} << bit);
    const idx order{3, 0, 5, 1, 4, 2};
    for (auto i : order) r.w.schedule(r[i], d);
    r.w.check_invariants();
    EXPECT_EQ(r.w.advance(d, r.record()), 6U);
    EXPECT_EQ(r.fired_indices(), order);
  }
}

// A timer scheduled long ago sits at a high level and must move down
// (cascade) before it fires; a timer with the same deadline scheduled later,
// from closer by, lands directly at a low level. The earlier one still fires
// first.
template <class Config>
void check_fifo_across_cascades(std::uint64_t deadline, std::vector<std::uint64_t> stops) {
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  rig<Config> r(stops.size() + 3);
  r.w.schedule(r[0], deadline);
  std::size_t next = 1;
  for (auto stop : stops) {
    if (stop >= deadline) continue;
    r.w.advance(stop, r.record());
    r.w.check_invariants();
    r.w.schedule(r[next++], deadline);
  }
  ASSERT_TRUE(r.fired.empty());
  // A timer one tick later and one just before, scheduled last of all.
  r.w.schedule(r[next], deadline + 1);
  r.w.schedule(r[next + 1], deadline - 1);
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(deadline + 1, r.record()), next + 2);
  idx expected{next + 1};
  for (std::size_t i = 0; i < next; ++i) expected.push_back(i);
  expected.push_back(next);
  EXPECT_EQ(r.fired_indices(), expected);
  for (std::size_t i = 1; i + 1 < r.fired.size(); ++i) EXPECT_EQ(r.fired[i].now, deadline);
}

template <class Config>
void check_fifo_across_cascades_for_all_widths() {
  timerwheel_test::rng g(0xF1F0);
  for (unsigned top = 2; top < 64; ++top) {
    SCOPED_TRACE(top);
    // A deadline with its highest bit at `top` and random bits below it.
    const std::uint64_t deadline =
        ((std::uint64_t{1} << top) | (g.next() & ((std::uint64_t{1} << top) - 1)) | 2U) &
        ~std::uint64_t{1};
    std::vector<std::uint64_t> stops;
    for (unsigned b = 0; b < top; b += 3) {
      const std::uint64_t low = std::uint64_t{1} << b;
      stops.push_back(deadline - low);               // just before, by 2^b
      stops.push_back(deadline & ~(low - 1));        // the start of its 2^b block
      stops.push_back((deadline & ~(low - 1)) - 1);  // the tick before that block
    }
    check_fifo_across_cascades<Config>(deadline, stops);
  }
}

TEST(Wheel, FifoWhenOneTimerCascadedAndAnotherWasScheduledDirectly) {
  check_fifo_across_cascades_for_all_widths<tw::default_config>();
}

TEST(Wheel, FifoAcrossCascadesWithUnevenLevels) {
  check_fifo_across_cascades_for_all_widths<uneven_config>();
}

TEST(Wheel, FifoAcrossCascadesFromTheFarList) {
  check_fifo_across_cascades_for_all_widths<far_config>();
}

// ---------------------------------------------------------------------------
// advance: order, counts, errors.

TEST(Wheel, AdvanceFiresInDeadlineOrderAcrossLevels) {
  rig r(200);
  timerwheel_test::rng g(42);
  std::vector<std::pair<std::uint64_t, std::size_t>> expected;  // (deadline, index)
  for (std::size_t i = 0; i < 200; ++i) {
    const unsigned bits = static_cast<unsigned>(g.below(40)) + 1;
    const std::uint64_t d = g.below(std::uint64_t{1} << bits);
    r.w.schedule(r[i], d);
    expected.emplace_back(d, i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  r.w.check_invariants();
  // Advance in uneven steps, checking the count of each.
  std::size_t total = 0;
  std::uint64_t to = 0;
  for (int step = 0; step < 60; ++step) {
    to += g.below(std::uint64_t{1} << (step % 41));
    const auto before = r.fired.size();
    const auto n = r.w.advance(to, r.record());
    EXPECT_EQ(n, r.fired.size() - before);
    total += n;
    EXPECT_EQ(r.w.now(), to);
    r.w.check_invariants();
  }
  total += r.w.advance(to + (std::uint64_t{1} << 41), r.record());
  ASSERT_EQ(total, expected.size());
  ASSERT_EQ(r.fired.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.fired[i].index, expected[i].second) << i;
    EXPECT_EQ(r.fired[i].now, expected[i].first) << i;
  }
}

TEST(Wheel, AdvanceBehindNowThrowsAndChangesNothing) {
  rig r(4, 100);
  r.w.schedule(r[0], 100);  // due
  r.w.schedule(r[1], 150);
  EXPECT_THROW(r.w.advance(99, r.record()), std::invalid_argument);
  EXPECT_THROW(r.w.advance(0), std::invalid_argument);
  EXPECT_EQ(r.w.now(), 100U);
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_TRUE(r[0].pending());
  EXPECT_TRUE(r[1].pending());
  EXPECT_EQ(r.w.take_expired(), nullptr);
  EXPECT_TRUE(r.fired.empty());
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(150, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1}));
}

// ---------------------------------------------------------------------------
// Callbacks: what they may do.

TEST(Wheel, CallbackSeesItsTimerUnlinkedAndNowAtItsDeadline) {
  rig r;
  r.w.schedule(r[0], 30);
  r.w.schedule(r[1], 20);
  std::size_t calls = 0;
  r.w.advance(40, [&](tw::timer_hook& h) {
    ++calls;
    EXPECT_FALSE(h.pending());
    EXPECT_EQ(r.w.now(), h.deadline());
    EXPECT_EQ(r.w.size(), 2U - calls);
    r.w.check_invariants();
  });
  EXPECT_EQ(calls, 2U);
}

TEST(Wheel, CallbackCancellingALaterTimerDueInTheSameAdvance) {
  rig r;
  r.w.schedule(r[0], 5);
  r.w.schedule(r[1], 7);
  r.w.schedule(r[2], 7);   // same deadline as r[1], cancelled by r[1]
  r.w.schedule(r[3], 9);   // cancelled by r[0]
  r.w.schedule(r[4], 10);  // beyond `to`, cancelled by r[0]
  const auto n = r.w.advance(9, [&](tw::timer_hook& h) {
    const auto i = r.index(h);
    r.fired.push_back({i, r.w.now()});
    if (i == 0) {
      EXPECT_TRUE(r.w.cancel(r[3]));
      EXPECT_TRUE(r.w.cancel(r[4]));
    }
    if (i == 1) {
      EXPECT_TRUE(r.w.cancel(r[2]));
    }
    r.w.check_invariants();
  });
  EXPECT_EQ(n, 2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 5}, {1, 7}}));
  EXPECT_EQ(r.count_pending(), 0U);
  EXPECT_TRUE(r.w.empty());
  EXPECT_EQ(r.w.advance(100, r.record()), 0U);
}

TEST(Wheel, CallbackCancellingATimerThatAlreadyCascadedIntoThisAdvance) {
  // Many timers in one coarse slot come down together; the first one cancels
  // the last of them.
  rig r(20);
  const std::uint64_t base = std::uint64_t{1} << 20;
  for (std::size_t i = 0; i < 20; ++i) r.w.schedule(r[i], base + i);
  const auto n = r.w.advance(base + 100, [&](tw::timer_hook& h) {
    const auto i = r.index(h);
    r.fired.push_back({i, r.w.now()});
    if (i == 0) {
      EXPECT_TRUE(r.w.cancel(r[19]));
    }
    if (i == 5) {
      EXPECT_TRUE(r.w.cancel(r[6]));
    }
  });
  EXPECT_EQ(n, 18U);
  idx expected;
  for (std::size_t i = 0; i < 19; ++i)
    if (i != 6) expected.push_back(i);
  EXPECT_EQ(r.fired_indices(), expected);
}

TEST(Wheel, CallbackSchedulingTimersDueInTheSameAdvance) {
  rig r;
  r.w.schedule(r[0], 5);
  r.w.schedule(r[1], 5);
  r.w.schedule(r[2], 8);
  const auto n = r.w.advance(10, [&](tw::timer_hook& h) {
    const auto i = r.index(h);
    r.fired.push_back({i, r.w.now()});
    if (i == 0) {
      r.w.schedule(r[10], 6);   // between now and to: fires in order
      r.w.schedule(r[11], 5);   // at the current now: after r[1]
      r.w.schedule(r[12], 2);   // in the past: taken as the current now, after r[11]
      r.w.schedule(r[13], 11);  // beyond to: stays pending
      r.w.schedule(r[14], 8);   // ties with r[2], scheduled later
      EXPECT_EQ(r[12].deadline(), 5U);
      r.w.check_invariants();
    }
    if (i == 2) r.w.schedule(r[15], 0);  // in the past at now 8: fires at 8
  });
  EXPECT_EQ(n, 8U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{
                         {0, 5}, {1, 5}, {11, 5}, {12, 5}, {10, 6}, {2, 8}, {14, 8}, {15, 8}}));
  EXPECT_TRUE(r[13].pending());
  EXPECT_EQ(r.w.size(), 1U);
  EXPECT_EQ(r.w.now(), 10U);
  r.w.check_invariants();
}

TEST(Wheel, CallbackSchedulingFarAwayTimers) {
  rig r;
  r.w.schedule(r[0], 3);
  r.w.advance(3, [&](tw::timer_hook&) {
    r.w.schedule(r[1], kMax);
    r.w.schedule(r[2], std::uint64_t{1} << 40);
  });
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(std::uint64_t{1} << 40));
  r.w.check_invariants();
}

TEST(Wheel, CallbackReschedulingItself) {
  rig r;
  r.w.schedule(r[0], 10);
  r.w.schedule(r[1], 25);
  // A periodic timer: every fire schedules the next one, 10 ticks on.
  const auto n = r.w.advance(100, [&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) == 0) {
      r.w.schedule(h, r.w.now() + 10);
      EXPECT_TRUE(h.pending());
    }
  });
  EXPECT_EQ(n, 11U);
  std::vector<rig<>::shot> expected;
  for (std::uint64_t t = 10; t <= 100; t += 10) {
    expected.push_back({0, t});
    if (t == 20) expected.push_back({1, 25});
  }
  EXPECT_EQ(r.fired, expected);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), 110U);
  EXPECT_EQ(r.w.size(), 1U);
}

TEST(Wheel, CallbackReschedulingItselfAtNowFiresAgainAfterTheOthersDue) {
  rig r;
  r.w.schedule(r[0], 4);
  r.w.schedule(r[1], 4);
  bool again = true;
  const auto n = r.w.advance(4, [&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) == 0 && again) {
      again = false;
      r.w.schedule(h, r.w.now());
    }
  });
  EXPECT_EQ(n, 3U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 0}));
}

struct boom {};

TEST(Wheel, ExceptionFromACallbackLeavesTheWheelConsistent) {
  rig r(12);
  for (std::size_t i = 1; i <= 10; ++i) r.w.schedule(r[i], i);
  r.w.schedule(r[11], 50);
  EXPECT_THROW(r.w.advance(10,
                           [&](tw::timer_hook& h) {
                             r.fired.push_back({r.index(h), r.w.now()});
                             if (r.index(h) == 4) throw boom{};
                           }),
               boom);
  r.w.check_invariants();
  EXPECT_EQ(r.fired_indices(), (idx{1, 2, 3, 4}));
  EXPECT_FALSE(r[4].pending());
  for (std::size_t i = 5; i <= 11; ++i) EXPECT_TRUE(r[i].pending()) << i;
  EXPECT_EQ(r.w.size(), 7U);
  EXPECT_GE(r.w.now(), 4U);
  EXPECT_LE(r.w.now(), 10U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5));

  // The rest fire at the next advance, in order, each once.
  r.fired.clear();
  EXPECT_EQ(r.w.advance(10, r.record()), 6U);
  EXPECT_EQ(r.fired_indices(), (idx{5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(r.w.size(), 1U);
  r.w.check_invariants();
}

TEST(Wheel, ExceptionFromACallbackOfAQueuedTimer) {
  rig r;
  for (std::size_t i = 0; i < 5; ++i) r.w.schedule(r[i], 10 + i);
  EXPECT_EQ(r.w.advance(20), 5U);
  EXPECT_THROW(r.w.advance(20,
                           [&](tw::timer_hook& h) {
                             r.fired.push_back({r.index(h), r.w.now()});
                             if (r.index(h) == 1) throw boom{};
                           }),
               boom);
  r.w.check_invariants();
  EXPECT_EQ(r.w.size(), 3U);
  EXPECT_EQ(r.w.advance(20, r.record()), 3U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 2, 3, 4}));
}

TEST(Wheel, ExceptionFromAnExpireAllCallbackKeepsTheRestInOrder) {
  rig r(8, 10);
  r.w.schedule(r[0], 40);
  r.w.schedule(r[1], 50);
  r.w.schedule(r[2], 50);
  r.w.schedule(r[3], std::uint64_t{1} << 30);
  EXPECT_THROW(r.w.expire_all([&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    // Scheduled during expire_all, after r[1] and r[2]: stays pending, and
    // fires after them.
    r.w.schedule(r[4], 50);
    throw boom{};
  }),
               boom);
  r.w.check_invariants();
  EXPECT_EQ(r.fired_indices(), (idx{0}));
  EXPECT_EQ(r.w.now(), 10U);
  EXPECT_EQ(r.w.size(), 4U);
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_TRUE(r[i].pending()) << i;
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(50));
  r.w.schedule(r[5], 50);
  EXPECT_EQ(r.w.advance(kMax, r.record()), 5U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 2, 4, 5, 3}));
}

// A timer scheduled from an expire_all callback into a level's next slot:
// the older timers of the same deadline that a throw puts back still fire
// before it, also when the slot's timers move down ahead of time.
TEST(Wheel, ExceptionFromAnExpireAllCallbackKeepsOlderTimersFirstInANextSlot) {
  rig r(8, 0);
  r.w.schedule(r[0], 10);
  r.w.schedule(r[1], 100);  // level 1, slot 1: the level's next slot
  r.w.schedule(r[2], 100);
  EXPECT_THROW(r.w.expire_all([&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    r.w.schedule(r[4], 100);
    r.w.check_invariants();
    throw boom{};
  }),
               boom);
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(100));
  // Advances tick by tick, so that timers move down ahead of time.
  for (std::uint64_t t = 1; t <= 100; ++t) {
    r.w.advance(t, r.record());
    r.w.check_invariants();
  }
  EXPECT_EQ(r.fired_indices(), (idx{0, 1, 2, 4}));
}

// Timers moved down ahead of time, timers scheduled after the move into the
// same slot and timers scheduled once the slot was empty fire in one
// (deadline, scheduling order) sequence.
TEST(Wheel, FifoAcrossTimersMovedAheadOfTheirSlot) {
  rig r(32, 0);
  // Deadlines 4096 and 4101 lie in level 2's next slot.
  for (std::size_t i = 0; i < 8; ++i) r.w.schedule(r[i], i % 2 == 0 ? 4101 : 4096);
  std::vector<std::size_t> want_4096{1, 3, 5, 7}, want_4101{0, 2, 4, 6};
  std::size_t spare = 9;
  for (std::uint64_t t = 1; t < 4096; ++t) {
    r.w.schedule(r[8], t);  // due at once: every advance does work, and moves timers down
    r.w.advance(t, [](tw::timer_hook&) {});
    if (t % 512 == 0) {
      // More of each deadline, scheduled after some of the first have moved.
      want_4096.push_back(spare);
      r.w.schedule(r[spare++], 4096);
      want_4101.push_back(spare);
      r.w.schedule(r[spare++], 4101);
    }
    r.w.check_invariants();
  }
  r.w.advance(4200, r.record());
  std::vector<std::size_t> at_4096, at_4101;
  for (const auto& s : r.fired) (s.now == 4096 ? at_4096 : at_4101).push_back(s.index);
  EXPECT_EQ(at_4096, want_4096);
  EXPECT_EQ(at_4101, want_4101);
}

// A rig whose timers a model of (deadline, scheduling order) follows:
// schedule() and cancel() change both; the callback fire() checks each
// firing against the model (its earliest timer, at its deadline); end()
// ends a run: with `ending` 1, expire_all() fires every timer in the
// model's order; with 2, clear() drops them all; with 0, nothing.
template <class Config>
struct modelled_rig {
  using tick = typename tw::wheel<Config>::tick_type;
  using entry = std::pair<std::uint64_t, std::uint64_t>;  // (deadline, seq)

  rig<Config> r;
  std::map<entry, std::size_t> model;  // -> index
  std::vector<std::optional<entry>> key;
  std::uint64_t seq = 0;

  explicit modelled_rig(std::size_t n) : r(n, 0), key(n) {}

  void schedule(std::size_t i, std::uint64_t deadline) {
    if (key[i]) model.erase(*key[i]);
    r.w.schedule(r[i], static_cast<tick>(deadline));
    key[i] = {deadline, seq++};
    model[*key[i]] = i;
  }

  void cancel(std::size_t i) {
    EXPECT_EQ(r.w.cancel(r[i]), key[i].has_value());
    if (key[i]) model.erase(*key[i]);
    key[i].reset();
  }

  auto fire() {
    return [this](auto& h) {
      const std::size_t i = r.index(h);
      ASSERT_TRUE(key[i].has_value());
      ASSERT_FALSE(model.empty());
      EXPECT_EQ(model.begin()->second, i) << "fired out of (deadline, scheduling) order";
      EXPECT_EQ(std::uint64_t{r.w.now()}, key[i]->first);
      model.erase(*key[i]);
      key[i].reset();
    };
  }

  // The model's earliest deadline.
  std::optional<std::uint64_t> next() const {
    return model.empty() ? std::nullopt : std::optional<std::uint64_t>(model.begin()->first.first);
  }

  void end(int ending) {
    if (ending == 1) {
      r.w.expire_all([&](auto& h) {
        const std::size_t i = r.index(h);
        ASSERT_TRUE(key[i].has_value());
        EXPECT_EQ(model.begin()->second, i) << "expire_all out of (deadline, scheduling) order";
        model.erase(*key[i]);
        key[i].reset();
      });
    } else if (ending == 2) {
      r.w.clear();
      model.clear();
    }
  }
};

// The spreading walks a diverted slot from both ends: the front walk moves
// its oldest timers to lists of their own, which the slot's start puts in
// front of everything of their deadlines. Many timers of few deadlines, one
// tick at a time, with cancels and reschedules (into the moving block, and
// of timers the front walk has moved) all along; after every step the wheel
// agrees with a model of (deadline, scheduling order) on its invariants, its
// size and its next deadline; at the end every timer fires in that order,
// or expire_all() or clear() ends the diversions midway. Small levels (of 4
// slots) make every level's next slot divert often, and one level's
// diversion nest in the one above it.
template <class Config>
void check_front_walks(std::uint64_t seed, int ending) {
  constexpr std::size_t n = 1200;
  modelled_rig<Config> m(n);
  auto& r = m.r;
  auto& key = m.key;
  timerwheel_test::rng g(seed);
  // Deadlines of a few values each, in the blocks ahead.
  const auto draw = [&](std::uint64_t now) { return now + 1 + 16 * g.below(24) + g.below(2); };
  for (std::size_t i = 0; i < n; ++i) m.schedule(i, draw(0));
  const auto fire = m.fire();
  const std::uint64_t stop = ending == 0 ? 600 : 20 + g.below(400);
  for (std::uint64_t t = 1; t <= stop; ++t) {
    r.w.advance(t, fire);
    for (int k = 0; k < 3; ++k) {
      // The oldest pending timers are the ones the front walks take first.
      const std::size_t i = k == 0 && !m.model.empty()
                                ? std::min_element(key.begin(), key.end(),
                                                   [](const auto& a, const auto& b) {
                                                     return a && (!b || a->second < b->second);
                                                   }) -
                                      key.begin()
                                : g.below(n);
      if (g.below(2) == 0)
        m.cancel(i);
      else
        m.schedule(i, draw(t));
    }
    r.w.check_invariants();
    ASSERT_EQ(r.w.size(), m.model.size());
    ASSERT_EQ(r.w.next_deadline(), m.next()) << "at " << t;
  }
  m.end(ending);
  r.w.advance(stop + 1000, fire);
  EXPECT_TRUE(m.model.empty());
  EXPECT_TRUE(r.w.empty());
  for (std::size_t i = 0; i < n; ++i) EXPECT_FALSE(r[i].pending());
}

// `Config` whose spreading walks a diverted slot from both ends from its
// first move: the front walks of slots of a few timers.
template <class Config>
struct eager_front_walks : Config {
  static constexpr std::uint32_t front_walk_after = 0;
};

TEST(Wheel, FrontWalksKeepExactOrderThroughCancelsExpireAllAndClear) {
  using small = tw::levels<std::uint64_t, 2, 2, 2, 2, 2>;
  using small_wrapping = tw::levels<std::uint32_t, 2, 2, 2, 2, 2>;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    for (int ending = 0; ending < 3; ++ending) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", ending " << ending);
      check_front_walks<small>(seed, ending);
      check_front_walks<small_wrapping>(seed, ending);
      check_front_walks<tw::levels<std::uint64_t, 3, 3, 3>>(seed, ending);
      check_front_walks<eager_front_walks<small>>(seed, ending);
      check_front_walks<eager_front_walks<tw::counted<tw::levels<std::uint32_t, 3, 3, 3>>>>(seed,
                                                                                            ending);
    }
  }
}

// Timers scheduled into a diverted slot go past it, behind every older timer
// of their deadline. Churn whose deadlines span the next few slots of the
// top level (so that a large share of the schedules land in the diverted
// one), several schedules and cancels between advances, the cancels often of
// the newest timers (so that what was scheduled into a diverted slot leaves
// it again while older timers still wait in it, and the other way round);
// after every operation the wheel agrees with a model on its invariants, its
// size, emptiness and next deadline. Advances of 1 tick, and now and then of
// a few ticks; the run ends by firing everything, expire_all() or clear().
template <class Config>
void check_schedules_into_a_diverted_slot(std::uint64_t seed, int ending, unsigned top_shift) {
  using tick = typename tw::wheel<Config>::tick_type;
  constexpr std::size_t n = 300;
  modelled_rig<Config> m(n);
  auto& r = m.r;
  timerwheel_test::rng g(seed);
  std::vector<std::size_t> newest;  // scheduled since the last advance, the newest last
  // The deadlines span four slots of the top level (2^top_shift ticks wide).
  const auto draw = [&](std::uint64_t now) {
    return now + 1 + g.below(std::uint64_t{4} << top_shift);
  };
  const auto agree = [&] {
    r.w.check_invariants();
    ASSERT_EQ(r.w.size(), m.model.size());
    ASSERT_EQ(r.w.empty(), m.model.empty());
    ASSERT_EQ(
        r.w.next_deadline() ? std::optional<std::uint64_t>(*r.w.next_deadline()) : std::nullopt,
        m.next());
  };
  const auto schedule = [&](std::size_t i, std::uint64_t deadline) {
    m.schedule(i, deadline);
    newest.push_back(i);
  };
  const auto fire = m.fire();
  for (std::size_t i = 0; i < n; ++i) schedule(i, draw(0));
  const std::uint64_t stop = ending == 0 ? 1000 : 100 + g.below(700);
  std::uint64_t t = 0;
  while (t < stop) {
    t += g.below(8) == 0 ? 1 + g.below(6) : 1;
    r.w.advance(static_cast<tick>(t), fire);
    newest.clear();
    agree();
    for (int k = 0; k < 6; ++k) {
      const std::uint64_t what = g.below(3);
      if (what == 0 && !newest.empty()) {
        // The newest first: takes back what was just scheduled, often into
        // the diverted slot.
        const std::size_t i = newest.back();
        newest.pop_back();
        m.cancel(i);
      } else if (what == 1) {
        m.cancel(g.below(n));
      } else {
        schedule(g.below(n), draw(t));
      }
      agree();
    }
  }
  m.end(ending);
  r.w.advance(static_cast<tick>(stop + (std::uint64_t{8} << top_shift)), fire);
  EXPECT_TRUE(m.model.empty());
  EXPECT_TRUE(r.w.empty());
  for (std::size_t i = 0; i < n; ++i) EXPECT_FALSE(r[i].pending());
}

// Timers scheduled into a diverted slot, and cancels that take away first
// the timers waiting in it, then the new ones: the invariants (the slot's
// bit among them), the size and the next deadline stay right throughout.
TEST(Wheel, CancelsEmptyADivertedSlotsWaitingListThenItsOwn) {
  rig<> r(14, 0);
  // Level 1's slot [64, 128), nine timers: diverted from now 48, by an
  // advance that does work (timers 12 and 13 fall due at 48 and 49).
  for (std::size_t i = 0; i < 9; ++i) r.w.schedule(r[i], 70 + i);
  r.w.schedule(r[12], 48);
  r.w.schedule(r[13], 49);
  r.w.advance(47, r.record());
  EXPECT_EQ(r.w.advance(48, r.record()), 1U);  // diverts the slot and moves four of the nine
  r.w.check_invariants();
  r.w.schedule(r[9], 100);  // into the diverted slot, after its first moves
  r.w.schedule(r[10], 75);
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_TRUE(r.w.cancel(r[i]));
    r.w.check_invariants();
  }
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(49));
  EXPECT_TRUE(r.w.cancel(r[10]));
  r.w.check_invariants();
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_EQ(r.w.advance(49, r.record()), 1U);
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(100));
  r.w.schedule(r[11], 90);
  EXPECT_TRUE(r.w.cancel(r[11]));
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(100));
  EXPECT_EQ(r.w.advance(200, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{12, 48}, {13, 49}, {9, 100}}));
  EXPECT_TRUE(r.w.empty());
}

// Level 2's next slot, [4096, 8192), is diverted from now 3072 on by an
// advance that does work and whose step is shorter than the level's last
// quarter; `r` holds nine timers there (0 to 8, at 5000) and one due at
// 3100 (timer 12), which the 1-tick advance to 3100 fires.
template <class Rig>
void divert_level2_next_slot(Rig& r) {
  for (std::size_t i = 0; i < 9; ++i) r.w.schedule(r[i], 5000);
  r.w.schedule(r[12], 3100);
  ASSERT_EQ(r.w.advance(3099, r.record()), 0U);
  ASSERT_EQ(r.w.advance(3100, r.record()), 1U);
  r.w.check_invariants();
}

TEST(Wheel, ADivertedSlotTakesNewTimersBehindAMarkAndMarksAloneAreNoTimer) {
  rig<> r(14, 0);
  divert_level2_next_slot(r);
  r.w.schedule(r[9], 6000);  // the diverted slot's first new timer: it takes it
  r.w.check_invariants();
  EXPECT_EQ(r.w.size(), 10U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5000));
  for (std::size_t i = 0; i < 9; ++i) EXPECT_TRUE(r.w.cancel(r[i]));
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(6000));
  EXPECT_TRUE(r.w.cancel(r[9]));
  r.w.check_invariants();
  // The slot holds its mark and nothing else.
  EXPECT_TRUE(r.w.empty());
  EXPECT_EQ(r.w.size(), 0U);
  EXPECT_EQ(r.w.next_deadline(), std::nullopt);
  EXPECT_EQ(r.w.advance_to_next(r.record()), 0U);
  EXPECT_EQ(r.w.now(), 3100U);
  r.w.check_invariants();
  r.w.schedule(r[10], 7000);  // behind the mark, as into any occupied slot
  r.w.schedule(r[11], 5500);
  r.w.check_invariants();
  EXPECT_FALSE(r.w.empty());
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5500));
  EXPECT_EQ(r.w.advance_to_next(r.record()), 1U);
  EXPECT_EQ(r.w.advance_to_next(r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{12, 3100}, {11, 5500}, {10, 7000}}));
  EXPECT_TRUE(r.w.empty());
  r.w.check_invariants();
}

TEST(Wheel, NewTimersOfADivertedSlotKeepFifoAcrossItsCheckpointsAndItsRefusal) {
  // Timers of one deadline scheduled into a diverted slot one tick apart,
  // none cancelled: the slot takes them behind its mark, sends them past at
  // its checkpoints, finds after two that none was cancelled and sends the
  // rest past at once, as every later schedule. They fire after the nine
  // it held before, in scheduling order.
  rig<> r(80, 0);
  divert_level2_next_slot(r);
  for (std::size_t k = 13; k < 80; ++k) {
    r.w.schedule(r[k], 5000);
    r.w.advance(r.w.now() + 1, r.record());
    r.w.check_invariants();
  }
  EXPECT_EQ(r.w.size(), 76U);
  EXPECT_EQ(r.w.advance(5000, r.record()), 76U);
  idx want{12};
  for (std::size_t i = 0; i < 9; ++i) want.push_back(i);
  for (std::size_t k = 13; k < 80; ++k) want.push_back(k);
  EXPECT_EQ(r.fired_indices(), want);
  EXPECT_TRUE(r.w.empty());
}

TEST(Wheel, AHoldThroughManyDivertedSlotsFiresEveryTimerOnceAtItsDeadlineInOrder) {
  // A hold: two timers of one deadline 2,000 ticks ahead each tick, none
  // cancelled, over nine slots of level 2. In the last quarter of each slot
  // the next one is diverted and takes them behind its mark until it
  // declines them, as a hold makes it do. Every timer fires once, at its
  // deadline, the pair in scheduling order.
  constexpr std::uint64_t ahead = 2000;
  constexpr std::uint64_t end = 9 * 4096;
  constexpr std::size_t pairs = ahead + 64;  // hooks are reused once fired
  rig<> r(2 * pairs, 0);
  std::vector<std::uint64_t> due(2 * pairs, 0);
  std::size_t fired = 0;
  for (std::uint64_t t = 1; t <= end; ++t) {
    const std::size_t p = static_cast<std::size_t>(t % pairs);
    for (std::size_t i : {2 * p, 2 * p + 1}) {
      ASSERT_FALSE(r[i].pending()) << "tick " << t;
      due[i] = t + ahead;
      r.w.schedule(r[i], due[i]);
    }
    r.w.advance(t, r.record());
    for (; fired < r.fired.size(); ++fired) {
      const auto& shot = r.fired[fired];
      ASSERT_EQ(shot.now, due[shot.index]) << "timer " << shot.index;
      if (shot.index % 2 == 0) {  // its pair's second fires right after it
        ASSERT_LT(fired + 1, r.fired.size());
        ASSERT_EQ(r.fired[fired + 1].index, shot.index + 1);
      }
    }
    if (t % 256 == 0) r.w.check_invariants();
  }
  EXPECT_EQ(r.fired.size(), 2 * (end - ahead));
  EXPECT_EQ(r.w.size(), 2 * ahead);
}

TEST(Wheel, SchedulesIntoADivertedSlotKeepOrderThroughCancelsExpireAllAndClear) {
  // Levels of 2 bits: the top level's slots are 2^6 ticks wide with four
  // levels (the 64-bit ticks beyond them in a far list, the 32-bit ones
  // wrapping), 2^8 with five.
  using small = tw::levels<std::uint64_t, 2, 2, 2, 2>;
  using small_wrapping = tw::levels<std::uint32_t, 2, 2, 2, 2>;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    for (int ending = 0; ending < 3; ++ending) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", ending " << ending);
      check_schedules_into_a_diverted_slot<small>(seed, ending, 6);
      check_schedules_into_a_diverted_slot<small_wrapping>(seed, ending, 6);
      check_schedules_into_a_diverted_slot<eager_front_walks<small>>(seed, ending, 6);
      check_schedules_into_a_diverted_slot<tw::levels<std::uint64_t, 2, 2, 2, 2, 2>>(seed, ending,
                                                                                     8);
    }
  }
}

// That `r` fired the timers of `want`, {deadline, index} in scheduling
// order, in (deadline, scheduling) order, each at its deadline.
void expect_fired_in_deadline_order(const rig<>& r,
                                    std::vector<std::pair<std::uint64_t, std::size_t>> want) {
  std::stable_sort(want.begin(), want.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  idx expected;
  for (const auto& [deadline, i] : want) expected.push_back(i);
  EXPECT_EQ(r.fired_indices(), expected);
  for (std::size_t k = 0; k < r.fired.size(); ++k) EXPECT_EQ(r.fired[k].now, want[k].first);
}

// The front walk's lists, when the spreading of a slot has moved all that
// slot's timers: 40 old timers of its first level-1 slot and 460 newer ones of
// another, in level 2's next slot. The walk from the back moves the newer
// ones first; past its first moves the walk from the front takes the old
// ones, until the slot holds none. Then: cancelling every old one empties a
// front list whose spare slot holds nothing else; expire_all() fires them
// all, the old first (the slot they came from takes them back in front);
// with every newer one cancelled first, the slot takes back only what its
// front lists hold; with every timer cancelled, the wheel is empty, though
// the front lists' words still say they may hold some.
enum class front_list_end { cancel_old, expire_all, cancel_new_then_expire_all, cancel_all };

void check_front_list_emptied(front_list_end end) {
  constexpr std::size_t n = 500;
  rig r(n + 1, 0);
  const std::size_t busy = n;
  for (std::size_t i = 0; i < 40; ++i) r.w.schedule(r[i], 4096 + 3);
  for (std::size_t i = 40; i < n; ++i) r.w.schedule(r[i], 4096 + 64 * 9 + i % 2);
  for (std::uint64_t t = 1; t < 3300; ++t) {
    r.w.schedule(r[busy], t);  // due at once: every advance does work
    r.w.advance(t, [](tw::timer_hook&) {});
    r.w.check_invariants();
  }
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(4096 + 3));
  switch (end) {
    case front_list_end::cancel_old:
      for (std::size_t i = 0; i < 40; ++i) {
        EXPECT_TRUE(r.w.cancel(r[i]));
        r.w.check_invariants();
      }
      EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(4096 + 64 * 9));
      r.w.advance(5000, r.record());
      EXPECT_EQ(r.fired.size(), n - 40);
      break;
    case front_list_end::expire_all:
      r.w.expire_all(r.record());
      ASSERT_EQ(r.fired.size(), n);
      for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(r.fired[k].index, k);
      for (std::size_t k = 40; k < n; ++k) {
        const std::size_t half = 40 + (n - 40) / 2;
        EXPECT_EQ(r.fired[k].index, k < half ? 40 + 2 * (k - 40) : 41 + 2 * (k - half));
      }
      break;
    case front_list_end::cancel_new_then_expire_all:
      for (std::size_t i = 40; i < n; ++i) {
        EXPECT_TRUE(r.w.cancel(r[i]));
        r.w.check_invariants();
      }
      r.w.expire_all(r.record());
      ASSERT_EQ(r.fired.size(), 40U);
      for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(r.fired[k].index, k);
      break;
    case front_list_end::cancel_all:
      // The front lists' words still say timers may be there.
      for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(r.w.cancel(r[i]));
      EXPECT_TRUE(r.w.empty());
      EXPECT_EQ(r.w.next_deadline(), std::nullopt);
      EXPECT_EQ(r.w.size(), 0U);
      r.w.check_invariants();
      r.w.advance(5000, r.record());
      EXPECT_TRUE(r.fired.empty());
      break;
  }
  r.w.check_invariants();
  EXPECT_TRUE(r.w.empty());
  for (std::size_t i = 0; i < n; ++i) EXPECT_FALSE(r[i].pending());
}

TEST(Wheel, FrontListsEmptiedByCancelsOrTakenByExpireAll) {
  check_front_list_emptied(front_list_end::cancel_old);
  check_front_list_emptied(front_list_end::expire_all);
  check_front_list_emptied(front_list_end::cancel_new_then_expire_all);
  check_front_list_emptied(front_list_end::cancel_all);
}

// Level 2 in its last slot diverts its next slot, slot 0 of its own spare
// bank, while level 3 still moves timers into it, older than every timer
// there, to its front: that diversion walks from the back alone (a walk from
// its front would take newer timers before older ones of their deadline).
// 3,000 timers of 16 deadlines in that slot, one tick at a time through
// both diversions and the start: all fire in (deadline, scheduling) order.
TEST(Wheel, FifoWhileALevelMovesIntoTheDivertedSlotBelowIt) {
  constexpr std::uint64_t start = 262144;  // level 3's next slot, and level 2's spare slot 0
  constexpr std::size_t n = 3000;
  rig r(n + 1, start - 1025);
  std::vector<std::pair<std::uint64_t, std::size_t>> want;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t deadline = start + 64 * (i % 8) + (i / 8) % 2;
    r.w.schedule(r[i], deadline);
    want.emplace_back(deadline, i);
  }
  for (std::uint64_t t = start - 1024; t < start + 600; ++t) {
    r.w.schedule(r[n], t);  // due at once: every advance does work
    r.w.advance(t, [&](tw::timer_hook& h) {
      if (&h != &r[n]) r.fired.push_back({r.index(h), r.w.now()});
    });
    if (t % 64 == 0) r.w.check_invariants();
  }
  expect_fired_in_deadline_order(r, want);
}

// A level-1 slot cascades from both of its ends at once, past its first few
// timers (the back ones). Every length across that switch, odd and even,
// with five deadlines interleaved: all fire in (deadline, scheduling) order,
// whether the slot starts in a jump or after advances that moved some of its
// timers below ahead of time (so that the lists it cascades into are not
// empty).
void check_level1_cascade(std::size_t n, bool step_by_step) {
  rig r(n + 1, 0);
  const std::size_t busy = n;  // due at every step: each advance does work
  std::vector<std::pair<std::uint64_t, std::size_t>> want;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t deadline = 64 + (i * 7 % 5) * 3;  // level 1, slot 1
    r.w.schedule(r[i], deadline);
    want.emplace_back(deadline, i);
  }
  if (step_by_step) {
    for (std::uint64_t t = 1; t < 64; ++t) {
      r.w.schedule(r[busy], t);
      r.w.advance(t, [](tw::timer_hook&) {});
    }
    r.w.check_invariants();
  }
  EXPECT_EQ(r.w.advance(200, r.record()), n);
  expect_fired_in_deadline_order(r, want);
}

TEST(Wheel, FifoThroughALevel1CascadeOfEveryLength) {
  for (std::size_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    check_level1_cascade(n, false);
    check_level1_cascade(n, true);
  }
  for (std::size_t n : {257U, 1000U}) {
    SCOPED_TRACE(n);
    check_level1_cascade(n, false);
    check_level1_cascade(n, true);
  }
}

// A level-2 slot cascades from both of its ends at once as well, into
// levels 1 and 0. Every length across the switch from the back walk alone,
// with deadlines at both levels and equal ones interleaved: all fire in
// (deadline, scheduling) order, whether the slot starts in a jump, or after
// advances that moved some of its timers ahead of time and left the rest
// (the advances stop `left` ticks short of its start, in its last quarter).
void check_level2_cascade(std::size_t n, std::uint64_t left) {
  rig r(n + 1, 0);
  const std::size_t busy = n;  // due at every step: each advance does work
  std::vector<std::pair<std::uint64_t, std::size_t>> want;
  for (std::size_t i = 0; i < n; ++i) {
    // Level 2, slot 1: ticks 4096 to 8191; i % 3 == 0 lands in level 0 there.
    const std::uint64_t deadline = 4096 + (i % 3 == 0 ? i % 4 : (i * 7 % 5) * 700 + i % 2);
    r.w.schedule(r[i], deadline);
    want.emplace_back(deadline, i);
  }
  for (std::uint64_t t = 3072; t + left < 4096; ++t) {
    r.w.schedule(r[busy], t);
    r.w.advance(t, [](tw::timer_hook&) {});
  }
  r.w.check_invariants();
  r.w.advance(9000, [&r, busy](rig<>::hook& h) {
    if (&h != &r[busy]) r.record()(h);
  });
  expect_fired_in_deadline_order(r, want);
}

TEST(Wheel, FifoThroughALevel2CascadeOfEveryLength) {
  for (std::size_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    check_level2_cascade(n, 1024);  // no advance: the slot starts in a jump
    check_level2_cascade(n, 1000);  // a few moved ahead of time, the rest cascades
  }
  for (std::size_t n : {257U, 1000U, 5000U}) {
    SCOPED_TRACE(n);
    check_level2_cascade(n, 1024);
    check_level2_cascade(n, 1000);
  }
}

// Schedules timers `first` to 100 of a rig at now 0 at tick 100 (level 1,
// slot 1: the level's next slot), in order, each appended to `want`.
// Returns the index after the last.
std::size_t fill_next_level1_slot(rig<>& r, std::size_t first, std::vector<std::size_t>& want) {
  for (std::size_t i = first; i <= 100; ++i) {
    r.w.schedule(r[i], 100);
    want.push_back(i);
  }
  return 101;
}

// A level's next slot holding more timers than a few moves an advance can
// drain before it starts: the moves grow, new timers of its block go past it
// to the spare bank, and what is left cascades when it starts. Timers keep
// arriving all along; all of one deadline fire in scheduling order.
TEST(Wheel, FifoWhileANearSlotIsPressedForTime) {
  rig r(256, 0);
  std::vector<std::size_t> want;
  std::size_t next = fill_next_level1_slot(r, 1, want);
  for (std::uint64_t t = 1; t < 100; ++t) {
    r.w.schedule(r[0], t);  // due at once: every advance does work
    r.w.advance(t, [](tw::timer_hook&) {});
    if (t >= 40) {
      r.w.schedule(r[next], 100);
      want.push_back(next++);
    }
    r.w.check_invariants();
  }
  r.w.advance(100, r.record());
  EXPECT_EQ(r.fired_indices(), want);
}

// An advance that lands in a level's last quarter in one step at least as
// long as that quarter does not divert the next slot there; the next
// advance, a short step, does. Timers scheduled before and after either
// advance, into the slot itself and past it, all fire in scheduling order;
// the same when the long step is a pop (advance_to_next).
TEST(Wheel, FifoWhenALongStepLandsInALevelsLastQuarter) {
  for (const bool pop : {false, true}) {
    SCOPED_TRACE(pop);
    rig r(256, 0);
    std::vector<std::size_t> want;
    std::size_t next = fill_next_level1_slot(r, 2, want);
    // Level 1's last quarter before tick 64 is 48 to 63: one step of 49.
    r.w.schedule(r[0], 49);
    if (pop)
      EXPECT_EQ(r.w.advance_to_next([](tw::timer_hook&) {}), 1U);
    else
      r.w.advance(49, [](tw::timer_hook&) {});
    ASSERT_EQ(r.w.now(), 49U);
    r.w.check_invariants();
    for (std::uint64_t t = 50; t < 64; ++t) {
      r.w.schedule(r[next], 100);
      want.push_back(next++);
      r.w.schedule(r[1], t);  // due at once: every advance does work
      r.w.advance(t, [](tw::timer_hook&) {});
      r.w.check_invariants();
    }
    r.w.advance(100, r.record());
    EXPECT_EQ(r.fired_indices(), want);
    r.w.check_invariants();
  }
}

// Cancels empty a diverted slot, partly moved down: the wheel then holds only
// what moved (and after that nothing), and a timer scheduled into the block
// afterwards still goes past the slot.
// A level in its last slot diverts its next slot, slot 0 of its own spare
// bank, while the level above still moves timers into that bank: a timer
// moved into the diverted slot joins the timers waiting in it, in front
// (it is older than all of them), never the slot's own list. Levels of 2
// bits make the two diversions meet within a few ticks; found by the
// lockstep fuzzer on wrapping 32-bit ticks, and the same with 64-bit ones.
template <class Tick>
void moves_into_a_diverted_spare_slot() {
  using wheel_type = tw::wheel<tw::levels<Tick, 2, 2, 2>>;
  // now's low six bits are 31: level 1 in its last slot, level 2 in slot 1.
  const Tick now = std::numeric_limits<Tick>::digits < 64 ? Tick{0xFFFFEE1F} : Tick{31};
  std::vector<typename wheel_type::hook_type> hooks(6);
  wheel_type w(now);
  const Tick deadlines[] = {3, 1, 7, 1, 8, 0};  // after now; all but the last at level 2
  for (std::size_t i = 0; i < hooks.size(); ++i)
    w.schedule(hooks[i], static_cast<Tick>(now + deadlines[i]));
  EXPECT_EQ(w.advance(now), 1U);  // diverts level 2's next slot and moves 4 of its 5
  w.check_invariants();
  EXPECT_EQ(w.advance(now), 0U);  // diverts level 1's next slot; level 2 moves its last
  w.check_invariants();
  EXPECT_EQ(w.take_expired(), &hooks[5]);
  std::vector<std::size_t> order;
  w.advance(static_cast<Tick>(now + 8), [&](typename wheel_type::hook_type& h) {
    order.push_back(static_cast<std::size_t>(&h - hooks.data()));
    w.check_invariants();
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 0, 2, 4}));
  w.check_invariants();
}

TEST(Wheel, MovesIntoADivertedSpareSlot) {
  moves_into_a_diverted_spare_slot<std::uint64_t>();
  moves_into_a_diverted_spare_slot<std::uint32_t>();
}

TEST(Wheel, CancelsEmptyingADivertedSlot) {
  rig r(128, 0);
  for (std::size_t i = 1; i <= 100; ++i) r.w.schedule(r[i], 100);  // level 1's next slot
  for (std::uint64_t t = 1; t <= 50; ++t) {
    r.w.schedule(r[0], t);  // due at once: every advance does work, and moves timers down
    r.w.advance(t, [](tw::timer_hook&) {});
  }
  // Oldest first: the slot empties by cancels while the newest wait below.
  for (std::size_t i = 1; i <= 100; ++i) {
    ASSERT_TRUE(r.w.cancel(r[i]));
    r.w.check_invariants();
    EXPECT_EQ(r.w.size(), 100 - i);
    EXPECT_EQ(r.w.next_deadline(), i < 100 ? std::optional<std::uint64_t>(100) : std::nullopt);
  }
  EXPECT_TRUE(r.w.empty());
  r.w.schedule(r[1], 100);
  r.w.schedule(r[2], 70);
  r.w.check_invariants();
  r.w.advance(200, r.record());
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{2, 70}, {1, 100}}));
}

// One advance jumps over the start of a diverted slot that still holds
// timers: they cascade there, ahead of the newer ones moved down. The
// earliest deadline is among those left in the slot, not among those moved.
TEST(Wheel, JumpOverTheStartOfADivertedSlot) {
  rig r(128, 0);
  std::vector<std::size_t> want;
  for (std::size_t i = 1; i <= 50; ++i) r.w.schedule(r[i], 70);  // level 1's next slot
  for (std::size_t i = 51; i <= 100; ++i) r.w.schedule(r[i], 100);
  for (std::uint64_t t = 1; t <= 50; ++t) {
    r.w.schedule(r[0], t);  // due at once: every advance does work, and moves the newest down
    r.w.advance(t, [](tw::timer_hook&) {});
  }
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(70));
  r.w.advance(200, r.record());
  std::vector<rig<>::shot> expected;
  for (std::size_t i = 1; i <= 100; ++i) expected.push_back({i, i <= 50 ? 70U : 100U});
  EXPECT_EQ(r.fired, expected);
  EXPECT_TRUE(r.w.empty());
  r.w.check_invariants();
}

// Level 1 in its last slot: its next slot is slot 0 of its spare bank, where
// level 2's next slot moves to. Timers of that block scheduled while both
// are diverted go past both, behind every timer of their deadline moved down
// one level and then two.
TEST(Wheel, FifoWhenADivertedSlotIsTheNextSlotOfTheLevelBelow) {
  rig r(64, 0);
  std::vector<std::size_t> want;
  std::size_t next = 1;
  for (; next <= 12; ++next) {
    r.w.schedule(r[next], 4100);  // level 2, slot 1; level 1 slot 0 of its block
    want.push_back(next);
  }
  for (std::uint64_t t = 1; t < 4100; ++t) {
    r.w.schedule(r[0], t);  // due at once: every advance does work
    r.w.advance(t, [](tw::timer_hook&) {});
    // From 4080 level 1's next slot is diverted too, and moves four timers
    // an advance: new timers arrive while it is partly moved.
    if (t >= 4078 && t < 4096) {
      r.w.schedule(r[next], 4100);
      want.push_back(next++);
    }
    r.w.check_invariants();
  }
  r.w.advance(4100, r.record());
  EXPECT_EQ(r.fired_indices(), want);
}

// The same pressure, then an expire_all whose first callback schedules one
// more timer of that deadline and throws: the timers put back fire first.
TEST(Wheel, ExceptionFromAnExpireAllCallbackWhileASlotIsPressedForTime) {
  rig r(256, 0);
  std::vector<std::size_t> want;
  for (std::size_t i = 1; i <= 100; ++i) r.w.schedule(r[i], 100);
  for (std::uint64_t t = 1; t <= 55; ++t) {
    r.w.schedule(r[0], t);
    r.w.advance(t, [](tw::timer_hook&) {});
  }
  EXPECT_THROW(r.w.expire_all([&](tw::timer_hook& h) {
    EXPECT_EQ(r.index(h), 1U);
    r.w.schedule(r[101], 100);
    throw boom{};
  }),
               boom);
  r.w.check_invariants();
  for (std::size_t i = 2; i <= 101; ++i) want.push_back(i);
  for (std::uint64_t t = 56; t <= 100; ++t) {
    r.w.schedule(r[0], t);
    r.w.advance(t, [&](tw::timer_hook& h) {
      if (&h != &r[0]) r.fired.push_back({r.index(h), r.w.now()});
    });
    r.w.check_invariants();
  }
  EXPECT_EQ(r.fired_indices(), want);
}

TEST(Wheel, AdvanceOrExpireAllFromInsideACallbackThrowsLogicError) {
  rig r;
  r.w.schedule(r[0], 1);
  r.w.schedule(r[1], 2);
  r.w.schedule(r[2], 50);
  std::size_t calls = 0;
  const auto n = r.w.advance(2, [&](tw::timer_hook& h) {
    ++calls;
    r.fired.push_back({r.index(h), r.w.now()});
    const auto now = r.w.now();
    EXPECT_THROW(r.w.advance(now, r.record()), std::logic_error);
    EXPECT_THROW(r.w.advance(60, r.record()), std::logic_error);
    EXPECT_THROW(r.w.advance(60), std::logic_error);
    EXPECT_THROW(r.w.expire_all(r.record()), std::logic_error);
    EXPECT_EQ(r.w.now(), now);
    r.w.check_invariants();
  });
  EXPECT_EQ(n, 2U);
  EXPECT_EQ(calls, 2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 1}, {1, 2}}));
  EXPECT_TRUE(r[2].pending());
  // Inside expire_all too.
  r.w.expire_all([&](tw::timer_hook&) {
    EXPECT_THROW(r.w.advance(r.w.now(), r.record()), std::logic_error);
    EXPECT_THROW(r.w.expire_all(r.record()), std::logic_error);
  });
  EXPECT_TRUE(r.w.empty());
  // And advance works again afterwards.
  r.w.schedule(r[0], 70);
  EXPECT_EQ(r.w.advance(70, r.record()), 1U);
}

// ---------------------------------------------------------------------------
// schedule_in_range.

TEST(Wheel, ScheduleInRangeExamples) {
  rig r;
  EXPECT_EQ(r.w.schedule_in_range(r[0], 100, 200), 128U);
  EXPECT_EQ(r[0].deadline(), 128U);
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r.w.schedule_in_range(r[1], 1, 1), 1U);
  EXPECT_EQ(r.w.schedule_in_range(r[2], 0xF0, 0x10F), 0x100U);
  EXPECT_EQ(r.w.schedule_in_range(r[3], 0x100, 0x1FF), 0x100U);
  EXPECT_EQ(r.w.schedule_in_range(r[4], 3, kMax), std::uint64_t{1} << 63);
  EXPECT_EQ(r.w.schedule_in_range(r[5], 0, 1000), 0U) << "0 has the most trailing zeros";
  EXPECT_EQ(r.w.schedule_in_range(r[6], kMax, kMax), kMax);
  EXPECT_EQ(r.w.size(), 7U);
  r.w.check_invariants();
  r.w.advance(kMax, r.record());
  EXPECT_EQ(r.fired_indices(), (idx{5, 1, 0, 2, 3, 4, 6}));
}

TEST(Wheel, ScheduleInRangeMatchesANaiveScan) {
  for (std::uint64_t now : {std::uint64_t{0}, std::uint64_t{77}}) {
    rig r(1, now);
    for (std::uint64_t lo = 0; lo < 300; lo += 3) {
      for (std::uint64_t hi = lo; hi < lo + 300; hi += 7) {
        // The naive answer: scan the (cut) range for the most trailing zeros.
        const std::uint64_t from = std::max(lo, now);
        std::uint64_t best = now;  // a range ending before now: due now
        int best_tz = -1;
        for (std::uint64_t v = from; v <= hi; ++v) {
          if (trailing_zeros(v) > best_tz) {
            best_tz = trailing_zeros(v);
            best = v;
          }
        }
        const auto got = r.w.schedule_in_range(r[0], lo, hi);
        ASSERT_EQ(got, best) << "now " << now << " range [" << lo << ", " << hi << "]";
        ASSERT_EQ(r[0].deadline(), best);
      }
    }
    r.w.check_invariants();
  }
}

TEST(Wheel, ScheduleInRangeMatchesTheModelOnWideRanges) {
  timerwheel_test::rng g(7);
  rig r(1, 12345);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t lo = r.w.now() + g.below(std::uint64_t{1} << g.below(62));
    const std::uint64_t hi = lo + g.below(std::uint64_t{1} << g.below(62));
    const auto got = r.w.schedule_in_range(r[0], lo, hi);
    ASSERT_EQ(got, most_trailing_zeros_in(lo, hi)) << std::hex << lo << " " << hi;
  }
  r.w.check_invariants();
}

TEST(Wheel, ScheduleInRangeStartingBeforeNowIsCut) {
  rig r(4, 1000);
  EXPECT_EQ(r.w.schedule_in_range(r[0], 900, 1100), 1024U);
  // 512 and 768 lie in [500, 1010] but before now.
  EXPECT_EQ(r.w.schedule_in_range(r[1], 500, 1010), 1008U);
  EXPECT_EQ(r.w.schedule_in_range(r[2], 0, 1000), 1000U);
  r.w.check_invariants();
}

TEST(Wheel, ScheduleInRangeEndingBeforeNowIsDueNow) {
  rig r(4, 1000);
  r.w.schedule(r[0], 1000);
  EXPECT_EQ(r.w.schedule_in_range(r[1], 10, 20), 1000U);
  EXPECT_EQ(r[1].deadline(), 1000U);
  EXPECT_EQ(r.w.time_until_next(), 0U);
  EXPECT_EQ(r.w.advance(1000, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1}));
}

TEST(Wheel, ScheduleInRangeEarliestAfterLatestThrowsAndChangesNothing) {
  rig r(4, 10);
  r.w.schedule(r[0], 50);
  r.w.schedule(r[1], 50);
  EXPECT_THROW(r.w.schedule_in_range(r[0], 60, 40), std::invalid_argument);
  EXPECT_THROW(r.w.schedule_in_range(r[2], 60, 59), std::invalid_argument);
  EXPECT_THROW(r.w.schedule_in_range(r[2], 5, 4), std::invalid_argument) << "both before now";
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), 50U);
  EXPECT_FALSE(r[2].pending());
  EXPECT_EQ(r.w.size(), 2U);
  r.w.check_invariants();
  // r[0] kept its place ahead of r[1].
  EXPECT_EQ(r.w.advance(50, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{0, 1}));
}

TEST(Wheel, ScheduleInRangeOfAPendingHookMovesItAndCountsAsNew) {
  rig r;
  r.w.schedule(r[0], 64);
  r.w.schedule(r[1], 64);
  EXPECT_EQ(r.w.schedule_in_range(r[0], 60, 70), 64U);
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_EQ(r.w.advance(64, r.record()), 2U);
  EXPECT_EQ(r.fired_indices(), (idx{1, 0}));
}

// Timers moved into a spare bank by the spreading come before the lowest
// active level's earliest slot (and a coarse slot of many far timers above
// it): next_deadline finds them there without scanning that slot (the worker
// of timer_service asks before every sleep), then the coarse slots' earliest.
TEST(Wheel, NextDeadlineLooksInTheSpareBanksBeforeACoarseSlot) {
  rig r(1013, 0);
  for (std::size_t i = 3; i < 1003; ++i) r.w.schedule(r[i], 300000 + 7 * i);  // level 3
  // Level 1's next slot, more timers than a slot the spreading leaves alone:
  // diverted, and moved to level 0's spare bank below.
  r.w.schedule(r[1], 70);
  for (std::size_t i = 1003; i < 1013; ++i) r.w.schedule(r[i], 70 + (i - 1002));
  r.w.schedule(r[2], 4200);  // level 2
  for (std::uint64_t t = 1; t <= 50; ++t) {
    r.w.schedule(r[0], t);  // due at once: every advance does work, and moves the newest down
    r.w.advance(t, [](tw::timer_hook&) {});
  }
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(70));
  ASSERT_TRUE(r.w.cancel(r[1]));
  for (std::size_t i = 1003; i < 1013; ++i) ASSERT_TRUE(r.w.cancel(r[i]));
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(4200));
  ASSERT_TRUE(r.w.cancel(r[2]));
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(300000 + 7 * 3));
  r.w.schedule(r[1], 60);  // level 0 itself
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(60));
  r.w.check_invariants();
}

// ---------------------------------------------------------------------------
// next_deadline and time_until_next.

template <class Config>
void check_next_deadline_exact_at_every_distance(std::uint64_t start) {
  timerwheel_test::rng g(start ^ 0xABCDEF);
  for (unsigned bit = 0; bit < 63; ++bit) {
    SCOPED_TRACE(bit);
    rig<Config> r(3, start);
    // A deadline 2^bit to 2^(bit+1) - 1 ticks ahead: deep inside a coarse
    // slot, not on its edge. A later one in the same region goes first.
    const std::uint64_t span = std::uint64_t{1} << bit;
    const std::uint64_t d = start + span + g.below(span);
    const std::uint64_t later = std::min(d + 1 + g.below(span), kMax);
    r.w.schedule(r[1], later);
    r.w.schedule(r[0], d);
    r.w.check_invariants();
    ASSERT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(d));
    EXPECT_EQ(r.w.time_until_next(), d - start);
    // Just before: still exact, nothing fired.
    EXPECT_EQ(r.w.advance(d - 1, r.record()), 0U);
    EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(d));
    EXPECT_EQ(r.w.time_until_next(), 1U);
    r.w.check_invariants();
    EXPECT_EQ(r.w.advance(d, r.record()), 1U);
    EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(later));
    EXPECT_EQ(r.w.time_until_next(), later - d);
    EXPECT_EQ(r.w.advance(later, r.record()), 1U);
    EXPECT_EQ(r.w.next_deadline(), std::nullopt);
    EXPECT_EQ(r.w.time_until_next(), kMax);
  }
}

TEST(Wheel, NextDeadlineIsExactAtEveryLevel) {
  check_next_deadline_exact_at_every_distance<tw::default_config>(0);
  check_next_deadline_exact_at_every_distance<tw::default_config>(0x5A5A5A5A5ULL);
}

TEST(Wheel, NextDeadlineIsExactWithUnevenLevels) {
  check_next_deadline_exact_at_every_distance<uneven_config>(0);
  check_next_deadline_exact_at_every_distance<uneven_config>(0x3F3F3F3F3F3ULL);
}

TEST(Wheel, NextDeadlineIsExactInTheFarList) {
  check_next_deadline_exact_at_every_distance<far_config>(0);
  check_next_deadline_exact_at_every_distance<far_config>(0xFFFFULL);
}

TEST(Wheel, NextDeadlineIsTheMinimumOfManyLevels) {
  rig r(64);
  timerwheel_test::rng g(3);
  std::vector<std::uint64_t> deadlines;
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint64_t d = 1000 + g.below(std::uint64_t{1} << (i % 60 + 1));
    deadlines.push_back(d);
    r.w.schedule(r[i], d);
  }
  std::sort(deadlines.begin(), deadlines.end());
  // Drain one by one: next_deadline always names the next one to fire.
  for (std::size_t k = 0; k < deadlines.size(); ++k) {
    if (k > 0 && deadlines[k] == deadlines[k - 1]) continue;  // fired with the previous one
    ASSERT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(deadlines[k])) << k;
    ASSERT_EQ(r.w.time_until_next(), deadlines[k] - r.w.now());
    r.w.advance(deadlines[k], r.record());
    ASSERT_EQ(r.fired.size(),
              static_cast<std::size_t>(
                  std::upper_bound(deadlines.begin(), deadlines.end(), deadlines[k]) -
                  deadlines.begin()));
  }
  EXPECT_EQ(r.w.next_deadline(), std::nullopt);
}

TEST(Wheel, AdvanceToNextFiresTheEarliestDeadlineOnly) {
  rig r(8, 5);
  EXPECT_EQ(r.w.advance_to_next(r.record()), 0U);  // empty: nothing changes
  EXPECT_EQ(r.w.now(), 5U);
  r.w.schedule(r[0], 70'000);  // level 2
  r.w.schedule(r[1], 5'000);   // level 2, earlier
  r.w.schedule(r[2], 5'000);
  r.w.schedule(r[3], 1ULL << 40);
  EXPECT_EQ(r.w.advance_to_next(r.record()), 2U);
  EXPECT_EQ(r.w.now(), 5'000U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{1, 5'000}, {2, 5'000}}));
  r.w.check_invariants();
  // A callback scheduling at now fires in the same call, after the others.
  r.fired.clear();
  EXPECT_EQ(r.w.advance_to_next([&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) == 0) r.w.schedule(r[4], r.w.now());
  }),
            2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 70'000}, {4, 70'000}}));
  EXPECT_EQ(r.w.advance_to_next(r.record()), 1U);
  EXPECT_EQ(r.w.now(), 1ULL << 40);
  EXPECT_TRUE(r.w.empty());
}

// The pop's own path for the earliest timer alone in its level-1 slot,
// level 0 empty: fired from there at its deadline, unlinked before its
// callback, with what the callback schedules at now in the same call and
// what it schedules later left pending; a throw leaves it fired and now at
// its deadline.
TEST(Wheel, AdvanceToNextFiresALoneLevel1Timer) {
  rig r(8, 0);
  r.w.schedule(r[0], 100);   // level 1, slot 1 (ticks 64 to 127), alone
  r.w.schedule(r[1], 5000);  // level 2
  EXPECT_EQ(r.w.advance_to_next([&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) != 0) return;
    EXPECT_FALSE(h.pending());
    r.w.schedule(r[2], r.w.now());
    r.w.schedule(r[3], 50);  // behind now: due now
    r.w.schedule(r[4], r.w.now() + 1);
  }),
            3U);
  EXPECT_EQ(r.w.now(), 100U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 100}, {2, 100}, {3, 100}}));
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(101));
  r.fired.clear();
  EXPECT_EQ(r.w.advance_to_next(r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{4, 101}}));
  // A throwing callback on the same path.
  r.w.schedule(r[5], 200);  // level 1, alone in its slot again
  EXPECT_THROW(r.w.advance_to_next([](tw::timer_hook&) { throw std::runtime_error("boom"); }),
               std::runtime_error);
  EXPECT_EQ(r.w.now(), 200U);
  EXPECT_FALSE(r[5].pending());
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5000));
}

// An advance past whole level-1 slots takes a timer alone in one of them,
// level 0 empty, from there as the pop does. Not before its deadline (an
// advance into its slot but short of it fires nothing); in order with what
// the callbacks schedule at now and in between; now() its deadline in the
// callback; the pull form queues the same in the same order; a throw
// leaves now at the deadline of the timer that threw and the rest pending.
TEST(Wheel, AdvanceFiresLoneLevel1TimersOnTheWay) {
  rig r(12, 0);
  r.w.schedule(r[0], 100);                     // level 1, slot 1 (ticks 64 to 127), alone
  r.w.schedule(r[1], 200);                     // slot 3, alone
  r.w.schedule(r[2], 300);                     // slot 4, alone
  r.w.schedule(r[6], 5000);                    // level 2
  EXPECT_EQ(r.w.advance(70, r.record()), 0U);  // into slot 1, short of 100
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r.w.advance(1000,
                        [&](tw::timer_hook& h) {
                          r.fired.push_back({r.index(h), r.w.now()});
                          EXPECT_FALSE(h.pending());
                          if (r.index(h) != 0) return;
                          r.w.schedule(r[3], r.w.now());  // due now: fires next
                          r.w.schedule(r[4], 150);        // between the lone ones
                          r.w.schedule(r[5], 2000);       // beyond this advance
                        }),
            5U);
  EXPECT_EQ(r.w.now(), 1000U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{0, 100}, {3, 100}, {4, 150}, {1, 200}, {2, 300}}));
  EXPECT_TRUE(r[5].pending());
  EXPECT_TRUE(r[6].pending());
  r.w.check_invariants();

  // The pull form.
  r.w.schedule(r[7], 1100);  // level 1 at now 1000: slot 17, alone
  r.w.schedule(r[8], 1300);  // slot 20, alone
  EXPECT_EQ(r.w.advance(1500), 2U);
  EXPECT_EQ(r.w.take_expired(), &r[7]);
  EXPECT_EQ(r.w.take_expired(), &r[8]);
  EXPECT_EQ(r.w.take_expired(), nullptr);
  r.w.check_invariants();

  // A throw from the first of two.
  r.w.schedule(r[9], 1600);  // slot 25, alone
  r.w.schedule(r[10], 1700);
  EXPECT_THROW(r.w.advance(1900, [](tw::timer_hook&) { throw std::runtime_error("boom"); }),
               std::runtime_error);
  EXPECT_EQ(r.w.now(), 1600U);
  EXPECT_FALSE(r[9].pending());
  EXPECT_TRUE(r[10].pending());
  r.w.check_invariants();
  r.fired.clear();
  EXPECT_EQ(r.w.advance(1900, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{10, 1700}}));
  r.w.check_invariants();
}

// A level-0 slot longer than the pop fires before it loads the rest: the
// callbacks before that load cancel timers of the slot and schedule more at
// now, and the load walks the list as they left it.
TEST(Wheel, AdvanceToNextFiresALongSlotItsCallbacksChange) {
  rig r(40, 0);
  std::vector<std::size_t> want;
  for (std::size_t i = 0; i < 30; ++i) r.w.schedule(r[i], 10);
  for (std::size_t i = 0; i < 30; ++i)
    if (i != 29 && i != 5) want.push_back(i);
  want.insert(want.end(), {30, 31});
  EXPECT_EQ(r.w.advance_to_next([&](tw::timer_hook& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) == 2) {
      EXPECT_TRUE(r.w.cancel(r[29]));  // the back of the list
      EXPECT_TRUE(r.w.cancel(r[5]));
      r.w.schedule(r[30], 10);
    }
    if (r.index(h) == 7) r.w.schedule(r[31], 3);  // behind now: due now, behind 30
  }),
            want.size());
  EXPECT_EQ(r.fired_indices(), want);
  EXPECT_TRUE(r.w.empty());
  r.w.check_invariants();
}

TEST(Wheel, AdvanceToNextFiresDueAndQueuedTimersAtNow) {
  rig r(8, 0);
  r.w.schedule(r[0], 10);
  r.w.schedule(r[1], 10);
  r.w.schedule(r[2], 30);
  EXPECT_EQ(r.w.advance(20), 2U);  // pull form: queues #0 and #1
  EXPECT_NE(r.w.take_expired(), nullptr);
  r.w.schedule(r[3], 0);  // due now
  EXPECT_EQ(r.w.advance_to_next(r.record()), 2U);
  EXPECT_EQ(r.w.now(), 20U);
  EXPECT_EQ(r.fired_indices(), (idx{1, 3}));
  EXPECT_EQ(r.w.advance_to_next(r.record()), 1U);
  EXPECT_EQ(r.w.now(), 30U);
}

TEST(Wheel, AdvanceToNextThroughTheFarListAndFromACallback) {
  rig<far_config> r(8, 0);
  r.w.schedule(r[0], 1ULL << 40);
  r.w.schedule(r[1], (1ULL << 40) + 1);
  EXPECT_EQ(r.w.advance_to_next([&](auto& h) {
    r.fired.push_back({r.index(h), r.w.now()});
    EXPECT_THROW(r.w.advance_to_next(r.record()), std::logic_error);
  }),
            1U);
  EXPECT_EQ(r.w.now(), 1ULL << 40);
  r.w.check_invariants();
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>((1ULL << 40) + 1));
}

TEST(Wheel, TimeUntilNextIsZeroWhenDue) {
  rig r(2, 10);
  r.w.schedule(r[0], 9);
  EXPECT_EQ(r.w.time_until_next(), 0U);
  EXPECT_TRUE(r.w.cancel(r[0]));
  EXPECT_EQ(r.w.time_until_next(), kMax);
  r.w.schedule(r[0], 11);
  EXPECT_EQ(r.w.time_until_next(), 1U);
}

// ---------------------------------------------------------------------------
// The pull form.

TEST(Wheel, PullFormStopsMidwayAndResumesInOrder) {
  rig r;
  const std::uint64_t deadlines[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  for (std::size_t i = 0; i < 10; ++i) r.w.schedule(r[i], deadlines[i]);
  r.w.schedule(r[10], 100);
  idx expected(10);
  for (std::size_t i = 0; i < 10; ++i) expected[i] = i;
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::size_t a, std::size_t b) { return deadlines[a] < deadlines[b]; });

  EXPECT_EQ(r.w.advance(9), 10U);
  EXPECT_EQ(r.w.now(), 9U);
  EXPECT_EQ(r.w.size(), 11U) << "queued timers are still pending";
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(r[i].pending());
  r.w.check_invariants();

  idx taken;
  for (int k = 0; k < 4; ++k) {
    auto* h = r.w.take_expired();
    ASSERT_NE(h, nullptr);
    EXPECT_FALSE(h->pending());
    taken.push_back(r.index(*h));
  }
  // Stopped midway: the rest wait, in order, and count.
  EXPECT_EQ(r.w.size(), 7U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(deadlines[expected[4]]));
  EXPECT_EQ(r.w.time_until_next(), 0U);
  r.w.check_invariants();
  // A timer scheduled meanwhile, due at now, goes into the wheel, not the queue.
  r.w.schedule(r[11], 0);
  EXPECT_EQ(r[11].deadline(), 9U);
  while (auto* h = r.w.take_expired()) taken.push_back(r.index(*h));
  EXPECT_EQ(taken, expected);
  EXPECT_EQ(r.w.take_expired(), nullptr);
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(9));
  r.w.check_invariants();
  EXPECT_EQ(r.w.advance(9, r.record()), 1U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{11, 9}}));
}

TEST(Wheel, PullFormAdvanceOfNothingDueQueuesNothing) {
  rig r;
  r.w.schedule(r[0], 10);
  EXPECT_EQ(r.w.advance(9), 0U);
  EXPECT_EQ(r.w.take_expired(), nullptr);
  EXPECT_EQ(r.w.advance(10), 1U);
  EXPECT_EQ(r.w.take_expired(), &r[0]);
  EXPECT_EQ(r.w.take_expired(), nullptr);
}

TEST(Wheel, CancelOfAQueuedTimer) {
  rig r;
  for (std::size_t i = 0; i < 4; ++i) r.w.schedule(r[i], i + 1);
  EXPECT_EQ(r.w.advance(10), 4U);
  EXPECT_TRUE(r.w.cancel(r[1]));
  EXPECT_FALSE(r[1].pending());
  EXPECT_FALSE(r.w.cancel(r[1]));
  EXPECT_TRUE(r.w.cancel(r[0]));
  EXPECT_EQ(r.w.size(), 2U);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(3));
  r.w.check_invariants();
  EXPECT_EQ(r.w.take_expired(), &r[2]);
  EXPECT_EQ(r.w.take_expired(), &r[3]);
  EXPECT_EQ(r.w.take_expired(), nullptr);
}

TEST(Wheel, RescheduleOfAQueuedTimerMovesItBackIntoTheWheel) {
  rig r;
  r.w.schedule(r[0], 2);
  r.w.schedule(r[1], 3);
  r.w.schedule(r[2], 4);
  EXPECT_EQ(r.w.advance(5), 3U);
  r.w.schedule(r[0], 30);  // later
  r.w.schedule(r[1], 1);   // in the past: due at now, but back in the wheel
  EXPECT_TRUE(r[0].pending());
  EXPECT_EQ(r[0].deadline(), 30U);
  EXPECT_EQ(r[1].deadline(), 5U);
  EXPECT_EQ(r.w.size(), 3U);
  r.w.check_invariants();
  EXPECT_EQ(r.w.take_expired(), &r[2]);
  EXPECT_EQ(r.w.take_expired(), nullptr);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5));
  EXPECT_EQ(r.w.advance(30, r.record()), 2U);
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{1, 5}, {0, 30}}));
}

TEST(Wheel, PullThenCallbackAdvanceHandsTheQueuedOnesFirst) {
  rig r;
  r.w.schedule(r[0], 3);
  r.w.schedule(r[1], 5);
  r.w.schedule(r[2], 10);
  r.w.schedule(r[3], 12);
  EXPECT_EQ(r.w.advance(10), 3U);
  EXPECT_EQ(r.w.take_expired(), &r[0]);
  r.w.schedule(r[4], 7);  // behind now: due at 10, after the queued ones
  r.w.schedule(r[5], 11);
  EXPECT_EQ(r.w.next_deadline(), std::optional<std::uint64_t>(5)) << "the first queued one";
  EXPECT_EQ(r.w.advance(15, r.record()), 5U);
  // Queued ones run with now() at the old now.
  EXPECT_EQ(r.fired, (std::vector<rig<>::shot>{{1, 10}, {2, 10}, {4, 10}, {5, 11}, {3, 12}}));
  EXPECT_EQ(r.w.now(), 15U);
  EXPECT_TRUE(r.w.empty());
  r.w.check_invariants();
}

TEST(Wheel, PullAdvanceAgainAppendsBehindWhatIsStillQueued) {
  rig r;
  r.w.schedule(r[0], 1);
  r.w.schedule(r[1], 2);
  r.w.schedule(r[2], 3);
  EXPECT_EQ(r.w.advance(2), 2U);
  EXPECT_EQ(r.w.advance(3), 1U);
  idx taken;
  while (auto* h = r.w.take_expired()) taken.push_back(r.index(*h));
  EXPECT_EQ(taken, (idx{0, 1, 2}));
}

// ---------------------------------------------------------------------------
// expire_all, clear, for_each_pending.

TEST(Wheel, ExpireAllFiresEverythingInOrderAndLeavesNowUnchanged) {
  rig r(16, 100);
  r.w.schedule(r[0], 150);
  r.w.schedule(r[1], 120);
  r.w.schedule(r[2], kMax);
  r.w.schedule(r[3], std::uint64_t{1} << 40);
  r.w.schedule(r[4], 120);
  r.w.schedule(r[5], 50);  // due now
  EXPECT_EQ(r.w.advance(110), 1U);
  r.w.schedule(r[6], 115);
  const auto n = r.w.expire_all([&](tw::timer_hook& h) {
    EXPECT_FALSE(h.pending());
    r.fired.push_back({r.index(h), r.w.now()});
    if (r.index(h) == 1) {
      // Scheduled by a callback: stays pending, whether due or not.
      r.w.schedule(r[7], 0);
      r.w.schedule(r[8], 111);
      EXPECT_TRUE(r.w.cancel(r[4]));  // pending at the call, cancelled: does not fire
    }
  });
  // Queued first, then the wheel in (deadline, scheduling) order, less r[4].
  EXPECT_EQ(n, 6U);
  EXPECT_EQ(r.fired_indices(), (idx{5, 6, 1, 0, 3, 2}));
  for (const auto& s : r.fired) EXPECT_EQ(s.now, 110U);
  EXPECT_EQ(r.w.now(), 110U);
  EXPECT_TRUE(r[7].pending());
  EXPECT_TRUE(r[8].pending());
  EXPECT_EQ(r[7].deadline(), 110U);
  EXPECT_EQ(r.w.size(), 2U);
  r.w.check_invariants();
}

TEST(Wheel, NextDeadlineDuringExpireAllCountsTheTimersStillToFire) {
  rig r(8, 100);
  r.w.schedule(r[0], 300);
  r.w.schedule(r[1], 5000);
  std::vector<std::optional<std::uint64_t>> seen;
  std::vector<std::uint64_t> waits;
  r.w.expire_all([&](tw::timer_hook& h) {
    seen.push_back(r.w.next_deadline());
    waits.push_back(r.w.time_until_next());
    if (r.index(h) == 0) r.w.schedule(r[2], 200);  // earlier than what is left to fire
  });
  // While r[0] runs, r[1] is pending (5000); while r[1] runs, r[2] is (200).
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[0], std::optional<std::uint64_t>{5000});
  EXPECT_EQ(waits[0], 4900U);
  EXPECT_EQ(seen[1], std::optional<std::uint64_t>{200});
  EXPECT_EQ(waits[1], 100U);
  r.w.check_invariants();
}

TEST(Wheel, ExpireAllOnAnEmptyWheel) {
  rig r(1, 5);
  EXPECT_EQ(r.w.expire_all(r.record()), 0U);
  EXPECT_EQ(r.w.now(), 5U);
}

TEST(Wheel, ClearDropsEverythingIncludingQueued) {
  rig r(40);
  for (std::size_t i = 0; i < 40; ++i) r.w.schedule(r[i], (std::uint64_t{1} << i) + 1);
  EXPECT_EQ(r.w.advance(4), 2U);  // r[0] and r[1] queued
  r.w.clear();
  EXPECT_TRUE(r.w.empty());
  EXPECT_EQ(r.w.size(), 0U);
  EXPECT_EQ(r.count_pending(), 0U);
  EXPECT_EQ(r.w.next_deadline(), std::nullopt);
  EXPECT_EQ(r.w.time_until_next(), kMax);
  EXPECT_EQ(r.w.take_expired(), nullptr);
  EXPECT_EQ(r.w.now(), 4U);
  r.w.check_invariants();
  // The wheel and the hooks are usable again.
  r.w.schedule(r[3], 9);
  EXPECT_EQ(r.w.advance(kMax, r.record()), 1U);
  EXPECT_EQ(r.fired_indices(), (idx{3}));
}

TEST(Wheel, ForEachPendingVisitsEachPendingTimerOnce) {
  rig r(100);
  timerwheel_test::rng g(11);
  for (std::size_t i = 0; i < 100; ++i) r.w.schedule(r[i], g.below(std::uint64_t{1} << (i % 64)));
  for (std::size_t i = 0; i < 100; i += 7) r.w.cancel(r[i]);
  r.w.advance(1000);
  ASSERT_NE(r.w.take_expired(), nullptr);  // some queued, one taken
  std::multiset<std::size_t> visited;
  r.w.for_each_pending([&](const tw::timer_hook& h) {
    EXPECT_TRUE(h.pending());
    visited.insert(r.index(h));
  });
  std::multiset<std::size_t> expected;
  for (std::size_t i = 0; i < 100; ++i)
    if (r[i].pending()) expected.insert(i);
  EXPECT_EQ(visited, expected);
  EXPECT_EQ(visited.size(), r.w.size());
  // It works through a const wheel.
  const auto& cw = r.w;
  std::size_t n = 0;
  cw.for_each_pending([&](const tw::timer_hook&) { ++n; });
  EXPECT_EQ(n, r.w.size());
}

// ---------------------------------------------------------------------------
// size(): a walk over the timers by default, a count with counted<...>;
// empty() is O(1) either way. Both count timers waiting in the levels and the
// far list, queued by the pull form, and held in expire_all's batch.

// A configuration of the user's own that says nothing of counting: no count.
struct own_config {
  using tick_type = std::uint64_t;
  static constexpr unsigned count = 2;
  static constexpr std::array<unsigned, count> bits{8, 8};
};

static_assert(!tw::default_config::constant_time_size);
static_assert(tw::counted<tw::default_config>::constant_time_size);
static_assert(std::is_same_v<tw::wheel<tw::counted<own_config>>::tick_type, std::uint64_t>);

template <class Config>
class WheelSize : public ::testing::Test {};

using SizeConfigs = ::testing::Types<tw::default_config, tw::counted<tw::default_config>,
                                     own_config, tw::counted<own_config>>;
TYPED_TEST_SUITE(WheelSize, SizeConfigs);

TYPED_TEST(WheelSize, CountsWaitingQueuedAndBatchedTimers) {
  rig<TypeParam> r(8);
  r.w.schedule(r[0], 5);
  r.w.schedule(r[1], 5);
  r.w.schedule(r[2], 70000);                   // beyond own_config's levels: far
  r.w.schedule(r[3], std::uint64_t{1} << 40);  // far
  EXPECT_EQ(r.w.size(), 4U);
  r.w.schedule(r[0], 9);  // a reschedule is no new timer
  EXPECT_EQ(r.w.size(), 4U);
  EXPECT_TRUE(r.w.cancel(r[3]));
  EXPECT_FALSE(r.w.cancel(r[3]));
  EXPECT_EQ(r.w.size(), 3U);

  // Queued by the pull form: pending until taken.
  EXPECT_EQ(r.w.advance(10), 2U);
  EXPECT_EQ(r.w.size(), 3U);
  ASSERT_NE(r.w.take_expired(), nullptr);
  ASSERT_NE(r.w.take_expired(), nullptr);
  EXPECT_EQ(r.w.size(), 1U);
  EXPECT_FALSE(r.w.empty());
  r.w.check_invariants();

  // In expire_all's batch: pending until fired.
  r.w.schedule(r[4], 20);
  std::vector<std::pair<std::size_t, bool>> seen;
  r.w.expire_all([&](auto&) { seen.emplace_back(r.w.size(), r.w.empty()); });
  const std::vector<std::pair<std::size_t, bool>> expected{{1, false}, {0, true}};
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(r.w.empty());
  EXPECT_EQ(r.w.size(), 0U);

  r.w.schedule(r[5], 30);
  r.w.schedule(r[6], 31);
  r.w.clear();
  EXPECT_TRUE(r.w.empty());
  EXPECT_EQ(r.w.size(), 0U);
  r.w.check_invariants();
}

// ---------------------------------------------------------------------------
// Hooks and the wheel's lifetime.

TEST(Wheel, DestructorUnlinksPendingHooks) {
  std::vector<tw::timer_hook> hooks(5);
  {
    tw::wheel<> w(10);
    w.schedule(hooks[0], 20);
    w.schedule(hooks[1], kMax);
    w.schedule(hooks[2], 10);
    w.schedule(hooks[3], 11);
    EXPECT_EQ(w.advance(11), 2U);  // hooks[2], hooks[3] queued, not taken
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(hooks[static_cast<std::size_t>(i)].pending());
  }
  for (const auto& h : hooks) EXPECT_FALSE(h.pending());
  // The hooks are destroyed here; in a debug build a pending one would abort.
}

TEST(Wheel, IdleHookCopiesAreIdle) {
  tw::timer_hook a;
  tw::timer_hook b(a);
  EXPECT_FALSE(b.pending());
  tw::wheel<> w;
  w.schedule(a, 5);
  w.advance(5, [](tw::timer_hook&) {});
  ASSERT_FALSE(a.pending());
  tw::timer_hook c(a);  // a fired hook is idle
  EXPECT_FALSE(c.pending());
  b = c;
  EXPECT_FALSE(b.pending());
  // A copy is a separate timer.
  w.schedule(c, 9);
  EXPECT_TRUE(c.pending());
  EXPECT_FALSE(a.pending());
  EXPECT_EQ(w.size(), 1U);
  w.cancel(c);
}

#if TIMERWHEEL_CHECKED

class WheelDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(WheelDeathTest, DestroyingAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        std::optional<tw::timer_hook> h;
        h.emplace();
        w.schedule(*h, 5);
        h.reset();
      },
      "pending");
}

TEST_F(WheelDeathTest, DestroyingAQueuedHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        std::optional<tw::timer_hook> h;
        h.emplace();
        w.schedule(*h, 5);
        w.advance(5);
        h.reset();
      },
      "pending");
}

TEST_F(WheelDeathTest, CopyingAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        tw::timer_hook h;
        w.schedule(h, 5);
        tw::timer_hook copy(h);
        w.cancel(h);
      },
      "pending");
}

TEST_F(WheelDeathTest, MovingAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        tw::timer_hook h;
        w.schedule(h, 5);
        tw::timer_hook moved(std::move(h));
        w.cancel(h);
      },
      "pending");
}

TEST_F(WheelDeathTest, AssigningOntoAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        tw::timer_hook h;
        tw::timer_hook idle;
        w.schedule(h, 5);
        h = idle;
        w.cancel(h);
      },
      "pending");
}

TEST_F(WheelDeathTest, AssigningFromAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        tw::timer_hook h;
        tw::timer_hook idle;
        w.schedule(h, 5);
        idle = h;
        w.cancel(h);
      },
      "pending");
}

TEST_F(WheelDeathTest, MoveAssigningOntoAPendingHookAborts) {
  EXPECT_DEATH(
      {
        tw::wheel<> w;
        tw::timer_hook h;
        w.schedule(h, 5);
        h = tw::timer_hook{};
        w.cancel(h);
      },
      "pending");
}

#endif  // TIMERWHEEL_CHECKED

}  // namespace
