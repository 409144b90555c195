/* futures.c: several operations at once.
 *
 *   await coro_wait_all(tasks, n)   starts the n tasks; done when all are
 *   await coro_wait_any(tasks, n)   starts them; done when the first is: its index
 *   await coro_timeout(&aw, ms)     aw, or -ETIMEDOUT after ms
 *
 * All three are built on one trick: the scheduler only knows how to resume
 * a task, so each of these awaitables holds a tiny task header of its own (a
 * "relay", a struct coro_task with a resume function and no frame) and hands it out in place of the
 * waiting task: as the parent of the tasks it started, or as the waiter of the awaitable it wraps.
 * When the relay is resumed, it decides whether the real waiter's turn has come.
 */
#define _GNU_SOURCE
#include "coro_sched.h"
#include "coro_trace.h"

#include <errno.h>
#include <stddef.h>


/* {==================================================================
 * wait_all, wait_any
 * =================================================================== */

/* A task of the set finished (the relay is its parent). */
static bool group_relay(coro_t *relay, void *out) {
  (void)out;
  struct coro_wait *w = CORO_CONTAINER(relay, struct coro_wait, relay.base);
  relay->status = CORO_SUSPENDED; /* ready for the next one */
  if (w->finished)
    return true;
  if (w->any) {
    for (size_t i = 0; i < w->n; i++)
      if (w->tasks[i]->status == CORO_DONE && w->result < 0)
        w->result = (long)i;
    /* the others go on without us: the scheduler owns them from now on
       (coro_wait_any_cancel: and they are cancelled) */
    for (size_t i = 0; i < w->n; i++)
      if (w->tasks[i]->status != CORO_DONE) {
        coro_as_task(w->tasks[i])->parent = NULL;
        w->tasks[i]->spawned = 1;
        coro_sched_self.live++;
        if (w->cancel_rest)
          coro_cancel(w->tasks[i]);
      }
  } else if (--w->left > 0) {
    return true;
  } else {
    w->result = 0;
  }
  w->finished = true;
  coro_ready(w->base.waiter);
  return true;
}

static bool group_ready(struct coro_awaitable *a) {
  struct coro_wait *w = (struct coro_wait *)a;
  if (w->started)
    return w->finished;
  w->started = true;
  w->relay = (struct coro_task){
      .base = {.resume = group_relay, .status = CORO_SUSPENDED, .kind = CORO_TASK}};
  w->left = w->n;
  w->result = w->any ? -1 : 0;
  if (w->n == 0) {
    w->finished = true;
    return true;
  }
  for (size_t i = 0; i < w->n; i++) {
    if ((w->tasks[i]->kind & (CORO_TASK | CORO_GENERATOR)) != CORO_TASK)
      coro_fatal(w->any ? "coro_wait_any" : "coro_wait_all",
                 "instance %zu (%p) is a generator: consume it with coro_next; a set must be of "
                 "tasks",
                 i, (void *)w->tasks[i]);
    if (w->tasks[i]->status != CORO_CREATED)
      coro_fatal(w->any ? "coro_wait_any" : "coro_wait_all",
                 "task %zu (%p) is %s: a set must be of new tasks", i, (void *)w->tasks[i],
                 coro_status_name(w->tasks[i]->status));
    if (coro_as_task(w->tasks[i])->parent || w->tasks[i]->spawned)
      coro_fatal(w->any ? "coro_wait_any" : "coro_wait_all",
                 "task %zu (%p) is already %s: a task is awaited once, by one await or one set", i,
                 (void *)w->tasks[i], w->tasks[i]->spawned ? "spawned" : "awaited");
    coro_as_task(w->tasks[i])->parent = &w->relay;
    coro_ready(w->tasks[i]);
  }
  return false;
}

static void group_suspend(struct coro_awaitable *a, coro_t *waiter) {
  a->waiter = waiter; /* the tasks already run; the relay does the rest */
}

/* Called off (coro_cancel of the waiter, or coro_timeout): -ECANCELED, and
   the set is not the waiter's any more. The tasks that have finished are
   freed now; the others are the scheduler's, cancelled, and freed when they
   end (their cleanup runs, but nobody waits for it). */
static void group_cancel(struct coro_awaitable *a) {
  struct coro_wait *w = (struct coro_wait *)a;
  if (w->started && !w->finished) {
    w->finished = true;
    for (size_t i = 0; i < w->n; i++) {
      coro_t *c = w->tasks[i];
      if (c->status == CORO_DONE) {
        coro_free(c);
      } else {
        coro_as_task(c)->parent = NULL;
        c->spawned = 1;
        coro_sched_self.live++;
        coro_cancel(c);
      }
    }
  }
  w->result = -ECANCELED;
  coro_settle(a);
}

