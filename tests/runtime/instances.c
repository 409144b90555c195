/* instances.c: where instances live (runtime/registry.c), tried through
 * coro_frame_new and coro_free as generated code calls them.
 *
 *   instances layout     same-sized instances made in a row lie side by side,
 *                        each as big as its frame rounded up to 8 bytes
 *   instances churn      300,000 instances of sizes 16..1024 and alignments
 *                        up to 64, made and freed in a pseudo-random order:
 *                        every one zeroed when made, aligned, and not sharing a
 *                        byte with another live one (each holds its own pattern)
 *   instances release    the memory of a million freed instances goes back to
 *                        the system (resident memory falls again)
 *   instances thread     an instance freed on another thread than its maker's:
 *                        must die with a message naming both threads
 *   instances reuse      a freed generator's memory read after coro_free (for
 *                        valgrind, which must report it)
 *   instances kept       the frame freed last is the next one of its size; an
 *                        allocator set after it is still asked for the next
 *                        frame; a thread whose last frame was kept ends with
 *                        its registry given back
 *
 * Prints OK and exits 0 when everything held; else a message and exit 1.
 */
#include <coro.h>

#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                             \
  do {                                               \
    if (!(cond)) {                                   \
      fprintf(stderr, "instances.c:%d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                  \
      fputc('\n', stderr);                           \
      failures++;                                    \
    }                                                \
  } while (0)

static bool never_resumed(coro_t *c, void *out) {
  (void)c, (void)out;
  return false;
}

static coro_t *make(size_t size, size_t align) {
  return coro_frame_new(size, align, never_resumed, CORO_GENERATOR);
}

static long resident_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
    return -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

static void layout(void) {
  for (size_t size = 16; size <= 512; size += 20) {
    size_t slot = (size + 7) / 8 * 8;
    coro_t *a = make(size, 8), *b = make(size, 8), *c = make(size, 8);
    CHECK((char *)b - (char *)a == (ptrdiff_t)slot && (char *)c - (char *)b == (ptrdiff_t)slot,
          "%zu-byte instances made in a row at %p %p %p, not %zu apart", size, (void *)a, (void *)b,
          (void *)c, slot);
    coro_free(b);
    coro_t *d = make(size, 8); /* the freed slot is the next one given */
    CHECK(d == b, "a freed %zu-byte slot was not reused (%p, then %p)", size, (void *)b, (void *)d);
    coro_free(a), coro_free(c), coro_free(d);
  }
}

/* The pattern instance i holds in every byte after its header. */
static unsigned char pattern(size_t i) {
  return (unsigned char)(i * 2654435761u >> 24) | 1;
}

static void churn(void) {
  enum { LIVE = 4096, ROUNDS = 300000 };
  static const size_t aligns[] = {8, 16, 16, 16, 32, 64};
  coro_t *live[LIVE] = {0};
  size_t size[LIVE], tag[LIVE];
  uint32_t rng = 12345;
  for (size_t round = 0; round < ROUNDS; round++) {
    rng = rng * 1103515245u + 12345u;
    size_t k = (rng >> 8) % LIVE;
    if (live[k]) { /* check its bytes are still its own, then free it */
      const unsigned char *p = (const unsigned char *)live[k] + sizeof(coro_t);
      for (size_t j = 0; j < size[k] - sizeof(coro_t); j++)
        if (p[j] != pattern(tag[k])) {
          CHECK(0, "instance %p (%zu bytes) changed at byte %zu", (void *)live[k], size[k],
                j + sizeof(coro_t));
          break;
        }
      coro_free(live[k]);
      live[k] = NULL;
      continue;
    }
    size_t align = aligns[(rng >> 20) % 6];
    size[k] = sizeof(coro_t) + (rng >> 4) % 1009;
    size[k] = (size[k] + align - 1) / align * align;
    coro_t *c = make(size[k], align);
    CHECK((uintptr_t)c % align == 0, "instance %p not aligned to %zu", (void *)c, align);
    const unsigned char *p = (const unsigned char *)c + sizeof(coro_t);
    for (size_t j = 0; j < size[k] - sizeof(coro_t); j++)
      if (p[j]) {
        CHECK(0, "a new %zu-byte instance is not zeroed at byte %zu", size[k], j + sizeof(coro_t));
        break;
      }
    tag[k] = round;
    memset((char *)c + sizeof(coro_t), pattern(round), size[k] - sizeof(coro_t));
    live[k] = c;
    if (failures)
      return;
  }
  for (size_t k = 0; k < LIVE; k++)
    coro_free(live[k]);
}

static void release(void) {
  enum { N = 1000000 };
  coro_t **all = malloc(N * sizeof *all);
  memset(
      all, 1,
      N * sizeof *all); /* its pages counted before (0 would let malloc + memset become calloc) */
  long before = resident_bytes();
  for (size_t i = 0; i < N; i++)
    all[i] = make(48, 8);
  long full = resident_bytes();
  for (size_t i = 0; i < N; i++)
    coro_free(all[i]);
  long after = resident_bytes();
  CHECK(full - before >= (long)N * 40, "a million 48-byte instances took only %ld bytes",
        full - before);
  CHECK(after - before < (full - before) / 10,
        "freed instances kept their memory: %ld bytes before, %ld with them, %ld after", before,
        full, after);
  free(all);
}

static void *free_it(void *c) {
  coro_free(c);
  return NULL;
}

static void thread(void) {
  coro_t *c = make(32, 8);
  pthread_t t;
  pthread_create(&t, NULL, free_it, c);
  pthread_join(t, NULL);
  CHECK(0, "an instance freed on another thread was not refused");
}

static void reuse(void) {
  coro_t *c = make(64, 8);
  coro_free(c);
  printf("status after free: %d\n", ((volatile coro_t *)c)->status); /* the use after free */
}

static int allocator_calls;
static void *counted_alloc(size_t bytes, size_t align, void *ctx) {
  (void)align, (void)ctx; /* (this test's frames need no more than malloc's) */
  allocator_calls++;
  return malloc(bytes);
}
static void counted_free(void *p, size_t bytes, void *ctx) {
  (void)bytes, (void)ctx;
  free(p);
}

/* registry.c's list of the threads' registries, newest first (the gdb
   extension's way in): only its head is compared here. */
extern void *coro_registries;

static void *make_and_free(void *arg) {
  (void)arg;
  coro_free(make(40, 8));
  return NULL;
}

static void kept(void) {
  coro_t *a = make(40, 8);
  coro_free(a);
  coro_t *b = make(40, 8);
  CHECK(b == a, "the frame freed last (%p) was not the next of its size (%p)", (void *)a,
        (void *)b);
  coro_t *x = make(40, 8);
  coro_free(b); /* kept */
  coro_set_allocator(&(struct coro_allocator){counted_alloc, counted_free, NULL});
  coro_free(x); /* a slab's frame, freed while an allocator is set */
  coro_t *c = make(40, 8);
  CHECK(allocator_calls == 1, "a frame made after coro_set_allocator took %d calls of it",
        allocator_calls);
  coro_free(c);
  coro_set_allocator(NULL);
  void *head = coro_registries;
  pthread_t t;
  pthread_create(&t, NULL, make_and_free, NULL);
  pthread_join(t, NULL);
  CHECK(coro_registries == head, "the registry of a thread that freed all it made outlived it");
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "layout") == 0)
    layout();
  else if (strcmp(what, "churn") == 0)
    churn();
  else if (strcmp(what, "release") == 0)
    release();
  else if (strcmp(what, "thread") == 0)
    thread();
  else if (strcmp(what, "reuse") == 0)
    reuse();
  else if (strcmp(what, "kept") == 0)
    kept();
  else {
    fprintf(stderr, "usage: instances layout|churn|release|thread|reuse|kept\n");
    return 2;
  }
  if (failures)
    return 1;
  puts("OK");
  return 0;
}
