/* offload.c: `await coro_offload(fn, arg)` runs fn(arg) on a worker thread.
 *
 * The race. The awaiting task, on the scheduler's thread, tries ready()
 * (not done yet), then signs up to be woken in suspend(). The worker, on its
 * own thread, finishes whenever it finishes. Either may come first, and
 * neither may lose the other's news. One word settles it, with one atomic
 * exchange on each side and no mutex:
 *
 *   state: STARTED (worker busy, nobody waiting)
 *          WAITING (the task has signed up)
 *          DONE    (the worker has finished)
 *
 *   suspend():  old = exchange(state, WAITING)
 *               old == DONE    -> the worker finished first: put DONE back,
 *                                 and make the task ready ourselves
 *               old == STARTED -> signed up; the worker will wake us
 *   worker:     old = exchange(state, DONE)
 *               old == WAITING -> the task is asleep: hand it to its
 *                                 scheduler's remote queue, write its eventfd
 *               old == STARTED -> the task has not signed up; its exchange
 *                                 will see DONE
 *
 * Whoever exchanges second learns what the first did; exactly one of them
 * makes the task ready. The remote queue is a lock-free stack (a CAS loop)
 * that the scheduler empties with one exchange when its eventfd fires.
 *
 * Each thread's remote queue and eventfd are an event source of its
 * scheduler (coro_sched.h): the eventfd's tag in epoll is the thread's
 * struct coro_remote, and the scheduler hands its events to drain().
 */
#define _GNU_SOURCE
#include "coro_sched.h"
#include "coro_seed.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

enum { STARTED = 1, WAITING = 2, DONE = 3 };

/* {==================================================================
 * The workers: a few threads and a queue of jobs
 * =================================================================== */

#define WORKERS 4

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static struct coro_offload *jobs_head, *jobs_tail;
static pthread_once_t workers_once = PTHREAD_ONCE_INIT;

static void finish(struct coro_offload *op);

/* A fault (CORO_FAULT_SLOW, seed.c): the call starts late, as on a busy
   machine, so that it finishes after what would otherwise come later. */
static void hold_back(void) {
  uint64_t ns = coro_fault_slow_ns();
  if (!ns)
    return;
  struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
    ;
}

static void *worker(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&jobs_lock);
    while (!jobs_head)
      pthread_cond_wait(&jobs_cond, &jobs_lock);
    struct coro_offload *op = jobs_head;
    jobs_head = op->next_job;
    if (!jobs_head)
      jobs_tail = NULL;
    pthread_mutex_unlock(&jobs_lock);
    hold_back();
    op->result = op->fn(op->arg);
    finish(op);
  }
  return NULL;
}

static void start_workers(void) {
  for (int i = 0; i < WORKERS; i++) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, worker, NULL) != 0)
      coro_fatal("coro_offload", "cannot start a worker thread: %s", strerror(errno));
    pthread_attr_destroy(&attr);
  }
}

static void submit(struct coro_offload *op) {
  pthread_once(&workers_once, start_workers);
  pthread_mutex_lock(&jobs_lock);
  op->next_job = NULL;
  if (jobs_tail)
    jobs_tail->next_job = op;
  else
    jobs_head = op;
  jobs_tail = op;
  pthread_cond_signal(&jobs_cond);
  pthread_mutex_unlock(&jobs_lock);
}

/* }================================================================== */

/* {==================================================================
 * Waking the scheduler from another thread
 * =================================================================== */

/* What a thread's scheduler receives from the workers. */
struct coro_remote {
  struct coro_watch watch; /* first: the eventfd's tag in epoll */
  int fd;                  /* the eventfd that the workers write to wake the scheduler */
  _Atomic(struct coro_offload *) head; /* offloads finished for sleeping tasks (lock-free stack) */
  long waiting;                        /* offloaded calls not completed */
};

static _Thread_local struct coro_remote remote;

static const struct coro_source remote_source;

static struct coro_remote *ensure_remote(void) {
  struct coro_remote *r = &remote;
  if (r->fd > 0)
    return r;
  r->watch.source = &remote_source;
  r->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (r->fd < 0)
    coro_fatal("coro_offload", "eventfd: %s", strerror(errno));
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = r};
  if (epoll_ctl(coro_sched_epoll(), EPOLL_CTL_ADD, r->fd, &ev) < 0)
    coro_fatal("coro_offload", "epoll_ctl: %s", strerror(errno));
  coro_sched_add_source(&remote_source);
  return r;
}

