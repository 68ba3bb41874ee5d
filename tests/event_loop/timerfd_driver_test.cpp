// timerfd_driver on real clocks: the timerfd is armed at the exact next
// expiry, re-armed only when it changes, and never wakes an idle loop. Each
// test owns an epoll set, as a user with a loop of their own would.
#include <timerwheel/timerfd_driver.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <sys/epoll.h>
#include <vector>

#include <gtest/gtest.h>

#include "fd_count.hpp"

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
namespace os = timerwheel::detail::os;

// Scheduling on a shared machine may delay a wake-up; no test below depends
// on a wake-up coming sooner than this after its time.
constexpr auto slack = 2s;

// The user's epoll set, holding one driver's timerfd.
class user_epoll {
 public:
  explicit user_epoll(int timer_fd) : epfd_(os::epoll_create()) {
    os::epoll_control(epfd_.get(), EPOLL_CTL_ADD, timer_fd, EPOLLIN, 7);
  }
  // Whether the timerfd became readable within `d`.
  bool ready_within(std::chrono::milliseconds d) {
    epoll_event ev{};
    return os::epoll_wait_for(epfd_.get(), &ev, 1, static_cast<int>(d.count())) == 1;
  }

 private:
  os::unique_fd epfd_;
};

template <class Clock = steady>
struct fixture {
  timerwheel::timers<Clock> t;
  timerwheel::timerfd_driver<Clock> driver{t};
  user_epoll ep{driver.fd()};

  // Waits for the timerfd and lets the driver run what is due, until `n`
  // timers have run or `limit` has passed.
  std::size_t run_until(std::size_t n, std::chrono::milliseconds limit) {
    std::size_t fired = 0;
    const auto end = steady::now() + limit;
    while (fired < n && steady::now() < end) {
      if (ep.ready_within(100ms)) fired += driver.on_readable();
    }
    return fired;
  }
};

TEST(TimerfdDriver, IdleTimersNeverArmNorWake) {
  fixture<> f;
  // Nothing pending: the timerfd stays disarmed, so 200 ms of waiting sees
  // nothing (a tick-driven loop would have woken 200 times at 1 ms).
  EXPECT_FALSE(f.ep.ready_within(200ms));
  EXPECT_EQ(f.driver.stats().settime_calls, 0u);
  EXPECT_EQ(f.driver.stats().wakeups, 0u);
  EXPECT_FALSE(f.driver.armed_at().has_value());
}

TEST(TimerfdDriver, OneTimerArmsOnceAndWakesOnce) {
  fixture<> f;
  steady::time_point fired_at{};
  const auto requested = steady::now() + 30ms;
  f.t.at(requested, [&] { fired_at = steady::now(); });
  // One settime: armed at the timer's tick edge, which is its expiry.
  EXPECT_EQ(f.driver.stats().settime_calls, 1u);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
  ASSERT_EQ(f.run_until(1, 30ms + slack), 1u);
  EXPECT_GE(fired_at, requested) << "fired early";
  // One wake-up, and no second settime: a one-shot timerfd that expired is
  // disarmed already, so nothing is left to disarm.
  EXPECT_EQ(f.driver.stats().wakeups, 1u);
  EXPECT_EQ(f.driver.stats().spurious, 0u);
  EXPECT_EQ(f.driver.stats().settime_calls, 1u);
  EXPECT_EQ(f.driver.stats().fired, 1u);
  // And it stays quiet afterwards.
  EXPECT_FALSE(f.ep.ready_within(100ms));
  EXPECT_EQ(f.driver.stats().wakeups, 1u);
}

TEST(TimerfdDriver, RearmsOnlyWhenTheEarliestExpiryChanges) {
  fixture<> f;
  const auto a = f.t.after(500ms, [] {});
  EXPECT_EQ(f.driver.stats().arms, 1u);
  // Later timers leave the earliest where it was: no settime.
  const auto b = f.t.after(700ms, [] {});
  const auto c = f.t.after(900ms, [] {});
  EXPECT_EQ(f.driver.stats().settime_calls, 1u);
  // Cancelling one that is not the earliest: none either.
  EXPECT_TRUE(f.t.cancel(c));
  EXPECT_EQ(f.driver.stats().settime_calls, 1u);
  // An earlier timer moves the expiry: one settime.
  const auto d = f.t.after(300ms, [] {});
  EXPECT_EQ(f.driver.stats().settime_calls, 2u);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
  // Cancelling the earliest moves it back to `a`'s: one settime.
  EXPECT_TRUE(f.t.cancel(d));
  EXPECT_EQ(f.driver.stats().settime_calls, 3u);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
  // Cancelling `a` moves it to `b`'s: one settime.
  EXPECT_TRUE(f.t.cancel(a));
  EXPECT_EQ(f.driver.stats().settime_calls, 4u);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
  // Cancelling the last one disarms it: one settime, counted as a disarm.
  EXPECT_TRUE(f.t.cancel(b));
  EXPECT_EQ(f.driver.stats().settime_calls, 5u);
  EXPECT_EQ(f.driver.stats().arms, 4u);
  EXPECT_EQ(f.driver.stats().disarms, 1u);
  EXPECT_FALSE(f.driver.armed_at().has_value());
  EXPECT_EQ(f.driver.stats().wakeups, 0u);
}

