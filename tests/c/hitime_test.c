/* The HiTime drop-in: each function, and the original's documented edge
 * cases: stop of a timeout never started, start with a time already past,
 * start of a started timeout, time crossing 2^32 (where the original's 32
 * bins wrap) and timeouts beyond its bins' reach, expire_all. */
#include <hitime.h>
#include <limits.h>
#include <stdint.h>

#include "check.h"

static hitime_t ht;

static void test_timeout_basics(void) {
  hitimeout_t* t = hitimeout_new();
  CHECK(t != NULL);
  CHECK(hitimeout_when(t) == 0 && hitimeout_data(t) == NULL);
  int payload = 5;
  hitimeout_set(t, 100, &payload);
  CHECK(hitimeout_when(t) == 100 && hitimeout_data(t) == &payload);
  hitimeout_reset(t);
  CHECK(hitimeout_when(t) == 0 && hitimeout_data(t) == NULL);
  hitimeout_free(&t);
  CHECK(t == NULL);
  hitimeout_free(&t); /* a null one is ignored */
  hitimeout_t e;
  hitimeout_init(&e);
  hitimeout_destroy(&e);
  CHECK(hitimeout_when(&e) == 0);
}

static void test_stop_never_started(void) {
  hitime_init(&ht);
  hitimeout_t t;
  hitimeout_init(&t);
  hitime_stop(&ht, &t); /* harmless */
  hitime_stop(&ht, &t);
  CHECK(hitime_get_next(&ht) == NULL);
  CHECK(hitime_get_wait(&ht) == INT_MAX);
  CHECK(hitime_max_wait() == INT_MAX);
  CHECK(!hitime_timeout(&ht, 10));
  CHECK(hitime_get_last(&ht) == 10);
  hitime_destroy(&ht);
}

static void test_start_in_past(void) {
  hitime_init(&ht);
  CHECK(!hitime_timeout(&ht, 1000));
  hitimeout_t a, b, c;
  hitimeout_init(&a);
  hitimeout_init(&b);
  hitimeout_init(&c);
  hitimeout_set(&a, 400, NULL);  /* past */
  hitimeout_set(&b, 1000, NULL); /* now: expired too (when <= now) */
  hitimeout_set(&c, 1001, NULL);
  hitime_start(&ht, &a);
  hitime_start(&ht, &b);
  hitime_start(&ht, &c);
  CHECK(hitime_get_wait(&ht) == 0); /* expired ones wait to be taken */
  CHECK(hitime_timeout(&ht, 1000)); /* not later: no move, but expired wait */
  CHECK(hitime_get_next(&ht) == &a);
  CHECK(hitime_get_next(&ht) == &b);
  CHECK(hitime_get_next(&ht) == NULL);
  CHECK(hitime_get_wait(&ht) == 1);
  CHECK(hitime_get_wait_with(&ht, 1000) == 1);
  CHECK(hitime_get_wait_with(&ht, 1005) == 0);
  /* Starting a started timeout does nothing. */
  hitimeout_set(&c, 5000, NULL);
  hitime_start(&ht, &c);
  CHECK(hitime_timeout(&ht, 1001));
  CHECK(hitime_get_next(&ht) == &c);
  CHECK(hitime_get_next(&ht) == NULL);
  /* Stop of an expired timeout not yet taken. */
  hitimeout_set(&a, 10, NULL);
  hitime_start(&ht, &a);
  hitime_stop(&ht, &a);
  CHECK(!hitime_timeout(&ht, 1002));
  CHECK(hitime_get_next(&ht) == NULL);
  hitime_destroy(&ht);
}

