// Periodic timers on manual_clock: fixed rate on an exact grid (no drift,
// periods that are not whole ticks), each missed_ticks policy across stalls
// of 0, 1 and 1,000,000 periods, fixed delay, self-cancel, and callbacks that
// throw.
#include <timerwheel/timers.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using manual = tw::manual_clock;
using tp = manual::time_point;
using ns = std::chrono::nanoseconds;

struct bench {
  explicit bench(ns tick) : t(tw::tick_clock<manual>(tick, clock)) {}
  manual clock;
  tw::timers<manual> t;
  std::vector<tp> fired;  // the clock's reading at each firing

  auto record() {
    return [this] { fired.push_back(clock.now()); };
  }
  // Runs the timers at every `step` up to `end`.
  void run_until(tp end, ns step) {
    while (clock.now() + step <= end) {
      clock.advance(step);
      t.run_due();
    }
  }
};

// The first edge of `tick` at or after `t`.
tp edge_at_or_after(tp t, ns tick) {
  const auto k = (t.time_since_epoch().count() + tick.count() - 1) / tick.count();
  return tp(ns(k * tick.count()));
}

TEST(FixedRate, FiresOnItsGrid) {
  bench b(1ms);
  b.t.every(10ms, b.record());
  b.run_until(tp(1s), 1ms);
  ASSERT_EQ(b.fired.size(), 100U);
  for (std::size_t k = 0; k < b.fired.size(); ++k) EXPECT_EQ(b.fired[k], tp(10ms * (k + 1)));
}

// The k-th firing is due at start + k * period, exactly; it fires at the
// first tick edge at or after that, so it is never early and less than a
// tick late, and nothing accumulates over the periods.
void expect_no_drift(ns tick, ns period, tp start, std::size_t periods) {
  SCOPED_TRACE("tick " + std::to_string(tick.count()) + " ns, period " +
               std::to_string(period.count()) + " ns");
  bench b(tick);
  b.clock.set(start);
  b.t.every(period, b.record());
  b.clock.set(edge_at_or_after(start, tick));  // then every reading is a tick edge
  b.run_until(start + period * static_cast<std::int64_t>(periods) + tick, tick);
  ASSERT_GE(b.fired.size(), periods);
  for (std::size_t k = 1; k <= b.fired.size(); ++k) {
    const tp due = start + period * static_cast<std::int64_t>(k);
    ASSERT_EQ(b.fired[k - 1], edge_at_or_after(due, tick)) << "firing " << k;
  }
}

TEST(FixedRate, NoDriftWhenThePeriodIsNotAWholeNumberOfTicks) {
  expect_no_drift(3ms, 7ms, tp{}, 20000);
  expect_no_drift(1ms, 1500us, tp{}, 20000);
  expect_no_drift(1ms, 1500us, tp(123456789ns), 20000);
  expect_no_drift(1ms, 999999ns, tp(5ms), 20000);  // a period a nanosecond short of a tick
}

TEST(FixedRate, NoDriftAcrossAnHourInOneJump) {
  bench b(1ms);
  b.clock.set(tp(300us));
  b.t.every(7ms, b.record(), tw::missed_ticks::skip);
  b.clock.set(tp(1h));
  EXPECT_EQ(b.t.run_due(), 1U);
  // The grid is 0.3 + 7k ms: the first point after 1 h.
  const auto k = (1h - 300us) / 7ms + 1;
  EXPECT_EQ(b.t.next_expiry(), edge_at_or_after(tp(300us) + 7ms * k, 1ms));
}

struct stall_case {
  tw::missed_ticks policy;
  std::int64_t missed;  // whole periods missed beyond the one that is due
  bool on_grid;         // the late run_due() reads exactly a grid point
};

std::string name_of(const stall_case& c) {
  const char* names[] = {"skip", "burst", "delay"};
  return std::string(names[static_cast<int>(c.policy)]) + "_missed_" + std::to_string(c.missed) +
         (c.on_grid ? "_on_grid" : "_off_grid");
}
std::string param_name(const ::testing::TestParamInfo<stall_case>& info) {
  return name_of(info.param);
}
void PrintTo(const stall_case& c, std::ostream* os) { *os << name_of(c); }

class Stall : public ::testing::TestWithParam<stall_case> {};

