/* diag.c: the one diagnostic format.
 *
 *   gen.coc:12:5: error: `yield` outside a coroutine
 *      12 |     yield i;
 *         |     ^
 *
 * The caret is aligned by characters, not bytes (UTF-8), and tabs in the
 * line are repeated in the caret line so a terminal lines them up.
 *
 * Every pass reports through error_at (error_tok, coroc.h, is error_at at a
 * token's position). Before exiting, coroc removes the temporary files its
 * output and depfile were being written to, so a failed run never leaves a
 * partial file behind.
 *
 * A program that shows diagnostics itself (a language server) sets a sink
 * (diag_set_sink): each report then goes to it as data, its message
 * formatted into a buffer on the stack, and nothing is printed.
 *
 * The lowest layer of coroc: it calls nothing of coroc, and allocates
 * nothing, so that memory.c can report through it that memory ran out.
 */
#include "coroc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The texts diagnostics can quote lines from. */
typedef struct {
  const char *name;
  const char *text;
  size_t len;
} KnownFile;

static KnownFile known[16];
static int nknown;
static const char *remove_paths[8]; /* --stats's files, the temporary output and depfile */
static int nremove;

void diag_add_file(const char *name, const char *text, size_t len) {
  if (nknown < (int)(sizeof known / sizeof known[0]))
    known[nknown++] = (KnownFile){name, text, len};
}

void diag_remove_on_error(const char *path) {
  if (nremove < (int)(sizeof remove_paths / sizeof remove_paths[0]))
    remove_paths[nremove++] = path;
}

jmp_buf *diag_escape;

/* The streaming run's escape (diag_hold): an error goes there, unsaid. */
static jmp_buf *held;

void diag_hold(jmp_buf *to) {
  held = to;
}

/* Held: the streaming run gives up quietly and runs again whole, which
   says the error as a run of the whole file says it (stream.c). */
static void give_up_if_held(void) {
  if (held)
    longjmp(*held, 1);
}

static _Noreturn void die(void) {
  for (int i = 0; i < nremove; i++)
    unlink(remove_paths[i]);
  /* A program that runs the pipeline again and again (the fuzz harness, a
     language server: coroc_try) ends the run on an error, not the process. */
  if (diag_escape)
    longjmp(*diag_escape, 1);
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
  fwrite(p, 1, eol - p, stderr); /* as it is, even with a NUL byte in it */
  fprintf(stderr, "\n%*s| ", width, "");
  /* the caret line is written in pieces of a buffer on the stack, not a
     byte at a time: stderr is unbuffered, and a machine-made line can be a
     megabyte long */
  char caret[4096];
  size_t n = 0;
  for (int i = 1; i < col && p + i - 1 < eol; i++) {
    unsigned char c = p[i - 1];
    if ((c & 0xC0) == 0x80)
      continue; /* a UTF-8 continuation byte: the character took one column */
    caret[n++] = c == '\t' ? '\t' : ' ';
    if (n == sizeof caret) {
      fwrite(caret, 1, n, stderr);
      n = 0;
    }
  }
  fwrite(caret, 1, n, stderr);
  fputs("^\n", stderr);
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

static void (*sink)(const Diagnostic *d, void *ctx);
static void *sink_ctx;

void diag_set_sink(void (*fn)(const Diagnostic *d, void *ctx), void *ctx) {
  sink = fn;
  sink_ctx = ctx;
}

/* The report as data, to the sink. A message longer than the buffer (one
   quoting a machine-made line) is cut, and says so. */
static void deliver(DiagKind kind, Pos pos, const char *fmt, va_list ap) {
  char message[8192];
  int n = vsnprintf(message, sizeof message, fmt, ap);
  if (n >= (int)sizeof message)
    memcpy(message + sizeof message - 4, "...", 4);
  sink(&(Diagnostic){kind, pos, message}, sink_ctx);
}

static void vreport(Pos pos, const char *fmt, va_list ap) {
  if (sink) {
    deliver(DIAG_ERROR, pos, fmt, ap);
    return;
  }
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
  give_up_if_held();
  settle();
  va_list ap;
  va_start(ap, fmt);
  vreport(pos, fmt, ap);
  va_end(ap);
  die();
}

void fatal(const char *fmt, ...) {
  give_up_if_held();
  settle();
  va_list ap;
  va_start(ap, fmt);
  if (sink) {
    deliver(DIAG_FATAL, (Pos){0}, fmt, ap);
  } else {
    fputs("coroc: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
  }
  va_end(ap);
  die();
}

void internal_error_at(const char *file, int line, const char *fmt, ...) {
  give_up_if_held();
  va_list ap;
  va_start(ap, fmt);
  if (sink) {
    deliver(DIAG_INTERNAL, (Pos){file, line, 0, 0}, fmt, ap);
  } else {
    fprintf(stderr, "coroc: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
  }
  va_end(ap);
#ifdef COROC_FUZZING
  abort(); /* a bug in coroc, not in the input: the fuzzer must report it */
#endif
  die();
}

/* The files known to diagnostics, the files to remove and what to do
   before an error belong to one run. */
void diag_release(void) {
  diag_restart();
  nremove = 0;
}

/* The same but the files to remove: for the run again whole after a
   streaming run gave up, whose output file is still being written. */
void diag_restart(void) {
  nknown = 0;
  before_error = NULL;
  held = NULL;
}
