/* registry.c: where instances live, and where a debugger finds them.
 *
 * Every instance (a stackless frame, a stackful instance's bookkeeping) is
 * one piece of memory, made by coro_frame_new and given back by coro_free.
 * Most are small and many are alive at once (a server's connections, ten
 * million suspended generators), so what each costs besides its own bytes
 * matters: malloc adds 8 bytes and rounds to 16, and a debugger's list of
 * live instances would add two pointers more. The small ones come instead
 * from slabs, one set per thread, which are at the same time that list:
 *
 *   coro_registries -> registry of thread 1 -> registry of thread 2 -> ...
 *                        slabs: slab <-> slab <-> ... (a ring)
 *                        ring:  live <-> live <-> ... (the large ones)
 *
 *   slab (64 KiB, aligned):  [ struct coro_slab | slot | slot | slot | ... | never used ]
 *                            (slabs are mapped 64 at a time, an arena of 4 MiB)
 *                                                  ^ coro_t *, 16..512 bytes, all of one size
 *   large (malloc):          [ padding | struct coro_live | the instance ]
 *
 * A slot costs its size rounded up to 8 bytes (16 for a frame aligned to
 * 16), and nothing else: the two-int generator's 32 bytes are 32 bytes
 * (docs/benchmarks.md, part 7). A
 * live slot's first word is its resume function; a free one's is NULL
 * (its second word links it into its slab's list of free slots), so the gdb
 * extension finds the live ones by walking the slabs. Instances larger than
 * 512 bytes or aligned beyond 16 take malloc and carry a struct coro_live in
 * front, in a ring of their own. Everything takes plain malloc (each with
 * its record in front) under AddressSanitizer and valgrind, so that both see
 * a use of a freed instance, and when libcoro is built with
 * -DCOROC_FRAME_MALLOC=ON.
 *
 * An instance must be freed on the thread that made it, as the schedulers,
 * which are per thread, do anyway: coro_free refuses one from a slab of
 * another thread, saying so. Nothing here takes a lock but the start and the
 * end of a thread.
 *
 * This file also carries the gdb extension itself: a .debug_gdb_scripts
 * section holding its text, so that gdb loads it for every program linked
 * with libcoro (where gdb's auto-load safe-path allows).
 */
#define _GNU_SOURCE /* syscall */

#include "coro_internal.h"
#include "coro_trace.h"
#include "coro_sched.h"
#include "coro_thread.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define REGISTRY_VALGRIND 1
#endif
#endif

/* Plain malloc for every instance: asked for, or under AddressSanitizer
   (which then sees each frame as an allocation of its own). */
#if defined(CORO_FRAME_MALLOC) || defined(__SANITIZE_ADDRESS__)
#define REGISTRY_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REGISTRY_PLAIN 1
#endif
#endif

enum {
  SLAB_BYTES = 64 * 1024, /* a slab: its header, then slots; aligned to its size */
  /* slabs are mapped 64 at a time (4 MiB): few entries in the process's map */
  ARENA_SLABS = 64,
  /* slot sizes are multiples of this; those of 16 give 16-byte aligned slots */
  SLOT_STEP = 8,
  SLOT_CLASSES = 64, /* slots of 8, 16, ... 512 bytes (an instance has at least 16) */
  SLOT_ALIGN = 16,   /* the largest alignment a slot gives */
  SLOT_MAX = SLOT_STEP * SLOT_CLASSES,
};

/* One slab: slots of one size. Its first `carved` slots have been handed out
   at least once; the rest were never touched (and so cost no memory yet). */
struct coro_slab {
  /* every slab of the thread: a ring through its registry */
  struct coro_slab *next, *prev;
  /* the slabs of its size with a free slot (registry's room) */
  struct coro_slab *next_room, *prev_room;
  struct coro_registry *owner; /* the thread that made it */
  void *free;                  /* freed slots, linked through their second word */
  unsigned slot_size;          /* bytes of each slot */
  unsigned first;              /* from the slab's start to its first slot */
  unsigned capacity;           /* slots in all */
  unsigned carved;             /* slots handed out at least once, from the first */
  unsigned used;               /* live slots */
  unsigned size_class;         /* slot_size / SLOT_STEP - 1 */
};

