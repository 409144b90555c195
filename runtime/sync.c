/* sync.c: what tasks that share state across awaits need: an event, a
 * semaphore and a mutex that suspend instead of blocking the thread, and a
 * group of tasks awaited together.
 *
 *   await coro_event_wait(&ev)     until coro_event_set(&ev)
 *   await coro_sem_acquire(&s)     a unit of s; coro_sem_release(&s)
 *   await coro_mutex_lock(&m)      the lock of m; coro_mutex_unlock(&m)
 *   await coro_group_wait(&g)      until every task counted into g is done
 *   await coro_sync_timeout(W, ms) any of these, or -ETIMEDOUT after ms
 *
 * Each object keeps a queue of the waits of the tasks waiting on it
 * (coro_waitq.h), and wakes a task only with its wait over: the unit, the
 * lock, the event is handed to the waiting task before it is woken (its
 * `done` set), so no task that arrives in between can take it first, and
 * tasks are served in the order they came. All four are plain structs of
 * the user's, zeroed to start (a semaphore with its count); they own no
 * memory.
 *
 * One wait, four kinds: a kind says where the object keeps its queue and
 * how to take it now. A wait is settled once (coro_wake, sched.c): a
 * hand-over wakes the waiter first and hands over only if that wake was
 * the first; a wait whose waiter was woken already in this turn (its
 * deadline's timer fired, coro_sync_timeout's own or coro_timeout's, whose
 * relay is the waiter) is passed by, and stays in the queue until its
 * task, or the relay, runs and takes it out (-ETIMEDOUT, nothing taken).
 * A wait handed over calls its own timer off.
 */
#include "coro_waitq.h"

#include <errno.h>

/* An awaiter, and what the wait's object is. */
struct sync_kind {
  struct coro_awaiter ops;                   /* first: the wait's base.ops points here */
  struct coro_waitq *(*queue)(void *object); /* where its waits line up */
  bool (*take)(void *object);                /* take it now, if it can be (true) */
};

static const struct sync_kind *kind_of(const struct coro_sync_wait *w) {
  return (const struct sync_kind *)w->base.ops;
}

static struct coro_sync_wait *wait_of(struct coro_waitlink *l) {
  return CORO_CONTAINER(l, struct coro_sync_wait, link);
}

static bool expired(const struct coro_sync_wait *w) {
  return w->timed && w->timer.fired;
}

static bool finish(struct coro_sync_wait *w, int result) {
  w->done = true;
  w->result = result;
  return true;
}

static void unhook(struct coro_sync_wait *w) {
  if (w->queued) {
    waitq_remove(kind_of(w)->queue(w->object), &w->link);
    w->queued = false;
  }
}

/* Hand the object over to the wait w at l in q, if w is still waiting:
   out, done, its waiter woken (true). A wait settled already in this turn
   is passed by (false): it leaves the queue itself, when its waiter runs. */
static bool hand_to(struct coro_waitq *q, struct coro_waitlink *l) {
  struct coro_sync_wait *w = wait_of(l);
  if (!coro_wake(w->base.waiter))
    return false;
  waitq_remove(q, l);
  w->queued = false;
  if (w->timed) /* armed, not fired (it would have woken the waiter): it never will now */
    w->timer.base.ops->cancel(&w->timer.base);
  finish(w, 0);
  return true;
}

/* The wait that has waited longest in q and is still waiting is over.
   False if none is. */
static bool wake_first(struct coro_waitq *q) {
  for (struct coro_waitlink *l = q->head; l; l = l->next)
    if (hand_to(q, l))
      return true;
  return false;
}

/* Every wait in q that is still waiting is over, in the order they came. */
static void wake_all(struct coro_waitq *q) {
  struct coro_waitlink *l = q->head, *next;
  for (; l; l = next) {
    next = l->next;
    hand_to(q, l);
  }
}

/* {==================================================================
 * The wait, for every kind
 * =================================================================== */

/* The first call: take the object now if it can be. Woken later: the
   wait is over, or its deadline passed (it is still queued, passed by),
   or, under coro_timeout, its relay asks and calls it off. */
static bool sync_ready(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  if (w->done)
    return true;
  if (w->queued) {
    if (!expired(w))
      return false;
    unhook(w);
    return finish(w, -ETIMEDOUT);
  }
  if (kind_of(w)->take(w->object))
    return finish(w, 0);
  if (w->timed && w->ms == 0)
    return finish(w, -ETIMEDOUT);
  return false;
}

