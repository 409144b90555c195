/* memory.c: allocation that cannot fail quietly, and arenas.
 *
 * xcalloc, xrealloc and xfree are malloc's, with "out of memory" reported
 * in the one format (diag.c) instead of a NULL to check (inside a region,
 * below, they hand out an arena's blocks). The tree, the symbols and the
 * spellings of tokens come from arenas instead: allocated
 * in order, given back in one piece. Every block is kept in a list, so
 * that the end of a run gives all of them back (memory_release, from
 * coroc_reset), also a run that an error ended halfway: the fuzz harness
 * and a language server run the pipeline again and again in one process.
 *
 * Just above diag.c, the lowest file of coroc: it calls nothing of coroc but
 * fatal.
 */
#define _GNU_SOURCE
#include "coroc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* {==================================================================
 * Arenas: the tree, symbols and token spellings are allocated in order
 * from large blocks and never freed one by one. A mark taken before a
 * piece of work and released after it gives back everything allocated in
 * between at once: the file parse does that with the body of each plain
 * function, which nothing needs once it is parsed.
 * =================================================================== */

enum { ARENA_BLOCK = 1 << 20 };

struct ArenaBlock {
  ArenaBlock *prev; /* the block filled before this one */
  size_t size;      /* usable bytes in data */
  size_t used;      /* bytes handed out */
  _Alignas(16) char data[];
};

/* Under AddressSanitizer memory goes back to malloc as soon as it can, for
   the sanitizer to see a use of it after that: no block is kept for reuse
   (memory_release_arenas), and a region's blocks are malloc's (below). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN true
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN false
#endif
#if UNDER_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct Arena {
  ArenaBlock *top;   /* the block being filled */
  ArenaBlock *spare; /* blocks given back, linked by prev: the next ones taken */
  size_t block_size; /* of the blocks it takes from malloc; 0: ARENA_BLOCK */
};

Arena arena_tree, arena_perm;

/* A size rounded up to the 16 bytes that malloc's blocks are aligned to. */
static size_t rounded(size_t size) {
  return (size + 15) & ~(size_t)15;
}

static size_t block_size(const Arena *a) {
  return a->block_size ? a->block_size : ARENA_BLOCK;
}

