/* coro/awaitables.h: the layouts of the awaitable structs that <coro.h>
 * names, and of the channels and the synchronisation toolkit's objects.
 *
 * Not for users: <coro/gen.h>, the generated code's header, includes it
 * (and <coro.h> includes that one at its end), so that `struct coro_read
 * rd = coro_read(...)` has a size; the fields are the runtime's and may
 * change between versions of coroc (docs/abi.md).
 */
#ifndef CORO_AWAITABLES_H
#define CORO_AWAITABLES_H

#ifndef CORO_GEN_H
#error "include <coro.h>, which includes <coro/awaitables.h> through <coro/gen.h>"
#endif

/* {==================================================================
 * The awaitables of <coro.h> (docs/runtime.md, "Writing an awaitable")
 *
 * Each begins with a struct coro_awaitable (<coro.h>) and has a member
 * `result`, the value of the await; the rest is the runtime's.
 * =================================================================== */

struct coro_read {
  struct coro_awaitable base;
  int fd;
  void *buf;
  size_t len;
  long result; /* an ssize_t */
};
struct coro_read_buf {
  struct coro_awaitable base;
  int fd;
  struct coro_buf result;
};
struct coro_signal {
  struct coro_awaitable base;
  /* a sigset_t (runtime/signal.c checks the size) */
  unsigned char set[128] __attribute__((aligned(8)));
  int fd;                /* the signalfd while waiting; -1 before and after */
  struct coro_read read; /* of info from fd */
  unsigned char info[128] __attribute__((aligned(8))); /* a struct signalfd_siginfo */
  int result;
};
struct coro_write {
  struct coro_awaitable base;
  int fd;
  const void *buf;
  size_t len;
  long result; /* an ssize_t */
};
struct coro_accept {
  struct coro_awaitable base;
  int fd;
  void *addr;            /* a struct sockaddr */
  unsigned int *addrlen; /* a socklen_t */
  int result;
};
struct coro_connect {
  struct coro_awaitable base;
  int fd;
  const void *addr;     /* a struct sockaddr */
  unsigned int addrlen; /* a socklen_t */
  bool started;
  int result;
};
struct coro_sleep {
  struct coro_awaitable base;
  unsigned ms;
  bool armed, fired;
  uint64_t deadline_ns; /* CLOCK_MONOTONIC, ns: set when the sleep starts, + ms */
  unsigned long seq;    /* timers due together fire in the order they were set */
  size_t heap_index;    /* where it is in the scheduler's heap of timers */
  int result;
};
struct coro_wait { /* coro_wait_all, coro_wait_any */
  struct coro_awaitable base;
  coro_t **tasks;
  size_t n, left;
  bool any, started, finished;
  /* coro_wait_any_cancel: the tasks that did not finish first are cancelled */
  bool cancel_rest;
  struct coro_task relay; /* the parent of the tasks, in the waiter's place (runtime/futures.c) */
  long result;
};
struct coro_timeout {
  struct coro_awaitable base;
  struct coro_awaitable *inner;
  unsigned ms;
  bool finished, timed_out;
  bool inner_done; /* inner completed in the turn the timer fired: it wins */
  struct coro_sleep timer;
  struct coro_task relay; /* woken by inner or timer, in the waiter's place */
  int result;
};

struct coro_next_await { /* coro_next_await (runtime/agen.c) */
  struct coro_awaitable base;
  coro_t *gen; /* the generator whose next value it is */
  void *out;   /* where the value goes (NULL: dropped) */
  bool result; /* true: a value; false: the generator returned */
};

struct coro_offload {
  struct coro_awaitable base;
  void *(*fn)(void *arg);
  void *arg;
  bool started;
#ifndef __cplusplus
  _Atomic int state; /* settles the race with the worker (runtime/offload.c) */
#else
  int state; /* (C++ sees the same layout; only the runtime touches it) */
#endif
  /* where the awaiting task's thread takes finished calls (runtime/offload.c) */
  struct coro_remote *home;
  struct coro_offload *next_job;  /* the workers' queue */
  struct coro_offload *next_done; /* the scheduler's remote queue */
  void *result;
};

/* }================================================================== */


/* {==================================================================
 * Channels and the synchronisation toolkit (runtime/chan.c,
 * runtime/sync.c; docs/runtime.md, "Channels" and "Synchronisation")
 *
 * A waiting operation is linked into the queue of what it waits for, and
 * that queue points into the awaitable struct in the task's frame or on
 * its stack until the await completes or is called off. Events,
 * semaphores, mutexes and groups are the user's (a zeroed struct is a
 * fresh one), their fields the runtime's.
 * =================================================================== */

/* A place in a queue of waiting operations, and the queue (FIFO). */
struct coro_waitlink {
  struct coro_waitlink *next, *prev;
};
struct coro_waitq {
  struct coro_waitlink *head, *tail;
};

struct coro_chan_op {
  struct coro_awaitable base;
  struct coro_chan *chan;
  void *value;                     /* send: where the value is read; receive: where it goes */
  bool send;                       /* a send (else a receive) */
  bool queued;                     /* waiting in the channel's queue of senders or receivers */
  bool done;                       /* performed (by a partner, or by close), result set */
  struct coro_waitlink link;       /* its place in that queue */
  struct coro_chan_select *select; /* the select it is a branch of, or NULL */
  int result;                      /* 0, or -EPIPE */
};
struct coro_chan_select {
  struct coro_awaitable base;
  struct coro_chan_op *ops;
  size_t n;
  bool started, done;
  bool timed;              /* coro_chan_select_timeout: with a deadline */
  unsigned ms;             /* its time, from the first wait */
  struct coro_sleep timer; /* the deadline's timer, armed at the first wait */
  int result;              /* the index of the operation performed, or -ETIMEDOUT */
};

/* The awaitable of every wait of the toolkit: a waiter in a queue. */
struct coro_sync_wait {
  struct coro_awaitable base;
  void *object;              /* the event, semaphore, mutex or group */
  bool queued;               /* waiting in its queue */
  bool done;                 /* woken with the wait over (result set) */
  struct coro_waitlink link; /* its place in the queue */
  bool timed;                /* coro_sync_timeout: with a deadline */
  unsigned ms;               /* its time, from the first wait */
  struct coro_sleep timer;   /* the deadline's timer, armed at the first wait */
  int result;                /* 0, or -ETIMEDOUT */
};

struct coro_event {
  bool set;
  struct coro_waitq waiters; /* its waits */
};
struct coro_sem {
  long count;                /* units free */
  struct coro_waitq waiters; /* its waits */
};
struct coro_mutex {
  bool locked;
  struct coro_waitq waiters; /* its waits */
};
struct coro_group {
  long pending;              /* counted in, not done yet */
  struct coro_waitq waiters; /* its waits */
};

/* }================================================================== */

#endif
