/* The C API (timerwheel.h): every function, the errors it returns, exact
 * order and re-entrant callbacks, on each configuration. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <timerwheel.h>

#include "check.h"

struct item {
  int id;
  tw_timer timer;
};

/* What fired, in order. */
struct log {
  int ids[4096];
  uint64_t at[4096];
  size_t n;
  tw_wheel* wheel;
};

static void record(tw_timer* t, void* user) {
  struct log* log = user;
  struct item* it = tw_container_of(t, struct item, timer);
  CHECK(!tw_timer_pending(t));
  if (log->n < 4096) {
    log->ids[log->n] = it->id;
    log->at[log->n] = tw_now(log->wheel);
    ++log->n;
  }
}

static const tw_config configs[] = {TW_CONFIG_DEFAULT, TW_CONFIG_COUNTED, TW_CONFIG_WRAP32};

static void test_new_and_free(void) {
  tw_wheel* w = NULL;
  CHECK(tw_wheel_new(NULL, TW_CONFIG_DEFAULT, 0) == TW_EINVAL);
  CHECK(tw_wheel_new(&w, (tw_config)42, 0) == TW_EINVAL);
  CHECK(w == NULL);
  for (size_t c = 0; c < 3; ++c) {
    CHECK(tw_wheel_new(&w, configs[c], 1000) == TW_OK);
    CHECK(w != NULL);
    CHECK(tw_wheel_config(w) == configs[c]);
    CHECK(tw_now(w) == 1000);
    CHECK(tw_size(w) == 0);
    CHECK(tw_empty(w));
    CHECK(tw_check(w) == TW_OK);
    CHECK(strcmp(tw_last_error(w), "") == 0);
    tw_wheel_free(w);
  }
  tw_wheel_free(NULL);
}

static void test_order(tw_config config) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, config, 0) == TW_OK);
  struct log log = {.n = 0, .wheel = w};
  enum { N = 2000 };
  static struct item items[N];
  unsigned long long seed = 12345 + (unsigned)config;
  for (int i = 0; i < N; ++i) {
    items[i].id = i;
    tw_timer_init(&items[i].timer);
    CHECK(!tw_timer_pending(&items[i].timer));
    /* Few distinct deadlines, so that equal ones show FIFO order. */
    const uint64_t d = 1 + check_rand(&seed) % 5000 / 16 * 16;
    CHECK(tw_schedule(w, &items[i].timer, d) == TW_OK);
    CHECK(tw_timer_pending(&items[i].timer));
    CHECK(tw_timer_deadline(w, &items[i].timer) == d);
  }
  CHECK(tw_size(w) == N);
  CHECK(!tw_empty(w));
  CHECK(tw_check(w) == TW_OK);
  /* Cancel every third. */
  size_t cancelled = 0;
  for (int i = 0; i < N; i += 3) {
    CHECK(tw_cancel(w, &items[i].timer));
    CHECK(!tw_cancel(w, &items[i].timer));
    ++cancelled;
  }
  CHECK(tw_size(w) == N - cancelled);
  uint64_t next = 0;
  CHECK(tw_next_deadline(w, &next));
  CHECK(tw_time_until_next(w) == next);
  size_t fired_total = 0;
  for (uint64_t to = 0; to <= 6000; to += 97) {
    size_t fired = 99;
    CHECK(tw_advance(w, to, record, &log, &fired) == TW_OK);
    fired_total += fired;
    CHECK(tw_now(w) == to);
    CHECK(tw_check(w) == TW_OK);
  }
  CHECK(fired_total == N - cancelled);
  CHECK(log.n == N - cancelled);
  for (size_t k = 0; k < log.n; ++k) {
    const struct item* it = &items[log.ids[k]];
    CHECK(it->id % 3 != 0);
    CHECK(log.at[k] == tw_timer_deadline(w, &it->timer)); /* never early or late */
    if (k > 0) {
      const struct item* prev = &items[log.ids[k - 1]];
      const uint64_t a = tw_timer_deadline(w, &prev->timer);
      const uint64_t b = tw_timer_deadline(w, &it->timer);
      CHECK(a < b || (a == b && prev->id < it->id));
    }
  }
  CHECK(tw_empty(w));
  CHECK(!tw_next_deadline(w, &next));
  tw_wheel_free(w);
}

