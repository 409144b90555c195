/* same_turn.h: what the tests/tasks/same_turn_*.coc programs share.
 *
 * Each of them builds, without racing the clock, a turn of the scheduler in
 * which two things would settle one wait: a hand-over (a release, an
 * unlock, a set, a group's last done, a channel's partner or close, an
 * offloaded call's end), its deadline's timer, a cancellation. The tools:
 *
 *   check_hold(ms) (check.h) keeps the thread from its scheduler, asleep
 *              without a turn, until ms have passed: every deadline set
 *              before it is due when it returns, and none has fired (the
 *              scheduler has not polled).
 *   Timers due in the same poll fire in the order of their deadlines: a
 *   sleep of 1 ms set before a deadline of 5 ms fires first, however late
 *   the process runs, so its task runs first in the turn that follows.
 *
 * The trace says in what order the tasks ran and what each await gave:
 * a task resumed twice, or never, shows in it.
 */
#ifndef SAME_TURN_H
#define SAME_TURN_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static char trace[1024];
static int ntrace;

static inline void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ntrace += vsnprintf(trace + ntrace, sizeof trace - (size_t)ntrace, fmt, ap);
  va_end(ap);
}

/* An await's value as the trace shows it. */
static inline const char *said(long r) {
  static char other[8][24];
  static int next;
  switch (r) {
  case 0: return "0";
  case -ETIMEDOUT: return "timedout";
  case -ECANCELED: return "cancelled";
  case -EPIPE: return "closed";
  }
  next = (next + 1) % 8;
  snprintf(other[next], sizeof other[next], "%ld", r);
  return other[next];
}

static inline void trace_reset(void) {
  ntrace = 0;
  trace[0] = '\0';
}

static inline int trace_is(const char *want) {
  printf("trace: %s\n", trace);
  return strcmp(trace, want) == 0;
}

#endif
