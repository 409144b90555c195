/* handwritten_run.c: the consuming loop of the hand-written row, the same
 * loop as gen.coc's, with `g->next(g, &v)` in place of `coro_next(g, &v)`.
 * In its own file so that g->next stays an indirect call (handwritten.h). */
#include "bench.h"
#include "handwritten.h"

long long bench_run_handwritten(long n) {
  struct hand_gen *g = hand_count_new();
  long long sum = 0;
  int v;
  while (n-- > 0 && g->next(g, &v))
    sum += v;
  hand_free(g);
  return sum;
}
