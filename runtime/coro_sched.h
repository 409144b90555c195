/* coro_sched.h: what the scheduler's files share (sched.c, io.c, timer.c, offload.c). */
#ifndef CORO_SCHED_H
#define CORO_SCHED_H

#include "coro_internal.h"

#include <stdatomic.h>
#include <stdint.h>

/* A min-heap of sleeping awaitables by deadline. */
struct timer_heap {
  struct coro_sleep **v;  /* v[0] is the earliest */
  size_t n, cap;
};

/* This thread's scheduler. */
struct sched {
  struct coro_task *head, *tail; /* the ready queue, FIFO, linked through next_ready */
  long live;                /* spawned tasks not finished */
  long io_waiting;          /* awaitables registered with epoll */
  long remote_waiting;      /* offloaded calls not completed */
  unsigned poll_every;      /* 0: run the queue dry before polling; n: poll every n turns */
  int epfd;                 /* epoll instance, made on first use */
  int remote_fd;            /* eventfd that other threads write to wake us */
  _Atomic(struct coro_offload *) remote_head; /* offloads finished for sleeping tasks (lock-free stack) */
  struct timer_heap timers; /* coro_sleep awaitables */
  uint64_t now_ns;          /* the clock (CLOCK_MONOTONIC, ns) when the scheduler last read it */
};

extern _Thread_local struct sched coro_sched_self;

int coro_sched_epoll(void);
uint64_t coro_sched_now_ns(void);

/* io.c: an epoll event for the fd record `tag` */
void coro_io_event(void *tag, uint32_t events);

/* offload.c: the eventfd's tag in epoll, and emptying the remote queue */
void *coro_offload_remote_tag(void);
void coro_offload_drain(struct sched *s);

/* timer.c */
void coro_timers_fire(struct sched *s, uint64_t now);
void coro_timer_cancel(struct coro_sleep *t);
int64_t coro_timers_timeout(struct sched *s, uint64_t now);

#endif
