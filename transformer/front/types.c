/* types.c: what a declaration says of a type, as far as coroc needs it.
 *
 * coroc does not type expressions; the passes and the printers ask a few
 * questions of declarations instead, through typedef names: is a local an
 * array (it decays, and is copied into its field by memcpy), is it a plain
 * scalar that a C local can hold between suspensions (live.c), does a
 * coroutine give a value to its awaiter. (members.c asks the same of a
 * struct's members.) Only the tree and the tokens the front end read are
 * looked at.
 */
#include "coroc.h"

#include <string.h>

/* Does the coroutine `f` (a symbol) return a value? */
bool task_has_value(const Sym *f) {
  if (!f->decl)
    return !f->void_task;
  return !((f->specs & SP_VOID) && f->decl->declarator->kids.n == 1);
}

/* Is the declared type an array, looking through typedef names (`my_pair_t pair = {...}` where
   my_pair_t is an array type) and typeof (`__typeof__(int[3])`, `__typeof__(src)` of an array
   src, `__typeof__("abc")`)? ARRAY_MAYBE where coroc cannot tell (`__typeof__(s.member)`, a name
   whose declaration it does not have). */
static int typeof_array_kind(const Node *e, int depth);

int array_type_kind(const Node *specs, const Node *declarator, int depth) {
  if (declarator && declarator->kids.n)
    return declarator->kids.v[0]->kind == ND_ARRAY ? ARRAY_YES : ARRAY_NO;
  for (int i = 0; specs && i < specs->kids.n && depth < 32; i++) {
    Node *k = specs->kids.v[i];
    Sym *s = k->kind == ND_IDENT ? k->sym : NULL;
    if (s && s->kind == SYM_TYPEDEF && s->decl && s->decl->kind == ND_INIT_DECL)
      return array_type_kind(s->decl->specs, s->decl->declarator, depth + 1);
    if (k->kind == ND_SIZEOF && k->flags & SP_TYPE)
      return typeof_array_kind(k->expr, depth + 1);
  }
  return ARRAY_NO;
}

/* The operand of a typeof: a type name, or an expression whose type is an array only if it
   names an array object or is one (a string); a member, an element or what a pointer points to
   may be. Any other expression's value is no array (it decays, or is computed). */
static int typeof_array_kind(const Node *e, int depth) {
  while (e && e->kind == ND_EXPR && e->op == OP_PAREN)
    e = e->operand;
  if (!e || depth >= 32)
    return ARRAY_MAYBE;
  if (e->kind == ND_TYPENAME)
    return array_type_kind(e->specs, e->declarator, depth);
  if (e->kind == ND_IDENT) {
    const Sym *s = e->sym;
    if (s && s->decl && s->decl->kind == ND_PARAM)
      return ARRAY_NO; /* (an array parameter is a pointer) */
    if (s && s->decl && s->decl->kind == ND_INIT_DECL)
      return array_type_kind(s->decl->specs, s->decl->declarator, depth);
    return s && s->kind != SYM_OBJECT ? ARRAY_NO : ARRAY_MAYBE;
  }
  if (e->kind != ND_EXPR)
    return e->kind == ND_STMT_EXPR ? ARRAY_MAYBE : ARRAY_NO;
  switch (e->op) {
  case OP_STRING:
    return ARRAY_YES;
  case OP_COMPOUND_LITERAL:
    return array_type_kind(e->lhs->specs, e->lhs->declarator, depth);
  case OP_MEMBER:
  case OP_INDEX:
  case OP_DEREF:
  case OP_GENERIC:
    return ARRAY_MAYBE;
  default:
    return ARRAY_NO;
  }
}

/* `__auto_type x = init`: the type is init's. */
bool is_auto_type_specs(const Node *specs, const TokenList *toks) {
  for (int i = 0; i < specs->kids.n; i++)
    if (tok_text(&toks->v[specs->kids.v[i]->first]) == INTERN("__auto_type"))
      return true;
  return false;
}

bool is_array_type(const Node *specs, const Node *declarator, int depth) {
  return array_type_kind(specs, declarator, depth) == ARRAY_YES;
}

/* The qualifier a word is, in any of its spellings: `const` and `__const`,
   `volatile`, `restrict` and `__restrict__`; 0 for any other word (_Atomic
   is not one here: an _Atomic object is assigned like any other). */
int qualifier_of(const char *w) {
  while (*w == '_')
    w++;
  size_t n = strlen(w);
  while (n > 0 && w[n - 1] == '_')
    n--;
  if (n == 5 && strncmp(w, "const", 5) == 0)
    return QUAL_CONST;
  if (n == 8 && strncmp(w, "volatile", 8) == 0)
    return QUAL_VOLATILE;
  if (n == 8 && strncmp(w, "restrict", 8) == 0)
    return QUAL_RESTRICT;
  return 0;
}

int specs_qualifiers(const Node *specs, const TokenList *toks) {
  int q = 0;
  for (int i = 0; specs && toks && i < specs->kids.n; i++)
    if (specs->kids.v[i]->kind == ND_SPECIFIER)
      q |= qualifier_of(tok_text(&toks->v[specs->kids.v[i]->first]));
  return q;
}

