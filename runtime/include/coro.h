/* coro.h: the coroc runtime's API (docs/runtime.md says more of each).
 *
 * A coroutine instance is a `coro_t *`, whether coroc turned its body into
 * a state machine (stackless) or kept it on a stack of its own (stackful).
 * The code that coroc generates needs more than this: coro/gen.h, which
 * this header includes at its end (docs/abi.md), so that generated code
 * and users write `#include <coro.h>` only. Nothing there is API.
 */
#ifndef CORO_H
#define CORO_H

/* coro.h takes no name from the user (docs/runtime.md, "What coro.h
   declares"): it includes only <errno.h> and <stdbool.h>, and names the
   standard types it needs itself, as <stddef.h> and <stdint.h> do (C11
   lets a typedef be repeated with the same type), without including them:
   coroc includes coro.h into every file it reads, also one that is already
   preprocessed, where those headers' contents stand without their include
   guards and a second copy would clash (their anonymous structs). Sockets'
   types are not named (coro_accept takes void *), coro_signal has a header
   of its own (<coro/signal.h>), and the code copies with __builtin_memcpy. */
#include <errno.h> /* ECANCELED: CORO_CANCELED */
#include <stdbool.h>
typedef __SIZE_TYPE__ size_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;

#ifdef __cplusplus
extern "C" {
/* The awaitables below are returned by value from C functions and defined
   at the end (coro/gen.h): plain structs, laid out the same in C++. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wreturn-type-c-linkage"
#endif
#endif

/* In C++, the calls that run coroutine bodies are noexcept (the end of this
   header): an exception thrown into a body by a C++ function it calls ends
   in std::terminate there, instead of leaving the instance and the
   scheduler half way through a turn (docs/hosts.md, "From C++"). */
#ifdef __cplusplus
#define CORO_NOEXCEPT noexcept
#else
#define CORO_NOEXCEPT
#endif

/* Made and dropped, an awaitable or a new instance does nothing
   (`coro_sleep(100);` without `await`): the compiler warns. */
#if defined(__GNUC__) || defined(__clang__)
#define CORO_NODISCARD __attribute__((warn_unused_result))
#else
#define CORO_NODISCARD
#endif

/* {==================================================================
 * Types
 * =================================================================== */

typedef struct coro coro_t; /* a coroutine instance: a generator or a task */

/* The head of every awaitable struct below; its `result` member is the value
   of the await. Users name them: `struct coro_read rd = coro_read(fd, b, n);
   await coro_timeout(&rd.base, 100);` then rd.result. Layouts: coro/gen.h. */
struct coro_awaitable;
struct coro_read;        /* coro_read: ssize_t */
struct coro_write;       /* coro_write: ssize_t */
struct coro_accept;      /* coro_accept: int, the new fd */
struct coro_connect;     /* coro_connect: int, 0 once connected */
struct coro_read_buf;    /* coro_read_buf: struct coro_buf */
struct coro_signal;      /* coro_signal: int, the signal */
struct coro_sleep;       /* coro_sleep: int, 0 */
struct coro_wait;        /* coro_wait_all, coro_wait_any: long, 0 or the index */
struct coro_timeout;     /* coro_timeout: int, 0 or -ETIMEDOUT */
struct coro_offload;     /* coro_offload: void *, fn's value */
struct coro_chan_op;     /* coro_chan_send, coro_chan_recv: int, 0 or -EPIPE */
struct coro_chan_select; /* coro_chan_select(_timeout): int, the index or -ETIMEDOUT */
struct coro_sync_wait;   /* every wait of the toolkit: int, 0 or -ETIMEDOUT */
struct coro_next_await;  /* coro_next_await: bool, true with a value */

/* Declared by the user, zeroed (a fresh one), fields the runtime's. */
struct coro_event; /* an event: set wakes every waiter, and it stays set */
struct coro_sem;   /* a counting semaphore; CORO_SEM_INIT(n) or coro_sem_init */
struct coro_mutex; /* a mutex held by a task across awaits */
struct coro_group; /* a wait group of tasks */

struct coro_chan; /* a channel: made by coro_chan_new, opaque */

/* }================================================================== */

/* {==================================================================
 * Generators (and every instance)
 * =================================================================== */

/* Resume gen to its next value, copied to *out (NULL: dropped); false once it returned. */
static inline bool coro_next(coro_t *gen, void *out) CORO_NOEXCEPT; /* (inline: coro/gen.h) */

/* coro_next that hands the pending `x = yield v;` a copy of *in (NULL: x zeroed). */
bool coro_send(coro_t *gen, const void *in, void *out);

/* True once the body has returned (the coro_next that found no value). */
bool coro_done(const coro_t *c);

/* Release an instance, finished or not. (A macro around the function: coro/gen.h.) */
void coro_free(coro_t *c);

/* Storage of your own for an instance of NAME: coroc writes coro_in_NAME(&storage, args). */
#define CORO_FRAME(name) struct coro_frame_##name

/* }================================================================== */

/* {==================================================================
 * Stackful instances (coroc --backend=stackful): their stacks
 * =================================================================== */

/* c's stack size, before its first resume; false for stackless or started ones. */
bool coro_set_stack_size(coro_t *c, size_t bytes);

/* The stack size of this thread's next stackful instances (default 256 KiB; 0: default). */
void coro_default_stack_size(size_t bytes);

/* Give c a floating-point environment of its own, before its first resume. */
bool coro_set_fpenv(coro_t *c, bool own);

/* Run c on its thread's shared stack, copied out when another runs, before its first resume. */
bool coro_set_shared_stack(coro_t *c, bool shared);

/* Run this thread's next stackful instances on its shared stack, or not (the
   default: CORO_SHARED_STACK=1 in the environment, else not). */
void coro_default_shared_stack(bool shared);

/* What this thread's shared stack has copied so far. */
struct coro_stack_stats {
  unsigned long long copies_out; /* suspended instances' frames copied out to their buffers */
  unsigned long long bytes_out;  /* the bytes of those copies */
  unsigned long long copies_in;  /* frames copied back onto the shared stack */
  unsigned long long bytes_in;   /* the bytes of those */
};
void coro_shared_stack_stats(struct coro_stack_stats *stats);

/* }================================================================== */

/* {==================================================================
 * Tasks and the scheduler (one per thread)
 * =================================================================== */

/* Hand a new task to this thread's scheduler, which frees it when it ends. */
void coro_spawn(coro_t *task);

/* Run until no spawned task is left: 0, or -errno (-EDEADLK: none can ever wake). */
int coro_run(void);

/* Look for events after every n turns (0, the default: only when none is ready). */
void coro_sched_poll_every(unsigned n);

/* Driven by another loop (docs/runtime.md, "Driven by another loop"): this thread's
   scheduler as a descriptor, a timeout and a call, for a loop of the program's own (poll,
   libuv, GLib, a frame loop) instead of coro_run, on this thread only. The descriptor (an
   epoll instance; -errno if it cannot be made) is readable, level, while the scheduler has
   work: ready tasks, I/O, a timer due, an offloaded call finished, a signal. */
int coro_sched_fd(void);

/* How long the host may wait, ms, before coro_run_ready: 0 when tasks are ready, -1 when
   no deadline is pending, else until the earliest (rounded up). Ask it before every wait. */
int coro_sched_timeout(void);

/* Run what is ready now, without waiting: the events that came in, then the tasks ready
   (those they make ready wait for the next call). *ran (NULL: not wanted) = the tasks it
   resumed. Returns the spawned tasks that have not ended: 0 when none is left. */
long coro_run_ready(unsigned long *ran);

/* Cancel every task spawned on this thread that has not ended (coro_cancel of each):
   how many. Then drive until they end (coro_run): a host loop's clean end. */
long coro_cancel_all(void);

/* Decide from seed every order the runtime leaves open on this thread: which of the
   descriptors ready in one wait wakes its task first, whether the timers due in a turn
   fire before or after them, in which order offloaded calls finished meanwhile wake
   their tasks. The ready queue stays FIFO. The same seed and inputs give the same run;
   CORO_SCHED_SEED=N in the environment does the same for every thread, and a fatal
   error names the seed. */
void coro_sched_seed(uint64_t seed);

/* Show tasks, at random from the seed, what the kernel may legally answer: spec is a
   list such as "eagain,short=50,late" of the kinds eagain, short, eintr, late, slow,
   reset, each with a rate in percent (or its default), or "all" (every kind but
   reset), or "none". Before the first task runs; CORO_SCHED_FAULTS=spec in the
   environment does the same. 0, or -EINVAL for a spec it cannot read. */
int coro_sched_faults(const char *spec);

/* }================================================================== */

/* {==================================================================
 * Awaitables: `await OP(...)` has the value of the struct's `result`
 * =================================================================== */

/* I/O on any fd, never -EAGAIN (the task waits); -errno for an error. */
/* (ssize_t is long, and socklen_t unsigned int, on every Linux target: runtime/io.c checks it.
   addr is a struct sockaddr * of any family, as for accept(2) and connect(2).) */
/* ssize_t */
struct coro_read coro_read(int fd, void *buf, size_t len) CORO_NODISCARD;
/* ssize_t */
struct coro_write coro_write(int fd, const void *buf, size_t len) CORO_NODISCARD;
/* the new fd */
struct coro_accept coro_accept(int listen_fd, void *addr, unsigned int *len) CORO_NODISCARD;
/* 0 once connected */
struct coro_connect coro_connect(int fd, const void *addr, unsigned int len) CORO_NODISCARD;

/* A read into a buffer lent from a pool only once fd has data; give it back with coro_buf_release.
 */
enum { CORO_BUF_SIZE = 65536 };
struct coro_buf {
  long len;   /* bytes read, 0 at the end, or -errno (an ssize_t) */
  char *data; /* the lent buffer (len > 0), else NULL */
};
struct coro_read_buf coro_read_buf(int fd); /* struct coro_buf */
void coro_buf_release(void *data);          /* give a lent buffer back (NULL: nothing) */

/* coro_signal(const sigset_t *set), a signal as an awaitable: in <coro/signal.h>. */

/* Close fd, forgetting what the runtime knew of it: 0 or -errno. */
int coro_close(int fd);

/* Sleep for ms (0: let the other ready tasks run first). */
struct coro_sleep coro_sleep(unsigned ms) CORO_NODISCARD; /* 0 */

/* Start n new tasks; complete when all (0) or the first (its index) have finished. */
/* long: 0 */
struct coro_wait coro_wait_all(coro_t **tasks, size_t n) CORO_NODISCARD;
/* long: index */
struct coro_wait coro_wait_any(coro_t **tasks, size_t n) CORO_NODISCARD;

/* Await aw (kept by the caller) for at most ms: 0, or -ETIMEDOUT (it was called off). */
/* int */
struct coro_timeout coro_timeout(struct coro_awaitable *aw, unsigned ms) CORO_NODISCARD;

/* A generator's next value, copied to *out (NULL: dropped): true, or false once it returned.
   The generator may await (an async generator): it runs as the awaiting task's child. */
/* bool */
struct coro_next_await coro_next_await(coro_t *gen, void *out) CORO_NODISCARD;

/* Run fn(arg) on a worker thread; the task waits without blocking the thread. */
/* void * */
struct coro_offload coro_offload(void *(*fn)(void *arg), void *arg) CORO_NODISCARD;

/* coro_offload's value when a cancellation took the call off the queue before it ran. */
#define CORO_CANCELED ((void *)(intptr_t)-ECANCELED)

/* }================================================================== */

/* {==================================================================
 * Cancellation: a task asked to stop (docs/runtime.md, "Cancellation")
 * =================================================================== */

/* Ask task to stop: its wait, or its next, ends with -ECANCELED (a child it awaits first); false:
   ended. */
bool coro_cancel(coro_t *task);

/* Cancel task when ms have passed from now, unless it ends first; again: the new deadline replaces
   it. */
void coro_deadline(coro_t *task, unsigned ms);

/* Has task been asked to stop? (NULL: the running task.) */
bool coro_cancelled(const coro_t *task);

/* coro_wait_any whose other tasks are cancelled once the first has finished. */
/* long: index */
struct coro_wait coro_wait_any_cancel(coro_t **tasks, size_t n) CORO_NODISCARD;

/* }================================================================== */

/* {==================================================================
 * Channels and the synchronisation toolkit: tasks of one thread
 * =================================================================== */

/* A channel of values of elem_size bytes (capacity 0: a rendezvous); NULL: out of memory. */
struct coro_chan *coro_chan_new(size_t elem_size, size_t capacity);
#define CORO_CHAN_NEW(type, capacity) coro_chan_new(sizeof(type), (capacity))
void coro_chan_free(struct coro_chan *ch); /* no task may wait on it */

/* No value is sent from now on: 0, or -EPIPE if it was closed already. */
int coro_chan_close(struct coro_chan *ch);

/* Send the value at value / receive into value (NULL: drop), waiting: 0, or -EPIPE (closed). */
/* int */
struct coro_chan_op coro_chan_send(struct coro_chan *ch, const void *value) CORO_NODISCARD;
/* int */
struct coro_chan_op coro_chan_recv(struct coro_chan *ch, void *value) CORO_NODISCARD;

/* Perform exactly one of n operations: its index; with a deadline, or -ETIMEDOUT. */
/* int */
struct coro_chan_select coro_chan_select(struct coro_chan_op *ops, size_t n) CORO_NODISCARD;
struct coro_chan_select coro_chan_select_timeout(struct coro_chan_op *ops, size_t n,
                                                 unsigned ms) CORO_NODISCARD; /* int */

/* Without waiting: 0, -EAGAIN (it would wait), -EPIPE (closed; a receive: and empty). */
int coro_chan_try_send(struct coro_chan *ch, const void *value);
int coro_chan_try_recv(struct coro_chan *ch, void *value);
size_t coro_chan_len(const struct coro_chan *ch); /* values waiting in it */
bool coro_chan_closed(const struct coro_chan *ch);

/* An event: wait until set; set wakes every waiter in order and stays set until reset. */
void coro_event_set(struct coro_event *ev);
void coro_event_reset(struct coro_event *ev);
/* int: 0 */
struct coro_sync_wait coro_event_wait(struct coro_event *ev) CORO_NODISCARD;

/* A semaphore: acquire takes a unit, waiting while none is free; release gives one back. */
#ifndef __cplusplus
#define CORO_SEM_INIT(n) \
  { .count = (n) }
#else
#define CORO_SEM_INIT(n) \
  {                      \
    (n), {}              \
  }
#endif
void coro_sem_init(struct coro_sem *s, long count);
/* int: 0 */
struct coro_sync_wait coro_sem_acquire(struct coro_sem *s) CORO_NODISCARD;
bool coro_sem_try_acquire(struct coro_sem *s);
void coro_sem_release(struct coro_sem *s);

/* A mutex: a semaphore of one unit whose unlock checks that it was locked. */
/* int: 0 */
struct coro_sync_wait coro_mutex_lock(struct coro_mutex *m) CORO_NODISCARD;
bool coro_mutex_try_lock(struct coro_mutex *m);
void coro_mutex_unlock(struct coro_mutex *m);

/* A group: spawn counts a task in, done counts it out; wait completes at 0. */
void coro_group_spawn(struct coro_group *g, coro_t *task);
void coro_group_add(struct coro_group *g, long n);
void coro_group_done(struct coro_group *g);
/* int: 0 */
struct coro_sync_wait coro_group_wait(struct coro_group *g) CORO_NODISCARD;

/* Any wait of the toolkit with a deadline: 0, or -ETIMEDOUT and it took nothing. */
/* int */
struct coro_sync_wait coro_sync_timeout(struct coro_sync_wait wait, unsigned ms) CORO_NODISCARD;

/* }================================================================== */

/* {==================================================================
 * An awaitable of your own ("Writing your own awaitable")
 * =================================================================== */

/* ready() tries it now (true: `result` set); suspend() arranges coro_ready(waiter). */
struct coro_awaiter {
  bool (*ready)(struct coro_awaitable *a);
  void (*suspend)(struct coro_awaitable *a, coro_t *waiter);
  void (*cancel)(struct coro_awaitable *a); /* optional: forget the waiter, set result, coro_settle
                                               (coro_timeout and coro_cancel need it) */
};
struct coro_awaitable {
  const struct coro_awaiter *ops;     /* what it does */
  coro_t *waiter;                     /* the task suspended on it */
  struct coro_awaitable *next_waiter; /* the runtime's: others waiting for the same thing */
};

/* Make the suspended task c ready: the scheduler runs it after those already ready. */
void coro_ready(coro_t *c);

/* For a cancel operation, once it set `result`: ready(a) answers true from now on. */
void coro_settle(struct coro_awaitable *a);

/* }================================================================== */

/* {==================================================================
 * Allocators: where this thread's new instances live
 * =================================================================== */

/* alloc(bytes, align >= 16, ctx), NULL when out of memory; free(p, bytes, ctx) on the same thread.
 */
struct coro_allocator {
  void *(*alloc)(size_t bytes, size_t align, void *ctx); /* NULL when out of memory */
  void (*free)(void *p, size_t bytes, void *ctx);
  void *ctx;
};

/* This thread's allocator for new instances (copied); NULL: the default slabs again. */
void coro_set_allocator(const struct coro_allocator *a);

/* }================================================================== */

/* {==================================================================
 * Tracing a run (docs/debugging.md, "Tracing a run"): a Chrome trace-event
 * JSON file of every instance's life, runs, waits and wake-ups
 * =================================================================== */

/* Record from now on, on every thread, and write the file at path when
   coro_trace_stop is called, at exit, or on a fatal runtime error. What the
   environment's CORO_TRACE=FILE does at the first use of the runtime. 0, or
   -EBUSY (a trace is being recorded), -ENOMEM. */
int coro_trace_start(const char *path);

/* Stop recording and write the file: 0, or -errno (-EINVAL: no trace). */
int coro_trace_stop(void);

/* }================================================================== */

/* {==================================================================
 * Errors: a result is a value or -errno, as above; misuse that cannot be a
 * result stops the program with "coro: FUNCTION: MESSAGE" and abort().
 * =================================================================== */

/* Why c's first resume found no stack (coro_next false, errno ENOMEM), or NULL. */
const char *coro_error(const coro_t *c);

/* }================================================================== */

#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic pop
#endif
#ifdef __cplusplus
}
#endif

#include "coro/gen.h" /* what the generated code needs (docs/abi.md) */

#ifdef __cplusplus
/* From C++, the library's calls that resume bodies go through these
   noexcept inlines (coro_next and coro_free are inline already): an
   exception cannot cross the C frames between them and the body, whatever
   the frames of the caller above. */
static inline bool coro_send_noexcept(coro_t *gen, const void *in, void *out) noexcept {
  return coro_send(gen, in, out);
}
static inline int coro_run_noexcept(void) noexcept {
  return coro_run();
}
static inline long coro_run_ready_noexcept(unsigned long *ran) noexcept {
  return coro_run_ready(ran);
}
#define coro_send(gen, in, out) coro_send_noexcept(gen, in, out)
#define coro_run() coro_run_noexcept()
#define coro_run_ready(ran) coro_run_ready_noexcept(ran)
#endif

#endif /* CORO_H */
