// The contract of a timer structure (docs/contract.md), member by member,
// as ONE typed suite for every structure: the wheel in each test
// configuration and the seven reference schemes of Varghese & Lauck over
// 64-bit and wrapping 32-bit ticks (tests/support/structures.hpp).
//
// The suite's tests are defined here (a type-parameterized suite) and
// instantiated for a group of structures by each conformance_*_test.cpp, so
// that no one translation unit compiles them for all twenty structures.
//
// Every test runs from `base`: 32-bit structures start 20 ticks below the
// wrap, so that every test crosses it; 64-bit ones at 1000, so that there is
// a past. Deadlines stay within each structure's horizon (basic_wheel takes
// none beyond its MaxInterval). check_invariants runs after every step.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/range_choice.hpp"
#include "support/rng.hpp"
#include "support/structures.hpp"

namespace timerwheel_conformance {

namespace tt = timerwheel_test;
using u64 = std::uint64_t;

template <class List>
struct gtest_types;
template <class... S>
struct gtest_types<tt::structure_list<S...>> {
  using type = ::testing::Types<S...>;
};

struct structure_names {
  template <class S>
  static std::string GetName(int) {
    return tt::structure_traits<S>::name();
  }
};

template <class S>
class Conformance : public ::testing::Test {
 protected:
  using tick_type = typename S::tick_type;
  using hook_type = typename S::hook_type;
  static constexpr bool wraps = std::numeric_limits<tick_type>::digits < 64;
  static constexpr tick_type base = wraps ? static_cast<tick_type>(-20) : tick_type{1000};
  static constexpr tick_type max_tick = std::numeric_limits<tick_type>::max();
  // How far ahead of now a deadline may lie: the nearest-instant range of a
  // wrapping tick_type, the structure's horizon, or (64-bit) the end of time.
  static constexpr u64 reach = std::min<u64>(
      tt::structure_traits<S>::max_ahead,
      wraps ? (u64{1} << (std::numeric_limits<tick_type>::digits - 1)) - 1 : max_tick - base);

  // (timer, now() - base) of each fire, in order.
  using fire_log = std::vector<std::pair<std::size_t, u64>>;

  // The instant `d` ticks after base.
  static tick_type at(u64 d) { return static_cast<tick_type>(base + static_cast<tick_type>(d)); }
  // Ticks from base to `t`.
  static u64 rel(tick_type t) { return static_cast<tick_type>(t - base); }

  // What schedule_in_range picks in [base + e, base + l] (both at or after
  // now): the unwrapped instant with the most trailing zero bits, by the
  // independent model of tests/support/range_choice.hpp.
  static tick_type choice(u64 e, u64 l) {
    return static_cast<tick_type>(tt::most_trailing_zeros_in(u64{base} + e, u64{base} + l));
  }

  std::size_t idx(const hook_type& x) const { return static_cast<std::size_t>(&x - hooks.data()); }

  // A callback that records each fire.
  auto record() {
    return [this](hook_type& x) { fired.emplace_back(idx(x), rel(st.now())); };
  }

  // Checks the invariants; called after every step.
  void ok() {
    try {
      st.check_invariants();
    } catch (const std::exception& ex) {
      FAIL() << "check_invariants: " << ex.what();
    }
  }

  std::size_t advance(u64 d) {
    const std::size_t n = st.advance(at(d), record());
    ok();
    EXPECT_EQ(st.now(), at(d));
    return n;
  }

  std::size_t schedule(std::size_t i, u64 d) {
    st.schedule(hooks[i], at(d));
    ok();
    return i;
  }

  // What a "changes nothing" check compares.
  struct snapshot {
    tick_type now;
    std::size_t size;
    std::optional<tick_type> next;
    tick_type wait;
    std::vector<std::pair<bool, tick_type>> timers;
    bool operator==(const snapshot&) const = default;
  };
  snapshot snap() const {
    snapshot x{st.now(), st.size(), st.next_deadline(), st.time_until_next(), {}};
    for (const hook_type& k : hooks)
      x.timers.emplace_back(k.pending(), k.pending() ? k.deadline() : tick_type{});
    return x;
  }

  std::array<hook_type, 16> hooks{};  // before the structure: destroyed after it
  S st{base};
  fire_log fired;
};

TYPED_TEST_SUITE_P(Conformance);

// --- construction, size, empty ----------------------------------------------

TYPED_TEST_P(Conformance, StartsEmptyAtItsNow) {
  auto& s = this->st;
  EXPECT_EQ(s.now(), this->base);
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.next_deadline(), std::nullopt);
  EXPECT_EQ(s.time_until_next(), this->max_tick);
  EXPECT_EQ(s.take_expired(), nullptr);
  std::size_t visited = 0;
  s.for_each_pending([&](const auto&) { ++visited; });
  EXPECT_EQ(visited, 0U);
  this->ok();
  EXPECT_EQ(s.advance(this->at(5), this->record()), 0U);
  EXPECT_EQ(s.advance(this->at(9)), 0U);
  EXPECT_EQ(s.expire_all(this->record()), 0U);
  EXPECT_TRUE(this->fired.empty());
  this->ok();
}

