// timerwheel_bench_slots: lists or arrays for the wheel's slots. The prototypes of this directory
// (the same placement, storages that differ: lists, arrays, both, and lists that a cascade walks
// two or four at once) beside the wheel (wheel6) and the 4-ary heap (heap4), on W2 (expiry), W1
// (churn) and W4 (memory), in one run:
// repetitions interleaved (the order of the structures rotates each repetition), medians with the
// spread of the repetitions, ratios to heap4 from the same run. Every run checks its answer and a
// wrong one stops the program (exit 1): W2's firings against a sorted model (the timers stably
// sorted by deadline: exact (deadline, FIFO) order), W1's against heap4's (an exact heap with a
// sequence number), besides each workload's own checks.
//
// Usage:
//   timerwheel_bench_slots [REPS (default 3) [W1|W2]]   (W1 or W2: that workload's table alone)
//   timerwheel_bench_slots --check
//     the self-check alone (the short-range W1 every structure against heap4), a few seconds
//   timerwheel_bench_slots --only STRUCTURE W1|W2 N STEPS
//     one run, for callgrind (--instr-atstart=no): W2: N timers uniform [1, 2^20] fired in
//     steps of STEPS ticks, the schedules and the advances dumped apart (CALLGRIND_DUMP_STATS_AT
//     "schedule" and "advance"); W1: N timers, STEPS cancel+schedule steps, instrumented alone.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(x)
#endif

#include "../adapters/heaps.hpp"
#include "../adapters/wheel.hpp"
#include "../workloads.hpp"
#include "slot_arrays.hpp"
#include "slot_dual.hpp"
#include "slot_hybrid.hpp"
#include "slot_lists.hpp"
#include "slot_walks.hpp"

namespace tb = timerwheel_bench;
using tb::slots::slot_arrays;
using tb::slots::slot_lists;
using slot_hybrid2 = tb::slots::slot_hybrid<2>;
using slot_hybrid3 = tb::slots::slot_hybrid<3>;
using slot_dual = tb::slots::slot_dual<false>;
using slot_dual2 = tb::slots::slot_dual<true>;
using slot_walks2 = tb::slots::slot_walks<tb::slots::level_count>;
using slot_walks4 = tb::slots::slot_walks<2>;
using slot_walks4_3 = tb::slots::slot_walks<3>;
using slot_walks4c = tb::slots::slot_walks<2, true>;

namespace {

constexpr std::uint64_t range = std::uint64_t{1} << 20;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The checksum of W2's exact order: the timers stably sorted by deadline (scheduled in index
// order, so FIFO among equal deadlines is index order).
std::uint64_t w2_model_checksum(const tb::w2_sequence& s) {
  std::vector<std::uint32_t> order(s.initial.size());
  std::iota(order.begin(), order.end(), 0u);
  // (deadline, index): the stable order, without std::stable_sort's temporary buffer, which
  // comes from the nothrow operator new that alloc_count.cpp does not replace (a sanitized build
  // then reports its release through the replaced delete as a mismatch).
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return s.initial[a] < s.initial[b] || (s.initial[a] == s.initial[b] && a < b);
  });
  std::uint64_t h = 0;
  for (const std::uint32_t i : order) h = tb::mix_fired(h, i, s.initial[i]);
  return h;
}

