// No allocation per timer once warm: this binary replaces the global operator
// new / delete with counting ones (support/alloc_counter.cpp) and checks that
// the wheel's and the timer_queue's timer operations allocate nothing.
#include <timerwheel/timer_queue.hpp>
#include <timerwheel/wheel.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/alloc_counter.hpp"
#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
namespace alloc = timerwheel_test::alloc;

TEST(AllocationCounter, CountsWhatItShould) {
  // The counter itself must see allocations, or every test below proves nothing.
  alloc::start();
  auto p = std::make_unique<std::uint64_t[]>(100);
  std::vector<int> v(10);
  p.reset();
  const auto c = alloc::stop();
  EXPECT_EQ(c.allocations, 2U);
  EXPECT_EQ(c.deallocations, 1U);
  EXPECT_GE(c.bytes_allocated, 100 * sizeof(std::uint64_t) + 10 * sizeof(int));
  EXPECT_EQ(c.live_bytes, 10 * sizeof(int));
}

constexpr std::size_t kTimers = 4096;

// One round of every timer operation on a wheel, from now == base, with
// deadlines relative to base. Bases are multiples of 2^42 and deadlines stay
// below base + 2^30, so every round places its timers in the same slots: a
// wheel that keeps per-slot storage has what it needs after the first round.
void wheel_round(tw::wheel<>& w, std::vector<tw::timer_hook>& hooks, std::uint64_t base,
                 std::uint64_t seed) {
  timerwheel_test::rng g(seed);  // the same seed each round: the same pattern
  w.advance(base);
  for (auto& h : hooks) w.schedule(h, base + g.below(std::uint64_t{1} << (1 + g.below(29))));
  for (std::size_t i = 0; i < hooks.size(); i += 3) w.cancel(hooks[i]);
  for (std::size_t i = 1; i < hooks.size(); i += 3) w.schedule(hooks[i], base + g.below(5000));
  for (std::size_t i = 2; i < hooks.size(); i += 9)
    w.schedule_in_range(hooks[i], base + 100, base + 100000);
  (void)w.next_deadline();
  (void)w.time_until_next();
  std::size_t fired = 0;
  // Callback form, with a callback that reschedules some of what fires.
  w.advance(base + 3000, [&](tw::timer_hook& h) {
    ++fired;
    if (fired % 4 == 0) w.schedule(h, w.now() + 50);
  });
  // Pull form, taking part of what is due, then the rest through a callback.
  w.advance(base + 200000);
  for (int k = 0; k < 100; ++k) (void)w.take_expired();
  w.advance(base + 300000, [&](tw::timer_hook&) { ++fired; });
  for (std::size_t i = 0; i < hooks.size(); i += 5) w.schedule(hooks[i], base + 400000 + i);
  w.expire_all([&](tw::timer_hook&) { ++fired; });
  w.advance(base + (std::uint64_t{1} << 30), [&](tw::timer_hook&) { ++fired; });
  w.clear();
  ASSERT_GT(fired, 0U);
}

TEST(Allocation, WheelTimerOperationsAllocateNothingOnceWarm) {
  std::vector<tw::timer_hook> hooks(kTimers);
  tw::wheel<> w;
  alloc::start();
  wheel_round(w, hooks, 0, 1);
  const auto cold = alloc::stop();
  std::printf("wheel, first round: %zu allocations, %zu bytes\n", cold.allocations,
              cold.bytes_allocated);
  wheel_round(w, hooks, std::uint64_t{1} << 42, 1);

  alloc::start();
  wheel_round(w, hooks, std::uint64_t{2} << 42, 1);
  const auto warm = alloc::stop();
  EXPECT_EQ(warm.allocations, 0U);
  EXPECT_EQ(warm.deallocations, 0U);
  w.check_invariants();
}

// One round of every timer operation on a timer_queue, as wheel_round.
// `ids` is the test's own storage, sized beforehand.
using queue_id = decltype(std::declval<tw::timer_queue<std::uint64_t>&>().schedule(0, 0));
void queue_round(tw::timer_queue<std::uint64_t>& q, std::vector<queue_id>& ids, std::uint64_t base,
                 std::uint64_t seed) {
  using id = queue_id;
  timerwheel_test::rng g(seed);
  q.advance(base);
  ids.resize(kTimers);
  for (std::size_t i = 0; i < kTimers; ++i)
    ids[i] = q.schedule(base + g.below(std::uint64_t{1} << (1 + g.below(29))), i);
  for (std::size_t i = 0; i < kTimers; i += 3) q.cancel(ids[i]);
  for (std::size_t i = 1; i < kTimers; i += 3) q.reschedule(ids[i], base + g.below(5000));
  for (std::size_t i = 0; i < kTimers; i += 3)
    ids[i] = q.schedule_in_range(base + 100, base + 100000, i);
  (void)q.next_deadline();
  (void)q.time_until_next();
  std::size_t fired = 0;
  q.advance(base + 3000, [&](id, std::uint64_t&& v) {
    ++fired;
    if (v % 4 == 0) (void)q.schedule(q.now() + 50, v + 1);  // once
  });
  q.advance(base + 200000);
  for (int k = 0; k < 100; ++k) (void)q.take_expired();
  q.advance(base + 300000, [&](id, std::uint64_t&&) { ++fired; });
  q.expire_all([&](id, std::uint64_t&&) { ++fired; });
  q.clear();
  ASSERT_GT(fired, 0U);
}

TEST(Allocation, TimerQueueAllocatesNothingAfterReserve) {
  tw::timer_queue<std::uint64_t> q;
  q.reserve(2 * kTimers);
  alloc::start();
  for (std::uint64_t i = 0; i < 2 * kTimers; ++i) {
    const auto id = q.schedule(i * 977, i);
    if (i % 2 == 0) q.cancel(id);
    if (i % 3 == 0) q.reschedule(id, i * 13);
  }
  std::size_t fired = 0;
  q.advance(kTimers * 400, [&](queue_id, std::uint64_t&& v) {
    ++fired;
    if (v % 5 == 0) (void)q.schedule(q.now() + 7, v + 1);  // once: v + 1 is not a multiple of 5
  });
  q.advance(kTimers * 2000);
  while (q.take_expired()) ++fired;
  const auto c = alloc::stop();
  EXPECT_GT(fired, 0U);
  EXPECT_EQ(c.allocations, 0U);
  EXPECT_EQ(c.deallocations, 0U);
  q.check_invariants();
}

TEST(Allocation, TimerQueueAllocatesNothingOnceItReachedTheSize) {
  tw::timer_queue<std::uint64_t> q;
  std::vector<queue_id> ids(kTimers);
  queue_round(q, ids, 0, 2);  // reaches the size
  queue_round(q, ids, std::uint64_t{1} << 42, 2);
  alloc::start();
  queue_round(q, ids, std::uint64_t{2} << 42, 2);
  const auto c = alloc::stop();
  EXPECT_EQ(c.allocations, 0U);
  EXPECT_EQ(c.deallocations, 0U);
  q.check_invariants();
}

}  // namespace
