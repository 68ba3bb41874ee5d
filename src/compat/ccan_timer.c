/* ccan/timer's functions on the wheel, through the C API. Ticks are grains
 * of `granularity` nanoseconds of the monotonic clock. */
#define _POSIX_C_SOURCE 200809L

#include <ccan/timer/timer.h>
#include <stdio.h>
#include <stdlib.h>

/* The largest time that fits in ticks (a far future). */
#define CCAN_TIMER_FAR UINT64_MAX

struct timemono time_mono(void) {
  struct timemono t;
  clock_gettime(CLOCK_MONOTONIC, &t.ts);
  return t;
}

/* The tick of `t`, rounded down: for now and the expire argument, so that a
 * timer is never returned before its time has come. */
static uint64_t ticks_floor(const struct timers* timers, struct timemono t) {
  if (t.ts.tv_sec < 0) return 0;
  const uint64_t per_sec = 1000000000u / timers->granularity;
  return (uint64_t)t.ts.tv_sec * per_sec + (uint64_t)t.ts.tv_nsec / timers->granularity;
}

/* The tick of `t`, rounded up: for a timer's time. */
static uint64_t ticks_ceil(const struct timers* timers, struct timemono t) {
  if (t.ts.tv_sec < 0) return 0;
  const uint64_t g = timers->granularity;
  const uint64_t per_sec = 1000000000u / g;
  return (uint64_t)t.ts.tv_sec * per_sec + ((uint64_t)t.ts.tv_nsec + g - 1) / g;
}

static struct timemono time_of(const struct timers* timers, uint64_t ticks) {
  const uint64_t per_sec = 1000000000u / timers->granularity;
  struct timemono t;
  t.ts.tv_sec = (time_t)(ticks / per_sec);
  t.ts.tv_nsec = (long)((ticks % per_sec) * timers->granularity);
  return t;
}

static void die(const char* call, tw_status status) {
  fprintf(stderr, "ccan/timer on timerwheel: %s: %s\n", call, tw_strerror(status));
  abort();
}

/* The allocator of timers_set_allocator; NULL: malloc and free. */
static void* (*ccan_alloc)(size_t len, void* arg) = NULL;
static void (*ccan_free)(const void* p, void* arg) = NULL;
static void* ccan_alloc_arg = NULL;

void timers_set_allocator(void* (*alloc)(size_t len, void* arg),
                          void (*free)(const void* p, void* arg), void* arg) {
  if (alloc == NULL || free == NULL) {
    ccan_alloc = NULL;
    ccan_free = NULL;
    ccan_alloc_arg = NULL;
  } else {
    ccan_alloc = alloc;
    ccan_free = free;
    ccan_alloc_arg = arg;
  }
}

/* The wheel's allocator over ccan's: `arg` is the struct timers, which
 * keeps the functions and argument of the time it was initialised, so that
 * timers_cleanup gives the block back to the allocator it came from. */
static void* wheel_alloc(size_t size, void* arg) {
  const struct timers* timers = arg;
  return timers->alloc(size, timers->alloc_arg);
}

static void wheel_release(void* block, void* arg) {
  const struct timers* timers = arg;
  timers->free(block, timers->alloc_arg);
}

void timerwheel_ccan_timers_init(struct timers* timers, struct timemono start,
                                 uint64_t granularity) {
  if (granularity == 0 || granularity > 1000000000u || 1000000000u % granularity != 0) {
    fprintf(stderr, "ccan/timer on timerwheel: TIMER_GRANULARITY must divide 1000000000\n");
    abort();
  }
  timers->granularity = granularity;
  const uint64_t now = ticks_floor(timers, start);
  tw_status status;
  timers->alloc = ccan_alloc;
  timers->free = ccan_free;
  timers->alloc_arg = ccan_alloc_arg;
  if (ccan_alloc == NULL) {
    status = tw_wheel_new(&timers->wheel, TW_CONFIG_DEFAULT, now);
  } else {
    const tw_allocator allocator = {wheel_alloc, wheel_release, timers};
    status = tw_wheel_new_with(&timers->wheel, TW_CONFIG_DEFAULT, now, &allocator);
  }
  if (status != TW_OK) die("timers_init", status);
}

void timers_cleanup(struct timers* timers) {
  tw_wheel_free(timers->wheel);
  timers->wheel = NULL;
}

void timer_init(struct timer* t) { tw_timer_init(&t->tw); }

void timer_addmono(struct timers* timers, struct timer* timer, struct timemono when) {
  tw_schedule(timers->wheel, &timer->tw, ticks_ceil(timers, when));
}

void timer_addrel(struct timers* timers, struct timer* timer, struct timerel rel) {
  struct timemono now = time_mono();
  timer_addmono(timers, timer, timemono_add(now, rel));
}

void timer_del(struct timers* timers, struct timer* timer) { tw_cancel(timers->wheel, &timer->tw); }

bool timer_earliest(struct timers* timers, struct timemono* first) {
  uint64_t next;
  if (!tw_next_deadline(timers->wheel, &next)) return false;
  *first = time_of(timers, next);
  return true;
}

struct timer* timers_expire(struct timers* timers, struct timemono expire) {
  tw_timer* t = tw_take_expired(timers->wheel);
  if (t == NULL) {
    /* The queue ran dry: queue what is due by `expire` (a time behind the
     * current one is taken as the current one). */
    if (tw_advance_pull(timers->wheel, ticks_floor(timers, expire), NULL) == TW_EBEHIND)
      tw_advance_pull(timers->wheel, tw_now(timers->wheel), NULL);
    t = tw_take_expired(timers->wheel);
    if (t == NULL) return NULL;
  }
  return tw_container_of(t, struct timer, tw);
}

struct timers* timers_check(const struct timers* t, const char* abortstr) {
  if (tw_check(t->wheel) == TW_OK) return (struct timers*)(uintptr_t)t;
  if (abortstr != NULL) {
    fprintf(stderr, "%s: timers inconsistent: %s\n", abortstr, tw_last_error(t->wheel));
    abort();
  }
  return NULL;
}