TYPED_TEST_P(Conformance, SizeAndEmptyCountWaitingAndQueuedTimers) {
  auto& s = this->st;
  auto& h = this->hooks;
  for (std::size_t i = 0; i < 5; ++i) {
    this->schedule(i, 1 + i);
    EXPECT_EQ(s.size(), i + 1);
    EXPECT_FALSE(s.empty());
  }
  this->schedule(2, 40);  // a move is not a new timer
  EXPECT_EQ(s.size(), 5U);
  EXPECT_TRUE(s.cancel(h[0]));
  EXPECT_EQ(s.size(), 4U);
  EXPECT_EQ(s.advance(this->at(4)), 2U);  // pull form: #1 and #3 queued, still pending
  EXPECT_EQ(s.size(), 4U);
  EXPECT_NE(s.take_expired(), nullptr);
  EXPECT_EQ(s.size(), 3U);
  this->ok();
  this->advance(100);  // fires the queued #3, then #4 and #2
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.empty());
  this->ok();
}

// --- schedule, cancel, reschedule -------------------------------------------

TYPED_TEST_P(Conformance, ScheduleMakesATimerPendingAtItsDeadline) {
  auto& s = this->st;
  auto& h = this->hooks;
  EXPECT_FALSE(h[0].pending());
  this->schedule(0, 10);
  EXPECT_TRUE(h[0].pending());
  EXPECT_EQ(h[0].deadline(), this->at(10));
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(s.next_deadline(), this->at(10));
  EXPECT_EQ(s.time_until_next(), 10U);
  EXPECT_EQ(s.now(), this->base);
  this->advance(9);
  EXPECT_TRUE(this->fired.empty());
  EXPECT_TRUE(h[0].pending());
  EXPECT_EQ(this->advance(10), 1U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 10}}));
  EXPECT_FALSE(h[0].pending());
  EXPECT_EQ(this->advance(50), 0U);  // exactly once
}

TYPED_TEST_P(Conformance, CancelSaysWhetherTheTimerWasPending) {
  auto& s = this->st;
  auto& h = this->hooks;
  EXPECT_FALSE(s.cancel(h[0]));  // never scheduled: a no-op
  this->ok();
  this->schedule(0, 10);
  this->schedule(1, 10);
  this->schedule(2, 12);
  EXPECT_TRUE(s.cancel(h[0]));
  this->ok();
  EXPECT_FALSE(h[0].pending());
  EXPECT_EQ(s.size(), 2U);
  const auto before = this->snap();
  EXPECT_FALSE(s.cancel(h[0]));  // twice: a no-op
  EXPECT_EQ(this->snap(), before);
  this->advance(10);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{1, 10}}));
  EXPECT_FALSE(s.cancel(h[1]));  // fired: not pending
  EXPECT_TRUE(s.cancel(h[2]));
  this->ok();
  EXPECT_EQ(s.next_deadline(), std::nullopt);
  this->advance(100);
  EXPECT_EQ(this->fired.size(), 1U);
}

TYPED_TEST_P(Conformance, ScheduleOfAPendingTimerMovesIt) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 10);
  this->schedule(0, 30);  // later
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(h[0].deadline(), this->at(30));
  EXPECT_EQ(s.next_deadline(), this->at(30));
  this->schedule(1, 20);
  this->schedule(1, 5);  // earlier
  EXPECT_EQ(s.next_deadline(), this->at(5));
  this->advance(29);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{1, 5}}));
  this->advance(40);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{1, 5}, {0, 30}}));
}

TYPED_TEST_P(Conformance, EqualDeadlinesFireFirstScheduledFirst) {
  auto& s = this->st;
  // Scheduled from far away (so placed high where a structure has levels),
  // from closer, and at the last moment: all at 5000 ticks.
  const u64 d = std::min<u64>(5000, TestFixture::reach);
  this->schedule(3, d);
  this->schedule(1, d);
  this->schedule(4, d);
  this->advance(d - 70);
  this->schedule(0, d);
  this->schedule(6, d - 1);
  this->advance(d - 1);
  this->schedule(2, d);
  this->schedule(5, d);
  EXPECT_EQ(this->advance(d + 1), 6U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{
                             {6, d - 1}, {3, d}, {1, d}, {4, d}, {0, d}, {2, d}, {5, d}}));
  EXPECT_EQ(s.size(), 0U);
}

TYPED_TEST_P(Conformance, RescheduleCountsAsNewlyScheduled) {
  auto& s = this->st;
  for (const std::size_t i : {0U, 1U, 2U, 3U}) this->schedule(i, 7);
  this->schedule(0, 7);  // same deadline: now the newest
  this->schedule(2, 9);  // away and back: the newest again
  this->schedule(2, 7);
  s.schedule_in_range(this->hooks[1], this->at(7), this->at(7));  // a range counts as a schedule
  this->ok();
  EXPECT_EQ(this->advance(7), 4U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{3, 7}, {0, 7}, {2, 7}, {1, 7}}));
}

// --- advance ----------------------------------------------------------------

