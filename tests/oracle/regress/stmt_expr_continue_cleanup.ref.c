#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#define CK_BASIS 14695981039346656037ull
static unsigned long long ck;
static void fold(unsigned long long v) { ck = (ck ^ v) * 1099511628211ull; }
static void fold_str(const char *s) {
  for (int i = 0; i < 8 && s[i]; i++)
    fold((unsigned char)s[i]);
  fold(0x5eu);
}
static unsigned hsend(unsigned v, unsigned n) { return v * 2654435761u + n * 40503u + 1u; }
static unsigned mix(unsigned a, unsigned b) { return a * 31u + (b ^ (a >> 3)); }
static unsigned sum4(const unsigned *p) { return p[0] + 3u * p[1] + 5u * p[2] + 7u * p[3]; }
static void put(unsigned *p, unsigned v) { *p = v; }
static void cl_u(unsigned *p) { fold(*p ^ 0xc1c1u); }
static void cl_p(unsigned **p) { fold(**p ^ 0xc2c2u); }
struct pt { unsigned x, y; };
struct sa { unsigned n; unsigned v[4]; char t[8]; };
struct hp { unsigned *p; unsigned k; };

/* program seed 1789 (task): the reference */
static unsigned top_1789(unsigned a0)
{
  for (unsigned i3 = 0u; i3 < 1u; i3++)
  {
    unsigned m5 __attribute__((cleanup(cl_u))) = 0u;
    fold(({ unsigned s7 = 0u; if (1u) continue; s7; }));
  }
  return 0u;
}
static void drive_1789(void) {
  ck = CK_BASIS;
  fold(top_1789(6u));
  printf("seed 1789: %016llx\n", ck);
  fflush(stdout);
}

static void (*const drives[])(void) = {drive_1789};
static const unsigned seeds[] = {1789};
static volatile unsigned cur_seed;
static void on_alarm(int sig) {
  (void)sig;
  char buf[48];
  int n = snprintf(buf, sizeof buf, "seed %u: hang\n", cur_seed);
  ssize_t w = write(1, buf, (size_t)n);
  (void)w;
  _exit(3);
}
/* main [FIRST]: run the programs from index FIRST on (after one that
   crashed); a program that runs longer than a second prints `hang`. */
int main(int argc, char **argv) {
  int first = argc > 1 ? atoi(argv[1]) : 0;
  signal(SIGALRM, on_alarm);
  for (int i = first; i < (int)(sizeof seeds / sizeof seeds[0]); i++) {
    cur_seed = seeds[i];
    struct itimerval t = {{0, 0}, {1, 0}};
    setitimer(ITIMER_REAL, &t, 0);
    drives[i]();
  }
  struct itimerval z = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &z, 0);
  return 0;
}
