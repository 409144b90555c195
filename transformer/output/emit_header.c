/* emit_header.c: --header, what other files need to make instances of a
 * .coc's coroutines in storage they give.
 *
 *   #ifndef CORO_HEADER_GEN_H                    a guard, from the header's name
 *   #define CORO_HEADER_GEN_H
 *   #include <stdint.h>                          the .coc's own #include lines
 *   #include <coro.h>
 *   #pragma push_macro("CAP")                    the .coc's macros that the
 *   #undef CAP                                   frames name, defined for them
 *   #define CAP 16                               alone (popped at the end)
 *   typedef struct { int x, y; } point;          its file-scope types that the
 *                                                frames name, copied as written
 *   typedef int coro_value_count;                each frame, printed by the
 *   struct coro_frame_count { ... };             backend's own printer, as in
 *                                                the .c
 *   CORO_NODISCARD coro_t *count(int from, int to);
 *   coro_t *coro_in_count(struct coro_frame_count *coro_f, int from, int to);
 *   #undef CAP
 *   #pragma pop_macro("CAP")
 *   #endif
 *
 * Every coroutine defined with external linkage is declared, with its frame
 * (CORO_FRAME(NAME)) and the frames of the children that a stackless frame
 * holds inline. The frame is the one the .c defines, printed by the same
 * function from the same tree, so the two files agree on its size, its
 * alignment and its members: the same type in both, as C requires of a type
 * that two files share through a function's parameter. What its text names
 * must mean the same in the header, so the names are followed, from each
 * token of a field's type (the value type, the parameters, the locals and
 * the children in the frame) through what they lead to:
 *   - a name that the .coc declares at file scope as a typedef name, a tag
 *     (with its members) or an enumeration constant: its whole declaration
 *     is copied, as written. One that also declares an object or a function
 *     (`struct p {...} origin;`) cannot be, nor one that a macro made or
 *     that has a preprocessor line inside: refused, with the place.
 *   - a name that a header of the .coc declares: the .coc's #include lines
 *     are repeated (those before the last coroutine declared here).
 *   - a macro that the .coc defines: its definition in effect at the use.
 *   - an object or function of the .coc in a field's type (`char
 *     buf[sizeof table]`): refused, since a header cannot define it.
 *
 * coro_in_NAME is an external function of the .c, not an inline here. An
 * inline in the header would have to name the resume function (or a
 * stackful entry), which would then need external linkage: the .c's
 * compiler could no longer take it for a function that only this file
 * calls (in a shared library, one that another could replace), which is
 * what lets it inline a child's resume into its parent. What the inline
 * would show the other file's compiler is a memset and the stores of the
 * arguments, and the resume after it is an indirect call in any case: a
 * direct call is the whole cost, which link-time optimization removes too.
 */
#define _GNU_SOURCE
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name; /* the macro */
  /* its #define line, or NULL: only saved and restored (a frame's body defines it) */
  const char *def;
  int at; /* the original token of its #define, for the order */
} HeaderMacro;

typedef struct {
  Emitter e; /* the printer, into the header's text */
  Source *src;
  Coroutine *cos;
  Coroutine *co;         /* the coroutine whose frame is being followed (for messages) */
  const External **exts; /* the declarations to copy */
  int nexts, capexts;
  HeaderMacro *macros; /* the macros to define, and to save and restore */
  int nmacros, capmacros;
  Coroutine **frames; /* the coroutines whose frames are printed */
  int nframes, capframes;
  Coroutine **values; /* the coroutines whose value type alone is printed (awaited ones) */
  int nvalues, capvalues;
  int *directives; /* the original tokens that are #define or #undef lines, in order */
  int ndirectives;
  int typed_depth; /* the body's names followed for their types, one within another */
} Header;

#define GROW(h, arr, n, cap)                                      \
  do {                                                            \
    if ((h)->n == (h)->cap) {                                     \
      (h)->cap = (h)->cap ? 2 * (h)->cap : 16;                    \
      (h)->arr = xrealloc((h)->arr, sizeof *(h)->arr * (h)->cap); \
    }                                                             \
  } while (0)

