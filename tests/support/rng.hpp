// Deterministic 64-bit PRNG (xoshiro256**, seeded through splitmix64) and the
// environment overrides that every randomized test reads, so that any failing
// run can be replayed from the seed it prints.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace timerwheel_test {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class rng {
 public:
  explicit rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : s_) word = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

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
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// TIMERWHEEL_SEED=<n> replaces the default seeds by that single seed.
inline std::vector<std::uint64_t> seeds_from_env(std::vector<std::uint64_t> defaults) {
  if (const char* env = std::getenv("TIMERWHEEL_SEED"); env != nullptr && *env != '\0') {
    return {std::stoull(env, nullptr, 0)};
  }
  return defaults;
}

// TIMERWHEEL_STEPS=<n> replaces the default number of random steps per seed.
inline std::uint64_t steps_from_env(std::uint64_t fallback) {
  if (const char* env = std::getenv("TIMERWHEEL_STEPS"); env != nullptr && *env != '\0') {
    return std::stoull(env, nullptr, 0);
  }
  return fallback;
}

}  // namespace timerwheel_test
