// timerwheel_bench: the standard workloads W1 (churn) and W3 (idle jumps) on the wheel (6- and
// 8-bit levels), the indexed binary heap every ratio is taken against, and the W1 floor.
//
// Usage: timerwheel_bench [--quick] [--reps=N] [--seed=N] [--out=DIR] [--all-heaps]
//                         [--no-interleave] [benchmark flags...]
//   --quick          fewer W1 steps (the whole run stays under 2 minutes on 2 cores)
//   --reps=N         repetitions per benchmark (default 5); figures are medians
//   --seed=N         seed of every workload's sequence (default 42; printed)
//   --out=DIR        where latest.csv goes (default results, relative to the working dir)
//   --all-heaps      also run the heap variant that reads its keys through the nodes
//   --no-interleave  run each benchmark's repetitions back to back instead of interleaving
//                    the repetitions of all benchmarks in random order
// Every other argument goes to Google Benchmark (--benchmark_filter=W1 ...).
//
// After Google Benchmark's own output it prints a table (and writes it as CSV): per workload
// and size, the median ns per operation over the repetitions, the min and max, and the ratio
// to the heap (and, for W1, to the floor) measured in the same run. Exit status 1 if any run
// failed its checks.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

#include <benchmark/benchmark.h>

#include "workloads.hpp"

#ifndef TIMERWHEEL_BENCH_COMMIT
#define TIMERWHEEL_BENCH_COMMIT "unknown"
#endif
#ifndef TIMERWHEEL_BENCH_FLAGS
#define TIMERWHEEL_BENCH_FLAGS "unknown"
#endif
#ifndef TIMERWHEEL_BENCH_BUILD_TYPE
#define TIMERWHEEL_BENCH_BUILD_TYPE "unknown"
#endif

namespace tb = timerwheel_bench;