static void sync_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  a->waiter = waiter;
  if (!w->queued) {
    w->queued = true;
    waitq_push(kind_of(w)->queue(w->object), &w->link);
  }
  if (w->timed && !w->timer.armed) { /* the deadline counts from the first wait */
    w->timer = coro_sleep(w->ms);
    w->timer.base.ops->suspend(&w->timer.base, waiter);
  }
}

static void sync_cancel(struct coro_awaitable *a) {
  struct coro_sync_wait *w = (struct coro_sync_wait *)a;
  unhook(w);
  if (w->timed)
    w->timer.base.ops->cancel(&w->timer.base);
  finish(w, -ECANCELED);
  coro_settle(a);
}

#define SYNC_OPS \
  { sync_ready, sync_suspend, sync_cancel }

struct coro_sync_wait coro_sync_timeout(struct coro_sync_wait wait, unsigned ms) {
  if (wait.queued || wait.done || wait.timed)
    coro_fatal("coro_sync_timeout", "the wait %s",
               wait.timed
                   ? "has a deadline already"
                   : "has begun already: give it a wait just made (coro_sem_acquire(...), ...)");
  wait.timed = true;
  wait.ms = ms;
  return wait;
}

/* }================================================================== */

/* {==================================================================
 * Event
 * =================================================================== */

static struct coro_waitq *event_queue(void *object) {
  return &((struct coro_event *)object)->waiters;
}
static bool event_take(void *object) {
  return ((struct coro_event *)object)->set;
}
static const struct sync_kind event_wait_ops = {SYNC_OPS, event_queue, event_take};

struct coro_sync_wait coro_event_wait(struct coro_event *ev) {
  return (struct coro_sync_wait){.base = {.ops = &event_wait_ops.ops}, .object = ev};
}

/* Every task waiting is woken with its wait over: a reset before it runs
   does not make it wait again. */
void coro_event_set(struct coro_event *ev) {
  ev->set = true;
  wake_all(&ev->waiters);
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
static struct coro_waitq *sem_queue(void *object) {
  return &((struct coro_sem *)object)->waiters;
}
static bool sem_take(void *object) {
  struct coro_sem *s = object;
  if (s->count <= 0)
    return false;
  s->count--;
  return true;
}
static const struct sync_kind sem_acquire_ops = {SYNC_OPS, sem_queue, sem_take};

void coro_sem_init(struct coro_sem *s, long count) {
  *s = (struct coro_sem){.count = count};
}

struct coro_sync_wait coro_sem_acquire(struct coro_sem *s) {
  return (struct coro_sync_wait){.base = {.ops = &sem_acquire_ops.ops}, .object = s};
}

bool coro_sem_try_acquire(struct coro_sem *s) {
  return sem_take(s);
}

void coro_sem_release(struct coro_sem *s) {
  if (!wake_first(&s->waiters))
    s->count++;
}

static struct coro_waitq *mutex_queue(void *object) {
  return &((struct coro_mutex *)object)->waiters;
}
static bool mutex_take(void *object) {
  struct coro_mutex *m = object;
  if (m->locked)
    return false;
  m->locked = true;
  return true;
}
static const struct sync_kind mutex_lock_ops = {SYNC_OPS, mutex_queue, mutex_take};

struct coro_sync_wait coro_mutex_lock(struct coro_mutex *m) {
  return (struct coro_sync_wait){.base = {.ops = &mutex_lock_ops.ops}, .object = m};
}

bool coro_mutex_try_lock(struct coro_mutex *m) {
  return mutex_take(m);
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

static struct coro_waitq *group_queue(void *object) {
  return &((struct coro_group *)object)->waiters;
}
static bool group_take(void *object) {
  return ((struct coro_group *)object)->pending == 0;
}
static const struct sync_kind group_wait_ops = {SYNC_OPS, group_queue, group_take};

struct coro_sync_wait coro_group_wait(struct coro_group *g) {
  return (struct coro_sync_wait){.base = {.ops = &group_wait_ops.ops}, .object = g};
}

void coro_group_add(struct coro_group *g, long n) {
  if (n < 0)
    coro_fatal("coro_group_add", "group %p: a count of %ld: only coro_group_done counts down",
               (void *)g, n);
  g->pending += n;
}

void coro_group_spawn(struct coro_group *g, coro_t *task) {
  coro_spawn(task); /* first: it refuses what is not a new task */
  g->pending++;
}

void coro_group_done(struct coro_group *g) {
  if (g->pending <= 0)
    coro_fatal("coro_group_done", "group %p: done more often than tasks were counted in",
               (void *)g);
  if (--g->pending == 0)
    wake_all(&g->waiters);
}

/* }================================================================== */
