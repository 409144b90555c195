/* frame_fizzbuzz.c: examples/fizzbuzz.coc's three tasks in a frame loop
 * (frame_host.c): every FRAME_US the loop wakes (a plain poll() of its own
 * descriptors, none here, until the next frame is due), does its own work,
 * and gives coroc at most BUDGET_US of the frame. It prints what fizzbuzz
 * prints under coro_run(), then how many frames that took.
 *
 *   frame_fizzbuzz [TICK_MS [FRAME_US [BUDGET_US]]]
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "frame_host.h"

int fizzbuzz_spawn(long tick_ms); /* examples/fizzbuzz.coc, built with FIZZBUZZ_HOSTED */

static long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long tick_ms = argc > 1 ? atol(argv[1]) : 100;
  long frame_us = argc > 2 ? atol(argv[2]) : 16667; /* 60 frames a second */
  struct coroc_frame coroc = {.budget_us = argc > 3 ? atol(argv[3]) : 1000};
  if (fizzbuzz_spawn(tick_ms) < 0)
    return 1;
  long next = now_us();
  unsigned long over = 0;
  do {
    /* Wait for the frame: poll() the loop's own descriptors until it is due. */
    long wait_us = next - now_us();
    if (wait_us > 0)
      poll(NULL, 0, (int)((wait_us + 999) / 1000));
    next += frame_us;
    /* ... the frame's own work: input, physics, drawing ... */
    coroc_frame_run(&coroc);
    over += coroc.used_us > coroc.budget_us;
  } while (coroc.left != 0);
  fprintf(stderr, "frame_fizzbuzz: %lu frames, %lu over coroc's budget of %ld us\n", coroc.frames,
          over, coroc.budget_us);
  return 0;
}
