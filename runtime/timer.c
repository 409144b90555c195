/* timer.c: coro_sleep, the heap of deadlines, and the clock that wakes
 * the scheduler at the earliest one.
 *
 * A sleeping task costs one heap entry and no CPU. The timers are an event
 * source of the scheduler (coro_sched.h): it asks them how long it may
 * wait, and has them fire what is due after every poll.
 *
 * The clock is a timerfd in the scheduler's epoll, set to the earliest
 * deadline, so epoll_wait itself waits with no timeout. A timeout would
 * cost the kernel a timer armed and disarmed on every wait: little on bare
 * metal, but under a hypervisor programming the timer device is an exit to
 * it, a few tenths of a microsecond per sleep (tests/bench/part3-echo/epoll_timeout.c),
 * and a busy server with one timer pending (an idle sweep every 100 ms)
 * sleeps once every few requests. The timerfd is set only when a deadline
 * comes that is earlier than the one it holds, and left alone when timers
 * go: if it fires with nothing due, the loop looks once and sets it to the
 * next deadline. Where no timerfd can be made (no descriptor left),
 * epoll_wait times out at the earliest deadline, as before.
 *
 * A deadline is in nanoseconds of CLOCK_MONOTONIC, read when the sleep
 * starts, plus its length: a timer fires once the clock has passed it, so
 * a sleep never ends early, whatever fraction of a millisecond it started
 * in (whole milliseconds, rounded down, ended sleeps up to 0.9 ms early).
 */
#include "coro_sched.h"
#include "coro_seed.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* A min-heap of sleeping awaitables by deadline. */
struct timer_heap {
  struct coro_sleep **v; /* v[0] is the earliest */
  size_t n, cap;
};

/* This thread's timers. */
static _Thread_local struct timer_heap timers;

static bool earlier(struct coro_sleep *a, struct coro_sleep *b) {
  return a->deadline_ns < b->deadline_ns || (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
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

/* {==================================================================
 * The clock: a timerfd set to the earliest deadline
 * =================================================================== */

/* -DCORO_NO_TIMERFD builds the way without a clock only, for its tests. */
#ifdef CORO_NO_TIMERFD
enum { CLOCK_WANTED = 0 };
#else
enum { CLOCK_WANTED = 1 };
#endif

/* This thread's clock. */
static _Thread_local struct {
  struct coro_watch watch; /* first: the timerfd's tag in epoll */
  int fd;                  /* the timerfd, once made */
  bool made;               /* fd is made and in epoll */
  uint64_t set_ns;         /* the deadline it is set to and has not yet fired for; 0: none */
} clock_fd;

/* Has the clock been tried since the heap was last empty? (If making it
   failed, the loop's epoll_wait times out at the deadline until heap_push
   lets it be tried again.) */
static _Thread_local bool clock_tried;

/* Make the clock: a timerfd, edge-triggered in epoll, so that it is never
   read: setting it again clears what it counted. */
static bool clock_make(void) {
  if (clock_fd.made)
    return true;
  if (clock_tried)
    return false;
  clock_tried = true;
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0)
    return false;
  clock_fd.watch.source = &timer_source;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = &clock_fd.watch};
  if (epoll_ctl(coro_sched_epoll(), EPOLL_CTL_ADD, fd, &ev) < 0) {
    close(fd);
    return false;
  }
  clock_fd.fd = fd;
  clock_fd.made = true;
  return true;
}

/* Will the clock wake the loop by deadline d? Sets it to d if it would
   fire later, or not at all. False: there is no clock. */
static bool clock_set(uint64_t d) {
  if (!CLOCK_WANTED)
    return false;
  if (clock_fd.set_ns && clock_fd.set_ns <= d)
    return true;
  if (!clock_make())
    return false;
  struct itimerspec at = {
      .it_value = {.tv_sec = (time_t)(d / 1000000000), .tv_nsec = (long)(d % 1000000000)}};
  if (timerfd_settime(clock_fd.fd, TFD_TIMER_ABSTIME, &at, NULL) < 0)
    return false;
  clock_fd.set_ns = d;
  return true;
}

