// Deterministic 64-bit PRNG (xoshiro256**, seeded through splitmix64) and the
// environment overrides that every randomized test reads, so that any failing
// run can be replayed from the seed it prints.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
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

// The number in environment variable `name` (decimal, or 0x hex); none when it is unset or empty.
inline std::optional<std::uint64_t> number_from_env(const char* name) {
  if (const char* env = std::getenv(name); env != nullptr && *env != '\0') {
    return std::stoull(env, nullptr, 0);
  }
  return std::nullopt;
}

// TIMERWHEEL_SEED=<n> replaces the default seeds by that single seed.
inline std::vector<std::uint64_t> seeds_from_env(std::vector<std::uint64_t> defaults) {
  if (const auto seed = number_from_env("TIMERWHEEL_SEED")) return {*seed};
  return defaults;
}

// TIMERWHEEL_STEPS=<n> replaces the default number of random steps per seed;
// without it, TIMERWHEEL_STEPS_PERCENT=<p> scales the default (at least one step).
// The sanitized dev stage runs a quarter of the steps: the optimised stage runs them all.
inline std::uint64_t steps_from_env(std::uint64_t fallback) {
  if (const auto steps = number_from_env("TIMERWHEEL_STEPS")) return *steps;
  if (const auto percent = number_from_env("TIMERWHEEL_STEPS_PERCENT")) {
    return std::max<std::uint64_t>(1, fallback * *percent / 100);
  }
  return fallback;
}

}  // namespace timerwheel_test
