// timer_service on real threads and steady_clock: firing (never early, in
// order), cancel's answer, ids refused, cancel_and_wait (from another thread
// and from the timer's own callback), periodic timers (never early on their
// grid across a stall, every missed_ticks policy), the error handler,
// shutdown in both modes, refusal after shutdown, the worker's wake-ups, and
// entries coming back to the pool.
//
// Tolerances: "never early" is exact (the clock read in the callback is at or
// after the deadline asked for). Lateness is not asserted here (the machine
// may be loaded); waits for a firing give up after 5 s, far beyond any
// deadline used (at most 70 ms).
#include <timerwheel/timer_service.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

// Polls `done` until it holds or 5 s pass; returns whether it held.
template <class F>
bool eventually(F done) {
  const auto until = clk::now() + 5s;
  while (!done()) {
    if (clk::now() > until) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

TEST(TimerService, FiresOnceNeverEarlyInDeadlineOrder) {
  tw::timer_service s;
  std::mutex m;
  std::vector<int> order;
  std::atomic<int> early{0};
  const auto start = clk::now();
  for (int i = 5; i >= 1; --i) {
    // 50 ms out, so that every one is in the future when the worker takes
    // it (one already due fires at once, in the order taken).
    const auto deadline = start + 50ms + i * 4ms;
    s.at(deadline, [&, i, deadline] {
      if (clk::now() < deadline) early.fetch_add(1);
      const std::lock_guard lock(m);
      order.push_back(i);
    });
  }
  ASSERT_TRUE(eventually([&] {
    const std::lock_guard lock(m);
    return order.size() == 5;
  }));
  std::this_thread::sleep_for(20ms);  // nothing fires twice
  const std::lock_guard lock(m);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(early.load(), 0);
}

TEST(TimerService, CancelTellsTheTruth) {
  tw::timer_service s;
  std::atomic<int> ran{0};
  const auto far = s.after(1h, [&] { ran.fetch_add(1); });
  EXPECT_TRUE(s.cancel(far));
  EXPECT_FALSE(s.cancel(far)) << "a second cancel of the same timer";

  const auto soon = s.after(1ms, [&] { ran.fetch_add(1); });
  ASSERT_TRUE(eventually([&] { return ran.load() == 1; }));
  EXPECT_FALSE(s.cancel(soon)) << "it has run";
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(ran.load(), 1);
}

TEST(TimerService, RefusesForeignStaleAndDefaultIds) {
  tw::timer_service a;
  tw::timer_service b;
  std::atomic<int> ran{0};
  const auto id = a.after(20ms, [&] { ran.fetch_add(1); });
  EXPECT_FALSE(a.cancel(tw::service_timer_id{}));
  EXPECT_FALSE(b.cancel(id)) << "an id of another service";
  EXPECT_FALSE(b.cancel_and_wait(id));
  auto forged = id;
  forged.generation += 1;
  EXPECT_FALSE(a.cancel(forged)) << "a stale generation";
  forged = id;
  forged.index = 1u << 30;
  EXPECT_FALSE(a.cancel(forged)) << "an index the pool never made";
  ASSERT_TRUE(eventually([&] { return ran.load() == 1; })) << "the refusals touched the timer";

  // A reused entry: the old id stays refused, the new timer untouched.
  const auto first = a.after(1h, [] {});
  ASSERT_TRUE(a.cancel(first));
  std::atomic<int> second_ran{0};
  std::vector<tw::service_timer_id> later;
  for (int i = 0; i < 64; ++i) later.push_back(a.after(5ms, [&] { second_ran.fetch_add(1); }));
  EXPECT_FALSE(a.cancel(first));
  ASSERT_TRUE(eventually([&] { return second_ran.load() == 64; }));
}

TEST(TimerService, CancelAndWaitWaitsForARunningCallback) {
  tw::timer_service s;
  std::atomic<bool> entered{false};
  std::atomic<bool> returned{false};
  const auto id = s.after(0ms, [&] {
    entered = true;
    std::this_thread::sleep_for(50ms);
    returned = true;
  });
  ASSERT_TRUE(eventually([&] { return entered.load(); }));
  EXPECT_FALSE(s.cancel_and_wait(id)) << "it is running: it will run to its end";
  EXPECT_TRUE(returned.load()) << "cancel_and_wait returned before the callback did";
}

TEST(TimerService, CancelAndWaitFromItsOwnCallbackDoesNotWait) {
  tw::timer_service s;
  std::atomic<int> answer{-1};
  std::atomic<tw::service_timer_id*> self{nullptr};
  auto id = std::make_unique<tw::service_timer_id>();
  std::atomic<bool> go{false};
  *id = s.after(5ms, [&] {
    while (!go.load()) std::this_thread::yield();
    answer = s.cancel_and_wait(*self.load()) ? 1 : 0;
  });
  self = id.get();
  go = true;
  ASSERT_TRUE(eventually([&] { return answer.load() != -1; })) << "deadlocked";
  EXPECT_EQ(answer.load(), 0) << "a one-shot timer running: false";
}

TEST(TimerService, PeriodicTimerStopsOnCancelFromAnyThreadAndFromItself) {
  tw::timer_service s;
  std::atomic<int> runs{0};
  const auto id = s.every(2ms, [&] { runs.fetch_add(1); });
  ASSERT_TRUE(eventually([&] { return runs.load() >= 3; }));
  EXPECT_TRUE(s.cancel_and_wait(id));
  const int after_cancel = runs.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(runs.load(), after_cancel) << "ran after cancel returned true";
  EXPECT_FALSE(s.cancel(id));

  // From its own callback, on its third run: true, and no fourth run.
  std::atomic<int> self_runs{0};
  std::atomic<int> answer{-1};
  auto holder = std::make_shared<std::atomic<tw::service_timer_id*>>(nullptr);
  tw::service_timer_id self{};
  std::atomic<bool> ready{false};
  self = s.every(2ms, [&] {
    while (!ready.load()) std::this_thread::yield();
    if (self_runs.fetch_add(1) + 1 == 3) answer = s.cancel_and_wait(self) ? 1 : 0;
  });
  ready = true;
  ASSERT_TRUE(eventually([&] { return answer.load() != -1; }));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(answer.load(), 1);
  EXPECT_EQ(self_runs.load(), 3);
}

TEST(TimerService, FixedDelayCountsFromTheEndOfEachRun) {
  tw::timer_service s;
  std::mutex m;
  std::vector<clk::time_point> starts;
  std::vector<clk::time_point> ends;
  const auto id = s.every_fixed_delay(5ms, [&] {
    const auto start = clk::now();
    std::this_thread::sleep_for(3ms);
    const std::lock_guard lock(m);
    starts.push_back(start);
    ends.push_back(clk::now());
  });
  ASSERT_TRUE(eventually([&] {
    const std::lock_guard lock(m);
    return starts.size() >= 4;
  }));
  EXPECT_TRUE(s.cancel_and_wait(id));
  const std::lock_guard lock(m);
  // Never early: each run starts at least the delay after the last one ended.
  for (std::size_t i = 1; i < starts.size(); ++i)
    EXPECT_GE(starts[i] - ends[i - 1], 5ms) << "run " << i;
  EXPECT_THROW(s.every_fixed_delay(0ms, [] {}), std::invalid_argument);
}

TEST(TimerService, ExceptionsReachTheHandlerAndTheServiceGoesOn) {
  tw::timer_service s;
  std::mutex m;
  std::vector<std::string> messages;
  s.set_error_handler([&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      const std::lock_guard lock(m);
      messages.emplace_back(x.what());
    }
  });
  std::atomic<int> ran{0};
  s.after(1ms, [] { throw std::runtime_error("one"); });
  const auto periodic = s.every(1ms, [&] {
    if (ran.fetch_add(1) < 2) throw std::runtime_error("periodic");
  });
  ASSERT_TRUE(eventually([&] { return ran.load() >= 4; })) << "a throwing periodic timer stopped";
  EXPECT_TRUE(s.cancel_and_wait(periodic));
  std::atomic<bool> later{false};
  s.after(1ms, [&] { later = true; });
  ASSERT_TRUE(eventually([&] { return later.load(); })) << "the service stopped after a throw";
  const std::lock_guard lock(m);
  EXPECT_EQ(messages.size(), 3u);
  EXPECT_EQ(s.callback_errors(), 3u);
}

TEST(TimerService, IdleServiceMakesNoWakeups) {
  tw::timer_service s;
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(s.wakeups(), 0u) << "an idle service woke";

  // A far timer wakes the worker once (it moves the sleep earlier than
  // "never"); later ones, later still, do not; nor do cancels.
  const auto far = s.after(1h, [] {});
  ASSERT_TRUE(eventually([&] { return s.wakeups() == 1; }));
  std::vector<tw::service_timer_id> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(s.after(2h, [] {}));
  for (const auto id : ids) EXPECT_TRUE(s.cancel(id));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(s.wakeups(), 1u) << "a later deadline or a cancel woke the worker";

  // An earlier one does, once, and the worker sleeps again until exactly it.
  std::atomic<bool> fired{false};
  s.after(30ms, [&] { fired = true; });
  ASSERT_TRUE(eventually([&] { return fired.load(); }));
  std::this_thread::sleep_for(50ms);
  // One wake for the submission, one at the deadline; a spurious wake-up of
  // the condition variable may add one.
  EXPECT_GE(s.wakeups(), 2u);
  EXPECT_LE(s.wakeups(), 4u);
  EXPECT_TRUE(s.cancel(far));
}

TEST(TimerService, ShutdownDropDestroysWithoutRunning) {
  auto alive = std::make_shared<int>(0);
  std::atomic<int> ran{0};
  tw::timer_service s;
  std::vector<tw::service_timer_id> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(s.after(1h, [&ran, alive] { ran.fetch_add(1); }));
  EXPECT_EQ(alive.use_count(), 101);
  s.shutdown(tw::shutdown_policy::drop);
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(alive.use_count(), 1) << "a dropped callback was not destroyed";
  for (const auto id : ids) EXPECT_FALSE(s.cancel(id)) << "dropped: nothing to cancel";
  EXPECT_THROW(s.after(1ms, [] {}), tw::timer_service_closed);
  EXPECT_THROW(s.every(1ms, [] {}), tw::timer_service_closed);
  s.shutdown(tw::shutdown_policy::fire);  // a second call changes nothing
  EXPECT_EQ(ran.load(), 0);
}

TEST(TimerService, ShutdownFireRunsEachPendingOnceInDeadlineOrder) {
  auto alive = std::make_shared<int>(0);
  std::vector<int> order;  // written by the worker only, read after shutdown
  tw::timer_service s;
  for (int i = 3; i >= 1; --i) s.after(i * 1h, [&order, i, alive] { order.push_back(i); });
  const auto cancelled = s.after(30min, [&order, alive] { order.push_back(0); });
  int periodic_runs = 0;
  s.every(2h, [&periodic_runs, alive] { ++periodic_runs; });
  EXPECT_TRUE(s.cancel(cancelled));
  s.shutdown(tw::shutdown_policy::fire);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(periodic_runs, 1);
  EXPECT_EQ(alive.use_count(), 1);
}

TEST(TimerService, DestructorAppliesItsPolicy) {
  std::atomic<int> ran{0};
  {
    tw::timer_service s({.tick = 1ms, .on_destroy = tw::shutdown_policy::fire});
    s.after(1h, [&] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1);
  {
    tw::timer_service s;  // drop by default
    s.after(1h, [&] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1);
}

TEST(TimerService, ShutdownFromACallbackIsRefused) {
  tw::timer_service s;
  std::atomic<int> refused{0};
  s.after(0ms, [&] {
    try {
      s.shutdown(tw::shutdown_policy::drop);
    } catch (const std::logic_error&) {
      refused = 1;
    }
  });
  ASSERT_TRUE(eventually([&] { return refused.load() == 1; }));
}

// A fixed-rate timer's grid starts at the call: its n-th run (n = 1, 2, ...)
// starts no earlier than call + n * period, under every policy, across a
// stall (the first run sleeps for three periods). Exact, by the clock read
// in the callback; the number of runs is not asserted (the machine may be
// loaded), only that the timer keeps running after the stall.
TEST(TimerService, FixedRateRunsAreNeverEarlyOnTheirGridAcrossAStall) {
  for (const auto policy :
       {tw::missed_ticks::skip, tw::missed_ticks::burst, tw::missed_ticks::delay}) {
    tw::timer_service s;
    std::mutex m;
    std::vector<clk::time_point> starts;
    const auto call = clk::now();
    const auto id = s.every(
        4ms,
        [&] {
          const auto now = clk::now();
          bool first = false;
          {
            const std::lock_guard lock(m);
            starts.push_back(now);
            first = starts.size() == 1;
          }
          if (first) std::this_thread::sleep_for(12ms);
        },
        policy);
    ASSERT_TRUE(eventually([&] {
      const std::lock_guard lock(m);
      return starts.size() >= 6;
    }));
    EXPECT_TRUE(s.cancel_and_wait(id));
    const std::lock_guard lock(m);
    for (std::size_t n = 1; n <= starts.size(); ++n)
      EXPECT_GE(starts[n - 1] - call, n * 4ms)
          << "run " << n << " early, policy " << static_cast<int>(policy);
  }
}

// The worker gives entries back to the pool in batches; none may stay held:
// rounds of 2,000 timers scheduled and all cancelled (each round waits
// until the worker has taken every message) leave the pool no bigger than
// the first round made it, plus the batches of one round.
TEST(TimerService, EntriesComeBackToThePool) {
  tw::timer_service s;
  std::vector<tw::service_timer_id> ids;
  std::size_t after_first = 0;
  for (int round = 0; round < 50; ++round) {
    ids.clear();
    for (int i = 0; i < 2000; ++i) ids.push_back(s.after(1h, [] {}));
    for (const auto id : ids) s.cancel(id);
    // A timer that fires tells us the worker has taken everything before it.
    std::atomic<bool> fired{false};
    s.after(0ms, [&] { fired = true; });
    ASSERT_TRUE(eventually([&] { return fired.load(); }));
    if (round == 0) after_first = s.capacity();
  }
  EXPECT_LE(s.capacity(), 2 * after_first) << "entries held back from the pool";
}

TEST(TimerService, BadArgumentsAreRefused) {
  tw::timer_service s;
  EXPECT_THROW(s.every(0ms, [] {}), std::invalid_argument);
  EXPECT_THROW(s.every(-1ms, [] {}), std::invalid_argument);
  EXPECT_THROW(tw::timer_service({.tick = 0ms}), std::invalid_argument);
}

}  // namespace
