/* sched.c: the scheduler. One per thread: a FIFO ready queue, an epoll
 * instance, and the event sources that registered with it (I/O, timers,
 * offloaded calls: coro_sched.h), which its loop calls without knowing
 * which they are.
 *
 * Tasks are run by run_task, which follows the chain of awaits without
 * walking it: a task that awaits a child suspends and names the child in
 * `awaiting`, and run_task goes straight on with the child; a child that
 * finishes hands control straight back to its parent. A task that waits
 * for I/O, a timer or another thread is resumed later exactly where it
 * stopped, however deep in a chain of awaits that is.
 *
 * The starvation trade-off is a setting (coro_sched_poll_every): by default
 * the ready queue runs dry before the scheduler polls for events, which
 * gives the highest throughput to tasks that are ready; polling every n
 * turns bounds how long an event waits behind a busy queue.
 *
 * The loop is one engine with two drivers: coro_run, which waits in epoll
 * itself until no task is left, and a host loop of the program's (libuv,
 * GLib, a game's frame loop), which waits on epoll's descriptor among its
 * own and calls coro_run_ready when it is readable or its time has come
 * (coro_sched_fd, coro_sched_timeout). Both run turns of the same kind:
 * collect the events, then run the ready queue (run_queue). What only a
 * host needs (an eventfd that makes the descriptor readable while tasks
 * are ready) costs coro_run nothing: one flag tested when the queue goes
 * from empty to not.
 */
#define _GNU_SOURCE
#include "coro_internal.h"
#include "coro_sched.h"
#include "coro_seed.h"
#include "coro_thread.h"
#include "coro_trace.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

_Thread_local struct sched coro_sched_self;
_Thread_local coro_t *coro_current_task;

static void host_wake(struct sched *s);
static void host_settle(struct sched *s);
static int64_t sources_deadline(struct sched *s, uint64_t now);

/* {==================================================================
 * The ready queue
 * =================================================================== */

/* The one place where a wait is settled. What a task waits on may be
   settled by several things in one turn: a hand-over (a unit, a lock, a
   value, a set event), its deadline's timer, a cancellation. The first to
   wake the waiter (the task, or a relay in its place) settles it, and its
   `ready` says so until the waiter runs: a later wake finds it set, does
   nothing, and says so (false), and its caller undoes its own part: a
   hand-over passes the wait by and serves the next waiter (sync.c,
   chan.c), a timer or a cancellation that comes second changes nothing
   (the waiter's own code sees what came first). */
bool coro_wake(coro_t *c) {
  struct sched *s = &coro_sched_self;
  if (__builtin_expect(!(c->kind & CORO_TASK), 0))
    coro_fatal("coro_ready", "instance %p is a generator: only tasks wait and are woken",
               (void *)c);
  if (coro_wait_settled(c))
    return false; /* woken already in this turn: it runs once, for what came first */
  c->ready = 1;
  struct coro_task *t = coro_as_task(c);
  t->waiting_on = NULL; /* woken: it waits for nothing now */
  t->next_ready = NULL;
  if (s->tail) {
    s->tail->next_ready = t;
  } else {
    s->head = t;
    if (__builtin_expect(s->wake_arm, 0))
      host_wake(s); /* a host loop drives, and this came between its calls */
  }
  s->tail = t;
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_wake(c, coro_current_task);
  return true;
}

void coro_ready(coro_t *c) {
  (void)coro_wake(c);
}

/* The thread's first task or source: the gdb extension can see the
   scheduler from now on (its ready queue, its timers). */
static __attribute__((noinline, cold)) void sched_in_registry(struct sched *s) {
  coro_trace_env(); /* (CORO_TRACE, at the runtime's first use) */
  coro_registry_note_sched(s);
  s->in_registry = true;
}

static coro_t *dequeue(struct sched *s) {
  struct coro_task *t = s->head;
  s->head = t->next_ready;
  if (!s->head)
    s->tail = NULL;
  t->next_ready = NULL;
  t->base.ready = 0;
  return &t->base;
}

