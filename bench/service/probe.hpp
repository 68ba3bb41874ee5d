// W7's probe of the service (timerwheel_bench_service_probe, built with
// TIMERWHEEL_SERVICE_PROBE): where each run's lateness came from. The
// producers sample their core now and then and count their involuntary
// context switches; the worker's rounds come from the service's own probe
// (include/timerwheel/detail/service_probe.hpp). With W7_PROBE=DIR in the
// environment each service run writes DIR/run-N-rounds.csv (one line per
// round of the worker), DIR/run-N-cpus.csv (the producers' samples) and
// DIR/run-N-fired.csv (deadline, firing and submission of each timer that
// fired); a
// summary line per run is printed either way.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sched.h>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "record.hpp"

namespace timerwheel_w7 {

// A producer's sample: when, and on which core.
struct cpu_sample {
  std::int64_t ns;
  int thread;
  int cpu;
};

// What the producers of one run report.
struct producer_probe {
  std::mutex m;
  std::vector<cpu_sample> samples;
  std::uint64_t nivcsw = 0;  // involuntary context switches of all producers
  std::uint64_t nvcsw = 0;   // voluntary ones (yields that slept, pauses)

  // A producer, every few steps: its core now.
  static cpu_sample sample(int thread) noexcept {
    return {ns_of(clock::now()), thread, ::sched_getcpu()};
  }
  // A producer, at the end of its timed part: its samples and switches.
  void add(std::vector<cpu_sample>& mine) {
    ::rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    const std::lock_guard lock(m);
    samples.insert(samples.end(), mine.begin(), mine.end());
    nivcsw += static_cast<std::uint64_t>(u.ru_nivcsw);
    nvcsw += static_cast<std::uint64_t>(u.ru_nvcsw);
  }
};

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// Prints the run's summary and, with W7_PROBE set, writes its files.
// `rounds` are the worker's; `fired` (deadline, fired, submitted) ns.
template <class Rounds>
void report_probe(const char* impl, int threads, const Rounds& rounds, std::uint64_t overflow,
                  producer_probe& prod, const std::vector<std::array<std::int64_t, 3>>& fired,
                  std::int64_t start_ns, std::int64_t end_ns, double ops, double p99_us) {
  static int run = 0;
  ++run;
  // The timed part only: rounds that began in it.
  std::vector<double> wake_late, drain_us, backlog_at_wake, due_wait;
  std::uint64_t rounds_in = 0, worker_switches = 0, cpu0 = 0;
  std::uint32_t first_sw = 0, last_sw = 0;
  bool any = false;
  for (const auto& r : rounds) {
    if (r.begin_ns < start_ns || r.begin_ns > end_ns) continue;
    if (!any) first_sw = r.nivcsw;
    any = true;
    last_sw = r.nivcsw;
    ++rounds_in;
    if (r.cpu == 0) ++cpu0;
    if (r.start == timerwheel::detail::probe_start::timed && r.asked_ns != 0) {
      wake_late.push_back(static_cast<double>(r.begin_ns - r.asked_ns) / 1e3);
      backlog_at_wake.push_back(r.backlog);
    }
    drain_us.push_back(static_cast<double>(r.drained_ns - r.fired_ns) / 1e3);
    if (r.fired != 0) due_wait.push_back(static_cast<double>(r.begin_ns - r.first_due_ns) / 1e3);
  }
  worker_switches = last_sw - first_sw;
  // Producers on the worker's core: for each round, the producers whose
  // latest sample before it was on the same core.
  std::vector<cpu_sample> s = prod.samples;
  std::sort(s.begin(), s.end(), [](auto& a, auto& b) { return a.ns < b.ns; });
  std::printf(
      "probe run %d %s T=%d: ops %.2fM/s p99 %.0f us | rounds %llu (overflow %llu) worker nivcsw "
      "%llu producers nivcsw %llu nvcsw %llu | worker on cpu0 %.0f%% | wake late us p50 %.0f p99 "
      "%.0f max %.0f (n %zu) | backlog at timed wake p50 %.0f p99 %.0f | drain us p50 %.1f p99 "
      "%.1f max %.0f | first-due to round start us p50 %.0f p99 %.0f\n",
      run, impl, threads, ops / 1e6, p99_us, static_cast<unsigned long long>(rounds_in),
      static_cast<unsigned long long>(overflow), static_cast<unsigned long long>(worker_switches),
      static_cast<unsigned long long>(prod.nivcsw), static_cast<unsigned long long>(prod.nvcsw),
      rounds_in ? 100.0 * static_cast<double>(cpu0) / static_cast<double>(rounds_in) : 0.0,
      percentile(wake_late, 0.5), percentile(wake_late, 0.99),
      wake_late.empty() ? 0.0 : *std::max_element(wake_late.begin(), wake_late.end()),
      wake_late.size(), percentile(backlog_at_wake, 0.5), percentile(backlog_at_wake, 0.99),
      percentile(drain_us, 0.5), percentile(drain_us, 0.99),
      drain_us.empty() ? 0.0 : *std::max_element(drain_us.begin(), drain_us.end()),
      percentile(due_wait, 0.5), percentile(due_wait, 0.99));
  const char* dir = std::getenv("W7_PROBE");
  if (dir == nullptr) return;
  const std::string base = std::string(dir) + "/run-" + std::to_string(run);
  if (std::FILE* f = std::fopen((base + "-rounds.csv").c_str(), "w")) {
    std::fprintf(
        f,
        "start,asked,begin,drained_at,fired_at,first_due,backlog,drained,fired,busy,busy_ns,cpu,"
        "nivcsw,next_ns\n");
    for (const auto& r : rounds)
      std::fprintf(f, "%d,%lld,%lld,%lld,%lld,%lld,%u,%u,%u,%u,%lld,%d,%u,%lld\n",
                   static_cast<int>(r.start), static_cast<long long>(r.asked_ns),
                   static_cast<long long>(r.begin_ns), static_cast<long long>(r.drained_ns),
                   static_cast<long long>(r.fired_ns), static_cast<long long>(r.first_due_ns),
                   r.backlog, r.drained, r.fired, r.busy, static_cast<long long>(r.busy_ns), r.cpu,
                   r.nivcsw, static_cast<long long>(r.next_ns));
    std::fclose(f);
  }
  if (std::FILE* f = std::fopen((base + "-cpus.csv").c_str(), "w")) {
    std::fprintf(f, "ns,thread,cpu\n");
    for (const auto& c : s)
      std::fprintf(f, "%lld,%d,%d\n", static_cast<long long>(c.ns), c.thread, c.cpu);
    std::fclose(f);
  }
  if (std::FILE* f = std::fopen((base + "-fired.csv").c_str(), "w")) {
    std::fprintf(f, "deadline,fired,start,end,submitted\n");
    for (const auto& [d, t, sub] : fired)
      std::fprintf(f, "%lld,%lld,%lld,%lld,%lld\n", static_cast<long long>(d),
                   static_cast<long long>(t), static_cast<long long>(start_ns),
                   static_cast<long long>(end_ns), static_cast<long long>(sub));
    std::fclose(f);
  }
}

}  // namespace timerwheel_w7