static void need_word(Header *h, const char *word, bool tag, const Token *blame, int at,
                      bool precise);

/* {==================================================================
 * Macros of the .coc
 * =================================================================== */

/* The macro that a #define or #undef line names (NULL for other lines). */
static const char *directive_name(const char *text, bool *define) {
  size_t n;
  const char *p = directive_macro_name(text, &n, define);
  return p ? intern(p, n) : NULL;
}

/* Each identifier of a text (a macro's body, an awaitable's type), with
   whether `struct`, `union` or `enum` is right before it. `precise`: an
   object or function of the .coc named there is what the text means (a
   macro that sizes a field), so a header cannot show it. */
static void need_words(Header *h, const char *text, const Token *blame, int at, bool precise) {
  const char *prev = "";
  for (const char *p = text; *p;) {
    if (*p == '"' || *p == '\'') { /* a literal: nothing to follow */
      char q = *p++;
      while (*p && *p != q)
        p += p[0] == '\\' && p[1] ? 2 : 1;
      p += *p ? 1 : 0;
      continue;
    }
    if (!is_ident_char(*p) || (*p >= '0' && *p <= '9')) {
      if (*p >= '0' && *p <= '9') /* a number, suffix and all */
        while (is_ident_char(*p) || *p == '.')
          p++;
      else
        p++;
      continue;
    }
    const char *w = p;
    while (is_ident_char(*p))
      p++;
    const char *word = intern(w, (size_t)(p - w));
    need_word(h, word, !strcmp(prev, "struct") || !strcmp(prev, "union") || !strcmp(prev, "enum"),
              blame, at, precise);
    prev = word;
  }
}

/* Macro `name` as the .coc defines it at original token `at`: its #define
   is copied, and what its body names followed. Not one of the .coc's own
   (a header's, or none): nothing to do. */
static void need_macro(Header *h, const char *name, const Token *blame, int at) {
  const TokenList *o = &h->src->original;
  int last = -1;
  bool define = false;
  for (int i = 0; i < h->ndirectives && h->directives[i] < at; i++) {
    bool d;
    if (directive_name(tok_text(&o->v[h->directives[i]]), &d) == name)
      last = h->directives[i], define = d;
  }
  if (last < 0 || !define)
    return;
  for (int i = 0; i < h->nmacros; i++)
    if (h->macros[i].name == name)
      return;
  if (h->e.opt->backend == BACKEND_STACKLESS && last > h->co->first && last < h->co->last)
    return; /* defined in the frame's own body: its printer defines it before the frame */
  GROW(h, macros, nmacros, capmacros);
  const char *def = tok_text(&o->v[last]);
  def += strspn(def, " \t");
  h->macros[h->nmacros++] = (HeaderMacro){name, def, last};
  const char *body = strstr(def, name) + strlen(name);
  need_words(h, body, blame, last, true);
}

/* }================================================================== */

/* {==================================================================
 * Declarations of the .coc
 * =================================================================== */

static _Noreturn void refuse(Header *h, const Token *blame, const char *fmt, const char *what,
                             const char *where) {
  char *why = format(fmt, what, where); /* (fmt is one of the messages below, with two %s) */
  error_tok(blame, "--header: the frame of '%s' cannot be declared in a header: %s", h->co->name,
            why);
}

static char *where_expanded(Header *h, int index) {
  Pos p = source_original_pos(h->src, index);
  return format("%s:%d", p.file, p.line);
}

/* "the tag 'pt'", "'point'": a name in a message. */
static const char *sym_words(const Sym *s) {
  return format(s->kind == SYM_TAG ? "the tag '%s'" : "'%s'", s->name);
}

/* The file-scope declaration `ext` (of `s`), copied into the header whole;
   what it names is followed in turn. */
