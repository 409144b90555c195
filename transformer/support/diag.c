/* diag.c: the one diagnostic format, and allocation that cannot fail quietly.
 *
 *   gen.coc:12:5: error: `yield` outside a coroutine
 *      12 |     yield i;
 *         |     ^
 *
 * The caret is aligned by characters, not bytes (UTF-8), and tabs in the
 * line are repeated in the caret line so a terminal lines them up.
 *
 * Every pass reports through error_at/error_tok. Before exiting, coroc
 * removes the temporary files its output and depfile were being written to,
 * so a failed run never leaves a partial file behind.
 */
#define _GNU_SOURCE
#include "coroc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The texts diagnostics can quote lines from. */
typedef struct {
  const char *name;
  const char *text;
  size_t len;
} KnownFile;

static KnownFile known[16];
static int nknown;
static const char *remove_paths[8];  /* --stats's files, the temporary output and depfile */
static int nremove;

void diag_add_file(const char *name, const char *text, size_t len) {
  if (nknown < (int)(sizeof known / sizeof known[0]))
    known[nknown++] = (KnownFile){name, text, len};
}

void diag_remove_on_error(const char *path) {
  if (nremove < (int)(sizeof remove_paths / sizeof remove_paths[0]))
    remove_paths[nremove++] = path;
}

#ifdef COROC_FUZZING
jmp_buf *diag_escape;
#endif

static _Noreturn void die(void) {
  for (int i = 0; i < nremove; i++)
    unlink(remove_paths[i]);
#ifdef COROC_FUZZING
  /* The fuzz harness runs input after input in one process: an error in
     the input ends the run, not the process. */
  if (diag_escape)
    longjmp(*diag_escape, 1);
#endif
  exit(1);
}

/* Print the line `line` of `f` and a caret under byte column `col`. Tabs in
   the line are kept in the caret line, so the caret stays aligned in a
   terminal however wide it shows a tab. */
static void show_line(const KnownFile *f, int line, int col) {
  const char *p = f->text, *end = f->text + f->len;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *eol = memchr(p, '\n', end - p);
  if (!eol)
    eol = end;
  int width = fprintf(stderr, " %4d | ", line) - 2;
  fwrite(p, 1, eol - p, stderr);  /* as it is, even with a NUL byte in it */
  fprintf(stderr, "\n%*s| ", width, "");
  /* the caret line is made whole, then written at once: stderr is
     unbuffered, and a machine-made line can be a megabyte long */
  char *caret = xcalloc(1, eol - p + 3);
  size_t n = 0;
  for (int i = 1; i < col && p + i - 1 < eol; i++) {
    unsigned char c = p[i - 1];
    if ((c & 0xC0) == 0x80)
      continue;  /* a UTF-8 continuation byte: the character took one column */
    caret[n++] = c == '\t' ? '\t' : ' ';
  }
  memcpy(caret + n, "^\n", 2);
  fwrite(caret, 1, n + 2, stderr);
  xfree(caret);
}

static void (*before_error)(void);

void diag_before_error(void (*fn)(void)) {
  before_error = fn;
}

/* Once, before the first report (it may report an error of its own). */
static void settle(void) {
  void (*fn)(void) = before_error;
  before_error = NULL;
  if (fn)
    fn();
}

static void vreport(Pos pos, const char *fmt, va_list ap) {
  fprintf(stderr, "%s:%d:%d: error: ", pos.file, pos.line, pos.col);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  for (int i = 0; i < nknown; i++)
    if (pos.file && strcmp(known[i].name, pos.file) == 0) {
      show_line(&known[i], pos.line, pos.col);
      break;
    }
}

void error_at(Pos pos, const char *fmt, ...) {
  settle();
  va_list ap;
  va_start(ap, fmt);
  vreport(pos, fmt, ap);
  va_end(ap);
  die();
}

