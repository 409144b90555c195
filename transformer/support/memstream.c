/* memstream.c: text built in memory: a stdio stream that writes into a
 * growing buffer of ours (xmemstream), and printf into a new string (format).
 * The passes and the printers make their C text so, and the whole output is
 * kept so until it is written at once (main.c).
 *
 * Not open_memstream: glibc's clears a BUFSIZ buffer with calloc at every
 * open, and the passes open tens of thousands (one per expression they
 * print again): that alone was a tenth of coroc's time on a large .coc.
 * Open streams are listed, so that the fuzz build's memstream_release()
 * closes one an error left open. A stream given back with memstream_close
 * stays open, for the next xmemstream: the passes and printers make tens
 * of thousands (one per expression they print again), and opening and
 * closing a stdio stream was a tenth of coroc's time on a large .coc.
 * So stdio's own position of a stream counts from its first use: where
 * the text stands is memstream_tell's, and the streams cannot seek (ftell
 * fails on them, rather than say what it does not know).
 */
#define _GNU_SOURCE
#include "memstream.h"

#include <stdarg.h>
#include <stdio_ext.h>
#include <string.h>

typedef struct MemStream MemStream;
struct MemStream {
  char **bufp;  /* where the caller wants the buffer (NULL: abandoned by an error) */
  size_t *lenp; /* ... and its length */
  char *buf;    /* the bytes written, NUL-terminated */
  size_t len, cap;
  FILE *file;
  MemStream *next;
};

static MemStream *streams; /* open, being written */
static MemStream *idle;    /* open, given back by memstream_close */

static void publish(MemStream *m) {
  if (!m->bufp)
    return;
  if (!m->buf)
    m->buf = xcalloc(1, 1);
  *m->bufp = m->buf;
  *m->lenp = m->len;
}

static ssize_t stream_write(void *cookie, const char *data, size_t n) {
  MemStream *m = cookie;
  if (m->len + n + 1 > m->cap) {
    m->cap = 2 * (m->len + n + 1);
    m->buf = xrealloc(m->buf, m->cap);
    advise_huge_pages_reserved(m->buf, m->cap); /* (the output of a large file) */
  }
  memcpy(m->buf + m->len, data, n);
  m->len += n;
  m->buf[m->len] = '\0';
  publish(m);
  return (ssize_t)n;
}

static void unlink_open(MemStream *m) {
  for (MemStream **p = &streams; *p; p = &(*p)->next)
    if (*p == m) {
      *p = m->next;
      return;
    }
}

static int stream_close(void *cookie) {
  MemStream *m = cookie;
  publish(m);
  unlink_open(m);
  xfree(m);
  return 0;
}

static MemStream *open_stream(void) {
  MemStream *m = memory_keep(xcalloc(1, sizeof *m)); /* kept for the next (memstream_close) */
  m->file =
      fopencookie(m, "w", (cookie_io_functions_t){.write = stream_write, .close = stream_close});
  if (!m->file)
    fatal("out of memory");
  /* Only the thread that made it writes to it: stdio need not lock it, at
     every call, as it does once coroc has a thread of its own (main.c). */
  __fsetlocking(m->file, FSETLOCKING_BYCALLER);
  return m;
}

FILE *xmemstream(char **buf, size_t *len) {
  MemStream *m = idle;
  if (m)
    idle = m->next;
  else
    m = open_stream();
  m->bufp = buf;
  m->lenp = len;
  *buf = NULL;
  *len = 0;
  m->next = streams;
  streams = m;
  return m->file;
}

/* The open stream of f. */
static MemStream *stream_of(FILE *f) {
  MemStream *m = streams; /* (the one opened last, nearly always) */
  while (m && m->file != f)
    m = m->next;
  if (!m)
    internal_error("a stream xmemstream did not open");
  return m;
}

size_t memstream_tell(FILE *f) {
  MemStream *m = stream_of(f);
  fflush(f);
  return m->len;
}

int memstream_close(FILE *f) {
  MemStream *m = stream_of(f);
  fflush(f);
  publish(m);
  unlink_open(m);
  *m = (MemStream){.file = f, .next = idle};
  idle = m;
  return 0;
}

