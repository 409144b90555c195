/* macros.c: switch.c with the state machine hidden in three macros, as in
 * Simon Tatham's "Coroutines in C". __LINE__ numbers the resume points. */
#include <stdbool.h>
#include <stdio.h>

#define crBegin     static int state = 0; switch (state) { case 0:
#define crReturn(x) do { state = __LINE__; return x; case __LINE__:; } while (0)
#define crFinish    } state = 0

/* Store the next char of the text that rle stands for in *out and return
   true, or return false at the end (and start again at the next call). */
static bool expand(const char *rle, char *out) {
  static const char *p;
  static int k;

  crBegin;
  for (p = rle; *p; p += 2)
    for (k = 0; k < p[0] - '0'; k++) {
      *out = p[1];
      crReturn(true);    /* "yield p[1]" */
    }
  crFinish;
  return false;
}

int main(void) {
  char c;
  while (expand("3a2b1c", &c))
    putchar(c);
  putchar('\n');
  return 0;
}
