/* coro_stack.h: what the files of the stackful backend share, and no other
 * file includes.
 *
 * A stackful instance is a struct stackful (below). Its stack is a slot of
 * a slab (stack_slabs.c), handed to it and taken back through its thread's
 * cache of stacks (stack_cache.c), with a guard page whose fault is reported
 * (stack_guard.c); or it is its thread's shared stack (stack_shared.c).
 * stackful.c makes instances and runs their bodies. The four memory files
 * sit in the runtime's memory layer and call nothing of stackful.c, which
 * sits above them with coro.c (tests/layers/layers.txt).
 *
 * These files were one until the split: what the paths of a switch, a
 * resume, a creation and a free inlined across what are now two files is
 * here, inline, so that the split costs them no call. The variables they
 * share are hidden (CORO_STACK_LOCAL, CORO_STACK_TLS): libcoro's own,
 * reached as a file's static ones are.
 */
#ifndef CORO_STACK_H
#define CORO_STACK_H

#include "coro_internal.h"
#include "ctx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* A symbol of these files that no program links to: the compiler reaches it
   directly, as it reached the one file's statics (no GOT, no PLT). A
   thread-local one (CORO_STACK_TLS) is initial-exec: in libcoro's -fPIC
   code, left to itself (or local-dynamic), every function that reads one
   would call __tls_get_addr, which the linker of an executable turns into a
   load but which the compiler sees as a call: coro_stackful_new then kept
   six registers on the stack for it (a stackful generator's life 12%
   slower, docs/abi.md, "Stacks"). They are small (a few hundred
   bytes in all, as registry.c's and trace.c's): a shared object with
   libcoro in it that a program loads with dlopen takes them from glibc's
   reserve of static TLS. Said again at the definition: GCC takes the model
   of a definition without it from the default. */
#define CORO_STACK_LOCAL __attribute__((visibility("hidden")))
#define CORO_STACK_TLS __attribute__((visibility("hidden"), tls_model("initial-exec")))

/* {==================================================================
 * The tools that must be told of stacks and switches (stackful.c, "Tools")
 * =================================================================== */

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>) && __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#define STACKFUL_VALGRIND 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define STACKFUL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACKFUL_ASAN 1
#endif
#endif
#ifdef STACKFUL_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define STACKFUL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STACKFUL_TSAN 1
#endif
#endif
#ifdef STACKFUL_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* }================================================================== */

struct stack_slab; /* stack_slabs.c */

/* An instance of the stackful backend. coro_t * points at its start (as_coro). */
struct stackful {
  struct coro_stackful_head head; /* first: what coro_next, coro_done and coro_free see, and the
                                  task header (coro/gen.h) */
  struct coro_ctx ctx;            /* the body's registers while it is not running */
  /* the resumer's registers while the body runs (right after ctx: coro/gen.h) */
  struct coro_ctx caller;
  void (*entry)(coro_t *c);     /* the generated entry function: unpacks the args, runs the body */
  struct stackful *next_mapped; /* the next instance of this thread with a stack mapped (the
                                   overflow report's list) */
  struct stackful *prev_mapped; /* and the one before */
  /* its slot: guard page, then the stack; NULL until the first resume */
  char *map;
  struct stack_slab *slab; /* the mapping the slot is in */
  size_t map_size;         /* the slot's bytes: guard page + stack */
  int stack_errno;         /* why the last try to get a stack failed (coro_error), or 0 */
  size_t stack_size;       /* usable bytes of stack, a whole number of pages */
  /* keeps its own FP environment: every switch is coro_ctx_switch_fpenv */
  bool own_fpenv;
  bool shared;         /* runs on its thread's shared stack (coro_set_shared_stack) */
  bool shared_default; /* shared by the thread's default, not by coro_set_shared_stack */
  /* shared: its frames are on the shared stack now (the gdb extension reads it) */
  bool on_stack;
  char *copy; /* shared: its frames while another instance has the stack */
  /* their bytes (the buffer is that big); 0: on the stack, or not started */
  size_t copy_size;
  /* shared: where the awaitable it waits on is kept (coro_stackful_await_slot) */
  void *await_slot;
  size_t await_cap; /* the slot's bytes */
  /* the thread that made it (coro_stack_thread): only that one keeps it */
  unsigned long maker;
  /* the bytes of its memory (bookkeeping and arguments) and their alignment, */
  size_t bytes;
  size_t align; /*   for the next instance that takes it with its stack (kept) */
#ifdef STACKFUL_VALGRIND
  unsigned vg_stack_id; /* valgrind's id for the registered stack */
#endif
#ifdef STACKFUL_ASAN
  void *asan_fake_stack;          /* ASan's fake stack of the body while it is suspended */
  const void *asan_caller_bottom; /* the resumer's stack, where the body switches back to */
  size_t asan_caller_size;
  char *asan_low; /* about the body's stack pointer when it last switched out */
#endif
#ifdef STACKFUL_TSAN
  /* ThreadSanitizer's fiber of the body: from its first resume to its end */
  void *tsan_fiber;
  void *tsan_caller; /* the fiber that resumed it last, where it switches back to */
  /* what every switch of it releases and acquires (stackful.c, "Tools") */
  char tsan_sync;
#endif
};

