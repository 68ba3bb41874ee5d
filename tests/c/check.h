/* A minimal test harness for the C tests: CHECK fails the test with the
 * file, line and expression, and the program exits 1 at the end if any
 * failed. */
#ifndef TIMERWHEEL_TESTS_C_CHECK_H
#define TIMERWHEEL_TESTS_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures = 0;

#define CHECK(expr)                                                            \
  do {                                                                         \
    if (!(expr)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr); \
      ++check_failures;                                                        \
    }                                                                          \
  } while (0)

#define RUN(test)                            \
  do {                                       \
    fprintf(stderr, "[ RUN  ] %s\n", #test); \
    test();                                  \
  } while (0)

static inline int check_result(void) {
  if (check_failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", check_failures);
    return 1;
  }
  fprintf(stderr, "all checks passed\n");
  return 0;
}

/* A small deterministic generator (xorshift64*). */
static inline unsigned long long check_rand(unsigned long long* state) {
  unsigned long long x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 2685821657736338717ULL;
}

#endif
