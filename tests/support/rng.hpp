// Deterministic 64-bit PRNG (xoshiro256**, seeded through splitmix64) and the
// environment overrides that every randomized test reads, so that any failing
// run can be replayed from the seed it prints.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "../../examples/des/model_support.hpp"

namespace timerwheel_test {

// The draws of xoshiro256** seeded through splitmix64: the example models' generator (one
// engine for the models, the tests and the benchmarks).
class rng {
 public:
  explicit rng(std::uint64_t seed) : g_(seed) {}

  std::uint64_t next() { return g_(); }

  // Uniform in [0, n); n == 0 means the full 64-bit range.
  std::uint64_t below(std::uint64_t n) {
    if (n == 0) return next();
    // Rejection sampling keeps the draw exactly uniform.
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    std::uint64_t x = next();
    while (x >= limit) x = next();
    return x % n;
  }

  // Uniform in [lo, hi], both inclusive.
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) {
    if (lo == 0 && hi == std::numeric_limits<std::uint64_t>::max()) return next();
    return lo + below(hi - lo + 1);
  }

  // True with probability percent / 100.
  bool percent(unsigned p) { return below(100) < p; }

 private:
  des_models::generator g_;
};

// TIMERWHEEL_SEED=<n> replaces the default seeds by that single seed.
inline std::vector<std::uint64_t> seeds_from_env(std::vector<std::uint64_t> defaults) {
  if (const char* env = std::getenv("TIMERWHEEL_SEED"); env != nullptr && *env != '\0') {
    return {std::stoull(env, nullptr, 0)};
  }
  return defaults;
}

// TIMERWHEEL_STEPS=<n> replaces the default number of random steps per seed;
// without it, TIMERWHEEL_STEPS_PERCENT=<p> scales the default (at least one step).
// The sanitized dev stage runs a quarter of the steps: the optimised stage runs them all.
inline std::uint64_t steps_from_env(std::uint64_t fallback) {
  if (const char* env = std::getenv("TIMERWHEEL_STEPS"); env != nullptr && *env != '\0') {
    return std::stoull(env, nullptr, 0);
  }
  if (const char* env = std::getenv("TIMERWHEEL_STEPS_PERCENT"); env != nullptr && *env != '\0') {
    const std::uint64_t scaled = fallback * std::stoull(env, nullptr, 0) / 100;
    return scaled == 0 ? 1 : scaled;
  }
  return fallback;
}

}  // namespace timerwheel_test
