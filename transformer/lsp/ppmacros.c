/* ppmacros.c: the macros of coroc-lsp's own expander (expand.c): a
 * #define read (as the body's directive, or from the lines gcc printed
 * with -dD for the headers) and printed again as -dD prints it, and the
 * table of those the preamble left, read once when the preamble is made.
 * A definition this expander cannot expand exactly (__VA_OPT__ in it, a
 * raw string) stays in the table as defined but `bad`: expanding it is
 * refused, #ifdef still sees it.
 */
#define _GNU_SOURCE
#include "lsp.h"
#include "pp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Memory and the macros
 * =================================================================== */

void *pp_alloc(PPArena *a, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!a->head || a->head->used + n > a->head->cap) {
    size_t cap = n > 65536 ? n : 65536;
    Chunk *c = malloc(sizeof *c + cap);
    if (!c)
      abort();
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += n;
  return p;
}

void pp_free_all(PPArena *a) {
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  a->head = NULL;
}

enum { TABLE_SIZE = 4096 };

struct MacroTable {
  Macro *buckets[TABLE_SIZE];
  char *text; /* the lines, which the spellings point into */
  PPArena arena;
  bool strict;        /* __STRICT_ANSI__: the ISO C modes (no GNU comma rule, trigraphs) */
  bool unsigned_char; /* __CHAR_UNSIGNED__ */
};

