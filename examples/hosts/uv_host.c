/* uv_host.c: coroc's scheduler in a libuv loop (uv_host.h).
 *
 * Three handles of libuv's stand for coroc's three calls (docs/runtime.md,
 * "Driven by another loop"):
 *
 *   a uv_poll_t on coro_sched_fd(): readable, level-triggered, while coroc
 *     has work (a task ready, I/O a task waits for, a timer due, ...); its
 *     callback runs what is ready with coro_run_ready().
 *   a uv_timer_t for coro_sched_timeout(): coroc's next timer or deadline,
 *     in case the descriptor cannot say it (no timerfd); it runs too.
 *   a uv_prepare_t, which libuv calls right before it waits: coroc's
 *     timeout is asked again there and the timer set to it, so that a
 *     deadline set by any callback (coro_deadline from a uv_read_cb, say)
 *     is in force for the wait that follows. Unreferenced: it does not keep
 *     the loop alive by itself.
 *
 * libuv computes its own wait after the prepare handles run, so a timeout of
 * 0 (tasks ready) makes that wait not block. The poll and timer handles are
 * referenced: like a listening socket, coroc keeps the loop running until
 * coroc_uv_stop, which done (or the default, when done is NULL) calls.
 */
#include "uv_host.h"

#include <coro.h>

static void coroc_uv_run(struct coroc_uv *host) {
  if (coro_run_ready(NULL) == 0) {
    if (host->done)
      host->done(host);
    else
      coroc_uv_stop(host);
  }
}

static void coroc_uv_on_poll(uv_poll_t *poll, int status, int events) {
  (void)status, (void)events; /* (an error on an epoll descriptor: run anyway) */
  coroc_uv_run(poll->data);
}

static void coroc_uv_on_timer(uv_timer_t *timer) {
  coroc_uv_run(timer->data);
}

static void coroc_uv_on_prepare(uv_prepare_t *prepare) {
  struct coroc_uv *host = prepare->data;
  int ms = coro_sched_timeout();
  if (ms < 0)
    uv_timer_stop(&host->timer);
  else
    uv_timer_start(&host->timer, coroc_uv_on_timer, (uint64_t)ms, 0);
}

int coroc_uv_start(struct coroc_uv *host, uv_loop_t *loop, void (*done)(struct coroc_uv *host)) {
  int fd = coro_sched_fd();
  if (fd < 0)
    return fd;
  host->done = done;
  int rc = uv_poll_init(loop, &host->poll, fd);
  if (rc < 0)
    return rc;
  uv_timer_init(loop, &host->timer);
  uv_prepare_init(loop, &host->prepare);
  host->poll.data = host->timer.data = host->prepare.data = host;
  uv_poll_start(&host->poll, UV_READABLE, coroc_uv_on_poll);
  uv_prepare_start(&host->prepare, coroc_uv_on_prepare);
  uv_unref((uv_handle_t *)&host->prepare);
  return 0;
}

void coroc_uv_stop(struct coroc_uv *host) {
  if (uv_is_closing((uv_handle_t *)&host->poll))
    return;
  uv_close((uv_handle_t *)&host->poll, NULL);
  uv_close((uv_handle_t *)&host->timer, NULL);
  uv_close((uv_handle_t *)&host->prepare, NULL);
}
