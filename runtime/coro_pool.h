/* coro_pool.h: the per-thread pool of lent buffers (bufpool.c), for io.c. */
#ifndef CORO_POOL_H
#define CORO_POOL_H

/* A CORO_BUF_SIZE buffer from this thread's pool (or malloc); aborts when
   memory runs out. coro_buf_release (coro.h) gives it back. */
char *coro_bufpool_take(void);

#endif
