/* coro_internal.h: what the runtime's own files share and users never see. */
#ifndef CORO_INTERNAL_H
#define CORO_INTERNAL_H

#include "coro.h"

/* Print "coro: FUNCTION: MESSAGE" and abort. For broken invariants and misuse
   that cannot be reported as a result (resuming a running instance). */
_Noreturn void coro_fatal(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* registry.c: the memory of an instance made by coro_frame_new, zeroed, with
   its struct coro_live in front, linked into this thread's live instances
   (NULL when memory runs out); and its release. */
void *coro_live_alloc(size_t size, size_t align);
void coro_live_free(coro_t *c);

#endif