struct cell {
  std::vector<double> ns;       // per repetition
  std::vector<double> part_ns;  // W2: the firing alone
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

constexpr const char* names[] = {"wheel6",       "heap4",        "slot_lists",    "slot_arrays",
                                 "slot_hybrid2", "slot_hybrid3", "slot_dual",     "slot_dual2",
                                 "slot_walks2",  "slot_walks4",  "slot_walks4_3", "slot_walks4c"};
constexpr int structures = 12;

template <class F>
void for_structure(int k, F&& f) {
  switch (k) {
    case 0:
      f.template operator()<tb::wheel6>();
      break;
    case 1:
      f.template operator()<tb::heap4>();
      break;
    case 2:
      f.template operator()<slot_lists>();
      break;
    case 3:
      f.template operator()<slot_arrays>();
      break;
    case 4:
      f.template operator()<slot_hybrid2>();
      break;
    case 5:
      f.template operator()<slot_hybrid3>();
      break;
    case 6:
      f.template operator()<slot_dual>();
      break;
    case 7:
      f.template operator()<slot_dual2>();
      break;
    case 8:
      f.template operator()<slot_walks2>();
      break;
    case 9:
      f.template operator()<slot_walks4>();
      break;
    case 10:
      f.template operator()<slot_walks4_3>();
      break;
    default:
      f.template operator()<slot_walks4c>();
      break;
  }
}

void print_row(const std::string& label, const cell (&c)[structures], bool part) {
  const double base = median(part ? c[1].part_ns : c[1].ns);
  std::printf("| %s |", label.c_str());
  for (int k = 0; k < structures; ++k) {
    const std::vector<double>& v = part ? c[k].part_ns : c[k].ns;
    std::printf(" %.1f [%.1f-%.1f] |", median(v), *std::min_element(v.begin(), v.end()),
                *std::max_element(v.begin(), v.end()));
  }
  for (int k = 0; k < structures; ++k)
    if (k != 1) std::printf(" %.2f |", median(part ? c[k].part_ns : c[k].ns) / base);
  std::printf("\n");
  std::fflush(stdout);
}

void header(const char* unit) {
  std::printf("\n| %s |", unit);
  for (const char* n : names) std::printf(" %s |", n);
  for (int k = 0; k < structures; ++k)
    if (k != 1) std::printf(" %s/heap4 |", names[k]);
  std::printf("\n| --- |");
  for (int k = 0; k < 2 * structures - 1; ++k) std::printf(" ---: |");
  std::printf("\n");
}

void run_w2_case(std::size_t n, std::uint64_t step, int reps) {
  const tb::w2_params p{n, range, step};
  const tb::w2_sequence s = tb::make_w2_sequence(p, tb::derive_seed(42, "slots W2"));
  const std::uint64_t model = w2_model_checksum(s);
  cell c[structures];
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < structures; ++j) {
      const int k = (j + r) % structures;
      for_structure(k, [&]<class A>() {
        const tb::run_result res = tb::run_w2<A>(s);
        if (!res.error.empty()) fail(std::string("W2 ") + A::name + ": " + res.error);
        if (res.checksum != model) fail(std::string("W2 ") + A::name + ": not the model's order");
        c[k].ns.push_back(res.seconds * 1e9 / static_cast<double>(n));
        c[k].part_ns.push_back(res.part_seconds * 1e9 / static_cast<double>(n));
      });
    }
  }
  const std::string label = "W2 " + std::to_string(n) + ", " + std::to_string(step) + "-tick";
  print_row(label + " (schedule+fire)", c, false);
  print_row(label + " (fire alone)", c, true);
}

void run_w1_case(std::size_t n, int reps) {
  tb::w1_params p{};
  p.timers = n;
  p.range = range;
  p.warm_steps = 200'000;
  p.timed_steps = 2'000'000;
  const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(42, "slots W1"));
  cell c[structures];
  std::uint64_t reference = 0;
  bool have_reference = false;
  // heap4 first in the first repetition, so that its checksum is the reference.
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < structures; ++j) {
      const int k = (j + 1 + r) % structures;
      for_structure(k, [&]<class A>() {
        const tb::run_result res = tb::run_w1<A>(s);
        if (!res.error.empty()) fail(std::string("W1 ") + A::name + ": " + res.error);
        if (!have_reference) {
          if (k != 1) fail("W1: the reference must be heap4's");
          reference = res.checksum;
          have_reference = true;
        } else if (res.checksum != reference) {
          fail(std::string("W1 ") + A::name + ": fired another order than heap4");
        }
        c[k].ns.push_back(res.seconds * 1e9 / static_cast<double>(res.ops));
      });
    }
  }
  print_row("W1 " + std::to_string(n), c, false);
}

// The slot arrays' capacity (arrays and hybrids) after W1 at n (warm-up and timed steps), per
// pending timer: what churn leaves them holding.
void w1_array_bytes(std::size_t n) {
  tb::w1_params p{};
  p.timers = n;
  p.range = range;
  p.warm_steps = 200'000;
  p.timed_steps = 2'000'000;
  const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(42, "slots W1"));
  for (int k = 3; k < structures; ++k) {
    for_structure(k, [&]<class A>() {
      if constexpr (requires(const A& x) { x.held_bytes(); }) {
        A a(n);
        for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, s.initial[i]);
        const double before = static_cast<double>(a.held_bytes()) / static_cast<double>(n);
        tb::w1_state st;
        st.fired.reserve(1024);
        tb::run_w1_steps(a, s, 0, p.warm_steps + p.timed_steps, st);
        std::printf("| %s, W1 %zu | %.1f bytes a timer after scheduling | %.1f after the steps |\n",
                    A::name, n, before,
                    static_cast<double>(a.held_bytes()) / static_cast<double>(n));
      }
    });
  }
}

