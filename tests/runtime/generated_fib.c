/* generated_fib.c: a stackful generator written by hand in exactly the shape
 * that coroc --backend=stackful emits for
 *
 *   coroutine int fib(int n) {
 *     int a = 0, b = 1;
 *     for (int i = 0; i < n; i++) {
 *       yield a;
 *       int t = a + b; a = b; b = t;
 *     }
 *   }
 *
 * and a consumer that uses only the public API. It needs nothing but
 * <coro.h> and libcoro, so the tests build it against the library that CMake
 * made (either switch) as well as from the runtime's sources.
 * Prints: 0 1 1 2 3 5 8 13 21 34, then "OK".
 */
#include <coro.h>

#include <stdio.h>

typedef int coro_value_fib;
struct coro_args_fib { int n; };

static void coro_body_fib(coro_t *coro_c, int n) {
  int a = 0, b = 1;
  for (int i = 0; i < n; i++) {
    CORO_STACKFUL_YIELD(coro_c, coro_value_fib, a);
    int t = a + b;
    a = b;
    b = t;
  }
}

static void coro_entry_fib(coro_t *coro_c) {
  struct coro_args_fib *a = coro_stackful_args(coro_c);
  coro_body_fib(coro_c, a->n);
}

coro_t *fib(int n) {
  coro_t *c = coro_stackful_new(coro_entry_fib, sizeof(struct coro_args_fib), _Alignof(struct coro_args_fib), CORO_GENERATOR);
  ((struct coro_args_fib *)coro_stackful_args(c))->n = n;
  return c;
}

int main(void) {
  coro_t *g = fib(10);
  if (!coro_set_stack_size(g, 64 * 1024))
    return 1;
  int v;
  const char *sep = "";
  while (coro_next(g, &v)) {
    printf("%s%d", sep, v);
    sep = " ";
  }
  printf("\n");
  if (!coro_done(g))
    return 1;
  coro_free(g);

  coro_t *unfinished = fib(5);                /* freed while suspended: its stack goes too */
  if (!coro_next(unfinished, &v) || !coro_next(unfinished, &v) || v != 1)
    return 1;
  coro_free(unfinished);
  coro_free(fib(3));                          /* never started */
  printf("OK\n");
  return 0;
}
