/* coro.h: the coroc runtime.
 *
 * One library serves both backends. A coroutine instance is a `coro_t *`,
 * whether coroc turned its body into a state machine (stackless) or kept it
 * as a function running on a stack of its own (stackful); users cannot tell
 * them apart.
 *
 * The first part of this header is the public API (docs/runtime.md). The
 * second part, fenced below, is the interface that coroc's generated code
 * relies on (docs/abi.md); users never need to touch it.
 */
#ifndef CORO_H
#define CORO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>  /* struct sockaddr, socklen_t: coro_accept, coro_connect */
#include <sys/types.h>   /* ssize_t */
#include <string.h>  /* memcpy: generated code initializes arrays in frames with it */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coro coro_t;            /* a coroutine instance */
struct coro_awaitable;                 /* the head of every awaitable (below) */

/* Resume the generator `gen` until it yields its next value, and copy that
   value to *out (out may be NULL to skip it). Returns false once the body has
   returned, and false again on every later call. */
static inline bool coro_next(coro_t *gen, void *out);  /* (inline: defined below) */

/* True once the body has returned. A generator suspended at its last value
   is not done yet: only the coro_next that finds no further value is. */
bool coro_done(const coro_t *c);

/* Release an instance, at any point: an unfinished one is released too (its
   frame or its stack is freed; its body simply never continues). */
void coro_free(coro_t *c);

/* Stack sizes of stackful instances (coroc --backend=stackful). A stackful
   body runs on a stack of its own, mapped at its first resume with a guard
   page below it: running past its end stops the program with a message
   naming the instance and its stack size. Sizes are rounded up to whole pages. */

/* Set the stack size of the stackful instance c before its first resume.
   Returns false, and changes nothing, for a stackless instance, one already
   started, or bytes == 0. */
bool coro_set_stack_size(coro_t *c, size_t bytes);

/* The stack size of the stackful instances this thread creates from now on
   (default: 256 KiB; 0 restores the default). Instances already created keep
   theirs. */
void coro_default_stack_size(size_t bytes);

/* {==================================================================
 * Tasks and the scheduler
 * =================================================================== */

/* Hand a task (a coroutine without `yield EXPR`) to this thread's
   scheduler, which owns it from now on and frees it when it finishes. Runs
   nothing yet. */
void coro_spawn(coro_t *task);

/* Run this thread's scheduler until no spawned task is left: ready tasks
   in FIFO order, waiting in epoll when none is ready. 0, or -errno
   (-EDEADLK: tasks are left that nothing can ever wake). */
int coro_run(void);

/* The starvation trade-off: 0 (the default) runs the ready queue dry before
   looking for I/O and timer events, for the best throughput of ready tasks;
   n > 0 looks (without waiting) after every n turns, so that an event never
   waits behind more than n turns. */
void coro_sched_poll_every(unsigned n);

/* Awaitable operations. `await coro_read(fd, buf, len)` has the value of
   read(2), with -errno in place of -1 and errno, and never -EAGAIN: the task
   waits instead, costing no CPU. The fds handed to these are put in
   non-blocking mode. Each returns an awaitable struct (below) whose `result`
   is the value of the await. */
struct coro_read coro_read(int fd, void *buf, size_t len);                    /* ssize_t */
struct coro_write coro_write(int fd, const void *buf, size_t len);            /* ssize_t */
struct coro_accept coro_accept(int listen_fd, struct sockaddr *addr, socklen_t *len); /* the new fd */
struct coro_connect coro_connect(int fd, const struct sockaddr *addr, socklen_t len); /* 0 once connected */
struct coro_sleep coro_sleep(unsigned ms);                                    /* 0 */

/* Several at once. coro_wait_all starts the n new tasks and completes (0)
   when all have finished; the caller frees them. coro_wait_any starts them
   and completes when the first has finished, with its index; the caller
   frees that one, and the scheduler takes the others, which go on and are
   freed when they finish. */
struct coro_wait coro_wait_all(coro_t **tasks, size_t n);                     /* long: 0 */
struct coro_wait coro_wait_any(coro_t **tasks, size_t n);                     /* long: index */

/* `await coro_timeout(&aw.base, ms)`: await aw (an awaitable the caller
   keeps, e.g. `struct coro_read rd = coro_read(...)`) for at most ms: 0 if
   it completed (its result is in aw.result), or -ETIMEDOUT (it was called off). */
struct coro_timeout coro_timeout(struct coro_awaitable *aw, unsigned ms);     /* int */

