/* frame.c: the decoder as a generator whose state lives in a frame of its
 * own, on the heap. Each instance has its own frame, so any number of them
 * can be under way at once. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Everything expand keeps from one call to the next. */
struct expand_frame {
  int state;             /* where to go on: 0 from the start, 1 after the yield, 2 the end */
  const char *rle;       /* the parameter */
  const char *p;         /* the locals */
  int k;
};

/* Make an instance of expand: a frame with its argument in it. Runs nothing. */
static struct expand_frame *expand_new(const char *rle) {
  struct expand_frame *f = calloc(1, sizeof *f);  /* zeroed: state 0 */
  if (f == NULL) {
    perror("calloc");
    exit(1);
  }
  f->rle = rle;
  return f;
}

/* Store the next char of the text that f->rle stands for in *out and return
   true, or return false at the end (and again at every later call). */
static bool expand_next(struct expand_frame *f, char *out) {
  switch (f->state) {
  case 0:
    for (f->p = f->rle; *f->p; f->p += 2)
      for (f->k = 0; f->k < f->p[0] - '0'; f->k++) {
        f->state = 1;    /* "yield p[1]": remember where we are, */
        *out = f->p[1];  /* hand p[1] over, */
        return true;     /* and return. */
  case 1:;               /* The next call jumps back in here. */
      }
  }
  f->state = 2;          /* the end: no case 2, so every later call comes here */
  return false;
}

/* Do a and b stand for the same text? One char of each at a time. */
static bool same(const char *a, const char *b) {
  struct expand_frame *fa = expand_new(a), *fb = expand_new(b);
  char ca, cb;
  bool more_a, more_b;
  do {
    more_a = expand_next(fa, &ca);
    more_b = expand_next(fb, &cb);
  } while (more_a && more_b && ca == cb);
  free(fa);  /* finished or not, an instance is only memory */
  free(fb);
  return !more_a && !more_b;  /* both ended together, with no difference */
}

int main(void) {
  char c;
  struct expand_frame *f = expand_new("3a2b1c");
  while (expand_next(f, &c))
    putchar(c);
  putchar('\n');
  free(f);
  printf("3a2b1c and 2a1a2b1c: %s\n", same("3a2b1c", "2a1a2b1c") ? "same" : "different");
  printf("3a2b1c and 3a2b2c: %s\n", same("3a2b1c", "3a2b2c") ? "same" : "different");
  return 0;
}
