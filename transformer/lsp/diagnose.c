/* diagnose.c: a document through coroc, as the editor holds it.
 *
 * On each change the server runs coroc's whole pipeline in its own process
 * on the document's current text (coroc_try_buffer: the text, named by the
 * document's path, so that its "..." includes are found beside it), once
 * for each backend, each run followed by coroc_reset. What coroc would
 * print on stderr comes here as data (diag_set_sink): a run stops at its
 * first error, so each backend gives one error or none. Every coroutine
 * rule is checked for both backends at once (check.c), so an error in the
 * input usually comes from both, at the same place: it is published once.
 * One that only one backend gives says which.
 *
 * The C of each backend's last run without an error is kept (Document's
 * good[]): while the text has an error, the last good translation stays,
 * for what will read it next (clangd, on the generated C; the request
 * coroc/generatedC shows it).
 *
 * The preprocessor runs once a change, not once a run, and on the text
 * after the document's last #include only, while the headers before it
 * stay as they are (preamble.c): both runs read what it printed
 * (CppArgs.output_fd). With COROC_LSP_TIMING set in its environment,
 * the server says (window/logMessage) how long each document took here,
 * for the benchmark (tests/bench/part10-lsp).
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What a run reported (its first diagnostic), kept past coroc_reset. */
typedef struct {
  bool found;
  DiagKind kind;
  char *file; /* NULL: no position */
  int line, col, len;
  char *message;
} Found;

static char *copy(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d)
    abort();
  return d;
}

static void collect(const Diagnostic *d, void *ctx) {
  Found *f = ctx;
  if (f->found)
    return; /* (a run reports once: it ends at its first error) */
  f->found = true;
  f->kind = d->kind;
  f->file = d->pos.file ? copy(d->pos.file) : NULL;
  f->line = d->pos.line;
  f->col = d->pos.col;
  f->len = d->pos.len;
  f->message = copy(d->message);
}

static void found_free(Found *f) {
  free(f->file);
  free(f->message);
  *f = (Found){0};
}

static bool same(const Found *a, const Found *b) {
  return a->kind == b->kind && a->line == b->line && a->col == b->col &&
         strcmp(a->message, b->message) == 0 &&
         (a->file && b->file ? strcmp(a->file, b->file) == 0 : a->file == b->file);
}

void translation_free(Translation *t) {
  insight_free(t);
  free(t->c);
  *t = (Translation){0};
}

/* A backend's C, kept as the last good translation. */
static void keep(Document *doc, Backend backend, const RunOutput *out) {
  Translation *t = &doc->good[backend];
  free(t->c);
  t->c = malloc(out->len + 1);
  if (!t->c)
    abort();
  memcpy(t->c, out->text, out->len);
  t->c[out->len] = '\0';
  t->len = out->len;
  t->version = doc->version;
  insight_keep(t, out->facts, &doc->text); /* (what the passes decided: insight.c) */
}

/* What coroc is told of the preprocessor: the document's options, and its
   output when preamble.c made it (`expanded`, -1: none). */
static CppArgs cpp_args(Document *doc, int expanded) {
  int nargs;
  const char **args = compdb_args(doc->path, &nargs);
  if (expanded >= 0)
    lseek(expanded, 0, SEEK_SET); /* (each run reads it from the start) */
  return (CppArgs){.args = args, .nargs = nargs, .output_fd = expanded >= 0 ? expanded : 0};
}

static void nothing_said(Found *f) { /* (every error reports: this is a bug of coroc's) */
  if (!f->found)
    *f = (Found){true, DIAG_INTERNAL, NULL, 0, 0, 0, copy("the run failed and said nothing")};
}

/* One run of coroc on the document with `backend`. */
static void run_backend(Document *doc, Backend backend, int expanded, Found *f) {
  CppArgs cpp = cpp_args(doc, expanded);
  Options opt = {.backend = backend, .line_directives = true, .facts = true};
  RunOutput out;
  diag_set_sink(collect, f);
  int failed = coroc_try_buffer(doc->path, doc->text.text, doc->text.len, &opt, &cpp, &out);
  diag_set_sink(NULL, NULL);
  if (!failed)
    keep(doc, backend, &out);
  else
    nothing_said(f);
  coroc_reset(); /* all the run took, given back */
}

/* Both backends: one run when it can say all (coroc_try_buffer_both), else
   one a backend, when the error is in a backend's own part. */
