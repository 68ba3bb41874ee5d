// What the example models share: a seeded generator, exponential draws, and
// confidence intervals from independent replications.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace des_models {

// xoshiro256** seeded through splitmix64: a uniform random bit generator
// whose stream is the same on every platform, so that a seed names one
// trajectory.
class generator {
 public:
  using result_type = std::uint64_t;
  explicit generator(std::uint64_t seed) noexcept {
    for (auto& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }
  result_type operator()() noexcept {
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
  // Uniform on [0, 1), 53 bits.
  double uniform() noexcept { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  // Exponential with the given rate (per unit of model time).
  double exponential(double rate) noexcept { return -std::log1p(-uniform()) / rate; }
  // Bernoulli trial.
  bool chance(double p) noexcept { return uniform() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// The 0.995 quantile of Student's t with `df` degrees of freedom: the half
// width of a two-sided 99% interval is t * s / sqrt(n) with df = n - 1.
inline double t_995(std::size_t df) {
  static constexpr std::array<double, 30> table{
      63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
      3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
      2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
  if (df == 0) throw std::invalid_argument("t_995: no degrees of freedom");
  if (df <= table.size()) return table[df - 1];
  if (df <= 40) return 2.704;
  if (df <= 60) return 2.660;
  if (df <= 120) return 2.617;
  return 2.576;
}

// The mean of independent replications and the half width of its 99%
// confidence interval.
struct interval {
  double mean = 0;
  double half_width = 0;
  bool covers(double x) const noexcept { return std::fabs(x - mean) <= half_width; }
};

inline interval confidence_99(const std::vector<double>& samples) {
  const std::size_t n = samples.size();
  if (n < 2) throw std::invalid_argument("confidence_99: fewer than two replications");
  double sum = 0;
  for (double x : samples) sum += x;
  const double mean = sum / static_cast<double>(n);
  double squares = 0;
  for (double x : samples) squares += (x - mean) * (x - mean);
  const double sd = std::sqrt(squares / static_cast<double>(n - 1));
  return {mean, t_995(n - 1) * sd / std::sqrt(static_cast<double>(n))};
}

}  // namespace des_models
