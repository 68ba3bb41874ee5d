// timerwheel_bench_service: W7 (docs/workloads.md). T threads schedule and
// cancel timers against one service, 90% cancelled before they fire, over a
// standing population of 100,000 pending timers; operations per second and
// the lateness of the 10% that fire (p50, p99), for timer_service beside a
// mutex-guarded wheel, a mutex-guarded binary heap, Boost.Asio's
// steady_timer on an io_context run by T threads, and one timerfd per timer.
//
//   timerwheel_bench_service [--quick] [--threads=1,2,4,8,16] [--reps=N]
//       [--steps=N] [--pending=N] [--tick-us=N] [--seed=N] [--only=a,b]
//       [--pace-us=N] [--spread]
//
// Each thread first schedules its share of the pending timers (deadlines
// 10-20 minutes out, untimed). Timed: `steps` steps over all threads, each
// one schedule; 90% of the schedules are far timers that join the thread's
// ring and push out its oldest, which is cancelled (so the population stays
// at `pending`); 10% are near timers, due 1-20 ms later, left to fire. After
// the timed part (untimed) the ring is cancelled and the near timers are
// awaited. Operations are the schedules plus the cancels.
//
// --spread pins producer t to core t modulo the cores the process may use,
// so that the producers are spread over them whatever else the machine runs
// (the worker is left where the scheduler puts it).
//
// --pace-us=N makes each thread pause N us after each step: the producers
// then leave the processor to the worker (and to the rest of the machine), so
// the lateness shows what the worker does when it is not competing with its
// own producers for a core (its operations per second mean nothing then).
//
// W7_DEBUG=1 in the environment prints the service's pool size (entries
// made) after each of its runs.
//
// Checks, every run: no timer fires twice, none fires after a cancel that
// returned true, every timer not cancelled fires, and (timerwheel's) none
// fires before its deadline. Any failure prints FAILED and the program exits
// 1. Repetitions are interleaved (implementations shuffled each round); a
// figure is the median of the repetitions, with their min and max. Beside
// the operations per second (wall clock), "cpu ns/op" is the processor time
// of all the process's threads over the timed part and the final cancels,
// per operation: on a shared machine it moves far less than the wall clock.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <pthread.h>
#include <random>
#include <sched.h>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include "implementations.hpp"
#include "record.hpp"
#ifdef TIMERWHEEL_SERVICE_PROBE
#include "probe.hpp"
#endif

namespace w7 = timerwheel_w7;

#ifndef TIMERWHEEL_BENCH_COMMIT
#define TIMERWHEEL_BENCH_COMMIT "unknown"
#endif
#ifndef TIMERWHEEL_BENCH_FLAGS
#define TIMERWHEEL_BENCH_FLAGS "unknown"
#endif

namespace {

struct options {
  std::vector<int> threads{1, 2, 4, 8, 16};
  int reps = 3;
  std::size_t steps = 400'000;
  std::size_t pending = 100'000;
  std::chrono::microseconds tick{1000};
  std::uint64_t seed = 42;
  std::vector<std::string> only;
  std::chrono::microseconds pace{0};  // a pause after each step: producers mostly idle
  bool spread = false;                // producer t pinned to core t % cores
};

struct result {
  double ops_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;
  std::uint64_t early = 0;
  std::size_t pending = 0;
  std::uint64_t cancel_lost = 0;  // cancels of far timers that returned false
  double cpu_ns_per_op = 0;       // processor time of the whole process per operation
};

bool failed = false;

// Processor time (user + system) the process has used so far, in ns: every
// thread's, so a worker's and its producers' alike. On a machine shared with
// other work it moves far less than the wall clock: it counts the work done,
// cache misses and spinning included, not the waits for a core.
std::int64_t cpu_ns() {
  ::rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto ns = [](const ::timeval& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 +
           static_cast<std::int64_t>(t.tv_usec) * 1'000;
  };
  return ns(u.ru_utime) + ns(u.ru_stime);
}

// The cores this process may use (all of them unless started under taskset or the like), and
// their count; a count of 0 when the mask cannot be read.
int usable_cores(::cpu_set_t& allowed) {
  CPU_ZERO(&allowed);
  return ::sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
}

// Pins the calling thread to core `t` modulo the cores this process may use.
void pin_to(int t) {
  ::cpu_set_t allowed;
  const int n = usable_cores(allowed);
  if (n == 0) return;
  int k = t % n;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (k-- == 0) {
      ::cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      ::pthread_setaffinity_np(::pthread_self(), sizeof one, &one);
      return;
    }
  }
}

