/* emit_cleanup.c: what the stackless printer prints of the locals declared
 * __attribute__((cleanup(fn))) (passes/cleanup.c decides where they are in
 * scope, and which calls each exit and each resume point makes).
 *
 * A local with a cleanup lives in the frame, where the attribute means
 * nothing: its field is declared without it (cleanup_strip). An instance
 * freed while suspended runs the cleanups in scope where it stopped:
 * coro_cleanup_NAME, which coro_free calls, switches on the resume point
 * (emit_cleanup_function).
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "support/memstream.h" /* Text */

#include <string.h>

/* The words of a type a macro's expansion ends with (`g_autoptr(GString)`: `GString_autoptr`),
   each followed by a space; "" for none. */
static char *type_words(const TokenList *type) {
  Text s;
  TEXT_INIT(s);
  for (int i = 0; i < type->n; i++) {
    text_puts(&s, tok_text(&type->v[i]));
    text_puts(&s, " ");
  }
  return text_take(&s);
}

/* decl without the first use of a macro for a cleanup among tokens
   first..last (`_cleanup_free_ char *s` -> `char *s`), or as it was; a use
   whose expansion ends with a type (`g_autoptr(GString) s`) leaves the type
   (`GString_autoptr s`). */
static char *strip_macro_use(Emitter *e, char *decl, int first, int last) {
  for (int i = first; i <= last; i++) {
    const Token *t = &e->toks->v[i];
    if (t->kind != TK_IDENT || !macro_definition(tok_text(t)))
      continue;
    TokenList groups = {0}, type = {0};
    int end = attribute_macro(e->toks, i, &groups, 0);
    if (end < 0)
      end = typed_attribute_macro(e->toks, i, &groups, &type);
    bool cleanup = end >= 0 && cleanup_function(&groups, 0, groups.n - 1);
    xfree(groups.v);
    char *use = cleanup ? emit_range(e, i, end, false) : NULL;
    char *at = use ? strstr(decl, use) : NULL;
    if (at) {
      const char *after = at + strlen(use);
      after += *after == ' ';
      char *words = type_words(&type);
      char *out = format("%.*s%s%s", (int)(at - decl), decl, words, after);
      xfree(words);
      xfree(type.v);
      xfree(use);
      xfree(decl);
      return out;
    }
    xfree(type.v);
  }
  return decl;
}

/* The text of a field's declaration without its cleanup attribute:
   `char *buf __attribute__((cleanup(release)))` -> `char *buf __attribute__(())`. */
char *cleanup_strip(Emitter *e, const char *decl, int first, int last) {
  char *out = strip_macro_use(e, xstrndup(decl, strlen(decl)), first, last);
  for (char *p = out; (p = strstr(p, "cleanup")) != NULL;) {
    char *start = p;
    while (start > out && start[-1] == '_')
      start--;
    char *q = p + strlen("cleanup");
    while (*q == '_')
      q++;
    bool word = (start == out || !is_ident_char(start[-1])) && !is_ident_char(*q);
    char *open = q;
    while (*open == ' ')
      open++;
    if (!word || *open != '(') {
      p = q;
      continue;
    }
    char *close = strchr(open, ')');
    if (!close) {
      break;
    }
    close++;
    while (*close == ' ')
      close++;
    if (*close == ',') /* `cleanup(f), aligned(8)`: its comma goes too */
      close++;
    memmove(start, close, strlen(close) + 1);
    p = start;
  }
  for (char *p; (p = strstr(out, "__attribute__(())")) != NULL;) { /* nothing else was in it */
    char *end = p + strlen("__attribute__(())");
    while (p > out && p[-1] == ' ')
      p--;
    memmove(p, end, strlen(end) + 1);
  }
  return out;
}

/* static void coro_cleanup_NAME(coro_t *coro_c): what coro_free calls for
   an instance suspended at a resume point: the cleanups in scope there,
   innermost first, after the child inside its frame that it awaits there. */
void emit_cleanup_function(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(
      e, 0,
      "/* coro_free of %s suspended: its cleanups in scope where it stopped, innermost first */",
      co->name);
  emit_put(e, at, "static void coro_cleanup_%s(coro_t *coro_c) {", co->name);
  e->indent++;
  emit_put(e, at, "struct coro_frame_%s *coro_f = (struct coro_frame_%s *)coro_c;", co->name,
           co->name);
  emit_put(e, 0, "(void)coro_f;");
  emit_put(e, at, "switch (coro_c->resume_point) {");
  for (int k = 1; co->cleanup_calls && k <= co->nresume; k++) {
    Node *n = co->cleanup_points[k];
    char *text = co->cleanup_calls[k];
    char *child = NULL;
    if (n && n->kind == ND_AWAIT && n->inline_child && n->inline_child->runs_cleanups)
      child = format("coro_free(&coro_f->coro_children.coro_in_%d.coro_base.base);", k);
    if (!text && !child)
      continue;
    emit_put(e, at, "case %d:  /* %s:%d */", k, e->src->name, co->resume_lines[k]);
    e->indent++;
    if (child)
      emit_put(e, at, "%s", child);
    if (text)
      emit_put(e, at, "%s", text);
    emit_put(e, 0, "break;");
    e->indent--;
  }
  emit_put(e, 0, "}");
  e->indent--;
  emit_put(e, 0, "}");
}