/* One thread's instances. */
struct coro_registry {
  struct coro_slab slabs;               /* sentinel of the ring of the thread's slabs */
  struct coro_live ring;                /* sentinel of the ring of its malloc'ed instances */
  struct coro_slab *room[SLOT_CLASSES]; /* per slot size, the slabs with a free slot */
  struct coro_registry *next;           /* the next thread's registry (coro_registries) */
  struct sched *sched;          /* the thread's scheduler, once it has a task or a source (its
                                   ready queue, timers and clock), else NULL: the scheduler
                                   says so itself (coro_registry_note_sched) */
  long tid;                     /* the thread's id, as gdb's "LWP" */
  int exited;                   /* the thread is gone; its instances were never freed */
  int plain;                    /* every instance from malloc (see the top) */
  char *arena_next, *arena_end; /* the part of the newest arena no slab has used yet */
  struct coro_slab *spare;      /* slabs given back, their memory returned, to use again */
  char **arenas;                /* every arena of the thread, for its end */
  size_t narenas;
  struct coro_allocator allocator; /* coro_set_allocator; alloc NULL: the slabs */
};

/* Every registry, newest first: where the gdb extension starts. */
struct coro_registry *coro_registries;

static pthread_mutex_t registries_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local struct coro_registry *tls_registry __attribute__((tls_model("initial-exec")));

/* The small frame this thread freed last, kept out of its slab for the next
   frame of its size: a life that frees what the last one made (a generator
   made, drained and freed in a loop: docs/benchmarks.md, part 9) then takes
   it back with one load, not through its registry, slab and free list. It
   still counts as used in its slab, and reads as free (its resume is NULL)
   to the gdb extension and coro_registry_each. Given back to its slab
   before anything that counts the slabs' slots or changes where frames
   come from: an allocator set, the thread's end (frame_kept_return). */
static _Thread_local coro_t *frame_kept __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned frame_kept_class __attribute__((tls_model("initial-exec")));
static void frame_kept_return(struct coro_registry *r);

/* {==================================================================
 * A thread's registry
 * =================================================================== */

static bool registry_empty(const struct coro_registry *r) {
  if (r->ring.next != &r->ring)
    return false;
  for (const struct coro_slab *s = r->slabs.next; s != &r->slabs; s = s->next)
    if (s->used)
      return false;
  return true;
}

/* A thread exits: an empty registry goes with its slabs, one with instances
   left stays (they still point into it), marked as the registry of a gone
   thread. The last part of the thread to end (coro_thread.h): the stackful
   instances kept for the thread's next ones gave their slots back first. */
static void registry_end(void *arg) {
  struct coro_registry *r = arg;
  frame_kept_return(r);
  pthread_mutex_lock(&registries_lock);
  if (!registry_empty(r)) {
    r->exited = 1;
    pthread_mutex_unlock(&registries_lock);
    return;
  }
  struct coro_registry **p = &coro_registries;
  while (*p != r)
    p = &(*p)->next;
  *p = r->next;
  pthread_mutex_unlock(&registries_lock);
  for (size_t i = 0; i < r->narenas; i++)
    munmap(r->arenas[i], (size_t)ARENA_SLABS * SLAB_BYTES);
  free(r->arenas);
  free(r);
}