void fail(const std::string& what) {
  std::printf("FAILED %s\n", what.c_str());
  failed = true;
}

// One run of one implementation at T threads.
template <class Impl>
result run_one(int threads, const options& o, std::size_t pending, std::uint64_t seed) {
  const std::size_t ring = std::max<std::size_t>(1, pending / static_cast<std::size_t>(threads));
  const std::size_t steps = o.steps / static_cast<std::size_t>(threads);
  const std::size_t per_thread = ring + steps;
  const std::size_t n = per_thread * static_cast<std::size_t>(threads);
  auto records = std::make_unique<w7::record[]>(n);
  // Each thread's draws, made before the clock starts: near or far, and the delay.
  std::vector<std::vector<std::int64_t>> delays(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    std::mt19937_64 rng(seed * 1000 + static_cast<std::uint64_t>(t));
    auto& d = delays[static_cast<std::size_t>(t)];
    d.resize(per_thread);
    for (std::size_t i = 0; i < per_thread; ++i) {
      const bool near = i >= ring && rng() % 10 == 0;
      d[i] = near ? 1'000'000 + static_cast<std::int64_t>(rng() % 19'000'000)  // 1-20 ms
                  : 600'000'000'000 + static_cast<std::int64_t>(rng() % 600'000'000'000);
    }
  }
  std::uint64_t lost_cancels = 0;
  double seconds = 0;
  {
    Impl impl(threads, records.get(), n, o.tick);
    std::vector<std::thread> workers;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::uint64_t> lost(static_cast<std::size_t>(threads), 0);
    std::vector<std::uint64_t> ops(static_cast<std::size_t>(threads), 0);
    std::atomic<std::int64_t> first_start{0};
    std::vector<std::int64_t> ends(static_cast<std::size_t>(threads), 0);
#ifdef TIMERWHEEL_SERVICE_PROBE
    w7::producer_probe producers;
#endif
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        if (o.spread) pin_to(t);
        const std::size_t base = static_cast<std::size_t>(t) * per_thread;
        const auto& d = delays[static_cast<std::size_t>(t)];
        std::vector<std::size_t> slots(ring);
        for (std::size_t i = 0; i < ring; ++i) {
          records[base + i].deadline_ns = w7::ns_of(w7::clock::now()) + d[i];
          impl.schedule(base + i);
          slots[i] = base + i;
        }
        ready.fetch_add(1);
        while (!go.load()) std::this_thread::yield();
        std::size_t head = 0;
        std::uint64_t count = 0;
#ifdef TIMERWHEEL_SERVICE_PROBE
        std::vector<w7::cpu_sample> samples;
        samples.reserve((per_thread - ring) / 64 + 1);
#endif
        for (std::size_t i = ring; i < per_thread; ++i) {
          const std::size_t k = base + i;
#ifdef TIMERWHEEL_SERVICE_PROBE
          if ((i & 63) == 0) samples.push_back(w7::producer_probe::sample(t));
#endif
          w7::record& r = records[k];
          r.deadline_ns = w7::ns_of(w7::clock::now()) + d[i];
          const bool near = d[i] < 1'000'000'000;
          r.must_fire = near ? 1 : 0;
          impl.schedule(k);
#ifdef TIMERWHEEL_SERVICE_PROBE
          if (near) r.submitted_ns = w7::ns_of(w7::clock::now());
#endif
          ++count;
          if (o.pace.count() > 0) std::this_thread::sleep_for(o.pace);
          if (!near) {
            const std::size_t old = slots[head];
            if (impl.cancel(old))
              records[old].cancelled.store(1);
            else
              ++lost[static_cast<std::size_t>(t)];
            ++count;
            slots[head] = k;
            head = (head + 1) % ring;
          }
        }
        ends[static_cast<std::size_t>(t)] = w7::ns_of(w7::clock::now());
#ifdef TIMERWHEEL_SERVICE_PROBE
        producers.add(samples);
#endif
        ops[static_cast<std::size_t>(t)] = count;
        for (const std::size_t k : slots) {
          if (impl.cancel(k))
            records[k].cancelled.store(1);
          else
            ++lost[static_cast<std::size_t>(t)];
        }
      });
    }
    while (ready.load() < threads) std::this_thread::yield();
    const std::int64_t cpu_start = cpu_ns();
    const std::int64_t start = w7::ns_of(w7::clock::now());
    go = true;
    for (auto& w : workers) w.join();
    const std::int64_t cpu_end = cpu_ns();
    const std::int64_t end = *std::max_element(ends.begin(), ends.end());
    if constexpr (requires { impl.entries(); })
      if (std::getenv("W7_DEBUG")) std::printf("entries %zu\n", impl.entries());
    seconds = static_cast<double>(end - start) / 1e9;
    std::uint64_t total_ops = 0;
    for (auto c : ops) total_ops += c;
    for (auto c : lost) lost_cancels += c;
    // Await the near timers: 20 ms at most, plus generous slack.
    const auto give_up = w7::clock::now() + std::chrono::seconds(5);
    for (std::size_t k = 0; k < n; ++k) {
      while (records[k].must_fire && records[k].fires.load() == 0 && w7::clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    result res;
    res.ops_per_s = static_cast<double>(total_ops) / seconds;
    // The threads' final cancels of their rings (untimed, a fraction of the
    // operations) are inside the processor time: counted as operations here.
    res.cpu_ns_per_op = static_cast<double>(cpu_end - cpu_start) /
                        static_cast<double>(total_ops + ring * static_cast<std::uint64_t>(threads));
    res.cancel_lost = lost_cancels;
    res.pending = pending;
    std::vector<std::int64_t> lateness;
    std::uint64_t twice = 0, after_cancel = 0, missing = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const w7::record& r = records[k];
      const std::uint32_t f = r.fires.load();
      if (f > 1) ++twice;
      if (r.cancelled.load() != 0 && f != 0) ++after_cancel;
      if (r.cancelled.load() == 0 && f == 0) ++missing;
      if (f == 1) {
        const std::int64_t late = r.fired_ns.load() - r.deadline_ns;
        if (late < 0) ++res.early;
        lateness.push_back(late);
      }
    }
    const std::string who = std::string(Impl::name) + " T=" + std::to_string(threads);
    if (twice) fail(who + ": " + std::to_string(twice) + " timers fired twice");
    if (after_cancel)
      fail(who + ": " + std::to_string(after_cancel) + " fired after cancel returned true");
    if (missing) fail(who + ": " + std::to_string(missing) + " timers not cancelled never fired");
    const std::string_view name = Impl::name;
    const bool ours = name == "service" || name == "sharded" || name == "mutex_wheel";
    if (ours && res.early) fail(who + ": " + std::to_string(res.early) + " early firings");
    std::sort(lateness.begin(), lateness.end());
    if (!lateness.empty()) {
      res.p50_us = static_cast<double>(lateness[lateness.size() / 2]) / 1e3;
      res.p99_us = static_cast<double>(lateness[lateness.size() * 99 / 100]) / 1e3;
    }
#ifdef TIMERWHEEL_SERVICE_PROBE
    if constexpr (requires { impl.stop_and_probe(); }) {
      const auto& p = impl.stop_and_probe();
      std::vector<std::array<std::int64_t, 3>> fired;
      for (std::size_t k = 0; k < n; ++k)
        if (records[k].fires.load() == 1)
          fired.push_back(
              {records[k].deadline_ns, records[k].fired_ns.load(), records[k].submitted_ns});
      w7::report_probe(Impl::name, threads, p.rounds(), p.overflow(), producers, fired, start, end,
                       res.ops_per_s, res.p99_us);
    }
#endif
    return res;
  }
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const auto comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

