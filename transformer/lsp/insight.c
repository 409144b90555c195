/* insight.c: what only coroc knows, in the editor (docs/editors.md).
 *
 * coroc's passes decide what each coroutine's frame holds and why, and
 * where the frame of each task it awaits lives: --stats prints it, and
 * every run of the server keeps it, as data (facts.c's Facts, copied here
 * out of the run's memory), beside the last good translation of each
 * backend. From it the editor gets:
 *   - hover on a yield or an await: the resume point, the locals the frame
 *     keeps across it with their reasons, and where an awaited task's frame
 *     lives;
 *   - a code lens on each coroutine's first line for each backend: its kind,
 *     its frame's size and where its instances live, and the command
 *     coroc.showGeneratedC, which shows the C of that coroutine alone;
 *   - an information diagnostic on each await whose child stays on the heap.
 * The sizes are the compiler's: the first code lens asked of a translation
 * runs coroc again on its text, measuring (facts_measure compiles the C),
 * once; nothing else here starts a process.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * The facts, kept
 * =================================================================== */

static const char *dup(const char *s) {
  if (!s)
    return NULL;
  char *d = strdup(s);
  if (!d)
    abort();
  return d;
}

static void *dup_array(const void *v, size_t size) {
  void *d = malloc(size ? size : 1);
  if (!d)
    abort();
  if (size)
    memcpy(d, v, size);
  return d;
}

static void copy_one(CoroFacts *d, const CoroFacts *s) {
  *d = *s;
  d->name = dup(s->name);
  d->kind = dup(s->kind);
  d->type = dup(s->type);
  d->type_name = dup(s->type_name);
  d->instances = dup(s->instances);
  d->fields = dup_array(s->fields, sizeof(FieldFact) * s->nfields);
  for (int i = 0; i < s->nfields; i++) {
    d->fields[i].name = dup(s->fields[i].name);
    d->fields[i].reason = dup(s->fields[i].reason);
  }
  d->resumes = dup_array(s->resumes, sizeof(ResumeFact) * s->nresumes);
  for (int i = 0; i < s->nresumes; i++) {
    ResumeFact *r = &d->resumes[i];
    r->word = dup(r->word);
    r->live = dup_array(s->resumes[i].live, sizeof(char *) * (r->nlive > 0 ? r->nlive : 0));
    for (int k = 0; k < r->nlive; k++)
      r->live[k] = dup(r->live[k]);
  }
  d->children = dup_array(s->children, sizeof(ChildFact) * s->nchildren);
  for (int i = 0; i < s->nchildren; i++) {
    d->children[i].callee = dup(s->children[i].callee);
    d->children[i].heap_reason = dup(s->children[i].heap_reason);
  }
  d->plain = dup_array(s->plain, sizeof(char *) * s->nplain);
  d->plain_lines = dup_array(s->plain_lines, sizeof(int) * s->nplain);
  for (int i = 0; i < s->nplain; i++)
    d->plain[i] = dup(s->plain[i]);
}

static void free_one(CoroFacts *f) {
  free((char *)f->name);
  free((char *)f->kind);
  free((char *)f->type);
  free((char *)f->type_name);
  free((char *)f->instances);
  for (int i = 0; i < f->nfields; i++) {
    free((char *)f->fields[i].name);
    free((char *)f->fields[i].reason);
  }
  free(f->fields);
  for (int i = 0; i < f->nresumes; i++) {
    free((char *)f->resumes[i].word);
    for (int k = 0; k < f->resumes[i].nlive; k++)
      free((char *)f->resumes[i].live[k]);
    free(f->resumes[i].live);
  }
  free(f->resumes);
  for (int i = 0; i < f->nchildren; i++) {
    free((char *)f->children[i].callee);
    free((char *)f->children[i].heap_reason);
  }
  free(f->children);
  for (int i = 0; i < f->nplain; i++)
    free((char *)f->plain[i]);
  free(f->plain);
  free(f->plain_lines);
}

