/* HiTime's functions on the wheel, through the C API. The wheel holds the
 * timeouts not yet expired, with now = the manager's `last`; expired ones
 * wait in the manager's list, in order, for hitime_get_next. */
#include <hitime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c/timerwheel_internal.h"

#if defined(__GNUC__)
#define HITIME_COLD __attribute__((noinline, cold))
#else
#define HITIME_COLD
#endif

/* The hot functions hold the wheel's code whole wherever GCC optimises
 * across units (the library's fat LTO objects at a GCC link): its inliner
 * would otherwise leave the internal entry point a call. */
#if defined(__GNUC__) && !defined(__clang__)
#define HITIME_FLAT __attribute__((flatten))
#else
#define HITIME_FLAT
#endif

static hitimeout_t* of_timer(tw_timer* t) { return tw_container_of(t, hitimeout_t, timer); }

static bool listed(const hitime_node_t* n) { return n->next != NULL; }

static void list_append(hitime_node_t* list, hitime_node_t* n) {
  n->next = list;
  n->prev = list->prev;
  list->prev->next = n;
  list->prev = n;
}

static void list_unlink(hitime_node_t* n) {
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->next = NULL;
  n->prev = NULL;
}

/* The wheel's callback: a timeout that fired joins the expired list. */
static void expire_into(tw_timer* timer, void* user) {
  list_append(&((hitime_t*)user)->expired, &of_timer(timer)->node);
}

static void die(const char* call, tw_status status) {
  fprintf(stderr, "hitime on timerwheel: %s: %s\n", call, tw_strerror(status));
  abort();
}

void hitimeout_init(hitimeout_t* t) {
  memset(t, 0, sizeof *t);
  tw_timer_init(&t->timer);
}

void hitimeout_reset(hitimeout_t* t) { hitimeout_init(t); }

void hitimeout_destroy(hitimeout_t* t) { hitimeout_init(t); }

hitimeout_t* hitimeout_new(void) {
  hitimeout_t* t = malloc(sizeof *t);
  if (t != NULL) hitimeout_init(t);
  return t;
}

void hitimeout_free(hitimeout_t** t) {
  if (t == NULL) return;
  free(*t);
  *t = NULL;
}

void hitimeout_set(hitimeout_t* t, uint64_t when, void* data) {
  t->when = when;
  t->data = data;
}

uint64_t hitimeout_when(hitimeout_t* t) { return t->when; }

void* hitimeout_data(hitimeout_t* t) { return t->data; }

void hitime_init(hitime_t* h) {
  h->last = 0;
  h->expired.next = h->expired.prev = &h->expired;
  const tw_status status = tw_wheel_new(&h->wheel, TW_CONFIG_DEFAULT, 0);
  if (status != TW_OK) die("hitime_init", status);
}

void hitime_destroy(hitime_t* h) {
  while (h->expired.next != &h->expired) list_unlink(h->expired.next);
  tw_wheel_free(h->wheel);
  h->wheel = NULL;
}

/* Places `t`, idle, by its time: expired at once when at or before now. */
static void place(hitime_t* h, hitimeout_t* t) {
  if (t->when <= h->last)
    list_append(&h->expired, &t->node);
  else
    tw_internal_schedule(h->wheel, &t->timer, t->when);
}

static bool started(const hitimeout_t* t) {
  return listed(&t->node) || tw_timer_pending(&t->timer);
}

void hitime_start(hitime_t* h, hitimeout_t* t) {
  if (started(t)) return;
  place(h, t);
}

void hitime_start_range(hitime_t* h, hitimeout_t* t, uint64_t min, uint64_t max) {
  if (started(t)) return;
  if (min > max) {
    const uint64_t swap = min;
    min = max;
    max = swap;
  }
  if (max <= h->last) {
    t->when = max;
    list_append(&h->expired, &t->node);
    return;
  }
  /* A time at or before now would be expired: the wheel keeps only later. */
  if (min <= h->last) min = h->last + 1;
  uint64_t chosen = max;
  tw_schedule_in_range(h->wheel, &t->timer, min, max, &chosen);
  t->when = chosen;
}

void hitime_stop(hitime_t* h, hitimeout_t* t) {
  if (listed(&t->node))
    list_unlink(&t->node);
  else
    tw_internal_cancel(h->wheel, &t->timer);
}

