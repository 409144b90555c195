/* subroutine.c: run-length decoding, as an ordinary function.
 *
 * "3a2b1c" stands for "aaabbc": each run is a digit, the count, followed by
 * the character to repeat. */
#include <stdio.h>

/* Print the text that rle stands for. */
static void expand(const char *rle) {
  for (const char *p = rle; *p; p += 2)   /* each run: a count and a char */
    for (int k = 0; k < p[0] - '0'; k++)  /* count copies of the char */
      putchar(p[1]);
}

int main(void) {
  expand("3a2b1c");
  putchar('\n');
  expand("1x4y");
  putchar('\n');
  return 0;
}