void coro_spawn(coro_t *task) {
  if (!(task->kind & CORO_TASK))
    coro_fatal("coro_spawn",
               "instance %p is a generator: consume it with coro_next; only tasks "
               "are spawned",
               (void *)task);
  if (task->kind & CORO_GENERATOR)
    coro_fatal("coro_spawn",
               "instance %p is an async generator: a task takes its values with "
               "'await coro_next_await(gen, &value)'; only tasks are spawned",
               (void *)task);
  if (task->status != CORO_CREATED)
    coro_fatal("coro_spawn", "instance %p is %s: only a new task can be spawned", (void *)task,
               coro_status_name(task->status));
  if (task->spawned || coro_as_task(task)->parent)
    coro_fatal("coro_spawn", "instance %p is already %s: a task is spawned or awaited once",
               (void *)task, task->spawned ? "spawned" : "awaited");
  task->spawned = 1;
  struct sched *s = &coro_sched_self;
  if (__builtin_expect(!s->in_registry, 0))
    sched_in_registry(s);
  s->live++;
  coro_ready(task);
}

void coro_unready(coro_t *c) {
  struct sched *s = &coro_sched_self;
  struct coro_task *x = coro_as_task(c), *prev = NULL;
  for (struct coro_task *t = s->head; t; prev = t, t = t->next_ready)
    if (t == x) {
      if (prev)
        prev->next_ready = t->next_ready;
      else
        s->head = t->next_ready;
      if (s->tail == t)
        s->tail = prev;
      break;
    }
  x->next_ready = NULL;
  c->ready = 0;
}

void coro_sched_poll_every(unsigned n) {
  coro_sched_self.poll_every = n;
}

/* }================================================================== */

/* {==================================================================
 * Schedules a seed decides
 * =================================================================== */

/* Which of the orders the contract leaves open a turn takes comes, with a
   seed, from the thread's generator (seed.c), so that a run can be
   replayed from its seed. Without one, nothing here runs but a test per
   wait for events. */

/* The events of one wait in an order the seed picks (all of them came
   before the wait returned: any order is one the kernel could give). */
static void shuffle_events(struct epoll_event *events, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(coro_seed_random() % (uint64_t)(i + 1));
    struct epoll_event t = events[i];
    events[i] = events[j];
    events[j] = t;
  }
}

/* }================================================================== */

/* {==================================================================
 * Running a task
 * =================================================================== */

/* Run c until it waits for something outside the chain of awaits it
   belongs to, or until it ends and its parent is `stop`, the task that
   started it itself (coro_start_child) and goes on by returning. Why a loop
   and not recursion: a chain of awaits 1,000 deep must not take 1,000 C
   frames on the scheduler's stack. */
static void run_chain(coro_t *c, struct coro_task *stop) {
  coro_t *outer = coro_current_task; /* (NULL, unless a task calls coro_run; the parent in
                                         coro_start_child) */
  for (;;) {
    if (c->status == CORO_RUNNING || c->status == CORO_DONE)
      coro_fatal("run_task", "instance %p is %s and cannot be resumed", (void *)c,
                 coro_status_name(c->status));
    c->status = CORO_RUNNING;
    coro_current_task = c;
    if (__builtin_expect(coro_trace_active, 0))
      coro_trace_resume(c, NULL); /* (recorded around the body: nothing in it) */
    else
      c->resume(c, NULL);
    coro_current_task = outer;
    struct coro_task *t = coro_as_task(c);
    if (c->status == CORO_DONE) {
      if (t->parent == stop && stop)
        return; /* the parent that started it goes on itself */
      if (t->parent) {
        if (__builtin_expect(coro_trace_active, 0))
          coro_trace_wake(&t->parent->base, c); /* (it goes on at once, not queued) */
        c = &t->parent->base;                   /* it reads the child's result and frees it */
        continue;
      }
      if (c->spawned) {
        coro_sched_self.live--;
        coro_free(c);
      }
      return;
    }
    if (t->awaiting) { /* start the child it awaits, now */
      c = &t->awaiting->base;
      t->awaiting = NULL;
      continue;
    }
    return; /* waiting: an awaitable will coro_ready it */
  }
}