void error_tok(const Token *tok, const char *fmt, ...) {
  settle();
  va_list ap;
  va_start(ap, fmt);
  vreport(tok_pos(tok), fmt, ap);
  va_end(ap);
  die();
}

void fatal(const char *fmt, ...) {
  settle();
  va_list ap;
  va_start(ap, fmt);
  fputs("coroc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  die();
}

void internal_error_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "coroc: internal error at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
#ifdef COROC_FUZZING
  abort();  /* a bug in coroc, not in the input: the fuzzer must report it */
#endif
  die();
}

/* {==================================================================
 * Arenas: the tree, symbols and token spellings are allocated in order
 * from large blocks and never freed one by one. A mark taken before a
 * piece of work and released after it gives back everything allocated in
 * between at once: the file parse does that with the body of each plain
 * function, which nothing needs once it is parsed.
 * =================================================================== */

enum { ARENA_BLOCK = 1 << 20 };

struct ArenaBlock {
  ArenaBlock *prev;  /* the block filled before this one */
  size_t size;       /* usable bytes in data */
  size_t used;       /* bytes handed out */
  _Alignas(16) char data[];
};

Arena arena_tree, arena_perm;

void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  ArenaBlock *b = a->top;
  if (!b || b->size - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    ArenaBlock *nb = cap == ARENA_BLOCK && a->spare ? a->spare : malloc(sizeof *nb + cap);
    if (!nb)
      fatal("out of memory");
    if (nb == a->spare)
      a->spare = NULL;
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

/* One block is kept back: a declaration that begins near the end of a block
   would otherwise take a new block from malloc, and give it back, each time
   (the file parse releases after each one). */
void arena_release(Arena *a, ArenaMark m) {
  while (a->top != m.block) {
    ArenaBlock *prev = a->top->prev;
    if (!a->spare && a->top->size == ARENA_BLOCK)
      a->spare = a->top;
    else
      free(a->top);
    a->top = prev;
  }
  if (a->top)
    a->top->used = m.used;
}

/* }================================================================== */

/* {==================================================================
 * Text built in memory: a stdio stream that writes into a growing buffer
 * of ours (xmemstream), and printf into a new string (format).
 *
 * Not open_memstream: glibc's clears a BUFSIZ buffer with calloc at every
 * open, and the passes open tens of thousands (one per expression they
 * print again): that alone was a tenth of coroc's time on a large .coc.
 * Open streams are listed, so that the fuzz build's diag_release() closes
 * one an error left open.
 * =================================================================== */
typedef struct MemStream MemStream;
struct MemStream {
  char **bufp;  /* where the caller wants the buffer (NULL: abandoned by an error) */
  size_t *lenp; /* ... and its length */
  char *buf;    /* the bytes written, NUL-terminated */
  size_t len, cap;
  FILE *file;
  MemStream *next;
};

static MemStream *streams;

static void publish(MemStream *m) {
  if (!m->buf)
    m->buf = xcalloc(1, 1);
  if (m->bufp) {
    *m->bufp = m->buf;
    *m->lenp = m->len;
  }
}

static ssize_t stream_write(void *cookie, const char *data, size_t n) {
  MemStream *m = cookie;
  if (m->len + n + 1 > m->cap) {
    m->cap = 2 * (m->len + n + 1);
    m->buf = xrealloc(m->buf, m->cap);
    advise_huge_pages(m->buf, m->cap);  /* (the output of a large file) */
  }
  memcpy(m->buf + m->len, data, n);
  m->len += n;
  m->buf[m->len] = '\0';
  publish(m);
  return (ssize_t)n;
}

/* ftell asks where the stream stands; nothing else seeks one. */
static int stream_seek(void *cookie, off64_t *offset, int whence) {
  MemStream *m = cookie;
  if (whence != SEEK_CUR || *offset != 0)
    return -1;
  *offset = (off64_t)m->len;
  return 0;
}

static int stream_close(void *cookie) {
  MemStream *m = cookie;
  publish(m);
  for (MemStream **p = &streams; *p; p = &(*p)->next)
    if (*p == m) {
      *p = m->next;
      break;
    }
  xfree(m);
  return 0;
}

FILE *xmemstream(char **buf, size_t *len) {
  MemStream *m = xcalloc(1, sizeof *m);
  m->bufp = buf;
  m->lenp = len;
  *buf = NULL;
  *len = 0;
  m->file = fopencookie(m, "w", (cookie_io_functions_t){
    .write = stream_write, .seek = stream_seek, .close = stream_close});
  if (!m->file)
    fatal("out of memory");
  m->next = streams;
  streams = m;
  return m->file;
}

/* printf into a new string: most are short, and are printed once into a
   buffer on the stack, then copied. */
char *vformat(const char *fmt, va_list ap) {
  char small[256];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0)
    fatal("out of memory");
  char *s = xrealloc(NULL, (size_t)n + 1);
  if ((size_t)n < sizeof small)
    memcpy(s, small, (size_t)n + 1);
  else
    vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  return s;
}

