// W5 tail: W1 at N = 1e6 with each 1-tick advance timed alone (p50, p99.9, max of one advance),
// and the first advance after scheduling N timers at once on a fresh structure.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "w1.hpp"

namespace timerwheel_bench {

struct tail_result {
  std::vector<double> advance_ns;  // every timed advance, sorted
  double first_advance_ns = 0;
  std::string error;
  double quantile(double q) const {
    if (advance_ns.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(advance_ns.size() - 1));
    return advance_ns[k];
  }
};

template <structure_adapter A>
tail_result run_w5(const w1_sequence& s) {
  const w1_params& p = s.params;
  tail_result t;
  {
    A fresh(p.timers);
    for (std::uint32_t i = 0; i < p.timers; ++i) fresh.schedule(i, s.initial[i]);
    fire_checker check;
    const auto t0 = std::chrono::steady_clock::now();
    fresh.advance(1, [&](std::uint32_t i) { check.on_fire(fresh.payload(i), i, 1); });
    const auto t1 = std::chrono::steady_clock::now();
    t.first_advance_ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    t.error += check.error();
  }
  A a(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  w1_state st;
  st.fired.reserve(1024);
  run_w1_steps(a, s, 0, p.warm_steps, st);
  t.advance_ns.reserve(p.timed_steps / w1_steps_per_tick);
  run_w1_steps(a, s, p.warm_steps, p.warm_steps + p.timed_steps, st, &t.advance_ns);
  std::sort(t.advance_ns.begin(), t.advance_ns.end());
  t.error += verify_w1(a, s, st);
  return t;
}

}  // namespace timerwheel_bench
