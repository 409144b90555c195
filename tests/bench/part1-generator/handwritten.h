/* handwritten.h: the baseline of the stackless row, a generator written by
 * hand as a C programmer would without coroc: a struct that keeps the state
 * and the locals, and a function with a switch that continues where the last
 * call stopped (Duff's device / protothreads style).
 *
 * The consumer calls it through a function pointer stored in the struct,
 * `g->next(g, &v)`, as coro_next calls a body through `c->resume`: whoever
 * consumes a generator in general does not know which one it holds, so the
 * call cannot be inlined, for the hand-written code no more than for coroc's.
 * The creator and the state machine are in handwritten.c, the consuming loop
 * in handwritten_run.c, so that the compiler cannot see which function the
 * pointer holds and turn the indirect call into a direct or inlined one.
 */
#ifndef BENCH_HANDWRITTEN_H
#define BENCH_HANDWRITTEN_H

#include <stdbool.h>

struct hand_gen {
  bool (*next)(struct hand_gen *g, int *out);  /* store the next value in *out; false when finished */
  int state;                                   /* where next continues: 0 = start, 1 = after the yield */
  int i;                                       /* the generator's one local */
};

struct hand_gen *hand_count_new(void);   /* 0, 1, 2, ... without end */
void hand_free(struct hand_gen *g);

#endif /* BENCH_HANDWRITTEN_H */
