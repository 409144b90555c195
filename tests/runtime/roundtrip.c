/* roundtrip.c: how long one resume + yield of a stackful generator takes.
 *
 * A quick timing loop, not a timed test (the test suite only checks that it
 * runs): coro_next on a generator that yields ints, N times, after a warm-up;
 * prints nanoseconds per round trip (two switches) as the median of R runs.
 *
 *   roundtrip [N [R]]     defaults: N = 10000000, R = 5
 */
#include <coro.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int coro_value_ints;
struct coro_args_ints { char coro_unused; };

static void coro_body_ints(coro_t *coro_c) {
  for (int i = 0;; i++)
    CORO_STACKFUL_YIELD(coro_c, coro_value_ints, i);
}

static void coro_entry_ints(coro_t *coro_c) {
  coro_body_ints(coro_c);
}

static coro_t *ints(void) {
  return coro_stackful_new(coro_entry_ints, sizeof(struct coro_args_ints), _Alignof(struct coro_args_ints), CORO_GENERATOR);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000000;
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (n <= 0 || runs <= 0 || runs > 99)
    return 2;
  double ns[99];
  coro_t *g = ints();
  int v = 0;
  long sum = 0;
  for (long i = 0; i < n / 10 + 1; i++)   /* warm up: stack mapped, caches and predictors trained */
    coro_next(g, &v);
  for (int r = 0; r < runs; r++) {
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
      coro_next(g, &v);
      sum += v;
    }
    ns[r] = (now_ns() - t0) / (double)n;
  }
  coro_free(g);
  qsort(ns, (size_t)runs, sizeof ns[0], cmp_double);
  printf("stackful resume+yield round trip: %.2f ns (median of %d runs of %ld; min %.2f, max %.2f) [%ld]\n",
         ns[runs / 2], runs, n, ns[0], ns[runs - 1], sum & 1);
  return 0;
}
