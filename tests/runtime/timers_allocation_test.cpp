// timers allocate nothing per timer once warm, for callbacks that fit the
// inline buffer: this binary replaces the global operator new / delete with
// counting ones (support/alloc_counter.cpp).
#include <timerwheel/timers.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "support/alloc_counter.hpp"
#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
namespace alloc = timerwheel_test::alloc;
using namespace std::chrono_literals;
using manual = tw::manual_clock;

constexpr std::size_t kTimers = 2000;

// One round of every operation: one-shot timers with a three-pointer
// callback, cancels, periodic timers of each kind that cancel themselves, a
// watcher, and runs until everything has fired.
std::size_t round(manual& clock, tw::timers<manual>& t, std::vector<tw::timer_id>& ids,
                  std::uint64_t seed) {
  timerwheel_test::rng g(seed);
  std::size_t fired = 0;
  std::size_t load = 0;  // the timers pending at each firing, summed
  std::size_t* count = &fired;
  std::size_t* sum = &load;
  tw::timers<manual>* self = &t;
  ids.clear();
  for (std::size_t i = 0; i < kTimers; ++i) {
    const auto delay = std::chrono::microseconds(static_cast<std::int64_t>(g.below(50'000)));
    ids.push_back(t.after(delay, [count, sum, self] {  // three pointers: inline
      ++*count;
      *sum += self->size();
    }));
  }
  for (std::size_t i = 0; i < ids.size(); i += 3) t.cancel(ids[i]);
  for (const auto policy :
       {tw::missed_ticks::skip, tw::missed_ticks::burst, tw::missed_ticks::delay}) {
    t.every(
        7ms, [self, count](tw::timer_id id) { (void)(++*count % 5 == 0 && self->cancel(id)); },
        policy);
  }
  t.every_fixed_delay(3ms, [self](tw::timer_id id) { self->cancel(id); });
  while (!t.empty()) {
    clock.advance(std::chrono::microseconds(static_cast<std::int64_t>(100 + g.below(2000))));
    t.run_due();
  }
  EXPECT_GT(load, 0U);
  return fired;
}

TEST(TimersAllocation, NothingOnceWarm) {
  manual clock;
  tw::timers<manual> t(tw::tick_clock<manual>(1ms, clock));
  std::size_t changes = 0;
  t.watch_next_expiry([&changes] { ++changes; });
  std::vector<tw::timer_id> ids;
  ids.reserve(kTimers);
  round(clock, t, ids, 1);  // warm: the pool and the wheel grow here
  alloc::start();
  std::size_t fired = 0;
  for (std::uint64_t seed = 2; seed < 5; ++seed) fired += round(clock, t, ids, seed);
  const alloc::counts c = alloc::stop();
  EXPECT_EQ(c.allocations, 0U);
  EXPECT_EQ(c.deallocations, 0U);
  EXPECT_GT(fired, 3 * kTimers / 2);  // the rounds did their work
  EXPECT_GT(changes, 0U);
}

TEST(TimersAllocation, ABigCallbackGoesToTheHeapOnceAndComesBack) {
  manual clock;
  tw::timers<manual> t(tw::tick_clock<manual>(1ms, clock));
  t.reserve(100);
  struct big {
    std::int64_t payload[8] = {};
    void operator()() const {}
  };
  alloc::start();
  for (int i = 0; i < 100; ++i) t.after(1ms, big{});
  clock.advance(1ms);
  t.run_due();
  const alloc::counts c = alloc::stop();
  EXPECT_EQ(c.allocations, 100U);
  EXPECT_EQ(c.deallocations, 100U);
  EXPECT_EQ(c.live_bytes, 0U);
}

}  // namespace
