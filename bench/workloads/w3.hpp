// W3 idle jumps.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "rng.hpp"

namespace timerwheel_bench {

struct w3_params {
  std::size_t timers;  // 1,000
  std::uint64_t span;  // timers uniform [1, span]; time goes 0 -> span
  std::size_t jumps;   // advance calls per pass
  std::size_t passes;  // independent passes per run (fresh structure, same sequence), timed
                       // together, so that one run is long enough to ride out noise
};

struct w3_sequence {
  w3_params params;
  std::vector<std::uint64_t> initial;  // deadline of node i
  // The jumps: advance call k goes to gap[0] + ... + gap[k]; the last target is span. Kept as
  // 32-bit gaps rather than 64-bit targets to halve the stream the timed loop reads: an O(1)
  // advance costs a few ns, so reading 8 bytes per call already shows on a shared machine's
  // memory bandwidth.
  std::vector<std::uint32_t> gaps;
};

// Targets: jumps - 1 uniform cut points of [1, span], sorted, then span itself; the jumps
// between them are exponentially distributed, from 0 ticks to many times the mean.
inline w3_sequence make_w3_sequence(const w3_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w3_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  for (auto& d : s.initial) d = rng.uniform(1, p.span);
  std::vector<std::uint64_t> targets(p.jumps);
  for (std::size_t k = 0; k + 1 < p.jumps; ++k) targets[k] = rng.uniform(1, p.span);
  std::sort(targets.begin(), targets.end() - 1);
  targets.back() = p.span;
  s.gaps.resize(p.jumps);
  std::uint64_t prev = 0;
  for (std::size_t k = 0; k < p.jumps; ++k) {
    const std::uint64_t gap = targets[k] - prev;
    if (gap > std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("make_w3_sequence: a jump does not fit 32 bits; use more jumps");
    }
    s.gaps[k] = static_cast<std::uint32_t>(gap);
    prev = targets[k];
  }
  return s;
}

// One W3 pass: schedule the timers (untimed), time the advances (fired timers are not
// scheduled again), verify that all fired exactly once, in order, never early.
template <structure_adapter A>
run_result run_w3_pass(const w3_sequence& s) {
  const w3_params& p = s.params;
  A a(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  fire_checker check;
  std::uint64_t reported = 0;
  std::uint64_t to = 0;
  const auto t0 = region_clock::now();
  for (const std::uint32_t gap : s.gaps) {
    to += gap;
    reported += a.advance(to, [&](std::uint32_t i) { check.on_fire(a.payload(i), i, to); });
  }
  const auto t1 = region_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.jumps;
  r.fired = check.fired;
  r.checksum = check.checksum;
  r.error = check.error();
  if (check.fired != p.timers) {
    r.error += std::to_string(check.fired) + " of " + std::to_string(p.timers) + " fired; ";
  }
  if (reported != check.fired) r.error += "advance's return values disagree with the firings; ";
  if (to != p.span) r.error += "the jumps do not end at span; ";
  if (a.size() != 0) r.error += "size " + std::to_string(a.size()) + " after run; ";
  for (std::uint32_t i = 0; i < p.timers; ++i) {
    if (a.pending(i)) {
      r.error += "timer still pending after run; ";
      break;
    }
  }
  if (a.next_deadline().has_value()) r.error += "next_deadline() on an empty structure; ";
  try {
    a.check_invariants();
  } catch (const std::exception& ex) {
    r.error += std::string("check_invariants: ") + ex.what() + "; ";
  }
  return r;
}

// One W3 run: `passes` passes, their timed regions summed; every pass must fire the same
// sequence.
template <structure_adapter A>
run_result run_w3(const w3_sequence& s) {
  run_result total;
  for (std::size_t k = 0; k < std::max<std::size_t>(1, s.params.passes); ++k) {
    const run_result r = run_w3_pass<A>(s);
    if (k == 0) {
      total = r;
      continue;
    }
    total.seconds += r.seconds;
    total.ops += r.ops;
    total.error += r.error;
    if (r.fired != total.fired || r.checksum != total.checksum) {
      total.error += "passes over the same sequence fired differently; ";
    }
  }
  return total;
}
}  // namespace timerwheel_bench