/* The thread's first instance: its registry, linked where gdb finds it. */
static __attribute__((noinline, cold)) struct coro_registry *registry_start(void) {
  coro_trace_env(); /* (CORO_TRACE, at the runtime's first use) */
  struct coro_registry *r = calloc(1, sizeof *r);
  if (!r)
    coro_fatal("coro_frame_new", "out of memory for the registry of live instances");
  r->slabs.next = r->slabs.prev = &r->slabs;
  r->ring.next = r->ring.prev = &r->ring;
  r->tid = (long)syscall(SYS_gettid);
#if defined(REGISTRY_PLAIN)
  r->plain = 1;
#elif defined(REGISTRY_VALGRIND)
  r->plain = RUNNING_ON_VALGRIND != 0; /* memcheck then sees every frame as a block of its own */
#endif
  coro_thread_holds(CORO_THREAD_REGISTRY, registry_end, r);
  pthread_mutex_lock(&registries_lock);
  r->next = coro_registries;
  coro_registries = r;
  pthread_mutex_unlock(&registries_lock);
  tls_registry = r;
  return r;
}

/* The scheduler of this thread has work (sched.c, on its first task or
   source): the gdb extension finds its ready queue and timers here. The
   scheduler tells the registry, and not the other way round, because the
   slabs sit below everything that runs. */
void coro_registry_note_sched(struct sched *s) {
  struct coro_registry *r = tls_registry;
  if (!r)
    r = registry_start();
  r->sched = s;
}

/* Each live instance of this thread: fn(c, arg), the slabs' in their order,
   then the others' (coro_cancel_all finds the tasks left this way, as the
   gdb extension does: the slabs are already the list of live instances). */
void coro_registry_each(void (*fn)(coro_t *c, void *arg), void *arg) {
  struct coro_registry *r = tls_registry;
  if (!r)
    return;
  for (struct coro_slab *s = r->slabs.next; s != &r->slabs; s = s->next)
    for (unsigned i = 0; i < s->carved; i++) {
      coro_t *c = (coro_t *)((char *)s + s->first + (size_t)i * s->slot_size);
      if (c->resume) /* (a free slot's first word is NULL) */
        fn(c, arg);
    }
  for (struct coro_live *n = r->ring.next; n != &r->ring; n = n->next)
    fn((coro_t *)(n + 1), arg);
}

/* }================================================================== */

/* {==================================================================
 * Slabs
 * =================================================================== */

static void room_add(struct coro_registry *r, struct coro_slab *s) {
  struct coro_slab **head = &r->room[s->size_class];
  s->prev_room = NULL;
  s->next_room = *head;
  if (*head)
    (*head)->prev_room = s;
  *head = s;
}

static void room_remove(struct coro_registry *r, struct coro_slab *s) {
  if (s->prev_room)
    s->prev_room->next_room = s->next_room;
  else
    r->room[s->size_class] = s->next_room;
  if (s->next_room)
    s->next_room->prev_room = s->prev_room;
  s->next_room = s->prev_room = NULL;
}

/* A new arena: ARENA_SLABS slabs, aligned to SLAB_BYTES (so that a slot
   finds its slab by rounding its address down): mapped a slab larger, and
   the ends trimmed. Its pages cost nothing until a slab's slots touch them. */
