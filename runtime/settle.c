/* settle.c: coro_settle, an awaitable that is over before its waiter
 * knows it.
 *
 * A cancel operation (a timeout that fired, coro_cancel) forgets the
 * waiter, sets the awaitable's result and settles it: from then on the
 * awaitable's ready() answers true, and a suspend() only makes the waiter
 * ready, so the await that comes back to it (or that was about to suspend
 * on it) ends at once with the result set. Every source and awaitable
 * settles through here, so it sits below them all, on the scheduler only.
 */
#include "coro_sched.h"

static bool settled_ready(struct coro_awaitable *a) {
  (void)a;
  return true;
}

/* (An await that began its wait while cancelled: coro_cancel called it
   off, and the await's own suspend() comes here.) */
static void settled_suspend(struct coro_awaitable *a, coro_t *waiter) {
  (void)a;
  coro_ready(waiter);
}

static void settled_cancel(struct coro_awaitable *a) {
  (void)a;
}

static const struct coro_awaiter settled_awaiter = {settled_ready, settled_suspend, settled_cancel};

void coro_settle(struct coro_awaitable *a) {
  a->ops = &settled_awaiter;
}
