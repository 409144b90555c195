/* cancel.c: coro_cancel, coro_deadline.
 *
 * A cancellation is a mark on the task (CORO_CANCELLED in its `kind`) and,
 * when the task is waiting, the call-off of what it waits for: the
 * awaitable's cancel operation forgets the waiter and settles the
 * awaitable with a result that says so (-ECANCELED), and the task is made
 * ready. Its await loop tries the awaitable again, finds it over, and the
 * body goes on with -ECANCELED, to its cleanup and its end. Nothing is
 * forced: a task that ignores the result, or never waits, runs on.
 *
 * Where the task is when it is cancelled:
 *   - waiting on an awaitable: called off now (above);
 *   - suspended awaiting a child (named in `next_ready` meanwhile): the
 *     child is cancelled first, and so on down the chain; the task itself
 *     sees it at its next wait;
 *   - ready, running or not started: the mark only. Its next await that
 *     waits begins the wait and has it called off at once
 *     (coro_task_suspends sees the mark and asks cancelled_wait below). An
 *     await that completes at once, without waiting, completes as usual;
 *   - a user awaitable without a cancel operation, or an offloaded call
 *     running on a worker: not called off; its await ends as it would, and
 *     the mark stays for the next wait.
 *
 * The mark is a bit of a byte every instance has, so that the task header
 * does not grow for it; the scheduler tests it as a task suspends. A
 * deadline is a record on the heap with a timer whose relay cancels the
 * task when it fires, in a list of this thread's (CORO_DEADLINE in the
 * task's `kind` says it has one); coro_free drops it.
 */
#define _GNU_SOURCE
#include "coro_sched.h"
#include "coro_trace.h"

#include <stdlib.h>

/* {==================================================================
 * Calling a wait off
 * =================================================================== */

/* t waits on an awaitable: call it off and wake t, if it can be. A wait
   is settled once (coro_wake): one woken already in this turn completes
   as what woke it says, and the mark waits for the next wait. */
static void cancelled_wait(coro_t *c);

static void call_off(struct coro_task *t) {
  struct coro_awaitable *aw = t->waiting_on;
  if (!aw || t->base.status != CORO_SUSPENDED || coro_wait_settled(&t->base))
    return;
  if (aw->ops->cancel)
    aw->ops->cancel(aw);
  else if (!coro_sched_call_off(aw))
    return; /* cannot be called off: not forced */
  coro_ready(&t->base);
}

bool coro_cancel(coro_t *c) {
  if (!c)
    coro_fatal("coro_cancel", "the task is NULL");
  if (!(c->kind & CORO_TASK))
    coro_fatal("coro_cancel",
               "instance %p is a generator: only tasks are cancelled (free a "
               "generator with coro_free)",
               (void *)c);
  if (c->status == CORO_DONE)
    return false;
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_cancel(c, coro_current_task);
  struct coro_task *t = coro_as_task(c);
  coro_cancelled_wait = cancelled_wait; /* the scheduler asks it when a marked task waits */
  for (;;) {
    t->base.kind |= CORO_CANCELLED;
    if (t->base.status != CORO_SUSPENDED || coro_wait_settled(&t->base))
      return true; /* running, ready or new: at its next wait */
    if (!t->waiting_on && t->next_ready) {
      /* Suspended, not woken, and waiting on no awaitable: it awaits the
         child it named as it suspended (coro_await_task, coro_child_waits),
         which has not ended (its end resumes t at once). */
      t = t->next_ready; /* the child first: the chain stops from the bottom up */
      continue;
    }
    call_off(t);
    return true;
  }
}

/* The tasks left, collected before any is cancelled: a cancellation
   makes instances of its own (none here, but the walk must not meet one). */
struct tasks_left {
  coro_t **v;
  size_t n, cap;
};

static void note_task_left(coro_t *c, void *arg) {
  struct tasks_left *l = arg;
  if (!(c->kind & CORO_TASK) || !c->spawned || c->status == CORO_DONE)
    return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    if (!l->v)
      coro_fatal("coro_cancel_all", "out of memory");
  }
  l->v[l->n++] = c;
}

long coro_cancel_all(void) {
  struct tasks_left l = {0};
  coro_registry_each(note_task_left, &l);
  for (size_t i = 0; i < l.n; i++)
    coro_cancel(l.v[i]);
  free(l.v);
  return (long)l.n;
}