unsigned hash_of(const char *s, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

bool named(const Macro *m, const PPTok *t, unsigned h) {
  return m->hash == h && m->len == t->len && memcmp(m->name, t->s, t->len) == 0;
}

/* }================================================================== */

/* {==================================================================
 * Definitions: #define's text read, and printed as -dD does
 * =================================================================== */

void push_tok(Toks *ts, PPArena *a, PPTok t) {
  if (ts->n == ts->cap) {
    int cap = ts->cap ? 2 * ts->cap : 16;
    PPTok *v = pp_alloc(a, cap * sizeof *v);
    if (ts->n)
      memcpy(v, ts->v, ts->n * sizeof *v);
    ts->v = v;
    ts->cap = cap;
  }
  ts->v[ts->n++] = t;
}

static int param_index(const Macro *m, const PPTok *t) {
  for (int i = 0; i < m->nparams; i++)
    if (m->params[i].len == t->len && memcmp(m->params[i].s, t->s, t->len) == 0)
      return i;
  return -1;
}

static bool is_va_args(const PPTok *t) {
  return t->kind == K_IDENT && pp_is(t, "__VA_ARGS__");
}

/* The parameters, after `(`; false when they are not as C says. */
static bool read_params(PPLexer *l, Macro *m, PPArena *a) {
  Toks ps = {0};
  PPTok t = pplex(l, true);
  while (!pp_is(&t, ")")) {
    if (t.kind == K_IDENT && !is_va_args(&t)) {
      m->params = ps.v;
      m->nparams = ps.n;
      if (param_index(m, &t) >= 0)
        return false;
      push_tok(&ps, a, t);
      t = pplex(l, true);
      if (pp_is(&t, "...")) { /* GNU's named variadic: args... */
        m->variadic = true;
        t = pplex(l, true);
        if (!pp_is(&t, ")"))
          return false;
        break;
      }
    } else if (pp_is(&t, "...")) {
      m->variadic = true;
      push_tok(&ps, a, (PPTok){.s = "__VA_ARGS__", .len = 11, .kind = K_IDENT});
      t = pplex(l, true);
      if (!pp_is(&t, ")"))
        return false;
      break;
    } else {
      return false;
    }
    if (pp_is(&t, ")"))
      break;
    if (!pp_is(&t, ","))
      return false;
    t = pplex(l, true);
  }
  m->params = ps.v;
  m->nparams = ps.n;
  return true;
}

/* The replacement list, to the end of the line. */
static bool read_body(PPLexer *l, Macro *m, PPArena *a, PPTok t, unsigned origin) {
  Toks body = {0};
  unsigned sys = origin;
  while (t.kind != K_EOD) {
    if (pp_is(&t, "__VA_OPT__"))
      return false;
    PPTok b = t;
    b.flags = (t.flags & F_WHITE) | sys;
    if (m->func && pp_is(&t, "#")) {
      t = pplex(l, true);
      int i = t.kind == K_IDENT ? param_index(m, &t) : -1;
      if (i < 0)
        return false; /* # must name a parameter */
      t.flags = (b.flags & F_WHITE) | F_PARAM | F_STR | sys;
      t.arg = (short)i;
      push_tok(&body, a, t);
      t = pplex(l, true);
      continue;
    }
    if (pp_is(&t, "##")) {
      t = pplex(l, true);
      if (body.n == 0 || t.kind == K_EOD || pp_is(&t, "##"))
        return false;
      body.v[body.n - 1].flags |= F_PASTE;
      continue;
    }
    int i = m->func && t.kind == K_IDENT ? param_index(m, &t) : -1;
    if (i >= 0) {
      b.flags |= F_PARAM;
      b.arg = (short)i;
    }
    push_tok(&body, a, b);
    t = pplex(l, true);
  }
  if (body.n)
    body.v[0].flags &= ~F_WHITE;
  m->body = body.v;
  m->nbody = body.n;
  return true;
}

/* A #define's text after `define` (the lexer there): the macro, or NULL
   when it is not one, or not one read here. */
Macro *read_define(PPLexer *l, PPArena *a, unsigned origin) {
  PPTok name = pplex(l, true);
  if (name.kind != K_IDENT)
    return NULL;
  Macro *m = pp_alloc(a, sizeof *m);
  *m = (Macro){.name = name.s, .len = name.len, .hash = hash_of(name.s, name.len)};
  PPTok t = pplex(l, true);
  if (pp_is(&t, "(") && !(t.flags & F_WHITE)) {
    m->func = true;
    if (!read_params(l, m, a))
      return NULL;
    t = pplex(l, true);
  }
  return read_body(l, m, a, t, origin) ? m : NULL;
}

static void put(FILE *f, const char *s, int n) {
  fwrite(s, 1, n, f);
}

/* `#define NAME(params) body`, as gcc's -dD prints it. */
void print_define(FILE *f, const Macro *m) {
  fputs("#define ", f);
  put(f, m->name, m->len);
  if (m->func) {
    fputc('(', f);
    for (int i = 0; i < m->nparams; i++) {
      bool anonymous = m->variadic && i == m->nparams - 1 && is_va_args(&m->params[i]);
      if (i)
        fputc(',', f);
      if (!anonymous)
        put(f, m->params[i].s, m->params[i].len);
      if (m->variadic && i == m->nparams - 1)
        fputs("...", f);
    }
    fputc(')', f);
  }
  fputc(' ', f);
  for (int i = 0; i < m->nbody; i++) {
    const PPTok *t = &m->body[i];
    if (t->flags & F_WHITE)
      fputc(' ', f);
    if (t->flags & F_STR)
      fputc('#', f);
    put(f, t->s, t->len);
    if (t->flags & F_PASTE)
      fputs(" ##", f);
  }
}

/* }================================================================== */

/* {==================================================================
 * The table of the preamble's macros
 * =================================================================== */

static void table_set(MacroTable *t, Macro *m, const PPTok *name) {
  unsigned h = hash_of(name->s, name->len);
  Macro **at = &t->buckets[h % TABLE_SIZE];
  while (*at && !named(*at, name, h))
    at = &(*at)->next;
  if (*at)
    *at = (*at)->next; /* (redefined or undefined: the old one goes) */
  if (m) {
    m->next = t->buckets[h % TABLE_SIZE];
    t->buckets[h % TABLE_SIZE] = m;
  }
}

/* A definition this file does not read (a raw string, __VA_OPT__):
   defined, but not to be expanded. */
static Macro *bad_macro(MacroTable *t, const PPTok *name) {
  Macro *m = pp_alloc(&t->arena, sizeof *m);
  *m = (Macro){.name = name->s, .len = name->len, .hash = hash_of(name->s, name->len), .bad = true};
  return m;
}

/* One line of what gcc printed: a linemarker (what follows is a system
   header's, F_SYS, or gcc's own, F_BUILTIN?), #define or #undef; false
   for a line that is none of them (then no line is to be trusted). */
static bool table_line(MacroTable *t, const char *line, size_t len, unsigned *origin) {
  if (len > 2 && line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9') {
    const char *q = memrchr(line, '"', len);
    *origin = memmem(line, len, "\"<built-in>\"", 12)   ? F_BUILTIN
              : q && memmem(q, line + len - q, " 3", 2) ? F_SYS
                                                        : 0;
    return true;
  }
  jmp_buf fail;
  PPLexer l;
  pplex_init(&l, line, len, 1, &fail);
  if (setjmp(fail))
    return false;
  PPTok hash = pplex(&l, true), directive = pplex(&l, true), name = pplex(&l, true);
  if (!pp_is(&hash, "#") || name.kind != K_IDENT)
    return false;
  if (pp_is(&directive, "undef")) {
    table_set(t, NULL, &name);
    return true;
  }
  if (!pp_is(&directive, "define"))
    return false;
  PPLexer definition;
  pplex_init(&definition, name.s, line + len - name.s, 1, &fail);
  Macro *m = setjmp(fail) ? NULL : read_define(&definition, &t->arena, *origin);
  table_set(t, m ? m : bad_macro(t, &name), &name);
  return true;
}

MacroTable *expand_table(const char *lines, size_t len) {
  MacroTable *t = calloc(1, sizeof *t);
  if (!t)
    abort();
  t->text = malloc(len + 1);
  if (!t->text)
    abort();
  memcpy(t->text, lines, len);
  t->text[len] = '\0';
  unsigned origin = 0;
  bool understood = true;
  for (const char *p = t->text, *end = t->text + len; p < end && understood;) {
    const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end;
    understood = table_line(t, p, eol - p, &origin);
    p = eol + 1;
  }
  PPTok strict = {.s = "__STRICT_ANSI__", .len = 15}, uchar = {.s = "__CHAR_UNSIGNED__", .len = 17};
  PPTok gnuc = {.s = "__GNUC__", .len = 8}, clang = {.s = "__clang__", .len = 9};
  t->strict = table_find(t, &strict, hash_of(strict.s, strict.len));
  t->unsigned_char = table_find(t, &uchar, hash_of(uchar.s, uchar.len));
  if (!understood || !table_find(t, &gnuc, hash_of(gnuc.s, gnuc.len)) ||
      table_find(t, &clang, hash_of(clang.s, clang.len))) {
    /* another preprocessor than gcc (whose ways these are), or its lines misread */
    expand_table_free(t);
    return NULL;
  }
  return t;
}

void expand_table_free(MacroTable *t) {
  if (!t)
    return;
  pp_free_all(&t->arena);
  free(t->text);
  free(t);
}

/* }================================================================== */

Macro *table_find(const MacroTable *t, const PPTok *name, unsigned h) {
  for (Macro *m = t->buckets[h % TABLE_SIZE]; m; m = m->next)
    if (named(m, name, h))
      return m;
  return NULL;
}

bool table_strict(const MacroTable *t) {
  return t->strict;
}

bool table_unsigned_char(const MacroTable *t) {
  return t->unsigned_char;
}