static inline coro_t *as_coro(struct stackful *s) {
  return &s->head.task.base;
}

/* A stack whose body ended keeps its start routine, stackful_main, parked
   there: switched out for good by the body's instance, it can be resumed by
   the next instance that takes the stack, and runs that one's body without
   a new context (stackful.c, "Running the body"). Not with the ucontext
   switch (a context is a whole ucontext_t there) nor under AddressSanitizer
   (each body starts on a new fiber of its own, announced from the
   trampoline). Under ThreadSanitizer the TSan fiber that ran the body stays
   with the parked context, for the next body (stackful.c, "Tools"). */
#if !defined(CORO_SWITCH_UCONTEXT) && !defined(STACKFUL_ASAN)
#define STACKFUL_PARK 1
#endif

/* Instances kept whole with their stacks, for the next instance of the
   thread (stack_cache.c, "Kept instances"): at most STACK_CACHE stacks in
   all, kept bare or with their instance. Not under AddressSanitizer (whose
   instances are each a malloc of their own anyway), nor where instances
   keep their own FP environment by default. */
#if !defined(STACKFUL_ASAN) && !defined(CORO_SAVE_FPENV)
#define STACKFUL_KEEP 1
#endif

/* The body's fiber goes, once nothing will run on it: not the current one
   (stackful.c, "Tools"). */
static inline void tsan_fiber_end(struct stackful *s) {
#ifdef STACKFUL_TSAN
  if (s->tsan_fiber) {
    __tsan_destroy_fiber(s->tsan_fiber);
    s->tsan_fiber = NULL;
  }
#else
  (void)s;
#endif
}

/* {==================================================================
 * stack_slabs.c: slots of stacks, each with its guard page
 * =================================================================== */

/* The page size, asked of the system once (creating an instance needs it,
   and sysconf is a call into libc each time). */
extern size_t coro_stack_page CORO_STACK_LOCAL;

static inline size_t page_size(void) {
  size_t p = __atomic_load_n(&coro_stack_page, __ATOMIC_RELAXED);
  if (__builtin_expect(p == 0, 0)) {
    p = (size_t)sysconf(_SC_PAGESIZE);
    __atomic_store_n(&coro_stack_page, p, __ATOMIC_RELAXED);
  }
  return p;
}

/* A slot of slot_size bytes (guard page first): its address, or NULL with
   errno set (ENOMEM: out of memory, or out of mappings). And giving it back
   to its slab, its stack's pages to the kernel. */
char *coro_stack_slot_take(size_t slot_size, struct stack_slab **owner) CORO_STACK_LOCAL;
void coro_stack_slot_give(struct stack_slab *b, char *slot) CORO_STACK_LOCAL;

/* }================================================================== */

/* {==================================================================
 * stack_cache.c: an instance's stack, and the stacks a thread keeps
 * =================================================================== */

#define STACK_CACHE 16 /* stacks a thread keeps, bare or with their instance */

/* The instances of this thread that have a stack mapped, for the overflow
   report: kept when a stack is mapped or unmapped, never on the resume path.
   initial-exec: safe to read in a signal handler. */
extern _Thread_local struct stackful *coro_stack_mapped CORO_STACK_LOCAL
    __attribute__((tls_model("initial-exec")));

static inline void mapped_add(struct stackful *s) {
  s->prev_mapped = NULL;
  s->next_mapped = coro_stack_mapped;
  if (coro_stack_mapped)
    coro_stack_mapped->prev_mapped = s;
  coro_stack_mapped = s;
}

