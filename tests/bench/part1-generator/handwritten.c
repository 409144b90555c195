/* handwritten.c: the hand-written state machine (see handwritten.h). */
#include "handwritten.h"

#include <stdio.h>
#include <stdlib.h>

/* `for (int i = 0;; i++) yield i;` by hand: case 1 jumps back into the loop
   body, just after the point where the previous call returned. */
static bool count_next(struct hand_gen *g, int *out) {
  switch (g->state) {
  case 0:
    for (g->i = 0;; g->i++) {
      *out = g->i;
      g->state = 1;
      return true;
    case 1:;
    }
  }
  return false;   /* not reached: the sequence has no end */
}

struct hand_gen *hand_count_new(void) {
  struct hand_gen *g = calloc(1, sizeof *g);
  if (!g) {
    fputs("bench: out of memory\n", stderr);
    exit(1);
  }
  g->next = count_next;
  return g;
}

void hand_free(struct hand_gen *g) {
  free(g);
}
