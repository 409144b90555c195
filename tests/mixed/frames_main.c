/* frames_main.c: a plain C file that makes frames.coc's coroutines in storage
   it gives: a local, freed early and used again; members of a struct; blocks
   of an arena. It sees them through frames.h, which `coroc --header` wrote.
   No instance made in given storage takes memory of the runtime's
   allocator, and coro_free gives that storage back to nobody. */
#include <stdalign.h>
#include <stdlib.h>

#include "check.h"
#include "frames.h"

size_t frames_size(int which);   /* frames.coc's own sizeof and _Alignof of the frames */
size_t frames_align(int which);

static long allocs;

static void *count_alloc(size_t bytes, size_t align, void *ctx) {
  (void)ctx;
  allocs++;
  return aligned_alloc(align, (bytes + align - 1) / align * align);
}

static void count_free(void *p, size_t bytes, void *ctx) {
  (void)bytes, (void)ctx;
  free(p);
}

struct job {                     /* a generator inside a struct of the program's */
  int id;
  CORO_FRAME(window_sums) frame;
};

/* A bump allocator over one block: the blocks of an arena. */
static alignas(64) unsigned char arena[4096];
static size_t arena_used;

static void *arena_take(size_t size, size_t align) {
  size_t at = (arena_used + align - 1) / align * align;
  if (at + size > sizeof arena)
    return NULL;
  arena_used = at + size;
  return arena + at;
}

int main(void) {
  coro_set_allocator(&(struct coro_allocator){count_alloc, count_free, NULL});
  /* the header's frames are the ones frames.coc defines */
  ASSERT(frames_size(0), sizeof(CORO_FRAME(window_sums)));
  ASSERT(frames_size(1), sizeof(CORO_FRAME(add_up)));
  ASSERT(frames_align(0), alignof(CORO_FRAME(window_sums)));
  ASSERT(frames_align(1), alignof(CORO_FRAME(add_up)));
  allocs = 0;                    /* (frames_size made and freed one on the heap) */

  static const int xs[] = {1, 2, 3, 4, 5, 6};
  long v, last = 0;

  CORO_FRAME(window_sums) local; /* a local: two values, freed early, made again */
  coro_t *g = coro_in_window_sums(&local, xs, 6);
  ASSERT(1, coro_next(g, &v));
  ASSERT(1, v);
  ASSERT(1, coro_next(g, &v));
  ASSERT(3, v);
  ASSERT(0, coro_done(g));
  coro_free(g);
  g = coro_in_window_sums(&local, xs, 6);
  while (coro_next(g, &v))
    last = v;
  ASSERT(3 + 4 + 5 + 6, last);   /* the last WINDOW values */
  ASSERT(1, coro_done(g));
  coro_free(g);

  struct job a, b;               /* members, taking turns */
  a.id = 1, b.id = 2;
  coro_t *ga = coro_in_window_sums(&a.frame, xs, 6), *gb = coro_in_window_sums(&b.frame, xs + 3, 3);
  long mixed = 0, va, vb;
  while (coro_next(ga, &va) && coro_next(gb, &vb))
    mixed += va * vb;
  ASSERT(1 * 4 + 3 * 9 + 6 * 15, mixed);
  ASSERT(1, a.id + b.id - 2);    /* the members beside the frames are untouched */
  coro_free(ga);
  coro_free(gb);

  long out[3] = {0, 0, 0};       /* tasks in blocks of an arena, with a child inside each */
  for (int k = 0; k < 3; k++) {
    CORO_FRAME(add_up) *f = arena_take(sizeof *f, alignof(CORO_FRAME(add_up)));
    ASSERT(1, f != NULL);
    coro_spawn(coro_in_add_up(f, k + 2, &out[k]));
  }
  ASSERT(0, coro_run());
  ASSERT(2 * (1 + 2), out[0]);
  ASSERT(2 * (1 + 2 + 3), out[1]);
  ASSERT(2 * (1 + 2 + 3 + 4), out[2]);

  arena_used = 0;                /* the arena again, for a task freed before it ran */
  CORO_FRAME(add_up) *f = arena_take(sizeof *f, alignof(CORO_FRAME(add_up)));
  coro_t *t = coro_in_add_up(f, 5, &out[0]);
  coro_free(t);
  ASSERT(2 * (1 + 2), out[0]);   /* it never ran */

  ASSERT(0, allocs);             /* none of them took memory of the allocator */
  coro_t *h = window_sums(xs, 1);   /* the heap one, from this file too */
  ASSERT(1, allocs);
  ASSERT(1, coro_next(h, &v));
  ASSERT(1, v);
  coro_free(h);
  CHECK_DONE();
  return 0;
}
