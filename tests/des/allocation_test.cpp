// No allocation per event once warm: this binary counts the global operator
// new (support/alloc_counter.cpp). A simulator whose pool has grown to the
// most events pending at once runs a hold model, with priorities, cancels
// and events at the current instant, without allocating.
#include <timerwheel/des.hpp>

#include <cstdint>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "support/alloc_counter.hpp"

namespace {

namespace alloc = timerwheel_test::alloc;

struct arrival {
  std::uint32_t customer;
};
struct departure {
  std::uint32_t customer;
  double weight;
};
using event = std::variant<arrival, departure>;

// One round: hold `n` events for `holds` steps; every step schedules one
// event ahead, and every fourth also one at the current instant with a
// priority and cancels it or another.
void round(timerwheel::des::simulator<event>& sim, std::uint32_t n, std::uint32_t holds,
           std::vector<timerwheel::des::event_id>& ids) {
  std::uint64_t x = 12345;
  const auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (std::uint32_t i = 0; i < n; ++i) sim.schedule_in(1 + next() % 1000, arrival{i});
  std::uint32_t step = 0;
  sim.run(holds, [&](event& e) {
    const std::uint32_t who = std::holds_alternative<arrival>(e) ? std::get<arrival>(e).customer
                                                                 : std::get<departure>(e).customer;
    sim.schedule_in(1 + next() % 1000, departure{who, 1.5});
    if (++step % 4 == 0) {
      ids[step % ids.size()] =
          sim.schedule_in(0, arrival{who}, static_cast<std::int32_t>(next() % 3) - 1);
      sim.cancel(ids[(step + 1) % ids.size()]);
    }
  });
  sim.run_until(sim.now() + 5000, [](event&) {});
}

TEST(DesAllocation, NoAllocationPerEventOnceWarm) {
  timerwheel::des::simulator<event> sim;
  std::vector<timerwheel::des::event_id> ids(8);
  alloc::start();
  round(sim, 2000, 20000, ids);
  const auto cold = alloc::stop();
  EXPECT_GT(cold.allocations, 0U);  // the pool grew: the counter sees it
  alloc::start();
  round(sim, 2000, 20000, ids);
  const auto warm = alloc::stop();
  EXPECT_EQ(warm.allocations, 0U);
  EXPECT_EQ(warm.deallocations, 0U);
  EXPECT_GT(sim.events_run(), 40000U);
  sim.check_invariants();
}

TEST(DesAllocation, ReserveMakesEvenTheFirstRoundFree) {
  timerwheel::des::simulator<event> sim;
  sim.reserve(8192);  // the events at the current instant grow the population to about 7000
  std::vector<timerwheel::des::event_id> ids(8);
  alloc::start();
  round(sim, 2000, 20000, ids);
  const auto counts = alloc::stop();
  EXPECT_EQ(counts.allocations, 0U)
      << counts.bytes_allocated << " bytes, capacity " << sim.capacity();
}

}  // namespace
