// manual_clock across threads: one thread moves it while others read it (a
// timer service's worker reading the clock a test moves). Every reading is
// one the clock held, and readings never go back while it only advances.
#include <timerwheel/clock.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;

TEST(ManualClockThreads, ReadersSeeEveryAdvanceInOrder) {
  tw::manual_clock clock;
  constexpr int kSteps = 20000;
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  std::vector<int> backwards(3, 0);
  std::vector<int> off_grid(3, 0);
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r, copy = clock] {  // a copy shares the time
      auto last = copy.now();
      while (!done.load()) {
        const auto now = copy.now();
        if (now < last) ++backwards[static_cast<std::size_t>(r)];
        if (now.time_since_epoch() % 3us != 0ns) ++off_grid[static_cast<std::size_t>(r)];
        last = now;
      }
    });
  }
  for (int i = 0; i < kSteps; ++i) clock.advance(3us);
  done.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(clock.now(), tw::manual_clock::time_point(3us * kSteps));
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(backwards[static_cast<std::size_t>(r)], 0) << "reader " << r;
    EXPECT_EQ(off_grid[static_cast<std::size_t>(r)], 0) << "reader " << r;
  }
}

TEST(ManualClockThreads, ConcurrentAdvancesAllCount) {
  tw::manual_clock clock;
  std::vector<std::thread> movers;
  for (int m = 0; m < 4; ++m)
    movers.emplace_back([copy = clock]() mutable {
      for (int i = 0; i < 10000; ++i) copy.advance(1ns);
    });
  for (auto& t : movers) t.join();
  EXPECT_EQ(clock.now(), tw::manual_clock::time_point(40000ns));
}

}  // namespace
