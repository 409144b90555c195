/* fatal.c: coro_fatal, the runtime's one way to stop on a broken invariant
 * or a misuse that cannot be reported as a result.
 *
 * A file of its own at the bottom of the runtime, because every layer
 * reports through it (the slabs when memory runs out, the scheduler when a
 * running instance is resumed): it calls nothing of the runtime but the
 * seed's replay note, so that any file may call it without a circle.
 */
#include "coro_internal.h"
#include "coro_seed.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void coro_fatal(const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "coro: %s: ", func);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "%s\n", coro_sched_seed_note()); /* how to replay a seeded run */
  va_end(ap);
  abort();
}
