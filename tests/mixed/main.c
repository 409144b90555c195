#include <stdio.h>
int mixed_main(char *log);
int main(void) {
  char log[16] = "";
  int r = mixed_main(log);
  printf("%d %s\n", r, log);
  return 0;
}