static void test_order_touch_range(void) {
  hitime_init(&ht);
  hitime_timeout(&ht, 100);
  enum { N = 8 };
  hitimeout_t t[N];
  for (int i = 0; i < N; ++i) {
    hitimeout_init(&t[i]);
    hitimeout_set(&t[i], 200 + (uint64_t)(N - i) / 2 * 10, (void*)(intptr_t)i);
    hitime_start(&ht, &t[i]);
  }
  /* Times: 240 230 230 220 220 210 210 200 (i = 0..7). */
  CHECK(hitime_get_wait(&ht) == 100);
  hitime_touch(&ht, &t[7], 250); /* moved after all */
  hitime_touch(&ht, &t[6], 50);  /* past: expired at once */
  hitime_stop(&ht, &t[5]);
  CHECK(hitime_timeout(&ht, 300));
  const int expect[] = {6, 3, 4, 1, 2, 0, 7};
  for (int k = 0; k < 7; ++k) {
    hitimeout_t* got = hitime_get_next(&ht);
    CHECK(got != NULL && (intptr_t)hitimeout_data(got) == expect[k]);
  }
  CHECK(hitime_get_next(&ht) == NULL);
  /* A range: the time with the most trailing zeros in it. */
  hitimeout_t r;
  hitimeout_init(&r);
  hitime_start_range(&ht, &r, 301 + 32, 301 + 64);
  CHECK(hitimeout_when(&r) == 352);
  hitime_start_range(&ht, &r, 400, 500); /* started: nothing changes */
  CHECK(hitimeout_when(&r) == 352);
  hitime_stop(&ht, &r);
  hitime_start_range(&ht, &r, 500, 400); /* reversed */
  CHECK(hitimeout_when(&r) == 448);
  CHECK(!hitime_timeout(&ht, 447));
  CHECK(hitime_timeout(&ht, 448) && hitime_get_next(&ht) == &r);
  hitime_start_range(&ht, &r, 10, 20); /* entirely past */
  CHECK(hitime_get_next(&ht) == &r);
  hitime_destroy(&ht);
}

static void test_wrap_and_far(void) {
  hitime_init(&ht);
  const uint64_t base = (UINT64_C(1) << 32) - 50; /* the 32 bins wrap at 2^32 */
  hitime_timeout(&ht, base);
  hitimeout_t a, b, far;
  hitimeout_init(&a);
  hitimeout_init(&b);
  hitimeout_init(&far);
  hitimeout_set(&a, base + 40, NULL);
  hitimeout_set(&b, base + 60, NULL);                    /* past 2^32 */
  hitimeout_set(&far, base + (UINT64_C(1) << 40), NULL); /* beyond the bins' reach */
  hitime_start(&ht, &a);
  hitime_start(&ht, &b);
  hitime_start(&ht, &far);
  CHECK(hitime_get_wait(&ht) == 40);
  CHECK(hitime_timeout(&ht, base + 55));
  CHECK(hitime_get_next(&ht) == &a && hitime_get_next(&ht) == NULL);
  CHECK(hitime_get_wait(&ht) == 5);
  CHECK(hitime_timeout(&ht, base + 60) && hitime_get_next(&ht) == &b);
  CHECK(hitime_get_wait(&ht) == INT_MAX); /* capped */
  CHECK(!hitime_timeout(&ht, base + (UINT64_C(1) << 40) - 1));
  CHECK(hitime_timeout(&ht, base + (UINT64_C(1) << 40)) && hitime_get_next(&ht) == &far);
  hitime_destroy(&ht);
}