/* {==================================================================
 * printf of the common formats, without printf. Nearly all that the
 * passes and printers print is text with %s and %d in it, and vfprintf
 * and vsnprintf parse the format, and vsnprintf sets up a stream, at
 * every call: most of the time of printing a large .coc. Those formats
 * are printed here, piece by piece; any other goes to printf.
 * =================================================================== */

/* The digits of v, as %d prints them, at the end of buf[12]; their count. */
static size_t int_text(int v, char *buf) {
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  char *p = buf + 12;
  do
    *--p = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
  return (size_t)(buf + 12 - p);
}

char *text_take(Text *t) {
  if (!t->heap) {
    t->heap = xrealloc(NULL, t->n + 1);
    memcpy(t->heap, t->small, t->n);
  }
  t->heap[t->n] = '\0';
  return t->heap;
}

/* fmt with its arguments at the end of t, if it converts with %s, %d and
   %% only; false, and t to be dropped, at any other conversion (the
   caller then prints with printf, from a copy of ap: one pass over fmt,
   not one to ask and one to print). */
static bool print_simple(Text *t, const char *fmt, va_list ap) {
  if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) { /* "%s": the writer's stored lines */
    const char *s = va_arg(ap, const char *);
    s = s ? s : "(null)";
    text_put(t, s, strlen(s));
    return true;
  }
  for (;;) {
    const char *pct = strchrnul(fmt, '%');
    if (pct > fmt)
      text_put(t, fmt, (size_t)(pct - fmt));
    if (!*pct)
      return true;
    if (pct[1] == 's') {
      const char *s = va_arg(ap, const char *);
      s = s ? s : "(null)"; /* as glibc's printf */
      text_put(t, s, strlen(s));
    } else if (pct[1] == 'd') {
      char digits[12];
      size_t n = int_text(va_arg(ap, int), digits);
      text_put(t, digits + 12 - n, n);
    } else if (pct[1] == '%') {
      text_put(t, "%", 1);
    } else {
      return false;
    }
    fmt = pct + 2;
  }
}

/* t's bytes to f, in one write (a write to a stream costs the same for a
   byte as for a line), and t's memory back. */
static void text_write(Text *t, FILE *f) {
  fwrite_unlocked(t->heap ? t->heap : t->small, 1, t->n, f);
  xfree(t->heap);
}

static void xvfprintf(FILE *f, const char *fmt, va_list ap) {
  Text t;
  TEXT_INIT(t);
  va_list again;
  va_copy(again, ap);
  if (print_simple(&t, fmt, ap)) {
    text_write(&t, f);
  } else {
    xfree(t.heap);
    vfprintf(f, fmt, again);
  }
  va_end(again);
}

void xfprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  xvfprintf(f, fmt, ap);
  va_end(ap);
}

void xvfprintf_line(FILE *f, size_t spaces, const char *fmt, va_list ap) {
  static const char blanks[128] = {[0 ... 127] = ' '};
  spaces = spaces < sizeof blanks ? spaces : sizeof blanks;
  Text t;
  TEXT_INIT(t);
  text_put(&t, blanks, spaces);
  va_list again;
  va_copy(again, ap);
  if (print_simple(&t, fmt, ap)) {
    text_put(&t, "\n", 1);
    text_write(&t, f);
  } else {
    xfree(t.heap);
    fwrite_unlocked(blanks, 1, spaces, f);
    vfprintf(f, fmt, again);
    fputc_unlocked('\n', f);
  }
  va_end(again);
}

/* printf into a new string: most are short, and are printed once into a
   buffer on the stack, then copied. */
char *vformat(const char *fmt, va_list ap) {
  Text t;
  TEXT_INIT(t);
  va_list first;
  va_copy(first, ap);
  bool simple = print_simple(&t, fmt, first);
  va_end(first);
  if (simple)
    return text_take(&t);
  xfree(t.heap);
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

/* A stream an error left open is closed (its buffer goes with the heap,
   memory_release), and so are those kept for the next xmemstream. */
void memstream_release(void) {
  while (streams) {
    streams->bufp = NULL; /* the caller's frame is gone */
    fclose(streams->file);
  }
  while (idle) {
    MemStream *m = idle;
    idle = m->next;
    fclose(m->file);
  }
}
