/* uv_hosted_echo.c: examples/echo.coc's server and client in libuv loops
 * (uv_host.c), with echo's own options: every thread echo would run with
 * coro_run() (the first, and one per --threads) runs its tasks in a libuv
 * loop of its own instead. The tasks are the same code; what differs is
 * who waits for the kernel: libuv's epoll_wait, which sees coroc's epoll
 * descriptor readable and calls coro_run_ready(). The benchmark's part 3
 * measures what that costs per round trip (docs/benchmarks.md).
 *
 *   uv_hosted_echo [echo's options]      (echo --help)
 */
#include <stdio.h>
#include <uv.h>

#include "uv_host.h"

/* examples/echo.coc, built with ECHO_HOSTED */
int echo_hosted_main(int argc, char **argv, int (*run)(void));

/* This thread's tasks, run in a loop of its own until none is left (the
   adapter stops when a run leaves no task, and uv_run returns): 0, or a
   negative errno. */
static int run_in_uv_loop(void) {
  uv_loop_t loop;
  int rc = uv_loop_init(&loop);
  if (rc < 0)
    return rc;
  struct coroc_uv host;
  rc = coroc_uv_start(&host, &loop, NULL);
  if (rc == 0)
    uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0 && rc == 0) {
    fprintf(stderr, "uv_hosted_echo: handles left open in the loop\n");
    rc = UV_EBUSY;
  }
  return rc;
}

int main(int argc, char **argv) {
  return echo_hosted_main(argc, argv, run_in_uv_loop);
}
