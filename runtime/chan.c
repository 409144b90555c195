/* chan.c: channels, the values tasks hand each other.
 *
 *   ch = coro_chan_new(sizeof(int), 4)    a channel of ints that holds 4
 *   await coro_chan_send(ch, &v)          0, or -EPIPE once ch is closed
 *   await coro_chan_recv(ch, &v)          0, or -EPIPE once closed and drained
 *   await coro_chan_select(ops, n)        one of several, its index
 *   await coro_chan_select_timeout(ops, n, ms)   the same, or -ETIMEDOUT
 *
 * A channel is a ring of `capacity` values and two queues of waiting
 * operations, senders and receivers. The value moves when the second party
 * of a transfer arrives, by the running task, straight from the sender's
 * pointer to the receiver's (or through the ring): the waiting party's
 * operation is *performed* for it (its `done` and `result` set) before it
 * is woken, as Go's channels do. So a woken task never finds that someone
 * came in between and took its value, waiting tasks are served strictly in
 * the order they came, and a wait costs one wake, never a retry.
 *
 * At most one queue holds operations of a plain send or receive: receivers
 * wait only while the ring is empty and no sender waits, senders only
 * while it is full and no receiver waits. A select may put a send and a
 * receive of its own in both queues of one channel; a partner that arrives
 * takes either, and the select is over.
 *
 * Calling off (coro_timeout, a select's other branches) takes an operation
 * out of its queue; one that has been performed already stays performed.
 *
 * A wait is settled once (coro_wake, sched.c): a partner wakes the
 * waiting operation's waiter first, and performs the operation only if
 * that wake was the first. One whose waiter was woken already in this turn
 * (a select's own deadline fired, coro_timeout's timer woke its relay) is
 * passed by, and the partner takes the next waiting operation instead; it
 * stays in its queue until its task, or the relay, runs and takes it out.
 * A select that is performed calls its timer off at once. So a deadline
 * and a value in the same turn never both happen, and the task is woken
 * once.
 */
#include "coro_waitq.h"
#include "coro_trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct coro_chan {
  size_t elem;                 /* the size of a value, in bytes */
  size_t cap;                  /* the values the ring holds; 0: every send is a rendezvous */
  size_t head, len;            /* the ring: len values from slot head on */
  bool closed;                 /* coro_chan_close was called */
  struct coro_waitq senders;   /* struct coro_chan_op waiting to send, first come first */
  struct coro_waitq receivers; /* waiting to receive */
  unsigned char ring[];        /* cap * elem bytes */
};

/* {==================================================================
 * Moving values
 * =================================================================== */

static struct coro_chan_op *op_of(struct coro_waitlink *l) {
  return CORO_CONTAINER(l, struct coro_chan_op, link);
}

static struct coro_waitq *queue_of(struct coro_chan_op *op) {
  return op->send ? &op->chan->senders : &op->chan->receivers;
}

static void copy(const struct coro_chan *ch, void *to, const void *from) {
  if (to && ch->elem)
    memcpy(to, from, ch->elem);
}

/* Where the value of a waiting operation is now. Its task is suspended:
   one on the shared stack may have its frames copied out, and its value
   with them (coro_stackful_locate). The operation's waiter may be the
   relay of a coro_timeout around it: the task is the one behind it. */
static void *value_of(struct coro_chan_op *op) {
  coro_t *w = coro_waiting_task(op->base.waiter);
  if (__builtin_expect(w && (w->kind & CORO_SHARED_STACK), 0))
    return coro_stackful_locate(w, op->value);
  return op->value;
}

/* The i-th value of the ring, from the oldest. */
static void *slot(struct coro_chan *ch, size_t i) {
  return ch->ring + (ch->head + i) % ch->cap * ch->elem;
}

/* Called off, or the other branch of a select that is over: out of its queue. */
static void unhook(struct coro_chan_op *op) {
  if (op->queued) {
    waitq_remove(queue_of(op), &op->link);
    op->queued = false;
  }
}

static void unhook_all(struct coro_chan_select *sel) {
  for (size_t i = 0; i < sel->n; i++)
    unhook(&sel->ops[i]);
}

/* A select whose deadline has passed: its timer woke its task, which
   finds -ETIMEDOUT; partners have passed its branches by meanwhile. */
static bool expired(const struct coro_chan_select *sel) {
  return sel->timed && sel->timer.fired;
}

/* The operation that has waited longest in q and is still waiting, out of
   it, its waiter woken: the caller performs it (complete); or NULL. Those
   settled already in this turn are passed by. */
static struct coro_chan_op *pop(struct coro_waitq *q) {
  for (struct coro_waitlink *l = q->head; l; l = l->next) {
    struct coro_chan_op *op = op_of(l);
    if (coro_wake(op->base.waiter)) {
      waitq_remove(q, l);
      op->queued = false;
      return op;
    }
  }
  return NULL;
}