/* How many freed stacks this thread keeps bare (the cache of stacks). */
extern _Thread_local int coro_stack_cached CORO_STACK_TLS;

/* A cached stack of map_size bytes for s (its slot and slab set), the
   newest first; with a parked stackful_main, its context is copied to
   *worker and the answer is 2; 1 without; 0: none of that size. */
int coro_stack_from_cache(struct stackful *s, size_t map_size,
                          struct coro_ctx *worker) CORO_STACK_LOCAL;

/* The instance's stack, from the cache or a slab. False, with s->stack_errno
   set, when the kernel refuses it: nothing has changed then. And giving it
   back, to the cache or its slab. */
bool coro_stack_map(struct stackful *s) CORO_STACK_LOCAL;
void coro_stack_unmap(struct stackful *s) CORO_STACK_LOCAL;

/* What coro_error says of an instance that could not get its stack: the
   limit it ran into and what to change. Into buf. */
const char *coro_stack_error_text(const struct stackful *s, char *buf,
                                  size_t size) CORO_STACK_LOCAL;

/* The instances kept whole with their stacks, the newest last. */
#ifdef STACKFUL_KEEP
extern _Thread_local struct stackful *coro_stack_kept[STACK_CACHE] CORO_STACK_TLS;
extern _Thread_local int coro_stack_kept_n CORO_STACK_TLS;
#endif

/* The thread's end gives back what it keeps (stack_cache.c): said to
   coro_thread.h at the first stack given back to its cache or instance
   kept, before it. */
extern _Thread_local bool coro_stack_end_held CORO_STACK_TLS;
void coro_stack_hold_end(void) CORO_STACK_LOCAL;

static inline void stack_hold_end(void) {
  if (__builtin_expect(!coro_stack_end_held, 0))
    coro_stack_hold_end();
}

/* This thread's number among those that made stackful instances (from 1,
   never used again: a thread that ended and a new one are told apart),
   given at its first; 0 until then. Only the thread that made an instance
   keeps it. */
extern _Thread_local unsigned long coro_stack_thread CORO_STACK_TLS;
extern unsigned long coro_stack_threads CORO_STACK_LOCAL;

/* }================================================================== */

/* {==================================================================
 * stack_guard.c: the report of a stack overflow
 * =================================================================== */

/* This thread has a signal stack (ours or its own), and the process the
   SIGSEGV handler: set by coro_stack_guard_thread. */
extern _Thread_local char coro_stack_guard_checked CORO_STACK_TLS;
void coro_stack_guard_thread(void) CORO_STACK_LOCAL;

/* Lazily at the thread's first stackful start: the overflow report. */
static inline void guard_install(void) {
  if (__builtin_expect(coro_stack_guard_checked, 1))
    return;
  coro_stack_guard_thread();
}

/* }================================================================== */

/* {==================================================================
 * stack_shared.c: the thread's shared stack
 * =================================================================== */

/* bytes of the shared stack: one per thread, so it can be roomy */
#define SHARED_STACK (1024 * 1024)

/* The stale-pointer check of debug builds (libcoro compiled without NDEBUG;
   not under AddressSanitizer, which poisons the frames itself, nor under
   valgrind, whose memcheck sees the place as below a stack pointer): what is
   below the suspended owner's frames and held the frames of an instance
   copied out since is filled with SHARED_POISON whenever a shared-stack
   instance switches back, and must still hold it when the next one is
   resumed. Nothing may write there in between but a pointer into the
   frames of a suspended instance. */
#if !defined(NDEBUG) && !defined(STACKFUL_ASAN)
#define STACKFUL_SHARED_CHECK 1
#define SHARED_POISON 0xa5 /* the byte the vacated part holds */
#define SHARED_VACATED 16  /* the instances copied out last that the check names */
#endif

struct stack_shared {
  char *map;               /* its slot (guard page, then the stack), NULL until first needed */
  struct stack_slab *slab; /* the slab of that slot (kept for the thread's life) */
  struct coro_stack_stats stats; /* coro_shared_stack_stats */
#ifdef STACKFUL_SHARED_CHECK
  struct {
    const struct stackful *s; /* an instance copied out (NULL: entry free) */
    char *sp;                 /* where its frames began on the shared stack */
  } vacated[SHARED_VACATED];  /* the last ones copied out, still out; the newest at [last] */
  unsigned last;
  char *poison_lo, *poison_hi; /* [lo, hi) holds SHARED_POISON, or lo == hi */
#endif
};
/* aligned(16): as GCC aligns a file's own static of this size, and as the
   resume that counts the copies in (shared_enter) adds both counts at once. */