// A 10 ms timer started at 0 fires at 10 ms; then the loop stalls and runs
// next at the 2 + missed period (plus 5 ms off the grid).
TEST_P(Stall, EachPolicyAfterAStall) {
  const stall_case c = GetParam();
  const auto period = 10ms;
  bench b(1ms);
  std::size_t calls = 0;
  b.t.every(
      period, [&] { ++calls; }, c.policy);
  b.clock.set(tp(period));
  ASSERT_EQ(b.t.run_due(), 1U);

  const tp late = tp(period * (2 + c.missed)) + (c.on_grid ? 0ms : 5ms);
  b.clock.set(late);
  const std::size_t ran = b.t.run_due();
  tp next{};
  switch (c.policy) {
    case tw::missed_ticks::burst:  // every missed period fires
      EXPECT_EQ(ran, static_cast<std::size_t>(c.missed) + 1);
      next = tp(period * (3 + c.missed));
      break;
    case tw::missed_ticks::skip:  // once, then the next point of the grid
      EXPECT_EQ(ran, 1U);
      next = tp(period * (3 + c.missed));
      break;
    case tw::missed_ticks::delay:  // once, then a period after the late run
      EXPECT_EQ(ran, 1U);
      // Late by less than a period is no stall: the grid stays.
      next = c.missed == 0 ? tp(period * 3) : late + period;
      break;
  }
  EXPECT_EQ(calls, ran + 1);
  EXPECT_EQ(b.t.next_expiry(), next);
  // Back on time: one firing a period, on the (possibly moved) grid.
  for (int i = 0; i < 5; ++i) {
    b.clock.set(next - 1ns);
    EXPECT_EQ(b.t.run_due(), 0U);
    b.clock.set(next);
    EXPECT_EQ(b.t.run_due(), 1U);
    next += period;
    EXPECT_EQ(b.t.next_expiry(), next);
  }
  EXPECT_EQ(b.t.size(), 1U);
}

std::vector<stall_case> stall_cases() {
  std::vector<stall_case> cases;
  for (const auto policy :
       {tw::missed_ticks::skip, tw::missed_ticks::burst, tw::missed_ticks::delay})
    for (const std::int64_t missed : {0, 1, 1'000'000})
      for (const bool on_grid : {true, false})
        // A million on the grid adds nothing to a million off it but seconds
        // of the sanitized build (a burst fires each one).
        if (missed < 1'000'000 || !on_grid) cases.push_back({policy, missed, on_grid});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Policies, Stall, ::testing::ValuesIn(stall_cases()), param_name);

TEST(Burst, InterleavesWithOtherTimersInTickOrder) {
  bench b(1ms);
  std::vector<std::string> order;
  b.t.every(
      10ms, [&] { order.push_back("p@" + std::to_string(b.t.now().time_since_epoch() / 1ms)); },
      tw::missed_ticks::burst);
  b.t.after(25ms, [&] { order.push_back("once"); });
  b.clock.set(tp(45ms));
  EXPECT_EQ(b.t.run_due(), 5U);
  EXPECT_EQ(order, (std::vector<std::string>{"p@45", "p@45", "once", "p@45", "p@45"}));
  EXPECT_EQ(b.t.next_expiry(), tp(50ms));
}

TEST(Burst, APeriodShorterThanATickFiresOncePerGridPoint) {
  bench b(1ms);
  std::size_t burst = 0;
  std::size_t skip = 0;
  b.t.every(
      300us, [&] { ++burst; }, tw::missed_ticks::burst);
  b.t.every(
      300us, [&] { ++skip; }, tw::missed_ticks::skip);
  b.run_until(tp(30ms), 1ms);
  EXPECT_EQ(burst, 100U);  // 0.3, 0.6, ..., 30.0 ms
  EXPECT_EQ(skip, 30U);    // once per tick
}

TEST(FixedDelay, CountsFromTheEndOfTheCallback) {
  bench b(1ms);
  b.t.every_fixed_delay(10ms, [&] {
    b.fired.push_back(b.clock.now());
    b.clock.advance(3ms);  // the callback's work takes 3 ms
  });
  b.run_until(tp(60ms), 1ms);
  EXPECT_EQ(b.fired, (std::vector<tp>{tp(10ms), tp(23ms), tp(36ms), tp(49ms)}));
  // A stall: once, then 10 ms after that callback ended.
  b.clock.set(tp(1s) + 400us);
  EXPECT_EQ(b.t.run_due(), 1U);
  EXPECT_EQ(b.t.next_expiry(), tp(1s) + 14ms);  // 1003.4 + 10 ms, rounded up to the edge
}