/* Set by cancel.c when it first marks a task cancelled (CORO_CANCELLED is
   its mark alone): the scheduler knows nothing of cancellation, and asks
   this when a marked task begins a wait. */
void (*coro_cancelled_wait)(coro_t *c);

/* Every way a task suspends (yield;, await) passes here first. A task that
   suspends while the scheduler is not running it, nor a parent of it that
   started it inline (coro_start_child), was resumed by coro_next: it would
   come back at once (true, and nothing for *out) on every call, for ever.
   Refuse it where the mistake is made. */
void coro_task_suspends(coro_t *c) {
  coro_t *running = coro_current_task;
  for (coro_t *t = c; t != running; t = &coro_as_task(t)->parent->base)
    if (!(t->kind & CORO_TASK) || !coro_as_task(t)->parent)
      coro_fatal("coro_next",
                 "instance %p is a task (it awaits or yields to the scheduler): hand "
                 "it to the scheduler with coro_spawn, or await it; coro_next is for generators",
                 (void *)c);
  if (__builtin_expect(coro_trace_active, 0) && coro_as_task(c)->waiting_on)
    coro_trace_wait(c, CORO_TW_AWAITABLE, coro_as_task(c)->waiting_on);
  /* The task the scheduler runs (c, or the one c is a child inside) was
     cancelled: the wait c begins now is called off (cancel.c). */
  if (__builtin_expect(running->kind & CORO_CANCELLED, 0))
    coro_cancelled_wait(c);
}

static void run_task(coro_t *c) {
  run_chain(c, NULL);
}

/* A child inside its parent's frame is run by the parent itself, right at
   its await (coro_start_child, inline in coro/gen.h): in the same order of
   events as a child the scheduler starts (next, before any other ready
   task), without a suspension of the parent when the child ends at once.
   If the child waits, the parent suspends too, and the scheduler resumes
   it when the child ends. Here: the child suspended; if it awaits a child
   on the heap, that one starts now, as run_chain would start it. */
bool coro_child_waits(coro_t *parent, coro_t *child) {
  struct coro_task *t = coro_as_task(child);
  if (!parent->ready)
    /* while it waits: coro_cancel of the parent reaches it */
    coro_as_task(parent)->next_ready = t;
  if (t->awaiting) { /* it awaits a child on the heap: that one starts now */
    coro_t *grandchild = &t->awaiting->base;
    t->awaiting = NULL;
    run_chain(grandchild, coro_as_task(parent));
  }
  return child->status != CORO_DONE;
}

/* coro_start_child while a trace is recorded: the child's run is recorded
   around it, as the scheduler records a task's (run_chain), not inside it. */
bool coro_start_child_traced(coro_t *parent, coro_t *child, bool (*resume)(coro_t *c, void *out)) {
  coro_trace_begin(child);
  bool more = resume(child, NULL);
  coro_trace_end(child);
  return more && coro_child_waits(parent, child);
}

void coro_yield_task(coro_t *c) {
  coro_task_suspends(c);
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_wait(c, CORO_TW_YIELD, NULL);
  coro_ready(c);
}

void coro_await_task(coro_t *parent, coro_t *child) {
  coro_task_suspends(parent);
  if (!(child->kind & CORO_TASK))
    coro_fatal("await",
               "instance %p is a generator: consume it with coro_next; only tasks are "
               "awaited",
               (void *)child);
  if (child->kind & CORO_GENERATOR)
    coro_fatal("await",
               "instance %p is an async generator: await coro_next_await(gen, &value) "
               "for its values; only tasks are awaited",
               (void *)child);
  if (child->status != CORO_CREATED)
    coro_fatal("await", "instance %p is %s: await needs a new task (a call of a coroutine)",
               (void *)child, coro_status_name(child->status));
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_wait(parent, CORO_TW_CHILD, child);
  coro_as_task(child)->parent = coro_as_task(parent);
  coro_as_task(parent)->awaiting = coro_as_task(child);
  if (!parent->ready)
    coro_as_task(parent)->next_ready = coro_as_task(child); /* (coro_cancel follows it) */
  child->kind |= parent->kind & CORO_CANCELLED; /* a cancelled task's child starts cancelled */
}

