/* Empty functions of the C API's shapes (bench/c_floor.c), for the floor of
 * any out-of-line C API under the workloads (bench/adapters/c_api.hpp). */
#ifndef TIMERWHEEL_BENCH_C_FLOOR_H
#define TIMERWHEEL_BENCH_C_FLOOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of tw_schedule: a wheel, a timer, a deadline. Does nothing. */
void timerwheel_bench_empty_schedule(void* wheel, void* timer, uint64_t deadline);

/* The shape of tw_cancel: a wheel, a timer. Does nothing. */
void timerwheel_bench_empty_cancel(void* wheel, void* timer);

#ifdef __cplusplus
}
#endif

#endif /* TIMERWHEEL_BENCH_C_FLOOR_H */