char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

/* }================================================================== */

#ifndef COROC_FUZZING

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    fatal("out of memory");
  return p;
}

void *xrealloc(void *p, size_t size) {
  p = realloc(p, size ? size : 1);
  if (!p)
    fatal("out of memory");
  return p;
}

void xfree(void *p) {
  free(p);
}

#else /* COROC_FUZZING */

/* {==================================================================
 * The fuzz build's heap. coroc runs once and leaves its memory to exit():
 * the passes free little. The fuzz harness runs input after input in one
 * process, so every block coroc takes is linked into one list, and
 * diag_release() gives back whatever a run left, also when an error
 * longjmp'ed out of it halfway. A block is a Block header and the bytes
 * handed out after it (aligned as malloc's).
 * =================================================================== */

typedef union Block Block;
union Block {
  struct {
    Block *prev, *next;
  } link;
  max_align_t align;
};

static Block heap = {.link = {&heap, &heap}};

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

void *xcalloc(size_t n, size_t size) {
  n = n ? n : 1;
  size = size ? size : 1;
  if (n > (SIZE_MAX - sizeof(Block)) / size)
    fatal("out of memory");
  Block *b = calloc(1, sizeof(Block) + n * size);
  if (!b)
    fatal("out of memory");
  return track(b);
}

void *xrealloc(void *p, size_t size) {
  if (size > SIZE_MAX - sizeof(Block))
    fatal("out of memory");
  Block *old = p ? untrack(p) : NULL;
  Block *b = realloc(old, sizeof(Block) + (size ? size : 1));
  if (!b) {
    if (old)
      track(old);
    fatal("out of memory");
  }
  return track(b);
}

void xfree(void *p) {
  if (p)
    free(untrack(p));
}

void diag_release(void) {
  while (streams) {
    streams->bufp = NULL;  /* the caller's frame is gone */
    fclose(streams->file);
  }
  Arena *arenas[] = {&arena_tree, &arena_perm};
  for (int i = 0; i < 2; i++) {
    arena_release(arenas[i], (ArenaMark){0});
    free(arenas[i]->spare);
    arenas[i]->spare = NULL;
  }
  while (heap.link.next != &heap)
    free(untrack(heap.link.next + 1));
  nknown = 0;
  nremove = 0;
}

/* Every module's state, as at the start of the process. */
void coroc_reset(void) {
  scope_release();
  macros_release();
  source_release();
  tokens_release();
  stats_release();
  lexer_release();
  diag_release();
}

/* }================================================================== */

#endif /* COROC_FUZZING */



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
  uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1), end = ((uintptr_t)p + size) & ~(page - 1);
  if (end > start)
    madvise((void *)start, end - start, MADV_HUGEPAGE);
}

char *xstrndup(const char *s, size_t n) {
  char *p = xcalloc(1, n + 1);
  memcpy(p, s, n);
  return p;
}