TYPED_TEST_P(Conformance, AdvanceFiresEveryDueTimerOnceInDeadlineOrder) {
  auto& s = this->st;
  const u64 r = TestFixture::reach;
  // Near, on slot edges of 6- and 8-bit levels, far, and the farthest.
  std::vector<u64> deltas = {63,  1,   64,    2,     65,    4095,  4096, 255,
                             256, 257, 65535, 65536, r / 3, r - 1, r,    1u << 20};
  for (u64& d : deltas) d = std::min(d, r);
  std::vector<std::pair<u64, std::size_t>> want;  // (deadline, scheduling order)
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    this->schedule(i, deltas[i]);
    want.emplace_back(deltas[i], i);
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(s.next_deadline(), this->at(want.front().first));
  EXPECT_EQ(this->advance(r), deltas.size());
  typename TestFixture::fire_log expected;
  for (const auto& [d, i] : want) expected.emplace_back(i, d);
  EXPECT_EQ(this->fired, expected);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(this->advance(r), 0U);
}

TYPED_TEST_P(Conformance, AdvanceStopsAtItsTarget) {
  auto& s = this->st;
  this->schedule(0, 5);
  this->schedule(1, 6);
  EXPECT_EQ(this->advance(5), 1U);
  EXPECT_EQ(s.next_deadline(), this->at(6));
  EXPECT_EQ(this->advance(5), 0U);  // by 0 ticks
  EXPECT_EQ(s.advance(this->at(5)), 0U);
  EXPECT_EQ(this->advance(6), 1U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 5}, {1, 6}}));
  EXPECT_EQ(this->advance(7), 0U);  // by 1 tick
}

TYPED_TEST_P(Conformance, PastDeadlinesAreTakenAsNowAndFireAfterThoseAlreadyDue) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->advance(100);
  this->schedule(0, 100);  // due now
  this->schedule(1, 40);   // in the past: taken as now, after #0
  s.schedule(h[2], static_cast<typename TestFixture::tick_type>(s.now() - 1));
  s.schedule_in_range(h[3], this->at(10), this->at(20));  // a range all in the past
  this->ok();
  // The farthest past that still reads as past (the nearest-instant range of
  // a wrapping tick; 0 for 64-bit ticks).
  const auto farthest_past =
      TestFixture::wraps
          ? static_cast<typename TestFixture::tick_type>(s.now() - (TestFixture::reach + 1))
          : typename TestFixture::tick_type{0};
  s.schedule(h[4], farthest_past);
  this->ok();
  EXPECT_TRUE(this->fired.empty());  // never inside schedule
  for (const std::size_t i : {1U, 2U, 3U, 4U}) {
    EXPECT_TRUE(h[i].pending());
    EXPECT_EQ(h[i].deadline(), s.now());
  }
  EXPECT_EQ(s.next_deadline(), s.now());
  EXPECT_EQ(s.time_until_next(), 0U);
  EXPECT_EQ(this->advance(100), 5U);  // an advance by 0 fires them
  EXPECT_EQ(this->fired,
            (typename TestFixture::fire_log{{0, 100}, {1, 100}, {2, 100}, {3, 100}, {4, 100}}));
}

TYPED_TEST_P(Conformance, NowDuringACallbackIsItsDeadlineOrTheOldNowForOneAlreadyDue) {
  auto& s = this->st;
  this->advance(10);
  this->schedule(0, 3);  // already due: fires at the old now (10)
  this->schedule(1, 17);
  this->schedule(2, 30);
  this->advance(40);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 10}, {1, 17}, {2, 30}}));
  EXPECT_EQ(s.now(), this->at(40));
}

// --- callbacks --------------------------------------------------------------

TYPED_TEST_P(Conformance, CallbacksMayScheduleTimersDueInTheSameAdvance) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 10);
  this->schedule(3, 10);
  bool first = true;
  const std::size_t n = s.advance(this->at(100), [&](auto& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    this->ok();
    if (this->idx(x) != 0 || !first) return;
    first = false;
    s.schedule(h[1], this->at(50));   // later in this advance
    s.schedule(h[2], this->at(10));   // at now: after #3, which was scheduled before
    s.schedule(h[4], this->at(3));    // in the past: taken as now, after #2
    s.schedule(h[5], this->at(200));  // beyond the target: stays pending
    s.schedule(h[0], this->at(60));   // itself, again
    EXPECT_EQ(s.schedule_in_range(h[6], this->at(70), this->at(80)), this->choice(70, 80));
  });
  this->ok();
  EXPECT_EQ(n, 7U);
  const u64 r6 = this->rel(this->choice(70, 80));
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{
                             {0, 10}, {3, 10}, {2, 10}, {4, 10}, {1, 50}, {0, 60}, {6, r6}}));
  EXPECT_TRUE(h[5].pending());
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(s.now(), this->at(100));
}

TYPED_TEST_P(Conformance, CallbacksMayCancelTimersDueInTheSameAdvance) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 10);
  this->schedule(1, 10);
  this->schedule(2, 20);
  this->schedule(3, 30);
  this->schedule(4, 500);
  const std::size_t n = s.advance(this->at(100), [&](auto& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    if (this->idx(x) != 0) return;
    EXPECT_FALSE(s.cancel(x));     // itself: no longer pending
    EXPECT_TRUE(s.cancel(h[1]));   // due at this very tick
    EXPECT_TRUE(s.cancel(h[2]));   // due later in this advance
    EXPECT_TRUE(s.cancel(h[4]));   // beyond it
    EXPECT_FALSE(s.cancel(h[9]));  // idle
    EXPECT_EQ(s.size(), 1U);
    this->ok();
  });
  this->ok();
  EXPECT_EQ(n, 2U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 10}, {3, 30}}));
  EXPECT_TRUE(s.empty());
}

