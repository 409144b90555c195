/* stack_cache.c: an instance's stack, and the stacks a thread keeps.
 *
 * A stackful instance gets its stack at its first resume, or at its
 * creation when its thread has one of its size at hand, and gives it back
 * when it is freed: to its thread's cache of stacks, kept touched pages and
 * all for the next instance, or, the cache full, to its slab (stack_slabs.c).
 * An instance freed with its stack is kept whole instead, when it can be,
 * for the next instance of its thread to be made in (Kept instances, below).
 * Here too the list of a thread's instances with a stack mapped, which the
 * overflow report reads (stack_guard.c), and the tools told of each stack
 * mapped and unmapped (valgrind, AddressSanitizer).
 *
 * This is memory: it calls the slabs and the registry (the memory of kept
 * instances), never the running of bodies (stackful.c), which sits above.
 */
#include "coro_stack.h"
#include "coro_thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instances of this thread with a stack mapped (coro_stack.h). */
_Thread_local struct stackful *coro_stack_mapped CORO_STACK_LOCAL
    __attribute__((tls_model("initial-exec")));

/* {==================================================================
 * Tools: valgrind's and AddressSanitizer's idea of a stack
 * =================================================================== */

static void tool_stack_mapped(struct stackful *s) {
#ifdef STACKFUL_VALGRIND
  s->vg_stack_id =
      VALGRIND_STACK_REGISTER(s->map + s->map_size - s->stack_size, s->map + s->map_size);
#else
  (void)s;
#endif
}

/* Before munmap: a body that never finished leaves ASan poison (the redzones
   of its frames) on the stack, and ASan keeps it after munmap, to be wrongly
   reported on whatever is mapped there next. Only frames that have not
   returned are poisoned, and they all lie above the stack pointer of the
   last switch out: unpoisoning just that part keeps ASan from touching the
   shadow of the whole stack (1/8 of its size) for every instance. */
static void tool_stack_unmapping(struct stackful *s) {
#ifdef STACKFUL_VALGRIND
  VALGRIND_STACK_DEREGISTER(s->vg_stack_id);
#endif
#ifdef STACKFUL_ASAN
  char *lo = s->map + s->map_size - s->stack_size, *top = s->map + s->map_size;
  char *from = s->asan_low - page_size();
  if (!s->asan_low || from < lo || from > top)
    from = lo;
  ASAN_UNPOISON_MEMORY_REGION(from, (size_t)(top - from));
#endif
  (void)s;
}

/* }================================================================== */

/* {==================================================================
 * The cache of stacks
 * =================================================================== */

/* A parked context handed from the instance that ended to the next one. On
   x86_64 the saved stack pointer is all that a switch of the thread's FP
   environment reads, and it is copied alone: a 16-byte copy of a context
   whose rsp the switch just stored with an 8-byte store would wait for that
   store to reach the cache (the store cannot be forwarded to a wider load),
   a tenth of a short life. */
#ifdef STACKFUL_PARK
static inline void ctx_hand_over(struct coro_ctx *to, const struct coro_ctx *from) {
#if defined(__x86_64__)
  to->rsp = from->rsp;
#else
  *to = *from;
#endif
}
#endif

/* Freed slots kept by this thread with their pages, for the next instance:
   [0, coro_stack_cached). */
static _Thread_local struct {
  char *map;               /* a slot: guard page, then the stack */
  struct stack_slab *slab; /* its slab */
  size_t size;             /* the slot's bytes (its slab's slot_size) */
#ifdef STACKFUL_PARK
  bool parked; /* stackful_main waits on it, its context in `worker` */
  struct coro_ctx worker;
#ifdef STACKFUL_TSAN
  void *tsan_fiber; /* parked: the TSan fiber that goes with `worker` (stackful.c, Tools) */
#endif
#endif
} stack_cache[STACK_CACHE];
_Thread_local int coro_stack_cached CORO_STACK_TLS;

#ifdef STACKFUL_KEEP
static void kept_drop(int i);
#endif

