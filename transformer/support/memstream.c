/* memstream.c: text built in memory: a stdio stream that writes into a
 * growing buffer of ours (xmemstream), and printf into a new string (format).
 * The passes and the printers make their C text so, and the whole output is
 * kept so until it is written at once (main.c).
 *
 * Not open_memstream: glibc's clears a BUFSIZ buffer with calloc at every
 * open, and the passes open tens of thousands (one per expression they
 * print again): that alone was a tenth of coroc's time on a large .coc.
 * Open streams are listed, so that the fuzz build's memstream_release()
 * closes one an error left open.
 */
#define _GNU_SOURCE
#include "coroc.h"

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
    advise_huge_pages(m->buf, m->cap); /* (the output of a large file) */
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
  m->file = fopencookie(
      m, "w",
      (cookie_io_functions_t){.write = stream_write, .seek = stream_seek, .close = stream_close});
  if (!m->file)
    fatal("out of memory");
  /* Only the thread that made it writes to it: stdio need not lock it, at
     every call, as it does once coroc has a thread of its own (main.c). */
  __fsetlocking(m->file, FSETLOCKING_BYCALLER);
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

/* A stream an error left open is closed (its buffer goes with the heap,
   memory_release). */
void memstream_release(void) {
  while (streams) {
    streams->bufp = NULL; /* the caller's frame is gone */
    fclose(streams->file);
  }
}