static void test_expire_all_and_r(void) {
  hitime_init(&ht);
  hitimeout_t t[4];
  for (int i = 0; i < 4; ++i) {
    hitimeout_init(&t[i]);
    hitimeout_set(&t[i], (uint64_t)(1000 * (4 - i)), NULL);
    hitime_start(&ht, &t[i]);
  }
  hitimestate_t s;
  hitimestate_init(&s, 2500);
  CHECK(hitime_timeout_r(&ht, &s, 1));
  CHECK(hitime_get_last(&ht) == 2500);
  CHECK(hitime_get_next(&ht) == &t[3] && hitime_get_next(&ht) == &t[2]);
  hitime_expire_all(&ht);
  CHECK(hitime_get_last(&ht) == 2500);
  CHECK(hitime_get_next(&ht) == &t[1] && hitime_get_next(&ht) == &t[0]);
  CHECK(hitime_get_next(&ht) == NULL);
  /* Destroy with timeouts still started and expired: they become idle. */
  hitime_start(&ht, &t[0]); /* 4000: in the wheel */
  hitime_start(&ht, &t[3]); /* 1000: expired */
  hitime_destroy(&ht);
  hitime_init(&ht);
  hitime_start(&ht, &t[0]); /* idle again: starts */
  CHECK(hitime_timeout(&ht, 4000) && hitime_get_next(&ht) == &t[0]);
  hitime_destroy(&ht);
}

static void test_bins(void) {
  hitime_init(&ht);
  hitime_timeout(&ht, 64); /* now = 0b1000000 */
  hitimeout_t t[4];
  const uint64_t when[4] = {65, 70, 127, 64 + (UINT64_C(1) << 40)}; /* bins 0, 2, 5, 31 */
  for (int i = 0; i < 4; ++i) {
    hitimeout_init(&t[i]);
    hitimeout_set(&t[i], when[i], NULL);
    hitime_start(&ht, &t[i]);
  }
  CHECK(hitime_count_bin(&ht, 0) == 1);
  CHECK(hitime_count_bin(&ht, 2) == 1);
  CHECK(hitime_count_bin(&ht, 5) == 1);
  CHECK(hitime_count_bin(&ht, 31) == 1);
  CHECK(hitime_count_bin(&ht, 1) == 0);
  CHECK(hitime_count_bin(&ht, -1) == 0 && hitime_count_bin(&ht, 32) == 0);
  hitime_expire_bin(&ht, 5); /* early, on request */
  CHECK(hitime_get_next(&ht) == &t[2] && hitime_get_next(&ht) == NULL);
  CHECK(hitime_count_bin(&ht, 5) == 0);
  hitime_expire_bin(&ht, 40); /* outside: nothing */
  CHECK(hitime_timeout(&ht, 70));
  CHECK(hitime_get_next(&ht) == &t[0] && hitime_get_next(&ht) == &t[1]);
  CHECK(hitime_get_next(&ht) == NULL);
  hitime_destroy(&ht);
}

static void test_many_random(void) {
  enum { N = 3000 };
  static hitimeout_t t[N];
  hitime_init(&ht);
  unsigned long long seed = 7;
  for (int i = 0; i < N; ++i) {
    hitimeout_init(&t[i]);
    hitimeout_set(&t[i], 1 + check_rand(&seed) % 100000u, (void*)(intptr_t)i);
    hitime_start(&ht, &t[i]);
  }
  for (int i = 0; i < N; i += 5) hitime_stop(&ht, &t[i]);
  uint64_t last = 0;
  intptr_t last_id = -1;
  size_t got = 0;
  for (uint64_t now = 0; now <= 100000u; now += 991) {
    hitime_timeout(&ht, now);
    hitimeout_t* x;
    while ((x = hitime_get_next(&ht)) != NULL) {
      const intptr_t id = (intptr_t)hitimeout_data(x);
      CHECK(hitimeout_when(x) <= now && id % 5 != 0);
      CHECK(hitimeout_when(x) > last || (hitimeout_when(x) == last && id > last_id));
      last = hitimeout_when(x);
      last_id = id;
      ++got;
    }
  }
  hitime_expire_all(&ht);
  while (hitime_get_next(&ht) != NULL) ++got;
  CHECK(got == N - N / 5);
  hitime_destroy(&ht);
}

int main(void) {
  RUN(test_timeout_basics);
  RUN(test_stop_never_started);
  RUN(test_start_in_past);
  RUN(test_order_touch_range);
  RUN(test_wrap_and_far);
  RUN(test_expire_all_and_r);
  RUN(test_bins);
  RUN(test_many_random);
  return check_result();
}
