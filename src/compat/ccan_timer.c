/* ccan/timer's functions on the wheel, through the C API. Ticks are grains
 * of `granularity` nanoseconds of the monotonic clock. */
#define _POSIX_C_SOURCE 200809L

#include <ccan/timer/timer.h>
#include <stdio.h>
#include <stdlib.h>

#include "../c/timerwheel_internal.h"

/* The drop-in's hot functions hold the wheel's code whole wherever GCC
 * optimises across units (the library's fat LTO objects at a GCC link):
 * its inliner would otherwise leave the internal entry point a call. */
#if defined(__GNUC__) && !defined(__clang__)
#define CCAN_TIMER_FLAT __attribute__((flatten))
#else
#define CCAN_TIMER_FLAT
#endif

/* The largest time that fits in ticks (a far future). */
#define CCAN_TIMER_FAR UINT64_MAX

struct timemono time_mono(void) {
  struct timemono t;
  clock_gettime(CLOCK_MONOTONIC, &t.ts);
  return t;
}

/* Nanoseconds below 2^31, where the reciprocal is exact. */
#define CCAN_TIMER_RECIP_LIMIT ((uint64_t)1 << 31)

/* The reciprocal of `g` for n below 2^31: with l = ceil(log2 g), shift =
 * 31 + l and recip = ceil(2^shift / g), (n * recip) >> shift == n / g for
 * every such n (Granlund and Montgomery, "Division by invariant integers
 * using multiplication", 1994, theorem 4.2: recip * g is at most
 * 2^shift + 2^l). recip < 2^32, so the product fits in 64 bits. */
static void set_reciprocal(struct timers* timers, uint64_t g) {
  unsigned l = 0;
  while (((uint64_t)1 << l) < g) ++l;
  timers->shift = 31 + l;
  timers->recip = (((uint64_t)1 << timers->shift) + g - 1) / g;
  timers->per_sec = 1000000000u / g;
}

/* n / granularity, for the nanoseconds of a time: by the reciprocal when n
 * is below 2^31 (always, for a normalised time: n < 10^9 + granularity). */
static inline uint64_t grains(const struct timers* timers, uint64_t n) {
  if (n < CCAN_TIMER_RECIP_LIMIT) return (n * timers->recip) >> timers->shift;
  return n / timers->granularity;
}

/* The tick of `t`, rounded down: for now and the expire argument, so that a
 * timer is never returned before its time has come. */
static inline uint64_t ticks_floor(const struct timers* timers, struct timemono t) {
  if (t.ts.tv_sec < 0) return 0;
  return (uint64_t)t.ts.tv_sec * timers->per_sec + grains(timers, (uint64_t)t.ts.tv_nsec);
}

/* The tick of `t`, rounded up: for a timer's time. */
static inline uint64_t ticks_ceil(const struct timers* timers, struct timemono t) {
  if (t.ts.tv_sec < 0) return 0;
  return (uint64_t)t.ts.tv_sec * timers->per_sec +
         grains(timers, (uint64_t)t.ts.tv_nsec + timers->granularity - 1);
}

static struct timemono time_of(const struct timers* timers, uint64_t ticks) {
  const uint64_t per_sec = timers->per_sec;
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
  set_reciprocal(timers, granularity);
  timers->queued = 0;
  timers->settled_plus1 = 0;
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

CCAN_TIMER_FLAT void timer_addmono(struct timers* timers, struct timer* timer,
                                   struct timemono when) {
  const uint64_t tick = ticks_ceil(timers, when);
  /* Due by the last advance's tick: the next timers_expire must advance. */
  if (tick < timers->settled_plus1) timers->settled_plus1 = 0;
  tw_internal_schedule(timers->wheel, &timer->tw, tick);
}

void timer_addrel(struct timers* timers, struct timer* timer, struct timerel rel) {
  struct timemono now = time_mono();
  timer_addmono(timers, timer, timemono_add(now, rel));
}

void timer_del(struct timers* timers, struct timer* timer) {
  tw_internal_cancel(timers->wheel, &timer->tw);
}

bool timer_earliest(struct timers* timers, struct timemono* first) {
  uint64_t next;
  if (!tw_next_deadline(timers->wheel, &next)) return false;
  *first = time_of(timers, next);
  return true;
}

/* timers_expire when no timer is known to be queued: queues what is due by
 * `expire` (a time behind the current one is taken as the current one) and
 * returns the first. */
static struct timer* expire_more(struct timers* timers, struct timemono expire) {
  uint64_t to = ticks_floor(timers, expire);
  /* Nothing due by `to` is left since the last advance (whose queue is
   * empty): no advance to make, which saves one per timers_expire loop. */
  if (to < timers->settled_plus1) return NULL;
  size_t queued = 0;
  if (tw_advance_pull(timers->wheel, to, &queued) == TW_EBEHIND) {
    to = tw_now(timers->wheel);
    tw_advance_pull(timers->wheel, to, &queued);
  }
  timers->settled_plus1 = to + 1;
  if (queued == 0) return NULL;
  timers->queued = queued - 1;
  return tw_container_of(tw_internal_take_expired(timers->wheel), struct timer, tw);
}

struct timer* timers_expire(struct timers* timers, struct timemono expire) {
  if (timers->queued != 0) {
    tw_timer* t = tw_internal_take_expired(timers->wheel);
    if (t != NULL) {
      --timers->queued;
      return tw_container_of(t, struct timer, tw);
    }
    /* Those left were deleted or added again. */
    timers->queued = 0;
    timers->settled_plus1 = 0;
  }
  return expire_more(timers, expire);
}

struct timers* timers_check(const struct timers* t, const char* abortstr) {
  if (tw_check(t->wheel) == TW_OK) return (struct timers*)(uintptr_t)t;
  if (abortstr != NULL) {
    fprintf(stderr, "%s: timers inconsistent: %s\n", abortstr, tw_last_error(t->wheel));
    abort();
  }
  return NULL;
}
