/* The ccan/timer drop-in: each function, and the original's documented
 * edge cases: timer_earliest on an empty set, timers_expire one timer per
 * call until NULL, a time before the start or the current time expiring at
 * once, timer_del on an idle timer and twice. */
#include <ccan/timer/timer.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

struct job {
  int id;
  struct timer t;
};

static struct timemono at_usec(uint64_t usec) {
  struct timemono m;
  m.ts.tv_sec = (time_t)(usec / 1000000u);
  m.ts.tv_nsec = (long)(usec % 1000000u * 1000u);
  return m;
}

static uint64_t usec_of(struct timemono m) {
  return (uint64_t)m.ts.tv_sec * 1000000u + (uint64_t)m.ts.tv_nsec / 1000u;
}

static void test_empty(void) {
  struct timers timers;
  timers_init(&timers, at_usec(1000));
  struct timemono first = at_usec(77);
  CHECK(!timer_earliest(&timers, &first));
  CHECK(usec_of(first) == 77); /* untouched */
  CHECK(timers_expire(&timers, at_usec(5000)) == NULL);
  CHECK(timers_check(&timers, NULL) == &timers);
  CHECK(timers_check(&timers, "empty") == &timers);
  timers_cleanup(&timers);
}

static void test_one_per_call(void) {
  struct timers timers;
  timers_init(&timers, at_usec(1000));
  struct job jobs[6];
  /* Times 5000, 3000, 3000, 9000, 500 (before the start), 3000. */
  const uint64_t when[6] = {5000, 3000, 3000, 9000, 500, 3000};
  for (int i = 0; i < 6; ++i) {
    jobs[i].id = i;
    timer_init(&jobs[i].t);
    timer_addmono(&timers, &jobs[i].t, at_usec(when[i]));
  }
  struct timemono first;
  CHECK(timer_earliest(&timers, &first));
  CHECK(usec_of(first) == 1000); /* the one before the start is due at once */
  /* Before anything but job 4 is due. */
  struct timer* t = timers_expire(&timers, at_usec(2999));
  CHECK(t == &jobs[4].t);
  CHECK(timers_expire(&timers, at_usec(2999)) == NULL);
  /* One per call, in (time, adding order). */
  const int expect[] = {1, 2, 5, 0};
  for (int k = 0; k < 4; ++k) {
    t = timers_expire(&timers, at_usec(6000));
    CHECK(t != NULL && tw_container_of(t, struct job, t)->id == expect[k]);
    CHECK(timers_check(&timers, "expiring") != NULL);
  }
  CHECK(timers_expire(&timers, at_usec(6000)) == NULL);
  /* A time before the current one (6000) expires at once. */
  struct job late = {.id = 10};
  timer_init(&late.t);
  timer_addmono(&timers, &late.t, at_usec(4000));
  CHECK(timer_earliest(&timers, &first) && usec_of(first) == 6000);
  CHECK(timers_expire(&timers, at_usec(6000)) == &late.t);
  /* timer_del: idle, twice, pending. */
  timer_del(&timers, &late.t);
  timer_del(&timers, &late.t);
  timer_del(&timers, &jobs[3].t);
  CHECK(!timer_earliest(&timers, &first));
  CHECK(timers_expire(&timers, at_usec(100000)) == NULL);
  timers_cleanup(&timers);
}

static void test_granularity_and_moves(void) {
  struct timers timers;
  timers_init(&timers, at_usec(0));
  struct job j = {.id = 1};
  timer_init(&j.t);
  /* 2000.5 us: rounded up to 2001 us, never early. */
  struct timemono when = at_usec(2000);
  when.ts.tv_nsec += 500;
  timer_addmono(&timers, &j.t, when);
  struct timemono first;
  CHECK(timer_earliest(&timers, &first) && usec_of(first) == 2001);
  CHECK(timers_expire(&timers, at_usec(2000)) == NULL);
  /* Adding again moves it. */
  timer_addmono(&timers, &j.t, at_usec(3000));
  CHECK(timers_expire(&timers, at_usec(2500)) == NULL);
  CHECK(timers_expire(&timers, at_usec(3000)) == &j.t);
  /* timer_addrel counts from the monotonic clock now. */
  timers_cleanup(&timers);
  timers_init(&timers, time_mono());
  timer_init(&j.t);
  const struct timemono before = time_mono();
  timer_addrel(&timers, &j.t, time_from_msec(50));
  const struct timemono after = time_mono();
  CHECK(timer_earliest(&timers, &first));
  CHECK(usec_of(first) >= usec_of(timemono_add(before, time_from_msec(50))));
  CHECK(usec_of(first) <= usec_of(timemono_add(after, time_from_msec(50))) + 1);
  CHECK(timers_expire(&timers, after) == NULL);
  timers_cleanup(&timers);
}

