/* bufpool.c: the buffers that coro_read_buf lends (io.c).
 *
 * One pool per thread: a free list of CORO_BUF_SIZE buffers. A buffer is
 * taken only when a read is about to succeed (the fd has data) and is
 * handed back by the task once it has used the bytes (coro_buf_release),
 * so a thousand connections waiting for their peers hold no buffer at all,
 * and a thousand echoing at once hold about as many as are in flight. The
 * free list keeps at most POOL_KEEP buffers; more are given back to malloc,
 * so a burst does not leave its memory in the pool for ever.
 *
 * A buffer taken on one thread may be released on another: it then joins
 * that thread's pool (they are plain malloc blocks).
 */
#include "coro_internal.h"
#include "coro_pool.h"

#include <stdlib.h>

enum { POOL_KEEP = 16 }; /* free buffers kept per thread: 1 MiB */

/* A free buffer's first bytes link it to the next. */
struct free_buf {
  struct free_buf *next;
};

static _Thread_local struct free_buf *pool;
static _Thread_local int pooled;

char *coro_bufpool_take(void) {
  struct free_buf *b = pool;
  if (b) {
    pool = b->next;
    pooled--;
    return (char *)b;
  }
  char *m = malloc(CORO_BUF_SIZE);
  if (!m)
    coro_fatal("coro_read_buf", "out of memory");
  return m;
}

void coro_buf_release(void *data) {
  if (!data)
    return;
  if (pooled >= POOL_KEEP) {
    free(data);
    return;
  }
  struct free_buf *b = data;
  b->next = pool;
  pool = b;
  pooled++;
}
