// W2 expiry: schedule N timers uniform [1, R], then advance until every one has fired, in steps
// of `step` ticks (1, or R / 1024). The figures: ns per timer, schedule and fire together; and
// the firing alone (the same run, another clock window: run_result::part_seconds).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"
#include "rng.hpp"

namespace timerwheel_bench {

struct w2_params {
  std::size_t timers;
  std::uint64_t range;
  std::uint64_t step;
};

struct w2_sequence {
  w2_params params;
  std::vector<std::uint64_t> initial;
};

inline w2_sequence make_w2_sequence(const w2_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w2_sequence s{p, std::vector<std::uint64_t>(p.timers)};
  for (auto& d : s.initial) d = rng.uniform(1, p.range);
  return s;
}

template <structure_adapter A>
run_result run_w2(const w2_sequence& s) {
  const w2_params& p = s.params;
  A a(p.timers);
  fire_checker check;
  check.exact = exact_order_of<A>();
  std::uint64_t reported = 0;
  const auto t0 = region_clock::now();
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  const auto t1 = region_clock::now();
  for (std::uint64_t to = 0; to < p.range;) {
    to = std::min(p.range, to + p.step);
    reported += a.advance(to, [&](std::uint32_t i) { check.on_fire(a.payload(i), i, to); });
  }
  const auto t2 = region_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t2 - t0).count();
  r.part_seconds = std::chrono::duration<double>(t2 - t1).count();
  r.ops = p.timers;
  r.fired = check.fired;
  r.checksum = check.checksum;
  r.error = check.error();
  if (check.fired != p.timers) {
    r.error += std::to_string(check.fired) + " of " + std::to_string(p.timers) + " fired; ";
  }
  if (reported != check.fired) r.error += "advance's return values disagree with the firings; ";
  verify_empty(a, p.timers, r.error);
  return r;
}

}  // namespace timerwheel_bench