static void test_many_random(void) {
  enum { N = 3000 };
  static struct job jobs[N];
  struct timers timers;
  timers_init(&timers, at_usec(0));
  unsigned long long seed = 99;
  for (int i = 0; i < N; ++i) {
    jobs[i].id = i;
    timer_init(&jobs[i].t);
    timer_addmono(&timers, &jobs[i].t, at_usec(1 + check_rand(&seed) % 1000000u));
  }
  for (int i = 0; i < N; i += 4) timer_del(&timers, &jobs[i].t);
  uint64_t last = 0;
  int last_id = -1;
  size_t got = 0;
  for (uint64_t now = 0; now <= 1000000u; now += 7919) {
    struct timer* t;
    while ((t = timers_expire(&timers, at_usec(now))) != NULL) {
      struct job* j = tw_container_of(t, struct job, t);
      const uint64_t d = tw_timer_deadline(timers.wheel, &t->tw);
      CHECK(d <= now);
      CHECK(d > last || (d == last && j->id > last_id));
      CHECK(j->id % 4 != 0);
      last = d;
      last_id = j->id;
      ++got;
    }
  }
  while (timers_expire(&timers, at_usec(2000000u)) != NULL) ++got;
  CHECK(got == N - N / 4);
  timers_cleanup(&timers);
}

static void test_time_helpers(void) {
  CHECK(time_to_nsec(time_from_sec(2)) == 2000000000);
  CHECK(time_to_msec(time_from_msec(1500)) == 1500);
  CHECK(time_to_usec(time_from_usec(2500001)) == 2500001);
  CHECK(time_to_nsec(time_from_nsec(1999999999)) == 1999999999);
  const struct timemono a = at_usec(999999);
  const struct timemono b = timemono_add(a, time_from_usec(2)); /* carries into tv_sec */
  CHECK(b.ts.tv_sec == 1 && b.ts.tv_nsec == 1000);
  CHECK(timemono_before(a, b) && timemono_after(b, a) && !timemono_eq(a, b));
  CHECK(time_to_usec(timemono_between(b, a)) == 2);
  const struct timemono now = time_mono(), later = time_mono();
  CHECK(!timemono_before(later, now));
}

static int allocs = 0, frees = 0;

static void* counting_alloc(size_t len, void* arg) {
  CHECK(arg == &allocs);
  ++allocs;
  return malloc(len);
}

static void counting_free(const void* p, void* arg) {
  CHECK(arg == &allocs);
  ++frees;
  free((void*)(uintptr_t)p);
}

static void test_allocator(void) {
  timers_set_allocator(counting_alloc, counting_free, &allocs);
  struct timers timers;
  timers_init(&timers, at_usec(0));
  CHECK(allocs == 1 && frees == 0);
  /* Restoring the default before cleanup: the block still goes back to
   * the allocator it came from. */
  timers_set_allocator(NULL, NULL, NULL);
  struct job j = {.id = 1};
  timer_init(&j.t);
  timer_addmono(&timers, &j.t, at_usec(10));
  CHECK(timers_expire(&timers, at_usec(10)) == &j.t);
  timers_cleanup(&timers);
  CHECK(allocs == 1 && frees == 1);
  timers_init(&timers, at_usec(0)); /* malloc again */
  CHECK(allocs == 1);
  timers_cleanup(&timers);
}

/* Every granularity that divides a second: a time becomes ticks by a
 * reciprocal, which must agree with the division everywhere, rounded up for
 * a timer's time and down for the expire argument. */
