/* check.h: the assertions of the language run tests (the .coc files in tests/cases/),
 * in the style of chibicc's test/test.h.
 *
 *   ASSERT(expected, expr)   evaluates both once, as long long. On a match it
 *                            prints "expr => value" (the source text of expr);
 *                            on a mismatch it prints
 *                            "FILE:LINE: expr => actual, expected expected"
 *                            to standard error and exits with status 1.
 *   CHECK_DONE()             prints "OK": the last line of a passing case.
 *   check_hold(ms)           keeps the thread from its scheduler, asleep and
 *                            without a turn, until ms have passed on
 *                            CLOCK_MONOTONIC: deadlines set before it are due
 *                            when it returns, and none has fired (the
 *                            scheduler has not polled). Asleep, not spinning:
 *                            the soak runs many programs at once on few cores.
 *
 * The expected value is always worked out by hand from C's rules, never
 * copied from a run. Use ASSERT in ordinary functions (main), not inside a
 * coroutine body: there coroc rewrites the locals, and #expr would print the
 * rewritten text, which differs between backends. A coroutine hands what is
 * to be checked to its consumer with yield instead.
 *
 * Plain C11, warning-free under -Wall -Wextra with gcc and clang. Its names
 * begin with check_/CHECK_ or are ASSERT, so they never collide with coroc's
 * coro_ names.
 */
#ifndef CHECK_H
#define CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void check_assert(long long expected, long long actual, const char *code,
                                const char *file, int line) {
  if (expected == actual) {
    printf("%s => %lld\n", code, actual);
    return;
  }
  fflush(stdout);
  fprintf(stderr, "%s:%d: %s => %lld, expected %lld\n", file, line, code, actual, expected);
  exit(1);
}

#define ASSERT(expected, expr) \
  check_assert((long long)(expected), (long long)(expr), #expr, __FILE__, __LINE__)

#define CHECK_DONE()   \
  do {                 \
    printf("OK\n");    \
    fflush(stdout);    \
  } while (0)

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L /* (clock_nanosleep) */
static inline void check_hold(long ms) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
    ; /* a signal the program waits for does not end the hold early */
}
#endif

#endif /* CHECK_H */