int coro_stack_from_cache(struct stackful *s, size_t map_size, struct coro_ctx *worker) {
  for (int i = coro_stack_cached - 1; i >= 0; i--)
    if (stack_cache[i].size == map_size) {
      int got = 1;
      s->map = stack_cache[i].map;
      s->slab = stack_cache[i].slab;
      s->map_size = map_size;
#ifdef STACKFUL_PARK
      if (stack_cache[i].parked && worker) {
        ctx_hand_over(worker, &stack_cache[i].worker);
        got = 2;
      }
#ifdef STACKFUL_TSAN
      s->tsan_fiber = stack_cache[i].tsan_fiber; /* with the context, or to be dropped with it: */
      if (got != 2)
        tsan_fiber_end(s);
#endif
#else
      (void)worker;
#endif
      stack_cache[i] = stack_cache[--coro_stack_cached];
      tool_stack_mapped(s);
      return got;
    }
#ifdef STACKFUL_KEEP
  /* a stack kept with an instance that does not fit this one: the stack
     without the instance */
  for (int i = coro_stack_kept_n - 1; i >= 0; i--)
    if (coro_stack_kept[i]->map_size == map_size) {
      kept_drop(i);
      return coro_stack_from_cache(s, map_size, worker);
    }
#endif
  return 0;
}

static void mapped_remove(struct stackful *s) {
  if (s->prev_mapped)
    s->prev_mapped->next_mapped = s->next_mapped;
  else
    coro_stack_mapped = s->next_mapped;
  if (s->next_mapped)
    s->next_mapped->prev_mapped = s->prev_mapped;
}

bool coro_stack_map(struct stackful *s) {
  size_t map_size = s->stack_size + page_size();
  if (coro_stack_from_cache(s, map_size, NULL)) {
    mapped_add(s);
    return true;
  }
  struct stack_slab *b;
  char *slot = coro_stack_slot_take(map_size, &b);
  if (!slot) {
    s->stack_errno = errno ? errno : ENOMEM;
    return false;
  }
  s->map = slot;
  s->slab = b;
  s->map_size = map_size;
  s->stack_errno = 0;
  tool_stack_mapped(s);
  mapped_add(s);
  return true;
}

void coro_stack_unmap(struct stackful *s) {
  mapped_remove(s);
  tool_stack_unmapping(s);
  if (coro_stack_cached < STACK_CACHE) {
    stack_cache[coro_stack_cached].map = s->map;
    stack_cache[coro_stack_cached].size = s->map_size;
    stack_cache[coro_stack_cached].slab = s->slab;
#ifdef STACKFUL_PARK
    /* a body that ended left stackful_main parked, its context in s->ctx */
    stack_cache[coro_stack_cached].parked = as_coro(s)->status == CORO_DONE;
    ctx_hand_over(&stack_cache[coro_stack_cached].worker, &s->ctx);
#ifdef STACKFUL_TSAN
    stack_cache[coro_stack_cached].tsan_fiber =
        stack_cache[coro_stack_cached].parked ? s->tsan_fiber : NULL;
    if (stack_cache[coro_stack_cached].parked)
      s->tsan_fiber = NULL;
#endif
#endif
    coro_stack_cached++;
  } else {
    coro_stack_slot_give(s->slab, s->map);
  }
  tsan_fiber_end(s); /* (a body that did not end: its calls are never left) */
  s->map = NULL;
}

/* }================================================================== */

/* {==================================================================
 * Kept instances
 *
 * An instance freed with its stack mapped keeps both together, a whole
 * instance ready for the next one of its thread: coro_stackful_new takes the
 * newest whose memory and stack are big enough, sets its header, entry and
 * arguments, and is done: no slot of a slab taken and zeroed, no stack
 * looked up, no list of mapped stacks touched (a kept instance stays on
 * it), and, when its body ended, the start routine parked on its stack
 * runs the next body (its mailbox names the instance, the same memory).
 * Only instances of the slabs (home CORO_HOME_SLAB: not in storage their
 * caller gave, not under valgrind or ASan, whose instances are each an
 * allocation of their own, not from an allocator) made by this thread are
 * kept. A kept instance is not live: its resume function is NULL, as a free
 * slot's, so the gdb extension skips it (to the registry it is a slot in
 * use). The thread's allocator, once set, and the thread's end give kept
 * instances back (their stacks to the cache of stacks, or to the slabs at
 * the end).
 * =================================================================== */

/* The instances kept, the newest last: at most STACK_CACHE stacks in all,
   kept bare or with their instance. stackful.c's coro_stackful_new takes
   them (kept_reuse). */
#ifdef STACKFUL_KEEP
_Thread_local struct stackful *coro_stack_kept[STACK_CACHE] CORO_STACK_TLS;
_Thread_local int coro_stack_kept_n CORO_STACK_TLS;
#endif
/* the thread has an allocator (coro_set_allocator): keep none */
static _Thread_local bool tls_keep_off __attribute__((tls_model("initial-exec")));
_Thread_local unsigned long coro_stack_thread CORO_STACK_TLS; /* (given by stackful_setup) */
unsigned long coro_stack_threads CORO_STACK_LOCAL;

