/* memstream.h: a string built in memory a piece at a time (support/memstream.c).
 * memstream.c prints its simple formats into one; output/text.c prints token
 * ranges into one. Apart from coroc.h because only the two of them build
 * strings this way, and text_put is inline for both: it runs at every piece.
 */
#ifndef COROC_MEMSTREAM_H
#define COROC_MEMSTREAM_H

#include "coroc.h"

#include <string.h>

/* A string being built: in `small` while it is short, then on the heap. */
typedef struct {
  char *heap; /* NULL while in small */
  size_t n, cap;
  char small[512];
} Text;

/* (small is left as it is: clearing it cost as much as filling it) */
#define TEXT_INIT(t) ((t).heap = NULL, (t).n = 0, (t).cap = sizeof(t).small)

static inline void text_put(Text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    size_t cap = 2 * (t->n + n + 1);
    char *bigger = xrealloc(t->heap, cap);
    if (!t->heap)
      memcpy(bigger, t->small, t->n);
    t->heap = bigger;
    t->cap = cap;
  }
  memcpy((t->heap ? t->heap : t->small) + t->n, s, n);
  t->n += n;
}

static inline void text_puts(Text *t, const char *s) {
  text_put(t, s, strlen(s));
}

/* The string built, NUL-terminated, on the heap (xfree): t is used up. */
char *text_take(Text *t);

#endif