/* }================================================================== */

/* {==================================================================
 * The loop
 * =================================================================== */

uint64_t coro_sched_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
  /* the time left of a timer, as a core file knows it (docs/debugging.md) */
  coro_sched_self.now_ns = now;
  return now;
}

int coro_sched_epoll(void) {
  struct sched *s = &coro_sched_self;
  if (s->epfd <= 0) {
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0)
      coro_fatal("coro_run", "epoll_create1: %s", strerror(errno));
  }
  return s->epfd;
}

/* epoll_wait for at most timeout_ns (-1: no limit). epoll_pwait2 (Linux
   5.11, glibc 2.35) takes the time to the nanosecond; without it, whole
   milliseconds, rounded up: the wait is never shorter than asked, so a
   timer due in 0.3 ms is not polled for with timeouts of 0 meanwhile.
   (-DCORO_NO_EPOLL_PWAIT2 builds the second way only, for its tests.) */
static int wait_events(int epfd, struct epoll_event *events, int n, int64_t timeout_ns) {
#if defined(__GLIBC_PREREQ) && !defined(CORO_NO_EPOLL_PWAIT2)
#if __GLIBC_PREREQ(2, 35)
  /* the kernel has not got it, or a seccomp filter refuses it */
  static _Thread_local bool no_pwait2;
  if (!no_pwait2) {
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000),
                          .tv_nsec = (long)(timeout_ns % 1000000000)};
    int r = epoll_pwait2(epfd, events, n, timeout_ns < 0 ? NULL : &ts, NULL);
    if (r >= 0 || (errno != ENOSYS && errno != EPERM))
      return r;
    no_pwait2 = true;
  }
#endif
#endif
  return epoll_wait(epfd, events, n, timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000));
}

/* The thread ends: each source gives back what it holds for the thread
   (the timers' timerfd, offload's eventfd, I/O's records), then the epoll
   instance goes. Without this, every thread that ran a scheduler and
   ended left two or three descriptors open. (The main thread's end is the
   process's: nothing to give back.) It is the first part of the thread to
   end (coro_thread.h): a source may still point into instances. */
static void sched_end(void *arg) {
  struct sched *s = arg;
  for (unsigned i = 0; i < s->nsources; i++)
    if (s->sources[i]->end)
      s->sources[i]->end();
  s->nsources = 0;
  if (s->epfd > 0)
    close(s->epfd);
  s->epfd = 0;
}

void coro_sched_add_source(const struct coro_source *src) {
  struct sched *s = &coro_sched_self;
  for (unsigned i = 0; i < s->nsources; i++)
    if (s->sources[i] == src)
      return;
  if (s->nsources == CORO_MAX_SOURCES)
    coro_fatal("coro_sched_add_source", "more than %d event sources", CORO_MAX_SOURCES);
  if (s->nsources == 0) { /* the thread's first source: its end will give back */
    coro_thread_holds(CORO_THREAD_SCHED, sched_end, s);
    if (!s->in_registry)
      sched_in_registry(s);
  }
  s->sources[s->nsources++] = src;
}

bool coro_sched_call_off(struct coro_awaitable *a) {
  struct sched *s = &coro_sched_self;
  for (unsigned i = 0; i < s->nsources; i++)
    if (s->sources[i]->call_off && s->sources[i]->call_off(a))
      return true;
  return false;
}

/* Does a task wait on any source? (None: coro_run's -EDEADLK.) */
static bool sources_waiting(struct sched *s) {
  for (unsigned i = 0; i < s->nsources; i++)
    if (s->sources[i]->waiting && s->sources[i]->waiting())
      return true;
  return false;
}