TEST(TimerfdDriver, CancellingTheLastTimerDisarms) {
  fixture<> f;
  const auto id = f.t.after(40ms, [] { FAIL() << "a cancelled timer ran"; });
  EXPECT_TRUE(f.t.cancel(id));
  EXPECT_EQ(f.driver.stats().arms, 1u);
  EXPECT_EQ(f.driver.stats().disarms, 1u);
  EXPECT_FALSE(f.driver.armed_at().has_value());
  EXPECT_FALSE(f.ep.ready_within(150ms)) << "a disarmed timerfd woke the loop";
  EXPECT_EQ(f.driver.stats().wakeups, 0u);
}

TEST(TimerfdDriver, TimersFireInOrderNeverEarly) {
  fixture<> f;
  std::vector<int> order;
  std::vector<std::chrono::nanoseconds> early;
  const auto start = steady::now();
  for (int k : {50, 10, 30, 20, 40}) {
    const auto requested = start + std::chrono::milliseconds(k);
    f.t.at(requested, [&, k, requested] {
      const auto now = steady::now();
      if (now < requested) early.push_back(requested - now);
      order.push_back(k);
    });
  }
  ASSERT_EQ(f.run_until(5, 50ms + slack), 5u);
  EXPECT_EQ(order, (std::vector<int>{10, 20, 30, 40, 50}));
  EXPECT_TRUE(early.empty()) << early.size() << " timers fired early";
  // A wake-up per distinct expiry at most (two may fall due together).
  EXPECT_LE(f.driver.stats().wakeups, 5u);
  EXPECT_GE(f.driver.stats().wakeups, 1u);
  EXPECT_FALSE(f.driver.armed_at().has_value());
}

TEST(TimerfdDriver, TimersScheduledByCallbacksAreArmedAfterTheRun) {
  fixture<> f;
  int runs = 0;
  f.t.after(10ms, [&] {
    ++runs;
    f.t.after(20ms, [&] { ++runs; });
  });
  ASSERT_EQ(f.run_until(2, 30ms + slack), 2u);
  EXPECT_EQ(runs, 2);
  // Scheduling from a callback is not reported (run_due's caller re-arms):
  // one arm for each timer, one wake-up for each.
  EXPECT_EQ(f.driver.stats().arms, 2u);
  EXPECT_EQ(f.driver.stats().wakeups, 2u);
}

TEST(TimerfdDriver, PeriodicTimerWakesOncePerPeriod) {
  fixture<> f;
  int runs = 0;
  f.t.every(20ms, [&](timerwheel::timer_id self) {
    if (++runs == 5) f.t.cancel(self);
  });
  ASSERT_EQ(f.run_until(5, 100ms + slack), 5u);
  EXPECT_EQ(runs, 5);
  // Five firings: five wake-ups and five arms (the first at every(), the
  // others after each run), unless the machine stalled past a period, when
  // skip merges missed periods (fewer of each, never more).
  EXPECT_LE(f.driver.stats().wakeups, 5u);
  EXPECT_EQ(f.driver.stats().arms, f.driver.stats().wakeups);
  EXPECT_FALSE(f.driver.armed_at().has_value());
}

TEST(TimerfdDriver, SpuriousReadinessChangesNothing) {
  fixture<> f;
  f.t.after(1h, [] {});
  EXPECT_EQ(f.driver.on_readable(), 0u);
  EXPECT_EQ(f.driver.stats().spurious, 1u);
  EXPECT_EQ(f.driver.stats().wakeups, 0u);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
}

TEST(TimerfdDriver, ThrowingCallbackLeavesTheRestArmed) {
  fixture<> f;
  bool second = false;
  f.t.after(10ms, [] { throw std::runtime_error("boom"); });
  f.t.after(60ms, [&] { second = true; });
  ASSERT_TRUE(f.ep.ready_within(10ms + slack));
  EXPECT_THROW(f.driver.on_readable(), std::runtime_error);
  EXPECT_EQ(f.driver.armed_at(), f.t.next_expiry());
  ASSERT_TRUE(f.driver.armed_at().has_value());
  ASSERT_EQ(f.run_until(1, 60ms + slack), 1u);
  EXPECT_TRUE(second);
}

#if defined(CLOCK_BOOTTIME)
TEST(TimerfdDriver, BootClockTimerfdFiresNeverEarly) {
  using boot = timerwheel::boot_clock;
  fixture<boot> f;
  boot::time_point fired_at{};
  const auto requested = boot::now() + 25ms;
  f.t.at(requested, [&] { fired_at = boot::now(); });
  ASSERT_EQ(f.run_until(1, 25ms + slack), 1u);
  EXPECT_GE(fired_at, requested);
  EXPECT_EQ(f.driver.stats().wakeups, 1u);
  EXPECT_EQ(f.driver.stats().settime_calls, 1u);
}
#endif

TEST(TimerfdDriver, ClosesItsDescriptor) {
  const std::size_t before = timerwheel_test::open_descriptors();
  {
    fixture<> f;
    f.t.after(1h, [] {});
    EXPECT_EQ(timerwheel_test::open_descriptors(), before + 2);  // the timerfd, the user's epoll
  }
  EXPECT_EQ(timerwheel_test::open_descriptors(), before);
}

}  // namespace
