// timer_service's worker, round by round, through its probe (built in here
// with TIMERWHEEL_SERVICE_PROBE; see detail/service_probe.hpp): each round
// takes at most one batch of messages before it fires what is due, so a
// timer that falls due while the worker is busy fires after at most one
// batch of a backlog, not behind the whole of it; and the probe's records
// are consistent.
//
// Real threads and steady_clock. Tolerances: none on time (the machine may be
// loaded); the checks count rounds and messages, which the scheduler does
// not change. The backlog is TIMERWHEEL_ROUNDS_BACKLOG submissions (default
// 8,000: below the back-pressure threshold, so that the submitting thread
// is not held back while the worker is).
#define TIMERWHEEL_SERVICE_PROBE 1
#include <timerwheel/timer_service.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

std::size_t backlog_size() {
  if (const char* v = std::getenv("TIMERWHEEL_ROUNDS_BACKLOG"))
    return std::strtoull(v, nullptr, 10);
  return 8'000;
}

// A timer in the wheel falls due while the worker is held in a callback and
// a backlog of far submissions piles up on the queue; once released, the
// worker takes at most one batch of messages (256) before that timer fires,
// not the whole backlog.
TEST(TimerServiceRounds, DueTimerFiresBeforeTheBacklog) {
  const std::size_t backlog = backlog_size();
  tw::timer_service s;
  std::atomic<bool> holding{false};
  std::atomic<bool> release{false};
  std::atomic<std::uint64_t> at_release{0};
  std::atomic<std::uint64_t> at_fire{0};
  std::atomic<int> fired{0};
  // In the wheel well before the hold: due 20 ms out, held past that.
  const auto due = clk::now() + 20ms;
  s.at(due, [&] {
    at_fire = s.probe().messages();
    fired.fetch_add(1);
  });
  s.after(5ms, [&] {
    holding = true;
    while (!release.load()) std::this_thread::sleep_for(100us);
    at_release = s.probe().messages();
  });
  while (!holding.load()) std::this_thread::sleep_for(100us);
  for (std::size_t i = 0; i < backlog; ++i) s.after(1h, [] {});
  std::this_thread::sleep_until(due + 2ms);
  release = true;
  const auto give_up = clk::now() + 5s;
  while (fired.load() == 0 && clk::now() < give_up) std::this_thread::sleep_for(100us);
  ASSERT_EQ(fired.load(), 1);
  s.shutdown(tw::shutdown_policy::drop);
  EXPECT_LE(at_fire.load() - at_release.load(), 256u)
      << "the due timer waited behind " << (at_fire.load() - at_release.load()) << " messages";
  EXPECT_GE(s.probe().messages(), at_release.load() + backlog) << "every submission was taken";
}

// Every round takes messages, then fires; it takes at most one batch; and
// the rounds of a timed wake asked for a time they woke at or after.
TEST(TimerServiceRounds, RoundsAreConsistent) {
  tw::timer_service s;
  std::atomic<int> fired{0};
  for (int i = 0; i < 20; ++i) s.after(std::chrono::milliseconds(1 + i), [&] { ++fired; });
  const auto give_up = clk::now() + 5s;
  while (fired.load() < 20 && clk::now() < give_up) std::this_thread::sleep_for(100us);
  ASSERT_EQ(fired.load(), 20);
  s.shutdown(tw::shutdown_policy::drop);
  const auto& rounds = s.probe().rounds();
  ASSERT_FALSE(rounds.empty());
  std::uint64_t fired_in_rounds = 0, timed = 0;
  for (const auto& r : rounds) {
    EXPECT_LE(r.begin_ns, r.drained_ns);
    EXPECT_LE(r.drained_ns, r.fired_ns);
    EXPECT_LE(r.drained, 256u);
    fired_in_rounds += r.fired;
    if (r.start == tw::detail::probe_start::timed) {
      ++timed;
      EXPECT_GE(r.begin_ns, r.asked_ns) << "woke before the time it asked for";
    }
  }
  EXPECT_EQ(fired_in_rounds, 20u);
  EXPECT_GT(timed, 0u) << "the worker slept until a deadline at least once";
  EXPECT_EQ(s.probe().overflow(), 0u);
}

}  // namespace