static void run_backends(Document *doc, int expanded, Found f[2]) {
  CppArgs cpp = cpp_args(doc, expanded);
  Options opt = {.line_directives = true, .facts = true};
  RunOutput out[2];
  diag_set_sink(collect, &f[0]);
  int failed = coroc_try_buffer_both(doc->path, doc->text.text, doc->text.len, &opt, &cpp, out);
  diag_set_sink(NULL, NULL);
  if (failed == 0) {
    keep(doc, BACKEND_STACKLESS, &out[BACKEND_STACKLESS]);
    keep(doc, BACKEND_STACKFUL, &out[BACKEND_STACKFUL]);
  } else if (failed == 1) { /* both backends' error */
    nothing_said(&f[0]);
    f[1] = f[0];
    f[1].file = f[0].file ? copy(f[0].file) : NULL;
    f[1].message = copy(f[0].message);
  }
  coroc_reset();
  if (failed == 2) {
    found_free(&f[0]);
    run_backend(doc, BACKEND_STACKLESS, expanded, &f[0]);
    run_backend(doc, BACKEND_STACKFUL, expanded, &f[1]);
  }
}

/* The LSP range of what f points at: its bytes on its line (a token's), or
   the word there when coroc did not say how long it is; the document's
   first character when it is not in the document. */
static json_t *range_of(const Document *doc, Encoding enc, const Found *f) {
  long line = 0, from = 0, to = 0;
  size_t start, len;
  if (f->kind == DIAG_ERROR && f->file && strcmp(f->file, doc->path) == 0 &&
      text_line(&doc->text, f->line - 1, &start, &len)) {
    line = f->line - 1;
    size_t a = f->col > 1 ? (size_t)f->col - 1 : 0, b;
    if (a > len)
      a = len;
    if (f->len > 0) {
      b = a + f->len;
    } else {
      const char *s = doc->text.text + start;
      for (b = a; b < len && is_ident_char(s[b]); b++)
        ;
      if (b == a && b < len) /* not a word: its one character */
        for (b++; b < len && (s[b] & 0xC0) == 0x80; b++)
          ;
    }
    if (b > len)
      b = len;
    from = text_character(&doc->text, enc, line, a);
    to = text_character(&doc->text, enc, line, b);
  }
  return json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "start", "line", (json_int_t)line, "character",
                   (json_int_t)from, "end", "line", (json_int_t)line, "character", (json_int_t)to);
}

/* f as an LSP diagnostic; `only`: the one backend that gave it, or NULL. */
static json_t *diagnostic(const Document *doc, Encoding enc, const Found *f, const char *only) {
  char *text;
  const char *suffix = only ? only : "";
  int n;
  if (f->kind == DIAG_INTERNAL && f->file)
    n = asprintf(&text, "internal error in coroc at %s:%d: %s%s", f->file, f->line, f->message,
                 suffix);
  else if (f->kind == DIAG_INTERNAL)
    n = asprintf(&text, "internal error in coroc: %s%s", f->message, suffix);
  else if (f->kind == DIAG_ERROR && f->file && strcmp(f->file, doc->path) != 0)
    n = asprintf(&text, "%s:%d:%d: %s%s", f->file, f->line, f->col, f->message, suffix);
  else
    n = asprintf(&text, "%s%s", f->message, suffix);
  if (n < 0)
    abort();
  json_t *d = json_pack("{s:o, s:i, s:s, s:o}", "range", range_of(doc, enc, f), "severity", 1,
                        "source", "coroc", "message", json_text(text, strlen(text)));
  free(text);
  return d;
}

/* The preprocessor's output of the document, for both runs (preamble.c). */
static int expand(Document *doc, Expanded *how) {
  int nargs;
  const char **args = compdb_args(doc->path, &nargs);
  int fd =
      preamble_expand(&doc->preamble, doc->path, doc->text.text, doc->text.len, args, nargs, how);
  coroc_reset(); /* (what it asked of the pipeline's memory) */
  return fd;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void diagnose(Document *doc, Encoding enc) {
  double start = now_ms();
  Found f[2] = {{0}};
  Expanded how;
  int expanded = expand(doc, &how);
  run_backends(doc, expanded, f);
  if (expanded >= 0)
    close(expanded);
  json_t *list = json_array();
  if (f[0].found && f[1].found && same(&f[0], &f[1])) {
    json_array_append_new(list, diagnostic(doc, enc, &f[0], NULL));
  } else {
    static const char *const only[2] = {" (with the stackless backend only)",
                                        " (with the stackful backend only)"};
    for (int b = 0; b < 2; b++)
      if (f[b].found)
        json_array_append_new(list, diagnostic(doc, enc, &f[b], only[b]));
  }
  found_free(&f[0]);
  found_free(&f[1]);
  insight_diagnostics(doc, enc, list); /* the awaits whose children stay on the heap */
  doc->dirty = false;
  json_decref(doc->coroc_diags);
  doc->coroc_diags = list;
  if (getenv("COROC_LSP_TIMING"))
    rpc_log(4, "coroc-lsp: timing: %s version %ld: coroc %.3f ms, preprocessor on %s", doc->uri,
            doc->version, now_ms() - start,
            how == EXPANDED_BODY       ? "the body"
            : how == EXPANDED_BODY_CPP ? "the body, by the preprocessor"
            : how == EXPANDED_WHOLE    ? "the whole text"
                                       : "the whole text, by coroc");
}