static void facts_free(Facts *f) {
  for (int i = 0; i < f->n; i++)
    free_one(&f->v[i]);
  free(f->v);
  *f = (Facts){0};
}

static void facts_copy(Facts *d, const Facts *s) {
  facts_free(d);
  d->v = dup_array(s->v, sizeof(CoroFacts) * s->n);
  d->n = s->n;
  for (int i = 0; i < s->n; i++)
    copy_one(&d->v[i], &s->v[i]);
}

void insight_keep(Translation *t, const Facts *facts, const Text *coc) {
  facts_copy(&t->facts, facts);
  text_set(&t->coc, coc->text, coc->len);
  t->measured = false;
}

void insight_free(Translation *t) {
  facts_free(&t->facts);
  text_free(&t->coc);
  t->measured = false;
}

static void ignore(const Diagnostic *d, void *ctx) {
  (void)d, (void)ctx;
}

/* The sizes of a translation's frames: coroc once more on the text it was
   made of, measuring (the compiler is run on the C). */
static void measure(Document *doc, int backend) {
  Translation *t = &doc->good[backend];
  if (t->measured || !t->c)
    return;
  t->measured = true; /* (once, even if the compiler fails: the sizes stay unknown) */
  int nargs;
  const char **args = compdb_args(doc->path, &nargs);
  CppArgs cpp = {.args = args, .nargs = nargs};
  Options opt = {.backend = backend, .line_directives = true, .facts = true, .measure = true};
  RunOutput out;
  diag_set_sink(ignore, NULL);
  if (coroc_try_buffer(doc->path, t->coc.text, t->coc.len, &opt, &cpp, &out) == 0 &&
      out.facts->n == t->facts.n)
    facts_copy(&t->facts, out.facts);
  diag_set_sink(NULL, NULL);
  coroc_reset();
}

/* }================================================================== */

/* {==================================================================
 * Positions and text
 * =================================================================== */

/* The LSP position of a .coc line and byte column (both 1-based) in text t. */
static json_t *position(const Text *t, Encoding enc, int line, int col) {
  long ch = text_character(t, enc, line - 1, col > 0 ? (size_t)col - 1 : 0);
  return json_pack("{s:I, s:I}", "line", (json_int_t)(line - 1), "character", (json_int_t)ch);
}

static json_t *range(const Text *t, Encoding enc, int l0, int c0, int l1, int c1) {
  return json_pack("{s:o, s:o}", "start", position(t, enc, l0, c0), "end",
                   position(t, enc, l1, c1));
}

/* A reason as the editor shows it: "live across the yield at PATH:22" reads
   "... at line 22" (--stats names the file, the editor has it open). */
static void put_reason(FILE *out, const char *reason, const char *path) {
  size_t n = strlen(path);
  for (const char *r = reason; *r;)
    if (strncmp(r, path, n) == 0 && r[n] == ':') {
      fputs("line ", out);
      r += n + 1;
    } else {
      fputc(*r++, out);
    }
}

/* Text built with a stream (malloc). */
typedef struct {
  FILE *f;
  char *text;
  size_t len;
} Buf;

static FILE *buf_open(Buf *b) {
  b->f = open_memstream(&b->text, &b->len);
  if (!b->f)
    abort();
  return b->f;
}

static char *buf_close(Buf *b) {
  fclose(b->f);
  return b->text;
}

/* }================================================================== */

/* {==================================================================
 * Hover on a yield or an await
 * =================================================================== */

static bool kept_here(const ResumeFact *r, const char *name) {
  for (int i = 0; i < r->nlive; i++)
    if (strcmp(r->live[i], name) == 0)
      return true;
  return false;
}

/* Is the local x live across r (or kept across every resume point: not
   analysed), or in the frame for a reason of its own (a parameter, an
   address taken, a cleanup)? */
static bool live_here(const FieldFact *x, const ResumeFact *r) {
  return r->nlive < 0 || kept_here(r, x->name);
}

static bool kept_anyway(const FieldFact *x, const ResumeFact *r) {
  return !live_here(x, r) && strncmp(x->reason, "live across", 11) != 0;
}

