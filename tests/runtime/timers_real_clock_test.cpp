// timers on real clocks (steady_clock and Linux's boot_clock), driven as a
// poller drives them: sleep for time_until_next(), then run_due().
//
// What is exact, with no tolerance: no timer fires before its time point by
// the clock it runs on; a sleep of time_until_next() always finds a timer due
// (std::this_thread::sleep_for waits on the monotonic clock, which boot_clock
// never lags); a burst timer has fired exactly once per grid point up to the
// last reading. What is tolerated: lateness up to 500 ms, for a loaded
// machine that runs the sleeping thread late (an idle one is late by well
// under a millisecond plus the tick).
#include <timerwheel/clock.hpp>
#include <timerwheel/timers.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;

constexpr auto kLateness = 500ms;

template <class Clock>
class RealClock : public ::testing::Test {};

#if defined(__linux__) && defined(CLOCK_BOOTTIME)
using clocks = ::testing::Types<std::chrono::steady_clock, tw::boot_clock>;
#else
using clocks = ::testing::Types<std::chrono::steady_clock>;
#endif
TYPED_TEST_SUITE(RealClock, clocks);

// Sleeps and runs until `done`; returns the wakeups that found nothing due.
template <class Clock, class Done>
int poll(tw::timers<Clock>& t, Done done) {
  int empty = 0;
  while (!done()) {
    std::this_thread::sleep_for(t.time_until_next());
    if (t.run_due() == 0) ++empty;
  }
  return empty;
}

TYPED_TEST(RealClock, OneShotNeverEarlyAndNoEmptyWakeups) {
  using Clock = TypeParam;
  tw::timers<Clock> t;
  std::vector<typename Clock::time_point> asked;
  std::vector<std::optional<typename Clock::time_point>> ran(3);
  for (std::size_t i = 0; i < ran.size(); ++i) {
    // 20, 21.5 and 23 ms: two off the tick grid.
    asked.push_back(Clock::now() + 20ms + 1500us * static_cast<std::int64_t>(i));
    t.at(asked.back(), [&ran, i] { ran[i] = Clock::now(); });
  }
  const int empty = poll(t, [&] { return t.empty(); });
  for (std::size_t i = 0; i < ran.size(); ++i) {
    ASSERT_TRUE(ran[i].has_value());
    EXPECT_GE(*ran[i], asked[i]);
    EXPECT_LT(*ran[i] - asked[i], kLateness);
  }
  EXPECT_EQ(empty, 0);
}

TYPED_TEST(RealClock, BurstFiresOncePerGridPointNeverEarly) {
  using Clock = TypeParam;
  tw::timers<Clock> t;
  const auto period = 10ms;
  std::vector<typename Clock::time_point> ran;
  t.every(
      period, [&] { ran.push_back(Clock::now()); }, tw::missed_ticks::burst);
  const auto start = t.now();  // the reading every() counted from
  const int empty = poll(t, [&] { return Clock::now() - start >= 200ms; });
  EXPECT_EQ(empty, 0);
  // Exactly the grid points whose tick edge the last run's reading reached.
  const auto& c = t.clock();
  std::size_t expected = 0;
  while (c.ticks_at(start + period * static_cast<std::int64_t>(expected + 1)) <=
         c.elapsed_ticks(t.now()))
    ++expected;
  EXPECT_EQ(ran.size(), expected);
  EXPECT_GE(ran.size(), 1U);
  for (std::size_t k = 1; k <= ran.size(); ++k) {
    EXPECT_GE(ran[k - 1], start + period * static_cast<std::int64_t>(k)) << "firing " << k;
  }
}

TYPED_TEST(RealClock, FixedDelayCountsFromTheEndOfTheCallback) {
  using Clock = TypeParam;
  tw::timers<Clock> t;
  std::vector<typename Clock::time_point> began;
  t.every_fixed_delay(5ms, [&] {
    began.push_back(Clock::now());
    std::this_thread::sleep_for(2ms);
  });
  const int empty = poll(t, [&] { return began.size() >= 8; });
  EXPECT_EQ(empty, 0);
  // Each firing begins at least the callback's 2 ms plus the 5 ms delay after
  // the one before it began.
  for (std::size_t k = 1; k < began.size(); ++k) EXPECT_GE(began[k] - began[k - 1], 7ms);
}

}  // namespace
