/* Exercise 1: a generator of Fibonacci numbers with a frame of its own.
 * Two instances run at once, each where it stopped. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct fib_frame {
  int state;  /* 0 from the start, 1 after the yield */
  long a, b;  /* the locals: the two numbers of the pair */
};

static struct fib_frame *fib_new(void) {
  struct fib_frame *f = calloc(1, sizeof *f);
  if (f == NULL) {
    perror("calloc");
    exit(1);
  }
  return f;
}

/* The next Fibonacci number; the sequence never ends. */
static bool fib_next(struct fib_frame *f, long *out) {
  switch (f->state) {
  case 0:
    for (f->a = 1, f->b = 1;; ) {
      f->state = 1;
      *out = f->a;
      return true;
  case 1:;
      long next = f->a + f->b;
      f->a = f->b;
      f->b = next;
    }
  }
  return false;
}

static void take(const char *name, struct fib_frame *f, int n) {
  long v;
  printf("%s:", name);
  for (int i = 0; i < n && fib_next(f, &v); i++)
    printf(" %ld", v);
  printf("\n");
}

int main(void) {
  struct fib_frame *first = fib_new(), *second = fib_new();
  take("first", first, 5);
  take("second", second, 3);
  take("first again", first, 2);
  free(first);
  free(second);
  return 0;
}
