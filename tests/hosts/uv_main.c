/* uv_main.c: a workload (workloads.h) in a libuv loop through
   examples/hosts/uv_host.c, or under coro_run for comparison:
     uv_main fizzbuzz|echo|limits [--coro-run]
   limits' host part (limits_from_host) runs from a uv_timer_t's callback,
   libuv's, between two runs of coroc's. */
#include <uv.h>

#include "uv_host.h"
#include "workloads.h"

static void from_host(uv_timer_t *timer) {
  limits_from_host();
  uv_close((uv_handle_t *)timer, NULL);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  if (workload_by_coro_run(argc, argv))
    return 0;
  uv_loop_t *loop = uv_default_loop();
  struct coroc_uv host;
  if (coroc_uv_start(&host, loop, NULL) < 0)
    return 1;
  if (workload_spawn(argv[1], 0) < 0)
    return 1;
  uv_timer_t timer;
  if (!strcmp(argv[1], "limits")) {
    uv_timer_init(loop, &timer);
    uv_timer_start(&timer, from_host, 3, 0);
  }
  uv_run(loop, UV_RUN_DEFAULT);
  if (uv_loop_close(loop) != 0) {
    fprintf(stderr, "uv_main: handles left open\n");
    return 1;
  }
  workload_end(argv[1]);
  return 0;
}