bool coro_cancelled(const coro_t *c) {
  if (!c)
    c = coro_current_task;
  return c && (c->kind & CORO_TASK) && (c->kind & CORO_CANCELLED);
}

/* c begins a wait (coro_task_suspends, before the await calls the
   awaitable's suspend) while the task the scheduler runs is cancelled: c
   and the children between are marked, and the wait is begun and called
   off now, before anything can complete it. The cancel operation settles
   the awaitable (coro_settle), so the suspend() that the await calls next
   only makes c ready: c is resumed once, and its await ends at once. */
static void cancelled_wait(coro_t *c) {
  struct coro_task *t = coro_as_task(c);
  for (struct coro_task *u = t; &u->base != coro_current_task; u = u->parent)
    u->base.kind |= CORO_CANCELLED; /* children inside the cancelled task: each of them */
  struct coro_awaitable *aw = t->waiting_on;
  if (!aw)
    return; /* a yield, or an await of a child: the child starts cancelled */
  if (aw->ops->cancel) {
    aw->ops->suspend(aw, c);
    aw->ops->cancel(aw);
  } else {
    coro_sched_call_off(aw); /* (false, and the wait goes on: not forced) */
  }
}

/* }================================================================== */

/* {==================================================================
 * Deadlines
 * =================================================================== */

struct deadline {
  struct coro_task relay; /* the timer's waiter: cancels the task */
  struct coro_sleep timer;
  coro_t *task;
  struct deadline *next, *prev; /* this thread's deadlines */
};

static _Thread_local struct deadline *deadlines;

static bool deadline_relay(coro_t *relay, void *out) {
  (void)out;
  relay->status = CORO_SUSPENDED;
  coro_cancel(CORO_CONTAINER(relay, struct deadline, relay.base)->task);
  return true;
}

static void deadline_stop(struct deadline *d) {
  coro_timer_cancel(&d->timer);
  if (d->relay.base.ready)
    coro_unready(&d->relay.base); /* (dropped after its timer fired, before the relay ran) */
}

/* The deadline of c (CORO_DEADLINE): a walk of this thread's, which are
   few where deadlines are used as they are meant to be, one per task that
   needs a limit. */
static void deadline_release(coro_t *c);

static struct deadline *deadline_of(coro_t *c) {
  for (struct deadline *d = deadlines; d; d = d->next)
    if (d->task == c)
      return d;
  coro_fatal("coro_free",
             "instance %p has a deadline that this thread does not know (was it "
             "made on another thread?)",
             (void *)c);
}

void coro_deadline(coro_t *c, unsigned ms) {
  if (!c || !(c->kind & CORO_TASK))
    coro_fatal("coro_deadline", "instance %p is not a task: only tasks have deadlines", (void *)c);
  if (c->home == CORO_HOME_NONE && !(c->kind & CORO_STACKFUL))
    coro_fatal("coro_deadline",
               "instance %p lives in storage its caller gave (CORO_FRAME), which "
               "coro_free does not give back: a deadline needs an instance made by its coroutine's "
               "call",
               (void *)c);
  if (c->status == CORO_DONE)
    return;
  struct deadline *d;
  if (c->kind & CORO_DEADLINE) {
    d = deadline_of(c);
    deadline_stop(d);
  } else {
    d = malloc(sizeof *d);
    if (!d)
      coro_fatal("coro_deadline", "out of memory");
    d->task = c;
    d->prev = NULL;
    d->next = deadlines;
    if (deadlines)
      deadlines->prev = d;
    deadlines = d;
    c->kind |= CORO_DEADLINE;
    coro_free_deadline = deadline_release; /* coro_free drops it (coro.c) */
  }
  d->relay = (struct coro_task){
      .base = {.resume = deadline_relay, .status = CORO_SUSPENDED, .kind = CORO_TASK}};
  d->timer = coro_sleep(ms);
  d->timer.base.ops->suspend(&d->timer.base, &d->relay.base);
}

static void deadline_release(coro_t *c) {
  struct deadline *d = deadline_of(c);
  deadline_stop(d);
  if (d->prev)
    d->prev->next = d->next;
  else
    deadlines = d->next;
  if (d->next)
    d->next->prev = d->prev;
  free(d);
  c->kind &= (unsigned char)~CORO_DEADLINE;
}

/* }================================================================== */
