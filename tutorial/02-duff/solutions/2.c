/* Exercise 2: a countdown written with the three macros of macros.c. Each
 * call gives the next number, n down to 1, then 0 once, for the end. Its
 * one local lives in a static, as the chapter's locals do. */
#include <stdio.h>

#define crBegin     static int state = 0; switch (state) { case 0:
#define crReturn(x) do { state = __LINE__; return x; case __LINE__:; } while (0)
#define crFinish    } state = 0

static int countdown(int n) {
  static int i;

  crBegin;
  for (i = n; i > 0; i--)
    crReturn(i);
  crFinish;
  return 0;
}

int main(void) {
  int v;
  while ((v = countdown(3)) != 0)
    printf("%d ", v);
  printf("liftoff\n");
  while ((v = countdown(5)) != 0)
    printf("%d ", v);
  printf("liftoff\n");
  return 0;
}
