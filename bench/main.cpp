// timerwheel_bench: the standard workloads (docs/workloads.md) on the wheel (6- and 8-bit levels),
// the seven reference schemes of Varghese & Lauck, and the peers: the indexed binary heap every
// ratio is taken against, an indexed 4-ary heap (libev's), std::priority_queue with lazy
// deletion, std::multiset, Boost.Heap's d_ary_heap and pairing_heap, and (W1 start/stop only)
// libevent, libuv and Boost.Asio timers through their own APIs; plus the W1 floors (the floor, and
// the list floor of any structure on doubly linked lists). timerwheel_bench_packed is the same
// program with 32-byte nodes instead of 64 (see adapters/common.hpp); a structure whose node does
// not fit 32 bytes is left out of its runs.
//
// Files: this one (options, registering the cases, main), cases.hpp (what the parts share),
// adapters/*.hpp (one adapter per structure, on shared bases; checks.hpp holds the compile-time
// checks of every adapter), workloads/*.hpp (W1-W6),
// extras.hpp (W4, W5 and the paper table, measured outside Google Benchmark), report.cpp (the
// tables, CSV and plot data), plot.sh (gnuplot), callgrind.cpp + callgrind.sh (instruction counts).
//
// Usage: timerwheel_bench [--quick] [--reps=N] [--seed=N] [--out=DIR] [--all-heaps]
//                         [--no-interleave] [--no-extras] [--cpu=N] [benchmark flags...]
//   --quick          fewer steps and sizes (the whole run stays under 2 minutes on 2 cores)
//   --reps=N         repetitions per benchmark (default 5); figures are medians
//   --seed=N         seed of every workload's sequence (default 42; printed)
//   --out=DIR        where latest.csv and plots/data go (default results)
//   --all-heaps      also run the heap variant that reads its keys through the nodes
//   --no-interleave  run each benchmark's repetitions back to back instead of interleaving
//                    the repetitions of all benchmarks in random order
//   --no-extras      skip W4 memory, W5 tail and the paper table
//   --cpu=N          pin the run to CPU N (default: the CPU it starts on)
// Every other argument goes to Google Benchmark (--benchmark_filter=W1 ...).
//
// After Google Benchmark's own output it prints a table (and writes it as CSV): per workload
// and size, the median ns per operation over the repetitions, the min and max, and the ratio
// to the heap (and, for W1, to the floor) measured in the same run; a structure left out at a
// size where it is hopeless is listed as skipped, with the reason. Then the paper table. Exit
// status 1 if any run failed its checks.

#include <algorithm>
#include <bit>
#include <charconv>
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
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <vector>

#include <benchmark/benchmark.h>

#if TIMERWHEEL_BENCH_PEERS
#include "adapters/boost_heaps.hpp"
#include "adapters/event_loops.hpp"
#endif
#include "adapters/checks.hpp"
#include "adapters/heaps.hpp"
#include "adapters/hitime_scheme.hpp"
#include "adapters/keyed.hpp"
#include "adapters/lazy_pq.hpp"
#include "adapters/reference.hpp"
#include "adapters/wheel.hpp"
#if TIMERWHEEL_BENCH_C
#include "adapters/c_api.hpp"
#endif
#include "cases.hpp"
#include "extras.hpp"
#include "report.hpp"
#include "workloads.hpp"

namespace tb = timerwheel_bench;

