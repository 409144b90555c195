/* coro_waitq.h: the queues of waiting operations that channels, events,
 * semaphores, mutexes and groups keep (chan.c, sync.c).
 *
 * A queue is doubly linked through a struct coro_waitlink inside each
 * waiting awaitable, so that joining at the back, leaving from the front
 * and being called off from the middle (coro_timeout, a select's other
 * branches) each cost a few stores, however long the queue. The links live
 * in the awaitable, in the waiting task's frame or on its stack: the queue
 * owns no memory, and an operation must leave it before that memory goes.
 */
#ifndef CORO_WAITQ_H
#define CORO_WAITQ_H

#include "coro_internal.h"

#include <stddef.h>


static inline bool waitq_empty(const struct coro_waitq *q) {
  return q->head == NULL;
}

/* Join at the back. */
static inline void waitq_push(struct coro_waitq *q, struct coro_waitlink *l) {
  l->next = NULL;
  l->prev = q->tail;
  if (q->tail)
    q->tail->next = l;
  else
    q->head = l;
  q->tail = l;
}

/* Leave, from wherever l is. */
static inline void waitq_remove(struct coro_waitq *q, struct coro_waitlink *l) {
  if (l->prev)
    l->prev->next = l->next;
  else
    q->head = l->next;
  if (l->next)
    l->next->prev = l->prev;
  else
    q->tail = l->prev;
  l->next = l->prev = NULL;
}

/* Leave from the front: the one that has waited longest, or NULL. */
static inline struct coro_waitlink *waitq_pop(struct coro_waitq *q) {
  struct coro_waitlink *l = q->head;
  if (l)
    waitq_remove(q, l);
  return l;
}

#endif
