/* workloads.h: what the host test programs (glib_main.c, uv_main.c,
   frame_main.c) run, by name, under their host loop or under coro_run:
     fizzbuzz  examples/fizzbuzz.coc's tasks (built with FIZZBUZZ_HOSTED), a 1 ms tick
     echo      echo_tasks.coc: a server task and a client task, a round trip
     limits    limits.coc: cancellation, deadlines and timeouts
   Each prints its lines; the test compares the host's with coro_run's. */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include <coro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fizzbuzz_spawn(long tick_ms);
int echo_spawn(void);
int limits_spawn(int stand_in);
void limits_from_host(void);
void limits_check(void);

/* WHAT's tasks spawned; by_coro_run: no host callbacks will come (limits has a
   task stand in for them). Exits 2 for an unknown name. */
static inline int workload_spawn(const char *what, int by_coro_run) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(what, "fizzbuzz"))
    return fizzbuzz_spawn(1);
  if (!strcmp(what, "echo"))
    return echo_spawn();
  if (!strcmp(what, "limits"))
    return limits_spawn(by_coro_run);
  fprintf(stderr, "unknown workload %s\n", what);
  exit(2);
}

/* After the loop: what the workload checks at its end. */
static inline void workload_end(const char *what) {
  if (!strcmp(what, "limits"))
    limits_check();
  printf("OK\n");
}

/* The program run by coro_run() instead of a host: argv[2] == "--coro-run". */
static inline int workload_by_coro_run(int argc, char **argv) {
  if (argc < 3 || strcmp(argv[2], "--coro-run"))
    return 0;
  if (workload_spawn(argv[1], 1) < 0)
    exit(1);
  int rc = coro_run();
  if (rc != 0) {
    fprintf(stderr, "coro_run: %d\n", rc);
    exit(1);
  }
  workload_end(argv[1]);
  return 1;
}

#endif
