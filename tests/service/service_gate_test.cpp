// Submitters giving way to a late worker (detail/service_gate.hpp): what the
// gate says is owed, a waiter woken by the worker's firing and one that
// gives up at its bound; and, through the service, that a callback holding
// the worker does not hold back the submitters as well.
//
// Real threads and steady_clock. Tolerances: a wake-up the gate owes must
// come within 30 s of the firing (a lost one waits out the 60 s bound); a
// bounded wait lasts at least its bound. The service's check counts the
// submitters' waits: none while a callback holds the worker (giving way to
// it would make one every 64 submissions).
#include <timerwheel/detail/service_gate.hpp>
#include <timerwheel/timer_service.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using gate = tw::detail::service_gate;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

TEST(ServiceGate, OwesTheEarliestTickNotYetFiredOutsideCallbacks) {
  gate g;
  EXPECT_EQ(g.owed(), gate::never) << "a worker holding no timer owes nothing";
  g.owe_from(7);
  g.fired_to(3);
  EXPECT_EQ(g.owed(), 7u);
  g.in_callback(true);
  EXPECT_EQ(g.owed(), gate::never) << "a worker in a callback is not given way to";
  g.in_callback(false);
  EXPECT_EQ(g.owed(), 7u);
  g.fired_to(7);
  EXPECT_EQ(g.owed(), gate::never) << "fired through the tick it owed";
}

TEST(ServiceGate, AWaiterWakesWhenTheWorkerFiresThroughItsTick) {
  gate g;
  g.owe_from(5);
  std::atomic<bool> waiting{false};
  clk::time_point woke;
  std::thread submitter([&] {
    waiting = true;
    g.wait_fired(5, 60s);
    woke = clk::now();
  });
  while (!waiting.load()) std::this_thread::sleep_for(100us);
  std::this_thread::sleep_for(20ms);  // most likely asleep by now; either order must work
  g.fired_to(4);                      // not yet its tick
  g.fired_to(5);
  const auto fired = clk::now();
  submitter.join();
  EXPECT_LT(woke - fired, 30s) << "the wake-up was lost";
  EXPECT_EQ(g.waits(), 1u);
}

TEST(ServiceGate, AWaitEndsAtItsBound) {
  gate g;
  g.owe_from(5);
  const auto t0 = clk::now();
  g.wait_fired(5, 20ms);
  EXPECT_GE(clk::now() - t0, 20ms);
}

// A timer falls due while another timer's callback holds the worker: the
// worker owes a firing and is late, but it is not waiting for a core, so
// the submitters go on at their own pace.
TEST(ServiceGate, ACallbackHoldingTheWorkerDoesNotHoldBackSubmitters) {
  tw::timer_service::options opts;
  opts.tick = 50ms;
  tw::timer_service s(opts);
  std::atomic<bool> holding{false};
  std::atomic<bool> release{false};
  std::atomic<int> fired{0};
  s.after(1ms, [&] {
    holding = true;
    while (!release.load()) std::this_thread::sleep_for(100us);
  });
  s.after(2ms, [&] { ++fired; });  // due in the same tick or the next
  while (!holding.load()) std::this_thread::sleep_for(100us);
  std::this_thread::sleep_for(150ms);  // the second timer is now late by over a tick
  for (int i = 0; i < 6'400; ++i) s.after(1h, [] {});
  const std::uint64_t waits = s.give_ways();
  release = true;
  s.shutdown(tw::shutdown_policy::drop);
  EXPECT_EQ(waits, 0u) << "submitters waited for a worker held in a callback";
  EXPECT_EQ(fired.load(), 1);
}

}  // namespace
