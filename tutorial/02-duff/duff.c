/* duff.c: Duff's device. copy() copies count bytes (count > 0), eight per
 * pass of its loop; the switch jumps into the middle of the loop's body to
 * copy the count % 8 left-over bytes on the first pass. */
#include <stdio.h>

/* gcc -Wextra warns that each statement below "may fall through" into the
   next case label. Here that is the whole point, so the warning is off. */
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"

static void copy(char *to, const char *from, int count) {
  int passes = (count + 7) / 8;
  switch (count % 8) {
  case 0: do { *to++ = *from++;
  case 7:      *to++ = *from++;
  case 6:      *to++ = *from++;
  case 5:      *to++ = *from++;
  case 4:      *to++ = *from++;
  case 3:      *to++ = *from++;
  case 2:      *to++ = *from++;
  case 1:      *to++ = *from++;
          } while (--passes > 0);
  }
}

int main(void) {
  const char *text = "Duff's device, 1983";
  int counts[] = {5, 8, 19};
  for (int i = 0; i < 3; i++) {
    int count = counts[i];
    char buf[32] = {0};
    copy(buf, text, count);
    int passes = (count + 7) / 8;
    printf("%2d bytes: enters at case %d, %d pass%s: \"%s\"\n",
           count, count % 8, passes, passes == 1 ? "" : "es", buf);
  }
  return 0;
}
