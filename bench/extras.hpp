// The figures measured outside Google Benchmark: W4 memory (once per structure), W5 tail
// latency (repeated in rounds, medians), and the paper table (START_TIMER, STOP_TIMER and
// PER_TICK_BOOKKEEPING per scheme against Varghese & Lauck's claims). Each gives rows for the main
// table and CSV.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads.hpp"

namespace timerwheel_bench {

struct extra_row {
  std::string workload, params, structure, unit;
  double median = 0, min = 0, max = 0;
  std::string error;    // a failed check
  std::string skipped;  // why it was not run
};

inline extra_row make_extra_row(std::string workload, std::string params, std::string structure,
                                std::string unit) {
  extra_row r;
  r.workload = std::move(workload);
  r.params = std::move(params);
  r.structure = std::move(structure);
  r.unit = std::move(unit);
  return r;
}

// ---------------------------------------------------------------------------------------------
// W4 memory.

// Two rows: bytes per pending timer, everything included, and the structure's fixed bytes
// (its object: what it keeps whatever its timers) on their own.
template <class A>
std::vector<extra_row> w4_rows(const std::vector<std::uint64_t>& deadlines, std::uint64_t range,
                               const std::string& params) {
  extra_row r =
      make_extra_row("W4 memory", params, A::name, "bytes per pending timer (structure + hook)");
  constexpr limits l = limits_of<A>();
  if (deadlines.size() > l.max_timers || range > l.max_range) {
    r.skipped = std::string("hopeless at this size: ") + l.why;
    return {r};
  }
  const memory_result m = run_w4<A>(deadlines);
  r.median = r.min = r.max = m.structure_bytes_per_timer + static_cast<double>(m.hook_bytes);
  r.error = m.error;
  extra_row fixed = make_extra_row("W4 memory", "fixed", A::name,
                                   "bytes the structure keeps whatever its timers (its object)");
  fixed.median = fixed.min = fixed.max = static_cast<double>(m.fixed_bytes);
  return {r, fixed};
}

inline extra_row w4_timer_queue_row(const std::vector<std::uint64_t>& deadlines,
                                    const std::string& params) {
  extra_row r = make_extra_row("W4 memory", params, "timer_queue",
                               "bytes per pending timer of timer_queue<void*>, all included");
  const memory_result m = run_w4_timer_queue(deadlines);
  r.median = r.min = r.max = m.bytes_per_timer;
  r.error = m.error;
  return r;
}

// ---------------------------------------------------------------------------------------------
// W5 tail.

// The distribution of single-advance times as a complementary CDF: (ns, fraction of advances
// slower), at most ~200 points spaced evenly in log(fraction).
inline std::vector<std::pair<double, double>> ccdf_points(const std::vector<double>& sorted) {
  std::vector<std::pair<double, double>> pts;
  const std::size_t n = sorted.size();
  if (n == 0) return pts;
  double frac = 1.0;
  while (true) {
    const auto k = static_cast<std::size_t>((1.0 - frac) * static_cast<double>(n - 1));
    pts.emplace_back(sorted[k], std::max(frac, 1.0 / static_cast<double>(n)));
    if (frac <= 1.0 / static_cast<double>(n)) break;
    frac *= 0.93;
  }
  pts.emplace_back(sorted.back(), 1.0 / static_cast<double>(n));
  return pts;
}

struct w5_output {
  std::vector<extra_row> rows;
  std::vector<std::pair<double, double>> ccdf;
};

// The rows of one structure from its repeated W5 runs: each statistic's median over the runs,
// with its min and max (one hiccup of a shared machine moves the max of one run by orders of
// magnitude), and the distribution of every advance of every run, pooled.
inline w5_output w5_rows(const std::vector<tail_result>& runs, const std::string& params,
                         const std::string& structure) {
  w5_output out;
  std::string error;
  for (const tail_result& t : runs) error += t.error;
  auto row = [&](const char* stat, auto of) {
    std::vector<double> v;
    for (const tail_result& t : runs) v.push_back(of(t));
    std::sort(v.begin(), v.end());
    extra_row r =
        make_extra_row("W5 tail", params + " " + stat, structure, "ns per 1-tick advance");
    if (!v.empty()) {
      r.median = v[v.size() / 2];
      r.min = v.front();
      r.max = v.back();
    }
    r.error = error;
    out.rows.push_back(r);
  };
  row("p50", [](const tail_result& t) { return t.quantile(0.5); });
  row("p99.9", [](const tail_result& t) { return t.quantile(0.999); });
  row("max", [](const tail_result& t) { return t.advance_ns.empty() ? 0 : t.advance_ns.back(); });
  row("first", [](const tail_result& t) { return t.first_advance_ns; });
  std::vector<double> pooled;
  for (const tail_result& t : runs)
    pooled.insert(pooled.end(), t.advance_ns.begin(), t.advance_ns.end());
  std::sort(pooled.begin(), pooled.end());
  out.ccdf = ccdf_points(pooled);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The paper table.

struct paper_claims {
  const char* start;
  const char* stop;
  const char* tick;
};

template <class A>
constexpr paper_claims claims_of() {
  const std::string_view n = A::name;
  if (n == "s1_unordered") return {"O(1)", "O(1)", "O(n)"};
  if (n == "s2_ordered") return {"O(n)", "O(1)", "O(1)"};
  if (n == "s3_heap") return {"O(log n)", "O(log n)", "O(1)"};
  if (n == "s4_basic") return {"O(1)", "O(1)", "O(1)"};
  if (n == "s5_hash_sorted") return {"O(1) avg", "O(1)", "O(1)"};
  if (n == "s6_hash_unord") return {"O(1)", "O(1)", "O(n/TableSize)"};
  if (n == "s7_hier") return {"O(m)", "O(1)", "O(1) avg"};
  return {"O(1)", "O(1)", "O(1) (tickless)"};  // the wheel
}

inline constexpr std::uint64_t paper_range = std::uint64_t{1} << 16;

// START_TIMER and STOP_TIMER: ns per schedule of an idle timer, and per cancel of a random
// pending one, into a structure holding n timers (deadlines uniform [now+1, now+2^16]);
// PER_TICK_BOOKKEEPING: ns per 1-tick advance (with the expiry of the ~n/2^16 timers due at
// each tick). Medians over 5 rounds (ticks: 3 blocks).
template <class A>
std::vector<extra_row> paper_rows(std::size_t n, std::uint64_t seed, bool quick) {
  const std::size_t m = std::clamp<std::size_t>(10'000'000 / n, 100, 1000);
  // Schemes whose bookkeeping examines timers at every tick get fewer ticks at large n.
  constexpr bool tick_is_slow = limits_of<A>().max_timers_tick_steps < 1'000'000;
  const std::size_t ticks =
      tick_is_slow ? std::clamp<std::size_t>(3'000'000 / n, 30, 3000) : (quick ? 600 : 3000);
  xoshiro256ss rng(seed);
  std::vector<std::uint64_t> base(n);
  for (auto& d : base) d = rng.uniform(1, paper_range);
  // Scheduled in deadline order, so that building the n timers is not itself O(n^2) for the
  // sorted lists (the timed operations below use random deadlines).
  std::sort(base.begin(), base.end());
  std::vector<std::uint32_t> extra(m);
  std::vector<std::uint64_t> extra_deadline(5 * m);
  for (std::size_t k = 0; k < m; ++k) extra[k] = static_cast<std::uint32_t>(n + k);
  for (auto& d : extra_deadline) d = rng.uniform(1, paper_range);

  A a(n + m);
  for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, base[i]);
  std::vector<double> start, stop, tick;
  std::string error;
  using clock = std::chrono::steady_clock;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = clock::now();
    for (std::size_t k = 0; k < m; ++k) a.schedule(extra[k], extra_deadline[round * m + k]);
    const auto t1 = clock::now();
    for (std::size_t k = m; k-- > 0;) {
      const std::size_t j = rng.uniform(0, k);
      std::swap(extra[j], extra[k]);
    }
    std::size_t cancelled = 0;
    const auto t2 = clock::now();
    for (std::size_t k = 0; k < m; ++k) cancelled += a.cancel(extra[k]);
    const auto t3 = clock::now();
    if (cancelled != m) error += "a cancel missed a pending timer; ";
    start.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / m);
    stop.push_back(std::chrono::duration<double, std::nano>(t3 - t2).count() / m);
  }
  fire_checker check;
  std::uint64_t now = 0;
  for (int block = 0; block < 3; ++block) {
    const auto t0 = clock::now();
    for (std::size_t k = 0; k < ticks / 3; ++k) {
      ++now;
      a.advance(now, [&](std::uint32_t i) { check.on_fire(a.payload(i), i, now); });
    }
    const auto t1 = clock::now();
    tick.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                   static_cast<double>(ticks / 3));
  }
  error += check.error();
  const auto due = static_cast<std::uint64_t>(
      std::count_if(base.begin(), base.end(), [&](std::uint64_t d) { return d <= now; }));
  if (check.fired != due)
    error += "fired " + std::to_string(check.fired) + " of " + std::to_string(due) + " due; ";
  const paper_claims c = claims_of<A>();
  std::vector<extra_row> rows;
  auto add = [&](const char* op, const char* claim, std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    extra_row r = make_extra_row(std::string("paper ") + op, "n=" + std::to_string(n), A::name,
                                 std::string("ns per op; paper: ") + claim);
    r.median = v[v.size() / 2];
    r.min = v.front();
    r.max = v.back();
    r.error = error;
    rows.push_back(r);
  };
  add("START_TIMER", c.start, start);
  add("STOP_TIMER", c.stop, stop);
  add("PER_TICK", c.tick, tick);
  return rows;
}

}  // namespace timerwheel_bench