/* (its kind is read further by a trace: coro_trace.h) */
static const struct coro_awaiter group_awaiter CORO_TRACE_WIDE = {group_ready, group_suspend,
                                                                  group_cancel};

struct coro_wait coro_wait_all(coro_t **tasks, size_t n) {
  return (struct coro_wait){.base = {.ops = &group_awaiter}, .tasks = tasks, .n = n};
}

struct coro_wait coro_wait_any(coro_t **tasks, size_t n) {
  return (struct coro_wait){.base = {.ops = &group_awaiter}, .tasks = tasks, .n = n, .any = true};
}

struct coro_wait coro_wait_any_cancel(coro_t **tasks, size_t n) {
  return (struct coro_wait){
      .base = {.ops = &group_awaiter}, .tasks = tasks, .n = n, .any = true, .cancel_rest = true};
}

/* }================================================================== */

/* {==================================================================
 * timeout
 * =================================================================== */

/* The wrapped awaitable or the timer woke the relay. The timer, first:
   the wrapped one is called off and the await is -ETIMEDOUT. The wrapped
   one: the waiter tries it again (ready() may still say EAGAIN, and the
   timer keeps running meanwhile). Either way the waiter is woken once. */
static bool timeout_relay(coro_t *relay, void *out) {
  (void)out;
  struct coro_timeout *t = CORO_CONTAINER(relay, struct coro_timeout, relay.base);
  relay->status = CORO_SUSPENDED;
  if (t->finished)
    return true;
  if (t->timer.fired) { /* time is up... */
    if (t->inner->ops->ready(t->inner)) {
      t->inner_done = true; /* ...but the wrapped one completed in the same turn: it counts */
    } else {
      t->inner->ops->cancel(t->inner); /* the wrapped awaitable is called off */
      t->timed_out = true;
    }
  } /* else it may be ready: timeout_ready tries, and calls the timer off if so */
  t->finished = true;
  coro_ready(t->base.waiter);
  return true;
}

coro_t *coro_waiting_task(coro_t *w) {
  while (w && w->resume == timeout_relay)
    w = CORO_CONTAINER(w, struct coro_timeout, relay.base)->base.waiter;
  return w;
}

static bool timeout_ready(struct coro_awaitable *a) {
  struct coro_timeout *t = (struct coro_timeout *)a;
  if (t->timed_out) {
    t->result = -ETIMEDOUT;
    return true;
  }
  if (t->inner_done || t->inner->ops->ready(t->inner)) {
    if (t->timer.armed && !t->timer.fired)
      coro_timer_cancel(&t->timer);
    t->result = 0;
    return true;
  }
  return false;
}

static void timeout_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_timeout *t = (struct coro_timeout *)a;
  t->base.waiter = waiter;
  t->finished = false;
  t->relay = (struct coro_task){
      .base = {.resume = timeout_relay, .status = CORO_SUSPENDED, .kind = CORO_TASK}};
  t->inner->ops->suspend(t->inner, &t->relay.base);
  if (!t->timer.armed) { /* the deadline counts from the first wait, not each retry */
    t->timer = coro_sleep(t->ms);
    t->timer.base.ops->suspend(&t->timer.base, &t->relay.base);
  }
}

/* Called off (coro_cancel of the waiter): the wrapped one too, and the
   timer; a relay already queued finds the timeout finished. What woke the
   relay in this turn came first, and decides: the wrapped one completed
   (it counts, as against the timer: 0), or the timer fired (-ETIMEDOUT;
   the wrapped one, passed by since, is called off). Else -ECANCELED. The
   task's next wait sees the cancellation. */
static void timeout_cancel(struct coro_awaitable *a) {
  struct coro_timeout *t = (struct coro_timeout *)a;
  if (t->timer.armed && !t->timer.fired)
    coro_timer_cancel(&t->timer);
  t->finished = true;
  if (!t->timed_out && (t->inner_done || t->inner->ops->ready(t->inner))) {
    t->result = 0; /* completed: it counts */
  } else {
    if (!t->timed_out)
      t->inner->ops->cancel(t->inner);
    t->result = t->timed_out || t->timer.fired ? -ETIMEDOUT : -ECANCELED;
  }
  coro_settle(a);
}

/* (its kind is read further by a trace: coro_trace.h) */
static const struct coro_awaiter timeout_awaiter CORO_TRACE_WIDE = {timeout_ready, timeout_suspend,
                                                                    timeout_cancel};

struct coro_timeout coro_timeout(struct coro_awaitable *aw, unsigned ms) {
  if (!aw->ops->cancel)
    coro_fatal("coro_timeout", "this awaitable cannot be called off, so it cannot time out");
  return (struct coro_timeout){.base = {.ops = &timeout_awaiter}, .inner = aw, .ms = ms};
}

/* }================================================================== */
