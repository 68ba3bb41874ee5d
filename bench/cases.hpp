// What the benchmark's parts share: its options, the registry of cases (one per workload, size
// and structure) and the sizes each workload runs at.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace timerwheel_bench {

// The command line (see main.cpp).
struct options {
  bool quick = false;
  int reps = 5;
  std::uint64_t seed = 42;
  std::string out = "results";
  bool all_heaps = false;
  bool interleave = true;
  bool extras = true;      // W4, W5 and the paper table
  bool list_only = false;  // --benchmark_list_tests: nothing is run
  int cpu = -1;            // --cpu=N; after pinning, the CPU the run is pinned to (-1: none)
};

// One benchmark case: a workload at one size on one structure.
struct bench_case {
  std::string workload;       // "W1 churn"
  std::string params;         // "N=1e6 R=2^20"
  std::string structure;      // "heap", "wheel6", "wheel8", "floor"
  std::string name;           // the Google Benchmark name
  std::string unit;           // what one operation is
  std::size_t node_size = 0;  // bytes of each timer's object (0: the structure's own objects)
  std::function<run_result()> run;
  std::function<const run_result&()> reference;  // the heap's untimed run of the workload
  bool failed = false;
  std::string error;
  bool skipped = false;  // not run at this size (error says why)
  bool extra = false;    // measured outside Google Benchmark (figures set directly)
  // A second figure of another case's runs (W2 fire: of W2 expiry's), not run itself.
  const bench_case* primary = nullptr;
  double median = NAN, min = NAN, max = NAN;  // for extra rows
};

inline std::vector<std::unique_ptr<bench_case>> g_cases;
inline bool g_failed = false;  // some run failed its checks

struct w1_size {
  std::size_t timers;
  std::uint64_t range;
  std::size_t full_steps;
  std::size_t quick_steps;
};
inline constexpr w1_size w1_sizes[] = {
    {100, std::uint64_t{1} << 20, 2'000'000, 200'000},
    {1'000, std::uint64_t{1} << 20, 2'000'000, 200'000},
    {100'000, std::uint64_t{1} << 20, 2'000'000, 300'000},
    {1'000'000, std::uint64_t{1} << 20, 2'000'000, 500'000},
    {1'000'000, std::uint64_t{1} << 32, 2'000'000, 500'000},
};
inline constexpr std::size_t w3_timers = 1'000;
inline constexpr std::size_t w3_jumps = 1'000'000;
inline constexpr std::size_t w3_full_passes = 10;
inline constexpr std::size_t w3_quick_passes = 2;
inline constexpr std::uint64_t w3_spans[] = {std::uint64_t{1} << 40, std::uint64_t{1} << 21};
inline constexpr std::uint64_t w2_range = std::uint64_t{1} << 20;
inline constexpr std::size_t w2_sizes[] = {1'000, 100'000, 1'000'000};
inline constexpr std::size_t w2_quick_max = 100'000;
inline constexpr std::size_t w6_sizes[] = {100, 1'000, 10'000, 100'000, 1'000'000};
inline constexpr std::size_t w6_quick_sizes[] = {100, 10'000, 1'000'000};
inline constexpr std::size_t w6_full_holds = 2'000'000;
inline constexpr std::size_t w6_quick_holds = 200'000;

// 1000000 -> "1e6", 2000000 -> "2e6", 1500 -> "1500".
inline std::string pow10_or_int(std::uint64_t v) {
  int e = 0;
  std::uint64_t x = v;
  while (x >= 10 && x % 10 == 0) {
    x /= 10;
    ++e;
  }
  if (x < 10 && e >= 3) return std::to_string(x) + "e" + std::to_string(e);
  return std::to_string(v);
}

inline std::string pow2_or_int(std::uint64_t v) {
  if (v != 0 && (v & (v - 1)) == 0) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

}  // namespace timerwheel_bench
