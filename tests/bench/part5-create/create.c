/* create.c: part 5's rows, creating and freeing an instance.
 *
 * bench_create_registered makes and frees n instances with libcoro as it
 * is: coro_frame_new, which takes a slot of its thread's slabs (also the
 * debugger's list of live instances, runtime/registry.c), and coro_free.
 * bench_create_unlisted does the same with a copy of what libcoro did
 * before slabs and that list existed (create_before.c: calloc, the header,
 * free), in a translation unit of its own, as libcoro's are. Both frames are of the same size, that
 * of a small coroutine (the header, four ints and a pointer). Each returns
 * the sum 0 + 1 + ... + (n-1), stored in and read back from the frames, so
 * that nothing can be left out.
 */
#include "bench.h"

#include <coro.h>

struct small_frame {
  coro_t base;
  int a, b, c, d;
  void *p;
};

static bool never_resumed(coro_t *c, void *out) {
  (void)c, (void)out;
  return false;
}

coro_t *bench_before_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out));
void bench_before_free(coro_t *c);

long long bench_create_registered(long n) {
  long long sum = 0;
  for (long i = 0; i < n; i++) {
    struct small_frame *f = (struct small_frame *)coro_frame_new(sizeof *f, _Alignof(struct small_frame),
                                                                 never_resumed, CORO_GENERATOR);
    f->a = (int)i;
    sum += f->a;
    coro_free(&f->base);
  }
  return sum;
}

long long bench_create_unlisted(long n) {
  long long sum = 0;
  for (long i = 0; i < n; i++) {
    struct small_frame *f = (struct small_frame *)bench_before_frame_new(
        sizeof *f, _Alignof(struct small_frame), never_resumed);
    f->a = (int)i;
    sum += f->a;
    bench_before_free(&f->base);
  }
  return sum;
}
