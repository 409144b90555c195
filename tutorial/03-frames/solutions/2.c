/* Exercise 2: chapter 1's zip with frame.c's generator. Two instances, two
 * frames: they take turns, which the static locals of chapter 2 could not. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct expand_frame {
  int state;
  const char *rle;
  const char *p;
  int k;
};

static struct expand_frame *expand_new(const char *rle) {
  struct expand_frame *f = calloc(1, sizeof *f);
  if (f == NULL) {
    perror("calloc");
    exit(1);
  }
  f->rle = rle;
  return f;
}

static bool expand_next(struct expand_frame *f, char *out) {
  switch (f->state) {
  case 0:
    for (f->p = f->rle; *f->p; f->p += 2)
      for (f->k = 0; f->k < f->p[0] - '0'; f->k++) {
        f->state = 1;
        *out = f->p[1];
        return true;
  case 1:;
      }
  }
  f->state = 2;
  return false;
}

static void zip(const char *a, const char *b) {
  struct expand_frame *fa = expand_new(a), *fb = expand_new(b);
  bool more_a = true, more_b = true;
  char c;
  while (more_a || more_b) {
    if (more_a && (more_a = expand_next(fa, &c)))
      putchar(c);
    if (more_b && (more_b = expand_next(fb, &c)))
      putchar(c);
  }
  putchar('\n');
  free(fa);
  free(fb);
}

int main(void) {
  zip("3a2b1c", "2x2y");
  zip("1p", "4q");
  return 0;
}