/* Run fn(arg) on a worker thread; `await coro_offload(fn, arg)` is fn's
   return value. The task waits without blocking the thread's other tasks. */
struct coro_offload coro_offload(void *(*fn)(void *arg), void *arg);         /* void * */

/* }================================================================== */

/* ==================================================================
 * For generated code only (docs/abi.md). Not part of the public API;
 * names and layout may change between versions of coroc.
 * ================================================================== */

/* The life cycle of an instance. coro_status_name() gives each a name. */
enum coro_status {
  CORO_CREATED,     /* made by name(args); the body has not started (lazy start) */
  CORO_SUSPENDED,   /* stopped at a yield; resumable */
  CORO_RUNNING,     /* its body is executing now */
  CORO_DONE         /* its body returned; never runs again */
};

/* The header every instance starts with. A stackless instance is a frame
   struct whose first member is this header; a stackful one embeds it in its
   stack bookkeeping. The resume path reads `resume`, writes `out`, and calls
   through `resume`: one indirect call, no allocation, no copying. */
struct coro {
  bool (*resume)(coro_t *c, void *out); /* run the body from where it stopped to its next suspension
                                   (true; a generator's value went to *out) or its end (false) */
  void (*release)(coro_t *c);   /* free what the instance owns (the frame, the stack) */
  void *out;                    /* where the yield being made copies its value; NULL: drop it */
  unsigned short resume_point;  /* stackless: the numbered point where resume continues; 0 = start */
  unsigned short status;        /* enum coro_status. Two shorts side by side: a suspension's two
                                   stores (resume point, status) merge into one */
  unsigned char spawned;        /* a task handed to coro_spawn: the scheduler frees it at its end */
  unsigned char generator;      /* made by a generator (yield EXPR): consumed by coro_next, never awaited */
  coro_t *parent;               /* a task being awaited: the task awaiting it, resumed directly when it ends */
  coro_t *awaiting;             /* set as a task suspends to await a child: the child to start now */
  void *result;                 /* a task: where its return value is kept; NULL for void */
  coro_t *next_ready;           /* the scheduler's ready queue (intrusive, FIFO) */
};

/* {==================================================================
 * Awaitables (docs/runtime.md, "Writing an awaitable")
 *
 * An awaitable is a struct whose first member is a struct coro_awaitable
 * and which has a member `result`, the value of the await. Its ops are a
 * C++20-style awaiter: ready() tries the operation now (true: `result` is
 * set); suspend() arranges coro_ready(waiter) for when ready() may succeed.
 * The awaiting task keeps the struct (in its frame or on its stack) until
 * ready() says yes.
 * =================================================================== */

struct coro_awaitable;
struct coro_awaiter {
  bool (*ready)(struct coro_awaitable *a);
  void (*suspend)(struct coro_awaitable *a, coro_t *waiter);
  void (*cancel)(struct coro_awaitable *a);  /* optional: forget the waiter (coro_timeout needs it) */
};
struct coro_awaitable {
  const struct coro_awaiter *ops;  /* what it does */
  coro_t *waiter;                  /* the task suspended on it */
  struct coro_awaitable *next_waiter; /* the runtime's: others waiting for the same thing */
};

struct coro_read {
  struct coro_awaitable base;
  int fd;
  void *buf;
  size_t len;
  ssize_t result;
};
struct coro_write {
  struct coro_awaitable base;
  int fd;
  const void *buf;
  size_t len;
  ssize_t result;
};
struct coro_accept {
  struct coro_awaitable base;
  int fd;
  struct sockaddr *addr;
  socklen_t *addrlen;
  int result;
};
struct coro_connect {
  struct coro_awaitable base;
  int fd;
  const struct sockaddr *addr;
  socklen_t addrlen;
  bool started;
  int result;
};
struct coro_sleep {
  struct coro_awaitable base;
  unsigned ms;
  bool armed, fired;
  uint64_t deadline;      /* CLOCK_MONOTONIC, ms */
  unsigned long seq;      /* timers due together fire in the order they were set */
  size_t heap_index;      /* where it is in the scheduler's heap of timers */
  int result;
};
struct coro_wait {        /* coro_wait_all, coro_wait_any */
  struct coro_awaitable base;
  coro_t **tasks;
  size_t n, left;
  bool any, started, finished;
  coro_t relay;           /* the parent of the tasks, in the waiter's place (runtime/futures.c) */
  long result;
};
struct coro_timeout {
  struct coro_awaitable base;
  struct coro_awaitable *inner;
  unsigned ms;
  bool finished, timed_out;
  struct coro_sleep timer;
  coro_t relay;           /* woken by inner or timer, in the waiter's place */
  int result;
};

