/* epoll_timeout.c: what a timeout on epoll_wait costs, per wait that sleeps.
 *
 *   cc -O2 -o epoll_timeout tests/bench/part3-echo/epoll_timeout.c && taskset -c 0 ./epoll_timeout [TRIPS]
 *
 * Two processes on one core play ping-pong over two pipes: the parent
 * writes a byte and blocks in read; the child sleeps in epoll_pwait2 on the
 * first pipe, reads the byte and writes it back. Every round trip puts the
 * child to sleep in epoll once. Run with no timeout (NULL), as coroc's
 * scheduler waits since its timers have a timerfd, and with a timeout of
 * 100 ms that never expires, as it waited before (the deadline of an idle
 * sweep pending far away). The difference is the kernel arming and
 * disarming a timer for every wait; under a hypervisor, programming the
 * timer device is an exit to it (docs/benchmarks.md, "The timers' clock").
 *
 * Prints the processor, then the median of 7 alternating runs of each, in
 * µs per round trip, and their difference. A program that prints figures,
 * not a test. Linux 5.11 and glibc 2.35 or later (epoll_pwait2). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { RUNS = 7 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* The child: sleep in epoll on `in` (with a timeout of 100 ms or none),
   echo each byte to `out`. */
static void echo_child(int in, int out, long trips, int timed) {
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = in};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev) < 0)
    die("epoll");
  struct timespec far = {.tv_sec = 0, .tv_nsec = 100000000};
  char c;
  for (long i = 0; i < trips; i++) {
    struct epoll_event got;
    if (epoll_pwait2(ep, &got, 1, timed ? &far : NULL, NULL) < 0 || read(in, &c, 1) != 1 ||
        write(out, &c, 1) != 1)
      die("child");
  }
  _exit(0);
}

/* One run: µs per round trip. */
static double run(long trips, int timed) {
  int there[2], back[2];
  if (pipe(there) < 0 || pipe(back) < 0)
    die("pipe");
  pid_t pid = fork();
  if (pid < 0)
    die("fork");
  if (pid == 0)
    echo_child(there[0], back[1], trips, timed);
  char c = 'x';
  double t0 = now_s();
  for (long i = 0; i < trips; i++)
    if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
      die("parent");
  double t = now_s() - t0;
  waitpid(pid, NULL, 0);
  close(there[0]), close(there[1]), close(back[0]), close(back[1]);
  return t / (double)trips * 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long trips = argc > 1 ? atol(argv[1]) : 200000;
  char line[256], model[256] = "unknown";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
      model[strcspn(model, "\n")] = '\0';
      break;
    }
  if (f)
    fclose(f);
  printf("processor: %s; %ld round trips per run, %d runs of each, alternating\n", model, trips, RUNS);
  double untimed[RUNS], timed[RUNS];
  for (int i = 0; i < RUNS; i++) {
    untimed[i] = run(trips, 0);
    timed[i] = run(trips, 1);
  }
  qsort(untimed, RUNS, sizeof *untimed, by_value);
  qsort(timed, RUNS, sizeof *timed, by_value);
  printf("epoll_pwait2 with no timeout:     %.3f us per round trip (median)\n", untimed[RUNS / 2]);
  printf("epoll_pwait2 with 100 ms timeout: %.3f us per round trip (median)\n", timed[RUNS / 2]);
  printf("a timeout costs %.3f us per wait that sleeps\n", timed[RUNS / 2] - untimed[RUNS / 2]);
  return 0;
}
