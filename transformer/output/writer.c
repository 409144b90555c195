/* writer.c: the line writer, which the lowering and every printer write through.
 *
 * Lines are printed one per line, indented, each preceded by a #line
 * directive when the compiler would otherwise count a different .coc line,
 * so that compiler messages and gdb point into the .coc. An Emitter writes
 * either to a stream (the printers) or, with Emitter.sink set, into a list
 * of Lines kept for later (the lowering, lower.c: Coroutine.body, which
 * emit_stackless.c prints). It knows nothing of what the lines say.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "front/lines.h"

#include <stdarg.h>
#include <string.h>

void lines_push(Lines *l, Line line) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = xrealloc(l->v, sizeof(Line) * l->cap);
  }
  l->v[l->n++] = line;
}

/* `#line N`, the directive printed most (before nearly a line in three of
   a lowered body), put together here rather than by a format. */
static void put_line_number(FILE *out, int line) {
  if (line < 0) {
    xfprintf(out, "#line %d\n", line);
    return;
  }
  char buf[32], *p = buf + sizeof buf;
  *--p = '\n';
  do
    *--p = (char)('0' + line % 10);
  while ((line /= 10) != 0);
  p -= 6;
  memcpy(p, "#line ", 6);
  fwrite_unlocked(p, 1, (size_t)(buf + sizeof buf - p), out);
}

/* `#line N "file.coc"`, or just `#line N` once the file name is set. After
   a #line of the user's own, the number and the name are the ones it gives
   (the compiler, gdb and __LINE__ see what they would see in the .coc). */
void emit_line_directive(Emitter *e, int line) {
  const char *quoted;
  line = logical_line(e->src, line, &quoted);
  if (quoted) {
    xfprintf(e->out, "#line %d %s\n", line, quoted);
    e->named = false; /* the next plain one names the .coc again */
    return;
  }
  if (e->named)
    put_line_number(e->out, line);
  else
    xfprintf(e->out, "#line %d \"%s\"\n", line, e->src->name);
  e->named = !e->src->has_line_directives;
}

enum { MAX_INDENT = 40 };

/* Print one line of output that stands for `line` of the .coc (0: a line of
   coroc's own that stands for nothing in particular). */
void emit_put(Emitter *e, int line, const char *fmt, ...) {
  if (e->sink) { /* lowering: the line is kept, to be printed later */
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    lines_push(e->sink, (Line){LINE_CODE, line, e->indent, text});
    return;
  }
  if (line > 0 && line != e->mapped && e->opt->line_directives)
    emit_line_directive(e, line);
  if (line > 0)
    e->mapped = line;
  if (e->marks) { /* --html: where this line starts, and what it stands for */
    LineMarks *m = e->marks;
    if (m->n == m->cap) {
      m->cap = m->cap ? m->cap * 2 : 256;
      m->v = xrealloc(m->v, sizeof(LineMark) * m->cap);
    }
    m->v[m->n++] = (LineMark){memstream_tell(e->out), line};
  }
  /* deeper than MAX_INDENT levels the text stops moving right: readable for
     any real body, and linear in size for a machine-made one nested 10^5 deep */
  va_list ap;
  va_start(ap, fmt);
  xvfprintf_line(e->out, (size_t)(e->indent < MAX_INDENT ? e->indent : MAX_INDENT) * 2, fmt, ap);
  va_end(ap);
  if (e->mapped)
    e->mapped++;
}

/* The line just begun stands for the .coc line the compiler counts for it
   (--html's map; a line begun with no .coc line is otherwise coroc's own). */
void emit_counted(Emitter *e) {
  if (e->marks && e->marks->n)
    e->marks->v[e->marks->n - 1].line = -1;
}

int emit_line_of(Emitter *e, const Node *n) {
  return e->toks->v[n->first].line;
}

void emit_indent(Emitter *e, int delta) {
  e->indent += delta;
}

/* The next output line is .coc line `line`: say so if the compiler would not know. */
void emit_sync(Emitter *e, int line) {
  if (e->opt->line_directives && line != e->mapped)
    emit_line_directive(e, line);
  e->mapped = line;
}

void emit_resync(Emitter *e, int line) {
  e->mapped = line;
}

/* The text of a #line directive for physical line `physical` of the input,
   on its own (no line is written): for an operand put back at its column in
   the middle of a statement (lower.c, emit_stackful.c). */
/* The blanks from the start of t's line to t, tabs kept (so that a display
   column is the same too), for an operand put back where the user wrote it;
   NULL past column COROC_MAX_ALIGN_COLUMN: a machine-made line has no caret
   to keep, and its padding would grow with the square of its length. */
char *emit_column_pad(const Source *src, const Token *t) {
  if (t->col - 1 > COROC_MAX_ALIGN_COLUMN)
    return NULL;
  const char *line = src->raw + src->line_start[t->line];
  char *pad = xcalloc(t->col, 1);
  for (unsigned i = 0; i + 1 < t->col; i++)
    pad[i] = line[i] == '\t' ? '\t' : ' ';
  return pad;
}

char *emit_line_text(Source *src, int physical) {
  const char *quoted;
  int line = logical_line(src, physical, &quoted);
  if (quoted)
    return format("#line %d %s", line, quoted);
  if (src->has_line_directives) /* the name may have changed before: give it again */
    return format("#line %d \"%s\"", line, src->name);
  return format("#line %d", line);
}
