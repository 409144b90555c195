/* switch.c: the decoder as a generator, written by hand as a switch
 * state machine. Each call runs the loops from where the last call stopped
 * to the next char, and returns it. */
#include <stdbool.h>
#include <stdio.h>

/* Store the next char of the text that rle stands for in *out and return
   true, or return false at the end (and start again at the next call). */
static bool expand(const char *rle, char *out) {
  static int state = 0;  /* where to go on: 0 from the start, 1 after the yield */
  static const char *p;  /* the locals, static: they keep their values */
  static int k;          /* from one call to the next */

  switch (state) {
  case 0:
    for (p = rle; *p; p += 2)
      for (k = 0; k < p[0] - '0'; k++) {
        state = 1;       /* "yield p[1]": remember where we are, */
        *out = p[1];     /* hand p[1] over, */
        return true;     /* and return. */
  case 1:;               /* The next call jumps back in here. */
      }
  }
  state = 0;             /* the end */
  return false;
}

/* Do a and b stand for the same text? One char of each at a time. */
static bool same(const char *a, const char *b) {
  char ca, cb;
  bool more_a, more_b;
  do {
    more_a = expand(a, &ca);
    more_b = expand(b, &cb);
  } while (more_a && more_b && ca == cb);
  return !more_a && !more_b;  /* both ended together, with no difference */
}

int main(void) {
  char c;
  while (expand("3a2b1c", &c))
    putchar(c);
  putchar('\n');
  while (expand("1x4y", &c))
    putchar(c);
  putchar('\n');
  printf("3a2b1c and 2a1a2b1c: %s\n", same("3a2b1c", "2a1a2b1c") ? "same" : "different");
  return 0;
}
