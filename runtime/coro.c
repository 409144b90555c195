/* coro.c: the life cycle of an instance, the same for both backends.
 *
 * An instance is created by the code coroc generates (coro_frame_new for a
 * stackless frame, in registry.c beside the slabs whose slots it hands
 * out), resumed by coro_next, and released by coro_free here: its cleanups,
 * its deadline, its stack, then its memory back to the slabs. The checks
 * follow Lua's lua_resume: validate the state first, and refuse cleanly,
 * leaving the instance intact, when it cannot be resumed.
 */
#include "coro_internal.h"
#include "coro_seed.h"
#include "coro_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
    [CORO_CREATED] = "created",
    [CORO_SUSPENDED] = "suspended",
    [CORO_RUNNING] = "running",
    [CORO_DONE] = "done",
};

const char *coro_status_name(int status) {
  if (status < 0 || status > CORO_DONE)
    return "invalid";
  return status_names[status];
}

/* {==================================================================
 * Resuming a generator
 * =================================================================== */

/* coro_next itself is inline in coro/gen.h; this is its uncommon path. A
   finished generator answers false again and again; resuming one that is
   running (a generator resuming itself) is a bug that cannot be reported
   as a result. */
bool coro_next_refused(coro_t *gen) {
  if (gen->status == CORO_DONE)
    return false;
  coro_fatal("coro_next", "instance %p is already running (a generator cannot resume itself)",
             (void *)gen);
}

/* The same refusals for an instance given as its frame (coro/gen.h), by the
   name of its generator. */
void coro_refused_in(const char *what, const char *generator) {
  if (strcmp(what, "coro_free") == 0)
    coro_fatal(what, "an instance of %s is running; it cannot free itself", generator);
  coro_fatal(what, "an instance of %s is already running (a generator cannot resume itself)",
             generator);
}

/* coro_next of an instance that failed its test (coro_next_open): running
   or done, or any instance while a trace is recorded, whose resume is
   recorded around it here, the body untouched. A stackful instance is
   switched to by its resume function (stackful.c), as the scheduler does. */
bool coro_next_slow(coro_t *gen, void *out) {
  if (gen->status >= CORO_RUNNING)
    return coro_next_refused(gen);
  if (coro_trace_active)
    return coro_trace_resume(gen, out);
  return gen->resume(gen, out); /* (the trace stopped on the way here) */
}

/* `x = yield v;`: coro_send marks the value for gen alone, and takes the
   mark back when gen suspends or ends (gen took it already if it waited
   at a `x = yield v;`, and the mark must not reach a later resume). */
_Thread_local struct coro_sent coro_sent;

bool coro_send(coro_t *gen, const void *in, void *out) {
  coro_sent.to = in ? gen : NULL;
  coro_sent.in = in;
  bool more = coro_next(gen, out);
  coro_sent.to = NULL;
  return more;
}

/* coro_free of a suspended instance whose body has cleanups (CORO_CLEANUP,
   docs/language.md): a stackless one calls the function its frame holds
   right after the header; a stackful one is resumed to unwind (stackful.c).
   Either way it is done afterwards, and runs nothing again. */

void coro_cleanup_suspended(coro_t *c) {
  if (c->kind & CORO_STACKFUL) {
    coro_stackful_unwind(c);
    return;
  }
  c->status = CORO_RUNNING; /* (a cleanup that frees it again is refused) */
  coro_cleanup_slot(c)->run(c);
  c->status = CORO_DONE;
}

bool coro_done(const coro_t *c) {
  return c->status == CORO_DONE;
}

/* }================================================================== */

/* {==================================================================
 * Freeing
 * =================================================================== */

void (*coro_free_deadline)(coro_t *c);

/* The thread's instances from now on come from a (or, NULL, from the
   slabs again). Kept stackful instances are slots of the slabs: none is
   kept while an allocator is set. */
void coro_set_allocator(const struct coro_allocator *a) {
  if (a && (!a->alloc || !a->free))
    coro_fatal("coro_set_allocator", "an allocator needs both alloc and free");
  coro_instance_allocator(a);
  coro_stackful_keep(!(a && a->alloc));
}

/* What coro_free does before the memory goes back, for an instance that
   has it to do: the refusal of a running one, the trace's record, its
   cleanups, its deadline. */
static __attribute__((noinline)) void free_first(coro_t *c) {
  if (c->status == CORO_RUNNING)
    coro_fatal("coro_free", "instance %p is running; it cannot free itself", (void *)c);
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_free(c);
  if ((c->kind & CORO_CLEANUP) && c->status == CORO_SUSPENDED)
    coro_cleanup_suspended(c); /* the cleanups in scope where it stopped (above) */
  if (c->kind & CORO_DEADLINE)
    coro_free_deadline(c); /* its deadline's timer (cancel.c) */
}

/* The common case (nothing of free_first's to do) with no call but the
   last, and no register saved (docs/abi.md, "Where instances live"). */
void(coro_free)(coro_t *c) { /* (in parentheses: <coro.h>'s macro of the same name) */
  if (!c)
    return;
  if (__builtin_expect((c->kind & (CORO_CLEANUP | CORO_DEADLINE)) || c->status == CORO_RUNNING ||
                           coro_trace_active,
                       0))
    free_first(c);
  if (c->kind & CORO_STACKFUL)
    coro_stackful_release(c); /* its stack first */
  else
    coro_instance_free(c);
}

/* }================================================================== */