namespace {

using wheel6 = tb::wheel_adapter<timerwheel::default_config>;
using wheel8 = tb::wheel_adapter<timerwheel::levels<std::uint64_t, 8, 8, 8, 8, 8, 8, 8, 8>>;
using heap = tb::heap_adapter<true>;
using heap_nodekey = tb::heap_adapter<false>;

// ---------------------------------------------------------------------------------------------
// Options.

struct options {
  bool quick = false;
  int reps = 5;
  std::uint64_t seed = 42;
  std::string out = "results";
  bool all_heaps = false;
  bool interleave = true;
};

bool take_value(std::string_view arg, std::string_view flag, std::string& value) {
  if (arg.size() <= flag.size() || arg.substr(0, flag.size()) != flag) return false;
  if (arg[flag.size()] != '=') return false;
  value = std::string(arg.substr(flag.size() + 1));
  return true;
}

// Takes our own flags out of argv (before benchmark::Initialize sees them).
options parse_options(int& argc, char** argv) {
  options o;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string v;
    if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--all-heaps") {
      o.all_heaps = true;
    } else if (arg == "--no-interleave") {
      o.interleave = false;
    } else if (take_value(arg, "--reps", v)) {
      o.reps = std::max(2, std::atoi(v.c_str()));
    } else if (take_value(arg, "--seed", v)) {
      o.seed = std::strtoull(v.c_str(), nullptr, 0);
    } else if (take_value(arg, "--out", v)) {
      o.out = v;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "timerwheel_bench [--quick] [--reps=N] [--seed=N] [--out=DIR] [--all-heaps]\n"
                   "                 [--no-interleave] [benchmark flags...]\n"
                   "  --quick          fewer W1 steps: the whole run stays under 2 minutes\n"
                   "  --reps=N         repetitions per benchmark (default 5); figures are medians\n"
                   "  --seed=N         seed of every workload's sequence (default 42)\n"
                   "  --out=DIR        directory of latest.csv (default results)\n"
                   "  --all-heaps      also run the heap that reads its keys through the nodes\n"
                   "  --no-interleave  run each benchmark's repetitions back to back\n\n"
                   "Google Benchmark's flags:\n";
      argv[kept++] = argv[i];
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return o;
}

// ---------------------------------------------------------------------------------------------
// The benchmarks: one case per (workload, size, structure).

struct bench_case {
  std::string workload;   // "W1 churn"
  std::string params;     // "N=1e6 R=2^20"
  std::string structure;  // "heap", "wheel6", "wheel8", "floor"
  std::string name;       // the Google Benchmark name
  std::string unit;       // what one operation is
  std::function<tb::run_result()> run;
  std::function<const tb::run_result&()> reference;  // the heap's untimed run of the workload
  bool failed = false;
  std::string error;
};

std::vector<std::unique_ptr<bench_case>> g_cases;
bool g_failed = false;

// What every run of a workload must reproduce: the fired count and checksum of an untimed run
// of the heap (exact by construction, and checked), or for the floor its own first run.
struct reference {
  std::uint64_t fired;
  std::uint64_t checksum;
  std::string structure;
};
std::map<std::string, reference> g_floor_reference;

std::string check_reference(const bench_case& c, const tb::run_result& r) {
  reference ref{};
  if (c.structure == "floor") {
    const std::string key = c.workload + " " + c.params;
    const auto [it, inserted] =
        g_floor_reference.try_emplace(key, reference{r.fired, r.checksum, "floor"});
    if (inserted) return {};
    ref = it->second;
  } else {
    const tb::run_result& h = c.reference();
    if (!h.error.empty()) return "the reference heap run failed: " + h.error;
    ref = reference{h.fired, h.checksum, "heap"};
  }
  if (ref.fired == r.fired && ref.checksum == r.checksum) return {};
  std::ostringstream os;
  os << "differs from the " << ref.structure << "'s untimed reference run: fired " << r.fired
     << " vs " << ref.fired << ", fired-order checksum " << std::hex << r.checksum << " vs "
     << ref.checksum;
  return os.str();
}

void run_case(benchmark::State& state, bench_case* c) {
  tb::run_result r;
  for (auto _ : state) {
    r = c->run();
    std::string error = r.error;
    if (error.empty()) error = check_reference(*c, r);
    if (!error.empty()) {
      c->failed = true;
      c->error = error;
      g_failed = true;
      std::cerr << "FAILED " << c->name << ": " << error << "\n";
      state.SkipWithError(error.c_str());
      break;
    }
    state.SetIterationTime(r.seconds);
  }
  if (c->failed) return;
  state.counters["ns_op"] = r.seconds * 1e9 / static_cast<double>(r.ops);
  state.SetItemsProcessed(static_cast<std::int64_t>(r.ops));
}

double stat_min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double stat_max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void add_case(const options& o, std::string workload, std::string params, std::string structure,
              std::string unit, std::function<tb::run_result()> run,
              std::function<const tb::run_result&()> reference) {
  auto c = std::make_unique<bench_case>();
  c->workload = std::move(workload);
  c->params = std::move(params);
  c->structure = std::move(structure);
  c->unit = std::move(unit);
  c->run = std::move(run);
  c->reference = std::move(reference);
  std::string name =
      c->workload.substr(0, c->workload.find(' ')) + "/" + c->params + "/" + c->structure;
  std::replace(name.begin(), name.end(), ' ', '/');
  c->name = name;
  benchmark::RegisterBenchmark(c->name.c_str(), run_case, c.get())
      ->Iterations(1)
      ->Repetitions(o.reps)
      ->ReportAggregatesOnly(true)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->ComputeStatistics("min", stat_min)
      ->ComputeStatistics("max", stat_max);
  g_cases.push_back(std::move(c));
}

// 1000000 -> "1e6", 2000000 -> "2e6", 1500 -> "1500".
std::string pow10_or_int(std::uint64_t v) {
  int e = 0;
  std::uint64_t x = v;
  while (x >= 10 && x % 10 == 0) {
    x /= 10;
    ++e;
  }
  if (x < 10 && e >= 3) return std::to_string(x) + "e" + std::to_string(e);
  return std::to_string(v);
}

std::string pow2_or_int(std::uint64_t v) {
  if (v != 0 && (v & (v - 1)) == 0) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

// A workload's sequence and the heap's untimed reference run on it, made once on first use
// (outside any timed region) and shared by every structure and repetition.
template <class Seq>
struct workload_data {
  Seq seq;
  tb::run_result reference;
};

template <class Seq, class Params, class Make, class Reference>
auto lazy_workload(Params p, std::uint64_t seed, Make make, Reference run_reference) {
  auto holder = std::make_shared<std::unique_ptr<workload_data<Seq>>>();
  return [holder, p, seed, make, run_reference]() -> const workload_data<Seq>& {
    if (!*holder) {
      auto d = std::make_unique<workload_data<Seq>>();
      d->seq = make(p, seed);
      d->reference = run_reference(d->seq);
      *holder = std::move(d);
    }
    return **holder;
  };
}

struct w1_size {
  std::size_t timers;
  std::uint64_t range;
  std::size_t full_steps;
  std::size_t quick_steps;
};
constexpr w1_size w1_sizes[] = {
    {1'000, std::uint64_t{1} << 20, 4'000'000, 2'000'000},
    {100'000, std::uint64_t{1} << 20, 4'000'000, 2'000'000},
    {1'000'000, std::uint64_t{1} << 20, 10'000'000, 3'000'000},
    {1'000'000, std::uint64_t{1} << 32, 10'000'000, 3'000'000},
};
constexpr std::size_t w3_timers = 1'000;
constexpr std::size_t w3_jumps = 1'000'000;
constexpr std::size_t w3_full_passes = 10;
constexpr std::size_t w3_quick_passes = 4;
constexpr std::uint64_t w3_spans[] = {std::uint64_t{1} << 40, std::uint64_t{1} << 21};

std::size_t round_steps(std::size_t steps) {
  return std::max<std::size_t>(tb::w1_steps_per_tick,
                               steps / tb::w1_steps_per_tick * tb::w1_steps_per_tick);
}

void register_all(const options& o) {
  for (const w1_size& z : w1_sizes) {
    tb::w1_params p{};
    p.timers = z.timers;
    p.range = z.range;
    p.timed_steps = round_steps(o.quick ? z.quick_steps : z.full_steps);
    p.warm_steps = round_steps(p.timed_steps / 10);
    const std::string params = "N=" + pow10_or_int(z.timers) + " R=" + pow2_or_int(z.range);
    auto data = lazy_workload<tb::w1_sequence>(p, tb::derive_seed(o.seed, "W1 " + params),
                                               tb::make_w1_sequence, tb::run_w1<heap>);
    auto ref = [data]() -> const tb::run_result& { return data().reference; };
    const std::string unit = "ns per cancel+schedule pair";
    const std::string w = "W1 churn";
    add_case(
        o, w, params, "heap", unit, [data] { return tb::run_w1<heap>(data().seq); }, ref);
    if (o.all_heaps) {
      add_case(
          o, w, params, "heap_nodekey", unit,
          [data] { return tb::run_w1<heap_nodekey>(data().seq); }, ref);
    }
    add_case(
        o, w, params, "wheel6", unit, [data] { return tb::run_w1<wheel6>(data().seq); }, ref);
    add_case(
        o, w, params, "wheel8", unit, [data] { return tb::run_w1<wheel8>(data().seq); }, ref);
    add_case(
        o, w, params, "floor", unit, [data] { return tb::run_w1_floor(data().seq); }, ref);
  }
  for (const std::uint64_t span : w3_spans) {
    const tb::w3_params p{w3_timers, span, w3_jumps, o.quick ? w3_quick_passes : w3_full_passes};
    const std::string params = "N=" + pow10_or_int(w3_timers) + " span=" + pow2_or_int(span);
    auto data = lazy_workload<tb::w3_sequence>(p, tb::derive_seed(o.seed, "W3 " + params),
                                               tb::make_w3_sequence, tb::run_w3<heap>);
    auto ref = [data]() -> const tb::run_result& { return data().reference; };
    const std::string unit = "ns per advance call";
    const std::string w = "W3 idle jumps";
    add_case(
        o, w, params, "heap", unit, [data] { return tb::run_w3<heap>(data().seq); }, ref);
    if (o.all_heaps) {
      add_case(
          o, w, params, "heap_nodekey", unit,
          [data] { return tb::run_w3<heap_nodekey>(data().seq); }, ref);
    }
    add_case(
        o, w, params, "wheel6", unit, [data] { return tb::run_w3<wheel6>(data().seq); }, ref);
    add_case(
        o, w, params, "wheel8", unit, [data] { return tb::run_w3<wheel8>(data().seq); }, ref);
  }
}

// ---------------------------------------------------------------------------------------------
// Collecting the figures: Google Benchmark's console output, plus the aggregates kept by name.

struct figures {
  double median = NAN;
  double min = NAN;
  double max = NAN;
};

class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  explicit collecting_reporter(bool color)
      : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.error_occurred) continue;
      const auto it = r.counters.find("ns_op");
      if (it == r.counters.end()) continue;
      figures& f = figures_[r.run_name.function_name];
      if (r.aggregate_name == "median") f.median = it->second.value;
      if (r.aggregate_name == "min") f.min = it->second.value;
      if (r.aggregate_name == "max") f.max = it->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  const figures* find(const std::string& name) const {
    const auto it = figures_.find(name);
    return it == figures_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, figures> figures_;
};

// ---------------------------------------------------------------------------------------------
// The table.

std::string read_first(const char* path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (key.empty()) return line;
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "unknown";
}

// The 1, 5 and 15 minute load averages.
std::string load_average() {
  std::string line = read_first("/proc/loadavg", "");
  std::size_t end = 0;
  for (int field = 0; field < 3 && end != std::string::npos; ++field) {
    end = line.find(' ', end == 0 ? 0 : end + 1);
  }
  return end == std::string::npos ? line : line.substr(0, end);
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __VERSION__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return __VERSION__;
#endif
}

std::string fmt(double v, int precision) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

struct row {
  const bench_case* c;
  figures f;
  double x_heap = NAN;
  double x_floor = NAN;
};

std::vector<row> make_rows(const collecting_reporter& rep) {
  std::vector<row> rows;
  std::map<std::string, double> heap_median, floor_median;
  for (const auto& c : g_cases) {
    const figures* f = rep.find(c->name);
    if (f == nullptr && !c->failed) continue;  // filtered out
    row r{c.get(), c->failed || f == nullptr ? figures{} : *f};
    rows.push_back(r);
    const std::string group = c->workload + c->params;
    if (c->structure == "heap") heap_median[group] = r.f.median;
    if (c->structure == "floor") floor_median[group] = r.f.median;
  }
  for (row& r : rows) {
    const std::string group = r.c->workload + r.c->params;
    if (const auto it = heap_median.find(group); it != heap_median.end()) {
      r.x_heap = r.f.median / it->second;
    }
    if (const auto it = floor_median.find(group); it != floor_median.end()) {
      r.x_floor = r.f.median / it->second;
    }
  }
  return rows;
}

double median_of(const std::vector<row>& rows, std::string_view workload, std::string_view params,
                 std::string_view structure) {
  for (const row& r : rows) {
    if (r.c->workload == workload && r.c->params == params && r.c->structure == structure) {
      return r.f.median;
    }
  }
  return NAN;
}

void print_table(std::ostream& os, const options& o, const std::vector<row>& rows) {
  std::string mode = o.quick ? "quick (W1 timed steps" : "full (W1 timed steps";
  for (const w1_size& z : w1_sizes) {
    mode += (&z == w1_sizes ? " " : " / ") + pow10_or_int(o.quick ? z.quick_steps : z.full_steps);
  }
  mode += " for the four sizes";
  os << "\n=== timerwheel benchmark ===\n"
     << "machine:  " << read_first("/proc/cpuinfo", "model name") << ", "
     << std::thread::hardware_concurrency() << " logical cores, load average " << load_average()
     << "\n"
     << "compiler: " << compiler() << "\n"
     << "flags:    " << TIMERWHEEL_BENCH_FLAGS << " (build type " << TIMERWHEEL_BENCH_BUILD_TYPE
     << ")\n"
     << "commit:   " << TIMERWHEEL_BENCH_COMMIT << "\n"
     << "seed:     " << o.seed << "\n"
     << "mode:     " << mode << ", after 10% more untimed warm-up steps; W3 "
     << pow10_or_int(w3_jumps) << " advance calls x "
     << (o.quick ? w3_quick_passes : w3_full_passes) << " passes per repetition; " << o.reps
     << " repetitions, " << (o.interleave ? "interleaved in random order" : "back to back") << ")\n"
     << "figures:  median over the repetitions, min and max; x heap / x floor: ratio of medians "
        "taken in this run\n"
     << "          W1: ns per step = one cancel+schedule pair on a random pending timer, with "
        "the 1-tick advance every "
     << tb::w1_steps_per_tick << " steps and the rescheduling of the timers it fired amortized in\n"
     << "          W3: ns per advance call; nodes: " << tb::node_bytes
     << "-byte cache-line-aligned objects holding the hook\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-16s %-13s %10s %10s %10s %8s %8s  %s\n", "workload",
                "size", "structure", "median ns", "min ns", "max ns", "x heap", "x floor",
                "status");
  os << line;
  std::string last_group;
  for (const row& r : rows) {
    const std::string group = r.c->workload + r.c->params;
    if (!last_group.empty() && group != last_group) os << "\n";
    last_group = group;
    std::snprintf(line, sizeof line, "%-14s %-16s %-13s %10s %10s %10s %8s %8s  %s\n",
                  r.c->workload.c_str(), r.c->params.c_str(), r.c->structure.c_str(),
                  fmt(r.f.median, 1).c_str(), fmt(r.f.min, 1).c_str(), fmt(r.f.max, 1).c_str(),
                  fmt(r.x_heap, 3).c_str(), fmt(r.x_floor, 2).c_str(),
                  r.c->failed ? ("FAILED: " + r.c->error).c_str() : "ok");
    os << line;
  }

  // The goals the design sets, read off the table.
  os << "\ngoals (ratios of medians in this run):\n";
  for (const char* w : {"wheel6", "wheel8"}) {
    for (const w1_size& z : w1_sizes) {
      if (z.timers != 1'000'000) continue;
      const std::string params = "N=1e6 R=" + pow2_or_int(z.range);
      const double x =
          median_of(rows, "W1 churn", params, w) / median_of(rows, "W1 churn", params, "heap");
      if (std::isnan(x)) continue;
      os << "  W1 " << params << " " << w << " / heap = " << fmt(x, 3)
         << " (goal <= 0.25: " << (x <= 0.25 ? "met" : "MISSED") << ")\n";
    }
    double per_span[2] = {NAN, NAN};
    for (int k = 0; k < 2; ++k) {
      const std::string params = "N=1e3 span=" + pow2_or_int(w3_spans[k]);
      per_span[k] = median_of(rows, "W3 idle jumps", params, w);
      const double x = per_span[k] / median_of(rows, "W3 idle jumps", params, "heap");
      if (std::isnan(x)) continue;
      os << "  W3 span=" << pow2_or_int(w3_spans[k]) << " " << w << " / heap = " << fmt(x, 3)
         << " (goal <= 2: " << (x <= 2 ? "met" : "MISSED") << ")\n";
    }
    if (!std::isnan(per_span[0]) && !std::isnan(per_span[1])) {
      os << "  W3 " << w << " span 2^40 / span 2^21 = " << fmt(per_span[0] / per_span[1], 3)
         << " (goal: the same cost for both spans, ~1)\n";
    }
  }
  if (g_failed) os << "\nSOME RUNS FAILED THEIR CHECKS (see FAILED above)\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

bool write_csv(const options& o, const std::vector<row>& rows, std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  path = (std::filesystem::path(o.out) / "latest.csv").string();
  std::ofstream out(path);
  if (!out) return false;
  out << "workload,size,structure,unit,median_ns,min_ns,max_ns,x_heap,x_floor,status,"
         "repetitions,mode,seed,commit,compiler,flags,cpu\n";
  const std::string common = std::to_string(o.reps) + "," + (o.quick ? "quick" : "full") + "," +
                             std::to_string(o.seed) + "," + csv_field(TIMERWHEEL_BENCH_COMMIT) +
                             "," + csv_field(compiler()) + "," + csv_field(TIMERWHEEL_BENCH_FLAGS) +
                             "," + csv_field(read_first("/proc/cpuinfo", "model name"));
  for (const row& r : rows) {
    out << csv_field(r.c->workload) << "," << csv_field(r.c->params) << "," << r.c->structure << ","
        << csv_field(r.c->unit) << "," << fmt(r.f.median, 2) << "," << fmt(r.f.min, 2) << ","
        << fmt(r.f.max, 2) << "," << fmt(r.x_heap, 4) << "," << fmt(r.x_floor, 4) << ","
        << (r.c->failed ? csv_field("FAILED: " + r.c->error) : "ok") << "," << common << "\n";
  }
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  // Interleaving the repetitions of all benchmarks spreads the noise of a shared machine over
  // every structure alike, which is what the ratios need. A later user flag overrides it.
  std::vector<char*> args(argv, argv + argc);
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  if (o.interleave) args.insert(args.begin() + 1, interleave.data());
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 2;

  register_all(o);
  std::cout << "seed " << o.seed << (o.quick ? ", quick mode" : ", full mode") << "\n";
  collecting_reporter reporter(isatty(STDOUT_FILENO) != 0);
  const std::size_t matched = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (matched == 0) return 2;  // the filter matched nothing: no figures to report

  const std::vector<row> rows = make_rows(reporter);
  print_table(std::cout, o, rows);
  std::string path;
  if (write_csv(o, rows, path)) {
    std::cout << "\nwrote " << path << "\n";
  } else {
    std::cerr << "could not write " << path << "\n";
    g_failed = true;
  }
  return g_failed ? 1 : 0;
}
