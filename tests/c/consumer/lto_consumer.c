/* A C program whose hot loop cancels and schedules timers, for the static
 * library's LTO objects: built with -flto, the loop's tw_cancel and
 * tw_schedule inline (consumer_test.sh looks for calls in churn); built
 * without, it calls them. Either way every timer fires once, in order. */
#include <stdint.h>
#include <stdio.h>
#include <timerwheel.h>

enum { N = 1000, ROUNDS = 50 };

static tw_timer timers[N];

struct tally {
  tw_wheel* w;
  unsigned fired;
  unsigned out_of_order;
  uint64_t last;
};

static void on_fire(tw_timer* t, void* user) {
  struct tally* tally = user;
  const uint64_t deadline = tw_timer_deadline(tally->w, t);
  if (deadline < tally->last || deadline != tw_now(tally->w)) ++tally->out_of_order;
  tally->last = deadline;
  ++tally->fired;
}

/* Cancels each timer and schedules it again, ROUNDS times: a server's loop.
 * Kept out of main (run once, which GCC keeps small), so that it is the hot
 * function it stands for. */
__attribute__((noinline)) static void churn(tw_wheel* w, uint64_t now) {
  uint64_t x = 1;
  for (unsigned r = 0; r < ROUNDS; ++r) {
    for (unsigned i = 0; i < N; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      tw_cancel(w, &timers[i]);
      tw_schedule(w, &timers[i], now + 1 + (x >> 44));
    }
  }
}

int main(void) {
  tw_wheel* w;
  if (tw_wheel_new(&w, TW_CONFIG_DEFAULT, 0) != TW_OK) return 1;
  for (unsigned i = 0; i < N; ++i) tw_timer_init(&timers[i]);
  churn(w, 0);
  struct tally tally = {w, 0, 0, 0};
  if (tw_advance(w, UINT64_C(1) << 21, on_fire, &tally, NULL) != TW_OK) return 1;
  const int ok = tally.fired == N && tally.out_of_order == 0 && tw_empty(w);
  tw_wheel_free(w);
  printf("fired %u of %d, %u out of order\n", tally.fired, N, tally.out_of_order);
  return ok ? 0 : 1;
}
