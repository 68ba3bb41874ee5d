// The calendar and ladder queues beyond the small streams of the lockstep
// test: thousands of timers, so that the calendar resizes (both ways) and
// recalibrates its width and the ladder spawns rungs; a hold model and a
// churn, each checked step by step against the binary heap, which keeps the
// same (deadline, scheduling order) contract, with check_invariants().
// TIMERWHEEL_STEPS=<n> sets the steps, TIMERWHEEL_SEED=<n> replays one seed.
#include <timerwheel/reference.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace twr = timerwheel::reference;

template <class S>
class EventList : public ::testing::Test {};

using lists =
    ::testing::Types<twr::calendar_queue<std::uint64_t>, twr::calendar_queue<std::uint32_t>,
                     twr::ladder_queue<std::uint64_t>, twr::ladder_queue<std::uint32_t>,
                     twr::ladder_queue<std::uint64_t, 4, 4>>;
TYPED_TEST_SUITE(EventList, lists);

// Runs S and the binary heap side by side: `n` timers held, each step
// advancing to the next deadline (pull form), taking what fired, and
// scheduling each fired timer again at now + an increment, plus random
// cancels and reschedules; every firing compared.
template <class S>
void hold_against_heap(std::uint64_t seed, std::size_t n, std::uint64_t steps, std::uint64_t spread,
                       typename S::tick_type start) {
  using tick = typename S::tick_type;
  SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
  timerwheel_test::rng random(seed);
  S s(start);
  twr::binary_heap<tick> heap(start);
  std::vector<typename S::hook_type> a(n);
  std::vector<typename twr::binary_heap<tick>::hook_type> b(n);
  const auto increment = [&]() -> tick {
    // Bimodal: mostly near, sometimes far; sometimes 0 (same instant).
    const std::uint64_t r = random.below(100);
    if (r < 5) return 0;
    if (r < 85) return static_cast<tick>(random.below(spread));
    return static_cast<tick>(random.below(spread * 100));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const tick d = static_cast<tick>(start + increment());
    s.schedule(a[i], d);
    heap.schedule(b[i], d);
  }
  for (std::uint64_t step = 0; step < steps; ++step) {
    const auto next = heap.next_deadline();
    ASSERT_EQ(s.next_deadline(), next);
    if (!next) break;
    ASSERT_EQ(s.advance(*next), heap.advance(*next));
    for (;;) {
      auto* x = s.take_expired();
      auto* y = heap.take_expired();
      ASSERT_EQ(x == nullptr, y == nullptr);
      if (x == nullptr) break;
      const std::size_t i = static_cast<std::size_t>(x - a.data());
      ASSERT_EQ(i, static_cast<std::size_t>(y - b.data())) << "step " << step;
      const tick d = static_cast<tick>(s.now() + increment());
      s.schedule(a[i], d);
      heap.schedule(b[i], d);
    }
    const std::uint64_t r = random.below(10);
    const std::size_t j = static_cast<std::size_t>(random.below(n));
    if (r == 0) {
      ASSERT_EQ(s.cancel(a[j]), heap.cancel(b[j]));
    } else if (r == 1) {
      const tick d = static_cast<tick>(s.now() + increment());
      s.schedule(a[j], d);
      heap.schedule(b[j], d);
    }
    if (step % 997 == 0) s.check_invariants();
  }
  s.check_invariants();
  ASSERT_EQ(s.size(), heap.size());
  std::vector<std::size_t> x, y;
  s.expire_all([&](auto& h) { x.push_back(static_cast<std::size_t>(&h - a.data())); });
  heap.expire_all([&](auto& h) { y.push_back(static_cast<std::size_t>(&h - b.data())); });
  EXPECT_EQ(x, y);
}

TYPED_TEST(EventList, HoldAgainstTheHeap) {
  using tick = typename TypeParam::tick_type;
  const std::uint64_t steps = timerwheel_test::steps_from_env(3000);
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({11, 12})) {
    hold_against_heap<TypeParam>(seed, 3000, steps, 1000, 0);
    hold_against_heap<TypeParam>(seed + 100, 200, steps, 3, 0);  // many equal deadlines
    // Near the end of time (64-bit) or across the wrap (32-bit).
    hold_against_heap<TypeParam>(seed + 200, 1000, steps, 1u << 16,
                                 static_cast<tick>(~tick{0} - (tick{1} << 20)));
  }
}

TEST(EventListShape, TheCalendarResizesBothWaysAndTheLadderSpawnsRungs) {
  twr::calendar_queue<> calendar;
  std::vector<twr::calendar_queue<>::hook_type> timers(5000);
  for (std::size_t i = 0; i < timers.size(); ++i) calendar.schedule(timers[i], 10 * i + 5);
  EXPECT_GE(calendar.buckets(), 2048U);
  EXPECT_GE(calendar.bucket_width(), 16U);  // three gaps of 10, rounded up
  calendar.check_invariants();
  for (std::size_t i = 0; i < 4900; ++i) calendar.cancel(timers[i]);
  EXPECT_LE(calendar.buckets(), 256U);
  calendar.check_invariants();
  calendar.clear();

  twr::ladder_queue<std::uint64_t, 4, 8> ladder;
  std::vector<twr::ladder_queue<std::uint64_t, 4, 8>::hook_type> hooks(1000);
  // Clustered deadlines: the first bucket of rung 0 holds most of them.
  for (std::size_t i = 0; i < hooks.size(); ++i)
    ladder.schedule(hooks[i], i < 990 ? i : 1'000'000 + i);
  std::uint64_t last = 0;
  std::size_t fired = 0;
  std::size_t most_rungs = 0;
  while (ladder.advance(ladder.next_deadline().value_or(ladder.now())) > 0 || !ladder.empty()) {
    most_rungs = std::max(most_rungs, ladder.rungs());
    while (auto* h = ladder.take_expired()) {
      EXPECT_GE(h->deadline(), last);
      last = h->deadline();
      ++fired;
    }
    ladder.check_invariants();
    if (ladder.empty()) break;
  }
  EXPECT_EQ(fired, hooks.size());
  EXPECT_GE(most_rungs, 2U);
}

}  // namespace
