/* A program written for ccan/timer, unchanged, built against timerwheel's
 * compat directory: three timeouts expire one per call, in order. */
#include <ccan/timer/timer.h>
#include <stdio.h>

struct conn {
  int fd;
  struct timer timeout;
};

int main(void) {
  struct timers timers;
  struct conn conns[3];
  struct timemono start = time_mono();
  timers_init(&timers, start);
  for (int i = 0; i < 3; ++i) {
    conns[i].fd = i;
    timer_init(&conns[i].timeout);
    timer_addmono(&timers, &conns[i].timeout,
                  timemono_add(start, time_from_msec((uint64_t)(30 - 10 * i))));
  }
  timer_del(&timers, &conns[1].timeout);
  struct timemono first;
  if (!timer_earliest(&timers, &first)) return 1;
  int order[3], n = 0;
  struct timer* t;
  while ((t = timers_expire(&timers, timemono_add(start, time_from_msec(40)))) != NULL)
    order[n++] = tw_container_of(t, struct conn, timeout)->fd;
  timers_check(&timers, "consumer");
  timers_cleanup(&timers);
  printf("expired %d: %d %d\n", n, order[0], order[1]);
  return n == 2 && order[0] == 2 && order[1] == 0 ? 0 : 1;
}
