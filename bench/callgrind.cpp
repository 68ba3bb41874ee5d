// timerwheel_callgrind: one structure on one workload per invocation, for instruction counts
// under valgrind --tool=callgrind --instr-atstart=no (bench/callgrind.sh drives it). Only the
// run itself is instrumented (the sequence is drawn before); bench/callgrind.sh subtracts a
// smaller run to cancel the setup that remains (building the structure, scheduling N timers).
// Built with -march=x86-64-v3: valgrind stops on AVX-512 code.
//
// Usage: timerwheel_callgrind STRUCTURE WORKLOAD N STEPS
//   STRUCTURE  wheel6 | wheel8 | heap | heap4 | heap_compact | heap4_compact
//              | hitime_scheme (HiTime's design, inlined)
//              | c_api | ccan_timer | hitime | c_bare | c_call_floor (the last five
//              when the C library is built: the C face and its floors,
//              bench/adapters/c_api.hpp)
//   WORKLOAD   W1 (N timers, R = 2^20, STEPS cancel+schedule steps)
//              W2 (N timers uniform [1, 2^20], fired in steps of STEPS ticks; 0: R/1024)
//              W6/DIST (hold: N events, DIST exp | unif | bimodal | tri | trace, STEPS holds
//              after max(N, 10000) holds of warm-up; with calendar | ladder too)
// Prints the number of operations and the checksum of what fired.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <valgrind/callgrind.h>

#include "adapters/heaps.hpp"
#include "adapters/hitime_scheme.hpp"
#include "adapters/reference.hpp"
#include "adapters/wheel.hpp"
#if TIMERWHEEL_BENCH_C
#include "adapters/c_api.hpp"
#endif
#include "workloads.hpp"

namespace tb = timerwheel_bench;

template <class A>
int run(const std::string& workload, std::size_t n, std::size_t steps) {
  tb::run_result r;
  if (workload == "W1") {
    tb::w1_params p{};
    p.timers = n;
    p.range = std::uint64_t{1} << 20;
    p.timed_steps = steps / tb::w1_steps_per_tick * tb::w1_steps_per_tick;
    p.warm_steps = 0;
    const tb::w1_sequence s = tb::make_w1_sequence(p, tb::derive_seed(42, "callgrind W1"));
    CALLGRIND_START_INSTRUMENTATION;
    r = tb::run_w1<A>(s);
    CALLGRIND_STOP_INSTRUMENTATION;
  } else if (workload == "W2") {
    const std::uint64_t range = std::uint64_t{1} << 20;
    const tb::w2_params p{n, range, steps != 0 ? steps : range / 1024};
    const tb::w2_sequence s = tb::make_w2_sequence(p, tb::derive_seed(42, "callgrind W2"));
    CALLGRIND_START_INSTRUMENTATION;
    r = tb::run_w2<A>(s);
    CALLGRIND_STOP_INSTRUMENTATION;
  } else if (workload.rfind("W6/", 0) == 0) {
    tb::w6_dist d{};
    bool known = false;
    for (const tb::w6_dist c : {tb::w6_dist::exponential, tb::w6_dist::uniform,
                                tb::w6_dist::bimodal, tb::w6_dist::triangular, tb::w6_dist::trace})
      if (workload.substr(3) == tb::w6_dist_name(c)) d = c, known = true;
    if (!known) {
      std::fprintf(stderr, "unknown W6 distribution %s\n", workload.c_str());
      return 2;
    }
    const tb::w6_params p{n, d, steps, std::max<std::size_t>(n, 10'000)};
    const tb::w6_sequence s = tb::make_w6_sequence(p, tb::derive_seed(42, "callgrind " + workload));
    CALLGRIND_START_INSTRUMENTATION;
    r = tb::run_w6<A>(s);
    CALLGRIND_STOP_INSTRUMENTATION;
  } else {
    std::fprintf(stderr, "unknown workload %s\n", workload.c_str());
    return 2;
  }
  if (!r.error.empty()) {
    std::fprintf(stderr, "FAILED %s %s: %s\n", A::name, workload.c_str(), r.error.c_str());
    return 1;
  }
  std::printf("ops %llu fired %llu checksum %llx\n", static_cast<unsigned long long>(r.ops),
              static_cast<unsigned long long>(r.fired),
              static_cast<unsigned long long>(r.checksum));
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s STRUCTURE W1|W2|W6/DIST N STEPS\n", argv[0]);
    return 2;
  }
  const std::string structure = argv[1], workload = argv[2];
  const std::size_t n = std::strtoull(argv[3], nullptr, 0);
  const std::size_t steps = std::strtoull(argv[4], nullptr, 0);
  if (structure == "wheel6") return run<tb::wheel6>(workload, n, steps);
  if (structure == "wheel8") return run<tb::wheel8>(workload, n, steps);
  if (structure == "heap") return run<tb::heap>(workload, n, steps);
  if (structure == "heap4") return run<tb::heap4>(workload, n, steps);
  if (structure == "heap_compact") return run<tb::heap_compact>(workload, n, steps);
  if (structure == "heap4_compact") return run<tb::heap4_compact>(workload, n, steps);
  if (structure == "hitime_scheme") return run<tb::hitime_scheme>(workload, n, steps);
  if (structure == "calendar") return run<tb::calendar>(workload, n, steps);
  if (structure == "ladder") return run<tb::ladder>(workload, n, steps);
#if TIMERWHEEL_BENCH_C
  if (structure == "c_api") return run<tb::c_api_adapter>(workload, n, steps);
  if (structure == "ccan_timer") return run<tb::ccan_timer_adapter>(workload, n, steps);
  if (structure == "hitime") return run<tb::hitime_adapter>(workload, n, steps);
  if (structure == "c_bare") return run<tb::c_bare_adapter>(workload, n, steps);
  if (structure == "c_call_floor") return run<tb::c_call_floor_adapter>(workload, n, steps);
#endif
  std::fprintf(stderr, "unknown structure %s\n", structure.c_str());
  return 2;
}