static void need_external(Header *h, const External *ext, const Sym *s, const Token *blame) {
  for (int i = 0; i < h->nexts; i++)
    if (h->exts[i] == ext)
      return;
  if (ext->declares_object)
    refuse(h, blame,
           "%s, declared at %s together with an object or a function, which a header "
           "cannot repeat (declare the type on its own)",
           sym_words(s), where_expanded(h, ext->first));
  int first = source_find_original(h->src, ext->first),
      last = source_find_original(h->src, ext->last);
  if (first < 0 || last < 0 || last < first)
    refuse(h, blame,
           "%s is declared at %s by a macro's expansion, which coroc does not copy "
           "(declare it in a header of your own, or without the macro)",
           sym_words(s), where_expanded(h, ext->first));
  const TokenList *o = &h->src->original;
  for (int i = first; i <= last; i++)
    if (o->v[i].kind == TK_DIRECTIVE)
      refuse(h, blame,
             "%s, declared at %s, has a preprocessor line inside its declaration "
             "(declare it in a header of your own)",
             sym_words(s), where_expanded(h, ext->first));
  GROW(h, exts, nexts, capexts);
  h->exts[h->nexts++] = ext;
  const TokenList *x = &h->src->expanded;
  for (int i = ext->first; i <= ext->last; i++) { /* names, as the compiler sees them */
    const Token *t = &x->v[i];
    if (t->kind != TK_IDENT)
      continue;
    const char *prev = i > ext->first ? tok_text(&x->v[i - 1]) : "";
    bool tag = !strcmp(prev, "struct") || !strcmp(prev, "union") || !strcmp(prev, "enum");
    Sym *sym = tag ? scope_lookup_tag(tok_text(t)) : scope_lookup(tok_text(t));
    if (sym && sym->ext != ext && sym->ext && !sym->ext->declares_object && sym->tok &&
        sym->tok->in_main)
      need_external(h, sym->ext, sym, blame);
  }
  for (int i = first; i <= last; i++) /* and macros, as the user wrote them */
    if (o->v[i].kind == TK_IDENT && !o->v[i].dead)
      need_macro(h, tok_text(&o->v[i]), blame, i);
}

static Coroutine *find_coroutine(Header *h, const char *name);
static bool has_external_linkage(Header *h, Coroutine *co);

/* A coroutine defined above the one whose frame is being laid out, with external linkage: the
   header prints its frame and declares NAME before that one's frame (print_header, in file order).
 */
static bool declared_above(Header *h, const char *name) {
  Coroutine *co = find_coroutine(h, name);
  return co && h->co && co->first < h->co->first && has_external_linkage(h, co);
}

/* A name that a frame's type uses and that the coroutine parse resolved
   (`precise`), or one found by its spelling at file scope. */
static void need_sym(Header *h, const Sym *s, const Token *blame, bool precise) {
  if (!s || s->depth != 0 || !s->tok || !s->tok->in_main)
    return; /* the body's own (printed with the frame), or a header's */
  switch (s->kind) {
  case SYM_TYPEDEF:
  case SYM_TAG:
  case SYM_ENUMCONST:
    if (s->ext) /* (a tag without one is never completed here: `struct node *` is all it can be) */
      need_external(h, s->ext, s, blame);
    return;
  case SYM_OBJECT:
  case SYM_FUNCTION:
    if (s->kind == SYM_FUNCTION && declared_above(h, s->name))
      return; /* `__typeof__(pts(0))`: the header declares pts above this frame */
    if (precise)
      refuse(h, blame, "its type names '%s', %s of this file, which a header cannot define",
             s->name, s->kind == SYM_OBJECT ? "an object" : "a function");
    return; /* a member's name, spelled like one: nothing to follow */
  }
}

static void need_word(Header *h, const char *word, bool tag, const Token *blame, int at,
                      bool precise) {
  need_macro(h, word, blame, at);
  need_sym(h, tag ? scope_lookup_tag(word) : scope_lookup(word), blame, precise);
}

static void need_tokens(Header *h, int first, int last);
static void need_node(Header *h, const Node *n);
static void need_value_type(Header *h, Node *init);

static bool is_punct_code(const Token *t, int code) {
  return t->kind == TK_PUNCT && t->code == code;
}

/* The attributes in tokens first..last, each a word and its parenthesized arguments (an
   __attribute__ group, or a macro's use such as `_cleanup_free_` or `ALIGNED(16)`), but one that
   holds a cleanup, which a frame's field leaves out (emit_cleanup.c, cleanup_strip). */
