#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <thread>
#include <utility>

#ifndef TIMERWHEEL_BENCH_COMMIT
#define TIMERWHEEL_BENCH_COMMIT "unknown"
#endif
#ifndef TIMERWHEEL_BENCH_FLAGS
#define TIMERWHEEL_BENCH_FLAGS "unknown"
#endif
#ifndef TIMERWHEEL_BENCH_BUILD_TYPE
#define TIMERWHEEL_BENCH_BUILD_TYPE "unknown"
#endif

namespace timerwheel_bench {

void collecting_reporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : runs) {
    if (r.run_type != Run::RT_Aggregate || r.error_occurred) continue;
    for (const char* counter : {"ns_op", "ns_part"}) {
      const auto it = r.counters.find(counter);
      if (it == r.counters.end()) continue;
      figures& f = figures_[r.run_name.function_name +
                            (counter == std::string_view("ns_part") ? "#part" : "")];
      if (r.aggregate_name == "median") f.median = it->second.value;
      if (r.aggregate_name == "min") f.min = it->second.value;
      if (r.aggregate_name == "max") f.max = it->second.value;
    }
  }
  ConsoleReporter::ReportRuns(runs);
}

namespace {

namespace tb = timerwheel_bench;

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

// The node layout of this binary (bench/adapters/common.hpp): a word for the CSV, a line for the
// table's header.
std::string layout_tag() {
  return (tb::packed_layout ? "packed" : "line") + std::to_string(tb::node_bytes);
}
std::string layout_name() {
  const std::string bytes = std::to_string(tb::node_bytes);
  if (!tb::packed_layout) {
    return bytes +
           "-byte nodes: each timer's object (its hook and the payload) in a cache line "
           "of its own";
  }
  return "packed nodes: each timer's object (its hook and the 8-byte payload) in the smallest "
         "power of two that holds it, at most " +
         bytes + " bytes (the wheel's and most peers' 32, the indexed heaps' 16; the floor's " +
         std::to_string(sizeof(floor_node)) + ")";
}

std::string status_of(const bench_case& c) {
  if (c.primary && c.primary->failed) return "FAILED: " + c.primary->error;
  if (c.failed) return "FAILED: " + c.error;
  if (c.skipped) return "skipped (" + c.error + ")";
  return "ok";
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
    const figures* f =
        c->extra ? nullptr : rep.find(c->primary ? c->primary->name + "#part" : c->name);
    if (f == nullptr && !c->failed && !c->skipped && !c->extra) continue;  // filtered out
    row r{c.get(), c->failed || f == nullptr ? figures{} : *f};
    if (c->extra) r.f = figures{c->median, c->min, c->max};
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

// The median of `heap` in the faster of its two layouts in these rows, keyed or compact (a
// layout not run counts as slower).
double faster_heap_median(const std::vector<row>& rows, std::string_view workload,
                          std::string_view params, const std::string& heap) {
  const double keyed = median_of(rows, workload, params, heap);
  const double compact = median_of(rows, workload, params, heap + "_compact");
  return std::isnan(compact) ? keyed : std::fmin(keyed, compact);
}

bool is_paper(const row& r) { return r.c->workload.rfind("paper ", 0) == 0; }

void print_table(std::ostream& os, const options& o, const std::vector<row>& rows) {
  std::string mode = o.quick ? "quick (W1 timed steps" : "full (W1 timed steps";
  for (const w1_size& z : w1_sizes) {
    mode += (&z == w1_sizes ? " " : " / ") + pow10_or_int(o.quick ? z.quick_steps : z.full_steps);
  }
  mode += " for the " + std::to_string(std::size(w1_sizes)) + " sizes";
  if (o.quick) {
    mode +=
        "; quick subset: at N=1e6 only the wheels, heaps, pq_lazy and s7_hier (R=2^32: the "
        "wheels and the heap), W1 start/stop at N=1e5, W2 up to N=1e5, W6 at N=1e2, 1e4 and 1e6 "
        "(at 1e6: exp, bimodal and the trace, "
        "with the calendar and ladder queues and the pairing heap)";
  }
  os << "\n=== timerwheel benchmark ===\n"
     << "machine:  " << read_first("/proc/cpuinfo", "model name") << ", "
     << std::thread::hardware_concurrency() << " logical cores, load average " << load_average()
     << "\n"
     << "compiler: " << compiler() << "\n"
     << "flags:    " << TIMERWHEEL_BENCH_FLAGS << " (build type " << TIMERWHEEL_BENCH_BUILD_TYPE
     << ")\n"
     << "commit:   " << TIMERWHEEL_BENCH_COMMIT << "\n"
     << "cpu:      "
     << (o.cpu >= 0 ? "pinned to CPU " + std::to_string(o.cpu) + " (--cpu=N picks another)"
                    : std::string("not pinned"))
     << "\n"
     << "layout:   " << layout_name() << "\n"
     << "seed:     " << o.seed << "\n"
     << "mode:     " << mode << ", after 10% more untimed warm-up steps (W6: at least N holds); W3 "
     << pow10_or_int(w3_jumps) << " advance calls x "
     << (o.quick ? w3_quick_passes : w3_full_passes) << " passes per repetition; " << o.reps
     << " repetitions, " << (o.interleave ? "interleaved in random order" : "back to back") << ")\n"
     << "figures:  median over the repetitions, min and max; x heap / x floor: ratio of medians "
        "taken in this run\n"
     << "          times: the thread's CPU time over each timed region (W5's single advances and "
        "the paper table: the wall, steady_clock)\n"
     << "          W1: ns per step = one cancel+schedule pair on a random pending timer, with "
        "the 1-tick advance every "
     << tb::w1_steps_per_tick << " steps and the rescheduling of the timers it fired amortized in\n"
     << "          W1 start/stop: the same without advancing (event loops' real clocks); W2: ns "
        "per timer (expiry: schedule+fire; fire: the firing alone, same runs)\n"
     << "          W6: ns per hold; W4: bytes per pending timer, structure (object + allocations) "
        "+ hook, and the structure's fixed bytes alone; "
        "W5: ns of single 1-tick advances (one run)\n"
     << "          W3: ns per advance call\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-18s %-15s %10s %10s %10s %8s %8s  %s\n", "workload",
                "size", "structure", "median ns", "min ns", "max ns", "x heap", "x floor",
                "status");
  os << line;
  std::string last_group;
  for (const row& r : rows) {
    if (is_paper(r)) continue;
    const std::string group = r.c->workload + r.c->params;
    if (!last_group.empty() && group != last_group) os << "\n";
    last_group = group;
    std::snprintf(line, sizeof line, "%-14s %-18s %-15s %10s %10s %10s %8s %8s  %s\n",
                  r.c->workload.c_str(), r.c->params.c_str(), r.c->structure.c_str(),
                  fmt(r.f.median, 1).c_str(), fmt(r.f.min, 1).c_str(), fmt(r.f.max, 1).c_str(),
                  fmt(r.x_heap, 3).c_str(), fmt(r.x_floor, 2).c_str(), status_of(*r.c).c_str());
    os << line;
  }

  // The goals the design sets, read off the table.
  os << "\ngoals (ratios of medians in this run):\n";
  for (const char* w : {"wheel6", "wheel8"}) {
    for (const w1_size& z : w1_sizes) {
      if (z.timers != 1'000'000) continue;
      const std::string params = "N=1e6 R=" + pow2_or_int(z.range);
      const double x = median_of(rows, "W1 churn", params, w) /
                       faster_heap_median(rows, "W1 churn", params, "heap");
      if (std::isnan(x)) continue;
      os << "  W1 " << params << " " << w << " / heap (faster layout) = " << fmt(x, 3)
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
  // The other goals, for the default wheel.
  const auto goal = [&](const std::string& what, double x, double limit) {
    if (std::isnan(x)) return;
    os << "  " << what << " = " << fmt(x, 3) << " (goal <= " << fmt(limit, 2) << ": "
       << (x <= limit ? "met" : "MISSED") << ")\n";
  };
  const auto ratio = [&](const char* workload, const std::string& params, const char* a,
                         const char* b) {
    return median_of(rows, workload, params, a) / median_of(rows, workload, params, b);
  };
  const auto ratio_to_heap = [&](const char* workload, const std::string& params, const char* a,
                                 const std::string& heap) {
    return median_of(rows, workload, params, a) / faster_heap_median(rows, workload, params, heap);
  };
  for (const char* n : {"1e3", "1e5"}) {
    const std::string params = std::string("N=") + n + " R=2^20";
    goal("W1 " + params + " wheel6 / heap (faster layout)",
         ratio_to_heap("W1 churn", params, "wheel6", "heap"), 0.15);
  }
  for (const w1_size& z : w1_sizes) {
    if (z.range != (std::uint64_t{1} << 20)) continue;
    const std::string params = "N=" + pow10_or_int(z.timers) + " R=2^20";
    goal("W1 " + params + " wheel6 / hitime_scheme",
         ratio("W1 churn", params, "wheel6", "hitime_scheme"), 1);
  }
  for (const char* n : {"1e3", "1e5", "1e6"}) {
    for (const char* step : {"1", "R/1024"}) {
      const std::string params = std::string("N=") + n + " step=" + step;
      goal("W2 " + params + " wheel6 / heap4 (faster layout)",
           ratio_to_heap("W2 expiry", params, "wheel6", "heap4"), 1);
    }
  }
  // Per timer: a wheel's fixed slots (ccan/timer's too) are no cost of a timer; with them,
  // the figure above.
  goal("W4 N=1e6 wheel6 bytes per timer, less its fixed bytes",
       median_of(rows, "W4 memory", "N=1e6", "wheel6") -
           median_of(rows, "W4 memory", "fixed", "wheel6") / 1e6,
       24);
  goal("W4 N=1e6 timer_queue<void*> bytes per timer",
       median_of(rows, "W4 memory", "N=1e6", "timer_queue"), 40);
  for (const char* stat : {"p99.9", "max"}) {
    const std::string params = std::string("N=1e6 R=2^20 ") + stat;
    goal("W5 " + params + " wheel6 / heap", ratio("W5 tail", params, "wheel6", "heap"), 1);
  }
  // W6: at most half the heap from N = 1e4, and at or ahead of the simulators' event lists at
  // every N and increment distribution (rows not run are left out).
  for (const char* n : {"100", "1e3", "1e4", "1e5", "1e6"}) {
    for (const char* d : {"exp", "unif", "bimodal", "tri", "trace"}) {
      const std::string params = std::string("N=") + n + " " + d;
      if (n[1] == 'e' && n[2] >= '4')
        goal("W6 " + params + " wheel6 / heap (faster layout)",
             ratio_to_heap("W6 hold", params, "wheel6", "heap"), 0.5);
      for (const char* list : {"calendar", "ladder"})
        goal("W6 " + params + " wheel6 / " + list, ratio("W6 hold", params, "wheel6", list), 1);
    }
  }
  for (const char* peer : {"libevent", "libuv", "asio"}) {
    for (const char* n : {"1e5", "1e6"}) {
      const std::string params = std::string("N=") + n + " R=2^20";
      goal(std::string("W1 start/stop ") + params + " wheel6 / " + peer,
           ratio("W1 start/stop", params, "wheel6", peer), 0.1);
    }
  }
  if (g_failed) os << "\nSOME RUNS FAILED THEIR CHECKS (see FAILED above)\n";
}

// The paper table: per scheme and operation, the paper's claim and the median ns at each n.
void print_paper_table(std::ostream& os, const std::vector<row>& rows) {
  std::vector<std::string> ns;
  std::vector<std::pair<std::string, std::string>> keys;  // (structure, workload), in order
  std::map<std::pair<std::string, std::string>, std::map<std::string, const row*>> cells;
  for (const row& r : rows) {
    if (!is_paper(r)) continue;
    const std::pair<std::string, std::string> key{r.c->structure, r.c->workload};
    if (!cells.count(key)) keys.push_back(key);
    cells[key][r.c->params] = &r;
    if (std::find(ns.begin(), ns.end(), r.c->params) == ns.end()) ns.push_back(r.c->params);
  }
  if (keys.empty()) return;
  std::stable_sort(keys.begin(), keys.end());
  os << "\npaper table: ns per operation with n timers pending (deadlines uniform [now+1, "
        "now+2^16]; PER_TICK includes firing the ~n/2^16 timers due per tick); medians of 5 "
        "rounds\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-15s %-12s %-16s", "scheme", "operation", "paper's claim");
  os << line;
  for (const auto& n : ns) {
    std::snprintf(line, sizeof line, " %10s", n.c_str());
    os << line;
  }
  os << "\n";
  std::string last;
  for (const auto& key : keys) {
    const auto& m = cells[key];
    const row* any = m.begin()->second;
    const std::string claim = any->c->unit.substr(any->c->unit.find("paper: ") + 7);
    std::snprintf(line, sizeof line, "%-15s %-12s %-16s",
                  key.first == last ? "" : key.first.c_str(), key.second.substr(6).c_str(),
                  claim.c_str());
    last = key.first;
    os << line;
    for (const auto& n : ns) {
      const auto it = m.find(n);
      std::string v = it == m.end() ? "-" : fmt(it->second->f.median, 1);
      if (it != m.end() && it->second->c->failed) v = "FAILED";
      std::snprintf(line, sizeof line, " %10s", v.c_str());
      os << line;
    }
    os << "\n";
  }
}

// N out of "N=1e6 ..." or "N=100 ...".
double parse_n(const std::string& params) {
  if (params.rfind("N=", 0) != 0) return NAN;
  return std::strtod(params.c_str() + 2, nullptr);
}

// The data of the log-log plots (bench/plot.sh): per workload, one block per structure of
// (N, median ns), its name as the block's header.
void write_plot_data(const options& o, const std::vector<row>& rows) {
  struct series {
    const char* file;
    const char* workload;
    const char* suffix;  // what params must end with
  };
  const series all[] = {{"w1", "W1 churn", " R=2^20"},         {"w2", "W2 expiry", " step=R/1024"},
                        {"w2fire", "W2 fire", " step=R/1024"}, {"w6", "W6 hold", " exp"},
                        {"w6unif", "W6 hold", " unif"},        {"w6bimodal", "W6 hold", " bimodal"},
                        {"w6tri", "W6 hold", " tri"},          {"w6trace", "W6 hold", " trace"},
                        {"w1ss", "W1 start/stop", " R=2^20"}};
  const std::filesystem::path dir = std::filesystem::path(o.out) / "plots" / "data";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const series& s : all) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::pair<double, double>>> points;
    for (const row& r : rows) {
      const std::string& p = r.c->params;
      const std::string suffix = s.suffix;
      if (r.c->workload != s.workload || p.size() < suffix.size() ||
          p.compare(p.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      if (r.c->failed || r.c->skipped || std::isnan(r.f.median)) continue;
      if (!points.count(r.c->structure)) order.push_back(r.c->structure);
      points[r.c->structure].emplace_back(parse_n(p), r.f.median);
    }
    std::ofstream out(dir / (std::string(s.file) + ".dat"));
    for (const auto& name : order) {
      out << "\"" << name << "\"\n";
      auto& v = points[name];
      std::sort(v.begin(), v.end());
      for (const auto& [n, ns] : v) out << n << " " << ns << "\n";
      out << "\n\n";
    }
  }
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
         "layout,node_bytes,repetitions,mode,seed,commit,compiler,flags,cpu\n";
  const std::string common = std::to_string(o.reps) + "," + (o.quick ? "quick" : "full") + "," +
                             std::to_string(o.seed) + "," + csv_field(TIMERWHEEL_BENCH_COMMIT) +
                             "," + csv_field(compiler()) + "," + csv_field(TIMERWHEEL_BENCH_FLAGS) +
                             "," + csv_field(read_first("/proc/cpuinfo", "model name"));
  for (const row& r : rows) {
    out << csv_field(r.c->workload) << "," << csv_field(r.c->params) << "," << r.c->structure << ","
        << csv_field(r.c->unit) << "," << fmt(r.f.median, 2) << "," << fmt(r.f.min, 2) << ","
        << fmt(r.f.max, 2) << "," << fmt(r.x_heap, 4) << "," << fmt(r.x_floor, 4) << ","
        << csv_field(status_of(*r.c)) << "," << layout_tag() << ","
        << (r.c->node_size != 0 ? std::to_string(r.c->node_size) : "") << "," << common << "\n";
  }
  return static_cast<bool>(out);
}

}  // namespace

bool report(const options& o, const collecting_reporter& reporter) {
  const std::vector<row> rows = make_rows(reporter);
  print_table(std::cout, o, rows);
  print_paper_table(std::cout, rows);
  write_plot_data(o, rows);
  std::string path;
  if (!write_csv(o, rows, path)) {
    std::cerr << "could not write " << path << "\n";
    return false;
  }
  std::cout << "\nwrote " << path << "\n";
  return true;
}

}  // namespace timerwheel_bench
