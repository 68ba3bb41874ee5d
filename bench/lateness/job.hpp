// W7a lateness: the job every loop runs, and what it records. A job is a
// list of delays (whole milliseconds, uniform in [1, 100] by default); a
// loop arms one timer per delay, all at once, each requested at the time
// read just before arming it plus its delay, and runs until every timer has
// fired. Each firing records its lateness: the time read in its callback
// minus its requested time point (negative: early).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace timerwheel_lateness {

using clock = std::chrono::steady_clock;

struct job {
  std::vector<std::chrono::milliseconds> delays;
};

// A job of `n` delays uniform in [min_ms, max_ms], from `seed`
// (splitmix64: the same seed gives every loop the same delays).
inline job make_job(std::size_t n, int min_ms, int max_ms, std::uint64_t seed) {
  job j;
  j.delays.reserve(n);
  std::uint64_t state = seed;
  const auto span = static_cast<std::uint64_t>(max_ms - min_ms + 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    j.delays.emplace_back(min_ms + static_cast<int>(z % span));
  }
  return j;
}

// What one loop's run of a job recorded: a requested time and a lateness
// per timer, and the errors found (a timer fired twice or never).
class recorder {
 public:
  explicit recorder(std::size_t n) : requested_(n), lateness_ns_(n), fired_(n, 0) {}

  void armed(std::size_t i, clock::time_point requested) {
    if (i == 0) arming_started_ = clock::now();
    requested_[i] = requested;
  }

  // Called once every timer is armed, before the loop first waits.
  void arming_done() { arming_done_ = clock::now(); }

  // How long arming every timer took.
  std::chrono::nanoseconds arming_time() const { return arming_done_ - arming_started_; }

  // The lateness of the timers requested for after arming was done: the
  // loop's own precision, without the wait that arming imposes on the
  // shortest delays.
  std::vector<std::chrono::nanoseconds> lateness_after_arming() const {
    std::vector<std::chrono::nanoseconds> v;
    for (std::size_t i = 0; i < requested_.size(); ++i) {
      if (requested_[i] >= arming_done_) v.push_back(lateness_ns_[i]);
    }
    return v;
  }

  // Called first thing in timer i's callback.
  void fired(std::size_t i) {
    const auto now = clock::now();
    lateness_ns_[i] = std::chrono::duration_cast<std::chrono::nanoseconds>(now - requested_[i]);
    ++fired_[i];
    ++count_;
  }

  std::size_t count() const { return count_; }

  // Empty when every timer fired exactly once.
  std::string errors() const {
    std::size_t never = 0;
    std::size_t twice = 0;
    for (auto f : fired_) {
      never += f == 0;
      twice += f > 1;
    }
    std::string e;
    if (never != 0) e += std::to_string(never) + " timers never fired; ";
    if (twice != 0) e += std::to_string(twice) + " timers fired more than once; ";
    return e;
  }

  const std::vector<std::chrono::nanoseconds>& lateness() const { return lateness_ns_; }

 private:
  std::vector<clock::time_point> requested_;
  std::vector<std::chrono::nanoseconds> lateness_ns_;
  std::vector<unsigned> fired_;
  std::size_t count_ = 0;
  clock::time_point arming_started_{};
  clock::time_point arming_done_{};
};

// p50, p99, max and min of a sample, and how many of it are negative
// (early; min is then the earliest).
struct summary {
  std::chrono::nanoseconds p50{}, p99{}, max{}, min{};
  std::size_t early = 0;
  std::size_t n = 0;
};

inline summary summarize(std::vector<std::chrono::nanoseconds> v) {
  summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(k, v.size() - 1)];
  };
  s.p50 = at(0.50);
  s.p99 = at(0.99);
  s.max = v.back();
  s.min = v.front();
  s.early = static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [](auto d) { return d < d.zero(); }));
  return s;
}

}  // namespace timerwheel_lateness
