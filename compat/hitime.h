/* hitime.h, on timerwheel: the same functions and types as HiTime's public
 * header, implemented on the wheel through the C API (timerwheel.h). Put
 * this directory first on the include path to switch a program over; link
 * timerwheel's C library. Times are plain 64-bit numbers in a unit the
 * program chooses, as in the original. How it differs from the original is
 * in docs/c.md: timeouts come out of hitime_get_next in exact (when, start
 * order) order instead of bin order, and hitime_get_wait is exact. */
#ifndef HITIME_H_
#define HITIME_H_

#include <stdbool.h>
#include <stdint.h>
#include <timerwheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The link of a timeout in the list of expired timeouts. Private. */
typedef struct hitime_node_s {
  struct hitime_node_s* next;
  struct hitime_node_s* prev;
} hitime_node_t;

/* A timeout: embed one, or make one with hitimeout_new. `data` and `when`
 * are read with hitimeout_data and hitimeout_when; the rest is private. */
typedef struct {
  hitime_node_t node; /* linked while expired and not yet taken */
  tw_timer timer;     /* linked while waiting in the wheel */
  void* data;
  uint64_t when;
} hitimeout_t;

/* Makes `t` idle with no data and time 0. Never on a started timeout. */
TW_API void hitimeout_init(hitimeout_t* t);
/* As hitimeout_init. */
TW_API void hitimeout_reset(hitimeout_t* t);
/* Clears `t` (stop it first). */
TW_API void hitimeout_destroy(hitimeout_t* t);
/* A new idle timeout from malloc, or NULL when out of memory. */
TW_API hitimeout_t* hitimeout_new(void);
/* Frees *t (stop it first) and sets *t to NULL; a null *t is ignored. */
TW_API void hitimeout_free(hitimeout_t** t);
/* Sets the time the timeout expires and its data; a started timeout keeps
 * its place until hitime_touch. */
TW_API void hitimeout_set(hitimeout_t* t, uint64_t when, void* data);
TW_API uint64_t hitimeout_when(hitimeout_t* t);
TW_API void* hitimeout_data(hitimeout_t* t);

/* A timeout manager. Fields private. Not movable once initialised. */
typedef struct {
  uint64_t last;         /* the manager's now */
  tw_wheel* wheel;       /* timeouts not yet expired */
  hitime_node_t expired; /* expired timeouts, in order, for hitime_get_next */
} hitime_t;

/* Initialises `h` with time 0. Aborts with a message if the wheel (a few
 * tens of kilobytes) cannot be allocated: the original's signature has no
 * way to say so. O(slots). */
TW_API void hitime_init(hitime_t* h);
/* Frees the wheel; every timeout still started or expired becomes idle. */
TW_API void hitime_destroy(hitime_t* h);

/* Starts `t` to expire at hitimeout_when(t). Does nothing when `t` is
 * already started. A time at or before the manager's now expires at once:
 * `t` goes straight to the expired list. O(1). */
TW_API void hitime_start(hitime_t* h, hitimeout_t* t);
/* Starts `t` at the time of [min, max] that costs the wheel the least work
 * (the one with the most trailing zero bits), and sets its time to it. Does
 * nothing when `t` is already started. A reversed range is read as
 * [max, min]. O(1). */
TW_API void hitime_start_range(hitime_t* h, hitimeout_t* t, uint64_t min, uint64_t max);
/* Stops `t`: started or expired and not yet taken. Harmless on a timeout
 * never started (after hitimeout_init or hitimeout_new). O(1). */
TW_API void hitime_stop(hitime_t* h, hitimeout_t* t);
/* Sets the time of `t` to `when` and (re)starts it there, started or not.
 * O(1). */
TW_API void hitime_touch(hitime_t* h, hitimeout_t* t, uint64_t when);

/* How long to wait before the next timeout expires: 0 when expired
 * timeouts wait to be taken, hitime_max_wait() when none is started, else
 * the exact time from now to the earliest, at most hitime_max_wait().
 * O(levels + timeouts in the earliest slots). */
TW_API int hitime_get_wait(hitime_t* h);
/* hitime_get_wait as seen at `now`, without moving the manager's now: the
 * wait less the time from the manager's now to `now`, at least 0. */
TW_API int hitime_get_wait_with(hitime_t* h, uint64_t now);
/* Moves the manager's now to `now` when it is later, expiring every
 * timeout with a time at or before it into the expired list, in order.
 * Returns whether expired timeouts wait to be taken.
 * O(levels + timeouts expired + timeouts cascaded). */
TW_API bool hitime_timeout(hitime_t* h, uint64_t now);

/* Expires every started timeout at once, in order, into the expired list.
 * O(n log n) for the timeouts of coarse slots. */
TW_API void hitime_expire_all(hitime_t* h);
/* The next expired timeout, removed (it is idle), or NULL. O(1). */
TW_API hitimeout_t* hitime_get_next(hitime_t* h);

/* The largest wait hitime_get_wait returns: INT_MAX. */
TW_API uint64_t hitime_max_wait(void);
/* The manager's now. */
TW_API uint64_t hitime_get_last(hitime_t* h);

/* The original's bins, for its tests: a started timeout not yet expired
 * is in bin k when bit k is the highest bit in which its time differs from
 * the manager's now, or in bin 31 (the original's overflow bin) when its
 * time is 2^31 or more away in that sense. */
#define HITIME_BINS (34)
/* How many timeouts are in bin `index` (0 for an index outside 0..31). A
 * walk over the started timeouts: O(n + slots). */
TW_API int hitime_count_bin(hitime_t* h, int index);
/* Expires every timeout of bin `index` at once (nothing for an index
 * outside 0..31), into the expired list, in no promised order among
 * themselves: early, as the original does, on request. O(n + slots). */
TW_API void hitime_expire_bin(hitime_t* h, int index);

/* The state of a timeout pass done in parts (hitime_timeout_r). */
typedef struct {
  int state;
  uint64_t now;
} hitimestate_t;

/* Starts a pass to `now`. */
TW_API void hitimestate_init(hitimestate_t* s, uint64_t now);
/* Does the pass that `s` describes; returns true when it is done. The
 * wheel's pass is short (no timeout moves more than once per level), so it
 * is done in one call whatever `maxops`. */
TW_API bool hitime_timeout_r(hitime_t* h, hitimestate_t* s, int maxops);

#ifdef __cplusplus
}
#endif

#endif /* HITIME_H_ */
