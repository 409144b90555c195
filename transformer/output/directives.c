/* directives.c: preprocessor lines inside a coroutine body.
 *
 * The #if family was already decided by the preprocessor; the directives it
 * kept (#define, #undef, #pragma...) are printed where they stand in the
 * body, through the writer (writer.c). A #define may name the coroutine's
 * locals (`#define SUM (a + b)`): those now live in the frame, so the body
 * it prints says coro_f->a; and macros defined before the coroutine that
 * name its locals are redefined for the length of its body, then given back
 * (redefine_macros). The lowering (lower.c) keeps a body's directives in its
 * lines; the stackless printer and the header print them.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "front/lines.h"

#include <string.h>

/* #if, #ifdef, #ifndef, #elif, #else, #endif */
static bool is_conditional_directive(const Token *t) {
  const char *q = strchr(tok_text(t), '#') + 1;
  q += strspn(q, " \t");
  return strncmp(q, "if", 2) == 0 || strncmp(q, "el", 2) == 0 || strncmp(q, "endif", 5) == 0;
}

/* The frame field that a name in a macro body defined at token `at` means:
   the latest local of that name declared before it. */
static const char *local_field(Emitter *e, const char *name, size_t len, int at) {
  const char *field = NULL;
  for (int i = 0; i < e->co->locals.n; i++) {
    Sym *s = e->co->locals.v[i]->sym;
    if (strlen(s->name) == len && strncmp(s->name, name, len) == 0 && (s->tok - e->toks->v) < at)
      field = s->field;
  }
  return field;
}


/* The macro that the text of a #define or #undef line names, its length in
 *len, and whether it defines; NULL for other lines (emit_header.c too). */
const char *directive_macro_name(const char *text, size_t *len, bool *define) {
  const char *p = strchr(text, '#');
  if (!p)
    return NULL;
  p += 1 + strspn(p + 1, " \t");
  *define = strncmp(p, "define", 6) == 0;
  if (!*define && strncmp(p, "undef", 5) != 0)
    return NULL;
  p += *define ? 6 : 5;
  p += strspn(p, " \t");
  size_t n = 0;
  while (is_ident_char(p[n]))
    n++;
  *len = n;
  return n ? p : NULL;
}

/* The name a #define or #undef line names, as a string of its own. */
static const char *directive_macro(const char *text, bool *define) {
  size_t n;
  const char *p = directive_macro_name(text, &n, define);
  return p ? xstrndup(p, n) : NULL;
}

/* A #define inside a coroutine body may name its locals (`#define SUM (a + b)`):
   those now live in the frame, so its body says coro_f->a. Strings,
   members (.a, ->a) and the macro's own parameters are left alone. */
static char *rewrite_define(Emitter *e, const char *directive, int at) {
  const char *text = directive + strspn(directive, " \t");
  const char *p = strchr(text, '#') + 1;
  p += strspn(p, " \t");
  if (strncmp(p, "define", 6) != 0 || !e->co)
    return (char *)text;
  p += 6;
  p += strspn(p, " \t");
  while (is_ident_char(*p))
    p++;
  const char *params = *p == '(' ? p : NULL;
  const char *params_end = params ? strchr(params, ')') : NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  fwrite(text, 1, p - text, f);
  char prev = ' ';
  while (*p) {
    if (*p == '"' || *p == '\'') {
      const char *q = p + 1;
      while (*q && *q != *p)
        q += (*q == '\\' && q[1]) ? 2 : 1;
      q += *q ? 1 : 0;
      fwrite(p, 1, q - p, f);
      p = q;
      continue;
    }
    if (!is_ident_char(*p) || (*p >= '0' && *p <= '9')) {
      if (*p != ' ' && *p != '\t')
        prev = *p;
      fputc(*p++, f);
      continue;
    }
    const char *w = p;
    while (is_ident_char(*p))
      p++;
    size_t n = p - w;
    bool member = prev == '.' || prev == '>';
    bool param = false;
    if (params && w > params_end)
      for (const char *q = params + 1; q < params_end;) {
        const char *a = q;
        while (is_ident_char(*q))
          q++;
        if ((size_t)(q - a) == n && strncmp(a, w, n) == 0)
          param = true;
        q += q == a ? 1 : 0;
      }
    const char *field =
        member || param || w < (params_end ? params_end : w) ? NULL : local_field(e, w, n, at);
    if (field)
      xfprintf(f, "coro_f->%s", field);
    else
      fwrite(w, 1, n, f);
    prev = 'a';
  }
  memstream_close(f);
  return buf;
}

static char *directive_text(Emitter *e, const Token *t) {
  return rewrite_define(e, tok_text(t), t - e->toks->v);
}

/* Macros defined before the coroutine that name its locals (`#define CUR
   text[pos]` above `coroutine int scan(const char *text)`) are redefined
   for its body, and given back their own definitions after it. */
void redefine_macros(Emitter *e, Coroutine *co, bool restore) {
  for (int i = 0; i < co->nmacros; i++) {
    const char *def = co->macros[i] + strspn(co->macros[i], " \t");
    const char *body = rewrite_define(e, def, co->last);
    if (strcmp(body, def) == 0)
      continue;
    bool define;
    const char *name = directive_macro(def, &define);
    xfprintf(e->out, "#undef %s\n%s\n", name, restore ? def : body);
    e->mapped = 0;
  }
}

/* Is this directive a #define or #undef the preprocessor kept? */
static bool is_kept_directive(Emitter *e, const Token *t) {
  return t->kind == TK_DIRECTIVE && !is_conditional_directive(t) &&
         !is_line_directive(tok_text(t)) && e->src->directive_live[t->line];
}

/* Token i is the body's first directive about its macro, and defines it. */
bool is_first_define(Emitter *e, Coroutine *co, int i) {
  bool define;
  const char *name = is_kept_directive(e, &e->toks->v[i])
                         ? directive_macro(tok_text(&e->toks->v[i]), &define)
                         : NULL;
  if (!name || !define)
    return false;
  for (int j = co->first; j < i; j++) {
    bool d;
    const char *other =
        is_kept_directive(e, &e->toks->v[j]) ? directive_macro(tok_text(&e->toks->v[j]), &d) : NULL;
    if (other && strcmp(other, name) == 0)
      return false;
  }
  return true;
}

/* Preprocessor lines kept inside a body: #define, #undef, #pragma... (the
   #if family was already decided by the preprocessor). */
void emit_directives(Emitter *e, int from, int to) {
  for (int i = from; i < to && i < e->toks->n; i++) {
    if (!is_kept_directive(e, &e->toks->v[i]))
      continue;
    if (e->sink)
      lines_push(e->sink, (Line){LINE_DIRECTIVE, i, 0, NULL});
    else
      emit_directive(e, i);
  }
}

/* The kept directive that is token i, in its place. */
void emit_directive(Emitter *e, int i) {
  {
    Token *t = &e->toks->v[i];
    const char *text = directive_text(e, t);
    if (e->opt->line_directives && e->mapped != t->line)
      emit_line_directive(e, t->line);
    xfprintf(e->out, "%s\n", text);
    e->mapped = t->line + 1;
    for (const char *p = text; *p; p++)
      e->mapped += *p == '\n';
  }
}
