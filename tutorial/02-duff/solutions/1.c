/* Exercise 1: a second resume point by hand. After each run, expand hands
 * out a '|' too: a second "yield", so a second case label. */
#include <stdbool.h>
#include <stdio.h>

static bool expand(const char *rle, char *out) {
  static int state = 0;  /* 0 from the start, 1 after the char, 2 after the '|' */
  static const char *p;
  static int k;

  switch (state) {
  case 0:
    for (p = rle; *p; p += 2) {
      for (k = 0; k < p[0] - '0'; k++) {
        state = 1;       /* "yield p[1]" */
        *out = p[1];
        return true;
  case 1:;
      }
      state = 2;         /* "yield '|'" */
      *out = '|';
      return true;
  case 2:;
    }
  }
  state = 0;
  return false;
}

int main(void) {
  char c;
  while (expand("3a2b1c", &c))
    putchar(c);
  putchar('\n');
  while (expand("1x4y", &c))
    putchar(c);
  putchar('\n');
  return 0;
}
