/* stack_shared.c: the shared stack, one per thread, and the frames copied
 * on and off it.
 *
 * A stackful instance may run on its thread's shared stack instead of a
 * stack of its own (coro_set_shared_stack, coro_default_shared_stack: set
 * in stackful.c, where instances are made): many instances then cost the
 * bytes their frames use, not a stack each. Here is that stack's memory:
 * taking it, copying an instance's frames off it and back on
 * (shared_enter, inline in coro_stack.h, since every resume of such an
 * instance may do it), the slot an awaiting task keeps its awaitable in,
 * and the check of debug builds that catches a write through a pointer
 * into frames that are no longer there.
 */
#include "coro_stack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* An instance made with coro_set_shared_stack runs on its thread's shared
 * stack (one guarded slot of SHARED_STACK bytes, taken at the first such
 * start, kept until the thread ends). Only one instance's frames are on it
 * at a time, the owner's; the others keep theirs in a buffer of exactly
 * the size they used. Copies are made lazily, when an instance that is not
 * the owner is resumed: the owner's used part, from its saved stack pointer
 * to the top, is copied out, and the resumed one's copied back to the same
 * place, so every address on its stack is what it was. An instance resumed
 * again with nobody in between costs no copy at all.
 *
 * The known hazard: a pointer into a suspended instance's stack (the
 * address of a local handed to its consumer) points into the shared stack,
 * where another instance's frames may be by the time it is used.
 *
 *     the shared stack                       the instances' buffers
 *    +-----------------+ top
 *    | B's frames      |  <- B runs (owner)   A: [ A's frames, 412 bytes ]
 *    |                 |                      C: [ C's frames, 380 bytes ]
 *    |   (unused)      |
 *    +-----------------+
 *    | guard page      |
 *
 * A shared-stack instance cannot resume another (the copy would overwrite
 * the frames of the code doing it): coroutines that nest keep stacks of
 * their own.
 */

_Thread_local struct stack_shared coro_stack_shared CORO_STACK_TLS __attribute__((aligned(16)));
_Thread_local struct stackful *coro_stack_shared_owner CORO_STACK_LOCAL
    __attribute__((tls_model("initial-exec")));

#ifdef STACKFUL_ASAN
/* stack_copy (coro_stack.h) under AddressSanitizer. */
__attribute__((no_sanitize_address)) void coro_stack_copy(char *dst, const char *src, size_t n) {
  for (size_t i = 0; i < n; i++)
    ((volatile char *)dst)[i] = src[i];
}
#endif

#ifdef STACKFUL_SHARED_CHECK
/* {------------------------------------------------------------------
 * The stale-pointer check (debug builds)
 * ------------------------------------------------------------------- */

/* o's frames left the shared stack from sp up: remember where, for the
   check and its message. */
static void shared_vacated_add(const struct stackful *o, char *sp) {
  unsigned i = (coro_stack_shared.last + 1) % SHARED_VACATED;
  coro_stack_shared.vacated[i].s = o;
  coro_stack_shared.vacated[i].sp = sp;
  coro_stack_shared.last = i;
}

/* o is back on the shared stack, or freed: its old place is no one's hazard. */
void coro_stack_shared_forget(const struct stackful *o) {
  for (unsigned i = 0; i < SHARED_VACATED; i++)
    if (coro_stack_shared.vacated[i].s == o)
      coro_stack_shared.vacated[i].s = NULL;
}

/* The shared-stack instance copied out last whose frames were at p. */
static const struct stackful *shared_vacated_at(const char *p) {
  for (unsigned k = 0; k < SHARED_VACATED; k++) {
    unsigned i = (coro_stack_shared.last + SHARED_VACATED - k) % SHARED_VACATED;
    if (coro_stack_shared.vacated[i].s && coro_stack_shared.vacated[i].sp <= p)
      return coro_stack_shared.vacated[i].s;
  }
  return NULL;
}

/* A shared-stack instance just switched back (suspended, or ended: then
   sp is the top): fill with SHARED_POISON what lies below sp and held the
   frames of an instance that is copied out now. */
void coro_stack_shared_poison(char *sp) {
#ifdef STACKFUL_VALGRIND
  if (RUNNING_ON_VALGRIND)
    return; /* memcheck reports such accesses itself (the place is below a stack pointer) */
#endif
  char *lo = sp;
  for (unsigned i = 0; i < SHARED_VACATED; i++)
    if (coro_stack_shared.vacated[i].s && coro_stack_shared.vacated[i].sp < lo)
      lo = coro_stack_shared.vacated[i].sp;
  memset(lo, SHARED_POISON, (size_t)(sp - lo));
  coro_stack_shared.poison_lo = lo;
  coro_stack_shared.poison_hi = sp;
}

/* Before a shared-stack instance is resumed: the poisoned part must be as
   it was left. A byte that is not was written since the last switch back,
   by code that no frame there belongs to: through a stale pointer. */
void coro_stack_shared_check(void) {
  const unsigned char *p = (const unsigned char *)coro_stack_shared.poison_lo;
  const unsigned char *end = (const unsigned char *)coro_stack_shared.poison_hi;
  uint64_t word, pattern = 0x0101010101010101u * SHARED_POISON;
  for (; p + 8 <= end; p += 8) {
    memcpy(&word, p, 8);
    if (word != pattern)
      break;
  }
  for (; p < end && *p == SHARED_POISON; p++) {
  }
  if (p == end)
    return;
  const struct stackful *o = shared_vacated_at((const char *)p);
  char *top = coro_stack_shared.map + SHARED_STACK + page_size();
  coro_fatal(
      "coro_next",
      "a write through a stale pointer into the shared stack, at %p (%zu bytes below its "
      "top): the frames of shared-stack instance %p were there until they were copied out, and the "
      "write came after that. A pointer into a shared-stack instance's stack is good only while that "
      "instance is on the shared stack: yield values, not addresses of its locals",
      (const void *)p, (size_t)(top - (const char *)p), (const void *)o);
}

/* }------------------------------------------------------------------ */
#endif

/* Copy the owner's frames out of the shared stack. */
void coro_stack_shared_evict(struct stackful *o) {
  char *top = o->map + o->map_size, *sp = ctx_sp(&o->ctx);
  size_t used = (size_t)(top - sp);
  if (used != o->copy_size) {
    char *buf = realloc(o->copy, used);
    if (!buf)
      coro_fatal("coro_next",
                 "out of memory for the %zu bytes of stack of shared-stack instance %p", used,
                 (void *)o);
    o->copy = buf;
  }
  stack_copy(o->copy, sp, used);
  o->copy_size = used;
  o->on_stack = false;
#ifdef STACKFUL_SHARED_CHECK
  shared_vacated_add(o, sp);
#endif
  coro_stack_shared.stats.copies_out++;
  coro_stack_shared.stats.bytes_out += used;
#ifdef STACKFUL_ASAN
  /* What can be detected of the hazard: the frames just copied out are
     poisoned as a whole, so that a pointer into them (a local of the
     suspended instance, handed out) is reported when used, until the next
     owner's frames cover the place (coro_stack_shared_unpoison). */
  ASAN_POISON_MEMORY_REGION(sp, used);
#endif
  coro_stack_shared_owner = NULL;
}

#ifdef STACKFUL_ASAN
/* The part of the shared stack the instance entering it now (its frames
   `used` bytes from the top) may use: unpoisoned. A function's prologue
   sets the shadow of its frame's redzones only, taking the rest of the
   frame to be clean, so the poison of frames copied out must be gone
   wherever the new owner's frames go: its own part, and the
   SHARED_ASAN_ROOM bytes below it, where the calls it makes go deeper
   than it was when it last switched out (a fresh instance: from the top).
   A pointer into what a deeper instance left below that is still reported. */
#define SHARED_ASAN_ROOM (16 * 1024)
void coro_stack_shared_unpoison(char *top, size_t used) {
  char *low = coro_stack_shared.map + page_size();
  char *from = (size_t)(top - low) > used + SHARED_ASAN_ROOM ? top - used - SHARED_ASAN_ROOM : low;
  ASAN_UNPOISON_MEMORY_REGION(from, (size_t)(top - from));
}
#endif

/* The first resume of a shared-stack instance: the thread's shared stack
   (taken now if this is its first), its owner's frames copied out. Its
   frames are copied back in at a later resume by shared_enter (coro_stack.h). */
bool coro_stack_shared_start(struct stackful *s) {
  size_t map_size = SHARED_STACK + page_size();
  if (!coro_stack_shared.map) {
    char *slot = coro_stack_slot_take(map_size, &coro_stack_shared.slab);
    if (!slot) {
      s->stack_errno = errno ? errno : ENOMEM;
      return false;
    }
    coro_stack_shared.map = slot;
#ifdef STACKFUL_VALGRIND
    VALGRIND_STACK_REGISTER(slot + page_size(), slot + map_size); /* for the thread's life */
#endif
  }
  shared_check_caller();
#ifdef STACKFUL_SHARED_CHECK
  /* Checked here, before stackful_start writes the entry frame 32 bytes
     below the top (coro_ctx_init): that write is the new owner's own, yet
     the place may be poisoned, when the last instance to switch back ended
     (its frames gone, the poison reaches the top) while another was copied
     out. So nothing is left to check at this resume (stackful_resume). */
  coro_stack_shared_check();
  coro_stack_shared.poison_lo = coro_stack_shared.poison_hi;
#endif
  if (coro_stack_shared_owner)
    coro_stack_shared_evict(coro_stack_shared_owner);
#ifdef STACKFUL_ASAN
  /* coro_ctx_init writes the first frame at the top; the body's frames go
     below it */
  coro_stack_shared_unpoison(coro_stack_shared.map + map_size, 0);
#endif
  s->map = coro_stack_shared.map;
  s->map_size = map_size;
  s->stack_size = SHARED_STACK;
  s->stack_errno = 0;
  s->copy_size = 0;
  s->on_stack = true;
  coro_stack_shared_owner = s;
  return true;
}

/* The awaitable of an await of a shared-stack task, copied to the task's
   slot (made or grown now: the task's previous await is over, so nothing
   points into the slot). What the event sources link and write to while
   the task is suspended is then here, not on the shared stack. */
void *coro_stackful_await_slot(coro_t *c, const void *aw, size_t size) {
  struct stackful *s = (struct stackful *)c;
  if (size > s->await_cap) {
    size_t cap = size < 64 ? 64 : size; /* most awaitables fit in 64 bytes: one allocation */
    void *slot = realloc(s->await_slot, cap);
    if (!slot)
      coro_fatal("await", "out of memory for the %zu-byte awaitable of shared-stack instance %p",
                 size, (void *)c);
    s->await_slot = slot;
    s->await_cap = cap;
  }
  return memcpy(s->await_slot, aw, size);
}

/* Where the byte at p of a suspended shared-stack instance's stack is now:
   in its buffer, when its frames are copied out, else at p. (A live
   instance is a stackful one when its kind says so: the one test that
   needs nothing of stackful.c.) */
void *coro_stackful_locate(coro_t *c, void *p) {
  struct stackful *s = c && (c->kind & CORO_STACKFUL) ? (struct stackful *)c : NULL;
  if (!p || !s || !s->shared || s->on_stack || !s->copy_size)
    return p;
  char *top = s->map + s->map_size, *low = top - s->copy_size;
  if ((char *)p < low || (char *)p >= top)
    return p; /* not on its stack */
  return s->copy + ((char *)p - low);
}

void coro_shared_stack_stats(struct coro_stack_stats *stats) {
  *stats = coro_stack_shared.stats;
}
