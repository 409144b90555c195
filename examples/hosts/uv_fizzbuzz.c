/* uv_fizzbuzz.c: examples/fizzbuzz.coc's three tasks in a libuv loop
 * (uv_host.c), printing what fizzbuzz prints under coro_run(): once every
 * task has ended the adapter stops, and uv_run returns.
 *
 *   uv_fizzbuzz [TICK_MS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "uv_host.h"

int fizzbuzz_spawn(long tick_ms); /* examples/fizzbuzz.coc, built with FIZZBUZZ_HOSTED */

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long tick_ms = argc > 1 ? atol(argv[1]) : 100;
  uv_loop_t *loop = uv_default_loop();
  struct coroc_uv host;
  int rc = coroc_uv_start(&host, loop, NULL);
  if (rc < 0) {
    fprintf(stderr, "uv_fizzbuzz: %s\n", uv_strerror(rc));
    return 1;
  }
  if (fizzbuzz_spawn(tick_ms) < 0)
    return 1;
  uv_run(loop, UV_RUN_DEFAULT);
  return uv_loop_close(loop) == 0 ? 0 : 1;
}