static void need_attributes(Header *h, int first, int last) {
  const TokenList *o = &h->src->original;
  for (int i = first; i <= last; i++) {
    int end = i, depth = 0;
    while (end + 1 <= last && (depth > 0 || is_punct_code(&o->v[end + 1], '('))) {
      end++;
      depth += is_punct_code(&o->v[end], '(') - is_punct_code(&o->v[end], ')');
    }
    if (!cleanup_function(o, i, end))
      need_tokens(h, i, end);
    i = end;
  }
}

/* A name of the body in a frame's type, which the type takes the type of (text.c prints it as an
   lvalue of that type: `sizeof hdr`): what its own type needs. */
static void need_type_of(Header *h, const Sym *s) {
  const Node *d = s->decl;
  if (s->kind != SYM_OBJECT || !d || (d->kind != ND_PARAM && d->kind != ND_INIT_DECL) ||
      h->typed_depth >= 32) /* (text.c's typed names stop there too) */
    return;
  h->typed_depth++;
  need_tokens(h, d->specs->first, d->specs->last);
  if (d->declarator)
    need_tokens(h, d->declarator->first, d->declarator->last);
  if (d->kind == ND_INIT_DECL && d->init && is_auto_type_specs(d->specs, h->e.toks))
    need_value_type(h, d->init); /* (`__auto_type p = (struct pt){...}`: the type is the value's) */
  h->typed_depth--;
}

/* `g_autoptr(GString)` at original token i: the type its expansion ends with, which no token of
   the .coc spells (`GString_autoptr`, pasted), is the field's (emit_cleanup.c). */
static void need_pasted_type(Header *h, int i) {
  const TokenList *o = &h->src->original;
  if (!macro_definition(tok_text(&o->v[i])))
    return;
  TokenList groups = {0}, type = {0};
  if (typed_attribute_macro(o, i, &groups, &type) >= 0)
    for (int k = 0; k < type.n; k++)
      if (type.v[k].kind == TK_IDENT)
        need_sym(h, scope_lookup(tok_text(&type.v[k])), &o->v[i], false);
  xfree(groups.v);
  xfree(type.v);
}

/* The original tokens [first, last] of a frame's type. */
static void need_tokens(Header *h, int first, int last) {
  const TokenList *o = &h->src->original;
  for (int i = first; i <= last && i < o->n; i++) {
    const Token *t = &o->v[i];
    if (t->kind != TK_IDENT || t->dead)
      continue;
    need_macro(h, tok_text(t), t, i);
    need_pasted_type(h, i);
    Sym *s = token_sym(t);
    if (s && s->tok == t)
      continue; /* the name that a declaration declares (the coroutine's own) */
    if (s && s->depth > 0)
      need_type_of(h, s);
    else if (s) {
      need_sym(h, s, t, true);
    } else {
      const char *prev = i > first ? tok_text(&o->v[i - 1]) : "";
      bool tag = !strcmp(prev, "struct") || !strcmp(prev, "union") || !strcmp(prev, "enum");
      need_sym(h, tag ? scope_lookup_tag(tok_text(t)) : scope_lookup(tok_text(t)), t, false);
    }
  }
}

static void need_node(Header *h, const Node *n) {
  if (n)
    need_tokens(h, n->first, n->last);
}

typedef struct {
  Header *h;
  int next; /* the first token not yet needed */
} ValueWalk;

static bool value_pre(Node *n, void *ctx) {
  ValueWalk *w = ctx;
  if (n->kind != ND_AWAIT)
    return true;
  need_tokens(w->h, w->next, n->first - 1);
  w->next = n->last + 1;
  return false;
}

/* `__auto_type x = init`: the field's type is init's value's (text.c, auto_type), which needs
   init's names, but not an await's: its value's type is the awaited one's (need_frame's awaits). */
static void need_value_type(Header *h, Node *init) {
  ValueWalk w = {h, init->first};
  visit(init, value_pre, NULL, &w);
  need_tokens(h, w.next, init->last);
}

/* }================================================================== */

/* {==================================================================
 * Frames
 * =================================================================== */

