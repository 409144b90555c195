/* emit.c: printing the output, and what both backends print alike.
 *
 * The user's text outside coroutines is copied byte for byte. Each coroutine
 * prototype becomes the prototype of its creation function, and each
 * coroutine definition becomes, in its place, what its backend prints
 * (emit_stackless.c, emit_stackful.c): both call the pieces here, never each
 * other. The printers only read what the passes decided: printing twice
 * gives the same bytes.
 *
 * Lines are printed one per line, indented, each preceded by a #line
 * directive when the compiler would otherwise count a different .coc line,
 * so that compiler messages and gdb point into the .coc. Preprocessor lines
 * kept inside a body are printed in place, with the macros that name a
 * coroutine's locals rewritten to its frame.
 */
#define _GNU_SOURCE
#include "coroc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Lines and #line
 * =================================================================== */

void lines_push(Lines *l, Line line) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = xrealloc(l->v, sizeof(Line) * l->cap);
  }
  l->v[l->n++] = line;
}

/* `#line N "file.coc"`, or just `#line N` once the file name is set. After
   a #line of the user's own, the number and the name are the ones it gives
   (the compiler, gdb and __LINE__ see what they would see in the .coc). */
static void line_directive(Emitter *e, int line) {
  const char *quoted;
  line = logical_line(e->src, line, &quoted);
  if (quoted) {
    fprintf(e->out, "#line %d %s\n", line, quoted);
    e->named = false;  /* the next plain one names the .coc again */
    return;
  }
  if (e->named)
    fprintf(e->out, "#line %d\n", line);
  else
    fprintf(e->out, "#line %d \"%s\"\n", line, e->src->name);
  e->named = !e->src->has_line_directives;
}

enum { MAX_INDENT = 40 };

/* Print one line of output that stands for `line` of the .coc (0: a line of
   coroc's own that stands for nothing in particular). */
void emit_put(Emitter *e, int line, const char *fmt, ...) {
  if (e->sink) {  /* lowering: the line is kept, to be printed later */
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    lines_push(e->sink, (Line){LINE_CODE, line, e->indent, text});
    return;
  }
  if (line > 0 && line != e->mapped && e->opt->line_directives)
    line_directive(e, line);
  if (line > 0)
    e->mapped = line;
  /* deeper than MAX_INDENT levels the text stops moving right: readable for
     any real body, and linear in size for a machine-made one nested 10^5 deep */
  static const char spaces[2 * MAX_INDENT + 1] = {[0 ... 2 * MAX_INDENT - 1] = ' '};
  fwrite(spaces, 1, (size_t)(e->indent < MAX_INDENT ? e->indent : MAX_INDENT) * 2, e->out);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(e->out, fmt, ap);
  va_end(ap);
  fputc('\n', e->out);
  if (e->mapped)
    e->mapped++;
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
    line_directive(e, line);
  e->mapped = line;
}

void emit_resync(Emitter *e, int line) {
  e->mapped = line;
}

/* #if, #ifdef, #ifndef, #elif, #else, #endif */
static bool is_conditional_directive(const Token *t) {
  const char *q = strchr(t->text, '#') + 1;
  q += strspn(q, " \t");
  return strncmp(q, "if", 2) == 0 || strncmp(q, "el", 2) == 0 || strncmp(q, "endif", 5) == 0;
}

/* The frame field that a name in a macro body defined at token `at` means:
   the latest local of that name declared before it. */
static const char *local_field(Emitter *e, const char *name, size_t len, int at) {
  const char *field = NULL;
  for (int i = 0; i < e->co->locals.n; i++) {
    Sym *s = e->co->locals.v[i]->sym;
    if (strlen(s->name) == len && strncmp(s->name, name, len) == 0 &&
        (s->tok - e->toks->v) < at)
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

static const char *directive_macro(const Token *t, bool *define) {
  size_t n;
  const char *p = directive_macro_name(t->text, &n, define);
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
    const char *field = member || param || w < (params_end ? params_end : w) ? NULL
                                                                           : local_field(e, w, n, at);
    if (field)
      fprintf(f, "coro_f->%s", field);
    else
      fwrite(w, 1, n, f);
    prev = 'a';
  }
  fclose(f);
  return buf;
}

static char *directive_text(Emitter *e, const Token *t) {
  return rewrite_define(e, t->text, t - e->toks->v);
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
    Token fake = {.text = def};
    const char *name = directive_macro(&fake, &define);
    fprintf(e->out, "#undef %s\n%s\n", name, restore ? def : body);
    e->mapped = 0;
  }
}

/* Is this directive a #define or #undef the preprocessor kept? */
static bool is_kept_directive(Emitter *e, const Token *t) {
  return t->kind == TK_DIRECTIVE && !is_conditional_directive(t) && !is_line_directive(t->text) &&
         e->src->directive_live[t->line];
}

/* Token i is the body's first directive about its macro, and defines it. */
bool is_first_define(Emitter *e, Coroutine *co, int i) {
  bool define;
  const char *name = is_kept_directive(e, &e->toks->v[i]) ? directive_macro(&e->toks->v[i], &define) : NULL;
  if (!name || !define)
    return false;
  for (int j = co->first; j < i; j++) {
    bool d;
    const char *other = is_kept_directive(e, &e->toks->v[j]) ? directive_macro(&e->toks->v[j], &d) : NULL;
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
      line_directive(e, t->line);
    fprintf(e->out, "%s\n", text);
    e->mapped = t->line + 1;
    for (const char *p = text; *p; p++)
      e->mapped += *p == '\n';
  }
}

