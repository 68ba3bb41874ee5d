/* A C program built with nothing but `pkg-config --cflags --libs timerwheel`
 * against an installed timerwheel: two timers fire in order. */
#include <stdio.h>
#include <timerwheel.h>

struct job {
  const char* name;
  tw_timer timer;
};

static int fired = 0;

static void on_fire(tw_timer* t, void* user) {
  struct job* j = tw_container_of(t, struct job, timer);
  const char** expect = user;
  if (j->name == expect[fired]) ++fired;
}

int main(void) {
  tw_wheel* w;
  if (tw_wheel_new(&w, TW_CONFIG_DEFAULT, 0) != TW_OK) return 1;
  struct job a = {"a", TW_TIMER_INIT}, b = {"b", TW_TIMER_INIT};
  tw_schedule(w, &b.timer, 20);
  tw_schedule(w, &a.timer, 10);
  const char* expect[] = {a.name, b.name};
  if (tw_advance(w, 30, on_fire, expect, NULL) != TW_OK) return 1;
  tw_wheel_free(w);
  printf("fired %d of 2\n", fired);
  return fired == 2 ? 0 : 1;
}