TYPED_TEST_P(Conformance, ACallbackMayRescheduleItself) {
  auto& s = this->st;
  this->schedule(0, 10);
  const std::size_t n = s.advance(this->at(100), [&](auto& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    EXPECT_FALSE(x.pending());
    EXPECT_EQ(s.size(), 0U);
    if (this->rel(s.now()) < 90)
      s.schedule(x, static_cast<typename TestFixture::tick_type>(s.now() + 10));
    this->ok();
  });
  EXPECT_EQ(n, 9U);
  typename TestFixture::fire_log want;
  for (u64 d = 10; d <= 90; d += 10) want.emplace_back(0, d);
  EXPECT_EQ(this->fired, want);
  // Rescheduled at its own deadline (now), it fires again in the same advance.
  this->schedule(1, 110);
  int times = 0;
  s.advance(this->at(110), [&](auto& x) {
    if (++times < 3) s.schedule(x, s.now());
  });
  EXPECT_EQ(times, 3);
  this->ok();
}

TYPED_TEST_P(Conformance, AdvanceOrExpireAllFromACallbackThrowsLogicError) {
  auto& s = this->st;
  auto& h = this->hooks;
  using hook = typename TestFixture::hook_type;
  this->schedule(0, 5);
  this->schedule(1, 6);
  this->schedule(2, 7);
  const auto reenter = [&] {
    EXPECT_THROW(s.advance(s.now(), [](hook&) {}), std::logic_error);
    EXPECT_THROW(s.advance(this->at(1000), [](hook&) {}), std::logic_error);
    EXPECT_THROW(s.advance(s.now()), std::logic_error);
    EXPECT_THROW(s.expire_all([](hook&) {}), std::logic_error);
    this->ok();
  };
  s.advance(this->at(6), [&](hook& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    reenter();
  });
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 5}, {1, 6}}));
  EXPECT_EQ(s.now(), this->at(6));
  EXPECT_TRUE(h[2].pending());
  this->schedule(3, 50);
  s.expire_all([&](hook& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    reenter();
  });
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 5}, {1, 6}, {2, 6}, {3, 6}}));
  // The structure is usable afterwards.
  this->schedule(4, 8);
  EXPECT_EQ(this->advance(8), 1U);
  this->ok();
}

TYPED_TEST_P(Conformance, ACallbackThatThrowsLeavesTheRestPending) {
  auto& s = this->st;
  auto& h = this->hooks;
  struct boom {};
  this->schedule(0, 1);
  this->schedule(1, 2);
  this->schedule(2, 3);
  EXPECT_THROW(s.advance(this->at(10),
                         [&](auto& x) {
                           this->fired.emplace_back(this->idx(x), this->rel(s.now()));
                           if (this->idx(x) == 1) throw boom{};
                         }),
               boom);
  this->ok();
  EXPECT_FALSE(h[1].pending());
  EXPECT_TRUE(h[2].pending());
  EXPECT_EQ(s.now(), this->at(2));  // the deadline of the last one fired
  this->schedule(3, 5);
  this->schedule(4, 5);
  EXPECT_THROW(s.expire_all([&](auto& x) {
    this->fired.emplace_back(this->idx(x), this->rel(s.now()));
    throw boom{};
  }),
               boom);
  this->ok();
  EXPECT_EQ(s.size(), 2U);
  EXPECT_EQ(this->advance(10), 2U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 1}, {1, 2}, {2, 2}, {3, 5}, {4, 5}}));
}

// --- the pull form ----------------------------------------------------------

TYPED_TEST_P(Conformance, ThePullFormStopsMidwayAndResumes) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 9);
  this->schedule(1, 2);
  this->schedule(2, 1);
  this->schedule(3, 2);
  this->schedule(4, 5);
  EXPECT_EQ(s.advance(this->at(5)), 4U);
  this->ok();
  EXPECT_EQ(s.now(), this->at(5));
  EXPECT_EQ(s.size(), 5U);
  for (const std::size_t i : {1U, 2U, 3U, 4U}) EXPECT_TRUE(h[i].pending());  // queued: pending
  EXPECT_EQ(s.next_deadline(), this->at(1));  // the first queued one's
  EXPECT_EQ(s.time_until_next(), 0U);
  auto* t = s.take_expired();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(this->idx(*t), 2U);
  EXPECT_FALSE(t->pending());
  EXPECT_EQ(t->deadline(), this->at(1));
  t = s.take_expired();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(this->idx(*t), 1U);
  this->ok();
  EXPECT_EQ(s.size(), 3U);
  EXPECT_EQ(s.next_deadline(), this->at(2));
  // Stop here; the next pull queues behind what was not taken.
  this->schedule(5, 5);  // due now: after those already queued
  EXPECT_EQ(s.advance(this->at(9)), 2U);
  this->ok();
  std::vector<std::size_t> order;
  while (auto* x = s.take_expired()) {
    order.push_back(this->idx(*x));
    this->ok();
  }
  EXPECT_EQ(order, (std::vector<std::size_t>{3, 4, 5, 0}));
  EXPECT_EQ(s.take_expired(), nullptr);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.time_until_next(), TestFixture::max_tick);
}