std::size_t fd_room() {
  ::rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1000;
  lim.rlim_cur = lim.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &lim);
  ::getrlimit(RLIMIT_NOFILE, &lim);
  // Room for the near timers in flight and the program's own descriptors.
  return lim.rlim_cur > 4000 ? static_cast<std::size_t>(lim.rlim_cur) - 4000 : 0;
}

std::string machine() {
  std::string cpu = "unknown";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  double load[3] = {0, 0, 0};
  std::ifstream la("/proc/loadavg");
  la >> load[0] >> load[1] >> load[2];
  // The cores this run may use: a run started under taskset puts every thread of T on those,
  // and its figures then say nothing about T cores.
  ::cpu_set_t allowed;
  const int usable = usable_cores(allowed);
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s, %u cores (%d usable by this run), load average %.2f %.2f %.2f", cpu.c_str(),
                std::thread::hardware_concurrency(), usable, load[0], load[1], load[2]);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view key) -> const char* {
      return a.substr(0, key.size()) == key ? argv[i] + key.size() : nullptr;
    };
    if (a == "--quick") {
      o.reps = 1;
      o.steps = 200'000;
    } else if (const char* v = value("--threads=")) {
      o.threads.clear();
      for (const auto& t : split(v)) o.threads.push_back(std::stoi(t));
    } else if (const char* v2 = value("--reps=")) {
      o.reps = std::max(1, std::stoi(v2));
    } else if (const char* v3 = value("--steps=")) {
      o.steps = std::stoull(v3);
    } else if (const char* v4 = value("--pending=")) {
      o.pending = std::stoull(v4);
    } else if (const char* v5 = value("--tick-us=")) {
      o.tick = std::chrono::microseconds(std::stoll(v5));
    } else if (const char* v6 = value("--seed=")) {
      o.seed = std::stoull(v6);
    } else if (const char* v7 = value("--only=")) {
      o.only = split(v7);
    } else if (a == "--spread") {
      o.spread = true;
    } else if (const char* v8 = value("--pace-us=")) {
      o.pace = std::chrono::microseconds(std::stoll(v8));
    } else {
      std::fprintf(stderr, "timerwheel_bench_service: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const std::size_t fd_pending = std::min(o.pending, fd_room());

  using runner = std::function<result(int, std::uint64_t)>;
  struct impl_entry {
    std::string name;
    runner run;
  };
  std::vector<impl_entry> impls = {
      {"service",
       [&](int t, std::uint64_t s) { return run_one<w7::service_impl>(t, o, o.pending, s); }},
      {"sharded",
       [&](int t, std::uint64_t s) { return run_one<w7::sharded_impl>(t, o, o.pending, s); }},
      {"mutex_wheel",
       [&](int t, std::uint64_t s) { return run_one<w7::mutex_wheel_impl>(t, o, o.pending, s); }},
      {"mutex_heap",
       [&](int t, std::uint64_t s) { return run_one<w7::mutex_heap_impl>(t, o, o.pending, s); }},
      {"asio", [&](int t, std::uint64_t s) { return run_one<w7::asio_impl>(t, o, o.pending, s); }},
      {"timerfd",
       [&](int t, std::uint64_t s) { return run_one<w7::timerfd_impl>(t, o, fd_pending, s); }},
  };
  if (!o.only.empty())
    std::erase_if(impls, [&](const impl_entry& e) {
      return std::find(o.only.begin(), o.only.end(), e.name) == o.only.end();
    });

  std::printf("=== timerwheel W7: the thread-safe service ===\n");
  std::printf("machine: %s\n", machine().c_str());
  std::printf("commit %s, flags %s, seed %llu\n", TIMERWHEEL_BENCH_COMMIT, TIMERWHEEL_BENCH_FLAGS,
              static_cast<unsigned long long>(o.seed));
  std::printf(
      "steps %zu a run (all threads), pending %zu (timerfd: %zu, the descriptor limit), "
      "tick %lld us, reps %d\n",
      o.steps, o.pending, fd_pending, static_cast<long long>(o.tick.count()), o.reps);
  std::fflush(stdout);

  // results[name][T] = one result per repetition
  std::map<std::string, std::map<int, std::vector<result>>> results;
  std::mt19937_64 order(o.seed);
  for (int rep = 0; rep < o.reps; ++rep) {
    for (const int t : o.threads) {
      std::vector<std::size_t> idx(impls.size());
      for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::shuffle(idx.begin(), idx.end(), order);
      for (const std::size_t i : idx)
        results[impls[i].name][t].push_back(
            impls[i].run(t, o.seed + static_cast<std::uint64_t>(rep)));
    }
  }

  std::printf("\n%-12s %3s %14s %20s %10s %10s %6s %8s %9s %10s\n", "impl", "T", "Mops/s",
              "(min-max)", "p50 us", "p99 us", "early", "pending", "x asio", "cpu ns/op");
  for (const int t : o.threads) {
    double asio_ops = 0;
    if (results.count("asio")) {
      std::vector<double> v;
      for (const auto& r : results["asio"][t]) v.push_back(r.ops_per_s);
      asio_ops = median(v);
    }
    for (const auto& e : impls) {
      const auto& rs = results[e.name][t];
      std::vector<double> ops, p50, p99, cpu;
      std::uint64_t early = 0;
      for (const auto& r : rs) {
        ops.push_back(r.ops_per_s / 1e6);
        p50.push_back(r.p50_us);
        p99.push_back(r.p99_us);
        cpu.push_back(r.cpu_ns_per_op);
        early += r.early;
      }
      const double m = median(ops);
      char range[64];
      std::snprintf(range, sizeof range, "(%.3f-%.3f)", *std::min_element(ops.begin(), ops.end()),
                    *std::max_element(ops.begin(), ops.end()));
      char ratio[32] = "-";
      if (asio_ops > 0) std::snprintf(ratio, sizeof ratio, "%.2f", m * 1e6 / asio_ops);
      std::printf("%-12s %3d %14.3f %20s %10.1f %10.1f %6llu %8zu %9s %10.0f\n", e.name.c_str(), t,
                  m, range, median(p50), median(p99), static_cast<unsigned long long>(early),
                  rs.front().pending, ratio, median(cpu));
    }
  }
  std::printf(
      "\ngoals: service >= 5x asio ops/s at T=8; service p99 lateness <= 2 ticks (%lld us); "
      "zero early firings\n",
      static_cast<long long>(2 * o.tick.count()));
  if (results.count("service") && results.count("asio")) {
    for (const int t : o.threads) {
      if (t != 8) continue;
      std::vector<double> s, a, p;
      for (const auto& r : results["service"][t]) {
        s.push_back(r.ops_per_s);
        p.push_back(r.p99_us);
      }
      for (const auto& r : results["asio"][t]) a.push_back(r.ops_per_s);
      const double ratio = median(s) / median(a);
      std::printf("T=8: service/asio %.2fx (%s); service p99 %.1f us (%s)\n", ratio,
                  ratio >= 5 ? "met" : "NOT met", median(p),
                  median(p) <= 2.0 * static_cast<double>(o.tick.count()) ? "met" : "NOT met");
    }
  }
  if (failed) {
    std::printf("FAILED: see above\n");
    return 1;
  }
  return 0;
}
