// timers<manual_clock>: one-shot timers, cancel, the queries a poller and a
// driver read, callbacks that schedule and cancel, a clock that goes
// backwards, callbacks that throw, and detail::unique_function. All on a
// clock moved by hand: deterministic to the nanosecond.
#include <timerwheel/detail/unique_function.hpp>
#include <timerwheel/timers.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using manual = tw::manual_clock;
using tp = manual::time_point;

class Timers : public ::testing::Test {
 protected:
  manual clock_;
  tw::timers<manual> t_{tw::tick_clock<manual>(1ms, clock_)};
  std::vector<tp> fired_;  // the clock's reading at each firing

  // A callback that records when it ran.
  auto record() {
    return [this] { fired_.push_back(clock_.now()); };
  }
  void set(tp t) { clock_.set(t); }
};

TEST_F(Timers, AfterFiresAtTheTickEdgeNeverBefore) {
  t_.after(10ms, record());
  EXPECT_EQ(t_.size(), 1U);
  EXPECT_EQ(t_.next_expiry(), tp(10ms));
  set(tp(10ms) - 1ns);
  EXPECT_EQ(t_.run_due(), 0U);
  EXPECT_TRUE(fired_.empty());
  set(tp(10ms));
  EXPECT_EQ(t_.run_due(), 1U);
  ASSERT_EQ(fired_.size(), 1U);
  EXPECT_EQ(fired_[0], tp(10ms));
  EXPECT_TRUE(t_.empty());
  EXPECT_EQ(t_.next_expiry(), std::nullopt);
}

TEST_F(Timers, ADelayOffTheTickGridRoundsUp) {
  set(tp(400us));
  t_.after(1ms, record());  // asked for 1.4 ms: the 2 ms edge
  EXPECT_EQ(t_.next_expiry(), tp(2ms));
  set(tp(1999us));
  EXPECT_EQ(t_.run_due(), 0U);
  set(tp(2ms));
  EXPECT_EQ(t_.run_due(), 1U);
  t_.after(1500us, record());  // from 2 ms: 3.5 ms, the 4 ms edge
  EXPECT_EQ(t_.next_expiry(), tp(4ms));
}

