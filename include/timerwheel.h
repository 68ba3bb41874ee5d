/* timerwheel.h: the C face of timerwheel (C11; also usable from C++).
 *
 * A hierarchical timing wheel for C programs, over the same wheel as the C++
 * library: timers fire in exact (deadline, scheduling order) order, callbacks
 * may schedule and cancel any timer, and empty time costs nothing. Link the
 * compiled library: timerwheel::c in CMake, `pkg-config timerwheel` otherwise.
 *
 * Time is counted in ticks, an unsigned integer whose unit the program
 * chooses (a millisecond, a microsecond, a simulation step). Every time
 * parameter below is an absolute tick unless it says otherwise.
 *
 * Errors come back as tw_status codes, named by tw_strerror(); a call that
 * fails changes nothing. No exception ever leaves the library. A wheel is
 * not thread-safe: one thread at a time.
 *
 *   struct conn { int fd; tw_timer idle; };
 *   static void on_idle(tw_timer *t, void *user) {
 *     struct conn *c = tw_container_of(t, struct conn, idle);
 *     ...
 *   }
 *   tw_wheel *w;
 *   if (tw_wheel_new(&w, TW_CONFIG_DEFAULT, now) != TW_OK) ...
 *   tw_timer_init(&c->idle);
 *   tw_schedule(w, &c->idle, now + 30000);
 *   tw_advance(w, now, on_idle, NULL, NULL);
 *   tw_wheel_free(w);
 */
#ifndef TIMERWHEEL_H
#define TIMERWHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(TIMERWHEEL_C_SHARED)
#if defined(TIMERWHEEL_C_BUILDING)
#define TW_API __declspec(dllexport)
#else
#define TW_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define TW_API __attribute__((visibility("default")))
#else
#define TW_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a call returns. Every failure changes nothing. */
typedef enum tw_status {
  TW_OK = 0,
  TW_EINVAL = 1,   /* a null pointer or an unknown configuration */
  TW_ERANGE = 2,   /* tw_schedule_in_range: earliest is after latest */
  TW_EBEHIND = 3,  /* tw_advance*: the target is behind now */
  TW_EREENTRY = 4, /* an advance or expire_all from inside a callback */
  TW_ENOMEM = 5,   /* out of memory */
  TW_ECHECK = 6,   /* tw_check: an invariant is broken */
  TW_EINTERNAL = 7 /* anything else (a callback that threw, from C++) */
} tw_status;

/* The wheel's configuration, chosen at creation. */
typedef enum tw_config {
  /* 64-bit ticks that never wrap, eleven levels of 64 slots. tw_size is a
   * walk over the timers, O(n). */
  TW_CONFIG_DEFAULT = 0,
  /* As TW_CONFIG_DEFAULT, with a count of the timers: tw_size is O(1), at
   * the cost of a store on each schedule of an idle timer and each cancel. */
  TW_CONFIG_COUNTED = 1,
  /* 32-bit ticks that wrap around, four levels of 256 slots. Every tick
   * passed in is taken modulo 2^32 and read as the instant nearest to now:
   * up to 2^31 - 1 ticks ahead is ahead, anything else is behind. Ticks
   * returned are below 2^32. */
  TW_CONFIG_WRAP32 = 2
} tw_config;

/* A wheel. Opaque; made by tw_wheel_new, freed by tw_wheel_free. */
typedef struct tw_wheel tw_wheel;

/* A timer: embed one in each struct that is a timer, and find the struct
 * again with tw_container_of. No allocation is made for it. Its fields are
 * private. Initialise it with tw_timer_init (or TW_TIMER_INIT) before first
 * use. A pending timer is linked into its wheel by address: it may not be
 * moved, copied over or freed until it fires or is cancelled. */
typedef struct tw_timer {
  void* tw_private_links[2];
  uint64_t tw_private_deadline;
} tw_timer;

/* A static initialiser of an idle timer, as tw_timer_init leaves it. */
#define TW_TIMER_INIT \
  { {NULL, NULL}, 0 }

/* The struct of type `type` whose member `member` is the timer `ptr`. */
#define tw_container_of(ptr, type, member) ((type*)(void*)((char*)(ptr)-offsetof(type, member)))

