/* lost.c: switch.c with ordinary (automatic) locals. They are made afresh
 * at every call, so the loops forget where they were. */
#include <stdbool.h>
#include <stdio.h>

/* Store the next char of the text that rle stands for in *out and return
   true, or return false at the end (and start again at the next call). */
static bool expand(const char *rle, char *out) {
  static int state = 0;  /* where to go on: 0 from the start, 1 after the yield */
  const char *p = rle;   /* the locals, automatic: they begin again */
  int k = 0;             /* at every call */

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

int main(void) {
  char c;
  for (int i = 0; i < 20 && expand("3a2b1c", &c); i++)  /* at most 20 */
    putchar(c);
  putchar('\n');
  return 0;
}