#ifdef STACKFUL_KEEP
/* The kept instance i: its stack to the cache of stacks (there is room:
   kept and bare count together), its memory to the registry. */
static void kept_drop(int i) {
  struct stackful *k = coro_stack_kept[i];
  coro_stack_kept[i] = coro_stack_kept[--coro_stack_kept_n];
  coro_stack_unmap(k);
  coro_instance_free(as_coro(k));
}

#endif

void coro_stackful_keep(bool on) {
  tls_keep_off = !on;
#ifdef STACKFUL_KEEP
  if (!on)
    while (coro_stack_kept_n > 0)
      kept_drop(coro_stack_kept_n - 1);
#endif
}

#ifdef STACKFUL_KEEP
/* Is s to be kept whole with its stack (above)? */
static inline bool kept_fits(struct stackful *s) {
  return as_coro(s)->home == CORO_HOME_SLAB && s->map && !s->shared && !s->own_fpenv &&
         s->maker == coro_stack_thread && coro_stack_kept_n + coro_stack_cached < STACK_CACHE &&
         !tls_keep_off;
}

static void kept_add(struct stackful *s) {
  /* not live (the gdb extension skips it); its status says whether it ended */
  as_coro(s)->resume = NULL;
  coro_stack_kept[coro_stack_kept_n++] = s;
}
#endif

static __attribute__((noinline)) void stackful_release_rest(coro_t *c);

/* The common case first: kept, with no call and no register saved (as
   registry.c's coro_frame_new), once the thread's end is seen to. */
void coro_stackful_release(coro_t *c) {
#ifdef STACKFUL_KEEP
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(coro_stack_end_held && kept_fits(s), 1)) {
    kept_add(s);
    return;
  }
#endif
  stackful_release_rest(c);
}

static void stackful_release_rest(coro_t *c) {
  struct stackful *s = (struct stackful *)c;
  stack_hold_end();
#ifdef STACKFUL_KEEP
  if (kept_fits(s)) {
    kept_add(s);
    return;
  }
#endif
  if (s->shared) { /* (its slot is the thread's shared stack, kept) */
    if (coro_stack_shared_owner == s)
      coro_stack_shared_owner = NULL; /* its frames on the shared stack are simply dropped */
#ifdef STACKFUL_SHARED_CHECK
    coro_stack_shared_forget(s);
#endif
    free(s->copy);
    free(s->await_slot);
    tsan_fiber_end(s);
  } else if (s->map) {
    coro_stack_unmap(s); /* an unfinished body's frames are simply dropped */
  }
  coro_instance_free(c);
}

/* The first release (or stack given back) on a thread: from now on it may
   keep instances and stacks, which its end gives back. */
_Thread_local bool coro_stack_end_held CORO_STACK_TLS;
static void stackful_thread_end(void *unused);

__attribute__((noinline, cold)) void coro_stack_hold_end(void) {
  coro_thread_holds(CORO_THREAD_STACKFUL, stackful_thread_end, NULL);
  coro_stack_end_held = true;
}

/* The thread ends (coro_thread.h, before the slabs): what it kept for its
   next instances goes back. */
static void stackful_thread_end(void *unused) {
  (void)unused;
  coro_stackful_keep(false);
  while (coro_stack_cached > 0) {
    coro_stack_cached--;
#if defined(STACKFUL_PARK) && defined(STACKFUL_TSAN)
    if (stack_cache[coro_stack_cached].tsan_fiber)
      __tsan_destroy_fiber(stack_cache[coro_stack_cached].tsan_fiber);
#endif
    coro_stack_slot_give(stack_cache[coro_stack_cached].slab, stack_cache[coro_stack_cached].map);
  }
}

/* }================================================================== */

/* {==================================================================
 * When there is no stack to be had
 * =================================================================== */

const char *coro_stack_error_text(const struct stackful *s, char *buf, size_t size) {
  long max_maps = -1;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &max_maps) != 1)
      max_maps = -1;
    fclose(f);
  }
  char limit[64] = "";
  if (max_maps >= 0)
    snprintf(limit, sizeof limit, " (%ld here)", max_maps);
  snprintf(
      buf, size,
      "cannot map a stack of %zu bytes for coroutine instance %p: %s. The limit is the memory the kernel "
      "will commit, or the number of mappings a process may have, vm.max_map_count%s. Free finished "
      "instances, give stacks less room (coro_set_stack_size, coro_default_stack_size), or raise the "
      "limit (sysctl vm.max_map_count=N)",
      s->stack_size, (const void *)s, strerror(s->stack_errno), limit);
  return buf;
}

/* }================================================================== */
