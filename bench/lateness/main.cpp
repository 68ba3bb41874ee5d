// timerwheel_bench_lateness: W7a (docs/workloads.md). 10,000 timers with
// delays uniform in 1-100 ms, armed at once on timerwheel's event_loop and,
// in the same run, on Boost.Asio, libuv and libev; each firing's lateness
// against its requested time point: p50, p99, max and the count of early
// firings. Beside them, the wake-up latency of the empty event_loop: how
// far past a 1 ms wait run_once returns with no timer and no descriptor.
//
//   timerwheel_bench_lateness [--timers=N] [--rounds=N] [--seed=N] [--tick-us=N]
//
// Rounds interleave the loops (the order shuffled each round) so that a
// burst of load falls on all of them; the figures pool every round's
// firings. Exits 1 if any loop loses or repeats a timer, or if timerwheel
// fires one early; the peers' early firings are reported, not failed.
#include <timerwheel/event_loop.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "job.hpp"
#include "peers.hpp"

namespace tl = timerwheel_lateness;
using namespace std::chrono_literals;

namespace {

struct options {
  std::size_t timers = 10'000;
  int rounds = 5;
  std::uint64_t seed = 42;
  std::chrono::microseconds tick = 1000us;
};

struct stats_of_loop {
  std::uint64_t wakeups = 0;
  std::uint64_t settime_calls = 0;
};

std::string run_timerwheel(const tl::job& j, tl::recorder& rec, std::chrono::microseconds tick,
                           stats_of_loop& out) {
  timerwheel::event_loop<> loop(tick);
  for (std::size_t i = 0; i < j.delays.size(); ++i) {
    const auto requested = tl::clock::now() + j.delays[i];
    rec.armed(i, requested);
    loop.timers().at(requested, [&rec, i] { rec.fired(i); });
  }
  rec.arming_done();
  // Far longer than any delay: a loop that stops firing fails the count.
  const auto give_up = tl::clock::now() + 10s;
  while (rec.count() < j.delays.size() && tl::clock::now() < give_up) loop.run_once(1s);
  out.wakeups += loop.timer_stats().wakeups;
  out.settime_calls += loop.timer_stats().settime_calls;
  return {};
}

// How far past a 1 ms wait an empty event_loop's run_once returns: the
// wake-up latency of the loop itself (epoll_wait's timer slack and the
// scheduler), `samples` times.
std::vector<std::chrono::nanoseconds> empty_loop_latency(int samples) {
  timerwheel::event_loop<> loop;
  std::vector<std::chrono::nanoseconds> v;
  v.reserve(static_cast<std::size_t>(samples));
  for (int k = 0; k < samples; ++k) {
    const auto start = tl::clock::now();
    loop.run_once(1ms);
    v.push_back(tl::clock::now() - start - 1ms);
  }
  return v;
}

double ms(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }

std::string first_line(const char* path, std::string_view key = {}) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (key.empty() || line.starts_with(key)) return line;
  }
  return "unknown";
}

bool parse(std::string_view arg, std::string_view name, unsigned long long& out) {
  if (!arg.starts_with(name)) return false;
  const std::string value(arg.substr(name.size()));
  char* end = nullptr;
  out = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0') {
    std::fprintf(stderr, "bad value: %s\n", std::string(arg).c_str());
    std::exit(2);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    unsigned long long v = 0;
    const std::string_view a = argv[i];
    if (parse(a, "--timers=", v) && v > 0) {
      opt.timers = v;
    } else if (parse(a, "--rounds=", v) && v > 0) {
      opt.rounds = static_cast<int>(v);
    } else if (parse(a, "--seed=", v)) {
      opt.seed = v;
    } else if (parse(a, "--tick-us=", v) && v > 0) {
      opt.tick = std::chrono::microseconds(v);
    } else {
      std::fprintf(stderr, "usage: %s [--timers=N] [--rounds=N] [--seed=N] [--tick-us=N] (N > 0)\n",
                   argv[0]);
      return 2;
    }
  }

  struct entry {
    std::string name;
    bool ours;  // timerwheel: an early firing fails the run
    std::function<std::string(const tl::job&, tl::recorder&, stats_of_loop&)> run;
    std::vector<std::chrono::nanoseconds> lateness{};
    std::vector<std::chrono::nanoseconds> round_p99{};
    std::vector<std::chrono::nanoseconds> after_arming{};  // timers due after arming was done
    std::vector<std::chrono::nanoseconds> arming{};        // each round's arming time
    std::string errors{};
    stats_of_loop totals{};
    std::chrono::microseconds tick{};  // ours: the event loop's tick
  };
  auto ours = [](std::chrono::microseconds tick) {
    char name[64];
    std::snprintf(name, sizeof name, "timerwheel, %g ms ticks",
                  static_cast<double>(tick.count()) / 1e3);
    entry e{name, true, [tick](const tl::job& j, tl::recorder& r, stats_of_loop& s) {
              return run_timerwheel(j, r, tick, s);
            }};
    e.tick = tick;
    return e;
  };
  auto peer = [](const char* name, std::string (*run)(const tl::job&, tl::recorder&)) {
    return entry{name, false,
                 [run](const tl::job& j, tl::recorder& r, stats_of_loop&) { return run(j, r); }};
  };
  std::vector<entry> loops;
  // The tick asked for, and a tenth of it: what the tick costs in lateness.
  loops.push_back(ours(opt.tick));
  if (opt.tick >= 10us) loops.push_back(ours(opt.tick / 10));
  loops.push_back(peer("Boost.Asio steady_timer", tl::run_asio));
  loops.push_back(peer("libuv uv_timer", tl::run_libuv));
  loops.push_back(peer("libev ev_timer", tl::run_libev));

  std::printf("=== timerwheel W7a lateness ===\n");
  std::printf(
      "timers %zu, delays uniform 1-100 ms (whole ms), rounds %d, seed %llu, tick %lld us\n",
      opt.timers, opt.rounds, static_cast<unsigned long long>(opt.seed),
      static_cast<long long>(opt.tick.count()));
  std::printf("cpu: %s; cores %u; load average: %s\n",
              first_line("/proc/cpuinfo", "model name").c_str(),
              std::thread::hardware_concurrency(), first_line("/proc/loadavg").c_str());