extern _Thread_local struct stack_shared coro_stack_shared CORO_STACK_TLS
    __attribute__((aligned(16)));

/* The shared-stack instance whose frames are on this thread's shared stack. */
extern _Thread_local struct stackful *coro_stack_shared_owner CORO_STACK_LOCAL
    __attribute__((tls_model("initial-exec")));

/* Where the saved stack pointer of a suspended context is. */
static inline char *ctx_sp(const struct coro_ctx *ctx) {
#if defined(CORO_SWITCH_UCONTEXT)
  coro_fatal("coro_next", "no shared stacks with the ucontext switch (context %p)",
             (const void *)ctx);
  /* never reached: coro_set_shared_stack refuses in this build */
#elif defined(__x86_64__)
  return (char *)(uintptr_t)ctx->rsp;
#else
  return (char *)(uintptr_t)ctx->sp;
#endif
}

/* A copy that AddressSanitizer does not check: a stack holds the redzones
   of its frames, which are poisoned while they are live. */
#ifdef STACKFUL_ASAN
void coro_stack_copy(char *dst, const char *src, size_t n) CORO_STACK_LOCAL;
#define stack_copy coro_stack_copy
#else
/* (Under ThreadSanitizer: the resumer's reads and writes, checked, and
   ordered after the body's own by the switch. A write into a suspended
   instance's frames from another thread that did not synchronise with the
   body is reported, here or at the write, as the race it is.) */
#define stack_copy memcpy
#endif

/* Whether the code calling this runs on this thread's shared stack. */
static inline bool on_shared_stack(void) {
  char *here = __builtin_frame_address(0);
  return coro_stack_shared.map && here >= coro_stack_shared.map &&
         here < coro_stack_shared.map + SHARED_STACK + page_size();
}

/* Refuse to copy over the stack we run on. */
static inline void shared_check_caller(void) {
  if (on_shared_stack())
    coro_fatal("coro_next",
               "a shared-stack instance cannot resume another shared-stack instance "
               "(give one of them a stack of its own: coro_set_shared_stack(c, false))");
}

/* The first resume of a shared-stack instance: the thread's shared stack
   (taken now if this is its first), its owner's frames copied out; false
   when there is no stack to be had. Copying the owner's frames out, and
   (ASan) the part of the shared stack an entering instance may use
   unpoisoned. */
bool coro_stack_shared_start(struct stackful *s) CORO_STACK_LOCAL;
void coro_stack_shared_evict(struct stackful *o) CORO_STACK_LOCAL;
#ifdef STACKFUL_ASAN
void coro_stack_shared_unpoison(char *top, size_t used) CORO_STACK_LOCAL;
#endif

/* The stale-pointer check: o is back on the shared stack, or freed; a
   shared-stack instance switched back with its frames from sp up; one is
   about to be resumed. */
#ifdef STACKFUL_SHARED_CHECK
void coro_stack_shared_forget(const struct stackful *o) CORO_STACK_LOCAL;
void coro_stack_shared_poison(char *sp) CORO_STACK_LOCAL;
void coro_stack_shared_check(void) CORO_STACK_LOCAL;
#endif

/* Make s the owner of the shared stack, its frames back in place (a resume
   of s: stackful.c, stackful_resume). */
static inline void shared_enter(struct stackful *s) {
  shared_check_caller();
  if (coro_stack_shared_owner)
    coro_stack_shared_evict(coro_stack_shared_owner);
  if (s->copy_size) {
    char *top = s->map + s->map_size;
#ifdef STACKFUL_VALGRIND
    /* below that stack's last sp: ours again */
    VALGRIND_MAKE_MEM_UNDEFINED(top - s->copy_size, s->copy_size);
#endif
#ifdef STACKFUL_ASAN
    coro_stack_shared_unpoison(top, s->copy_size); /* its frames' redzones are not restored */
#endif
    stack_copy(top - s->copy_size, s->copy, s->copy_size);
    coro_stack_shared.stats.copies_in++;
    coro_stack_shared.stats.bytes_in += s->copy_size;
  }
  s->on_stack = true;
  coro_stack_shared_owner = s;
#ifdef STACKFUL_SHARED_CHECK
  coro_stack_shared_forget(s);
#endif
}

/* }================================================================== */

#endif