/* How long epoll may wait, in ns: the shortest that a source asks for (-1: no limit). */
static int64_t sources_timeout(struct sched *s, uint64_t now) {
  int64_t t = -1;
  for (unsigned i = 0; i < s->nsources; i++) {
    int64_t ti = s->sources[i]->timeout ? s->sources[i]->timeout(now) : -1;
    if (ti >= 0 && (t < 0 || ti < t))
      t = ti;
  }
  return t;
}

/* Each source fires what is due now (the timers). */
static void fire_due(struct sched *s) {
  uint64_t now = coro_sched_now_ns();
  for (unsigned i = 0; i < s->nsources; i++)
    if (s->sources[i]->fire) {
      coro_trace_source = s->sources[i]->name; /* (what wakes a task now, for a trace) */
      s->sources[i]->fire(now);
    }
  coro_trace_source = NULL;
}

/* Wait for events up to `timeout_ns` (-1: no limit) and hand each to its
   source, which makes its waiters ready; then each source fires what is
   due (the timers). */
static void poll_events(struct sched *s, int64_t timeout_ns) {
  /* a busy server's events in one call (1,000 connections: 4 calls) */
  struct epoll_event events[256];
  int n = 0;
  bool polled = timeout_ns != 0 || s->wakefd > 0; /* (a host's: events are consumed) */
  for (unsigned i = 0; i < s->nsources && !polled; i++)
    polled = s->sources[i]->polled && s->sources[i]->polled();
  if (polled) {
    n = wait_events(coro_sched_epoll(), events, 256, timeout_ns);
    if (n < 0 && errno != EINTR)
      coro_fatal("coro_run", "epoll_wait: %s", strerror(errno));
  }
  bool fire_first = false;
  if (__builtin_expect(coro_seeded(), 0)) {
    shuffle_events(events, n);
    fire_first = coro_seed_random() & 1; /* the timers due now, before the I/O of this turn */
  }
  if (fire_first)
    fire_due(s);
  for (int i = 0; i < n; i++) {
    struct coro_watch *w = events[i].data.ptr;
    coro_trace_source = w->source->name;
    w->source->event(w, events[i].events);
  }
  coro_trace_source = NULL;
  if (!fire_first)
    fire_due(s);
}

/* The engine: run up to `limit` tasks of the ready queue, in its order
   (polling every poll_every turns if asked): how many it ran. */
static unsigned long run_queue(struct sched *s, unsigned long limit) {
  unsigned long ran = 0;
  while (s->head && ran < limit) {
    run_task(dequeue(s));
    ran++;
    if (s->poll_every && ran % s->poll_every == 0)
      poll_events(s, 0);
  }
  return ran;
}

int coro_run(void) {
  struct sched *s = &coro_sched_self;
  s->wake_arm = false; /* (the loop runs: host_settle below) */
  int r = 0;
  run_queue(s, ~0ul);
  for (;;) {
    if (s->live == 0)
      break;
    if (!sources_waiting(s)) {
      r = -EDEADLK; /* tasks are left, and nothing can ever wake them */
      break;
    }
    poll_events(s, sources_timeout(s, coro_sched_now_ns()));
    run_queue(s, ~0ul);
  }
  if (__builtin_expect(s->wakefd > 0, 0))
    host_settle(s);
  return r;
}

/* }================================================================== */

/* {==================================================================
 * Driven by another loop (docs/runtime.md, "Driven by another loop")
 * =================================================================== */

/* The eventfd's tag in epoll. Its event clears it (a coro_run that waits
   after a host's calls must not find it readable for ever); host_settle
   writes it again if tasks are still ready as the loop returns. */
static void wake_event(void *tag, uint32_t events);
static void wake_end(void);
static const struct coro_source wake_source = {
    .name = "host loop",
    .event = wake_event,
    .end = wake_end,
};
static const struct coro_watch wake_watch = {&wake_source};