/* The qualifiers of a pointer itself: the words after its last '*'. */
static int pointer_qualifiers(const Node *pointer, const TokenList *toks) {
  int q = 0;
  for (int i = pointer->first; i <= pointer->last; i++)
    q = toks->v[i].code == '*' ? 0 : q | qualifier_of(tok_text(&toks->v[i]));
  return q;
}

const Sym *typedef_named(const Node *specs) {
  for (int i = 0; specs && i < specs->kids.n; i++) {
    Sym *s = specs->kids.v[i]->kind == ND_IDENT ? specs->kids.v[i]->sym : NULL;
    if (s && s->kind == SYM_TYPEDEF && s->decl && s->decl->kind == ND_INIT_DECL && s->toks)
      return s;
  }
  return NULL;
}

/* The qualifiers that a typedef name among the specifiers gives the type
   itself: `typedef const struct pt cpt;` (const), `typedef char *const
   cpc;` (const, of the pointer), through typedefs of typedefs. */
int typedef_qualifiers(const Node *specs, int depth) {
  const Sym *s = depth < 32 ? typedef_named(specs) : NULL;
  if (!s)
    return 0;
  const Node *d = s->decl->declarator;
  if (!d->kids.n)
    return specs_qualifiers(s->decl->specs, s->toks) |
           typedef_qualifiers(s->decl->specs, depth + 1);
  return d->kids.v[0]->kind == ND_POINTER ? pointer_qualifiers(d->kids.v[0], s->toks) : 0;
}

/* {==================================================================
 * Names whose types alone are taken
 * =================================================================== */

/* `sizeof n`, `typeof(n)`, `_Alignof(n)`: C takes n's type, not its value,
   so a type that names n this way can be written where n does not exist
   (a frame's field, at file scope) with n's type in its place. Not inside
   an array's size in such an operand (`typeof(char[n])` is variably
   modified: the size is evaluated), unless a sizeof within it takes only a
   type again. */
enum { TYPED_NESTING = 32 };
typedef struct {
  TypeNameFn *fn;
  void *ctx;
  int unevaluated;                  /* > 0 inside sizeof, typeof, ... */
  int saved[TYPED_NESTING], nsaved; /* the counts outside the enclosing array sizes */
  int deeper;                       /* arrays nested past TYPED_NESTING: every name evaluated */
  int structs;                      /* struct definitions entered (their members walked) */
} TypeWalk;

static void type_walk_post(Node *n, void *ctx);

static bool type_walk_pre(Node *n, void *ctx) {
  TypeWalk *w = ctx;
  if (n->kind == ND_TAGGED && n->members && w->structs < TYPED_NESTING) {
    /* (deeper, a name in a member is not found: its type is refused, as a person never nests so) */
    w->structs++;
    visit(n->members, type_walk_pre, type_walk_post, w);
    w->structs--;
  } else if (n->kind == ND_SIZEOF) {
    w->unevaluated++;
  } else if (n->kind == ND_ARRAY) {
    if (w->nsaved < TYPED_NESTING)
      w->saved[w->nsaved++] = w->unevaluated;
    else
      w->deeper++;
    w->unevaluated = 0;
  } else if (n->kind == ND_IDENT) {
    w->fn(n, w->unevaluated > 0 && !w->deeper, w->ctx);
  }
  return true;
}

static void type_walk_post(Node *n, void *ctx) {
  TypeWalk *w = ctx;
  if (n->kind == ND_SIZEOF)
    w->unevaluated--;
  else if (n->kind == ND_ARRAY && w->deeper)
    w->deeper--;
  else if (n->kind == ND_ARRAY)
    w->unevaluated = w->saved[--w->nsaved];
}

bool is_body_name(const Sym *s) {
  return s && (s->kind == SYM_OBJECT || s->kind == SYM_FUNCTION) && s->depth > 0 && s->decl &&
         (s->decl->kind == ND_PARAM || s->decl->kind == ND_INIT_DECL);
}

void names_in_type(const Node *specs, const Node *declarator, TypeNameFn *fn, void *ctx) {
  TypeWalk w = {.fn = fn, .ctx = ctx};
  visit((Node *)specs, type_walk_pre, type_walk_post, &w);
  visit((Node *)declarator, type_walk_pre, type_walk_post, &w);
}

/* }================================================================== */

/* {==================================================================
 * A cleanup function
 * =================================================================== */

/* Is token i of toks spelled `word`? */
static bool is_word(const TokenList *toks, int i, const char *word) {
  return toks && i >= 0 && i < toks->n && strcmp(tok_text(&toks->v[i]), word) == 0;
}

/* The last token of a declaration's declarator with the attributes after
   it (`char b[4] __attribute__((aligned(16)))`, which a frame's field keeps). */