/* The clock fired: it is set to nothing now. What is due fires next, in
   timers_fire, which the loop calls after every poll. */
static void clock_fired(void *tag, uint32_t events) {
  (void)tag;
  (void)events;
  clock_fd.set_ns = 0;
}

/* }================================================================== */

static void heap_push(struct timer_heap *h, struct coro_sleep *t) {
  if (!h->v)
    coro_sched_add_source(&timer_source); /* the thread's first timer */
  if (h->n == 0)
    clock_tried = false; /* a descriptor may have come free since the clock could not be made */
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

/* Timers due at the same moment fire in the order they were set. One
   count per thread, as the heap it orders: a count of the process's,
   bumped by every thread's scheduler with no lock, was a data race (two
   threads setting timers at once could lose a step, or take the count
   back, and a thread's later timer then sort before its earlier one). */
static _Thread_local unsigned long next_seq;

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

/* A fault (CORO_FAULT_LATE, seed.c) holds the timers due back until
   this moment (ns), all of them, so that they still fire in their order. */
static _Thread_local uint64_t late_until_ns;

/* Are the timers due at now late this time? */
static bool timers_late(uint64_t now) {
  if (now < late_until_ns)
    return true;
  if (!coro_fault(CORO_FAULT_LATE))
    return false;
  late_until_ns = now + coro_fault_late_ns();
  return true;
}

static void timers_fire(uint64_t now) {
  if (timers.n && timers.v[0]->deadline_ns <= now && timers_late(now))
    return;
  while (timers.n && timers.v[0]->deadline_ns <= now) {
    struct coro_sleep *t = heap_pop(&timers);
    t->fired = true;
    t->result = 0;
    (void)coro_wake(t->base.waiter); /* second in this turn: its wait was settled first */
  }
}

/* How long the scheduler may wait for events, in ns, at `now`: 0 if a
   deadline is due; -1 (no limit) without timers, or when the clock will
   wake the loop; without a clock, until the earliest deadline (at most a
   day: the loop looks again then). */
static int64_t timers_timeout(uint64_t now) {
  if (!timers.n)
    return -1;
  uint64_t d = timers.v[0]->deadline_ns, day = 86400 * UINT64_C(1000000000);
  if (d <= now && now < late_until_ns) {
    /* held back (a fault): the clock rings when the hold ends, so that a
       host watching the descriptor alone (coro_sched_fd) is woken then */
    if (clock_set(late_until_ns))
      return -1;
    return (int64_t)(late_until_ns - now);
  }
  if (d <= now)
    return 0;
  if (clock_set(d))
    return -1;
  return (int64_t)(d - now > day ? day : d - now);
}

/* The time to the earliest deadline at `now`, ns: 0 if one is due (or
   when the timers due are held back: a fault); -1 without timers. What a
   host loop waits at most (coro_sched_timeout), with a clock or without. */
static int64_t timers_deadline(uint64_t now) {
  if (!timers.n)
    return -1;
  uint64_t d = timers.v[0]->deadline_ns;
  if (d <= now)
    return now < late_until_ns ? (int64_t)(late_until_ns - now) : 0;
  return (int64_t)(d - now);
}

/* The thread ends: its clock goes, and the heap's memory if no timer is
   left in it (one that is belongs to a task that will never run again). */
static void timers_end(void) {
  if (clock_fd.made)
    close(clock_fd.fd);
  clock_fd.made = false;
  clock_fd.set_ns = 0;
  if (timers.n == 0) {
    free(timers.v);
    timers.v = NULL;
    timers.cap = 0;
  }
}

static const struct coro_source timer_source = {
    .name = "timers",
    .waiting = timers_waiting,
    .timeout = timers_timeout,
    .deadline = timers_deadline,
    .event = clock_fired,
    .fire = timers_fire,
    .end = timers_end,
};

/* }================================================================== */