static bool finish(struct coro_chan_op *op, int result) {
  op->done = true;
  op->result = result;
  return true;
}

/* A waiting operation (out of its queue now, its task woken by pop) was
   performed by a partner or by close. A select's branch ends the select:
   its other branches leave their queues before anyone else can take them,
   so exactly one branch of a select is ever performed. */
static void complete(struct coro_chan_op *op, int result) {
  finish(op, result);
  struct coro_chan_select *sel = op->select;
  if (!sel)
    return;
  unhook_all(sel);
  if (sel->timed) /* armed, not fired (it would have woken the task): it never will now */
    sel->timer.base.ops->cancel(&sel->timer.base);
  sel->done = true;
  sel->result = (int)(op - sel->ops);
}

/* Perform op now if it can be: true, with op->result set; false if it
   must wait. */
static bool attempt(struct coro_chan_op *op) {
  struct coro_chan *ch = op->chan;
  struct coro_chan_op *partner;
  if (op->send) {
    if (ch->closed)
      return finish(op, -EPIPE);
    if ((partner = pop(&ch->receivers))) { /* a receiver waits: the ring is empty */
      copy(ch, value_of(partner), op->value);
      complete(partner, 0);
      return finish(op, 0);
    }
    if (ch->len == ch->cap)
      return false;
    copy(ch, slot(ch, ch->len++), op->value);
    return finish(op, 0);
  }
  /* the oldest value; a waiting sender's joins the ring */
  if (ch->len > 0) {
    copy(ch, op->value, slot(ch, 0));
    ch->head = (ch->head + 1) % ch->cap;
    ch->len--;
    if ((partner = pop(&ch->senders))) {
      copy(ch, slot(ch, ch->len++), value_of(partner));
      complete(partner, 0);
    }
    return finish(op, 0);
  }
  if ((partner = pop(&ch->senders))) { /* a rendezvous */
    copy(ch, op->value, value_of(partner));
    complete(partner, 0);
    return finish(op, 0);
  }
  return ch->closed ? finish(op, -EPIPE) : false;
}

/* }================================================================== */

/* {==================================================================
 * One send or receive
 * =================================================================== */

static bool op_ready(struct coro_awaitable *a) {
  struct coro_chan_op *op = (struct coro_chan_op *)a;
  if (op->done)
    return true;
  return !op->queued && attempt(op);
}

static void op_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_chan_op *op = (struct coro_chan_op *)a;
  a->waiter = waiter;
  if (!op->queued) {
    op->queued = true;
    waitq_push(queue_of(op), &op->link);
  }
}

static void op_cancel(struct coro_awaitable *a) {
  unhook((struct coro_chan_op *)a);
  finish((struct coro_chan_op *)a, -ECANCELED);
  coro_settle(a);
}

static const struct coro_awaiter chan_send_ops = {op_ready, op_suspend, op_cancel};
static const struct coro_awaiter chan_recv_ops = {op_ready, op_suspend, op_cancel};

static struct coro_chan_op make_op(const char *func, struct coro_chan *ch, void *value, bool send) {
  if (!ch)
    coro_fatal(func, "the channel is NULL");
  if (send && !value && ch->elem)
    coro_fatal(func, "the value is NULL, for a channel of %zu-byte values", ch->elem);
  return (struct coro_chan_op){.base = {.ops = send ? &chan_send_ops : &chan_recv_ops},
                               .chan = ch,
                               .value = value,
                               .send = send};
}

struct coro_chan_op coro_chan_send(struct coro_chan *ch, const void *value) {
  return make_op("coro_chan_send", ch, (void *)value, true);
}

struct coro_chan_op coro_chan_recv(struct coro_chan *ch, void *value) {
  return make_op("coro_chan_recv", ch, value, false);
}

int coro_chan_try_send(struct coro_chan *ch, const void *value) {
  struct coro_chan_op op = make_op("coro_chan_try_send", ch, (void *)value, true);
  return attempt(&op) ? op.result : -EAGAIN;
}

int coro_chan_try_recv(struct coro_chan *ch, void *value) {
  struct coro_chan_op op = make_op("coro_chan_try_recv", ch, value, false);
  return attempt(&op) ? op.result : -EAGAIN;
}

/* }================================================================== */

/* {==================================================================
 * Select
 * =================================================================== */

/* The first await of the select: each operation starts afresh, and the
   first of the array that can be performed now is; else all wait. Woken
   later, it was either performed (done) or its deadline passed. */