static void test_errors(void) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_DEFAULT, 100) == TW_OK);
  struct item it = {.id = 1, .timer = TW_TIMER_INIT};
  struct log log = {.n = 0, .wheel = w};
  CHECK(tw_schedule(NULL, &it.timer, 5) == TW_EINVAL);
  CHECK(tw_schedule(w, NULL, 5) == TW_EINVAL);
  CHECK(strlen(tw_last_error(w)) > 0);
  CHECK(tw_advance(w, 50, record, &log, NULL) == TW_EBEHIND);
  CHECK(strstr(tw_last_error(w), "tw_advance") != NULL);
  CHECK(tw_now(w) == 100);
  CHECK(tw_advance_pull(w, 99, NULL) == TW_EBEHIND);
  CHECK(tw_advance(w, 200, NULL, NULL, NULL) == TW_EINVAL);
  CHECK(tw_expire_all(w, NULL, NULL, NULL) == TW_EINVAL);
  uint64_t chosen = 7;
  CHECK(tw_schedule_in_range(w, &it.timer, 300, 200, &chosen) == TW_ERANGE);
  CHECK(chosen == 7);
  CHECK(!tw_timer_pending(&it.timer));
  CHECK(tw_check(NULL) == TW_EINVAL);
  CHECK(!tw_cancel(w, NULL));
  CHECK(tw_take_expired(NULL) == NULL);
  CHECK(tw_take_expired(w) == NULL);
  /* Every status has a name. */
  for (int s = TW_OK; s <= TW_EINTERNAL; ++s) {
    const char* name = tw_strerror((tw_status)s);
    CHECK(name != NULL && strlen(name) > 0);
  }
  CHECK(strcmp(tw_strerror((tw_status)99), "unknown tw_status") == 0);
  tw_wheel_free(w);
}

static void test_range_and_past(void) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_DEFAULT, 1000) == TW_OK);
  struct item a = {.id = 1}, b = {.id = 2}, c = {.id = 3};
  tw_timer_init(&a.timer);
  tw_timer_init(&b.timer);
  tw_timer_init(&c.timer);
  uint64_t chosen = 0;
  CHECK(tw_schedule_in_range(w, &a.timer, 1001, 1100, &chosen) == TW_OK);
  CHECK(chosen >= 1001 && chosen <= 1100);
  CHECK(chosen == 1024); /* the most trailing zeros in the range */
  CHECK(tw_schedule_in_range(w, &b.timer, 10, 20, NULL) == TW_OK);
  CHECK(tw_timer_deadline(w, &b.timer) == 1000); /* ends before now: due now */
  CHECK(tw_schedule(w, &c.timer, 5) == TW_OK);   /* before now: due now, after b */
  CHECK(tw_time_until_next(w) == 0);
  struct log log = {.n = 0, .wheel = w};
  size_t fired = 0;
  CHECK(tw_advance(w, 1000, record, &log, &fired) == TW_OK);
  CHECK(fired == 2 && log.ids[0] == 2 && log.ids[1] == 3);
  CHECK(tw_advance(w, 1023, record, &log, &fired) == TW_OK);
  CHECK(fired == 0);
  CHECK(tw_advance(w, 1024, record, &log, &fired) == TW_OK);
  CHECK(fired == 1 && log.ids[2] == 1);
  tw_wheel_free(w);
}

/* Callbacks that schedule and cancel, and try to re-enter. */
struct reentry {
  tw_wheel* w;
  struct item* items;
  struct log log;
  tw_status nested;
};

static void reentrant(tw_timer* t, void* user) {
  struct reentry* r = user;
  struct item* it = tw_container_of(t, struct item, timer);
  r->log.ids[r->log.n] = it->id;
  r->log.at[r->log.n++] = tw_now(r->w);
  if (it->id == 0) {
    /* Schedule one due in this advance, and cancel another. */
    CHECK(tw_schedule(r->w, &r->items[3].timer, tw_now(r->w) + 5) == TW_OK);
    (void)tw_cancel(r->w, &r->items[2].timer);
    r->nested = tw_advance(r->w, tw_now(r->w) + 100, reentrant, r, NULL);
  }
  if (it->id == 1) CHECK(tw_schedule(r->w, t, tw_now(r->w) + 1000) == TW_OK); /* periodic */
}