TYPED_TEST_P(Conformance, ACallbackAdvanceHandsTheQueuedTimersFirst) {
  auto& s = this->st;
  this->schedule(0, 1);
  this->schedule(1, 2);
  this->schedule(2, 3);
  this->schedule(3, 6);
  EXPECT_EQ(s.advance(this->at(3)), 3U);
  ASSERT_NE(s.take_expired(), nullptr);  // #0
  this->schedule(4, 3);                  // due now, not queued
  this->schedule(5, 5);
  EXPECT_EQ(this->advance(6), 5U);
  // The queued ones at the old now, then the rest in order.
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{1, 3}, {2, 3}, {4, 3}, {5, 5}, {3, 6}}));
  EXPECT_EQ(s.take_expired(), nullptr);
}

TYPED_TEST_P(Conformance, CancelAndScheduleReachAQueuedTimer) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 1);
  this->schedule(1, 2);
  this->schedule(2, 3);
  EXPECT_EQ(s.advance(this->at(4)), 3U);
  EXPECT_TRUE(s.cancel(h[1]));  // out of the queue
  this->ok();
  EXPECT_FALSE(h[1].pending());
  EXPECT_EQ(s.size(), 2U);
  this->schedule(0, 50);  // back into the structure
  EXPECT_TRUE(h[0].pending());
  EXPECT_EQ(h[0].deadline(), this->at(50));
  EXPECT_EQ(s.size(), 2U);
  EXPECT_EQ(s.next_deadline(), this->at(3));  // #2 is still queued
  auto* t = s.take_expired();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(this->idx(*t), 2U);
  EXPECT_EQ(s.take_expired(), nullptr);
  EXPECT_EQ(s.next_deadline(), this->at(50));
  this->advance(60);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 50}}));
}

// --- next_deadline, time_until_next -----------------------------------------

TYPED_TEST_P(Conformance, NextDeadlineIsExact) {
  auto& s = this->st;
  auto& h = this->hooks;
  // Inside coarse slots, not at their starts.
  const u64 r = TestFixture::reach;
  for (const u64 d : {std::min<u64>(4100, r), std::min<u64>(4097, r), std::min<u64>(70000, r)}) {
    this->schedule(d % 3, d);
  }
  EXPECT_EQ(s.next_deadline(), this->at(std::min<u64>(4097, r)));
  EXPECT_EQ(s.time_until_next(), std::min<u64>(4097, r));
  s.clear();
  // A random walk, checked against a scan of the hooks after every step
  // (with the pull form's queue drained: a queued timer's deadline is behind
  // now, and next_deadline gives the first queued one's).
  tt::rng g(0xC0FFEE + TestFixture::reach);
  const auto ahead = [&](typename TestFixture::tick_type t) -> u64 {
    return static_cast<typename TestFixture::tick_type>(t - s.now());
  };
  const auto scan = [&]() -> std::optional<u64> {
    std::optional<u64> best;
    for (const auto& k : h)
      if (k.pending() && (!best || ahead(k.deadline()) < *best)) best = ahead(k.deadline());
    return best;
  };
  // (basic_wheel's check_invariants walks all its 2^17 slots: a shorter walk.)
  const int steps =
      tt::structure_traits<TypeParam>::max_ahead == tt::timeline::unlimited ? 3000 : 300;
  for (int step = 0; step < steps; ++step) {
    const u64 op = g.below(10);
    const std::size_t i = static_cast<std::size_t>(g.below(h.size()));
    // Room ahead of now: the horizon, or (64-bit ticks) up to the end of time.
    const u64 room = TestFixture::wraps || r != TestFixture::max_tick - TestFixture::base
                         ? r
                         : TestFixture::max_tick - s.now();
    if (op < 5) {
      u64 d = 0;
      switch (g.below(4)) {
        case 0:
          d = g.below(70);
          break;
        case 1:
          d = g.below(5000);
          break;
        case 2:
          d = g.below(u64{1} << g.between(12, 30));
          break;
        default:
          d = room;
          break;
      }
      s.schedule(h[i], static_cast<typename TestFixture::tick_type>(s.now() + std::min(d, room)));
    } else if (op < 7) {
      s.cancel(h[i]);
    } else {
      const auto next = scan();
      u64 to = g.below(100);
      if (next && g.percent(50)) to = *next + g.below(3) - std::min<u64>(*next, 1);
      to = std::min(to, room);
      const auto target = static_cast<typename TestFixture::tick_type>(s.now() + to);
      if (g.percent(30)) {
        s.advance(target);
        while (s.take_expired() != nullptr) {
        }
      } else {
        s.advance(target, [](auto&) {});
      }
    }
    this->ok();
    const auto want = scan();
    if (!want) {
      ASSERT_EQ(s.next_deadline(), std::nullopt) << "step " << step;
      ASSERT_EQ(s.time_until_next(), TestFixture::max_tick);
    } else {
      ASSERT_EQ(s.next_deadline(), static_cast<typename TestFixture::tick_type>(s.now() + *want))
          << "step " << step;
      ASSERT_EQ(s.time_until_next(), *want) << "step " << step;
    }
  }
}

