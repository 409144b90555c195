/* coro_internal.h: what the runtime's own files share and users never see. */
#ifndef CORO_INTERNAL_H
#define CORO_INTERNAL_H

#include "coro.h"

/* Print "coro: FUNCTION: MESSAGE" and abort. For broken invariants and misuse
   that cannot be reported as a result (resuming a running instance). */
_Noreturn void coro_fatal(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