/* hitime_touch for a time at or before now: out of line, so that the
 * common touch (a time ahead) saves no register and ends in a jump to
 * tw_internal_schedule. */
HITIME_COLD static void touch_expired(hitime_t* h, hitimeout_t* t) {
  tw_internal_cancel(h->wheel, &t->timer);
  list_append(&h->expired, &t->node);
}

HITIME_FLAT void hitime_touch(hitime_t* h, hitimeout_t* t, uint64_t when) {
  t->when = when;
  if (listed(&t->node)) list_unlink(&t->node);
  if (when <= h->last) {
    touch_expired(h, t);
    return;
  }
  /* Moves it when it is waiting in the wheel. */
  tw_internal_schedule(h->wheel, &t->timer, when);
}

int hitime_get_wait(hitime_t* h) {
  if (h->expired.next != &h->expired) return 0;
  const uint64_t wait = tw_time_until_next(h->wheel);
  return wait > (uint64_t)INT_MAX ? INT_MAX : (int)wait;
}

int hitime_get_wait_with(hitime_t* h, uint64_t now) {
  const uint64_t wait = (uint64_t)hitime_get_wait(h);
  const uint64_t passed = now - h->last;
  return passed < wait ? (int)(wait - passed) : 0;
}

bool hitime_timeout(hitime_t* h, uint64_t now) {
  if (now > h->last) {
    const tw_status status = tw_advance(h->wheel, now, expire_into, h, NULL);
    if (status != TW_OK) die("hitime_timeout", status);
    h->last = now;
  }
  return h->expired.next != &h->expired;
}

void hitime_expire_all(hitime_t* h) {
  const tw_status status = tw_expire_all(h->wheel, expire_into, h, NULL);
  if (status != TW_OK) die("hitime_expire_all", status);
}

hitimeout_t* hitime_get_next(hitime_t* h) {
  hitime_node_t* n = h->expired.next;
  if (n == &h->expired) return NULL;
  list_unlink(n);
  return tw_container_of(n, hitimeout_t, node);
}

uint64_t hitime_max_wait(void) { return INT_MAX; }

uint64_t hitime_get_last(hitime_t* h) { return h->last; }

void hitimestate_init(hitimestate_t* s, uint64_t now) {
  s->state = 0;
  s->now = now;
}

bool hitime_timeout_r(hitime_t* h, hitimestate_t* s, int maxops) {
  (void)maxops;
  if (s->state == 0) {
    hitime_timeout(h, s->now);
    s->state = 1;
  }
  return true;
}

/* The original's bin of a started timeout, from its time and now. */
static int bin_of(const hitime_t* h, uint64_t when) {
  const uint64_t bits = when ^ h->last;
  if (bits > (uint64_t)INT_MAX) return 31;
  int index = 0;
  while ((bits >> (index + 1)) != 0) ++index;
  return index;
}

struct bin_walk {
  const hitime_t* h;
  int index;
  int count;
  hitime_node_t* chosen; /* a list of the timeouts found, through their nodes */
};

static void visit_bin(const tw_timer* timer, void* user) {
  struct bin_walk* walk = user;
  hitimeout_t* t = tw_container_of(timer, hitimeout_t, timer);
  if (bin_of(walk->h, t->when) != walk->index) return;
  ++walk->count;
  if (walk->chosen != NULL) list_append(walk->chosen, &t->node);
}

int hitime_count_bin(hitime_t* h, int index) {
  if (index < 0 || index > 31) return 0;
  struct bin_walk walk = {h, index, 0, NULL};
  tw_for_each_pending(h->wheel, visit_bin, &walk);
  return walk.count;
}

void hitime_expire_bin(hitime_t* h, int index) {
  if (index < 0 || index > 31) return;
  /* Found first (the walk may not change the wheel), then moved. */
  hitime_node_t found;
  found.next = found.prev = &found;
  struct bin_walk walk = {h, index, 0, &found};
  tw_for_each_pending(h->wheel, visit_bin, &walk);
  while (found.next != &found) {
    hitime_node_t* n = found.next;
    list_unlink(n);
    hitimeout_t* t = tw_container_of(n, hitimeout_t, node);
    tw_internal_cancel(h->wheel, &t->timer);
    list_append(&h->expired, &t->node);
  }
}
