/* callback.c: the same decoder, handing each char to a function of the
 * caller's choice (a callback) instead of printing it. */
#include <stdio.h>

/* Call emit(c, ctx) for each char of the text that rle stands for. */
static void expand(const char *rle, void (*emit)(char c, void *ctx), void *ctx) {
  for (const char *p = rle; *p; p += 2)   /* each run: a count and a char */
    for (int k = 0; k < p[0] - '0'; k++)  /* count copies of the char */
      emit(p[1], ctx);
}

static void print_char(char c, void *ctx) {
  (void)ctx;
  putchar(c);
}

static void count_char(char c, void *ctx) {
  (void)c;
  int *count = ctx;
  (*count)++;
}

int main(void) {
  expand("3a2b1c", print_char, NULL);
  putchar('\n');
  int n = 0;
  expand("3a2b1c", count_char, &n);
  printf("%d chars\n", n);
  return 0;
}
