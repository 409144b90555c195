/* coro/signal.h: a signal as an awaitable event (docs/runtime.md, "coro_signal").
 *
 * Apart from <coro.h>, because it needs <signal.h>, whose names (sa_handler,
 * si_pid, ... as macros) <coro.h> must not bring into every program that
 * uses coroutines: include this header where you wait for signals.
 */
#ifndef CORO_SIGNAL_H
#define CORO_SIGNAL_H

#include <coro.h>
#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wait for one of the signals in set, blocked in this thread from the first await. */
struct coro_signal coro_signal(const sigset_t *set); /* int: the signal */

#ifdef __cplusplus
}
#endif

#endif /* CORO_SIGNAL_H */
