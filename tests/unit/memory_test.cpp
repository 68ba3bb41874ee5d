// W4 (memory): a timer_queue<void*> holding 1e6 pending timers uses at most
// 40 bytes per pending timer, the queue object itself included (a 32-byte
// node, a 4-byte generation and the pool's slack). Bytes are
// counted by this binary's replacement of the global operator new.
#include <timerwheel/timer_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>

#include <gtest/gtest.h>

#include "support/alloc_counter.hpp"
#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
namespace alloc = timerwheel_test::alloc;

constexpr std::size_t kTimers = 1'000'000;
constexpr double kBudget = 40.0;  // bytes per pending timer

using queue = tw::timer_queue<void*>;

// Schedules kTimers timers with deadlines uniform in [now + 1, now + 2^20]
// (W1's range) into a queue made on the heap while counting, and returns the
// bytes per pending timer: what is still allocated, plus the queue object.
double bytes_per_timer(bool reserve, alloc::counts* figures) {
  timerwheel_test::rng g(0x4D454D);
  alloc::start();
  auto q = std::make_unique<queue>();
  if (reserve) q->reserve(kTimers);
  for (std::size_t i = 0; i < kTimers; ++i) {
    (void)q->schedule(1 + g.below(std::uint64_t{1} << 20), nullptr);
  }
  const auto c = alloc::current();
  EXPECT_EQ(q->size(), kTimers);
  q->check_invariants();
  alloc::stop();
  *figures = c;
  // The queue object is counted among the live bytes (it lives on the heap).
  EXPECT_GE(c.live_bytes, sizeof(queue));
  return static_cast<double>(c.live_bytes) / static_cast<double>(kTimers);
}

TEST(Memory, TimerQueueOfAMillionPendingTimers) {
  for (bool reserve : {false, true}) {
    SCOPED_TRACE(reserve ? "after reserve" : "grown");
    alloc::counts c;
    const double per_timer = bytes_per_timer(reserve, &c);
    std::printf(
        "timer_queue<void*>, %zu pending timers (%s): %.2f bytes per timer "
        "(%zu bytes live, %zu peak, %zu allocations, sizeof(queue) = %zu)\n",
        kTimers, reserve ? "reserved" : "grown", per_timer, c.live_bytes, c.peak_live_bytes,
        c.allocations, sizeof(queue));
    EXPECT_LE(per_timer, kBudget);
  }
}

}  // namespace
