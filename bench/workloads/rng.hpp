// Random numbers and per-workload seeds.
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

#include "../../examples/des/model_support.hpp"

namespace timerwheel_bench {

// Random numbers: splitmix64 to seed, xoshiro256** to draw.

inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The example models' generator (the one engine of the models, the tests and the benchmarks),
// with the draws the workloads use.
class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed) noexcept : g_(seed) {}
  std::uint64_t operator()() noexcept { return g_(); }
  // Uniform in [lo, hi] (inclusive). The modulo bias is below 2^-23 for every range used here.
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) noexcept {
    const std::uint64_t span = hi - lo;
    if (span == std::numeric_limits<std::uint64_t>::max()) return (*this)();
    return lo + (*this)() % (span + 1);
  }

 private:
  des_models::generator g_;
};

// A per-workload seed: the printed run seed mixed with a tag naming the workload and size, so
// that each workload has its own stream and every structure of it the same one.
inline std::uint64_t derive_seed(std::uint64_t seed, const std::string& tag) noexcept {
  std::uint64_t h = seed;
  for (const char c : tag) {
    h ^= static_cast<unsigned char>(c);
    h = splitmix64(h);
  }
  return h;
}

}  // namespace timerwheel_bench