void *arena_alloc(Arena *a, size_t size) {
  size = rounded(size);
  ArenaBlock *b = a->top;
  if (!b || b->size - b->used < size) {
    size_t cap = size > block_size(a) ? size : block_size(a);
    ArenaBlock *nb = cap == block_size(a) && a->spare ? a->spare : malloc(sizeof *nb + cap);
    if (!nb)
      fatal("out of memory");
    if (nb == a->spare)
      a->spare = nb->prev;
    *nb = (ArenaBlock){.prev = b, .size = cap};
    a->top = b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  return memset(p, 0, size);
}

ArenaMark arena_mark(Arena *a) {
  return (ArenaMark){a->top, a->top ? a->top->used : 0};
}

/* The blocks of the usual size are kept back, for the arena to take again:
   a declaration that begins near the end of a block would otherwise take a
   new block from malloc, and give it back, each time (the file parse
   releases after each one); and a block new from malloc is new pages, each
   a page fault as it is first written (memory_release_arenas). */
void arena_release(Arena *a, ArenaMark m) {
  while (a->top != m.block) {
    ArenaBlock *prev = a->top->prev;
    if (a->top->size == block_size(a)) {
      a->top->prev = a->spare;
      a->spare = a->top;
    } else {
      free(a->top);
    }
    a->top = prev;
  }
  if (a->top)
    a->top->used = m.used;
}

/* }================================================================== */

/* {==================================================================
 * The heap. The coroc program runs once and leaves its memory to exit():
 * the passes free little. A program that runs the pipeline again and again
 * (the fuzz harness, a language server) must get it all back, so every
 * block coroc takes is linked into one list, and memory_release() gives
 * back whatever a run left, also when an error longjmp'ed out of it
 * halfway. A block is a Block header and the bytes handed out after it
 * (aligned as malloc's). One run at a time: the list has no lock.
 * =================================================================== */

typedef union Block Block;
union Block {
  struct {
    Block *prev, *next; /* in the heap's list; NULL in a region's block (below) */
    size_t size;        /* a region's block: the bytes handed out after the header */
  } link;
  max_align_t align;
};

static Block heap = {.link = {&heap, &heap, 0}};

static void *track(Block *b) {
  b->link.prev = &heap;
  b->link.next = heap.link.next;
  heap.link.next->link.prev = b;
  heap.link.next = b;
  return b + 1;
}

static Block *untrack(void *p) {
  Block *b = (Block *)p - 1;
  b->link.prev->link.next = b->link.next;
  b->link.next->link.prev = b->link.prev;
  return b;
}

static Block *header(void *p) {
  return (Block *)p - 1;
}

static bool in_region(void *p) {
  return header(p)->link.prev == NULL;
}

static bool region_open(void);
static void *region_alloc(size_t size);
static void *region_grow(void *p, size_t size);
static void region_free(void *p);

static void *heap_alloc(size_t size) {
  Block *b = calloc(1, sizeof(Block) + size);
  if (!b)
    fatal("out of memory");
  return track(b);
}

void *xcalloc(size_t n, size_t size) {
  n = n ? n : 1;
  size = size ? size : 1;
  if (n > (SIZE_MAX - sizeof(Block) - 15) / size)
    fatal("out of memory");
  return region_open() ? region_alloc(n * size) : heap_alloc(n * size);
}

/* A heap block grown keeps its place in the list: the list stays in the
   order the blocks were first taken, which a region (below) counts on. A
   region's block grows where it is if it was the last one handed out. */
void *xrealloc(void *p, size_t size) {
  if (size > SIZE_MAX - sizeof(Block) - 15)
    fatal("out of memory");
  if (!p)
    return xcalloc(1, size);
  if (in_region(p))
    return region_grow(p, size);
  Block *old = header(p), *prev = old->link.prev, *next = old->link.next;
  Block *b = realloc(old, sizeof(Block) + (size ? size : 1));
  if (!b)
    fatal("out of memory");
  b->link.prev = prev;
  b->link.next = next;
  prev->link.next = next->link.prev = b;
  return b + 1;
}

/* Growing by one element each time copies O(n^2) elements wherever realloc
   moves the block, which it always does under ASan: 64,000 `y =` in one
   expression took 33 s and 2.2 GB that way (cfg.c's reads of a node).
   Doubling when n reaches a power of two copies O(n) in all, and needs no
   field for the capacity: n implies it. An array that shrinks (a stack) is
   still right: at a power of two it is cut to what n implies, and below it
   the block is larger than n implies. */
void *xappend(void *p, size_t n, size_t size) {
  if (n & (n - 1)) /* neither 0 nor a power of two: the block has room for n */
    return p;
  if (n > SIZE_MAX / 2 / size)
    fatal("out of memory");
  return xrealloc(p, size * (n ? 2 * n : 1));
}

void xfree(void *p) {
  if (!p)
    return;
  if (in_region(p))
    region_free(p);
  else
    free(untrack(p));
}

/* A region: the blocks taken from memory_region_begin on, given back by
   memory_region_end. The streaming run (stream.c) opens one around each
   coroutine's passes and printing, so that what they took goes back before
   the next one. Its blocks come from an arena (arena_region), a header
   before each saying its size: the passes take about 120 small blocks for
   each coroutine, and malloc's and free's work on them was 13% of coroc's
   instructions on a large file. The arena's blocks are 64 KiB: a coroutine
   of part 4's large.coc takes 16 KiB at most, and in blocks of 1 MiB, as
   the other arenas', coroc's peak resident memory on it was 0.5 MiB larger.
   A block freed is given back at once only
   if it was the last one handed out (the common case of a string formatted,
   printed and freed); the others wait for the end of the region. A module
   that makes its lasting state in a region (a table made when first needed)
   moves it to the heap with memory_keep, and keeps the pointer it returns.
   Under AddressSanitizer a region's blocks come from the heap as any
   other's, each on its own for the sanitizer to watch, and a mark in the
   heap's list stands where the region began. */
static Arena arena_region = {.block_size = 64 << 10};
static ArenaMark region_start;
static Block region_mark = {.link = {&region_mark, &region_mark, 0}};

static bool region_open(void) {
  return region_mark.link.next != &region_mark;
}

static void *region_alloc(size_t size) {
  if (UNDER_ASAN)
    return heap_alloc(size);
  Block *b = arena_alloc(&arena_region, sizeof(Block) + rounded(size));
  b->link.size = size;
  return b + 1;
}

/* Whether the block is the last one handed out of the arena's top block. */
static bool region_last(Block *b) {
  ArenaBlock *top = arena_region.top;
  return (char *)(b + 1) + rounded(b->link.size) == top->data + top->used;
}

static void *region_grow(void *p, size_t size) {
  Block *b = header(p);
  if (size <= b->link.size)
    return p;
  ArenaBlock *top = arena_region.top;
  size_t more = rounded(size) - rounded(b->link.size);
  if (region_last(b) && more <= top->size - top->used) { /* (it grows where it is) */
    memset((char *)p + rounded(b->link.size), 0, more);
    top->used += more;
    b->link.size = size;
    return p;
  }
  return memcpy(region_alloc(size), p, b->link.size);
}

static void region_free(void *p) {
  Block *b = header(p);
  if (region_last(b))
    arena_region.top->used -= sizeof(Block) + rounded(b->link.size);
}

void memory_region_begin(void) {
  if (region_open())
    internal_error("a memory region is open already");
  track(&region_mark);
  region_start = arena_mark(&arena_region);
}

void memory_region_end(void) {
  if (!region_open())
    return;
  arena_release(&arena_region, region_start);
  while (heap.link.next != &region_mark)
    free(untrack(heap.link.next + 1));
  untrack(&region_mark + 1);
  region_mark.link.prev = region_mark.link.next = &region_mark;
}

/* Bytes [from, to) of a block the run will not read again, those in
   [from, done) said so before (the streaming run's tokens behind the
   coroutines printed, stream.c): the whole pages among them that were not
   given back yet go back to the kernel, and read as zeros if read after
   all. They go back 64 KiB at a time, up to a multiple of that in the
   address space: a call for each coroutine made benchmark part 4's run on
   large.coc 7% slower (each call flushes the TLB of the run's threads).
   Under AddressSanitizer the bytes are poisoned instead, so that such a
   read is reported (the fuzz harness runs the streaming run). */
void memory_not_read_again(void *block, size_t from, size_t done, size_t to) {
  if (done < from)
    done = from;
#if UNDER_ASAN
  if (to > done)
    __asan_poison_memory_region((char *)block + done, to - done);
#else
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), chunk = 64 << 10, start = (uintptr_t)block;
  uintptr_t first = (start + from + page - 1) & ~(page - 1); /* (a token before `from` is read) */
  uintptr_t lo = (start + done) & ~(chunk - 1), hi = (start + to) & ~(chunk - 1);
  if (lo < first)
    lo = first;
  if (hi > lo)
    madvise((void *)lo, hi - lo, MADV_DONTNEED);
#endif
}

