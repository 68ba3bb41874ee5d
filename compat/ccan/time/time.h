/* ccan/time/time.h, as far as ccan/timer needs it: the types of a monotonic
 * time and a relative time, and a few helpers on them. Part of timerwheel's
 * drop-in for ccan/timer (see docs/c.md); not the whole of ccan/time. */
#ifndef CCAN_TIME_H
#define CCAN_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <timerwheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A time relative to another (a duration). */
struct timerel {
  struct timespec ts;
};

/* A point of the monotonic clock (CLOCK_MONOTONIC). */
struct timemono {
  struct timespec ts;
};

/* A point of the wall clock (CLOCK_REALTIME). */
struct timeabs {
  struct timespec ts;
};

/* The monotonic clock now. One clock_gettime. */
TW_API struct timemono time_mono(void);

/* `sec` seconds, `msec` milliseconds, `usec` microseconds, `nsec`
 * nanoseconds, as a relative time. */
static inline struct timerel time_from_sec(uint64_t sec) {
  struct timerel r;
  r.ts.tv_sec = sec; /* converted implicitly: the header is C++ too */
  r.ts.tv_nsec = 0;
  return r;
}

static inline struct timerel time_from_nsec(uint64_t nsec) {
  struct timerel r;
  r.ts.tv_sec = nsec / 1000000000u;
  r.ts.tv_nsec = nsec % 1000000000u;
  return r;
}

static inline struct timerel time_from_usec(uint64_t usec) { return time_from_nsec(usec * 1000u); }

static inline struct timerel time_from_msec(uint64_t msec) {
  return time_from_nsec(msec * 1000000u);
}

/* `mono` moved on by `rel`. */
static inline struct timemono timemono_add(struct timemono mono, struct timerel rel) {
  struct timemono r;
  r.ts.tv_sec = mono.ts.tv_sec + rel.ts.tv_sec;
  r.ts.tv_nsec = mono.ts.tv_nsec + rel.ts.tv_nsec;
  if (r.ts.tv_nsec >= 1000000000L) {
    r.ts.tv_nsec -= 1000000000L;
    r.ts.tv_sec += 1;
  }
  return r;
}

/* Whether `a` is before `b`, after it, or the same instant. */
static inline bool timemono_before(struct timemono a, struct timemono b) {
  return a.ts.tv_sec < b.ts.tv_sec || (a.ts.tv_sec == b.ts.tv_sec && a.ts.tv_nsec < b.ts.tv_nsec);
}

static inline bool timemono_after(struct timemono a, struct timemono b) {
  return timemono_before(b, a);
}

static inline bool timemono_eq(struct timemono a, struct timemono b) {
  return a.ts.tv_sec == b.ts.tv_sec && a.ts.tv_nsec == b.ts.tv_nsec;
}

/* The time from `start` to `end` (`end` not before `start`). */
static inline struct timerel timemono_between(struct timemono end, struct timemono start) {
  struct timerel r;
  r.ts.tv_sec = end.ts.tv_sec - start.ts.tv_sec;
  r.ts.tv_nsec = end.ts.tv_nsec - start.ts.tv_nsec;
  if (r.ts.tv_nsec < 0) {
    r.ts.tv_nsec += 1000000000L;
    r.ts.tv_sec -= 1;
  }
  return r;
}

/* A relative time in whole milliseconds, microseconds, nanoseconds. */
static inline int64_t time_to_nsec(struct timerel rel) {
  const int64_t sec = rel.ts.tv_sec;
  return sec * 1000000000 + rel.ts.tv_nsec;
}

static inline int64_t time_to_usec(struct timerel rel) { return time_to_nsec(rel) / 1000; }

static inline int64_t time_to_msec(struct timerel rel) { return time_to_nsec(rel) / 1000000; }

#ifdef __cplusplus
}
#endif

#endif /* CCAN_TIME_H */
