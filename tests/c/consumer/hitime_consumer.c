/* A program written for HiTime, unchanged, built against timerwheel's
 * compat directory (#include "hitime.h"). */
#include <stdio.h>

#include "hitime.h"

int main(void) {
  hitime_t ht;
  hitime_init(&ht);
  int data[3] = {0, 1, 2};
  hitimeout_t* t[3];
  for (int i = 0; i < 3; ++i) {
    t[i] = hitimeout_new();
    hitimeout_set(t[i], (uint64_t)(300 - 100 * i), &data[i]);
    hitime_start(&ht, t[i]);
  }
  hitime_stop(&ht, t[1]);
  int order[3], n = 0;
  if (hitime_get_wait(&ht) != 100) return 1;
  if (hitime_timeout(&ht, 1000)) {
    hitimeout_t* x;
    while ((x = hitime_get_next(&ht)) != NULL) order[n++] = *(int*)hitimeout_data(x);
  }
  hitime_expire_all(&ht);
  for (int i = 0; i < 3; ++i) hitimeout_free(&t[i]);
  hitime_destroy(&ht);
  printf("expired %d: %d %d\n", n, order[0], order[1]);
  return n == 2 && order[0] == 2 && order[1] == 0 ? 0 : 1;
}
