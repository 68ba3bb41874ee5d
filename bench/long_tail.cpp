// timerwheel_long_tail: W1 churn at 1e6 timers (R = 2^20, 100 cancel+schedule steps a tick) for
// 300,000 1-tick advances, each timed alone: long enough to cross the start of a level-3 slot of
// the default wheel (tick 2^18), which W5 in the main benchmark does not reach. Prints the
// median, p99.9 and worst advance and the ticks of the twelve slowest, so that a stall at a slot
// start (tick 262144, or a multiple of 4096) shows as such.
//
// Usage: timerwheel_long_tail [TICKS (default 300000)] [SEED (default 7)]
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "workloads/rng.hpp"

int main(int argc, char** argv) {
  const std::uint64_t ticks = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 300'000;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 7;
  constexpr std::size_t timers = 1'000'000;
  constexpr std::uint64_t range = std::uint64_t{1} << 20;
  constexpr int steps_per_tick = 100;

  std::vector<timerwheel::timer_hook> hooks(timers);
  timerwheel::wheel<> wheel;
  timerwheel_bench::xoshiro256ss rng(seed);
  for (auto& h : hooks) wheel.schedule(h, rng.uniform(1, range));

  std::vector<timerwheel::timer_hook*> fired;
  std::vector<std::pair<double, std::uint64_t>> ns;  // (ns of the advance, its tick)
  ns.reserve(ticks);
  std::uint64_t count = 0;
  for (std::uint64_t t = 1; t <= ticks; ++t) {
    for (int k = 0; k < steps_per_tick; ++k) {
      timerwheel::timer_hook& h = hooks[rng.uniform(0, timers - 1)];
      wheel.cancel(h);
      wheel.schedule(h, t + rng.uniform(0, range - 1));
    }
    fired.clear();
    const auto t0 = std::chrono::steady_clock::now();
    count += wheel.advance(t, [&](timerwheel::timer_hook& h) { fired.push_back(&h); });
    const auto t1 = std::chrono::steady_clock::now();
    for (timerwheel::timer_hook* h : fired) {
      if (h->deadline() != t) {
        std::fprintf(stderr, "FAILED: a timer of deadline %llu fired at %llu\n",
                     static_cast<unsigned long long>(h->deadline()),
                     static_cast<unsigned long long>(t));
        return 1;
      }
      wheel.schedule(*h, t + rng.uniform(1, range));
    }
    ns.emplace_back(std::chrono::duration<double, std::nano>(t1 - t0).count(), t);
  }
  if (wheel.size() != timers) {
    std::fprintf(stderr, "FAILED: %zu timers pending, not %zu\n", wheel.size(), timers);
    return 1;
  }
  wheel.check_invariants();

  std::sort(ns.begin(), ns.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::printf(
      "%llu 1-tick advances of W1 at 1e6 timers (%llu fired): median %.0f ns, p99.9 %.0f "
      "ns, worst %.0f ns\n",
      static_cast<unsigned long long>(ticks), static_cast<unsigned long long>(count),
      ns[ns.size() / 2].first, ns[ns.size() / 1000].first, ns.front().first);
  // Where the slowest 0.1% fall against the level-1 slots of 64 ticks: at a slot start (where
  // what was not moved ahead cascades), in the last quarter before one (where moves are spread),
  // or elsewhere (firing, and the machine's own noise).
  std::size_t at_start = 0, window = 0, other = 0;
  for (std::size_t i = 0; i < ns.size() / 1000; ++i) {
    const std::uint64_t in_slot = ns[i].second % 64;
    (in_slot == 0 ? at_start : in_slot >= 48 ? window : other) += 1;
  }
  std::printf(
      "slowest 0.1%% against 64-tick slots: %zu at a slot start, %zu in the last quarter "
      "before one, %zu elsewhere (uniform: 1.6%%, 25%%, 73%%)\n",
      at_start, window, other);
  std::printf("slowest:\n");
  for (std::size_t i = 0; i < 12 && i < ns.size(); ++i) {
    const std::uint64_t t = ns[i].second;
    std::printf("  %10.0f ns at tick %7llu (mod 4096: %4llu%s)\n", ns[i].first,
                static_cast<unsigned long long>(t), static_cast<unsigned long long>(t % 4096),
                t % (std::uint64_t{1} << 18) == 0 ? ", a level-3 slot start" : "");
  }
  return 0;
}
