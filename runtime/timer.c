/* timer.c: coro_sleep, and the heap of deadlines that sets epoll's timeout.
 *
 * A sleeping task costs one heap entry and no CPU: the scheduler's
 * epoll_wait times out at the earliest deadline. The timers are an event
 * source of the scheduler (coro_sched.h): it asks them how long it may
 * wait, and has them fire what is due after every poll.
 *
 * A deadline is in nanoseconds of CLOCK_MONOTONIC, read when the sleep
 * starts, plus its length: a timer fires once the clock has passed it, so
 * a sleep never ends early, whatever fraction of a millisecond it started
 * in (whole milliseconds, rounded down, ended sleeps up to 0.9 ms early).
 */
#include "coro_sched.h"

#include <errno.h>
#include <stdlib.h>

/* A min-heap of sleeping awaitables by deadline. */
struct timer_heap {
  struct coro_sleep **v;  /* v[0] is the earliest */
  size_t n, cap;
};

/* This thread's timers. */
static _Thread_local struct timer_heap timers;

static bool earlier(struct coro_sleep *a, struct coro_sleep *b) {
  return a->deadline_ns < b->deadline_ns ||
         (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
}

static void swap(struct timer_heap *h, size_t i, size_t j) {
  struct coro_sleep *t = h->v[i];
  h->v[i] = h->v[j];
  h->v[j] = t;
  h->v[i]->heap_index = i;
  h->v[j]->heap_index = j;
}

static void sift_up(struct timer_heap *h, size_t i) {
  for (; i > 0 && earlier(h->v[i], h->v[(i - 1) / 2]); i = (i - 1) / 2)
    swap(h, i, (i - 1) / 2);
}

static void sift_down(struct timer_heap *h, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && earlier(h->v[l], h->v[m]))
      m = l;
    if (r < h->n && earlier(h->v[r], h->v[m]))
      m = r;
    if (m == i)
      return;
    swap(h, i, m);
    i = m;
  }
}

/* Take the timer at index i out of the heap. */
static void heap_remove(struct timer_heap *h, size_t i) {
  h->v[i] = h->v[--h->n];
  h->v[i]->heap_index = i;
  if (i < h->n) {
    sift_up(h, i);
    sift_down(h, i);
  }
}

static const struct coro_source timer_source;

static void heap_push(struct timer_heap *h, struct coro_sleep *t) {
  if (!h->v)
    coro_sched_add_source(&timer_source);  /* the thread's first timer */
  if (h->n == h->cap) {
    h->cap = h->cap ? h->cap * 2 : 64;
    h->v = realloc(h->v, sizeof *h->v * h->cap);
    if (!h->v)
      coro_fatal("coro_sleep", "out of memory");
  }
  size_t i = h->n++;
  h->v[i] = t;
  t->heap_index = i;
  sift_up(h, i);
}

static struct coro_sleep *heap_pop(struct timer_heap *h) {
  struct coro_sleep *top = h->v[0];
  heap_remove(h, 0);
  return top;
}

/* Timers due at the same moment fire in the order they were set. */
static unsigned long next_seq;

/* Not ready until its deadline passed: even coro_sleep(0) gives the other
   ready tasks a turn first. */
static bool sleep_ready(struct coro_awaitable *a) {
  return ((struct coro_sleep *)a)->fired;
}

static void sleep_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_sleep *t = (struct coro_sleep *)a;
  t->base.waiter = waiter;
  t->armed = true;
  t->deadline_ns = coro_sched_now_ns() + (uint64_t)t->ms * 1000000;
  t->seq = next_seq++;
  heap_push(&timers, t);
}

/* A timer called off (coro_timeout): out of the heap, so that its memory
   may go with the frame that holds it. */
void coro_timer_cancel(struct coro_sleep *t) {
  if (t->armed && !t->fired) {
    heap_remove(&timers, t->heap_index);
    t->armed = false;
  }
}

static void sleep_cancel(struct coro_awaitable *a) {
  coro_timer_cancel((struct coro_sleep *)a);
  ((struct coro_sleep *)a)->result = -ECANCELED;
  coro_settle(a);
}

static const struct coro_awaiter sleep_awaiter = {sleep_ready, sleep_suspend, sleep_cancel};

struct coro_sleep coro_sleep(unsigned ms) {
  return (struct coro_sleep){.base = {.ops = &sleep_awaiter}, .ms = ms};
}

/* {==================================================================
 * The event source
 * =================================================================== */

static bool timers_waiting(void) {
  return timers.n != 0;
}

static void timers_fire(uint64_t now) {
  while (timers.n && timers.v[0]->deadline_ns <= now) {
    struct coro_sleep *t = heap_pop(&timers);
    t->fired = true;
    t->result = 0;
    coro_ready(t->base.waiter);
  }
}

/* How long the scheduler may wait for events, in ns, at `now`: until the
   earliest deadline (at most a day: the loop looks again then), 0 if one
   is due, -1 without timers. */
static int64_t timers_timeout(uint64_t now) {
  if (!timers.n)
    return -1;
  uint64_t d = timers.v[0]->deadline_ns, day = 86400 * UINT64_C(1000000000);
  return d <= now ? 0 : (int64_t)(d - now > day ? day : d - now);
}

static const struct coro_source timer_source = {
  .name = "timers",
  .waiting = timers_waiting,
  .timeout = timers_timeout,
  .fire = timers_fire,
};

/* }================================================================== */