char *emit_line_text(Source *src, int physical) {
  const char *quoted;
  int line = logical_line(src, physical, &quoted);
  if (quoted)
    return format("#line %d %s", line, quoted);
  if (src->has_line_directives)  /* the name may have changed before: give it again */
    return format("#line %d \"%s\"", line, src->name);
  return format("#line %d", line);
}

/* `int n` of `coroutine int fib(int n)` -> the creation function's header. */
char *emit_creation_header(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  /* a static one that is only ever awaited inline is never called */
  const char *unused = co->is_static && co->awaited_inline ? "__attribute__((unused)) " : "";
  return format("%s%scoro_t *%s%s", unused, co->is_static ? "static " : "", co->name,
                range_str(e, f->first, f->last, &(Style){.raw = true}));
}

/* The kind of its instances (enum coro_kind), as both backends' creation
   functions pass it. */
const char *emit_kind_of(const Coroutine *co) {
  const char *kind = co->is_async       ? "CORO_GENERATOR | CORO_TASK"
                     : co->is_generator ? "CORO_GENERATOR"
                                        : "CORO_TASK";
  return co->runs_cleanups ? format("%s | CORO_CLEANUP", kind) : kind;
}

/* coro_in_NAME is a static inline of the .c, seen by the compiler wherever
   the file uses it; with --header, the header declares it for other files,
   and a coroutine with external linkage gets an external one (emit_header.c
   says why not an inline in the header). */
const char *emit_in_linkage(Emitter *e, Coroutine *co) {
  return e->opt->header && !co->is_static ? "" : "static inline __attribute__((unused)) ";
}

/* An external coro_in_NAME is declared before its definition, as the
   header declares it (so that -Wmissing-prototypes has nothing to say). */
void emit_in_declaration(Emitter *e, Coroutine *co) {
  if (!*emit_in_linkage(e, co)) {
    char *params = emit_param_list(e, co);
    emit_put(e, emit_line_of(e, co->decl), "coro_t *coro_in_%s(struct coro_frame_%s *coro_f%s%s);  "
             "/* (in the header too) */", co->name, co->name, *params ? ", " : "", params);
  }
}

/* "int n, char *s" of `(int n, char *s)`; "" of `(void)` and `()`. */
char *emit_param_list(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  char *text = range_str(e, f->first, f->last, &(Style){.raw = true});
  char *open = strchr(text, '('), *close = strrchr(text, ')');
  if (!open || !close || close < open)
    internal_error("the parameter list of %s: '%s'", co->name, text);
  char *inner = xstrndup(open + 1, (size_t)(close - open - 1));
  char *s = inner;
  while (*s == ' ' || *s == '\t' || *s == '\n')
    s++;
  if (!*s || strcmp(s, "void") == 0)
    return "";
  return inner;
}

/* `typedef int coro_value_fib;`: the declared type without the function part. */
void emit_value_type(Emitter *e, Coroutine *co) {
  Node *d = co->declarator;
  Style st = {.name = d->tok, .name_text = format("coro_value_%s", co->name),
              .omit = d->kids.v[0], .collapse = true};
  emit_put(e, emit_line_of(e, co->decl), "typedef %s %s;", specs_str(e, co->specs, false),
           range_str(e, d->first, d->last, &st));
}

/* }================================================================== */

/* {==================================================================
 * The driver
 * =================================================================== */

static void emit_coroutine(Emitter *e, Coroutine *co) {
  e->co = co;
  if (co->is_prototype) {
    emit_value_type(e, co);  /* an await of it reads its value as this type */
    emit_put(e, emit_line_of(e, co->decl), "CORO_NODISCARD %s;", emit_creation_header(e, co));
    return;
  }
  if (e->opt->backend == BACKEND_STACKFUL) {
    emit_stackful(e, co);
    return;
  }
  emit_stackless(e, co);
}

/* Copy the user's text between coroutines verbatim, and print each
   coroutine in its place. */
void emit(FILE *out, Source *src, Coroutine *cos, const Options *opt) {
  Emitter e = {.out = out, .src = src, .opt = opt, .toks = &src->original, .mapped = 1};
  size_t at = 0;
  bool included = false;
  for (Coroutine *co = cos; co; co = co->next) {
    Token *first = &src->original.v[co->first], *last = &src->original.v[co->last];
    fwrite(src->raw + at, 1, first->offset - at, out);
    for (size_t i = at; i < first->offset; i++)
      e.mapped += src->text[i] == '\n';
    if (src->has_line_directives)
      e.mapped = 0, e.named = false;  /* the user's own #line may have moved the count */
    if (first->offset > 0 && src->text[first->offset - 1] != '\n') {
      fputc('\n', out);
      e.mapped = 0;
    }
    if (!included) {
      emit_put(&e, 0, "#include <coro.h>  /* added by coroc: the runtime of the coroutines below */");
      included = true;
    }
    emit_coroutine(&e, co);
    at = token_end(last);
    if (opt->line_directives && at < src->len)
      line_directive(&e, last->line);
    e.mapped = last->line;
  }
  fwrite(src->raw + at, 1, src->len - at, out);
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