/* Called for each timer that fires, after the timer left the wheel (it is
 * idle: it may be scheduled again or freed). `user` is the pointer given to
 * the call that fires it. The callback may schedule and cancel any timer of
 * the wheel; it may not advance, expire_all, clear or free the wheel (those
 * return TW_EREENTRY, or for clear and free are undefined), and it must
 * return normally (no longjmp out of it). */
typedef void (*tw_callback)(tw_timer* timer, void* user);

/* --- timers --------------------------------------------------------------- */

/* Makes `timer` idle. Never call it on a pending timer. O(1). */
TW_API void tw_timer_init(tw_timer* timer);

/* Whether `timer` is pending in some wheel: waiting, or expired and queued
 * by tw_advance_pull and not yet taken. O(1). */
TW_API bool tw_timer_pending(const tw_timer* timer);

/* The deadline (ticks) of the last schedule of `timer` in wheel `w`; a
 * deadline that was before now reads as the now it was taken as. O(1). */
TW_API uint64_t tw_timer_deadline(const tw_wheel* w, const tw_timer* timer);

/* --- wheels --------------------------------------------------------------- */

/* Makes an empty wheel of configuration `config` whose time is `now` and
 * stores it in *out. Returns TW_EINVAL (out null or an unknown config) or
 * TW_ENOMEM, leaving *out untouched. O(slots): a few tens of kilobytes. */
TW_API tw_status tw_wheel_new(tw_wheel** out, tw_config config, uint64_t now);

/* Where a wheel's memory comes from: alloc(size, arg) returns a block of
 * `size` bytes aligned as malloc's (or NULL when out of memory), and
 * release(block, arg) gives it back. */
typedef struct tw_allocator {
  void* (*alloc)(size_t size, void* arg);
  void (*release)(void* block, void* arg);
  void* arg;
} tw_allocator;

/* tw_wheel_new, with the wheel's memory (one block, its only allocation)
 * from `allocator`, which is copied; tw_wheel_free gives the block back to
 * it. Returns TW_EINVAL for a null allocator or function, TW_ENOMEM when
 * alloc returns NULL. */
TW_API tw_status tw_wheel_new_with(tw_wheel** out, tw_config config, uint64_t now,
                                   const tw_allocator* allocator);

/* Frees the wheel; every timer still pending becomes idle (none fires). A
 * null `w` is ignored. O(n + slots). Never from one of its callbacks. */
TW_API void tw_wheel_free(tw_wheel* w);

/* The configuration the wheel was made with. O(1). */
TW_API tw_config tw_wheel_config(const tw_wheel* w);

/* The current time (ticks). While a callback runs: that timer's deadline. */
TW_API uint64_t tw_now(const tw_wheel* w);

/* Pending timers, expired ones not yet taken included. O(1) for
 * TW_CONFIG_COUNTED, otherwise a walk over them, O(n + slots). */
TW_API size_t tw_size(const tw_wheel* w);

/* Whether no timer is pending. O(1). */
TW_API bool tw_empty(const tw_wheel* w);

/* Schedules `timer` to fire at `deadline` (ticks). A deadline before now is
 * taken as now: the timer is due and fires at the next advance, after those
 * already due. A pending timer is moved and counts as newly scheduled.
 * Returns TW_EINVAL for a null pointer. O(1). */
TW_API tw_status tw_schedule(tw_wheel* w, tw_timer* timer, uint64_t deadline);

/* Schedules `timer` at the tick of [earliest, latest] (ticks) that fires
 * with the fewest cascades (the one with the most trailing zero bits); a
 * range that starts before now is cut to start at now, one that ends before
 * now makes the timer due now. Stores the deadline chosen in *chosen when
 * `chosen` is not null. Returns TW_ERANGE when earliest is after latest,
 * TW_EINVAL for a null wheel or timer. O(1). */
TW_API tw_status tw_schedule_in_range(tw_wheel* w, tw_timer* timer, uint64_t earliest,
                                      uint64_t latest, uint64_t* chosen);