/* On the worker: the task is asleep; queue it for its scheduler. */
static void finish(struct coro_offload *op) {
  int old = atomic_exchange_explicit(&op->state, DONE, memory_order_acq_rel);
  if (old != WAITING)
    return; /* not signed up yet: its suspend() will see DONE */
  struct coro_remote *r = op->home;
  struct coro_offload *head = atomic_load_explicit(&r->head, memory_order_relaxed);
  do
    op->next_done = head;
  while (!atomic_compare_exchange_weak_explicit(&r->head, &head, op, memory_order_release,
                                                memory_order_relaxed));
  uint64_t one = 1;
  while (write(r->fd, &one, sizeof one) < 0 && errno == EINTR)
    ;
}

/* The calls finished since the last drain, in an order the seed picks
   (they finished at once, as far as the scheduler can tell): each is put
   at a place drawn among those before it, in a list rebuilt in place. */
static struct coro_offload *shuffle(struct coro_offload *list) {
  struct coro_offload *out = NULL;
  unsigned n = 0;
  while (list) {
    struct coro_offload *op = list;
    list = list->next_done;
    struct coro_offload **at = &out;
    for (unsigned i = (unsigned)(coro_seed_random() % (n + 1)); i > 0; i--)
      at = &(*at)->next_done;
    op->next_done = *at;
    *at = op;
    n++;
  }
  return out;
}

/* On the scheduler: its eventfd fired; every queued task is ready. */
static void drain(void *tag, uint32_t events) {
  struct coro_remote *r = tag;
  (void)events;
  uint64_t count;
  while (read(r->fd, &count, sizeof count) < 0 && errno == EINTR)
    ;
  struct coro_offload *op = atomic_exchange_explicit(&r->head, NULL, memory_order_acquire);
  if (__builtin_expect(coro_seeded(), 0))
    op = shuffle(op);
  while (op) {
    struct coro_offload *next = op->next_done;
    r->waiting--;
    (void)coro_wake(op->base.waiter); /* always first: a call out is never called off */
    op = next;
  }
}

static bool remote_waiting(void) {
  return remote.waiting != 0;
}

static bool remote_polled(void) {
  return remote.fd > 0;
}

/* The thread ends: its eventfd goes, unless a call is still out (its
   worker will write to it: better a descriptor kept than one closed and
   perhaps given to another file by then). */
static void remote_end(void) {
  if (remote.fd > 0 && remote.waiting == 0) {
    close(remote.fd);
    remote.fd = 0;
  }
}

static bool offload_call_off(struct coro_awaitable *a);

static const struct coro_source remote_source = {
    .name = "offload",
    .waiting = remote_waiting,
    .polled = remote_polled,
    .event = drain,
    .end = remote_end,
    .call_off = offload_call_off,
};

/* }================================================================== */

static bool offload_ready(struct coro_awaitable *a) {
  struct coro_offload *op = (struct coro_offload *)a;
  if (!op->started) {
    op->started = true;
    op->home = ensure_remote();
    op->home->waiting++;
    atomic_store_explicit(&op->state, STARTED, memory_order_relaxed);
    submit(op);
    return false;
  }
  return atomic_load_explicit(&op->state, memory_order_acquire) == DONE;
}

static void offload_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_offload *op = (struct coro_offload *)a;
  op->base.waiter = waiter;
  int old = atomic_exchange_explicit(&op->state, WAITING, memory_order_acq_rel);
  if (old == DONE) { /* the worker was faster: we wake ourselves */
    atomic_store_explicit(&op->state, DONE, memory_order_release);
    op->home->waiting--;
    coro_ready(waiter);
  }
}

/* No cancel operation (coro_timeout refuses an offloaded call: a running
   call cannot be stopped, nor its memory given back before it returns).
   coro_cancel asks the source instead (call_off): a call that no worker
   has taken yet is taken off the queue and never runs. */
static const struct coro_awaiter offload_awaiter = {offload_ready, offload_suspend, NULL};

static bool offload_call_off(struct coro_awaitable *a) {
  if (a->ops != &offload_awaiter)
    return false;
  struct coro_offload *op = (struct coro_offload *)a;
  bool queued = false;
  pthread_mutex_lock(&jobs_lock);
  struct coro_offload *prev = NULL;
  for (struct coro_offload *j = jobs_head; j; prev = j, j = j->next_job)
    if (j == op) {
      if (prev)
        prev->next_job = op->next_job;
      else
        jobs_head = op->next_job;
      if (jobs_tail == op)
        jobs_tail = prev;
      queued = true;
      break;
    }
  pthread_mutex_unlock(&jobs_lock);
  if (!queued)
    return false; /* a worker runs it (or ran it): the await ends with fn's value */
  op->home->waiting--;
  op->result = CORO_CANCELED;
  atomic_store_explicit(&op->state, DONE, memory_order_relaxed);
  coro_settle(a); /* (an await about to suspend on it: its suspend() only makes the task ready) */
  return true;
}

struct coro_offload coro_offload(void *(*fn)(void *arg), void *arg) {
  return (struct coro_offload){.base = {.ops = &offload_awaiter}, .fn = fn, .arg = arg};
}
