/* emit.c: printing the output, the driver of the printers.
 *
 * The user's text outside coroutines is copied byte for byte. Each coroutine
 * prototype becomes the prototype of its creation function, and each
 * coroutine definition becomes, in its place, what its backend prints
 * (emit_stackless.c, emit_stackful.c). The backends call the pieces they
 * share (creation.c, directives.c, text.c, through the writer, writer.c),
 * never each other nor this file. The printers only read what the passes
 * decided: printing twice gives the same bytes.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "stream.h"
#include "facts.h"

/* The version of what this output asks of <coro.h>: CORO_GENERATED_VERSION
   of runtime/include/coro/gen.h, which says when it goes up (the two are
   checked to agree: tests/test_golden.py). */
#define COROC_GENERATED_VERSION 4

static void emit_coroutine(Emitter *e, Coroutine *co) {
  e->co = co;
  if (co->is_prototype) {
    emit_value_type(e, co); /* an await of it reads its value as this type */
    emit_put(e, emit_line_of(e, co->decl), "CORO_NODISCARD %s;", emit_creation_header(e, co));
  } else if (e->opt->backend == BACKEND_STACKFUL) {
    emit_stackful(e, co);
  } else {
    emit_stackless(e, co);
  }
  repl_release(e); /* (in a streaming run, the coroutine's region ends next) */
}

void emit_begin(EmitCursor *c, FILE *out, Source *src, const Options *opt, LineMarks *marks) {
  *c = (EmitCursor){
      .e = {
          .out = out, .src = src, .opt = opt, .toks = &src->original, .mapped = 1, .marks = marks}};
}

/* The user's text from where the last coroutine ended to where co begins,
   verbatim, and the #include of the runtime before the first coroutine. */
static void text_before(EmitCursor *c, Coroutine *co) {
  Emitter *e = &c->e;
  Source *src = e->src;
  size_t first = token_offset(src, &src->original.v[co->first]);
  fwrite(src->raw + c->at, 1, first - c->at, e->out);
  for (size_t i = c->at; i < first; i++)
    e->mapped += src->text[i] == '\n';
  if (src->has_line_directives)
    e->mapped = 0, e->named = false; /* the user's own #line may have moved the count */
  if (first > 0 && src->text[first - 1] != '\n') {
    fputc('\n', e->out);
    e->mapped = 0;
  }
  if (!c->included) {
    emit_put(e, 0, "#include <coro.h>  /* added by coroc: the runtime of the coroutines below */");
    emit_put(e, 0, "CORO_GENERATED_FOR(%d);  /* with another coroc's <coro.h>: an error here */",
             COROC_GENERATED_VERSION);
    c->included = true;
  }
}

/* After co: where the user's text goes on, and the line it is. */
static void after(EmitCursor *c, Coroutine *co) {
  Emitter *e = &c->e;
  Token *last = &e->src->original.v[co->last];
  c->at = token_end(e->src, last);
  if (e->opt->line_directives && c->at < e->src->len)
    emit_line_directive(e, last->line);
  e->mapped = last->line;
}

void emit_next(EmitCursor *c, Coroutine *co) {
  text_before(c, co);
  emit_coroutine(&c->e, co);
  after(c, co);
}

void emit_end(EmitCursor *c) {
  Source *src = c->e.src;
  fwrite(src->raw + c->at, 1, src->len - c->at, c->e.out);
}

/* Copy the user's text between coroutines verbatim, and print each
   coroutine in its place; note the lines the writer begins in *marks, and
   where each definition's C is in facts (in order), if given. */
static void print_output(FILE *out, Source *src, Coroutine *cos, const Options *opt,
                         LineMarks *marks, Facts *facts) {
  EmitCursor c;
  emit_begin(&c, out, src, opt, marks);
  int k = 0; /* the next definition's facts */
  for (Coroutine *co = cos; co; co = co->next) {
    text_before(&c, co);
    size_t from = facts ? memstream_tell(out) : 0; /* (emit_spans writes to a memstream) */
    emit_coroutine(&c.e, co);
    if (facts && co->def && k < facts->n) {
      facts->v[k].c_from = from;
      facts->v[k++].c_to = memstream_tell(out);
    }
    after(&c, co);
  }
  emit_end(&c);
}

void emit(FILE *out, Source *src, Coroutine *cos, const Options *opt) {
  print_output(out, src, cos, opt, NULL, NULL);
}

/* The output (or --dot's graphs, with `dot`) as a string of *len bytes:
   what main.c writes, and what the fuzz harness compares. */
char *emit_to_string(Source *src, Coroutine *cos, const Options *opt, bool dot, size_t *len) {
  char *buf = NULL;
  FILE *mem = xmemstream(&buf, len);
  if (!mem)
    fatal("out of memory");
  if (dot)
    emit_dot(mem, src, cos);
  else
    emit(mem, src, cos, opt);
  if (fclose(mem) != 0)
    fatal("out of memory");
  return buf;
}

/* The output as a string, with the writer's lines (marks) or each
   definition's place (facts) noted when asked. */
static char *output_string(Source *src, Coroutine *cos, const Options *opt, LineMarks *marks,
                           Facts *facts, size_t *len) {
  char *buf = NULL;
  FILE *mem = xmemstream(&buf, len);
  print_output(mem, src, cos, opt, marks, facts);
  if (fclose(mem) != 0)
    fatal("out of memory");
  return buf;
}

/* The same output, where each definition's C is noted (coroc-lsp shows one). */
char *emit_spans(Source *src, Coroutine *cos, const Options *opt, Facts *facts, size_t *len) {
  return output_string(src, cos, opt, NULL, facts, len);
}

/* The same output, the writer's lines noted (--html: html.c links them). */
char *emit_marked(Source *src, Coroutine *cos, const Options *opt, LineMarks *marks, size_t *len) {
  return output_string(src, cos, opt, marks, NULL, len);
}
