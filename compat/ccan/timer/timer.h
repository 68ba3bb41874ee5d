/* ccan/timer/timer.h, on timerwheel: the same functions and types as
 * ccan/timer's public header, implemented on the wheel through the C API
 * (timerwheel.h). Put this directory first on the include path to switch a
 * program over; link timerwheel's C library. How it differs from the
 * original is in docs/c.md: timers fire in exact (time, adding order) order
 * instead of the original's bucket order, a deadline is rounded up to the
 * granularity instead of down (never early), and adding a pending timer
 * moves it. */
#ifndef CCAN_TIMER_H
#define CCAN_TIMER_H

#include <ccan/time/time.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <timerwheel.h>

#ifndef TIMER_GRANULARITY
/* Nanoseconds per grain, the unit of the wheel's ticks: microseconds. */
#define TIMER_GRANULARITY 1000
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A set of timers. Fields private. Not movable once initialised. */
struct timers {
  tw_wheel* wheel;
  uint64_t granularity; /* nanoseconds per tick */
  /* Ticks per second, and a reciprocal of the granularity (n / granularity
   * is (n * recip) >> shift for every n below 2^31): a time becomes ticks
   * without a division. */
  uint64_t per_sec;
  uint64_t recip;
  unsigned shift;
  /* Timers queued in the wheel by the last advance and not yet taken, or
   * more (a queued timer that is deleted or added again leaves it high). */
  size_t queued;
  /* One more than the tick of the last advance, after which nothing due
   * at or before that tick waits in the wheel but what was added since; 0
   * when a timer added since is due by then. */
  uint64_t settled_plus1;
  /* The allocator of timers_set_allocator when initialised (NULL: none). */
  void* (*alloc)(size_t len, void* arg);
  void (*free)(const void* p, void* arg);
  void* alloc_arg;
};

/* A timer, usually embedded in the struct it times. Fields private. */
struct timer {
  tw_timer tw;
};

/* Not for direct use: timers_init with an explicit granularity. */
TW_API void timerwheel_ccan_timers_init(struct timers* timers, struct timemono start,
                                        uint64_t granularity);

/* Initialises `timers`, whose time is `start`: a timer added before it
 * expires at once. Aborts with a message if the wheel (a few tens of
 * kilobytes) cannot be allocated: the original's signature has no way to
 * say so. O(slots). */
static inline void timers_init(struct timers* timers, struct timemono start) {
  timerwheel_ccan_timers_init(timers, start, TIMER_GRANULARITY);
}

/* Frees the wheel; timers still added become idle (none fires). */
TW_API void timers_cleanup(struct timers* timers);

/* Makes `t` idle: timer_del may then be called on it at any time. O(1). */
TW_API void timer_init(struct timer* t);

/* Adds `timer` to expire `rel` after time_mono() now (rounded up to the
 * granularity). A timer already added is moved. O(1). */
TW_API void timer_addrel(struct timers* timers, struct timer* timer, struct timerel rel);

/* Adds `timer` to expire at `when` (rounded up to the granularity); a time
 * before the set's current time expires at once. A timer already added is
 * moved. O(1). */
TW_API void timer_addmono(struct timers* timers, struct timer* timer, struct timemono when);

/* Removes `timer` if added; harmless on an idle timer (after timer_init)
 * and when called more than once. O(1). */
TW_API void timer_del(struct timers* timers, struct timer* timer);

/* Stores the exact earliest expiry time in *first and returns true; returns
 * false, leaving *first untouched, when no timer is added.
 * O(levels + timers in the earliest slots). */
TW_API bool timer_earliest(struct timers* timers, struct timemono* first);

/* Returns one timer whose time is at or before `expire`, removed, the
 * earliest first (equal times in adding order), or NULL when none is due;
 * after it returns NULL, `expire` is the set's current time. `expire` may
 * stay but should not move back (a time behind is taken as the current
 * time). O(1) per timer returned, plus the wheel's advance when its queue of
 * expired timers runs dry. */
TW_API struct timer* timers_expire(struct timers* timers, struct timemono expire);

/* Sets the functions timers_init takes the wheel's memory from (one block
 * per struct timers, given back by timers_cleanup to the functions it came
 * from); NULL for either restores malloc and free. Not thread-safe. */
TW_API void timers_set_allocator(void* (*alloc)(size_t len, void* arg),
                                 void (*free)(const void* p, void* arg), void* arg);

/* Checks the wheel's invariants. Returns `t` when they hold. When one is
 * broken: with `abortstr`, prints it and the invariant to stderr and aborts;
 * without, returns NULL. O(n + slots). */
TW_API struct timers* timers_check(const struct timers* t, const char* abortstr);

#ifdef __cplusplus
}
#endif

#endif /* CCAN_TIMER_H */