TEST(Periodic, CancelsItselfFromItsCallback) {
  for (const auto policy :
       {tw::missed_ticks::skip, tw::missed_ticks::burst, tw::missed_ticks::delay}) {
    bench b(1ms);
    int calls = 0;
    bool answer = false;
    bool pending_after = true;
    const tw::timer_id id = b.t.every(
        10ms,
        [&](tw::timer_id self) {
          EXPECT_TRUE(b.t.pending(self));
          if (++calls == 3) {
            answer = b.t.cancel(self);
            pending_after = b.t.pending(self);
            EXPECT_FALSE(b.t.cancel(self));  // once is enough
          }
        },
        policy);
    b.run_until(tp(100ms), 1ms);
    EXPECT_EQ(calls, 3);
    EXPECT_TRUE(answer);
    EXPECT_FALSE(pending_after);
    EXPECT_FALSE(b.t.pending(id));
    EXPECT_FALSE(b.t.cancel(id));
    EXPECT_TRUE(b.t.empty());
    // Its node went back to the pool when the callback returned.
    EXPECT_EQ(b.t.after(1ms, [] {}).index, id.index);
  }
}

TEST(Periodic, CancelsItselfInTheMiddleOfABurst) {
  bench b(1ms);
  int calls = 0;
  b.t.every(
      1ms, [&](tw::timer_id self) { (void)(++calls == 5 && b.t.cancel(self)); },
      tw::missed_ticks::burst);
  b.clock.set(tp(1s));
  EXPECT_EQ(b.t.run_due(), 5U);
  EXPECT_TRUE(b.t.empty());
}

TEST(Periodic, CancelledByAnotherTimerOrCallback) {
  bench b(1ms);
  int a_calls = 0;
  int b_calls = 0;
  const tw::timer_id a = b.t.every(10ms, [&] { ++a_calls; });
  const tw::timer_id other = b.t.every(10ms, [&] {
    if (++b_calls == 2) {
      EXPECT_TRUE(b.t.cancel(a));  // a already rescheduled for 30 ms
    }
  });
  b.run_until(tp(100ms), 1ms);
  EXPECT_EQ(a_calls, 2);  // at 10 and 20 ms, each time just before the other
  EXPECT_EQ(b_calls, 10);
  EXPECT_TRUE(b.t.cancel(other));
  EXPECT_TRUE(b.t.empty());
}

TEST(Periodic, SchedulesFromItsCallback) {
  bench b(1ms);
  std::size_t children = 0;
  b.t.every(10ms, [&] { b.t.after(1ms, [&] { ++children; }); });
  b.run_until(tp(101ms), 1ms);
  EXPECT_EQ(children, 10U);
  EXPECT_EQ(b.t.size(), 1U);
}

TEST(Periodic, ACallbackThatThrowsStaysScheduled) {
  bench b(1ms);
  int calls = 0;
  const tw::timer_id id = b.t.every(10ms, [&] {
    if (++calls == 1) throw std::runtime_error("first");
  });
  b.clock.set(tp(10ms));
  EXPECT_THROW(b.t.run_due(), std::runtime_error);
  EXPECT_TRUE(b.t.pending(id));
  EXPECT_EQ(b.t.next_expiry(), tp(20ms));
  b.clock.set(tp(20ms));
  EXPECT_EQ(b.t.run_due(), 1U);
  EXPECT_EQ(calls, 2);
}

TEST(Periodic, CountsAsPendingWhileItsCallbackRuns) {
  bench b(1ms);
  std::size_t seen = 0;
  b.t.every(10ms, [&] { seen = b.t.size(); });
  b.clock.set(tp(10ms));
  b.t.run_due();
  EXPECT_EQ(seen, 1U);
}

TEST(Periodic, AtTheEndOfTimeItStaysPending) {
  bench b(1ms);
  b.clock.set(tp::max() - 15ms);
  int calls = 0;
  b.t.every(
      10ms, [&] { ++calls; }, tw::missed_ticks::burst);
  b.clock.set(tp::max());
  EXPECT_EQ(b.t.run_due(), 1U);  // the next point is past the end: never due
  EXPECT_EQ(b.t.run_due(), 0U);
  EXPECT_EQ(b.t.size(), 1U);
  EXPECT_EQ(calls, 1);
}

}  // namespace