struct coro_offload {
  struct coro_awaitable base;
  void *(*fn)(void *arg);
  void *arg;
  bool started;
#ifndef __cplusplus
  _Atomic int state;             /* settles the race with the worker (runtime/offload.c) */
#else
  int state;                     /* (C++ sees the same layout; only the runtime touches it) */
#endif
  struct sched *home;            /* the scheduler of the awaiting task's thread */
  struct coro_offload *next_job; /* the workers' queue */
  struct coro_offload *next_done;/* the scheduler's remote queue */
  void *result;
};

/* Make c ready: the scheduler runs it after those already ready. */
void coro_ready(coro_t *c);

/* }================================================================== */

/* coro_next, inline: the resume path is one check, one store and one
   indirect call, as lean as calling a hand-written state machine. What is
   not the common case (a finished or running instance) is out of line. */
bool coro_next_refused(coro_t *gen);
static inline bool coro_next(coro_t *gen, void *out) {
  if (__builtin_expect(gen->status >= CORO_RUNNING, 0))  /* RUNNING or DONE */
    return coro_next_refused(gen);
  gen->status = CORO_RUNNING;
  return gen->resume(gen, out);  /* out in a register, the answer in one */
}

/* Allocate a zeroed frame of `size` bytes aligned to `align` whose first
   member is a struct coro, and set it up to run `resume` when first resumed.
   Aborts with a message when memory runs out: a coroutine call has no way to
   report failure to its caller. */
coro_t *coro_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out));

/* The name of a status, for messages. */
const char *coro_status_name(int status);

/* The tiny vocabulary of a stackless resume function (protothreads-style).
 * A resume point is a number; its label is coro_resume_N. The dispatch switch
 * at the top of the resume function jumps to it with goto, which also works
 * when the yield stands inside the user's own switch or nested loops. */

/* `yield EXPR;` in a generator of T: EXPR is evaluated once, converted to
   T and stored where coro_next asked; then suspend at resume point n. One
   line of output, so that a debugger shows the yield's line for all of it. */
#define CORO_YIELD(c, out, n, T, ...)   /* ... is EXPR, which may hold commas */ \
  do {                                                                   \
    T coro_value_ = (__VA_ARGS__);                                       \
    if (out)                                                             \
      *(T *)(out) = coro_value_;                                         \
    CORO_SUSPEND(c, n);                                                  \
  } while (0)

/* The label after a resume function's dispatch switch, where the body
   starts: only the first resume comes this way, every later one jumps past
   it to its resume point. GCC takes `cold` on a label to mean just that and
   lays the resume paths out as the straight line, the way a hand-written
   state machine is laid out (docs/benchmarks.md); clang has no cold labels. */
#if defined(__GNUC__) && !defined(__clang__)
#define CORO_FIRST_RESUME __attribute__((cold, unused))
#else
#define CORO_FIRST_RESUME __attribute__((unused))
#endif

/* Suspend at resume point n: the next resume continues at label coro_resume_n. */
#define CORO_SUSPEND(c, n)                                               \
  do {                                                                   \
    (c)->resume_point = (n);                                             \
    (c)->status = CORO_SUSPENDED;                                        \
    return true;                                                         \
  } while (0)

/* A compound literal whose storage must outlive a suspension (an array, or
   one whose address is taken): it lives in the frame field `field`, filled
   from the literal each time the expression is evaluated, as C says. */
#define CORO_LITERAL(field, ...) \
  (*(__typeof__(field) *)memcpy(&(field), &(__VA_ARGS__), sizeof(field)))

/* The body returned: the instance is done for good. */
#define CORO_FINISH(c)                                                   \
  do {                                                                   \
    (c)->status = CORO_DONE;                                             \
    return false;                                                        \
  } while (0)

/* The stackful backend (runtime/stackful.c). An instance is a struct coro
 * header followed by the runtime's bookkeeping and the arguments, which the
 * generated code stores through coro_stackful_args. The body is an ordinary
 * function, started through `entry` on the instance's own stack at the first
 * coro_next; when entry returns, the instance is done. The shape of the code
 * that uses these:
 *
 *   static void coro_entry_fib(coro_t *coro_c) {
 *     struct coro_args_fib *a = coro_stackful_args(coro_c);
 *     coro_body_fib(coro_c, a->n);             // yields with CORO_STACKFUL_YIELD
 *   }
 *   coro_t *fib(int n) {
 *     coro_t *c = coro_stackful_new(coro_entry_fib, sizeof(struct coro_args_fib),
 *                                   _Alignof(struct coro_args_fib));
 *     ((struct coro_args_fib *)coro_stackful_args(c))->n = n;
 *     return c;
 *   }
 */

