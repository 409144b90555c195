/* agen.c: coro_next_await, the awaitable of a generator's next value, and
 * the generators that await (async generators) that it runs.
 *
 * An async generator's body runs only as the child of the task that awaits
 * its next value, the way a task awaited inline runs (coro_start_child):
 * next_ready, called by that task's await, resumes the body right there,
 * with out pointing where the value goes. The body comes back at a yield
 * (the value is in *out: the await completes, true), at its end (false),
 * or at an await of its own: then the task suspends too, on this awaitable.
 * What the generator awaits wakes the generator, not the task; the
 * scheduler resumes it, and its first statement (coro_agen_enter) sees
 * that the scheduler did: it suspends again at once and wakes the task,
 * whose await resumes the body as before. So the body always runs where a
 * value can go, and a task whose await is called off (coro_timeout) finds
 * the generator where it was, its value not taken yet, at the next await.
 *
 * A plain generator's next value is ready at once: the same awaitable takes
 * it with coro_next, so that code written for either works with both.
 */
#include "coro_internal.h"
#include "coro_trace.h"

/* The generator's state, checked: an async generator's record, or NULL for a plain one. */
static struct coro_agen *agen_state(const char *func, coro_t *gen) {
  if ((gen->kind & (CORO_GENERATOR | CORO_TASK)) == CORO_TASK)
    coro_fatal(func,
               "instance %p is a task: await it, or spawn it; coro_next_await is for "
               "generators",
               (void *)gen);
  return gen->kind & CORO_TASK ? coro_agen_of(gen) : NULL;
}

/* Resume the body as this task's child, to its next suspension or its end. */
static void agen_step(coro_t *gen, struct coro_agen *ag, void *out) {
  coro_t *outer = coro_current_task;
  ag->yielded = false;
  ag->woken = false;
  ag->stepping = true;
  coro_current_task = gen; /* its awaits suspend it, as a task the scheduler runs */
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_resume(gen, out);
  else
    gen->resume(gen, out);
  coro_current_task = outer;
  ag->stepping = false;
}

static bool next_ready(struct coro_awaitable *a) {
  struct coro_next_await *nx = (struct coro_next_await *)a;
  coro_t *gen = nx->gen;
  struct coro_agen *ag = agen_state("coro_next_await", gen);
  /* the task runs (or its relay decides): nobody to wake until it suspends again */
  a->waiter = NULL;
  if (!ag) { /* a plain generator: its value now */
    nx->result = coro_next(gen, nx->out);
    return true;
  }
  if (ag->next != nx) { /* a new await: this one takes the next value */
    if (ag->next)
      coro_fatal("coro_next_await",
                 "generator %p: two awaits of its next value at once (one "
                 "consumer at a time)",
                 (void *)gen);
    if (gen->status == CORO_RUNNING)
      coro_fatal("coro_next_await",
                 "generator %p is running (it cannot await its own next "
                 "value)",
                 (void *)gen);
    ag->next = nx;
    if (gen->status == CORO_CREATED || ag->yielded)
      ag->woken = true; /* it stands at its start or at a yield: run it now */
  }
  for (;;) {
    if (gen->status == CORO_DONE) {
      ag->next = NULL;
      nx->result = false;
      return true;
    }
    if (ag->yielded && !ag->woken) { /* (woken: a yield an earlier await took) */
      ag->next = NULL;
      nx->result = true;
      return true;
    }
    struct coro_task *t = coro_as_task(gen);
    if (t->awaiting) { /* it awaits a task: that one starts now, as the scheduler would */
      coro_child_waits(coro_current_task, gen);
      continue;
    }
    if (!ag->woken)
      return false; /* it waits for what it awaits; so does this task */
    agen_step(gen, ag, nx->out);
  }
}

static void next_suspend(struct coro_awaitable *a, coro_t *waiter) {
  a->waiter = waiter; /* coro_agen_enter wakes it when the generator is woken */
}

/* Called off (coro_timeout, coro_cancel): the generator stays where it
   is, its next value for the next await; this one is over, with false (no
   value: coro_cancelled tells a cancellation from the generator's end). */
static void next_cancel(struct coro_awaitable *a) {
  struct coro_next_await *nx = (struct coro_next_await *)a;
  struct coro_agen *ag = agen_state("coro_next_await", nx->gen);
  if (ag && ag->next == nx)
    ag->next = NULL;
  a->waiter = NULL;
  nx->result = false;
  coro_settle(a);
}

static const struct coro_awaiter next_awaiter = {next_ready, next_suspend, next_cancel};

struct coro_next_await coro_next_await(coro_t *gen, void *out) {
  return (struct coro_next_await){.base = {.ops = &next_awaiter}, .gen = gen, .out = out};
}

bool coro_agen_enter(coro_t *c) {
  struct coro_agen *ag = coro_agen_of(c);
  if (ag->stepping)
    return true;
  if (c != coro_current_task)
    coro_fatal("coro_next",
               "instance %p is an async generator (it awaits): a task takes its "
               "values with 'await coro_next_await(gen, &value)'",
               (void *)c);
  ag->woken = true; /* the scheduler resumed it: what it awaits woke it */
  if (ag->next && ag->next->base.waiter)
    coro_ready(ag->next->base.waiter);
  return false;
}