TEST_F(Timers, AtOnATickEdgeIsNotPushedLater) {
  t_.at(tp(5ms), record());
  EXPECT_EQ(t_.next_expiry(), tp(5ms));
  set(tp(5ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_EQ(fired_, std::vector<tp>{tp(5ms)});
}

TEST_F(Timers, DeadlinesInThePastAreDueAtTheNextRunNotBefore) {
  set(tp(50ms));
  t_.run_due();
  t_.at(tp(10ms), record());
  t_.after(0ms, record());
  t_.after(-5ms, record());
  t_.at(tp(-5ms), record());    // before the clock's epoch: clamped to tick 0
  EXPECT_TRUE(fired_.empty());  // never inside at() or after()
  EXPECT_EQ(t_.next_expiry(), tp(50ms));
  EXPECT_EQ(t_.time_until_next(), 0ns);
  EXPECT_EQ(t_.run_due(), 4U);
  EXPECT_EQ(fired_.size(), 4U);
}

TEST_F(Timers, ATimePointBeforeTheEpochOnAFreshClock) {
  // The clock reads its epoch: tick 0 is now, so the timer is due at once.
  t_.at(tp(-1h), record());
  EXPECT_EQ(t_.next_expiry(), tp{});
  EXPECT_EQ(t_.run_due(), 1U);
}

TEST_F(Timers, FiresInOrderOfTicksFifoWithin) {
  std::vector<int> order;
  t_.after(30ms, [&] { order.push_back(3); });
  t_.after(10ms, [&] { order.push_back(1); });
  t_.after(20ms, [&] { order.push_back(2); });
  t_.at(tp(9500us), [&] { order.push_back(10); });  // also the 10 ms tick, scheduled later
  set(tp(1h));
  EXPECT_EQ(t_.run_due(), 4U);
  EXPECT_EQ(order, (std::vector<int>{1, 10, 2, 3}));
}

TEST_F(Timers, CancelIsTrueOnceAndTheTimerNeverRuns) {
  const tw::timer_id a = t_.after(10ms, record());
  const tw::timer_id b = t_.after(10ms, record());
  EXPECT_TRUE(t_.pending(a));
  EXPECT_TRUE(t_.cancel(a));
  EXPECT_FALSE(t_.pending(a));
  EXPECT_FALSE(t_.cancel(a));
  EXPECT_FALSE(t_.cancel(tw::timer_id{}));
  EXPECT_FALSE(t_.cancel(tw::timer_id{12345, 1}));
  EXPECT_EQ(t_.size(), 1U);
  set(tp(10ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_FALSE(t_.cancel(b));  // fired: stale
  EXPECT_FALSE(t_.pending(b));
}

TEST_F(Timers, ACancelledTimersSlotIsReusedAtOnceAndItsOldIdStaysStale) {
  const tw::timer_id a = t_.after(10ms, record());
  ASSERT_TRUE(t_.cancel(a));
  const tw::timer_id b = t_.after(20ms, record());
  EXPECT_EQ(b.index, a.index);  // the same node, at once
  EXPECT_NE(b.generation, a.generation);
  EXPECT_FALSE(t_.cancel(a));  // does not touch b
  EXPECT_TRUE(t_.pending(b));
  set(tp(20ms));
  EXPECT_EQ(t_.run_due(), 1U);
}

TEST_F(Timers, CancellingDestroysTheCallbackAtOnce) {
  auto token = std::make_shared<int>(0);
  const tw::timer_id id = t_.after(10ms, [token] {});
  EXPECT_EQ(token.use_count(), 2);
  t_.cancel(id);
  EXPECT_EQ(token.use_count(), 1);
  t_.after(10ms, [token] {});
  set(tp(10ms));
  t_.run_due();
  EXPECT_EQ(token.use_count(), 1);  // fired: destroyed too
  {
    tw::timers<manual> local(tw::tick_clock<manual>(1ms, clock_));
    local.after(10ms, [token] {});
    local.every(10ms, [token] {});
    EXPECT_EQ(token.use_count(), 3);
  }
  EXPECT_EQ(token.use_count(), 1);  // the destructor destroys, without running
}

TEST_F(Timers, CallbacksScheduleAndCancel) {
  std::vector<int> order;
  tw::timer_id doomed{};
  t_.after(10ms, [&] {
    order.push_back(1);
    EXPECT_TRUE(t_.cancel(doomed));              // due in this same run: it does not fire
    t_.after(0ms, [&] { order.push_back(4); });  // due: fires in this run, after the others
    t_.after(5ms, [&] { order.push_back(5); });  // not due yet
  });
  doomed = t_.after(10ms, [&] { order.push_back(2); });
  t_.after(10ms, [&] { order.push_back(3); });
  set(tp(10ms));
  EXPECT_EQ(t_.run_due(), 3U);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(t_.size(), 1U);
  set(tp(15ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 4, 5}));
}

TEST_F(Timers, AOneShotIdIsStaleInsideItsOwnCallback) {
  bool cancelled = true;
  bool pending = true;
  tw::timer_id self{};
  self = t_.after(1ms, [&](tw::timer_id id) {
    EXPECT_EQ(id, self);
    cancelled = t_.cancel(id);
    pending = t_.pending(id);
  });
  set(tp(1ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_FALSE(cancelled);
  EXPECT_FALSE(pending);
  EXPECT_TRUE(t_.empty());
}

TEST_F(Timers, RunDueFromACallbackIsRefused) {
  bool refused = false;
  t_.after(1ms, [&] {
    try {
      t_.run_due();
    } catch (const std::logic_error& e) {
      refused = std::string(e.what()).find("from a callback") != std::string::npos;
    }
  });
  set(tp(1ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_TRUE(refused);
}

TEST_F(Timers, TimeUntilNextIsRoundedUpSoThatSleepingFindsTheTimerDue) {
  EXPECT_EQ(t_.time_until_next(), manual::duration::max());
  set(tp(300us));
  t_.after(1ms, record());  // 1.3 ms: the 2 ms edge
  EXPECT_EQ(t_.time_until_next(), 1700us);
  set(tp(1999us));
  EXPECT_EQ(t_.time_until_next(), 1us);
  set(tp(2ms));
  EXPECT_EQ(t_.time_until_next(), 0ns);
  EXPECT_EQ(t_.run_due(), 1U);

  // At random: a poller that sleeps exactly time_until_next() finds
  // something due every time it wakes, and never fires anything early.
  timerwheel_test::rng g(7);
  std::vector<tp> asked;
  for (int i = 0; i < 200; ++i) {
    const auto delay = std::chrono::nanoseconds(static_cast<std::int64_t>(g.below(5'000'000)));
    asked.push_back(clock_.now() + delay);
    t_.after(delay, [&, when = asked.back()] {
      EXPECT_GE(clock_.now(), when);
      fired_.push_back(clock_.now());
    });
  }
  fired_.clear();
  while (!t_.empty()) {
    const auto sleep = t_.time_until_next();
    ASSERT_GT(sleep, 0ns);
    clock_.advance(sleep);
    ASSERT_GE(t_.run_due(), 1U) << "woke at " << clock_.now().time_since_epoch().count();
  }
  EXPECT_EQ(fired_.size(), 200U);
}

// The watcher is called exactly when next_expiry() changed through a call
// made outside run_due(), checked against a recomputation after each step.
TEST_F(Timers, TheWatcherIsCalledExactlyWhenTheNextExpiryChanges) {
  int calls = 0;
  t_.watch_next_expiry([&] { ++calls; });
  const tw::timer_id first = t_.after(10ms, record());
  EXPECT_EQ(calls, 1);  // none -> 10 ms
  t_.after(20ms, record());
  EXPECT_EQ(calls, 1);  // later: no change
  const tw::timer_id twin = t_.at(tp(10ms), record());
  EXPECT_EQ(calls, 1);  // the same tick: no change
  EXPECT_TRUE(t_.cancel(first));
  EXPECT_EQ(calls, 1);  // its twin keeps 10 ms
  EXPECT_TRUE(t_.cancel(twin));
  EXPECT_EQ(calls, 2);  // 10 ms -> 20 ms
  t_.after(5ms, record());
  EXPECT_EQ(calls, 3);  // 20 ms -> 5 ms
  EXPECT_FALSE(t_.cancel(first));
  EXPECT_EQ(calls, 3);  // a stale id changes nothing

  // Inside run_due nothing is reported, whatever the callbacks do.
  t_.after(5ms, [&] {
    t_.after(1ms, record());
    t_.after(100ms, record());
  });
  set(tp(5ms));
  const int before = calls;
  EXPECT_EQ(t_.run_due(), 2U);
  EXPECT_EQ(calls, before);
  EXPECT_EQ(t_.next_expiry(), tp(6ms));
  t_.after(10ms, record());  // 15 ms, after 6 ms: no change since the run
  EXPECT_EQ(calls, before);

  // At random, against a recomputation.
  timerwheel_test::rng g(11);
  std::vector<tw::timer_id> ids;
  for (int i = 0; i < 5000; ++i) {
    const auto next = t_.next_expiry();
    const int was = calls;
    if (g.percent(10)) {
      clock_.advance(std::chrono::microseconds(g.below(3000)));
      t_.run_due();
      EXPECT_EQ(calls, was) << "step " << i;
      continue;
    }
    if (!ids.empty() && g.percent(45)) {
      const std::size_t k = g.below(ids.size());
      t_.cancel(ids[k]);
      ids[k] = ids.back();
      ids.pop_back();
    } else if (g.percent(50)) {
      ids.push_back(t_.after(std::chrono::microseconds(g.below(20'000)), [] {}));
    } else {
      ids.push_back(t_.every(std::chrono::microseconds(1 + g.below(20'000)), [] {}));
    }
    EXPECT_EQ(calls - was, next != t_.next_expiry() ? 1 : 0) << "step " << i;
  }
  // Unregistered: no more calls.
  t_.watch_next_expiry(nullptr);
  const int last = calls;
  t_.after(-1ms, [] {});
  EXPECT_EQ(calls, last);
}

TEST_F(Timers, AClockThatGoesBackIsClampedNeverLosingOrFiringEarly) {
  t_.after(10ms, record());
  set(tp(5ms));
  EXPECT_EQ(t_.run_due(), 0U);
  set(tp(2ms));  // back by 3 ms
  EXPECT_EQ(t_.run_due(), 0U);
  EXPECT_EQ(t_.now(), tp(5ms));  // the timers' time stays at the latest reading
  EXPECT_EQ(t_.size(), 1U);
  EXPECT_EQ(t_.next_expiry(), tp(10ms));
  // A poller sleeps until the clock reaches the edge again: 8 ms from 2 ms.
  EXPECT_EQ(t_.time_until_next(), 8ms);
  // after() counts from the latest reading (5 ms), not the clock's 2 ms.
  t_.after(1ms, record());
  EXPECT_EQ(t_.next_expiry(), tp(6ms));
  set(tp(5500us));
  EXPECT_EQ(t_.run_due(), 0U);
  set(tp(6ms));
  EXPECT_EQ(t_.run_due(), 1U);
  set(tp(10ms));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_EQ(fired_, (std::vector<tp>{tp(6ms), tp(10ms)}));
  // Back below the epoch: still nothing lost or fired.
  t_.after(1ms, record());
  set(tp(-1s));
  EXPECT_EQ(t_.run_due(), 0U);
  EXPECT_EQ(t_.size(), 1U);
  set(tp(11ms));
  EXPECT_EQ(t_.run_due(), 1U);
}

// A clock whose readings jump back and forth at random.
struct erratic_clock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<erratic_clock>;
  std::shared_ptr<timerwheel_test::rng> g = std::make_shared<timerwheel_test::rng>(5);
  std::shared_ptr<std::int64_t> t = std::make_shared<std::int64_t>(0);
  time_point now() const {
    *t += static_cast<std::int64_t>(g->below(3'000'000)) - 1'000'000;  // -1 ms .. +2 ms
    return time_point(duration(*t));
  }
};

TEST(TimersOnABrokenClock, NoTimerIsLostOrFiredBeforeTheLatestReading) {
  tw::timers<erratic_clock> t(tw::tick_clock<erratic_clock>(1ms, erratic_clock{}));
  std::size_t fired = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto asked = t.now() + std::chrono::microseconds(500 * (i % 7));
    t.at(asked, [&, asked] {
      ++fired;
      EXPECT_GE(t.now(), asked);
    });
    t.run_due();
  }
  int runs = 0;
  while (!t.empty() && ++runs < 100000) t.run_due();
  EXPECT_EQ(fired, 2000U);
}

TEST_F(Timers, ACallbackThatThrowsLeavesTheOthersPending) {
  std::vector<int> order;
  t_.after(1ms, [&] { order.push_back(1); });
  t_.after(2ms, [&] {
    order.push_back(2);
    throw std::runtime_error("boom");
  });
  t_.after(3ms, [&] { order.push_back(3); });
  set(tp(5ms));
  EXPECT_THROW(t_.run_due(), std::runtime_error);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(t_.size(), 1U);
  EXPECT_EQ(t_.run_due(), 1U);  // not running any more: run_due works
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(Timers, BadInputChangesNothing) {
  int calls = 0;
  t_.watch_next_expiry([&] { ++calls; });
  for (const auto bad : {0ms, -1ms}) {
    EXPECT_THROW(t_.every(bad, [] {}), std::invalid_argument);
    EXPECT_THROW(t_.every(
                     bad, [] {}, tw::missed_ticks::burst),
                 std::invalid_argument);
    EXPECT_THROW(t_.every_fixed_delay(bad, [] {}), std::invalid_argument);
  }
  try {
    t_.every(0ns, [] {});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("period must be positive"), std::string::npos);
  }
  try {
    t_.every_fixed_delay(-1ns, [] {});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("delay must be positive"), std::string::npos);
  }
  EXPECT_TRUE(t_.empty());
  EXPECT_EQ(calls, 0);
  // The pool was not touched: the next timer takes the first node.
  EXPECT_EQ(t_.after(1ms, [] {}).index, 0U);
}

TEST_F(Timers, FarDeadlinesAndTheEndOfTime) {
  t_.after(manual::duration::max(), record());
  t_.at(tp::max(), record());
  t_.after(24h * 365 * 100, record());
  EXPECT_EQ(t_.next_expiry(), tp(24h * 365 * 100));
  set(tp(24h * 365 * 100));
  EXPECT_EQ(t_.run_due(), 1U);
  EXPECT_EQ(t_.size(), 2U);
  set(tp::max());
  EXPECT_EQ(t_.run_due(), 0U);  // the edge after tp::max() is never reached
  EXPECT_EQ(t_.size(), 2U);
  // Past the last whole tick the edge is the end of time itself.
  EXPECT_EQ(t_.next_expiry(), tp::max());
}

TEST(UniqueFunction, HoldsMoveOnlyCallablesInlineOrOnTheHeap) {
  using fn = tw::detail::unique_function<int(int)>;
  auto p = std::make_unique<int>(40);
  fn small([q = std::move(p)](int x) { return *q + x; });
  EXPECT_EQ(small(2), 42);
  fn moved = std::move(small);
  EXPECT_FALSE(static_cast<bool>(small));  // NOLINT(bugprone-use-after-move): the point
  EXPECT_EQ(moved(3), 43);
  struct big {
    std::int64_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int operator()(int x) const { return static_cast<int>(a[7]) + x; }
  };
  fn large(big{});
  fn other = std::move(large);
  EXPECT_EQ(other(1), 9);
  other = std::move(moved);
  EXPECT_EQ(other(0), 40);
  other = nullptr;
  EXPECT_FALSE(static_cast<bool>(other));
  int (*none)(int) = nullptr;
  EXPECT_FALSE(static_cast<bool>(fn(none)));
}

}  // namespace
