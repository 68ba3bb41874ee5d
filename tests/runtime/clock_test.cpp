// tick_clock's rounding (now down, deadlines up, tick edges exact), its
// clamping before the epoch and at the end of time, manual_clock's shared
// time and refusals, and boot_clock against steady_clock.
#include <timerwheel/clock.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using manual = tw::manual_clock;
using tp = manual::time_point;

tp at_ns(std::int64_t ns) { return tp(std::chrono::nanoseconds(ns)); }

TEST(TickClock, DefaultsToMillisecondsOfSteadyClock) {
  const tw::tick_clock<> c;
  EXPECT_EQ(c.tick(), std::chrono::steady_clock::duration(1ms));
  const auto before = std::chrono::steady_clock::now();
  const std::uint64_t ticks = c.now();
  const auto after = std::chrono::steady_clock::now();
  EXPECT_LE(c.elapsed_ticks(before), ticks);
  EXPECT_LE(ticks, c.elapsed_ticks(after));
}

TEST(TickClock, RefusesATickThatIsNotPositive) {
  const std::chrono::nanoseconds ticks[] = {0ns, -1ns, -5ms};
  for (const auto tick : ticks) {
    try {
      tw::tick_clock<manual> c(tick, manual{});
      ADD_FAILURE() << "a tick of " << tick.count() << " ns was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("tick must be positive"), std::string::npos) << e.what();
    }
  }
}

TEST(TickClock, DeadlinesRoundUpAndNowRoundsDown) {
  const tw::tick_clock<manual> c(1ms, manual{});
  // Exactly on an edge: that tick, both ways (not pushed a tick later).
  EXPECT_EQ(c.ticks_at(at_ns(0)), 0U);
  EXPECT_EQ(c.ticks_at(tp(1ms)), 1U);
  EXPECT_EQ(c.elapsed_ticks(tp(1ms)), 1U);
  EXPECT_EQ(c.ticks_at(tp(7ms)), 7U);
  // One nanosecond either side of an edge.
  EXPECT_EQ(c.ticks_at(at_ns(1)), 1U);
  EXPECT_EQ(c.elapsed_ticks(at_ns(1)), 0U);
  EXPECT_EQ(c.ticks_at(tp(1ms) + 1ns), 2U);
  EXPECT_EQ(c.elapsed_ticks(tp(1ms) + 1ns), 1U);
  EXPECT_EQ(c.ticks_at(tp(1ms) - 1ns), 1U);
  EXPECT_EQ(c.elapsed_ticks(tp(1ms) - 1ns), 0U);
  EXPECT_EQ(c.time_of(0), tp{});
  EXPECT_EQ(c.time_of(5), tp(5ms));
}

TEST(TickClock, TicksThatDoNotDivideTheTime) {
  const tw::tick_clock<manual> c(3ms, manual{});
  EXPECT_EQ(c.ticks_at(tp(7ms)), 3U);  // 9 ms: the first edge at or after 7 ms
  EXPECT_EQ(c.elapsed_ticks(tp(7ms)), 2U);
  EXPECT_EQ(c.ticks_at(tp(9ms)), 3U);
  EXPECT_EQ(c.time_of(3), tp(9ms));
}

// For random time points and ticks: time_of(ticks_at(t)) is the first edge
// at or after t, and time_of(elapsed_ticks(t)) the last edge at or before it.
TEST(TickClock, RoundingIsExactAtRandom) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    timerwheel_test::rng g(seed);
    for (int i = 0; i < 20000; ++i) {
      const auto tick = std::chrono::nanoseconds(
          static_cast<std::int64_t>(1 + g.below(g.percent(50) ? 10 : 5'000'000)));
      const tw::tick_clock<manual> c(tick, manual{});
      const tp t = at_ns(static_cast<std::int64_t>(g.below(std::uint64_t{1} << 50)));
      const tp up = c.time_of(c.ticks_at(t));
      const tp down = c.time_of(c.elapsed_ticks(t));
      ASSERT_GE(up, t);
      ASSERT_LT(up - t, tick);
      ASSERT_LE(down, t);
      ASSERT_LT(t - down, tick);
      ASSERT_EQ(up == t, down == t);
    }
  }
}

TEST(TickClock, TimePointsBeforeTheEpochAreClampedToTickZero) {
  manual m(at_ns(-5'000'000));
  const tw::tick_clock<manual> c(1ms, m);
  EXPECT_EQ(c.ticks_at(tp(-5ms)), 0U);
  EXPECT_EQ(c.ticks_at(tp::min()), 0U);
  EXPECT_EQ(c.elapsed_ticks(tp(-5ms)), 0U);
  EXPECT_EQ(c.now(), 0U);
  m.set(tp(3ms));
  EXPECT_EQ(c.now(), 3U);
}

TEST(TickClock, TheEndOfTime) {
  const tw::tick_clock<manual> c(1ms, manual{});
  const auto max = std::numeric_limits<std::int64_t>::max();
  const auto last = static_cast<std::uint64_t>(max / 1'000'000);
  EXPECT_EQ(c.elapsed_ticks(tp::max()), last);
  EXPECT_EQ(c.ticks_at(tp::max()), last + 1);
  // The tick after the last edge lies beyond the range: the largest time point.
  EXPECT_EQ(c.time_of(last), tp(std::chrono::milliseconds(last)));
  EXPECT_EQ(c.time_of(last + 1), tp::max());
  EXPECT_EQ(c.time_of(std::numeric_limits<std::uint64_t>::max()), tp::max());
}

TEST(ManualClock, CopiesShareOneTime) {
  manual a;
  const manual b = a;  // NOLINT(performance-unnecessary-copy-initialization): the point
  EXPECT_EQ(a.now(), tp{});
  a.advance(5ms);
  EXPECT_EQ(b.now(), tp(5ms));
  a.set(tp(2ms));
  EXPECT_EQ(b.now(), tp(2ms));
  const manual other;  // a time of its own
  a.advance(1s);
  EXPECT_EQ(other.now(), tp{});
  const tw::tick_clock<manual> c(1ms, a);
  EXPECT_EQ(c.now(), 1002U);
}

TEST(ManualClock, RefusesToGoBackOrPastTheEnd) {
  manual a(tp(10ms));
  EXPECT_THROW(a.advance(-1ns), std::invalid_argument);
  EXPECT_EQ(a.now(), tp(10ms));
  a.set(tp::max() - 5ns);
  EXPECT_THROW(a.advance(6ns), std::overflow_error);
  EXPECT_EQ(a.now(), tp::max() - 5ns);
  a.advance(5ns);
  EXPECT_EQ(a.now(), tp::max());
}

#if defined(__linux__)
TEST(BootClock, NeverBehindTheMonotonicClock) {
  // CLOCK_BOOTTIME is CLOCK_MONOTONIC plus the time spent suspended, and is
  // read after it here, so it can only be ahead (by the suspended time).
  for (int i = 0; i < 1000; ++i) {
    const auto steady = std::chrono::steady_clock::now().time_since_epoch();
    const auto boot = tw::boot_clock::now().time_since_epoch();
    ASSERT_GE(boot, steady);
  }
  const auto a = tw::boot_clock::now();
  const auto b = tw::boot_clock::now();
  EXPECT_LE(a, b);
  static_assert(tw::boot_clock::is_steady);
  const tw::tick_clock<tw::boot_clock> c;
  EXPECT_GT(c.now(), 0U);
}
#endif

}  // namespace