static void test_every_granularity(void) {
  unsigned long long seed = 7;
  for (uint64_t two = 1; two <= 512; two *= 2) {
    for (uint64_t five = 1; five <= 1953125; five *= 5) {
      const uint64_t g = two * five;
      const uint64_t per_sec = 1000000000u / g;
      struct timers timers;
      struct timemono start = {{0, 0}};
      timerwheel_ccan_timers_init(&timers, start, g);
      /* Nanoseconds at the edges of grains and at random; the last is not
       * normalised (above 2^31), which takes the division. */
      uint64_t ns[16] = {0, 1, g - 1, g, g + 1, 999999999u, 1000000000u - g, 3000000001u};
      for (int k = 8; k < 16; ++k) {
        const uint64_t grain = check_rand(&seed) % per_sec;
        ns[k] = grain * g + (k % 3 == 0 ? 0 : k % 3 == 1 ? g - 1 : 1);
      }
      for (int k = 0; k < 16; ++k) {
        const uint64_t sec = 4u * (uint64_t)(k + 1); /* increasing: past 3000000001 ns */
        struct timemono when;
        when.ts.tv_sec = (time_t)sec;
        when.ts.tv_nsec = (long)ns[k];
        const uint64_t ceil_ticks = sec * per_sec + (ns[k] + g - 1) / g;
        const uint64_t floor_ticks = sec * per_sec + ns[k] / g;
        struct job j = {.id = k};
        timer_init(&j.t);
        timer_addmono(&timers, &j.t, when);
        CHECK(tw_timer_deadline(timers.wheel, &j.t.tw) == ceil_ticks);
        struct timemono first;
        CHECK(timer_earliest(&timers, &first));
        CHECK((uint64_t)first.ts.tv_sec * per_sec + (uint64_t)first.ts.tv_nsec / g == ceil_ticks);
        /* Expiring at `when` itself: due exactly when no rounding was needed. */
        struct timer* t = timers_expire(&timers, when);
        CHECK((t == &j.t) == (ceil_ticks == floor_ticks));
        CHECK(tw_now(timers.wheel) == floor_ticks);
        if (t == NULL) {
          const struct timemono due = timemono_add(when, time_from_nsec(g));
          CHECK(timers_expire(&timers, due) == &j.t);
        }
        CHECK(timers_expire(&timers, when) == NULL);
      }
      timers_cleanup(&timers);
    }
  }
}

/* timers_expire hands out what one advance queued, one per call; deleting
 * or adding again a queued timer, or adding one before the current time
 * between the calls, changes what the next calls return. */
static void test_queued_changes(void) {
  struct timers timers;
  timers_init(&timers, at_usec(0));
  struct job j[5];
  for (int i = 0; i < 5; ++i) {
    j[i].id = i;
    timer_init(&j[i].t);
    timer_addmono(&timers, &j[i].t, at_usec(100));
  }
  CHECK(timers_expire(&timers, at_usec(100)) == &j[0].t);
  timer_del(&timers, &j[1].t);                   /* queued: gone */
  timer_addmono(&timers, &j[2].t, at_usec(200)); /* queued: moved later */
  struct job early = {.id = 9};
  timer_init(&early.t);
  timer_addmono(&timers, &early.t, at_usec(50)); /* before now: due at once */
  CHECK(timers_expire(&timers, at_usec(100)) == &j[3].t);
  CHECK(timers_expire(&timers, at_usec(100)) == &j[4].t);
  CHECK(timers_expire(&timers, at_usec(100)) == &early.t);
  CHECK(timers_expire(&timers, at_usec(100)) == NULL);
  CHECK(timers_expire(&timers, at_usec(199)) == NULL);
  CHECK(timers_expire(&timers, at_usec(200)) == &j[2].t);
  CHECK(timers_expire(&timers, at_usec(200)) == NULL);
  /* After a call that found nothing more: timers added before, at and after
   * the current time, each seen by the next call. */
  struct job late[3];
  for (int i = 0; i < 3; ++i) {
    late[i].id = 20 + i;
    timer_init(&late[i].t);
  }
  timer_addmono(&timers, &late[0].t, at_usec(150));
  CHECK(timers_expire(&timers, at_usec(200)) == &late[0].t);
  CHECK(timers_expire(&timers, at_usec(200)) == NULL);
  CHECK(timers_expire(&timers, at_usec(100)) == NULL); /* behind: the current time */
  timer_addmono(&timers, &late[1].t, at_usec(200));
  CHECK(timers_expire(&timers, at_usec(100)) == &late[1].t);
  timer_addmono(&timers, &late[2].t, at_usec(201));
  CHECK(timers_expire(&timers, at_usec(200)) == NULL);
  CHECK(timers_expire(&timers, at_usec(201)) == &late[2].t);
  CHECK(timers_expire(&timers, at_usec(201)) == NULL);
  /* All of a queue deleted: the next call finds nothing, then new ones. */
  for (int i = 0; i < 3; ++i) timer_addmono(&timers, &j[i].t, at_usec(300));
  CHECK(timers_expire(&timers, at_usec(300)) == &j[0].t);
  timer_del(&timers, &j[1].t);
  timer_del(&timers, &j[2].t);
  CHECK(timers_expire(&timers, at_usec(300)) == NULL);
  timer_addmono(&timers, &j[1].t, at_usec(301));
  CHECK(timers_expire(&timers, at_usec(301)) == &j[1].t);
  CHECK(timers_check(&timers, "queued") == &timers);
  timers_cleanup(&timers);
}

int main(void) {
  RUN(test_allocator);
  RUN(test_time_helpers);
  RUN(test_empty);
  RUN(test_one_per_call);
  RUN(test_granularity_and_moves);
  RUN(test_many_random);
  RUN(test_every_granularity);
  RUN(test_queued_changes);
  return check_result();
}