static void test_reentry(void) {
  struct item items[4];
  struct reentry r;
  CHECK(tw_wheel_new(&r.w, TW_CONFIG_DEFAULT, 0) == TW_OK);
  r.items = items;
  r.log.n = 0;
  r.log.wheel = r.w;
  for (int i = 0; i < 4; ++i) {
    items[i].id = i;
    tw_timer_init(&items[i].timer);
  }
  tw_schedule(r.w, &items[0].timer, 10);
  tw_schedule(r.w, &items[1].timer, 12);
  tw_schedule(r.w, &items[2].timer, 14);
  size_t fired = 0;
  CHECK(tw_advance(r.w, 20, reentrant, &r, &fired) == TW_OK);
  CHECK(r.nested == TW_EREENTRY);
  CHECK(fired == 3);
  CHECK(r.log.n == 3 && r.log.ids[0] == 0 && r.log.ids[1] == 1 && r.log.ids[2] == 3);
  CHECK(r.log.at[2] == 15);
  CHECK(!tw_timer_pending(&items[2].timer));
  CHECK(tw_timer_pending(&items[1].timer) && tw_timer_deadline(r.w, &items[1].timer) == 1012);
  CHECK(tw_check(r.w) == TW_OK);
  /* expire_all refuses re-entry too, and leaves now. */
  r.log.n = 0;
  items[0].id = 0;
  tw_schedule(r.w, &items[0].timer, 500);
  CHECK(tw_expire_all(r.w, reentrant, &r, &fired) == TW_OK);
  CHECK(r.nested == TW_EREENTRY);
  CHECK(tw_now(r.w) == 20);
  /* items[0] at 500, items[1] at 1012; items[0] rescheduled items[3] (not
   * fired: scheduled during expire_all) and items[1] rescheduled itself. */
  CHECK(fired == 2 && r.log.ids[0] == 0 && r.log.ids[1] == 1);
  CHECK(tw_size(r.w) == 2);
  tw_clear(r.w);
  CHECK(tw_empty(r.w) && !tw_timer_pending(&items[3].timer));
  tw_wheel_free(r.w);
}

static void test_pull(tw_config config) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, config, 10) == TW_OK);
  struct item items[5];
  for (int i = 0; i < 5; ++i) {
    items[i].id = i;
    tw_timer_init(&items[i].timer);
    tw_schedule(w, &items[i].timer, (uint64_t)(50 - 5 * i));
  }
  size_t queued = 0;
  CHECK(tw_advance_pull(w, 40, &queued) == TW_OK);
  CHECK(queued == 3);
  CHECK(tw_size(w) == 5);
  CHECK(tw_time_until_next(w) == 0);
  uint64_t next = 0;
  CHECK(tw_next_deadline(w, &next) && next == 30);
  tw_timer* t = tw_take_expired(w);
  CHECK(t == &items[4].timer && !tw_timer_pending(t));
  CHECK(tw_cancel(w, &items[3].timer)); /* a queued timer can be cancelled */
  t = tw_take_expired(w);
  CHECK(t == &items[2].timer);
  CHECK(tw_take_expired(w) == NULL);
  CHECK(tw_size(w) == 2);
  /* The callback form hands queued timers first. */
  CHECK(tw_advance_pull(w, 45, &queued) == TW_OK && queued == 1);
  struct log log = {.n = 0, .wheel = w};
  size_t fired = 0;
  CHECK(tw_advance(w, 50, record, &log, &fired) == TW_OK);
  CHECK(fired == 2 && log.ids[0] == 1 && log.ids[1] == 0);
  tw_wheel_free(w);
}

static void test_advance_to_next(void) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_DEFAULT, 0) == TW_OK);
  struct item items[3];
  struct log log = {.n = 0, .wheel = w};
  size_t fired = 9;
  CHECK(tw_advance_to_next(w, record, &log, &fired) == TW_OK && fired == 0);
  for (int i = 0; i < 3; ++i) {
    items[i].id = i;
    tw_timer_init(&items[i].timer);
    tw_schedule(w, &items[i].timer, 1000000u * (uint64_t)(3 - i));
  }
  CHECK(tw_advance_to_next(w, record, &log, &fired) == TW_OK && fired == 1);
  CHECK(log.ids[0] == 2 && tw_now(w) == 1000000u);
  CHECK(tw_advance_to_next(w, record, &log, &fired) == TW_OK && fired == 1);
  CHECK(log.ids[1] == 1 && tw_now(w) == 2000000u);
  tw_wheel_free(w);
}

static void test_wrap32(void) {
  tw_wheel* w;
  const uint64_t start = UINT32_MAX - 100u;
  CHECK(tw_wheel_new(&w, TW_CONFIG_WRAP32, start) == TW_OK);
  struct item a = {.id = 1}, b = {.id = 2};
  tw_timer_init(&a.timer);
  tw_timer_init(&b.timer);
  CHECK(tw_schedule(w, &a.timer, start + 50) == TW_OK);
  CHECK(tw_schedule(w, &b.timer, start + 150) == TW_OK); /* past 2^32: wraps */
  CHECK(tw_timer_deadline(w, &b.timer) == 49);
  CHECK(tw_time_until_next(w) == 50);
  struct log log = {.n = 0, .wheel = w};
  size_t fired = 0;
  CHECK(tw_advance(w, (start + 120) & 0xffffffffu, record, &log, &fired) == TW_OK);
  CHECK(fired == 1 && log.ids[0] == 1);
  CHECK(tw_now(w) == 19);
  CHECK(tw_time_until_next(w) == 30);
  CHECK(tw_advance(w, 49, record, &log, &fired) == TW_OK);
  CHECK(fired == 1 && log.ids[1] == 2);
  CHECK(tw_time_until_next(w) == UINT32_MAX);
  CHECK(tw_check(w) == TW_OK);
  tw_wheel_free(w);
}

