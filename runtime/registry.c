/* registry.c: every live instance, where a debugger can find it.
 *
 * A debugger stopped in a coroutine program (or reading its core file) asks
 * first which coroutines exist and what each waits for. The runtime keeps
 * the answer at hand, for coroc's gdb extension (docs/debugging.md):
 *
 *   coro_registries -> registry of thread 1 -> registry of thread 2 -> ...
 *                        ring: live <-> live <-> live <-> (back to the ring)
 *
 *   allocation:  [ padding | struct coro_live | the instance: struct coro, ... ]
 *                                             ^ coro_t *
 *
 * Each instance made by coro_frame_new (both backends) has a struct
 * coro_live right in front of its header, linked into the ring of the
 * thread that made it; the registry of each thread is linked into one
 * global list when the thread makes its first instance. Adding and taking
 * out are four stores each and take no lock (docs/benchmarks.md measures
 * what creation plus destruction costs with it). So an instance must be
 * freed on the thread that made it, as the schedulers, which are per
 * thread, do anyway.
 *
 * This file also carries the gdb extension itself: a .debug_gdb_scripts
 * section holding its text, so that gdb loads it for every program linked
 * with libcoro (where gdb's auto-load safe-path allows).
 */
#define _GNU_SOURCE   /* syscall */

#include "coro_internal.h"
#include "coro_sched.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One thread's instances. */
struct coro_registry {
  struct coro_live ring;         /* sentinel of the ring of the thread's live instances */
  struct coro_registry *next;    /* the next thread's registry (coro_registries) */
  struct sched *sched;           /* the thread's scheduler: its timers and its clock */
  long tid;                      /* the thread's id, as gdb's "LWP" */
  int exited;                    /* the thread is gone; its instances were never freed */
};

/* Every registry, newest first: where the gdb extension starts. */
struct coro_registry *coro_registries;

static pthread_mutex_t registries_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static pthread_key_t registry_key;   /* ends a thread's registry when the thread exits */
static _Thread_local struct coro_registry *tls_registry __attribute__((tls_model("initial-exec")));

/* A thread exits: an empty registry goes, one with instances left stays
   (they still point into its ring), marked as the registry of a gone thread. */
static void registry_end(void *arg) {
  struct coro_registry *r = arg;
  pthread_mutex_lock(&registries_lock);
  if (r->ring.next != &r->ring) {
    r->exited = 1;
    pthread_mutex_unlock(&registries_lock);
    return;
  }
  struct coro_registry **p = &coro_registries;
  while (*p != r)
    p = &(*p)->next;
  *p = r->next;
  pthread_mutex_unlock(&registries_lock);
  free(r);
}

static void registry_key_make(void) {
  pthread_key_create(&registry_key, registry_end);
}

/* The thread's first instance: its registry, linked where gdb finds it. */
static __attribute__((noinline, cold)) struct coro_registry *registry_start(void) {
  struct coro_registry *r = calloc(1, sizeof *r);
  if (!r)
    coro_fatal("coro_frame_new", "out of memory for the registry of live instances");
  r->ring.next = r->ring.prev = &r->ring;
  r->sched = &sched_self;
  r->tid = (long)syscall(SYS_gettid);
  pthread_once(&registry_once, registry_key_make);
  pthread_setspecific(registry_key, r);
  pthread_mutex_lock(&registries_lock);
  r->next = coro_registries;
  coro_registries = r;
  pthread_mutex_unlock(&registries_lock);
  tls_registry = r;
  return r;
}

/* Why a record in front and not fields in struct coro: the header stays the
   64 bytes that generated frames and the resume path are laid out around,
   and coroc's frame sizes (--stats) are unchanged. */
void *coro_live_alloc(size_t size, size_t align) {
  size_t front = sizeof(struct coro_live);   /* 32: keeps a 16-byte alignment */
  if (align > front)
    front = align;
  char *p = align <= _Alignof(max_align_t)
                ? malloc(front + size)
                : aligned_alloc(align, (front + size + align - 1) / align * align);
  if (!p)
    return NULL;
  coro_t *c = (coro_t *)(p + front);
  memset(c, 0, size);   /* the instance; every field of the record is set below */
  c->registered = 1;
  struct coro_registry *r = tls_registry;
  if (__builtin_expect(!r, 0))
    r = registry_start();
  struct coro_live *n = (struct coro_live *)c - 1;
  n->next = r->ring.next;
  n->prev = &r->ring;
  n->waiting_on = NULL;
  n->offset = front;
  r->ring.next->prev = n;
  r->ring.next = n;
  return c;
}

void coro_live_free(coro_t *c) {
  struct coro_live *n = (struct coro_live *)c - 1;
  n->prev->next = n->next;
  n->next->prev = n->prev;
  free((char *)c - n->offset);
}

_Static_assert(sizeof(struct coro_live) % 16 == 0, "coro_live keeps the instance 16-byte aligned");

/* {==================================================================
 * The gdb extension, in the programs that link libcoro
 *
 * A .debug_gdb_scripts entry of kind 4 is a script's name on one line and
 * then its text; gdb runs it when it loads the program (if the program lies
 * in gdb's auto-load safe-path: docs/debugging.md). The linker keeps one
 * copy however many objects hold it (the section merges equal strings).
 * CORO_GDB_SCRIPT is the path of runtime/gdb/coroc-gdb.py, from CMake.
 * =================================================================== */
#if defined(CORO_GDB_SCRIPT) && defined(__ELF__)
__asm__(".pushsection \".debug_gdb_scripts\", \"MS\", %progbits, 1\n"
        ".byte 4\n"
        ".ascii \"coroc-gdb.py\\n\"\n"
        ".incbin \"" CORO_GDB_SCRIPT "\"\n"
        ".byte 0\n"
        ".popsection\n");
#endif

/* }================================================================== */
