/* coro_sched.h: the scheduler, and the interface of the event sources that
 * its loop waits for (sched.c; io.c, timer.c, offload.c are the sources).
 *
 * The scheduler knows no source by name. A source registers itself with
 * the scheduler of its thread when it is first used there, and the loop
 * calls it through struct coro_source: is anything waiting on it, how long
 * may epoll wait for its sake, here is one of its epoll events, fire what
 * is due. Cancellation reaches a source the same way (call_off), never by
 * its name. A source calls the scheduler back (coro_ready, coro_sched_epoll,
 * coro_sched_now_ns), never another source; so the files depend one way,
 * the sources on the scheduler.
 */
#ifndef CORO_SCHED_H
#define CORO_SCHED_H

#include "coro_internal.h"

#include <stdint.h>

struct sched;

/* An event source: what the scheduler's loop polls and waits for, called
   in the order given here. Every member may be NULL: nothing to say. */
struct coro_source {
  const char *name; /* for debuggers and messages */
  /* a task waits on it: coro_run's -EDEADLK when none does */
  bool (*waiting)(void);
  bool (*polled)(void);             /* it has descriptors in epoll: a poll that does not wait
                                       is worth a call (coro_sched_poll_every) */
  int64_t (*timeout)(uint64_t now); /* how long epoll may wait for its sake: ns, or -1
                                       (the timers set a timerfd of theirs instead) */
  /* the time to the next thing it does by itself (a deadline), ns, or -1: what a host loop
     is told to wait at most (coro_sched_timeout), whether or not a clock of its wakes epoll */
  int64_t (*deadline)(uint64_t now);
  void (*event)(void *tag, uint32_t events); /* one of its epoll events (tag: its data.ptr) */
  /* after every poll: make ready what is due at now (ns) */
  void (*fire)(uint64_t now);
  void (*end)(void);                          /* the thread ends: give back what it holds for it
                                                 (its descriptors, its memory) */
  bool (*call_off)(struct coro_awaitable *a); /* coro_cancel of a task waiting on a, which has no
                                                 cancel operation: if a is the source's and can
                                                 still be called off, do it and settle a (true) */
};

/* What a source puts in epoll's data.ptr: a record whose first member is
   the source, so that the loop can hand each event to its own. */
struct coro_watch {
  const struct coro_source *source;
};

enum { CORO_MAX_SOURCES = 8 };

/* This thread's scheduler. */
struct sched {
  struct coro_task *head, *tail; /* the ready queue, FIFO, linked through next_ready */
  long live;                     /* spawned tasks not finished */
  unsigned poll_every;           /* 0: run the queue dry before polling; n: poll every n turns */
  int epfd;                      /* epoll instance, made on first use */
  uint64_t now_ns; /* the clock (CLOCK_MONOTONIC, ns) when the scheduler last read it */
  const struct coro_source *sources[CORO_MAX_SOURCES]; /* registered, in the order they came */
  unsigned nsources;
  bool in_registry; /* coro_registry_note_sched told the registry of it (gdb's way in) */
  /* A host loop drives it (coro_sched_fd, docs/runtime.md "Driven by another loop"): an
     eventfd in epoll, written when the ready queue becomes non-empty, so that epoll's
     descriptor is readable while tasks are ready. */
  int wakefd;    /* the eventfd, once a host asked for the descriptor; else 0 */
  bool wake_set; /* it holds a count: epoll's descriptor is readable for it */
  bool wake_arm; /* the next task made ready on an empty queue writes it (a host, not the
                    loop, runs now: the loop settles it itself as it returns) */
};

/* registry.c: this thread's scheduler has work; the gdb extension finds it
   through the thread's registry from now on. */
void coro_registry_note_sched(struct sched *s);

extern _Thread_local struct sched coro_sched_self;

/* Register src with this thread's scheduler (once: again is nothing). When
   the thread ends, each registered source's end() runs, then the epoll
   instance is closed. */
void coro_sched_add_source(const struct coro_source *src);

/* This thread's epoll instance (made on first use), and the clock, read now. */
int coro_sched_epoll(void);
uint64_t coro_sched_now_ns(void);

/* timer.c: a timer called off (coro_timeout, a select's or a wait's deadline). */
void coro_timer_cancel(struct coro_sleep *t);

/* Ask each source to call off a wait on a, an awaitable with no cancel
   operation (struct coro_source's call_off): true if one did (a is
   settled now); false if none could (a call already running on a worker). */
bool coro_sched_call_off(struct coro_awaitable *a);

/* Take c, a task in the ready queue, out of it (a relay that must not run
   after all): a walk, for the rare case. */
void coro_unready(coro_t *c);

#endif
