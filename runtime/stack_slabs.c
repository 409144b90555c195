/* stack_slabs.c: the slabs that stacks are carved from, each stack with its
 * guard page.
 *
 * Every stack of a stackful instance, and every thread's shared stack, is a
 * slot of a slab: one mapping of slots of one size, shared by the threads.
 * The thread's cache of stacks (stack_cache.c) and the shared stack
 * (stack_shared.c) take slots here and give them back; nothing here knows
 * of instances. Why slabs, and not a mapping per stack: the comment below.
 */
#define _GNU_SOURCE /* MAP_STACK, MAP_NORESERVE */

#include "coro_stack.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Stacks are carved from slabs: one mapping holds up to SLAB_SLOTS slots of
 * one size, each a guard page and then the stack above it (stacks grow
 * down). The kernel limits how many mappings a process has
 * (vm.max_map_count, 65,530 by default), and a guard page made with
 * mprotect splits a mapping in two: a mapping and a guard of its own per
 * stack stopped a program near 32,000 instances. Linux 6.13 and later make
 * guard pages inside a mapping without splitting it (madvise
 * MADV_GUARD_INSTALL): a slab is then one mapping whatever its slots, and
 * 100,000 instances take some 1,600 of them. Older kernels get mprotect,
 * two mappings per stack as before.
 *
 * MAP_NORESERVE: untouched stack pages cost nothing, so thousands of
 * instances with 256 KiB each fit as long as they use little of it. A freed
 * slot gives its pages back (MADV_DONTNEED) and goes back to its slab; a
 * slab whose slots are all free is unmapped. A few freed slots per thread
 * are kept as they are instead, touched pages and all, for the next
 * instance (stack_cache.c): an `await child()` in a stackful task makes and ends a
 * coroutine each time, and a stack whose pages are still there costs
 * nothing to reuse.
 *
 * Slabs are shared by the threads (an instance may be freed by another
 * thread than the one that started it), under one lock, taken at an
 * instance's first resume and when it is freed, never on a switch. */

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* <linux/mman.h> of Linux 6.13; older headers lack it */
#endif

#define SLAB_SLOTS 64 /* slots per slab, at most */
/* ...and at most about this much address space, unless one slot is more */
#define SLAB_BYTES ((size_t)32 << 20)

struct stack_slab {
  struct stack_slab *next, *prev; /* in the list of slabs with a free slot (slab_partial) */
  char *base;                     /* the mapping */
  size_t slot_size;               /* guard page + stack */
  unsigned slots;                 /* how many the mapping holds */
  unsigned fresh;                 /* slots [fresh, slots) were never handed out */
  unsigned nfree;                 /* freed slots, their indexes in free_slots[0 .. nfree) */
  unsigned used;                  /* slots handed out now */
  bool listed;                    /* in slab_partial */
  unsigned short free_slots[SLAB_SLOTS];
};

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stack_slab *slab_partial; /* slabs with a slot to hand out */
/* MADV_GUARD_INSTALL works here: 1, 0, or -1 not known yet */
static int slab_guard_madvise = -1;

size_t coro_stack_page CORO_STACK_LOCAL; /* page_size() (coro_stack.h): 0 until first asked */

static void slab_list(struct stack_slab *b) {
  b->prev = NULL;
  b->next = slab_partial;
  if (slab_partial)
    slab_partial->prev = b;
  slab_partial = b;
  b->listed = true;
}

static void slab_unlist(struct stack_slab *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    slab_partial = b->next;
  if (b->next)
    b->next->prev = b->prev;
  b->listed = false;
}

/* Whether madvise(MADV_GUARD_INSTALL) makes guard pages here, tried once on
   a page of its own: a kernel before 6.13 refuses the advice (EINVAL), and
   an emulator such as qemu-user may take it and do nothing. The page is
   then read by the kernel (written to a pipe): a guard page makes that
   fail with EFAULT, where an ordinary page is read. */
static int guard_madvise_works(void) {
  size_t page = page_size();
  char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return 0;
  int works = 0, fds[2];
  if (madvise(p, page, MADV_GUARD_INSTALL) == 0 && pipe(fds) == 0) {
    works = write(fds[1], p, 1) < 0 && errno == EFAULT;
    close(fds[0]);
    close(fds[1]);
  }
  munmap(p, page);
  return works;
}