int declarator_end(const TokenList *toks, const Node *init_decl) {
  if (init_decl->init) /* `int x __attribute__((aligned(16))) = 1`: up to the '=' */
    return init_decl->init->first - 2;
  int i = init_decl->declarator->last + 1, depth = 0; /* the parse leaves them out of its range */
  for (; i < toks->n && toks->v[i].kind != TK_EOF; i++) {
    if (is_word(toks, i, "(") || is_word(toks, i, "["))
      depth++;
    else if (is_word(toks, i, ")") || is_word(toks, i, "]"))
      depth--;
    else if (depth == 0 && (is_word(toks, i, ",") || is_word(toks, i, ";")))
      break;
  }
  return i - 1;
}

/* `register long r10 __asm__("r10")`, an explicit register variable: the index of the last token
   of its asm group, which follows the declarator, or -1 (live.c refuses one that a frame must
   keep). */
int register_binding_end(const TokenList *toks, const Node *init_decl) {
  int i = init_decl->declarator->last + 1;
  if (!is_word(toks, i, "__asm__") && !is_word(toks, i, "__asm") && !is_word(toks, i, "asm"))
    return -1;
  for (int depth = 0; ++i < toks->n && toks->v[i].kind != TK_EOF;) {
    depth += is_word(toks, i, "(") - is_word(toks, i, ")");
    if (depth == 0)
      return i;
  }
  return -1;
}

/* The fn of a `cleanup(fn)` inside an __attribute__ in tokens [from, to],
   or in the expansion of a macro used there that stands for attributes
   (`_cleanup_free_`, macros.c); or NULL. */
const char *cleanup_function(const TokenList *o, int from, int to) {
  int depth = -1; /* inside an __attribute__'s parentheses: their depth; -1 outside */
  for (int i = from; i <= to && i < o->n; i++) {
    const Token *t = &o->v[i];
    if (t->dead)
      continue;
    if (depth < 0 && (is_word(o, i, "__attribute__") || is_word(o, i, "__attribute"))) {
      depth = 0;
    } else if (depth < 0 && t->kind == TK_IDENT && macro_definition(tok_text(t))) {
      TokenList groups = {0}, type = {0};
      int end = attribute_macro(o, i, &groups, 0);
      if (end < 0) /* `g_autoptr(GString)`: its attribute, then a type */
        end = typed_attribute_macro(o, i, &groups, &type);
      const char *fn = end >= 0 ? cleanup_function(&groups, 0, groups.n - 1) : NULL;
      xfree(groups.v);
      xfree(type.v);
      if (fn)
        return fn;
      i = end >= 0 ? end : i;
    } else if (depth < 0) {
      continue;
    } else if (is_word(o, i, "(")) {
      depth++;
    } else if (is_word(o, i, ")")) {
      if (--depth == 0)
        depth = -1;
    } else if (depth == 2 && (is_word(o, i, "cleanup") || is_word(o, i, "__cleanup__")) &&
               i + 3 <= to && is_word(o, i + 1, "(") && o->v[i + 2].kind == TK_IDENT &&
               is_word(o, i + 3, ")")) {
      return tok_text(&o->v[i + 2]);
    }
  }
  return NULL;
}

/* }================================================================== */

/* A value a C local of the resume function can hold between suspensions
   (live.c, "Locals in C locals"): an arithmetic type, an enum or a pointer,
   seen through typedefs. Not an array or struct (a pointer to a part of it
   may be kept: only a frame field outlives the resume function), nothing
   volatile or _Atomic (every access must reach memory), nothing const (it
   is assigned as it is loaded back), no attribute or _Alignas (what they
   ask of storage stays with the field). */
bool is_plain_scalar(const Node *specs, const Node *declarator, const TokenList *toks, int depth) {
  if (!specs || depth > 32 || (specs->flags & (SP_ATTRIBUTE | SP_OPAQUE)))
    return false;
  if (declarator && declarator->kids.n) { /* the outermost derivation decides */
    const Node *outer = declarator->kids.v[0];
    if (outer->kind != ND_POINTER)
      return false; /* an array or a function */
    for (int i = outer->first; toks && i <= outer->last && i < toks->n; i++) /* `int *volatile p` */
      if ((qualifier_of(tok_text(&toks->v[i])) & (QUAL_CONST | QUAL_VOLATILE)) ||
          is_word(toks, i, "_Atomic") || is_word(toks, i, "__attribute__") ||
          is_word(toks, i, "__attribute"))
        return false;
    return true;
  }
  if (specs->flags & (SP_VOLATILE | SP_CONST))
    return false; /* const: the load after a resume would assign it */
  for (int i = 0; i < specs->kids.n; i++) {
    const Node *k = specs->kids.v[i];
    if (k->kind == ND_TAGGED && !is_word(toks, k->first, "enum"))
      return false; /* a struct or union */
    if (k->kind == ND_SIZEOF)
      return false; /* typeof(...): coroc does not know what it is */
    Sym *s = k->kind == ND_IDENT ? k->sym : NULL;
    if (s && s->kind == SYM_TYPEDEF) {
      if (!s->decl || s->decl->kind != ND_INIT_DECL)
        return false;
      if (!is_plain_scalar(s->decl->specs, s->decl->declarator, s->toks, depth + 1))
        return false;
    }
  }
  return (specs->flags & SP_TYPE) && !(specs->flags & SP_VOID);
}