namespace {

using tb::bench_case;
using tb::g_cases;
using tb::g_failed;
using tb::heap;
using tb::heap_nodekey;
using tb::options;
using tb::pow10_or_int;
using tb::pow2_or_int;
using tb::w1_size;
using tb::w1_sizes;
using tb::w2_quick_max;
using tb::w2_range;
using tb::w2_sizes;
using tb::w3_full_passes;
using tb::w3_jumps;
using tb::w3_quick_passes;
using tb::w3_spans;
using tb::w3_timers;
using tb::w6_full_holds;
using tb::w6_quick_holds;
using tb::w6_sizes;
using tb::wheel6;
using tb::wheel8;

template <class... A>
struct type_list {};
// Every structure the workloads run on, the baseline first.
// Boost.Heap, libevent and libuv are optional (TIMERWHEEL_BENCH_PEERS: scripts/bench.sh
// installs them); without them those rows are left out.
#if TIMERWHEEL_BENCH_PEERS
using compared =
    type_list<heap, wheel6, wheel8, tb::heap4, tb::lazy_pq, tb::multiset, tb::boost_dary,
              tb::boost_pairing, tb::unordered_list, tb::ordered_list, tb::ref_binary_heap,
              tb::basic_wheel, tb::hashed_sorted, tb::hashed_unordered, tb::hierarchical>;
using start_stop_compared =
    type_list<tb::as_start_stop<heap>, tb::as_start_stop<wheel6>, tb::as_start_stop<wheel8>,
              tb::as_start_stop<tb::heap4>, tb::libevent_timers, tb::libuv_timers, tb::asio_timers>;
#else
using compared =
    type_list<heap, wheel6, wheel8, tb::heap4, tb::lazy_pq, tb::multiset, tb::unordered_list,
              tb::ordered_list, tb::ref_binary_heap, tb::basic_wheel, tb::hashed_sorted,
              tb::hashed_unordered, tb::hierarchical>;
using start_stop_compared = type_list<tb::as_start_stop<heap>, tb::as_start_stop<wheel6>,
                                      tb::as_start_stop<wheel8>, tb::as_start_stop<tb::heap4>>;
#endif

// The heaps in their compact layout (16-byte entries, the sequence number in the node): faster
// than the keyed ones where deadlines seldom tie (churn), slower where they often do (W2 at a
// million timers). They run beside the keyed heaps wherever the goals read a heap, and the
// report takes each goal against the faster of the two (bench/indexed_binary_heap.hpp). W1 and
// W2 run HiTime's scheme beside them too (W6 needs exact order, which it does not keep).
using compact_heaps = type_list<tb::heap_compact, tb::heap4_compact>;
using beside_compared = type_list<tb::hitime_scheme, tb::heap_compact, tb::heap4_compact>;

#if TIMERWHEEL_BENCH_C
// The C face (bench/adapters/c_api.hpp), at N = 1e5 in W1 and W2, with its two floors: c_bare
// (the calls without the C API's checks) and c_call_floor (empty calls beside the C++ wheel).
using c_face = type_list<tb::c_api_adapter, tb::ccan_timer_adapter, tb::hitime_adapter,
                         tb::c_bare_adapter, tb::c_call_floor_adapter>;
#endif

// ---------------------------------------------------------------------------------------------
// Options.

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
    } else if (arg.rfind("--benchmark_list_tests", 0) == 0 &&
               arg != "--benchmark_list_tests=false") {
      o.list_only = true;
      argv[kept++] = argv[i];
    } else if (arg == "--no-extras") {
      o.extras = false;
    } else if (arg == "--no-interleave") {
      o.interleave = false;
    } else if (take_value(arg, "--reps", v)) {
      o.reps = std::max(2, std::atoi(v.c_str()));
    } else if (take_value(arg, "--seed", v)) {
      o.seed = std::strtoull(v.c_str(), nullptr, 0);
    } else if (take_value(arg, "--out", v)) {
      o.out = v;
    } else if (take_value(arg, "--cpu", v)) {
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), o.cpu);
      if (ec != std::errc{} || end != v.data() + v.size() || o.cpu < 0) {
        std::cerr << "timerwheel_bench: --cpu wants a CPU number, got '" << v << "'\n";
        std::exit(2);
      }
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "timerwheel_bench [--quick] [--reps=N] [--seed=N] [--out=DIR] [--all-heaps]\n"
                   "                 [--no-interleave] [benchmark flags...]\n"
                   "  --quick          fewer W1 steps: the whole run stays under 2 minutes\n"
                   "  --reps=N         repetitions per benchmark (default 5); figures are medians\n"
                   "  --seed=N         seed of every workload's sequence (default 42)\n"
                   "  --out=DIR        directory of latest.csv (default results)\n"
                   "  --all-heaps      also run the heap that reads its keys through the nodes\n"
                   "  --no-interleave  run each benchmark's repetitions back to back\n"
                   "  --no-extras      skip W4 memory, W5 tail and the paper table\n"
                   "  --cpu=N          pin the run to CPU N (default: the CPU it starts on)\n\n"
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

