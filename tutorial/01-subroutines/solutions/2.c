/* Exercise 2: two texts, one char of each in turn, until both have ended.
 * With a callback, the decoder's loops own the order, and two decoders cannot
 * take turns; with the state struct, the caller decides. */
#include <stdbool.h>
#include <stdio.h>

struct expander {
  const char *next;
  char c;
  int left;
};

static void expand_init(struct expander *e, const char *rle) {
  e->next = rle;
  e->c = 0;
  e->left = 0;
}

static bool expand_next(struct expander *e, char *out) {
  while (e->left == 0) {
    if (e->next[0] == '\0')
      return false;
    e->left = e->next[0] - '0';
    e->c = e->next[1];
    e->next += 2;
  }
  e->left--;
  *out = e->c;
  return true;
}

static void zip(const char *a, const char *b) {
  struct expander ea, eb;
  expand_init(&ea, a);
  expand_init(&eb, b);
  bool more_a = true, more_b = true;
  char c;
  while (more_a || more_b) {
    if (more_a && (more_a = expand_next(&ea, &c)))
      putchar(c);
    if (more_b && (more_b = expand_next(&eb, &c)))
      putchar(c);
  }
  putchar('\n');
}

int main(void) {
  zip("3a2b1c", "2x2y");
  zip("1p", "4q");
  return 0;
}
