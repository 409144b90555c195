/* frame_host.c: coroc's tasks in a frame loop, with a budget (frame_host.h).
 *
 * coro_run_ready() runs the tasks that are ready when it is called, each for
 * one turn, and returns: tasks it makes ready (a channel's receiver, a task
 * that yields) wait for the next call. So one call is bounded by what was
 * ready as it started, whatever the tasks do, and a frame can make calls
 * while its budget lasts. The budget is checked between calls, not during
 * one: a call is made only if the time used so far plus the longest call of
 * this frame fits, so the frame goes over only when one call takes longer
 * than every call before it in the frame (or the first is longer than the
 * whole budget: tasks whose single turns are that long need splitting with
 * `yield;`).
 *
 * Whether there is work is asked without waiting: coro_sched_timeout() is 0
 * when tasks are ready or a timer is due, and coro_sched_fd() polls readable
 * when I/O a task waits for has come (or anything else: it is level-triggered
 * while the scheduler has work). Asking the timeout also sets coroc's timerfd,
 * which a loop that waits in poll() for its next frame may watch too.
 */
#include "frame_host.h"

#include <coro.h>
#include <poll.h>
#include <time.h>

static long coroc_now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

static int coroc_has_work(void) {
  if (coro_sched_timeout() == 0)
    return 1;
  struct pollfd p = {.fd = coro_sched_fd(), .events = POLLIN};
  return poll(&p, 1, 0) == 1;
}

long coroc_frame_run(struct coroc_frame *f) {
  if (f->frames++ == 0)
    f->left = -1;
  f->calls = 0;
  f->ran = 0;
  f->longest_call_us = 0;
  long start = coroc_now_us(), now = start;
  while (now - start + f->longest_call_us <= f->budget_us && coroc_has_work()) {
    unsigned long ran = 0;
    f->last_start_us = now - start; /* (what the test of the budget's rule reads) */
    f->left = coro_run_ready(&ran);
    long before = now;
    now = coroc_now_us();
    if (now - before > f->longest_call_us)
      f->longest_call_us = now - before;
    f->calls++;
    f->ran += ran;
  }
  f->used_us = coroc_now_us() - start;
  return f->left;
}
