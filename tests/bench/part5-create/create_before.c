/* create_before.c: libcoro's coro_frame_new and coro_free as they were
 * before its slabs and its registry of live instances (runtime/registry.c):
 * calloc and free, the baseline of part 5 (create.c). */
#include <coro.h>

#include <stddef.h>  /* max_align_t (<coro.h> includes no POSIX or C library header) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

coro_t *bench_before_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out));
void bench_before_free(coro_t *c);

static void *alloc_zeroed(size_t size, size_t align) {
  if (align <= _Alignof(max_align_t))
    return calloc(1, size);
  size_t rounded = (size + align - 1) / align * align;
  void *p = aligned_alloc(align, rounded);
  if (p)
    memset(p, 0, rounded);
  return p;
}

coro_t *bench_before_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out)) {
  coro_t *c = alloc_zeroed(size, align);
  if (!c) {
    fprintf(stderr, "bench: out of memory\n");
    abort();
  }
  c->resume = resume;
  c->status = CORO_CREATED;
  return c;
}

void bench_before_free(coro_t *c) {
  if (!c)
    return;
  if (c->status == CORO_RUNNING)
    abort();
  free(c);
}
