/* fatal.c: coro_fatal, the runtime's one way to stop on a broken invariant
 * or a misuse that cannot be reported as a result.
 *
 * A file of its own at the bottom of the runtime, because every layer
 * reports through it (the slabs when memory runs out, the scheduler when a
 * running instance is resumed): it calls nothing of the runtime but the
 * seed's replay note, so that any file may call it without a circle (a
 * trace being recorded is written through a hook that trace.c sets).
 */
#include "coro_internal.h"
#include "coro_seed.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Set by trace.c while a trace is recorded: the file is written before the abort. */
void (*coro_fatal_hook)(void);

void coro_fatal(const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "coro: %s: ", func);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "%s\n", coro_sched_seed_note()); /* how to replay a seeded run */
  va_end(ap);
  void (*hook)(void) = coro_fatal_hook;
  coro_fatal_hook = NULL; /* (once: a fatal error in the hook aborts) */
  if (hook)
    hook();
  abort();
}