static bool select_ready(struct coro_awaitable *a) {
  struct coro_chan_select *sel = (struct coro_chan_select *)a;
  if (sel->done)
    return true;
  if (sel->started) {
    if (!expired(sel))
      return false;
    unhook_all(sel);
    sel->done = true;
    sel->result = -ETIMEDOUT;
    return true;
  }
  sel->started = true;
  if (sel->n == 0) {
    sel->done = true;
    sel->result = -EINVAL;
    return true;
  }
  for (size_t i = 0; i < sel->n; i++) {
    struct coro_chan_op *op = &sel->ops[i];
    if (op->queued)
      coro_fatal("coro_chan_select", "operation %zu (%p) is waiting already, in another await", i,
                 (void *)op);
    if (op->base.ops != &chan_send_ops && op->base.ops != &chan_recv_ops)
      coro_fatal("coro_chan_select",
                 "operation %zu (%p) is not a coro_chan_send or "
                 "coro_chan_recv",
                 i, (void *)op);
    op->done = false;
    op->select = NULL;
  }
  for (size_t i = 0; i < sel->n; i++)
    if (attempt(&sel->ops[i])) {
      sel->done = true;
      sel->result = (int)i;
      return true;
    }
  if (sel->timed && sel->ms == 0) { /* nothing at once, and no time to wait */
    sel->done = true;
    sel->result = -ETIMEDOUT;
    return true;
  }
  return false;
}

static void select_suspend(struct coro_awaitable *a, coro_t *waiter) {
  struct coro_chan_select *sel = (struct coro_chan_select *)a;
  a->waiter = waiter;
  for (size_t i = 0; i < sel->n; i++) {
    struct coro_chan_op *op = &sel->ops[i];
    op->select = sel;
    op->base.waiter = waiter;
    if (!op->queued) {
      op->queued = true;
      waitq_push(queue_of(op), &op->link);
    }
  }
  if (sel->timed && !sel->timer.armed) { /* the deadline counts from the first wait */
    sel->timer = coro_sleep(sel->ms);
    sel->timer.base.ops->suspend(&sel->timer.base, waiter);
  }
}

static void select_cancel(struct coro_awaitable *a) {
  struct coro_chan_select *sel = (struct coro_chan_select *)a;
  unhook_all(sel);
  if (sel->timed)
    sel->timer.base.ops->cancel(&sel->timer.base);
  sel->done = true;
  sel->result = -ECANCELED;
  coro_settle(a);
}

/* (its kind is read further by a trace: coro_trace.h) */
static const struct coro_awaiter chan_select_ops CORO_TRACE_WIDE = {select_ready, select_suspend,
                                                                    select_cancel};

struct coro_chan_select coro_chan_select(struct coro_chan_op *ops, size_t n) {
  if (!ops && n)
    coro_fatal("coro_chan_select", "the array of %zu operations is NULL", n);
  return (struct coro_chan_select){.base = {.ops = &chan_select_ops}, .ops = ops, .n = n};
}

struct coro_chan_select coro_chan_select_timeout(struct coro_chan_op *ops, size_t n, unsigned ms) {
  struct coro_chan_select sel = coro_chan_select(ops, n);
  sel.timed = true;
  sel.ms = ms;
  return sel;
}

/* }================================================================== */

/* {==================================================================
 * The channel
 * =================================================================== */

struct coro_chan *coro_chan_new(size_t elem_size, size_t capacity) {
  if (elem_size && capacity > (SIZE_MAX - sizeof(struct coro_chan)) / elem_size) {
    errno = ENOMEM;
    return NULL;
  }
  struct coro_chan *ch = calloc(1, sizeof *ch + elem_size * capacity);
  if (!ch)
    return NULL;
  ch->elem = elem_size;
  ch->cap = capacity;
  return ch;
}

void coro_chan_free(struct coro_chan *ch) {
  if (!ch)
    return;
  if (!waitq_empty(&ch->senders) || !waitq_empty(&ch->receivers))
    coro_fatal("coro_chan_free",
               "channel %p is freed while tasks wait on it: close it, and let "
               "them see it closed, first",
               (void *)ch);
  free(ch);
}

/* Every waiting sender fails; receivers wait only while the ring is
   empty, so every waiting receiver fails too. */
int coro_chan_close(struct coro_chan *ch) {
  if (ch->closed)
    return -EPIPE;
  ch->closed = true;
  struct coro_chan_op *op;
  while ((op = pop(&ch->senders)))
    complete(op, -EPIPE);
  while ((op = pop(&ch->receivers)))
    complete(op, -EPIPE);
  return 0;
}

size_t coro_chan_len(const struct coro_chan *ch) {
  return ch->len;
}

bool coro_chan_closed(const struct coro_chan *ch) {
  return ch->closed;
}

/* }================================================================== */
