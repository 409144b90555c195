/* uv_host.h: coroc's scheduler in a libuv loop, with libuv in charge. Copy
 * this header and uv_host.c into your program; docs/hosts.md explains them.
 *
 *   struct coroc_uv host;
 *   coroc_uv_start(&host, uv_default_loop(), NULL);    (NULL: stop at the end)
 *   coro_spawn(...);                                     (before or from callbacks)
 *   uv_run(uv_default_loop(), UV_RUN_DEFAULT);
 */
#ifndef COROC_UV_HOST_H
#define COROC_UV_HOST_H

#include <uv.h>

struct coroc_uv {
  uv_poll_t poll;       /* coro_sched_fd(), readable while coroc has work */
  uv_timer_t timer;     /* coro_sched_timeout(): when a timer of coroc's is due */
  uv_prepare_t prepare; /* before each wait of libuv's: the timer set again */
  void (*done)(struct coroc_uv *host); /* after a run that left no task */
  void *data;                          /* yours */
};

/* Watch this thread's coroc scheduler from loop (on this thread): its tasks
   run from libuv's callbacks. done is called each time a run leaves no task
   (NULL: coroc_uv_stop, so that uv_run can return). 0, or a negative errno
   (from coro_sched_fd or libuv). host must stay where it is until the loop
   has closed its handles. */
int coroc_uv_start(struct coroc_uv *host, uv_loop_t *loop, void (*done)(struct coroc_uv *host));

/* Stop watching: the handles are closed (the loop's next iteration frees
   them). Tasks left stay suspended; coro_cancel_all() and a run end them. */
void coroc_uv_stop(struct coroc_uv *host);

#endif
