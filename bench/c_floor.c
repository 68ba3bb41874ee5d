/* Empty functions of the C API's shapes, for the floor of any out-of-line C
 * API under the workloads (bench/adapters/c_api.hpp, c_call_floor): each
 * does nothing, in a translation unit of its own, and no optimisation may
 * look into it (noipa: not inlined, cloned or analysed, with -flto too), so
 * that a call costs what a call into a compiled library costs its caller:
 * the argument set-up, the call and return, and the registers the call
 * clobbers. */
#include "c_floor.h"

/* GCC's noipa; clang has none, and noinline alone would let it see that
 * the function does nothing and drop the call: the empty asm, which may
 * touch memory, keeps the call and what it clobbers. */
#if defined(__GNUC__) && !defined(__clang__)
#define TIMERWHEEL_BENCH_OPAQUE __attribute__((noipa))
#elif defined(__GNUC__)
#define TIMERWHEEL_BENCH_OPAQUE __attribute__((noinline))
#else
#define TIMERWHEEL_BENCH_OPAQUE
#endif

#if defined(__GNUC__)
#define TIMERWHEEL_BENCH_BARRIER() __asm__ volatile("" ::: "memory")
#else
#define TIMERWHEEL_BENCH_BARRIER() ((void)0)
#endif

TIMERWHEEL_BENCH_OPAQUE void timerwheel_bench_empty_schedule(void* wheel, void* timer,
                                                             uint64_t deadline) {
  (void)wheel;
  (void)timer;
  (void)deadline;
  TIMERWHEEL_BENCH_BARRIER();
}

TIMERWHEEL_BENCH_OPAQUE void timerwheel_bench_empty_cancel(void* wheel, void* timer) {
  (void)wheel;
  (void)timer;
  TIMERWHEEL_BENCH_BARRIER();
}
