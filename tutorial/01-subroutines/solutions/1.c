/* Exercise 1: runs of up to 99 copies ("12a" is twelve a's). Only
 * expand_next changes: it reads all the digits before the char. */
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

static bool expand_next(struct expander *e, char *out) {
  while (e->left == 0) {
    if (e->next[0] == '\0')
      return false;
    while (*e->next >= '0' && *e->next <= '9')  /* every digit of the count */
      e->left = e->left * 10 + (*e->next++ - '0');
    e->c = *e->next++;
  }
  e->left--;
  *out = e->c;
  return true;
}

int main(void) {
  const char *texts[] = {"12a3b", "1x10y", "3a2b1c"};
  for (int i = 0; i < 3; i++) {
    struct expander e;
    char c;
    expand_init(&e, texts[i]);
    printf("%s: ", texts[i]);
    while (expand_next(&e, &c))
      putchar(c);
    putchar('\n');
  }
  return 0;
}