/* Cancels `timer`. Returns whether it was pending in `w` (waiting, or
 * expired and not yet taken); false, changing nothing, for an idle timer or
 * a null pointer. O(1). */
TW_API bool tw_cancel(tw_wheel* w, tw_timer* timer);

/* Fires every timer with deadline <= `to` (ticks) exactly once, in
 * nondecreasing deadline order, equal deadlines in scheduling order (first
 * any timers queued by tw_advance_pull), calling cb(timer, user) for each;
 * then now is `to`. A timer a callback schedules at or before `to` fires in
 * this advance, in order. Stores how many fired in *fired when not null.
 * Returns TW_EBEHIND when `to` is behind now, TW_EREENTRY from a callback,
 * TW_EINVAL for a null wheel or callback. O(levels + fired + cascaded),
 * whatever the ticks elapsed; O(1) when nothing is due. */
TW_API tw_status tw_advance(tw_wheel* w, uint64_t to, tw_callback cb, void* user, size_t* fired);

/* The pull form: queues, in order, every timer with deadline <= `to`
 * (ticks), for tw_take_expired; then now is `to`. A queued timer stays
 * pending until taken. Stores how many it queued in *queued when not null.
 * Same costs and errors as tw_advance. */
TW_API tw_status tw_advance_pull(tw_wheel* w, uint64_t to, size_t* queued);

/* The next timer queued by tw_advance_pull, now idle, in order; NULL when
 * none is queued. O(1). */
TW_API tw_timer* tw_take_expired(tw_wheel* w);

/* Advances to the earliest pending deadline and fires what is due there, as
 * tw_advance does (the pop of an event list); fires nothing on an empty
 * wheel. Same errors and costs as tw_advance. */
TW_API tw_status tw_advance_to_next(tw_wheel* w, tw_callback cb, void* user, size_t* fired);

/* Stores the exact earliest pending deadline (ticks) in *deadline and
 * returns true; returns false, leaving *deadline untouched, when the wheel
 * is empty. O(levels + timers in the earliest slots). */
TW_API bool tw_next_deadline(const tw_wheel* w, uint64_t* deadline);

/* How long (ticks, relative) a poller may sleep: 0 when a timer is due or
 * queued, the largest tick value (UINT64_MAX; UINT32_MAX for
 * TW_CONFIG_WRAP32) when the wheel is empty. Cost of tw_next_deadline. */
TW_API uint64_t tw_time_until_next(const tw_wheel* w);

/* Fires every timer pending at the call, in order (queued ones first),
 * leaving now unchanged; timers the callbacks schedule stay pending. Stores
 * how many fired in *fired when not null. Returns TW_EREENTRY from a
 * callback, TW_EINVAL for a null wheel or callback. O(n log n) for the
 * timers of coarse slots. */
TW_API tw_status tw_expire_all(tw_wheel* w, tw_callback cb, void* user, size_t* fired);

/* Called for each pending timer by tw_for_each_pending. It may not
 * schedule, cancel, advance or change the wheel in any way. */
typedef void (*tw_visitor)(const tw_timer* timer, void* user);

/* Calls visit(timer, user) for every pending timer, in no promised order.
 * Returns TW_EINVAL for a null wheel or visitor. O(n + slots). */
TW_API tw_status tw_for_each_pending(const tw_wheel* w, tw_visitor visit, void* user);

/* Drops every pending timer; each becomes idle, none fires. O(n + slots).
 * Never from one of the wheel's callbacks. */
TW_API void tw_clear(tw_wheel* w);

/* Checks every invariant of the wheel against a plain recomputation.
 * Returns TW_OK, or TW_ECHECK with tw_last_error naming the invariant
 * broken. O(n + slots). */
TW_API tw_status tw_check(const tw_wheel* w);

/* A constant sentence naming `status`. Never null. */
TW_API const char* tw_strerror(tw_status status);

/* What the last failed call on `w` said (more than tw_strerror: which call
 * and why), or "" when none failed yet. Valid until the next failure. */
TW_API const char* tw_last_error(const tw_wheel* w);

#ifdef __cplusplus
}
#endif

#endif /* TIMERWHEEL_H */