// The capacity the slot arrays keep (their peak) after W2 at 1e6 with 1-tick steps, per timer.
void w2_array_bytes() {
  const std::size_t n = 1'000'000;
  const tb::w2_params p{n, range, 1};
  const tb::w2_sequence s = tb::make_w2_sequence(p, tb::derive_seed(42, "slots W2"));
  for (int k = 3; k < structures; ++k) {
    for_structure(k, [&]<class A>() {
      if constexpr (requires(const A& x) { x.held_bytes(); }) {
        A a(n);
        for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, s.initial[i]);
        for (std::uint64_t to = 1; to <= range; ++to) a.advance(to, [](std::uint32_t) {});
        if (a.size() != 0) fail(std::string("W2 capacity run ") + A::name + ": not all fired");
        std::printf("| %s, W2 %zu | %.1f bytes a timer at the peak (capacity kept) |\n", A::name, n,
                    static_cast<double>(a.held_bytes()) / static_cast<double>(n));
      }
    });
  }
}

// Before any timing: W1 with a short range (N = 10,000, R = 1,024: about ten firings a tick,
// many of one deadline, cancels into every level's arrays and lists), every structure's fired
// sequence compared with heap4's, and each structure's end state checked.
void self_check() {
  tb::w1_params p{};
  p.timers = 10'000;
  p.range = 1'024;
  p.warm_steps = 0;
  p.timed_steps = 500'000;
  const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(42, "slots check"));
  std::uint64_t reference = 0;
  std::uint64_t fired = 0;
  for (const int k : {1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
    for_structure(k, [&]<class A>() {
      const tb::run_result res = tb::run_w1<A>(s);
      if (!res.error.empty()) fail(std::string("check ") + A::name + ": " + res.error);
      if (k == 1) {
        reference = res.checksum;
        fired = res.fired;
      } else if (res.checksum != reference || res.fired != fired) {
        fail(std::string("check ") + A::name + ": fired another order than heap4");
      }
    });
  }
  // Equal deadlines that come into a level-2 slot two ways: two timers scheduled at 0 wait in
  // level 3 and come down when its slot starts at 3 * 2^18; two more of the same deadline are
  // scheduled after that, straight into level 2 (slot_walks4c's first list, where the first two
  // are in the second). All four fire in scheduling order.
  for (int k = 0; k < structures; ++k) {
    for_structure(k, [&]<class A>() {
      constexpr std::uint64_t start = std::uint64_t{3} << 18;
      constexpr std::uint64_t deadline = start + (std::uint64_t{3} << 11) + 5;
      A a(4);
      std::vector<std::uint32_t> order;
      const auto record = [&](std::uint32_t i) { order.push_back(i); };
      a.schedule(0, deadline);
      a.schedule(1, deadline);
      a.advance(start, record);
      a.schedule(2, deadline);
      a.schedule(3, deadline);
      a.advance(deadline, record);
      if (order != std::vector<std::uint32_t>{0, 1, 2, 3})
        fail(std::string("check ") + A::name + ": equal deadlines out of scheduling order");
    });
  }
  // And W2 at R = 2^20, whose cascades come down from level 3 (the paired lists of slot_walks
  // among them), against the sorted model.
  const tb::w2_params q{20'000, range, range / 1024};
  const tb::w2_sequence w2 = tb::make_w2_sequence(q, tb::derive_seed(42, "slots check W2"));
  const std::uint64_t model = w2_model_checksum(w2);
  for (int k = 0; k < structures; ++k) {
    for_structure(k, [&]<class A>() {
      const tb::run_result res = tb::run_w2<A>(w2);
      if (!res.error.empty()) fail(std::string("check W2 ") + A::name + ": " + res.error);
      if (res.checksum != model)
        fail(std::string("check W2 ") + A::name + ": not the model's order");
    });
  }
  std::printf(
      "self-check: W1 N = 10,000, R = 1,024, 500,000 steps: %llu firings, every structure "
      "in heap4's order; equal deadlines from level 3 and from level 2 in scheduling order; W2 "
      "N = 20,000, R = 2^20, steps of R/1024: every structure in the sorted model's order\n",
      static_cast<unsigned long long>(fired));
}

void run_w4_all() {
  const std::size_t n = 1'000'000;
  tb::xoshiro256ss rng(tb::derive_seed(42, "slots W4"));
  std::vector<std::uint64_t> d(n);
  for (auto& x : d) x = rng.uniform(1, range);
  std::printf(
      "\n| W4 1e6 | hook bytes | structure bytes a timer | total bytes a timer |\n"
      "| --- | ---: | ---: | ---: |\n");
  for (int k = 0; k < structures; ++k) {
    for_structure(k, [&]<class A>() {
      const tb::memory_result m = tb::run_w4<A>(d);
      if (!m.error.empty()) fail(std::string("W4 ") + A::name + ": " + m.error);
      std::printf("| %s | %zu | %.2f | %.2f |\n", A::name, m.hook_bytes,
                  m.structure_bytes_per_timer, m.bytes_per_timer);
    });
  }
}

template <class A>
int only(const std::string& workload, std::size_t n, std::size_t steps) {
  if (workload == "W2") {
    const tb::w2_params p{n, range, steps != 0 ? steps : range / 1024};
    const tb::w2_sequence s = tb::make_w2_sequence(p, tb::derive_seed(42, "slots W2"));
    A a(n);
    tb::fire_checker check;
    std::size_t reported = 0;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, s.initial[i]);
    CALLGRIND_DUMP_STATS_AT("schedule");
    for (std::uint64_t to = 0; to < p.range;) {
      to = std::min(p.range, to + p.step);
      reported += a.advance(to, [&](std::uint32_t i) { check.on_fire(a.payload(i), i, to); });
    }
    CALLGRIND_DUMP_STATS_AT("advance");
    CALLGRIND_STOP_INSTRUMENTATION;
    std::string e = check.error();
    tb::verify_empty(a, n, e);
    if (check.fired != n || reported != n) e += "not every timer fired; ";
    if (check.checksum != w2_model_checksum(s)) e += "not the model's order; ";
    if (!e.empty()) fail(std::string("W2 ") + A::name + ": " + e);
    std::printf("%s W2 %zu step %llu: fired %llu checksum %llx\n", A::name, n,
                static_cast<unsigned long long>(p.step),
                static_cast<unsigned long long>(check.fired),
                static_cast<unsigned long long>(check.checksum));
    return 0;
  }
  if (workload == "W1") {
    tb::w1_params p{};
    p.timers = n;
    p.range = range;
    p.warm_steps = 0;
    p.timed_steps = steps / tb::w1_steps_per_tick * tb::w1_steps_per_tick;
    const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(42, "slots W1"));
    A a(n);
    for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, s.initial[i]);
    tb::w1_state st;
    st.fired.reserve(1024);
    CALLGRIND_START_INSTRUMENTATION;
    tb::run_w1_steps(a, s, 0, p.timed_steps, st);
    CALLGRIND_STOP_INSTRUMENTATION;
    const std::string e = tb::verify_w1(a, s, st);
    if (!e.empty()) fail(std::string("W1 ") + A::name + ": " + e);
    std::printf("%s W1 %zu steps %zu: fired %llu checksum %llx\n", A::name, n, p.timed_steps,
                static_cast<unsigned long long>(st.check.fired),
                static_cast<unsigned long long>(st.check.checksum));
    return 0;
  }
  fail("unknown workload " + workload);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::string(argv[1]) == "--only") {
    const std::string structure = argv[2], workload = argv[3];
    const std::size_t n = std::strtoull(argv[4], nullptr, 0);
    const std::size_t steps = std::strtoull(argv[5], nullptr, 0);
    for (int k = 0; k < structures; ++k) {
      if (structure != names[k]) continue;
      int rc = 0;
      for_structure(k, [&]<class A>() { rc = only<A>(workload, n, steps); });
      return rc;
    }
    fail("unknown structure " + structure);
  }
  if (argc == 2 && std::string(argv[1]) == "--check") {
    self_check();
    return 0;
  }
  const std::string only_workload = argc == 3 ? argv[2] : "";
  if (argc > 3 || (argc == 3 && only_workload != "W1" && only_workload != "W2")) {
    std::fprintf(stderr, "usage: %s [REPS [W1|W2]] | --check | --only STRUCTURE W1|W2 N STEPS\n",
                 argv[0]);
    return 2;
  }
  const int reps = argc >= 2 ? std::atoi(argv[1]) : 3;
  if (reps < 1) fail("REPS must be at least 1");
  std::printf(
      "timerwheel_bench_slots: %zu-byte nodes, %d repetitions, medians [min-max], "
      "thread CPU time; load average at start %s\n",
      tb::node_bytes, reps, loadavg().c_str());
  self_check();
  if (only_workload != "W1") {
    header("ns a timer");
    for (const std::size_t n : {std::size_t{100'000}, std::size_t{1'000'000}})
      for (const std::uint64_t step : {std::uint64_t{1}, range / 1024}) run_w2_case(n, step, reps);
  }
  if (only_workload != "W2") {
    header("ns a step");
    for (const std::size_t n : {std::size_t{1'000}, std::size_t{100'000}, std::size_t{1'000'000}})
      run_w1_case(n, reps);
  }
  if (!only_workload.empty()) {
    std::printf("\nload average at end %s\n", loadavg().c_str());
    return 0;
  }
  std::printf("\n");
  for (const std::size_t n : {std::size_t{100'000}, std::size_t{1'000'000}}) w1_array_bytes(n);
  w2_array_bytes();
  run_w4_all();
  std::printf("\nload average at end %s\n", loadavg().c_str());
  return 0;
}