static bool arena_new(struct coro_registry *r) {
  size_t size = (size_t)ARENA_SLABS * SLAB_BYTES;
  char **arenas = realloc(r->arenas, (r->narenas + 1) * sizeof *arenas);
  if (!arenas)
    return false;
  r->arenas = arenas;
  char *map =
      mmap(NULL, size + SLAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return false;
  char *start = (char *)(((uintptr_t)map + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
  if (start > map)
    munmap(map, (size_t)(start - map));
  if (start + size < map + size + SLAB_BYTES)
    munmap(start + size, (size_t)(map + size + SLAB_BYTES - (start + size)));
  r->arenas[r->narenas++] = start;
  r->arena_next = start;
  r->arena_end = start + size;
  return true;
}

/* A slab for slots of class k: one given back before, or the next of the
   arena (fresh pages read as zero; a spare one's were returned but its
   header page, which is set again here). */
static struct coro_slab *slab_new(struct coro_registry *r, unsigned k) {
  struct coro_slab *s = r->spare;
  if (s) {
    r->spare = s->next;
  } else {
    if (r->arena_next == r->arena_end && !arena_new(r))
      return NULL;
    s = (struct coro_slab *)r->arena_next;
    r->arena_next += SLAB_BYTES;
  }
  *s = (struct coro_slab){.owner = r, .size_class = k, .slot_size = (k + 1) * SLOT_STEP};
  s->first = (sizeof *s + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
  s->capacity = (SLAB_BYTES - s->first) / s->slot_size;
  s->next = r->slabs.next;
  s->prev = &r->slabs;
  r->slabs.next->prev = s;
  r->slabs.next = s;
  room_add(r, s);
  return s;
}

/* An empty slab: out of the lists, its memory given back to the system
   (all but the page of its header, which links it among the spares). */
static void slab_free(struct coro_registry *r, struct coro_slab *s) {
  room_remove(r, s);
  s->prev->next = s->next;
  s->next->prev = s->prev;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  madvise((char *)s + page, SLAB_BYTES - page, MADV_DONTNEED);
  s->next = r->spare;
  r->spare = s;
}

static void *slot_alloc(struct coro_registry *r, size_t size) {
  unsigned k = (unsigned)((size - 1) / SLOT_STEP);
  struct coro_slab *s = r->room[k];
  if (__builtin_expect(!s, 0) && !(s = slab_new(r, k)))
    return NULL;
  char *slot;
  if (s->free) {
    slot = s->free;
    s->free = *(void **)(slot + sizeof(void *));
  } else {
    slot = (char *)s + s->first + (size_t)s->carved++ * s->slot_size;
  }
  if (++s->used == s->capacity)
    room_remove(r, s); /* full: the next instance looks elsewhere */
  return slot;
}

/* The slab a slot lies in (slabs are aligned to their size). */
static struct coro_slab *slab_of(const coro_t *c) {
  return (struct coro_slab *)((uintptr_t)c & ~(uintptr_t)(SLAB_BYTES - 1));
}

static void slot_free(struct coro_registry *r, coro_t *c) {
  struct coro_slab *s = slab_of(c);
  if (__builtin_expect(s->owner != r, 0))
    coro_fatal("coro_free",
               "instance %p was made on thread %ld and is freed on thread %ld: an "
               "instance is freed on the thread that made it",
               (void *)c, s->owner->tid, r ? r->tid : (long)syscall(SYS_gettid));
  c->resume = NULL; /* not live: the gdb extension skips it */
  *(void **)((char *)c + sizeof(void *)) = s->free;
  s->free = c;
  if (s->used-- == s->capacity)
    room_add(r, s);
  else if (s->used == 0 && (s->next_room || s->prev_room))
    slab_free(r, s); /* empty, and not the only one of its size with room: give it back */
}

/* }================================================================== */

/* {==================================================================
 * Instances
 * =================================================================== */

/* An instance on malloc, or from the thread's allocator, its record in
   front, in the ring of large ones. */
static void *live_alloc(struct coro_registry *r, size_t size, size_t align) {
  size_t front = sizeof(struct coro_live); /* 48: keeps a 16-byte alignment */
  if (align > SLOT_ALIGN)
    front = (front + align - 1) / align * align; /* and the frame's own beyond that */
  size_t bytes = front + size;
  const struct coro_allocator *a = &r->allocator;
  char *p;
  if (a->alloc) {
    p = a->alloc(bytes, align > SLOT_ALIGN ? align : SLOT_ALIGN, a->ctx);
  } else if (align <= _Alignof(max_align_t)) {
    p = malloc(bytes);
  } else {
    bytes = (bytes + align - 1) / align * align;
    p = aligned_alloc(align, bytes);
  }
  if (!p)
    return NULL;
  struct coro_live *n = (struct coro_live *)(p + front) - 1;
  n->next = r->ring.next;
  n->prev = &r->ring;
  n->bytes = bytes;
  n->offset = front;
  n->free = a->alloc ? a->free : NULL;
  n->ctx = a->ctx;
  r->ring.next->prev = n;
  r->ring.next = n;
  return n + 1;
}

static void live_free(coro_t *c) {
  struct coro_live *n = (struct coro_live *)c - 1;
  n->prev->next = n->next;
  n->next->prev = n->prev;
  if (n->free)
    n->free((char *)c - n->offset, n->bytes, n->ctx);
  else
    free((char *)c - n->offset);
}

void coro_instance_allocator(const struct coro_allocator *a) {
  struct coro_registry *r = tls_registry;
  if (!r)
    r = registry_start();
  frame_kept_return(r);
  r->allocator = a ? *a : (struct coro_allocator){0};
}

coro_t *coro_instance_alloc(size_t size, size_t align) {
  struct coro_registry *r = tls_registry;
  if (__builtin_expect(!r, 0))
    r = registry_start();
  bool slot = size <= SLOT_MAX && align <= SLOT_ALIGN && !r->plain && !r->allocator.alloc;
  size_t slot_size = align > SLOT_STEP ? (size + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN : size;
  coro_t *c = slot ? slot_alloc(r, slot_size) : live_alloc(r, size, align);
  if (!c)
    return NULL;
  memset(c, 0, size); /* a fresh frame reads as zeros */
  c->home = slot ? CORO_HOME_SLAB : CORO_HOME_MALLOC;
  return c;
}

static void frame_kept_return(struct coro_registry *r) {
  coro_t *c = frame_kept;
  frame_kept = NULL;
  if (c)
    slot_free(r, c);
}

/* A slot freed: kept (above) when none is and no allocator is set, once it
   is known to be this thread's (slot_free says whose it is otherwise). */
static void frame_free_slot(coro_t *c) {
  struct coro_registry *r = tls_registry;
  struct coro_slab *s = slab_of(c);
  if (frame_kept || s->owner != r || r->allocator.alloc) {
    slot_free(r, c);
    return;
  }
  c->resume = NULL; /* not live: the gdb extension skips it */
  frame_kept_class = s->size_class;
  frame_kept = c;
}

void coro_instance_free(coro_t *c) {
  if (c->home == CORO_HOME_SLAB)
    frame_free_slot(c);
  else if (c->home == CORO_HOME_MALLOC)
    live_free(c);
  /* CORO_HOME_NONE: the memory is its maker's (a child inside its parent) */
}

/* A fresh frame reads as zeros, so a bug that reads a local before the body
   set it is repeatable rather than random. Zeroed here word by word after
   its 16-byte header, which coro_header_set writes whole: a frame is a few words
   (its size a multiple of 8, since its header holds a pointer), for which
   memset's call and its choice of method cost more than the stores (the
   empty asm keeps the compiler from making the loop that call again). */
static void frame_zero(coro_t *c, size_t size) {
  uint64_t *w = (uint64_t *)c;
  for (size_t i = sizeof *c / sizeof *w; i < size / sizeof *w; i++) {
    w[i] = 0;
    __asm__("" ::: "memory");
  }
}

/* A frame from a free slot of a slab with room, when there is one, with
   nothing on the way but the slot's list and the counts. Everything else
   (a new slab, a carved slot, malloc, the thread's allocator) takes
   coro_instance_alloc. */
static coro_t *frame_from_free_slot(size_t size, size_t align) {
  struct coro_registry *r = tls_registry;
  if (__builtin_expect(!r || size > SLOT_MAX || align > SLOT_STEP || r->plain || r->allocator.alloc,
                       0))
    return NULL;
  struct coro_slab *s = r->room[(size - 1) / SLOT_STEP];
  if (!s || !s->free)
    return NULL;
  coro_t *c = s->free;
  s->free = *(void **)((char *)c + sizeof(void *));
  if (++s->used == s->capacity)
    room_remove(r, s); /* full: the next instance looks elsewhere */
  frame_zero(c, size);
  return c;
}

/* The rest of coro_frame_new, out of its way: a slot that is not free yet,
   malloc, the thread's allocator; and a trace's record. */
static __attribute__((noinline)) coro_t *frame_new_slow(size_t size, size_t align,
                                                        bool (*resume)(coro_t *c, void *out),
                                                        enum coro_kind kind, coro_t *c) {
  enum coro_home home = CORO_HOME_SLAB; /* a free slot's (its header not written yet) */
  if (!c) {
    if (!(c = coro_instance_alloc(size, align)))
      coro_fatal("coro_frame_new", "out of memory for a frame of %zu bytes", size);
    home = (enum coro_home)c->home;
  }
  coro_header_set(c, resume, kind, home);
  if (coro_trace_active && !(kind & CORO_STACKFUL))
    coro_trace_create(c); /* (a stackful one once its entry is set: stackful.c) */
  return c;
}

/* A frame from a slab's free slot, or the slow way. */
static __attribute__((noinline)) coro_t *frame_new_slot(size_t size, size_t align,
                                                        bool (*resume)(coro_t *c, void *out),
                                                        enum coro_kind kind) {
  coro_t *c = frame_from_free_slot(size, align);
  if (__builtin_expect(!c || coro_trace_active, 0))
    return frame_new_slow(size, align, resume, kind, c);
  coro_header_set(c, resume, kind, CORO_HOME_SLAB);
  return c;
}

/* Here, beside the slabs, as the one function a small frame's making is.
   The common case first: the frame this thread freed last fits (a life that
   frees what the last one took: docs/benchmarks.md, part 9), taken with no
   call and no register saved, so that nothing its caller keeps in a
   callee-saved register comes back through memory. (Its freeing, coro_free,
   is the life cycle's: coro.c, which ends in coro_instance_free.) */
coro_t *coro_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out),
                       enum coro_kind kind) {
  coro_t *c = frame_kept;
  if (__builtin_expect(c && frame_kept_class == (size - 1) / SLOT_STEP && align <= SLOT_STEP &&
                           !coro_trace_active,
                       1)) {
    frame_kept = NULL; /* (none is kept while an allocator is set) */
    frame_zero(c, size);
    coro_header_set(c, resume, kind, CORO_HOME_SLAB);
    return c;
  }
  return frame_new_slot(size, align, resume, kind);
}

_Static_assert(sizeof(struct coro_live) % 16 == 0, "coro_live keeps the instance 16-byte aligned");
_Static_assert(sizeof(struct coro) >= 2 * sizeof(void *),
               "a free slot's link fits in any instance");

/* }================================================================== */

/* {==================================================================
 * The gdb extension, in the programs that link libcoro
 *
 * A .debug_gdb_scripts entry of kind 4 is a script's name on one line and
 * then its text; gdb runs it when it loads the program (if the program lies
 * in gdb's auto-load safe-path: docs/debugging.md). The linker keeps one
 * copy however many objects hold it (the section merges equal strings).
 * CORO_GDB_SCRIPT, CORO_GDB_NAMES_SCRIPT and CORO_GDB_WAITS_SCRIPT are the
 * paths of runtime/gdb/coroc-gdb.py, coroc-gdb-names.py and
 * coroc-gdb-waits.py, from CMake: one script, each file's text right after
 * the one before (entries of their own could come out of the linker in any
 * order).
 * =================================================================== */
#if defined(CORO_GDB_SCRIPT) && defined(CORO_GDB_NAMES_SCRIPT) && \
    defined(CORO_GDB_WAITS_SCRIPT) && defined(__ELF__)
__asm__(
    ".pushsection \".debug_gdb_scripts\", \"MS\", %progbits, 1\n"
    ".byte 4\n"
    ".ascii \"coroc-gdb.py\\n\"\n"
    ".incbin \"" CORO_GDB_SCRIPT
    "\"\n"
    ".incbin \"" CORO_GDB_NAMES_SCRIPT
    "\"\n"
    ".incbin \"" CORO_GDB_WAITS_SCRIPT
    "\"\n"
    ".byte 0\n"
    ".popsection\n");
#endif

/* }================================================================== */