TYPED_TEST_P(Conformance, TimeUntilNextIsZeroWhenDueAndTheLargestTickWhenEmpty) {
  auto& s = this->st;
  auto& h = this->hooks;
  EXPECT_EQ(s.time_until_next(), TestFixture::max_tick);
  this->schedule(0, 7);
  EXPECT_EQ(s.time_until_next(), 7U);
  this->advance(3);
  EXPECT_EQ(s.time_until_next(), 4U);
  this->schedule(1, 1);  // past: due
  EXPECT_EQ(s.time_until_next(), 0U);
  EXPECT_TRUE(s.cancel(h[1]));
  EXPECT_EQ(s.time_until_next(), 4U);
  EXPECT_EQ(s.advance(this->at(7)), 1U);  // queued: due
  EXPECT_EQ(s.time_until_next(), 0U);
  ASSERT_NE(s.take_expired(), nullptr);
  EXPECT_EQ(s.time_until_next(), TestFixture::max_tick);
  this->ok();
}

// --- expire_all, clear, for_each_pending -------------------------------------

TYPED_TEST_P(Conformance, ExpireAllFiresEveryPendingTimerInOrderAndKeepsNow) {
  auto& s = this->st;
  auto& h = this->hooks;
  const u64 r = TestFixture::reach;
  this->schedule(0, 1);
  this->schedule(1, 2);
  this->schedule(2, 2);
  EXPECT_EQ(s.advance(this->at(2)), 3U);
  ASSERT_NE(s.take_expired(), nullptr);  // #0; #1 and #2 stay queued
  this->schedule(3, r);
  this->schedule(4, std::min<u64>(5000, r));
  this->schedule(5, 70);
  this->schedule(6, 70);
  this->schedule(7, 1);  // past: due now
  this->schedule(8, 300);
  const std::size_t n = s.expire_all([&](auto& x) {
    this->fired.emplace_back(this->idx(x), this->rel(x.deadline()));
    EXPECT_EQ(s.now(), this->at(2));
    if (this->idx(x) == 1) {
      EXPECT_TRUE(s.cancel(h[6]));     // pending at the call: does not fire
      s.schedule(h[10], this->at(3));  // new: stays pending
      s.schedule(h[11], s.now());
    }
    this->ok();
  });
  this->ok();
  EXPECT_EQ(n, 7U);
  EXPECT_EQ(this->fired,
            (typename TestFixture::fire_log{
                {1, 2}, {2, 2}, {7, 2}, {5, 70}, {8, 300}, {4, std::min<u64>(5000, r)}, {3, r}}));
  EXPECT_EQ(s.now(), this->at(2));
  EXPECT_EQ(s.size(), 2U);
  EXPECT_TRUE(h[10].pending());
  EXPECT_TRUE(h[11].pending());
  EXPECT_EQ(s.next_deadline(), this->at(2));
  EXPECT_EQ(this->advance(3), 2U);
  EXPECT_EQ(s.expire_all(this->record()), 0U);
}

TYPED_TEST_P(Conformance, ClearDropsEveryTimer) {
  auto& s = this->st;
  auto& h = this->hooks;
  s.clear();  // empty: fine
  this->ok();
  for (std::size_t i = 0; i < 8; ++i)
    this->schedule(i, std::min<u64>(u64{1} << (3 * i), TestFixture::reach));
  EXPECT_EQ(s.advance(this->at(8)), 2U);  // two queued
  s.clear();
  this->ok();
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.now(), this->at(8));
  EXPECT_EQ(s.next_deadline(), std::nullopt);
  EXPECT_EQ(s.time_until_next(), TestFixture::max_tick);
  EXPECT_EQ(s.take_expired(), nullptr);
  for (const auto& k : h) EXPECT_FALSE(k.pending());
  EXPECT_FALSE(s.cancel(h[3]));
  // Still usable.
  this->schedule(3, 20);
  this->schedule(0, 9);
  EXPECT_EQ(this->advance(100), 2U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 9}, {3, 20}}));
}

TYPED_TEST_P(Conformance, ForEachPendingVisitsEveryPendingTimerOnce) {
  auto& s = this->st;
  auto& h = this->hooks;
  const auto visited = [&] {
    std::vector<std::size_t> v;
    s.for_each_pending(
        [&](const typename TestFixture::hook_type& x) { v.push_back(this->idx(x)); });
    std::sort(v.begin(), v.end());
    return v;
  };
  for (std::size_t i = 0; i < 10; ++i)
    this->schedule(i, std::min<u64>(1 + i * i * 500, TestFixture::reach));
  EXPECT_TRUE(s.cancel(h[4]));
  EXPECT_EQ(s.advance(this->at(501)), 2U);  // #0 and #1 queued
  ASSERT_NE(s.take_expired(), nullptr);     // #0 taken
  EXPECT_EQ(visited(), (std::vector<std::size_t>{1, 2, 3, 5, 6, 7, 8, 9}));
  this->advance(std::min<u64>(1 + 9 * 500, TestFixture::reach));  // #1, #2, #3 fire
  EXPECT_EQ(visited(), (std::vector<std::size_t>{5, 6, 7, 8, 9}));
  s.clear();
  EXPECT_EQ(visited(), (std::vector<std::size_t>{}));
}