/* The coroutine `name`: its definition, or else a prototype. */
static Coroutine *find_coroutine(Header *h, const char *name) {
  Coroutine *found = NULL;
  for (Coroutine *co = h->cos; co; co = co->next)
    if (strcmp(co->name, name) == 0 && (!found || !co->is_prototype))
      found = co;
  return found;
}

/* Defined here, and declared static nowhere in the file. */
static bool has_external_linkage(Header *h, Coroutine *co) {
  if (co->is_prototype)
    return false;
  for (Coroutine *c = h->cos; c; c = c->next)
    if (strcmp(c->name, co->name) == 0 && c->is_static)
      return false;
  return true;
}

static bool listed(Coroutine **v, int n, Coroutine *co) {
  for (int i = 0; i < n; i++)
    if (v[i] == co)
      return true;
  return false;
}

/* The value type of `co`, which a frame names (coro_value_NAME coro_tmp_N). */
static void need_value(Header *h, Coroutine *co) {
  if (listed(h->values, h->nvalues, co))
    return;
  GROW(h, values, nvalues, capvalues);
  h->values[h->nvalues++] = co;
  Coroutine *saved = h->co;
  h->co = co;
  need_node(h, co->specs);
  need_node(h, co->declarator);
  h->co = saved;
}

static void need_frame(Header *h, Coroutine *co) {
  if (listed(h->frames, h->nframes, co))
    return;
  Coroutine *saved = h->co, *printing = h->e.co;
  h->co = h->e.co = co;
  need_node(h, co->specs);      /* the value type */
  need_node(h, co->declarator); /* and the parameters */
  if (h->e.opt->backend == BACKEND_STACKLESS) {
    for (int i = 0; i < co->locals.n; i++) {
      Node *n = co->locals.v[i];
      for (int k = 0; k < n->specs->kids.n; k++) { /* (a field has no cleanup: need_attributes) */
        const Node *kid = n->specs->kids.v[k];
        if (!n->sym->cleanup || !cleanup_function(&h->src->original, kid->first, kid->last))
          need_node(h, kid);
        else /* (`g_autoptr(T)`: the pasted type stays) */
          need_pasted_type(h, kid->first);
      }
      need_node(h, n->declarator);
      if (n->kind != ND_INIT_DECL)
        continue;
      /* its attributes, as the field has them (emit_stackless.c), and the
         list of an array declared [] that the compiler counts (the frame's
         printer declares its shape from the list: text.c, shape_decl) */
      need_attributes(h, n->declarator->last + 1, declarator_end(h->e.toks, n));
      if (n->init && shape_decl(&h->e, n->specs, n->declarator, n->init, n->sym->field, n->sym))
        need_node(h, n->init);
      else if (n->init && is_auto_type_specs(n->specs, h->e.toks))
        need_value_type(h, n->init);
    }
    for (int i = 0; i < co->types.n; i++)
      need_node(h, co->types.v[i]);
    for (int i = 0; i < co->literals.n; i++) { /* (T){...}: T, and the list when it sizes T */
      Node *lit = co->literals.v[i];
      Node init = {.kind = ND_INIT_LIST, .first = lit->first, .last = lit->last, .kids = lit->kids};
      if (shape_decl(&h->e, lit->lhs->specs, lit->lhs->declarator, &init, lit->field, NULL))
        need_node(h, lit);
      else
        need_node(h, lit->lhs);
    }
    for (int i = 0; i < co->awaits.n; i++) {
      Node *n = co->awaits.v[i];
      if (!n->callee) {
        if (n->type)
          need_words(h, n->type, &h->src->original.v[n->first], n->first, false);
        continue;
      }
      Coroutine *callee = find_coroutine(h, n->callee);
      if (n->inline_child && callee)
        need_frame(h, callee); /* (defined above: it comes first) */
      else if (callee && task_has_value(n->sym))
        need_value(h, callee);
    }
  }
  GROW(h, frames, nframes, capframes);
  h->frames[h->nframes++] = co;
  h->co = saved, h->e.co = printing;
}

/* }================================================================== */

/* {==================================================================
 * Printing
 * =================================================================== */

static int by_position(const void *a, const void *b) {
  const External *x = *(const External *const *)a, *y = *(const External *const *)b;
  return x->first - y->first;
}