void memory_unmap(void *block, size_t size, size_t written) {
#if UNDER_ASAN
  __asan_unpoison_memory_region(block, written);
#else
  (void)written;
#endif
  munmap(block, size);
}

/* A region's block copied to the heap, or a heap block moved to the far end
   of the list, behind any region's mark. */
void *memory_keep(void *p) {
  if (!p || !region_open())
    return p;
  if (in_region(p)) {
    Block *b = header(p);
    void *kept = memcpy(heap_alloc(b->link.size), p, b->link.size);
    region_free(p);
    p = kept;
  }
  Block *b = untrack(p);
  b->link.next = &heap;
  b->link.prev = heap.link.prev;
  heap.link.prev->link.next = b;
  heap.link.prev = b;
  return p;
}

/* The arenas emptied (the heap is left as it is). Their blocks are kept for
   the next run: a language server runs the pipeline at every change, and a
   block new from malloc is new pages, each a page fault when first written,
   dear on a virtual machine. Benchmark part 10 on one (AMD EPYC, family 26):
   memset, the first writer, and the kernel's faults under it were a third
   of the server's samples, and coroc's share of a change went from 12.4 ms
   to 5.7 ms with the blocks kept; its resident size, from 5.2 MiB to 6.9.
   What is kept is what the largest run took at once: a run no larger takes
   nothing more. Under AddressSanitizer they go back to malloc. */
void memory_release_arenas(void) {
  Arena *arenas[] = {&arena_tree, &arena_perm, &arena_region};
  for (int i = 0; i < 3; i++) {
    arena_release(arenas[i], (ArenaMark){0});
    while (UNDER_ASAN && arenas[i]->spare) {
      ArenaBlock *next = arenas[i]->spare->prev;
      free(arenas[i]->spare);
      arenas[i]->spare = next;
    }
  }
}

/* Every block given back, and the arenas emptied (their blocks kept, above). */
void memory_release(void) {
  if (region_open()) { /* (an error ended the region's work) */
    untrack(&region_mark + 1);
    region_mark.link.prev = region_mark.link.next = &region_mark;
  }
  memory_release_arenas();
  while (heap.link.next != &heap)
    free(untrack(heap.link.next + 1));
}

/* }================================================================== */


/* Large blocks written once, in order (the token arrays, the input, the
   output), take a page fault for each 4 KiB they touch: 7% of the time on a
   large file for the tokens alone. In huge pages (2 MiB), where the kernel
   has them, it is one fault per 2 MiB. Only whole pages inside the block
   are advised, and only in a block that can hold a huge page (a small one
   is in the heap, where the advice would only split its mapping); the
   advice is no more than that (an error leaves the small pages). */
void advise_huge_pages(void *p, size_t size) {
  if (size < (4u << 20))
    return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1),
            end = ((uintptr_t)p + size) & ~(page - 1);
  if (end > start)
    madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* A huge page is resident whole once touched. A block sized to what will
   be written wastes none (a huge page lies only where a whole one fits),
   but one reserved beyond it (the stream's tokens, an estimate, a doubling
   buffer) holds the last huge page its writes reach, used or not: up to
   2 MiB. On large.coc (benchmark part 4) that was 1.8 MiB of its 19, for
   its 4.4 MB of tokens, with no time gained. So such a block keeps its
   first 8 MiB in small pages: the waste is at most a quarter of what is
   written, less as it grows, and a block written further (sqlite3.c's
   23 MB of tokens) still takes most of its faults in huge pages. */
enum { SMALL_PAGES_FIRST = 8 << 20 };
void advise_huge_pages_reserved(void *p, size_t size) {
  if (size > SMALL_PAGES_FIRST)
    advise_huge_pages((char *)p + SMALL_PAGES_FIRST, size - SMALL_PAGES_FIRST);
}

char *xstrndup(const char *s, size_t n) {
  char *p = xcalloc(1, n + 1);
  memcpy(p, s, n);
  return p;
}