// --- errors -----------------------------------------------------------------

TYPED_TEST_P(Conformance, AdvanceBehindNowThrowsInvalidArgumentAndChangesNothing) {
  auto& s = this->st;
  using tick = typename TestFixture::tick_type;
  this->schedule(0, 50);
  this->schedule(1, 50);
  this->schedule(2, 30);
  this->schedule(3, 20);
  EXPECT_EQ(s.advance(this->at(25)), 1U);  // #3 queued
  std::vector<tick> behind = {static_cast<tick>(s.now() - 1), static_cast<tick>(s.now() - 25)};
  if (TestFixture::wraps) {
    behind.push_back(static_cast<tick>(s.now() - (TestFixture::reach + 1)));  // the farthest
  } else {
    behind.push_back(tick{0});
  }
  for (const tick to : behind) {
    const auto before = this->snap();
    EXPECT_THROW(s.advance(to, this->record()), std::invalid_argument) << +to;
    EXPECT_THROW(s.advance(to), std::invalid_argument) << +to;
    this->ok();
    EXPECT_EQ(this->snap(), before);
  }
  EXPECT_TRUE(this->fired.empty());
  // Nothing moved: the queue and the order are as they were.
  EXPECT_EQ(this->advance(50), 4U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{3, 25}, {2, 30}, {0, 50}, {1, 50}}));
}

TYPED_TEST_P(Conformance, ScheduleInRangeWithEarliestAfterLatestThrowsAndChangesNothing) {
  auto& s = this->st;
  auto& h = this->hooks;
  this->schedule(0, 9);
  this->schedule(1, 9);
  const auto before = this->snap();
  EXPECT_THROW(s.schedule_in_range(h[0], this->at(12), this->at(11)), std::invalid_argument);
  EXPECT_THROW(s.schedule_in_range(h[2], this->at(12), this->at(11)), std::invalid_argument);
  // Both ends in the past, still the wrong way round.
  this->advance(5);
  const auto after_advance = this->snap();
  EXPECT_THROW(s.schedule_in_range(h[1], this->at(3), this->at(2)), std::invalid_argument);
  if constexpr (TestFixture::wraps) {
    // Read from now: an earliest far ahead is after a latest just behind.
    EXPECT_THROW(
        s.schedule_in_range(
            h[1], static_cast<typename TestFixture::tick_type>(s.now() + TestFixture::reach),
            static_cast<typename TestFixture::tick_type>(s.now() - 1)),
        std::invalid_argument);
  }
  this->ok();
  EXPECT_EQ(this->snap(), after_advance);
  EXPECT_EQ(before.timers, after_advance.timers);
  EXPECT_FALSE(h[2].pending());
  EXPECT_EQ(this->advance(9), 2U);  // #0 kept its place ahead of #1
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{0, 9}, {1, 9}}));
}

// --- schedule_in_range ------------------------------------------------------

TYPED_TEST_P(Conformance, ScheduleInRangePicksTheTickWithTheMostTrailingZeros) {
  auto& s = this->st;
  auto& h = this->hooks;
  const u64 r = TestFixture::reach;
  this->advance(7);
  // (earliest, latest), ticks since base, both at or after now.
  std::vector<std::pair<u64, u64>> ranges = {
      {7, 7},      {8, 8},     {9, 10},      {9, 15},   {9, 16},    {17, 31},   {20, 40}, {33, 95},
      {100, 4100}, {129, 255}, {300, 70000}, {1000, r}, {r - 1, r}, {r / 2, r}, {7, r}};
  for (auto& [e, l] : ranges) {
    e = std::min(e, r);
    l = std::min(l, r);
  }
  std::size_t i = 0;
  for (const auto& [e, l] : ranges) {
    const auto want = this->choice(e, l);
    EXPECT_EQ(s.schedule_in_range(h[i], this->at(e), this->at(l)), want) << e << ".." << l;
    EXPECT_EQ(h[i].deadline(), want);
    this->ok();
    i = (i + 1) % h.size();
  }
  // A range that starts before now is cut to start at now; one that ends
  // before now makes the timer due now.
  EXPECT_EQ(s.schedule_in_range(h[0], this->at(0), this->at(40)), this->choice(7, 40));
  EXPECT_EQ(s.schedule_in_range(h[1], this->at(1), this->at(6)), s.now());
  EXPECT_EQ(s.schedule_in_range(h[2], this->at(3), this->at(7)), s.now());
  this->ok();
  // It fires at the tick chosen.
  s.clear();
  const auto d = s.schedule_in_range(h[3], this->at(50), this->at(90));
  this->advance(this->rel(d) - 1);
  EXPECT_TRUE(this->fired.empty());
  this->advance(this->rel(d));
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{3, this->rel(d)}}));
}

// --- horizons and the end of time -------------------------------------------