#if defined(__clang__)
  std::printf("compiler: clang %s\n", __clang_version__);
#else
  std::printf("compiler: g++ %s\n", __VERSION__);
#endif

  std::vector<std::chrono::nanoseconds> wake;
  std::mt19937_64 shuffle_rng(opt.seed);
  std::vector<std::size_t> order(loops.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  for (int round = 0; round < opt.rounds; ++round) {
    const tl::job j = tl::make_job(opt.timers, 1, 100, opt.seed + static_cast<unsigned>(round));
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    for (std::size_t k : order) {
      entry& e = loops[k];
      tl::recorder rec(j.delays.size());
      std::string err = e.run(j, rec, e.totals);
      err += rec.errors();
      if (!err.empty()) e.errors += "round " + std::to_string(round) + ": " + err;
      e.lateness.insert(e.lateness.end(), rec.lateness().begin(), rec.lateness().end());
      e.round_p99.push_back(tl::summarize(rec.lateness()).p99);
      const auto late = rec.lateness_after_arming();
      e.after_arming.insert(e.after_arming.end(), late.begin(), late.end());
      e.arming.push_back(rec.arming_time());
    }
    const auto w = empty_loop_latency(100);
    wake.insert(wake.end(), w.begin(), w.end());
  }

  const tl::summary ws = tl::summarize(wake);
  // Times in ms. "p99 due after arming": the firings requested for after
  // the loop had armed every timer (the loop's own precision, without the
  // wait arming imposes on the shortest delays); "arming": the median time
  // a round took to arm its timers.
  std::printf("\n%-25s %7s %8s %8s %8s %6s %8s %9s %7s  %s\n", "loop (ms)", "fired", "p50", "p99",
              "max", "early", "min", "p99 after", "arming", "p99 by round");
  std::printf("%-25s %7s %8s %8s %8s %6s %8s %9s %7s\n", "", "", "", "", "", "", "", "arming", "");
  int status = 0;
  for (entry& e : loops) {
    const tl::summary s = tl::summarize(e.lateness);
    const tl::summary after = tl::summarize(e.after_arming);
    const tl::summary arming = tl::summarize(e.arming);
    const auto [lo, hi] = std::minmax_element(e.round_p99.begin(), e.round_p99.end());
    std::printf("%-25s %7zu %8.3f %8.3f %8.3f %6zu %8.3f %9.3f %7.3f  %.3f-%.3f\n", e.name.c_str(),
                s.n, ms(s.p50), ms(s.p99), ms(s.max), s.early, ms(s.min), ms(after.p99),
                ms(arming.p50), ms(*lo), ms(*hi));
    if (!e.errors.empty()) {
      std::printf("FAILED %s: %s\n", e.name.c_str(), e.errors.c_str());
      status = 1;
    }
    if (e.ours && s.early != 0) {
      std::printf("FAILED %s: %zu early firings\n", e.name.c_str(), s.early);
      status = 1;
    }
  }
  std::printf("%-25s %7zu %8.3f %8.3f %8.3f  (how far past 1 ms run_once(1 ms) returns)\n",
              "empty event_loop wake-up", ws.n, ms(ws.p50), ms(ws.p99), ms(ws.max));
  for (const entry& e : loops) {
    if (!e.ours) continue;
    const tl::summary tw = tl::summarize(e.lateness);
    const tl::summary after = tl::summarize(e.after_arming);
    const auto goal = std::chrono::nanoseconds(e.tick) + ws.p99;
    std::printf(
        "\n%s: %llu timerfd wake-ups and %llu timerfd_settime calls for %zu timers\n"
        "goal: none early: %s; p99 <= one tick + the empty loop's p99 = %.3f ms: "
        "all firings %.3f (%s), due after arming %.3f (%s)\n",
        e.name.c_str(), static_cast<unsigned long long>(e.totals.wakeups),
        static_cast<unsigned long long>(e.totals.settime_calls), tw.n,
        tw.early == 0 ? "met" : "NOT met", ms(goal), ms(tw.p99), tw.p99 <= goal ? "met" : "not met",
        ms(after.p99), after.p99 <= goal ? "met" : "not met");
  }
  return status;
}