// What every run of a workload must reproduce: the fired count and checksum of an untimed run
// of the heap (exact by construction, and checked), or for the floors (which fire nothing and sum
// the deadlines they replace) the first run of either.
struct reference {
  std::uint64_t fired;
  std::uint64_t checksum;
  std::string structure;
};
std::map<std::string, reference> g_floor_reference;

std::string check_reference(const bench_case& c, const tb::run_result& r) {
  reference ref{};
  if (c.structure == "floor" || c.structure == "list_floor") {
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
  if (r.part_seconds >= 0) {
    state.counters["ns_part"] = r.part_seconds * 1e9 / static_cast<double>(r.ops);
  }
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
  std::string name = c->workload + "/" + c->params + "/" + c->structure;
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

std::size_t round_steps(std::size_t steps) {
  return std::max<std::size_t>(tb::w1_steps_per_tick,
                               steps / tb::w1_steps_per_tick * tb::w1_steps_per_tick);
}

// Why A is not run at `timers` timers with deadlines `range` ahead (empty: it is run).
enum class shape { plain, sweep, tick_sweep, hold };

template <class A>
std::string skip_reason(std::size_t timers, std::uint64_t range, shape sh = shape::plain) {
  constexpr tb::limits l = tb::limits_of<A>();
  const bool tick_steps = sh == shape::tick_sweep;
  std::string why;
  if ((sh == shape::sweep || sh == shape::tick_sweep) && timers > l.max_timers_sweep) {
    why = "sweeping the range beyond N=" + pow10_or_int(l.max_timers_sweep);
  }
  if (sh == shape::hold && timers > l.max_timers_hold) {
    why = "holds beyond N=" + pow10_or_int(l.max_timers_hold);
  }
  if (timers > l.max_timers) why = "beyond N=" + pow10_or_int(l.max_timers);
  if (range > l.max_range) why = "beyond R=" + pow2_or_int(l.max_range);
  if (tick_steps && timers > l.max_timers_tick_steps) {
    why = l.max_timers_tick_steps == 0
              ? "1-tick steps"
              : "1-tick steps beyond N=" + pow10_or_int(l.max_timers_tick_steps);
  }
  if (!why.empty()) return why + ": " + l.why;
  if constexpr (!tb::fits_layout<A>()) {
    return "a node of " + std::to_string(tb::node_size_of<A>()) + " bytes: its " +
           std::to_string(A::hook_bytes) + "-byte hook and the payload do not fit this layout's " +
           std::to_string(tb::node_bytes);
  }
  return why;
}

void add_skipped(std::string workload, std::string params, std::string structure, std::string why) {
  auto c = std::make_unique<bench_case>();
  c->workload = std::move(workload);
  c->params = std::move(params);
  c->structure = std::move(structure);
  c->skipped = true;
  c->error = std::move(why);
  g_cases.push_back(std::move(c));
}

// Quick mode runs only these at N >= 1e6 (where a run of every structure costs seconds).
constexpr std::size_t quick_core_from = 1'000'000;
bool in_quick_core(std::string_view name) {
  for (const std::string_view core :
       {"heap", "wheel6", "wheel8", "heap4", "heap_compact", "heap4_compact", "pq_lazy", "s7_hier",
        "libevent", "libuv", "asio", "hitime_scheme"}) {
    if (name == core) return true;
  }
  return false;
}

// Registers workload `w` at `params` for every structure of the list that is not hopeless
// there. run: a generic lambda called as run.template operator()<A>(seq).
template <class Seq, class Data, class Run, class... A>
void add_structures(const options& o, type_list<A...>, const std::string& w,
                    const std::string& params, const std::string& unit, Data data, Run run,
                    std::size_t timers, std::uint64_t range, shape sh = shape::plain) {
  auto ref = [data]() -> const tb::run_result& { return data().reference; };
  (
      [&] {
        std::string why = skip_reason<A>(timers, range, sh);
        // (W6 at 1e6 in quick mode runs the pairing heap too: its goals name it.)
        const bool w6_core = w == "W6 hold" && std::string_view(A::name) == "boost_pairing";
        if (why.empty() && o.quick && timers >= quick_core_from && !in_quick_core(A::name) &&
            !w6_core) {
          why = "quick mode: --full runs it";
        }
        if (!why.empty()) {
          add_skipped(w, params, A::name, why);
          return;
        }
        std::function<const tb::run_result&()> reference = ref;
        if constexpr (!tb::exact_order_of<A>()) {
          // Its order differs from the heap's by design (and in W1 so do the deadlines drawn
          // after it): its fired sequence is compared with its own first, untimed run.
          auto own = std::make_shared<std::optional<tb::run_result>>();
          reference = [data, run, own]() -> const tb::run_result& {
            if (!*own) *own = run.template operator()<A>(data().seq);
            return **own;
          };
        }
        add_case(
            o, w, params, A::name, unit,
            [data, run] { return run.template operator()<A>(data().seq); }, reference);
        g_cases.back()->node_size = tb::node_size_of<A>();
      }(),
      ...);
}

// The W1 floors beside a W1 case's structures: the floor and the list floor
// (workloads/w1.hpp), checked against each other's sums.
template <class Data>
void add_w1_floors(const options& o, const std::string& w, const std::string& params,
                   const std::string& unit, const Data& data) {
  auto ref = [data]() -> const tb::run_result& { return data().reference; };
  add_case(
      o, w, params, "floor", unit, [data] { return tb::run_w1_floor(data().seq); }, ref);
  g_cases.back()->node_size = sizeof(tb::floor_node);
  add_case(
      o, w, params, "list_floor", unit, [data] { return tb::run_w1_list_floor(data().seq); }, ref);
  g_cases.back()->node_size = sizeof(tb::list_floor_node);
}

void register_all(const options& o) {
  const auto w1_run = []<class A>(const tb::w1_sequence& s) { return tb::run_w1<A>(s); };
  for (const w1_size& z : w1_sizes) {
    tb::w1_params p{};
    p.timers = z.timers;
    p.range = z.range;
    p.timed_steps = round_steps(o.quick ? z.quick_steps : z.full_steps);
    p.warm_steps = round_steps(p.timed_steps / 10);
    const std::string params = "N=" + pow10_or_int(z.timers) + " R=" + pow2_or_int(z.range);
    auto data = lazy_workload<tb::w1_sequence>(p, tb::derive_seed(o.seed, "W1 " + params),
                                               tb::make_w1_sequence, tb::run_w1<heap>);
    const std::string unit = "ns per cancel+schedule pair";
    const std::string w = "W1 churn";
    if (o.quick && z.range > (std::uint64_t{1} << 20)) {
      // Quick mode: R = 2^32 for the wheel and the baseline only.
      add_structures<tb::w1_sequence>(o, type_list<heap, wheel6, wheel8>{}, w, params, unit, data,
                                      w1_run, z.timers, z.range);
    } else {
      add_structures<tb::w1_sequence>(o, compared{}, w, params, unit, data, w1_run, z.timers,
                                      z.range);
    }
    if (o.all_heaps) {
      add_structures<tb::w1_sequence>(o, type_list<heap_nodekey>{}, w, params, unit, data, w1_run,
                                      z.timers, z.range);
    }
    add_structures<tb::w1_sequence>(o, beside_compared{}, w, params, unit, data, w1_run, z.timers,
                                    z.range);
#if TIMERWHEEL_BENCH_C
    // The C face at N = 1e5: the C API and the two drop-ins on it, beside wheel6.
    if (z.timers == 100'000) {
      add_structures<tb::w1_sequence>(o, c_face{}, w, params, unit, data, w1_run, z.timers,
                                      z.range);
    }
#endif
    add_w1_floors(o, w, params, unit, data);
  }

  // W1 over a whole period: the same churn, timed while now crosses a whole slot of level 3
  // (2^18 ticks at 100 steps a tick), the widest level R = 2^20 reaches. W1's short window above
  // sees only the start of such a slot; the last quarter of one, where the wheel diverts the next
  // slot and a quarter of the schedules land in it, is in every long-running program's steady
  // state (docs/workloads.md).
  for (const std::size_t timers : {std::size_t{1'000}, std::size_t{100'000}}) {
    tb::w1_params p{};
    p.timers = timers;
    p.range = std::uint64_t{1} << 20;
    p.timed_steps = (std::size_t{1} << 18) * tb::w1_steps_per_tick;
    p.warm_steps = round_steps(p.timed_steps / 10);
    const std::string params = "N=" + pow10_or_int(timers) + " R=" + pow2_or_int(p.range);
    auto data = lazy_workload<tb::w1_sequence>(p, tb::derive_seed(o.seed, "W1 period " + params),
                                               tb::make_w1_sequence, tb::run_w1<heap>);
    const std::string unit = "ns per cancel+schedule pair";
    const std::string w = "W1 period";
    add_structures<tb::w1_sequence>(o, type_list<heap, wheel6, tb::heap4>{}, w, params, unit, data,
                                    w1_run, timers, p.range);
    add_structures<tb::w1_sequence>(o, beside_compared{}, w, params, unit, data, w1_run, timers,
                                    p.range);
    add_w1_floors(o, w, params, unit, data);
  }

  // W1 start/stop: the event loops through their own APIs, beside the fastest structures.
  for (const w1_size& z : w1_sizes) {
    if (z.range != (std::uint64_t{1} << 20) || (o.quick && z.timers != 100'000)) continue;
    tb::w1_params p{};
    p.timers = z.timers;
    p.range = z.range;
    p.timed_steps = round_steps((o.quick ? z.quick_steps : z.full_steps) / 2);
    p.warm_steps = round_steps(p.timed_steps / 10);
    const std::string params = "N=" + pow10_or_int(z.timers) + " R=" + pow2_or_int(z.range);
    auto data = lazy_workload<tb::w1_sequence>(p, tb::derive_seed(o.seed, "W1ss " + params),
                                               tb::make_w1_sequence,
                                               tb::run_startstop<tb::as_start_stop<heap>>);
    const auto run = []<class S>(const tb::w1_sequence& s) { return tb::run_startstop<S>(s); };
    add_structures<tb::w1_sequence>(o, start_stop_compared{}, "W1 start/stop", params,
                                    "ns per stop+start pair, no advance", data, run, z.timers,
                                    z.range);
  }

  // W2 expiry.
  const auto w2_run = []<class A>(const tb::w2_sequence& s) { return tb::run_w2<A>(s); };
  for (const std::size_t n : w2_sizes) {
    if (o.quick && n > w2_quick_max) continue;
    for (const std::uint64_t step : {std::uint64_t{1}, w2_range / 1024}) {
      if (o.quick && step == 1 && n != 100'000) continue;
      const tb::w2_params p{n, w2_range, step};
      const std::string params = "N=" + pow10_or_int(n) + " step=" + (step == 1 ? "1" : "R/1024");
      auto data = lazy_workload<tb::w2_sequence>(p, tb::derive_seed(o.seed, "W2 " + params),
                                                 tb::make_w2_sequence, tb::run_w2<heap>);
      const std::size_t first = g_cases.size();
      add_structures<tb::w2_sequence>(o, compared{}, "W2 expiry", params,
                                      "ns per timer, schedule+fire", data, w2_run, n, w2_range,
                                      step == 1 ? shape::tick_sweep : shape::sweep);
      add_structures<tb::w2_sequence>(o, beside_compared{}, "W2 expiry", params,
                                      "ns per timer, schedule+fire", data, w2_run, n, w2_range,
                                      step == 1 ? shape::tick_sweep : shape::sweep);
#if TIMERWHEEL_BENCH_C
      if (n == 100'000) {
        add_structures<tb::w2_sequence>(o, c_face{}, "W2 expiry", params,
                                        "ns per timer, schedule+fire", data, w2_run, n, w2_range,
                                        step == 1 ? shape::tick_sweep : shape::sweep);
      }
#endif
      // The firing alone: the same runs' second clock window.
      for (std::size_t k = first, end = g_cases.size(); k < end; ++k) {
        const bench_case& e = *g_cases[k];
        auto c = std::make_unique<bench_case>();
        c->workload = "W2 fire";
        c->params = e.params;
        c->structure = e.structure;
        c->unit = "ns per timer, firing alone";
        c->node_size = e.node_size;
        c->skipped = e.skipped;
        c->error = e.error;
        if (!e.skipped) c->primary = &e;
        g_cases.push_back(std::move(c));
      }
    }
  }

  for (const std::uint64_t span : w3_spans) {
    const tb::w3_params p{w3_timers, span, w3_jumps, o.quick ? w3_quick_passes : w3_full_passes};
    const std::string params = "N=" + pow10_or_int(w3_timers) + " span=" + pow2_or_int(span);
    auto data = lazy_workload<tb::w3_sequence>(p, tb::derive_seed(o.seed, "W3 " + params),
                                               tb::make_w3_sequence, tb::run_w3<heap>);
    const auto run = []<class A>(const tb::w3_sequence& s) { return tb::run_w3<A>(s); };
    add_structures<tb::w3_sequence>(o, type_list<heap, wheel6, wheel8, tb::heap4>{},
                                    "W3 idle jumps", params, "ns per advance call", data, run,
                                    w3_timers, span);
  }

  // W6 hold: every increment distribution and the packet-link trace, on the compared
  // structures and the event lists of simulators (calendar and ladder queues). Quick mode: N =
  // 1e2, 1e4 and 1e6; at 1e6 the core structures, the event lists and the pairing heap, on
  // three of the five distributions (--full: every N from 1e2 to 1e6, every distribution).
  // The goals: the wheel at or ahead of the calendar and ladder queues everywhere, and at most
  // 0.5x the binary heap at N >= 1e4 (docs/workloads.md, W6).
  const auto w6_run = []<class A>(const tb::w6_sequence& s) { return tb::run_w6<A>(s); };
  using event_lists = type_list<tb::calendar, tb::ladder>;
  const std::span<const std::size_t> w6_ns = o.quick
                                                 ? std::span<const std::size_t>(tb::w6_quick_sizes)
                                                 : std::span<const std::size_t>(w6_sizes);
  for (const std::size_t n : w6_ns) {
    for (const tb::w6_dist d :
         {tb::w6_dist::exponential, tb::w6_dist::uniform, tb::w6_dist::bimodal,
          tb::w6_dist::triangular, tb::w6_dist::trace}) {
      if (o.quick && n >= quick_core_from &&
          (d == tb::w6_dist::uniform || d == tb::w6_dist::triangular))
        continue;
      const std::size_t holds = o.quick ? w6_quick_holds : w6_full_holds;
      // Warmed up by at least N holds, every event held once on average: the hold model's
      // steady state, and for a wheel past the start of its first coarse slots (at 1e6 the
      // quick run's holds span only some 200 ticks of simulated time).
      const tb::w6_params p{n, d, holds, std::max(holds / 10, n)};
      const std::string params = "N=" + pow10_or_int(n) + " " + tb::w6_dist_name(d);
      auto data = lazy_workload<tb::w6_sequence>(p, tb::derive_seed(o.seed, "W6 " + params),
                                                 tb::make_w6_sequence, tb::run_w6<heap>);
      add_structures<tb::w6_sequence>(o, compared{}, "W6 hold", params, "ns per hold", data, w6_run,
                                      n, 1 << 20, shape::hold);
      add_structures<tb::w6_sequence>(o, compact_heaps{}, "W6 hold", params, "ns per hold", data,
                                      w6_run, n, 1 << 20, shape::hold);
      // The event lists, at every N in quick mode too.
      options all = o;
      all.quick = false;
      add_structures<tb::w6_sequence>(all, event_lists{}, "W6 hold", params, "ns per hold", data,
                                      w6_run, n, 1 << 20, shape::hold);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The figures measured outside Google Benchmark (bench/extras.hpp), as rows of the same table.

void add_extra(const tb::extra_row& e) {
  auto c = std::make_unique<bench_case>();
  c->workload = e.workload;
  c->params = e.params;
  c->structure = e.structure;
  c->unit = e.unit;
  c->extra = true;
  c->median = e.median;
  c->min = e.min;
  c->max = e.max;
  if (!e.skipped.empty()) {
    c->median = c->min = c->max = NAN;
    c->skipped = true;
    c->error = e.skipped;
  } else if (!e.error.empty()) {
    c->failed = true;
    c->error = e.error;
    g_failed = true;
    std::cerr << "FAILED " << e.workload << " " << e.params << " " << e.structure << ": " << e.error
              << "\n";
  }
  g_cases.push_back(std::move(c));
}

template <class... A, class F>
void for_each_type(type_list<A...>, F f) {
  (f.template operator()<A>(), ...);
}

// W5: the structures that are not hopeless at N = 1e6 and 1-tick advances.
using tail_compared =
    type_list<heap, wheel6, wheel8, tb::heap4, tb::lazy_pq, tb::ref_binary_heap, tb::hierarchical>;
using paper_schemes =
    type_list<tb::unordered_list, tb::ordered_list, tb::ref_binary_heap, tb::basic_wheel,
              tb::hashed_sorted, tb::hashed_unordered, tb::hierarchical, wheel6>;
constexpr std::size_t paper_sizes[] = {100, 1'000, 10'000, 100'000};

void run_extras(const options& o) {
  std::cout << "\nW4 memory, W5 tail (" << o.reps << " rounds) and the paper table...\n"
            << std::flush;
  {
    const std::uint64_t range = std::uint64_t{1} << 20;
    tb::xoshiro256ss rng(tb::derive_seed(o.seed, "W4"));
    std::vector<std::uint64_t> d(1'000'000);
    for (auto& x : d) x = rng.uniform(1, range);
    for_each_type(compared{}, [&]<class A>() {
      for (const tb::extra_row& r : tb::w4_rows<A>(d, range, "N=1e6")) add_extra(r);
    });
    add_extra(tb::w4_timer_queue_row(d, "N=1e6"));
  }
  {
    tb::w1_params p{};
    p.timers = 1'000'000;
    p.range = std::uint64_t{1} << 20;
    p.timed_steps = o.quick ? 1'000'000 : 10'000'000;
    p.warm_steps = p.timed_steps / 10;
    const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(o.seed, "W5"));
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(o.out) / "plots" / "data", ec);
    std::ofstream ccdf(std::filesystem::path(o.out) / "plots" / "data" / "w5.dat");
    // Repetitions in rounds over every structure, as the benchmarks interleave theirs.
    // A structure whose node does not fit this layout is left out (see skip_reason).
    std::vector<std::string> names;
    for_each_type(tail_compared{}, [&]<class A>() {
      if constexpr (tb::fits_layout<A>()) names.emplace_back(A::name);
    });
    std::vector<std::vector<tb::tail_result>> runs(names.size());
    for (int round = 0; round < o.reps; ++round) {
      std::size_t k = 0;
      for_each_type(tail_compared{}, [&]<class A>() {
        if constexpr (tb::fits_layout<A>()) runs[k++].push_back(tb::run_w5<A>(s));
      });
    }
    std::vector<tb::extra_row> rows;
    for (std::size_t k = 0; k < names.size(); ++k) {
      const tb::w5_output w = tb::w5_rows(runs[k], "N=1e6 R=2^20", names[k]);
      rows.insert(rows.end(), w.rows.begin(), w.rows.end());
      ccdf << "\"" << names[k] << "\"\n";
      for (const auto& [ns, frac] : w.ccdf) ccdf << ns << " " << frac << "\n";
      ccdf << "\n\n";
    }
    // One group per statistic, so that the ratios to the heap line up.
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.params < b.params; });
    for (const auto& r : rows) add_extra(r);
  }
  for (const std::size_t n : paper_sizes) {
    for_each_type(paper_schemes{}, [&]<class A>() {
      if constexpr (tb::fits_layout<A>()) {
        for (const auto& r : tb::paper_rows<A>(n, tb::derive_seed(o.seed, "paper"), o.quick)) {
          add_extra(r);
        }
      }
    });
  }
}

// Pins the process to `cpu`, or where that is -1 to the CPU it runs on now, so that every
// repetition of a run runs on one core: the two vCPUs of a virtual machine can sit on host cores
// whose memory latency differs by 2x, which moves the structures that walk lists and not those
// whose misses overlap; a thread that moved between them mid-run timed some repetitions on one
// core and some on the other.
// Returns the CPU pinned to; -1 where pinning failed (the run goes on unpinned).
int pin_to_cpu(int cpu) {
#if defined(__linux__)
  if (cpu < 0) cpu = sched_getcpu();
  if (cpu < 0) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) return -1;
  return cpu;
#else
  (void)cpu;
  return -1;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  options o = parse_options(argc, argv);
  if (!o.list_only) {
    const int asked = o.cpu;
    o.cpu = pin_to_cpu(asked);
    if (asked >= 0 && o.cpu != asked) {
      std::cerr << "timerwheel_bench: cannot pin the run to CPU " << asked << "\n";
      return 2;
    }
  }
#if defined(__GLIBC__)
  // Every repetition builds its nodes afresh: tens of MB at 1e6 timers. glibc maps blocks that
  // large and unmaps them when freed, so each repetition page-faulted all of its nodes in again
  // (a tenth of a quick run's time on a virtual machine). Served from the heap and kept there,
  // freed blocks are reused; the timed loops never touch fresh pages either way.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  // Interleaving the repetitions of all benchmarks spreads the noise of a shared machine over
  // every structure alike, which is what the ratios need. A later user flag overrides it.
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  std::vector<char*> args;
  args.reserve(static_cast<std::size_t>(argc) + 1);
  args.push_back(argv[0]);
  if (o.interleave) args.push_back(interleave.data());
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 2;

  register_all(o);
  std::cout << "seed " << o.seed << (o.quick ? ", quick mode" : ", full mode") << "\n";
  tb::collecting_reporter reporter(isatty(STDOUT_FILENO) != 0);
  const std::size_t matched = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (matched == 0) return 2;  // the filter matched nothing: no figures to report
  if (o.list_only) return 0;
  if (o.extras) run_extras(o);

  if (!tb::report(o, reporter)) g_failed = true;
  return g_failed ? 1 : 0;
}