/* A new stackful instance, not started (lazy start; its stack is mapped at the
   first resume), with room for args_size bytes of arguments aligned to
   args_align. Aborts with a message when memory runs out. */
coro_t *coro_stackful_new(void (*entry)(coro_t *c), size_t args_size, size_t args_align);

/* The instance's argument area: args_size bytes aligned to args_align, zeroed
   at creation, owned (and freed) by the instance. */
void *coro_stackful_args(coro_t *c);

/* From inside c's body: switch back to whoever resumed c; returns when c is
   resumed again. Aborts with a message if c is not the coroutine running on
   this thread. */
void coro_stackful_suspend(coro_t *c);

/* `yield EXPR;` in a stackful generator of T: EXPR is evaluated once,
   converted to T and stored where coro_next asked; then suspend. */
#define CORO_STACKFUL_YIELD(c, T, ...)  /* ... is EXPR, which may hold commas */ \
  do {                                                                   \
    T coro_value_ = (__VA_ARGS__);                                       \
    if ((c)->out)                                                        \
      *(T *)(c)->out = coro_value_;                                      \
    coro_stackful_suspend(c);                                            \
  } while (0)

/* Tasks in the stackless backend. */

/* `yield;`: give every other ready task a turn, then go on. */
#define CORO_YIELD_TASK(c, n)                                            \
  do {                                                                   \
    coro_ready(c);                                                       \
    CORO_SUSPEND(c, n);                                                  \
  } while (0)

/* `await child(...)`: suspend at n; the scheduler starts the child at once,
   and resumes this task directly when the child returns. */
void coro_await_task(coro_t *parent, coro_t *child);
#define CORO_AWAIT_TASK(c, n, child)                                     \
  do {                                                                   \
    coro_await_task(c, child);                                           \
    CORO_SUSPEND(c, n);                                                  \
  } while (0)

/* `await op(...)`: while the awaitable aw is not ready, arrange to be woken
   and suspend at n (the caller's loop tries again on resume). */
#define CORO_READY(aw) \
  ((struct coro_awaitable *)&(aw))->ops->ready((struct coro_awaitable *)&(aw))
#define CORO_AWAIT_SUSPEND(c, n, aw)                                     \
  do {                                                                   \
    ((struct coro_awaitable *)&(aw))->ops->suspend((struct coro_awaitable *)&(aw), c); \
    CORO_SUSPEND(c, n);                                                  \
  } while (0)

/* Tasks in the stackful backend: the same, as expressions (GNU statement
   expressions), since the body keeps its own C. */
#define CORO_STACKFUL_YIELD_TASK(c)                                      \
  do {                                                                   \
    coro_ready(c);                                                       \
    coro_stackful_suspend(c);                                            \
  } while (0)

#define CORO_STACKFUL_AWAIT(c, ...)                                      \
  __extension__({                                                        \
    __typeof__(__VA_ARGS__) coro_aw_ = (__VA_ARGS__);                    \
    while (!CORO_READY(coro_aw_)) {                                      \
      ((struct coro_awaitable *)&coro_aw_)->ops->suspend((struct coro_awaitable *)&coro_aw_, c); \
      coro_stackful_suspend(c);                                          \
    }                                                                    \
    coro_aw_.result;                                                     \
  })

#define CORO_STACKFUL_AWAIT_TASK(c, T, ...)                              \
  __extension__({                                                        \
    coro_t *coro_child_ = (__VA_ARGS__);                                 \
    coro_await_task(c, coro_child_);                                     \
    coro_stackful_suspend(c);                                            \
    T coro_value_ = *(T *)coro_child_->result;                           \
    coro_free(coro_child_);                                              \
    coro_value_;                                                         \
  })

#define CORO_STACKFUL_AWAIT_VOID_TASK(c, ...)                            \
  __extension__({                                                        \
    coro_t *coro_child_ = (__VA_ARGS__);                                 \
    coro_await_task(c, coro_child_);                                     \
    coro_stackful_suspend(c);                                            \
    coro_free(coro_child_);                                              \
  })

#ifdef __cplusplus
}
#endif

#endif /* CORO_H */