static int by_definition(const void *a, const void *b) {
  return ((const HeaderMacro *)a)->at - ((const HeaderMacro *)b)->at;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* CORO_HEADER_ and the header's file name, in capitals: gen.h gives CORO_HEADER_GEN_H. */
static char *guard_name(const char *path) {
  char *g = format("CORO_HEADER_%s", base_name(path));
  for (char *p = g; *p; p++)
    *p = (*p >= 'a' && *p <= 'z')         ? (char)(*p - 'a' + 'A')
         : is_ident_char(*p) && *p != '$' ? *p
                                          : '_';
  return g;
}

/* Is this original token an #include line? */
static bool is_include(const Token *t) {
  if (t->kind != TK_DIRECTIVE || t->dead)
    return false;
  const char *p = strchr(tok_text(t), '#') + 1;
  p += strspn(p, " \t");
  return strncmp(p, "include", 7) == 0 && !is_ident_char(p[7]);
}

/* Is it `#include <coro.h>` (blanks anywhere), which the header has once? */
static bool is_coro_include(const Token *t) {
  static const char want[] = "#include<coro.h>";
  size_t n = 0;
  for (const char *p = tok_text(t); *p; p++)
    if (*p != ' ' && *p != '\t' && (n >= sizeof want - 1 || *p != want[n++]))
      return false;
  return n == sizeof want - 1;
}

static bool inside_coroutine(Header *h, int i) {
  for (Coroutine *co = h->cos; co; co = co->next)
    if (i > co->first && i < co->last)
      return true;
  return false;
}

static void print_header(Header *h, FILE *out) {
  Emitter *e = &h->e;
  const TokenList *o = &h->src->original;
  const char *backend = e->opt->backend == BACKEND_STACKFUL ? "stackful" : "stackless";
  char *guard = guard_name(e->opt->header);
  xfprintf(out,
           "/* Written by coroc --backend=%s from\n   %s:\n"
           "   the instances of its coroutines, for other files. NAME(args) makes one on\n"
           "   the heap, coro_in_NAME(&storage, args) one in a CORO_FRAME(NAME) that you\n"
           "   give: a local, a member, a block of an arena. Do not edit: coroc writes\n"
           "   it again with the .c. */\n",
           backend, h->src->name);
  xfprintf(out, "#ifndef %s\n#define %s\n\n", guard, guard);

  int end = 0; /* the includes before the last coroutine printed here */
  for (int i = 0; i < h->nframes; i++)
    if (h->frames[i]->first > end)
      end = h->frames[i]->first;
  bool has_coro_h = false;
  for (int i = 0; i < end; i++)
    if (is_include(&o->v[i]) && !inside_coroutine(h, i)) {
      xfprintf(out, "%s\n", tok_text(&o->v[i]) + strspn(tok_text(&o->v[i]), " \t"));
      has_coro_h |= is_coro_include(&o->v[i]);
    }
  if (!has_coro_h)
    xfprintf(out, "#include <coro.h>\n");

  /* the macros the frames name: the includer's own, saved, come back at the end */
  const char **saved = xcalloc((size_t)h->nmacros + 1, sizeof *saved);
  int nsaved = 0;
  for (int i = 0; i < h->nmacros; i++)
    saved[nsaved++] = h->macros[i].name;
  if (h->nmacros > 1) /* (qsort of a null array, none at all, is undefined: UBSan says so) */
    qsort(h->macros, h->nmacros, sizeof *h->macros, by_definition);
  if (nsaved)
    xfprintf(out, "\n/* the macros of %s that the frames name, for them alone */\n",
             base_name(h->src->name));
  for (int i = 0; i < nsaved; i++)
    xfprintf(out, "#pragma push_macro(\"%s\")\n#undef %s\n", saved[i], saved[i]);
  for (int i = 0; i < h->nmacros; i++)
    if (h->macros[i].def) /* (NULL: the frame's body defines it) */
      xfprintf(out, "%s\n", h->macros[i].def);

  if (h->nexts) {
    qsort(h->exts, h->nexts, sizeof *h->exts, by_position);
    xfprintf(out, "\n/* the types of %s that the frames name, as written there */\n",
             base_name(h->src->name));
  }
  for (int i = 0; i < h->nexts; i++) {
    int first = source_find_original(h->src, h->exts[i]->first);
    int last = source_find_original(h->src, h->exts[i]->last);
    xfprintf(out, "/* %s:%d */\n", base_name(h->src->name), o->v[first].line);
    size_t from = token_offset(h->src, &o->v[first]);
    fwrite(h->src->raw + from, 1, token_end(h->src, &o->v[last]) - from, out);
    fputc('\n', out);
  }

  e->out = out;
  for (int i = 0; i < h->nvalues; i++) { /* (before every frame: one may be defined below its
                                            awaiter, and the .c too has its typedef twice then) */
    e->co = h->values[i];
    xfprintf(out, "\n/* the value of %s, which a frame awaits */\n", e->co->name);
    emit_value_type(e, e->co);
  }
  for (Coroutine *co = h->cos; co; co = co->next) {
    if (!listed(h->frames, h->nframes, co))
      continue;
    e->co = co;
    xfprintf(out, "\n/* coroutine %s (%s:%d): CORO_FRAME(%s) */\n", co->name,
             base_name(h->src->name), emit_line_of(e, co->decl), co->name);
    if (e->opt->backend == BACKEND_STACKFUL) {
      emit_stackful_args(e, co);
      emit_stackful_storage(e, co);
    } else {
      emit_stackless_frame(e, co);
    }
    if (has_external_linkage(h, co)) {
      char *params = emit_param_list(e, co);
      emit_put(e, 0, "CORO_NODISCARD %s;", emit_creation_header(e, co));
      emit_put(e, 0, "coro_t *coro_in_%s(struct coro_frame_%s *coro_f%s%s);", co->name, co->name,
               *params ? ", " : "", params);
    }
  }
  if (nsaved)
    fputc('\n', out);
  for (int i = 0; i < nsaved; i++)
    xfprintf(out, "#undef %s\n#pragma pop_macro(\"%s\")\n", saved[i], saved[i]);
  xfprintf(out, "\n#endif\n");
  xfree(saved);
  xfree(guard);
}

/* }================================================================== */

char *emit_header(Source *src, Coroutine *cos, const Options *opt, size_t *len) {
  Options quiet = *opt;
  quiet.line_directives = false; /* the frames' lines are the header's own */
  Header h = {.src = src, .cos = cos};
  h.e = (Emitter){.src = src, .opt = &quiet, .toks = &src->original, .mapped = 1};
  const TokenList *o = &src->original;
  h.directives = xcalloc((size_t)o->n + 1, sizeof *h.directives);
  for (int i = 0; i < o->n; i++) {
    bool define;
    if (o->v[i].kind == TK_DIRECTIVE && !o->v[i].dead &&
        directive_name(tok_text(&o->v[i]), &define))
      h.directives[h.ndirectives++] = i;
  }
  for (Coroutine *co = cos; co; co = co->next)
    if (has_external_linkage(&h, co))
      need_frame(&h, co);
  /* the macros that a printed stackless frame's body defines: saved and restored too */
  for (Coroutine *co = cos; co && quiet.backend == BACKEND_STACKLESS; co = co->next) {
    if (!listed(h.frames, h.nframes, co))
      continue;
    h.e.co = co;
    for (int i = co->first; i <= co->last; i++) {
      bool define;
      const char *name =
          is_first_define(&h.e, co, i) ? directive_name(tok_text(&o->v[i]), &define) : NULL;
      bool seen = false;
      for (int k = 0; name && k < h.nmacros; k++)
        seen |= h.macros[k].name == name;
      if (name && !seen) {
        GROW(&h, macros, nmacros, capmacros);
        h.macros[h.nmacros++] = (HeaderMacro){name, NULL, i};
      }
    }
  }
  char *buf = NULL;
  FILE *out = xmemstream(&buf, len);
  print_header(&h, out);
  fclose(out);
  /* the body's macros are defined by the frames' printer: only saved */
  repl_release(&h.e);
  xfree(h.exts);
  xfree(h.macros);
  xfree(h.frames);
  xfree(h.values);
  xfree(h.directives);
  return buf;
}
