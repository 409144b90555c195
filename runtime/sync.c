/* sync.c: what tasks that share state across awaits need: an event, a
 * semaphore and a mutex that suspend instead of blocking the thread, and a
 * group of tasks awaited together.
 *
 *   await coro_event_wait(&ev)     until coro_event_set(&ev)
 *   await coro_sem_acquire(&s)     a unit of s; coro_sem_release(&s)
 *   await coro_mutex_lock(&m)      the lock of m; coro_mutex_unlock(&m)
 *   await coro_group_wait(&g)      until every task counted into g is done
 *
 * Each keeps a queue of the waits of the tasks waiting on it (coro_waitq.h),
 * and each wakes a task only with its wait over: the unit, the lock, the
 * event is handed to the waiting task before it is woken (its `done` set),
 * so no task that arrives in between can take it first, and tasks are
 * served in the order they came. All four are plain structs of the user's,
 * zeroed to start (a semaphore with its count); they own no memory.
 */
#include "coro_waitq.h"

static struct coro_sync_wait *wait_of(struct coro_waitlink *l) {
  return CORO_CONTAINER(l, struct coro_sync_wait, link);
}

/* The waits' queues: one per kind of object. */
static struct coro_waitq *event_queue(struct coro_sync_wait *w) {
  return &((struct coro_event *)w->object)->waiters;
}
static struct coro_waitq *sem_queue(struct coro_sync_wait *w) {
  return &((struct coro_sem *)w->object)->waiters;
}
static struct coro_waitq *mutex_queue(struct coro_sync_wait *w) {
  return &((struct coro_mutex *)w->object)->waiters;
}
static struct coro_waitq *group_queue(struct coro_sync_wait *w) {
  return &((struct coro_group *)w->object)->waiters;
}

static void enqueue(struct coro_sync_wait *w, struct coro_waitq *q, coro_t *waiter) {
  w->base.waiter = waiter;
  if (!w->queued) {
    w->queued = true;
    waitq_push(q, &w->link);
  }
}

static void unhook(struct coro_sync_wait *w, struct coro_waitq *q) {
  if (w->queued) {
    waitq_remove(q, &w->link);
    w->queued = false;
  }
}

/* The wait that has waited longest in q is over: out, done, woken. False
   if none waits. */
static bool wake_first(struct coro_waitq *q) {
  struct coro_waitlink *l = waitq_pop(q);
  if (!l)
    return false;
  struct coro_sync_wait *w = wait_of(l);
  w->queued = false;
  w->done = true;
  w->result = 0;
  coro_ready(w->base.waiter);
  return true;
}

static bool finish(struct coro_sync_wait *w) {
  w->done = true;
  w->result = 0;
  return true;
}

/* {==================================================================
 * Event
 * =================================================================== */

static bool event_ready(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  return w->done || (((struct coro_event *)w->object)->set && finish(w));
}
static void event_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  enqueue(w, event_queue(w), waiter);
}
static void event_cancel(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  unhook(w, event_queue(w));
}
static const struct coro_awaiter event_wait_ops = {event_ready, event_suspend, event_cancel};

struct coro_sync_wait coro_event_wait(struct coro_event *ev) {
  return (struct coro_sync_wait){.base = {.ops = &event_wait_ops}, .object = ev};
}

/* Every task waiting is woken with its wait over: a reset before it runs
   does not make it wait again. */
void coro_event_set(struct coro_event *ev) {
  ev->set = true;
  while (wake_first(&ev->waiters))
    ;
}

void coro_event_reset(struct coro_event *ev) {
  ev->set = false;
}

/* }================================================================== */

/* {==================================================================
 * Semaphore and mutex
 * =================================================================== */

/* A unit is free only while no task waits (release hands it to the
   first), so taking it here never jumps the queue. */
static bool sem_ready(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  if (w->done)
    return true;
  struct coro_sem *s = w->object;
  if (w->queued || s->count <= 0)
    return false;
  s->count--;
  return finish(w);
}
static void sem_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  enqueue(w, sem_queue(w), waiter);
}
static void sem_cancel(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  unhook(w, sem_queue(w));
}
static const struct coro_awaiter sem_acquire_ops = {sem_ready, sem_suspend, sem_cancel};

void coro_sem_init(struct coro_sem *s, long count) {
  *s = (struct coro_sem){.count = count};
}

struct coro_sync_wait coro_sem_acquire(struct coro_sem *s) {
  return (struct coro_sync_wait){.base = {.ops = &sem_acquire_ops}, .object = s};
}

bool coro_sem_try_acquire(struct coro_sem *s) {
  if (s->count <= 0)
    return false;
  s->count--;
  return true;
}

void coro_sem_release(struct coro_sem *s) {
  if (!wake_first(&s->waiters))
    s->count++;
}

static bool mutex_ready(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  if (w->done)
    return true;
  struct coro_mutex *m = w->object;
  if (w->queued || m->locked)
    return false;
  m->locked = true;
  return finish(w);
}
static void mutex_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  enqueue(w, mutex_queue(w), waiter);
}
static void mutex_cancel(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  unhook(w, mutex_queue(w));
}
static const struct coro_awaiter mutex_lock_ops = {mutex_ready, mutex_suspend, mutex_cancel};

struct coro_sync_wait coro_mutex_lock(struct coro_mutex *m) {
  return (struct coro_sync_wait){.base = {.ops = &mutex_lock_ops}, .object = m};
}

bool coro_mutex_try_lock(struct coro_mutex *m) {
  if (m->locked)
    return false;
  m->locked = true;
  return true;
}

/* The lock passes straight to the task that has waited longest: it stays
   locked, now for that task. */
void coro_mutex_unlock(struct coro_mutex *m) {
  if (!m->locked)
    coro_fatal("coro_mutex_unlock", "mutex %p is not locked", (void *)m);
  if (!wake_first(&m->waiters))
    m->locked = false;
}

/* }================================================================== */

/* {==================================================================
 * Group
 * =================================================================== */

static bool group_ready(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  return w->done || (((struct coro_group *)w->object)->pending == 0 && finish(w));
}
static void group_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  enqueue(w, group_queue(w), waiter);
}
static void group_cancel(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  unhook(w, group_queue(w));
}
static const struct coro_awaiter group_wait_ops = {group_ready, group_suspend, group_cancel};

struct coro_sync_wait coro_group_wait(struct coro_group *g) {
  return (struct coro_sync_wait){.base = {.ops = &group_wait_ops}, .object = g};
}

void coro_group_add(struct coro_group *g, long n) {
  if (n < 0)
    coro_fatal("coro_group_add", "group %p: a count of %ld: only coro_group_done counts down",
               (void *)g, n);
  g->pending += n;
}

void coro_group_spawn(struct coro_group *g, coro_t *task) {
  coro_spawn(task);  /* first: it refuses what is not a new task */
  g->pending++;
}

void coro_group_done(struct coro_group *g) {
  if (g->pending <= 0)
    coro_fatal("coro_group_done", "group %p: done more often than tasks were counted in",
               (void *)g);
  if (--g->pending == 0)
    while (wake_first(&g->waiters))
      ;
}

/* }================================================================== */
