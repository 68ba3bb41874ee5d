// timerwheel_bench_queues: the priority queues against plain baselines, a
// plain program (no Google Benchmark).
//
//   hold/timing_wheel    the hold model of an event list on timing_wheel:
//                        min_elt, remove, then add at the removed key plus
//                        an exponential increment (mean 1000 keys)
//   hold/multimap        the same on std::multimap (ordered, handles by
//                        iterator: the same guarantees, O(log n))
//   aging/aging_queue    push at a priority of 1 to 64, pop
//   aging/binary_heap    the same on std::priority_queue ordered by (due,
//                        push number), the counter kept by hand
//
// Each runs at N pending elements, 5 repetitions, timed by the thread's CPU
// time; it prints the median ns per step and its ratio to the baseline, and
// exits 1 when a structure's answer (a checksum of what it popped) differs
// from its baseline's. Run it in a Release build:
//   cmake --build --preset release --target timerwheel_bench_queues
//   build/release/bench/queues/timerwheel_bench_queues
#include <timerwheel/aging_queue.hpp>
#include <timerwheel/timing_wheel.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The increments of the hold model, drawn once so that every structure
// sees the same stream.
std::vector<std::uint64_t> increments(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> exp(1.0 / 1000.0);
  std::vector<std::uint64_t> out(n);
  for (auto& x : out) x = 1 + static_cast<std::uint64_t>(exp(rng));
  return out;
}

struct result {
  double ns_per_step;
  std::uint64_t checksum;
};

result hold_timing_wheel(std::size_t n, const std::vector<std::uint64_t>& inc, std::size_t steps) {
  timerwheel::timing_wheel<std::uint64_t> w;
  std::size_t i = 0;
  for (std::size_t k = 0; k < n; ++k) w.add(inc[i++ % inc.size()], k);
  std::uint64_t sum = 0;
  const double start = cpu_seconds();
  for (std::size_t s = 0; s < steps; ++s) {
    const auto e = *w.min_elt();
    const std::uint64_t key = *w.key(e);
    const std::uint64_t value = *w.value(e);
    w.remove(e);
    sum += key ^ value;
    w.add(key + inc[i++ % inc.size()], value);
  }
  const double elapsed = cpu_seconds() - start;
  return {elapsed * 1e9 / static_cast<double>(steps), sum};
}

result hold_multimap(std::size_t n, const std::vector<std::uint64_t>& inc, std::size_t steps) {
  std::multimap<std::uint64_t, std::uint64_t> m;
  std::size_t i = 0;
  for (std::size_t k = 0; k < n; ++k) m.emplace(inc[i++ % inc.size()], k);
  std::uint64_t sum = 0;
  const double start = cpu_seconds();
  for (std::size_t s = 0; s < steps; ++s) {
    const auto first = m.begin();
    const std::uint64_t key = first->first;
    const std::uint64_t value = first->second;
    m.erase(first);
    sum += key ^ value;
    m.emplace(key + inc[i++ % inc.size()], value);
  }
  const double elapsed = cpu_seconds() - start;
  return {elapsed * 1e9 / static_cast<double>(steps), sum};
}

result aging_wheel(std::size_t n, const std::vector<std::uint64_t>& inc, std::size_t steps) {
  timerwheel::aging_queue<std::uint64_t> q;
  std::size_t i = 0;
  for (std::size_t k = 0; k < n; ++k) q.push(k, 1 + inc[i++ % inc.size()] % 64);
  std::uint64_t sum = 0;
  const double start = cpu_seconds();
  for (std::size_t s = 0; s < steps; ++s) {
    const std::uint64_t value = *q.pop();
    sum = sum * 31 + value;
    q.push(value, 1 + inc[i++ % inc.size()] % 64);
  }
  const double elapsed = cpu_seconds() - start;
  return {elapsed * 1e9 / static_cast<double>(steps), sum};
}

result aging_heap(std::size_t n, const std::vector<std::uint64_t>& inc, std::size_t steps) {
  // (due, push number, value), least first: aging_queue's order by hand.
  using item = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;
  std::priority_queue<item, std::vector<item>, std::greater<>> heap;
  std::uint64_t counter = 0;
  std::uint64_t pushes = 0;
  std::size_t i = 0;
  for (std::size_t k = 0; k < n; ++k)
    heap.emplace(counter + 1 + inc[i++ % inc.size()] % 64, pushes++, k);
  std::uint64_t sum = 0;
  const double start = cpu_seconds();
  for (std::size_t s = 0; s < steps; ++s) {
    const auto [due, order, value] = heap.top();
    heap.pop();
    counter = std::max(counter, due) + 1;
    sum = sum * 31 + value;
    heap.emplace(counter + 1 + inc[i++ % inc.size()] % 64, pushes++, value);
  }
  const double elapsed = cpu_seconds() - start;
  return {elapsed * 1e9 / static_cast<double>(steps), sum};
}

template <class F>
result median_of(int repetitions, F run) {
  std::vector<result> runs;
  for (int r = 0; r < repetitions; ++r) runs.push_back(run());
  for (const result& r : runs)
    if (r.checksum != runs.front().checksum) return {0, ~runs.front().checksum};
  std::sort(runs.begin(), runs.end(),
            [](const result& a, const result& b) { return a.ns_per_step < b.ns_per_step; });
  return runs[runs.size() / 2];
}

}  // namespace

int main() {
  const std::vector<std::uint64_t> inc = increments(1 << 20, 42);
  constexpr int kRepetitions = 5;
  bool ok = true;
  std::printf("%-22s %9s %12s %10s\n", "case", "N", "ns/step", "x baseline");
  for (const std::size_t n : {std::size_t{1000}, std::size_t{100'000}}) {
    const std::size_t steps = 1'000'000;
    const result base = median_of(kRepetitions, [&] { return hold_multimap(n, inc, steps); });
    const result ours = median_of(kRepetitions, [&] { return hold_timing_wheel(n, inc, steps); });
    std::printf("%-22s %9zu %12.1f %10s\n", "hold/multimap", n, base.ns_per_step, "1");
    std::printf("%-22s %9zu %12.1f %10.3f\n", "hold/timing_wheel", n, ours.ns_per_step,
                ours.ns_per_step / base.ns_per_step);
    if (ours.checksum != base.checksum) {
      std::printf("WRONG ANSWER: timing_wheel's hold disagrees with the multimap's\n");
      ok = false;
    }
    const result heap = median_of(kRepetitions, [&] { return aging_heap(n, inc, steps); });
    const result aging = median_of(kRepetitions, [&] { return aging_wheel(n, inc, steps); });
    std::printf("%-22s %9zu %12.1f %10s\n", "aging/binary_heap", n, heap.ns_per_step, "1");
    std::printf("%-22s %9zu %12.1f %10.3f\n", "aging/aging_queue", n, aging.ns_per_step,
                aging.ns_per_step / heap.ns_per_step);
    if (aging.checksum != heap.checksum) {
      std::printf("WRONG ANSWER: aging_queue's pops disagree with the heap's\n");
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
