/* Empty functions of the C API's shapes, for the floor of any out-of-line C
 * API under the workloads (bench/adapters/c_api.hpp, c_call_floor): each
 * does nothing, in a translation unit of its own, and no optimisation may
 * look into it (noipa: not inlined, cloned or analysed, with -flto too), so
 * that a call costs what a call into a compiled library costs its caller:
 * the argument set-up, the call and return, and the registers the call
 * clobbers. */
#include "c_floor.h"

#if defined(__GNUC__)
#define TIMERWHEEL_BENCH_OPAQUE __attribute__((noipa))
#else
#define TIMERWHEEL_BENCH_OPAQUE
#endif

TIMERWHEEL_BENCH_OPAQUE void timerwheel_bench_empty_schedule(void* wheel, void* timer,
                                                             uint64_t deadline) {
  (void)wheel;
  (void)timer;
  (void)deadline;
}

TIMERWHEEL_BENCH_OPAQUE void timerwheel_bench_empty_cancel(void* wheel, void* timer) {
  (void)wheel;
  (void)timer;
}