TYPED_TEST_P(Conformance, DeadlinesUpToItsHorizonAreTakenAndFireExactlyThere) {
  auto& s = this->st;
  auto& h = this->hooks;
  using tick = typename TestFixture::tick_type;
  const u64 r = TestFixture::reach;
  this->schedule(0, r);
  this->schedule(1, r - 1);
  this->schedule(2, r);
  EXPECT_EQ(h[0].deadline(), this->at(r));
  if constexpr (tt::structure_traits<TypeParam>::max_ahead < TestFixture::reach + 1 ||
                tt::structure_traits<TypeParam>::max_ahead != tt::timeline::unlimited) {
    // A structure with a horizon refuses what lies beyond it, changing nothing.
    const auto before = this->snap();
    EXPECT_THROW(s.schedule(h[0], this->at(r + 1)), std::invalid_argument);
    EXPECT_THROW(s.schedule(h[3], this->at(r + 1)), std::invalid_argument);
    EXPECT_THROW(s.schedule_in_range(h[3], this->at(r + 1), this->at(r + 1)),
                 std::invalid_argument);
    this->ok();
    EXPECT_EQ(this->snap(), before);
  }
  EXPECT_EQ(this->advance(r - 2), 0U);
  EXPECT_EQ(this->advance(r), 3U);
  EXPECT_EQ(this->fired, (typename TestFixture::fire_log{{1, r - 1}, {0, r}, {2, r}}));
  if constexpr (!TestFixture::wraps &&
                tt::structure_traits<TypeParam>::max_ahead == tt::timeline::unlimited) {
    // r reached the largest tick: the end of time.
    EXPECT_EQ(s.now(), std::numeric_limits<tick>::max());
    this->schedule(3, r);
    s.schedule(h[4], tick{5});  // the past
    EXPECT_EQ(this->advance(r), 2U);
  }
}

// --- hooks and the structure's lifetime -------------------------------------

TYPED_TEST_P(Conformance, DestroyingTheStructureUnlinksItsTimers) {
  using hook = typename TestFixture::hook_type;
  std::array<hook, 4> k{};
  {
    auto owner = std::make_unique<TypeParam>(this->base);
    owner->schedule(k[0], this->at(5));
    owner->schedule(k[1], this->at(1));
    owner->schedule(k[2], this->at(1 << 12));
    EXPECT_EQ(owner->advance(this->at(2)), 1U);  // #1 queued
    EXPECT_TRUE(k[1].pending());
  }
  for (const hook& x : k) EXPECT_FALSE(x.pending());
}

TYPED_TEST_P(Conformance, AnIdleHookMayBeCopiedAndTheCopyIsIdle) {
  auto& s = this->st;
  auto& h = this->hooks;
  using hook = typename TestFixture::hook_type;
  const hook fresh = h[0];
  EXPECT_FALSE(fresh.pending());
  this->schedule(0, 3);
  this->advance(3);
  hook copy = h[0];  // fired: idle again
  EXPECT_FALSE(copy.pending());
  s.schedule(copy, this->at(4));
  EXPECT_TRUE(copy.pending());
  EXPECT_FALSE(h[0].pending());
  EXPECT_EQ(s.advance(this->at(4), [&](hook& x) { EXPECT_EQ(&x, &copy); }), 1U);
  this->ok();
}

REGISTER_TYPED_TEST_SUITE_P(
    Conformance, StartsEmptyAtItsNow, SizeAndEmptyCountWaitingAndQueuedTimers,
    ScheduleMakesATimerPendingAtItsDeadline, CancelSaysWhetherTheTimerWasPending,
    ScheduleOfAPendingTimerMovesIt, EqualDeadlinesFireFirstScheduledFirst,
    RescheduleCountsAsNewlyScheduled, AdvanceFiresEveryDueTimerOnceInDeadlineOrder,
    AdvanceStopsAtItsTarget, PastDeadlinesAreTakenAsNowAndFireAfterThoseAlreadyDue,
    NowDuringACallbackIsItsDeadlineOrTheOldNowForOneAlreadyDue,
    CallbacksMayScheduleTimersDueInTheSameAdvance, CallbacksMayCancelTimersDueInTheSameAdvance,
    ACallbackMayRescheduleItself, AdvanceOrExpireAllFromACallbackThrowsLogicError,
    ACallbackThatThrowsLeavesTheRestPending, ThePullFormStopsMidwayAndResumes,
    ACallbackAdvanceHandsTheQueuedTimersFirst, CancelAndScheduleReachAQueuedTimer,
    NextDeadlineIsExact, TimeUntilNextIsZeroWhenDueAndTheLargestTickWhenEmpty,
    ExpireAllFiresEveryPendingTimerInOrderAndKeepsNow, ClearDropsEveryTimer,
    ForEachPendingVisitsEveryPendingTimerOnce,
    AdvanceBehindNowThrowsInvalidArgumentAndChangesNothing,
    ScheduleInRangeWithEarliestAfterLatestThrowsAndChangesNothing,
    ScheduleInRangePicksTheTickWithTheMostTrailingZeros,
    DeadlinesUpToItsHorizonAreTakenAndFireExactlyThere, DestroyingTheStructureUnlinksItsTimers,
    AnIdleHookMayBeCopiedAndTheCopyIsIdle);

}  // namespace timerwheel_conformance