/* The locals of one kind, each with --stats' reason; how many. */
static int list_locals(FILE *out, const CoroFacts *f, const ResumeFact *r, const char *path,
                       bool (*which)(const FieldFact *, const ResumeFact *), const char *heading) {
  int n = 0;
  for (int i = 0; i < f->nfields; i++) {
    const FieldFact *x = &f->fields[i];
    if (!x->line || !which(x, r))
      continue;
    fprintf(out, "%s- `%s` (line %d): ", n++ ? "" : heading, x->name, x->line);
    put_reason(out, x->reason, path);
    fputc('\n', out);
  }
  return n;
}

/* The locals (and parameters) the frame holds across r: those live across
   it, then those it holds whatever their liveness. */
static void hover_locals(FILE *out, const CoroFacts *f, const ResumeFact *r, const char *path) {
  if (!list_locals(out, f, r, path, live_here, "\n\nThe frame keeps across it (stackless):\n"))
    fprintf(out, "\n\nNo local's value is needed after it: the frame keeps none for it.\n");
  list_locals(out, f, r, path, kept_anyway, "\nIn the frame for the instance's whole life:\n");
}

/* Where the frame of the task an await awaits lives, with each backend. */
static void hover_child(FILE *out, const Document *doc, const CoroFacts *f, const ResumeFact *r) {
  const ChildFact *c = &f->children[r->child];
  if (c->inside)
    fprintf(out, "\n`%s`'s frame is inside `%s`'s (coro_children): no allocation", c->callee,
            f->name);
  else
    fprintf(out, "\n`%s`'s frame is on the heap: %s", c->callee, c->heap_reason);
  const Facts *ful = &doc->good[BACKEND_STACKFUL].facts;
  for (int i = 0; i < ful->n; i++)
    if (strcmp(ful->v[i].name, f->name) == 0 && r->child < ful->v[i].nchildren)
      fprintf(out, "; stackful: %s",
              ful->v[i].children[r->child].inside
                  ? "its body runs on this stack, a plain call (no instance, no allocation)"
                  : "an instance of its own, with a stack of its own");
  fputc('\n', out);
}

static char *hover_text(const Document *doc, const CoroFacts *f, const ResumeFact *r) {
  Buf b;
  FILE *out = buf_open(&b);
  fprintf(out, "**%s**: resume point %d of %s `%s` (line %d)", r->word, r->number, f->kind, f->name,
          r->line);
  hover_locals(out, f, r, doc->path);
  if (r->child >= 0 && r->child < f->nchildren)
    hover_child(out, doc, f, r);
  if (doc->good[BACKEND_STACKLESS].version != doc->version)
    fprintf(out, "\n_(of the last version coroc could translate)_\n");
  return buf_close(&b);
}

bool insight_hover(Message *m, Document *doc, Encoding enc) {
  const Facts *facts = &doc->good[BACKEND_STACKLESS].facts;
  json_int_t line, ch;
  if (json_unpack(m->params, "{s:{s:I, s:I}}", "position", "line", &line, "character", &ch) != 0)
    return false;
  size_t start, len;
  if (!text_line(&doc->text, line, &start, &len))
    return false;
  size_t at = text_offset(&doc->text, enc, line, ch), from = at;
  while (from > start && is_ident_char(doc->text.text[from - 1]))
    from--;
  for (int i = 0; i < facts->n; i++)
    for (int k = 0; k < facts->v[i].nresumes; k++) {
      const ResumeFact *r = &facts->v[i].resumes[k];
      size_t word = strlen(r->word);
      if (!r->number || r->line != line + 1 || (size_t)r->col - 1 != from - start ||
          at > from + word || strncmp(doc->text.text + from, r->word, word) != 0)
        continue;
      char *text = hover_text(doc, &facts->v[i], r);
      rpc_reply(m->id,
                json_pack("{s:{s:s, s:o}, s:o}", "contents", "kind", "markdown", "value",
                          json_text(text, strlen(text)), "range",
                          range(&doc->text, enc, r->line, r->col, r->line, r->col + (int)word)));
      free(text);
      return true;
    }
  return false;
}

