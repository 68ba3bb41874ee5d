// event_loop::stop() from another thread wakes a blocked run() and run_once().
#include <timerwheel/event_loop.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// Scheduling on a shared machine may delay a wake-up; no test depends on a
// wake-up coming sooner than this after its time.
constexpr auto slack = 2s;

TEST(EventLoopThreads, StopFromAnotherThreadWakesABlockedRun) {
  timerwheel::event_loop<> loop;
  // Nothing to wait for: run() blocks in epoll_wait with no time limit,
  // and only the eventfd written by stop() can wake it.
  const auto start = steady::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    loop.stop();
  });
  loop.run();
  const auto took = steady::now() - start;
  stopper.join();
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 100ms + slack);
  EXPECT_EQ(loop.timer_stats().wakeups, 0u);
}

TEST(EventLoopThreads, StopFromAnotherThreadWakesRunOnce) {
  timerwheel::event_loop<> loop;
  loop.timers().after(1h, [] {});
  const auto start = steady::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    loop.stop();
  });
  EXPECT_EQ(loop.run_once(30s), 0u);
  const auto took = steady::now() - start;
  stopper.join();
  EXPECT_LT(took, 50ms + slack);
  // The stop stays pending for the next run(), which returns at once.
  EXPECT_EQ(loop.run(), 0u);
}

TEST(EventLoopThreads, EveryStopEndsARun) {
  timerwheel::event_loop<> loop;
  // A timer keeps the loop busy while another thread stops it again and
  // again; each stop ends the run in progress (or the next one). The
  // stopper waits for a tick more than its stops before each one: the
  // ticks come only from a run, so every run but those a pending stop ends
  // at once lets the timer fire (without the wait, a stopper that keeps up
  // with the runs could end all twenty within the timer's first
  // millisecond).
  std::atomic<int> ticks{0};
  loop.timers().every(1ms, [&] { ticks.fetch_add(1, std::memory_order_relaxed); });
  constexpr int stops = 20;
  std::atomic<int> runs{0};
  std::thread stopper([&] {
    for (int k = 0; k < stops; ++k) {
      while (runs.load() <= k || ticks.load(std::memory_order_relaxed) <= k)
        std::this_thread::sleep_for(1ms);
      loop.stop();
    }
  });
  for (int k = 0; k < stops; ++k) {
    runs.fetch_add(1);
    loop.run();
  }
  stopper.join();
  EXPECT_GE(ticks.load(), stops);
}

}  // namespace