static void wake_write(struct sched *s) {
  uint64_t one = 1;
  if (write(s->wakefd, &one, sizeof one) < 0 && errno != EAGAIN)
    coro_fatal("coro_sched_fd", "write to its eventfd: %s", strerror(errno));
  s->wake_set = true;
}

static void wake_clear(struct sched *s) {
  uint64_t n;
  if (read(s->wakefd, &n, sizeof n) < 0 && errno != EAGAIN)
    coro_fatal("coro_sched_fd", "read of its eventfd: %s", strerror(errno));
  s->wake_set = false;
}

static void wake_event(void *tag, uint32_t events) {
  (void)tag;
  (void)events;
  struct sched *s = &coro_sched_self;
  if (s->wake_set)
    wake_clear(s);
}

static void wake_end(void) {
  struct sched *s = &coro_sched_self;
  if (s->wakefd > 0)
    close(s->wakefd);
  s->wakefd = 0;
  s->wake_set = s->wake_arm = false;
}

/* A task became ready on an empty queue between a host's calls (coro_spawn,
   coro_cancel, coro_ready from one of its callbacks): the descriptor is
   readable from now on. Once until the loop runs again. */
static __attribute__((noinline, cold)) void host_wake(struct sched *s) {
  s->wake_arm = false;
  if (!s->wake_set)
    wake_write(s);
}

/* The loop returns to the host: the eventfd holds a count exactly while
   tasks are ready or a deadline is due (a task ran past it: the clock,
   set only when the loop computes its wait, may not ring for it), and the
   next task made ready on an empty queue writes it. */
static void host_settle(struct sched *s) {
  bool work = s->head || sources_deadline(s, coro_sched_now_ns()) == 0;
  if (work && !s->wake_set)
    wake_write(s);
  else if (!work && s->wake_set)
    wake_clear(s);
  s->wake_arm = !s->wake_set;
}

int coro_sched_fd(void) {
  struct sched *s = &coro_sched_self;
  if (s->wakefd <= 0) {
    int epfd = coro_sched_epoll();
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0)
      return -errno;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = (void *)&wake_watch};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
      int err = errno;
      close(fd);
      return -err;
    }
    s->wakefd = fd;
    coro_sched_add_source(&wake_source); /* its end closes the eventfd */
    host_settle(s);
  }
  return s->epfd;
}

/* The time to the earliest deadline a source has, ns (-1: none). */
static int64_t sources_deadline(struct sched *s, uint64_t now) {
  int64_t t = -1;
  for (unsigned i = 0; i < s->nsources; i++) {
    int64_t ti = s->sources[i]->deadline ? s->sources[i]->deadline(now) : -1;
    if (ti >= 0 && (t < 0 || ti < t))
      t = ti;
  }
  return t;
}

int coro_sched_timeout(void) {
  struct sched *s = &coro_sched_self;
  if (s->head)
    return 0;
  uint64_t now = coro_sched_now_ns();
  (void)sources_timeout(s, now); /* (sets the timers' clock: the descriptor wakes too) */
  int64_t ns = sources_deadline(s, now);
  if (ns < 0)
    return -1;
  int64_t ms = (ns + 999999) / 1000000; /* rounded up: never a wake before the deadline */
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

long coro_run_ready(unsigned long *ran) {
  struct sched *s = &coro_sched_self;
  s->wake_arm = false; /* (the loop runs: host_settle below) */
  poll_events(s, 0);
  unsigned long n = 0; /* the tasks ready now; those made ready meanwhile wait for the next call */
  for (struct coro_task *t = s->head; t; t = t->next_ready)
    n++;
  n = run_queue(s, n);
  if (ran)
    *ran = n;
  if (!s->head) /* (sets the timers' clock, so that the descriptor alone wakes the host) */
    (void)sources_timeout(s, coro_sched_now_ns());
  if (s->wakefd > 0)
    host_settle(s);
  return s->live;
}

/* }================================================================== */