static void count_visit(const tw_timer* t, void* user) {
  CHECK(tw_timer_pending(t));
  ++*(size_t*)user;
}

static void test_for_each_pending(void) {
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_DEFAULT, 0) == TW_OK);
  struct item items[10];
  for (int i = 0; i < 10; ++i) {
    items[i].id = i;
    tw_timer_init(&items[i].timer);
    tw_schedule(w, &items[i].timer, (uint64_t)i * 1000u);
  }
  tw_cancel(w, &items[3].timer);
  size_t queued = 0;
  CHECK(tw_advance_pull(w, 1000, &queued) == TW_OK && queued == 2); /* queued ones count */
  size_t seen = 0;
  CHECK(tw_for_each_pending(w, count_visit, &seen) == TW_OK);
  CHECK(seen == 9);
  CHECK(tw_for_each_pending(w, NULL, NULL) == TW_EINVAL);
  CHECK(tw_for_each_pending(NULL, count_visit, &seen) == TW_EINVAL);
  tw_wheel_free(w);
}

static void test_check_finds_a_broken_link(void) {
  /* Two timers in one slot; a's back link is bent to point at itself. */
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_DEFAULT, 0) == TW_OK);
  tw_timer a = TW_TIMER_INIT, b = TW_TIMER_INIT;
  tw_schedule(w, &a, 100);
  tw_schedule(w, &b, 100);
  CHECK(tw_check(w) == TW_OK);
  void* const saved = b.tw_private_links[1];
  b.tw_private_links[1] = &b;
  CHECK(tw_check(w) == TW_ECHECK);
  CHECK(strstr(tw_last_error(w), "invariant") != NULL);
  b.tw_private_links[1] = saved;
  CHECK(tw_check(w) == TW_OK);
  tw_wheel_free(w);
}

static size_t blocks_out = 0;

static void* test_alloc(size_t size, void* arg) {
  CHECK(arg == &blocks_out);
  ++blocks_out;
  return malloc(size);
}

static void* failing_alloc(size_t size, void* arg) {
  (void)size;
  (void)arg;
  return NULL;
}

static void test_release(void* block, void* arg) {
  CHECK(arg == &blocks_out);
  --blocks_out;
  free(block);
}

static void test_allocator(void) {
  const tw_allocator a = {test_alloc, test_release, &blocks_out};
  for (size_t c = 0; c < 3; ++c) {
    tw_wheel* w = NULL;
    CHECK(tw_wheel_new_with(&w, configs[c], 7, &a) == TW_OK);
    CHECK(blocks_out == 1 && tw_now(w) == 7);
    struct item it = {.id = 1};
    tw_timer_init(&it.timer);
    tw_schedule(w, &it.timer, 9);
    CHECK(tw_check(w) == TW_OK);
    tw_wheel_free(w);
    CHECK(blocks_out == 0 && !tw_timer_pending(&it.timer));
  }
  tw_wheel* w = NULL;
  const tw_allocator none = {failing_alloc, test_release, &blocks_out};
  CHECK(tw_wheel_new_with(&w, TW_CONFIG_DEFAULT, 0, &none) == TW_ENOMEM && w == NULL);
  const tw_allocator half = {test_alloc, NULL, &blocks_out};
  CHECK(tw_wheel_new_with(&w, TW_CONFIG_DEFAULT, 0, &half) == TW_EINVAL && w == NULL);
  CHECK(tw_wheel_new_with(&w, TW_CONFIG_DEFAULT, 0, NULL) == TW_EINVAL && w == NULL);
  CHECK(blocks_out == 0);
}

static void test_free_pending(void) {
  /* Freeing or clearing a wheel leaves its timers idle. */
  tw_wheel* w;
  CHECK(tw_wheel_new(&w, TW_CONFIG_COUNTED, 0) == TW_OK);
  struct item a = {.id = 1};
  tw_timer_init(&a.timer);
  tw_schedule(w, &a.timer, 1u << 20);
  CHECK(tw_size(w) == 1);
  tw_wheel_free(w);
  CHECK(!tw_timer_pending(&a.timer));
}

int main(void) {
  RUN(test_new_and_free);
  for (size_t c = 0; c < 3; ++c) {
    test_order(configs[c]);
    test_pull(configs[c]);
  }
  RUN(test_errors);
  RUN(test_range_and_past);
  RUN(test_reentry);
  RUN(test_advance_to_next);
  RUN(test_wrap32);
  RUN(test_for_each_pending);
  RUN(test_check_finds_a_broken_link);
  RUN(test_allocator);
  RUN(test_free_pending);
  return check_result();
}
