/* iterator.c: the decoder turned inside out. The caller asks for one char
 * at a time; what the loops of expand kept in their locals now lives in a
 * struct that the caller owns. */
#include <stdbool.h>
#include <stdio.h>

struct expander {
  const char *next;  /* the run after the current one */
  char c;            /* the char of the current run */
  int left;          /* how many copies of c are still to come */
};

static void expand_init(struct expander *e, const char *rle) {
  e->next = rle;
  e->c = 0;
  e->left = 0;
}

/* Store the next char in *out and return true, or return false at the end. */
static bool expand_next(struct expander *e, char *out) {
  while (e->left == 0) {      /* the current run is used up: start the next */
    if (e->next[0] == '\0')
      return false;           /* no runs left */
    e->left = e->next[0] - '0';
    e->c = e->next[1];
    e->next += 2;
  }
  e->left--;
  *out = e->c;
  return true;
}

/* Do a and b stand for the same text? One char of each at a time. */
static bool same(const char *a, const char *b) {
  struct expander ea, eb;
  expand_init(&ea, a);
  expand_init(&eb, b);
  char ca, cb;
  bool more_a, more_b;
  do {
    more_a = expand_next(&ea, &ca);
    more_b = expand_next(&eb, &cb);
  } while (more_a && more_b && ca == cb);
  return !more_a && !more_b;  /* both ended together, with no difference */
}

int main(void) {
  struct expander e;
  char c;
  expand_init(&e, "3a2b1c");
  while (expand_next(&e, &c))
    putchar(c);
  putchar('\n');
  printf("3a2b1c and 2a1a2b1c: %s\n", same("3a2b1c", "2a1a2b1c") ? "same" : "different");
  printf("3a2b1c and 3a2b2c: %s\n", same("3a2b1c", "3a2b2c") ? "same" : "different");
  return 0;
}