/* Make slot i's guard page (the lock held). 0, or the errno of the failure.
   The first SLAB_MPROTECT_GUARDS guard pages of the process are made with
   mprotect all the same, one mapping each: a debugger's core dump (gdb's
   gcore) reads a mapping in large pieces and gives up on a piece that holds
   a guard of madvise's kind, so the stacks of a program with few of them
   stay in its core files; beyond that many, the mappings are saved. */
#define SLAB_MPROTECT_GUARDS 8192
static unsigned slab_mprotect_guards; /* guard pages made with mprotect so far */

static int slab_guard(struct stack_slab *b, unsigned i) {
  char *guard = b->base + (size_t)i * b->slot_size;
  if (slab_mprotect_guards >= SLAB_MPROTECT_GUARDS) {
    if (slab_guard_madvise < 0)
      slab_guard_madvise = guard_madvise_works();
    if (slab_guard_madvise && madvise(guard, page_size(), MADV_GUARD_INSTALL) == 0)
      return 0;
  }
  if (mprotect(guard, page_size(), PROT_NONE) != 0) /* one more mapping */
    return errno;
  slab_mprotect_guards++;
  return 0;
}

/* A new slab for slots of slot_size bytes; NULL with errno set when the
   kernel refuses the mapping. */
static struct stack_slab *slab_new(size_t slot_size) {
  size_t n = SLAB_BYTES / slot_size;
  unsigned slots = n < 1 ? 1 : n > SLAB_SLOTS ? SLAB_SLOTS : (unsigned)n;
  struct stack_slab *b = calloc(1, sizeof *b);
  if (!b) {
    errno = ENOMEM;
    return NULL;
  }
  b->base = mmap(NULL, slots * slot_size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (b->base == MAP_FAILED) {
    int err = errno;
    free(b);
    errno = err;
    return NULL;
  }
  b->slot_size = slot_size;
  b->slots = slots;
  return b;
}

/* A slot of slot_size bytes (guard page first): its address, or NULL with
   errno set (ENOMEM: out of memory, or out of mappings). */
char *coro_stack_slot_take(size_t slot_size, struct stack_slab **owner) {
  pthread_mutex_lock(&slab_lock);
  struct stack_slab *b = slab_partial;
  while (b && b->slot_size != slot_size)
    b = b->next;
  bool made = false;
  if (!b) {
    b = slab_new(slot_size);
    if (!b) {
      int err = errno;
      pthread_mutex_unlock(&slab_lock);
      errno = err;
      return NULL;
    }
    made = true;
  }
  unsigned i;
  if (b->nfree > 0) {
    i = b->free_slots[--b->nfree]; /* its guard is still there */
  } else {
    i = b->fresh;
    int err = slab_guard(b, i);
    if (err) { /* out of mappings (mprotect splits one) */
      if (made) {
        munmap(b->base, (size_t)b->slots * b->slot_size);
        free(b);
      }
      pthread_mutex_unlock(&slab_lock);
      errno = err;
      return NULL;
    }
    b->fresh++;
  }
  b->used++;
  if (made && b->fresh < b->slots)
    slab_list(b);
  else if (!made && b->nfree == 0 && b->fresh == b->slots)
    slab_unlist(b);
  pthread_mutex_unlock(&slab_lock);
  *owner = b;
  return b->base + (size_t)i * b->slot_size;
}

/* Give a slot back to its slab, its stack's pages to the kernel. */
void coro_stack_slot_give(struct stack_slab *b, char *slot) {
  madvise(slot + page_size(), b->slot_size - page_size(), MADV_DONTNEED);
  pthread_mutex_lock(&slab_lock);
  b->free_slots[b->nfree++] = (unsigned short)((size_t)(slot - b->base) / b->slot_size);
  b->used--;
  if (b->used == 0) { /* all its slots free: unmap it */
    if (b->listed)
      slab_unlist(b);
    munmap(b->base, (size_t)b->slots * b->slot_size);
    free(b);
  } else if (!b->listed) {
    slab_list(b);
  }
  pthread_mutex_unlock(&slab_lock);
}
