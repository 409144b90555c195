/* deadlines.h: when a timer's deadline is, for the task programs that check
 * the order timers fire in (tests/tasks/timers.coc, futures.coc).
 *
 * The runtime reads the clock inside the await of a sleep, after the task's
 * own reading just before it (deadline_starts) and before the next reading
 * any task takes on this thread (deadline_starts, deadline_reading), one
 * after the other. So a sleep's deadline lies between those two readings
 * plus its length: a window. On a machine that keeps up the windows are
 * microseconds wide and follow the lengths; a thread held up by a loaded
 * machine (between the task's reading and the runtime's, or between two
 * tasks) widens or moves one, and the timers promise only the order of the
 * deadlines: two sleeps whose windows overlap may fire either way round, and
 * deadline_surely_first says when they may not.
 */
#ifndef DEADLINES_H
#define DEADLINES_H

#include <time.h>

enum { DEADLINES_MAX = 64 };
static long long deadline_start[DEADLINES_MAX], deadline_next[DEADLINES_MAX], deadline_ms[DEADLINES_MAX];
static int deadline_open = -1; /* the sleep whose window the next reading closes */

/* A reading of the clock (ns), which closes the open window. */
static inline long long deadline_reading(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  long long t = (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
  if (deadline_open >= 0 && deadline_next[deadline_open] == 0)
    deadline_next[deadline_open] = t;
  deadline_open = -1;
  return t;
}

/* Sleep `id` of ms milliseconds is about to be awaited. */
static inline void deadline_starts(int id, long long ms) {
  deadline_start[id] = deadline_reading();
  deadline_next[id] = 0;
  deadline_ms[id] = ms;
  deadline_open = id;
}

/* 1 if sleep a must fire before sleep b: a's latest deadline is before b's earliest. */
static inline int deadline_surely_first(int a, int b) {
  return deadline_next[a] != 0 &&
         deadline_next[a] + deadline_ms[a] * 1000000 < deadline_start[b] + deadline_ms[b] * 1000000;
}

#endif
