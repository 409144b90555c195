/* coro_internal.h: what the runtime's own files share and users never see. */
#ifndef CORO_INTERNAL_H
#define CORO_INTERNAL_H

#include "coro.h"

#include <stddef.h> /* (coro.h names size_t and the like without including it) */
#include <stdint.h>

/* Print "coro: FUNCTION: MESSAGE" and abort. For broken invariants and misuse
   that cannot be reported as a result (resuming a running instance). */
_Noreturn void coro_fatal(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* fatal.c: what coro_fatal calls before it aborts, if set (trace.c: the trace's file). */
extern void (*coro_fatal_hook)(void);

/* sched.c: wake the suspended task c, settling the wait it is suspended
   on: true if this is the first wake since it suspended; false if
   something settled the wait first in this turn (c is queued already), and
   the caller must undo its own part (hand what it would have handed to
   the next waiter). coro_ready is this, the answer dropped. A wait is
   settled from its waiter's wake until the waiter runs again. */
bool coro_wake(coro_t *c);
static inline bool coro_wait_settled(const coro_t *waiter) {
  return waiter->ready;
}

/* registry.c: the memory of an instance made by coro_frame_new, zeroed,
   among this thread's live instances, its `home` set (NULL when memory runs
   out); and giving it back. */
coro_t *coro_instance_alloc(size_t size, size_t align);
void coro_instance_free(coro_t *c);
/* registry.c: where this thread's instances come from (coro_set_allocator,
   in coro.c, checked a already). */
void coro_instance_allocator(const struct coro_allocator *a);
/* registry.c: fn(c, arg) for each live instance of this thread; fn makes and
   frees none. */
void coro_registry_each(void (*fn)(coro_t *c, void *arg), void *arg);

/* stack_cache.c: coro_free of a stackful instance: its stack, then its memory. */
void coro_stackful_release(coro_t *c);

/* coro.c: coro_free of a suspended instance with cleanups (CORO_CLEANUP) runs
   them first; stackful.c: a stackful one, by unwinding its body. */
void coro_cleanup_suspended(coro_t *c);
void coro_stackful_unwind(coro_t *c);

/* stack_cache.c: whether this thread keeps freed stackful instances with their
   stacks for its next ones (off: those it keeps are given back now);
   coro_set_allocator (coro.c) turns it off when the thread gets an
   allocator. */
void coro_stackful_keep(bool on);

/* stack_shared.c: where the byte at p of c's stack is while c, a task on the
   shared stack, is suspended: in the buffer its frames are copied out to,
   when they are; otherwise (or p not on its stack, or c another kind of
   instance) p. For the values a channel hands to a waiting task. */
void *coro_stackful_locate(coro_t *c, void *p);

/* futures.c: the task that waits behind waiter w: w itself, or, for the relay
   that waits on an awaitable wrapped by coro_timeout in its task's place, that
   task (through nested timeouts). */
coro_t *coro_waiting_task(coro_t *w);

/* sched.c: what a task marked cancelled (CORO_CANCELLED) does as it begins
   a wait, set by cancel.c (coro_task_suspends asks it); coro.c: what
   coro_free does with a task's deadline (CORO_DEADLINE), set by cancel.c.
   Hooks, so that the layers below cancellation never name it. */
extern void (*coro_cancelled_wait)(coro_t *c);
extern void (*coro_free_deadline)(coro_t *c);

/* The struct that holds member `member` at ptr. */
#define CORO_CONTAINER(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