/* }================================================================== */

/* {==================================================================
 * Code lenses, the generated C, diagnostics
 * =================================================================== */

static const char *const BACKEND_NAME[2] = {"stackless", "stackful"};

static char *lens_title(const CoroFacts *f) {
  Buf b;
  FILE *out = buf_open(&b);
  if (f->backend == BACKEND_STACKLESS) {
    fprintf(out, "%s of %s", f->kind, f->type);
    if (f->size >= 0)
      fprintf(out, " | stackless: frame %ld bytes; %s", f->size, f->instances);
    else
      fprintf(out, " | stackless: frame size unknown (the compiler failed)");
  } else {
    if (f->nfields == 0)
      fprintf(out, "stackful: no arguments");
    else if (f->size >= 0)
      fprintf(out, "stackful: arguments %ld bytes", f->size);
    else
      fprintf(out, "stackful: arguments of unknown size");
    fprintf(out, ", and a stack of its own (256 KiB unless coro_set_stack_size says otherwise)");
  }
  return buf_close(&b);
}

void insight_code_lens(Message *m, Document *doc, Encoding enc) {
  json_t *lenses = json_array();
  for (int b = 0; b < 2; b++) {
    measure(doc, b);
    const Translation *t = &doc->good[b];
    for (int i = 0; i < t->facts.n; i++) {
      const CoroFacts *f = &t->facts.v[i];
      char *title = lens_title(f);
      json_array_append_new(
          lenses, json_pack("{s:o, s:{s:s, s:s, s:[{s:s, s:s, s:s}]}}", "range",
                            range(&t->coc, enc, f->line, f->col, f->line, f->end_col), "command",
                            "title", title, "command", "coroc.showGeneratedC", "arguments", "uri",
                            doc->uri, "coroutine", f->name, "backend", BACKEND_NAME[b]));
      free(title);
    }
  }
  rpc_reply(m->id, lenses);
}

json_t *insight_generated_c(Document *doc, int backend, const char *name, const char **why) {
  const Translation *t = &doc->good[backend];
  if (!t->c) {
    *why = NULL; /* (no translation yet: null, as before) */
    return NULL;
  }
  if (!name)
    return json_pack("{s:I, s:o}", "version", (json_int_t)t->version, "text",
                     json_text(t->c, t->len));
  for (int i = 0; i < t->facts.n; i++) {
    const CoroFacts *f = &t->facts.v[i];
    if (strcmp(f->name, name) == 0 && f->c_from <= f->c_to && f->c_to <= t->len)
      return json_pack("{s:I, s:o, s:s, s:s}", "version", (json_int_t)t->version, "text",
                       json_text(t->c + f->c_from, f->c_to - f->c_from), "coroutine", f->name,
                       "backend", BACKEND_NAME[backend]);
  }
  *why = "no coroutine of that name is defined in the document";
  return NULL;
}

void insight_diagnostics(const Document *doc, Encoding enc, json_t *list) {
  const Translation *t = &doc->good[BACKEND_STACKLESS];
  if (!t->c || t->version != doc->version)
    return; /* (the positions would be of another text) */
  for (int i = 0; i < t->facts.n; i++) {
    const CoroFacts *f = &t->facts.v[i];
    for (int k = 0; k < f->nresumes; k++) {
      const ResumeFact *r = &f->resumes[k];
      if (!r->number || r->child < 0 || r->child >= f->nchildren || f->children[r->child].inside)
        continue;
      const ChildFact *c = &f->children[r->child];
      char *text;
      if (asprintf(&text, "await %s: its frame is on the heap, not inside %s's: %s", c->callee,
                   f->name, c->heap_reason) < 0)
        abort();
      json_array_append_new(
          list, json_pack("{s:o, s:i, s:s, s:o}", "range",
                          range(&t->coc, enc, r->line, r->col, r->end_line, r->end_col), "severity",
                          3, "source", "coroc", "message", json_text(text, strlen(text))));
      free(text);
    }
  }
}

/* }================================================================== */
