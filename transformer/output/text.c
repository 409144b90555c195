/* text.c: C text made of the user's tokens.
 *
 * Everything coroc writes of a coroutine's own code is a range of the user's
 * tokens, printed again with what the passes decided: a local's name becomes
 * its field, `coro_f->x` (frame.c); a type declared in the body its file-scope
 * name; an await, or an && around one, the text lower.c gave it; a kept
 * compound literal its CORO_LITERAL. The types of frame fields are made here
 * too, from a declaration's specifiers and declarator. The lowering (lower.c)
 * and the printers (emit*.c) share it; it changes nothing.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "support/memstream.h"

#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Printing token ranges, with the renames of frame.c
 * =================================================================== */

/* `__func__` or `__FUNCTION__` (the test of the first two bytes keeps the
   two comparisons off every other word: this runs at every token printed). */
static bool is_function_name(const char *s) {
  return s[0] == '_' && s[1] == '_' &&
         (strcmp(s, "__func__") == 0 || strcmp(s, "__FUNCTION__") == 0);
}

/* What a token stands for in the output. */
static void put_token_text(Text *out, Emitter *e, const Token *t) {
  if (e->co && t->kind == TK_IDENT && is_function_name(tok_text(t))) {
    text_puts(out, "\""); /* the coroutine's name, not coro_resume_NAME */
    text_puts(out, e->co->name);
    text_puts(out, "\"");
    return;
  }
  Sym *s = token_sym(t);
  if (s && s->owner && s->field) {
    if (s->kind == SYM_OBJECT && s->cached) {
      text_puts(out, s->name); /* in a C local of the same name until the body suspends */
    } else {
      if (s->kind == SYM_OBJECT)
        text_puts(out, "coro_f->");
      text_puts(out, s->field);
    }
    return;
  }
  text_puts(out, tok_text(t));
}

static const char *tagged_name(const Node *tagged) {
  Sym *s = token_sym(tagged->tok);
  if (s && s->field && s->owner)
    return s->field;
  return tagged->tag;
}

static void print_range(Text *out, Emitter *e, int first, int last, const Style *st);

/* Is token i a qualifier of the pointer itself that the style leaves out:
   its `const` (`int *const p`), or any (`char *restrict f()`'s value)? */
static bool is_dropped_qualifier(Emitter *e, const Style *st, int i) {
  const Node *pointer = st->unconst;
  if (i < pointer->first || i > pointer->last)
    return false;
  const Token *t = &e->toks->v[i];
  int q = t->kind == TK_IDENT ? qualifier_of(tok_text(t)) : 0;
  if (!(q & (st->unqualify ? QUAL_CONST | QUAL_VOLATILE | QUAL_RESTRICT : QUAL_CONST)))
    return false;
  for (int j = i + 1; j <= pointer->last; j++)
    if (e->toks->v[j].code == '*')
      return false;
  return true;
}

/* `struct coro_gen_node` for a hoisted definition; the keyword is its first token. */
static bool print_collapsed(Text *out, Emitter *e, const Node *tagged) {
  const char *name = tagged_name(tagged);
  if (!name)
    return false;
  text_puts(out, tok_text(&e->toks->v[tagged->first]));
  text_puts(out, " ");
  text_puts(out, name);
  return true;
}

/* The widest lowered range that starts at token i and ends by `last`: the
   entries are chained by the token they start at, so printing a token asks
   only about its own (usually none). */
static int best_repl(Emitter *e, int i, int last) {
  int best = -1;
  if (i < e->repl_first || i - e->repl_first >= e->repl_count)
    return -1;
  for (int k = e->repl_at[i - e->repl_first]; k >= 0; k = e->repl[k].next)
    if (e->repl[k].last <= last && (best < 0 || e->repl[k].last > e->repl[best].last))
      best = k;
  return best;
}

static const char *replacement(Emitter *e, int i, int last) {
  int k = best_repl(e, i, last);
  return k < 0 ? NULL : e->repl[k].text;
}

static int repl_end(Emitter *e, int i, int last) {
  return e->repl[best_repl(e, i, last)].last;
}

/* Forget the entries from `keep` on, newest first (they were chained so). */
void drop_repl(Emitter *e, int keep) {
  while (e->nrepl > keep) {
    e->nrepl--;
    e->repl_at[e->repl[e->nrepl].first - e->repl_first] = e->repl[e->nrepl].next;
  }
}

static void print_range(Text *out, Emitter *e, int first, int last, const Style *st) {
  bool started = false;
  for (int i = first; i <= last; i++) {
    const Token *t = &e->toks->v[i];
    if (t->dead || t->kind == TK_DIRECTIVE)
      continue;
    if (st && st->name && t == st->name && !*st->name_text)
      continue; /* an abstract declarator: the name and its space go */
    if (st && st->unconst && is_dropped_qualifier(e, st, i))
      continue;
    if (started && (t->space || t->bol))
      text_puts(out, " ");
    started = true;
    if (st && st->omit && i == st->omit->first) {
      i = st->omit->last;
      continue;
    }
    if (st && st->sized && i == st->sized->first) {
      text_puts(out, "[");
      text_puts(out, st->size);
      text_puts(out, "]");
      i = st->sized->last;
      continue;
    }
    if (st && st->name && t == st->name) {
      text_puts(out, st->name_text);
      continue;
    }
    const char *repl = replacement(e, i, last);
    if (repl && !(st && st->raw)) { /* an await, or an && around one, already lowered */
      int end = repl_end(e, i, last);
      text_puts(out, repl);
      i = end;
      continue;
    }
    Node *lit = token_literal(t), *hoisted = token_hoisted(t);
    if (lit && e->co && !(st && st->raw) && !(st && st->literal == lit)) {
      text_puts(out, "CORO_LITERAL(coro_f->");
      text_puts(out, lit->field);
      text_puts(out, ", ");
      print_range(out, e, lit->first, lit->last, &(Style){.collapse = true, .literal = lit});
      text_puts(out, ")");
      i = lit->last;
      continue;
    }
    if (hoisted && st && st->collapse && print_collapsed(out, e, hoisted)) {
      i = hoisted->last;
      continue;
    }
    if (hoisted && !token_sym(hoisted->tok) && hoisted->tag) {
      /* an anonymous hoisted type gets its generated tag after the keyword */
      text_puts(out, tok_text(t));
      text_puts(out, " ");
      text_puts(out, hoisted->tag);
      continue;
    }
    if (st && st->raw)
      text_puts(out, tok_text(t));
    else
      put_token_text(out, e, t);
  }
}

/* print_range into a new string */
char *range_str(Emitter *e, int first, int last, const Style *st) {
  Text s;
  TEXT_INIT(s);
  print_range(&s, e, first, last, st);
  return text_take(&s);
}

char *node_str(Emitter *e, const Node *n) {
  return range_str(e, n->first, n->last, &(Style){.collapse = true});
}

/* The ranges printed as text are those of the coroutine the writer is on
   (e->co), and so is the table that finds them by their first token: made
   for its tokens alone when the first range is pushed, made again when the
   writer has moved on to another coroutine, and given back with
   repl_release when the writer is done with one. So a streaming run keeps
   none of it from one coroutine to the next, where all of it went back
   with the coroutine's region. */
static void repl_table(Emitter *e) {
  if (!e->co)
    internal_error("a range printed as text outside a coroutine");
  if (e->repl_at && e->repl_first == e->co->first &&
      e->repl_count == e->co->last - e->co->first + 1)
    return;
  if (e->nrepl)
    internal_error("ranges printed as text from two coroutines at once");
  xfree(e->repl_at);
  e->repl_first = e->co->first;
  e->repl_count = e->co->last - e->co->first + 1;
  e->repl_at = xcalloc(e->repl_count, sizeof(int));
  for (int i = 0; i < e->repl_count; i++)
    e->repl_at[i] = -1;
}

void push_repl(Emitter *e, const Node *n, const char *text) {
  repl_table(e);
  if (e->nrepl == e->caprepl) {
    e->caprepl = e->caprepl ? e->caprepl * 2 : 16;
    e->repl = xrealloc(e->repl, sizeof e->repl[0] * e->caprepl);
  }
  int at = n->first - e->repl_first;
  if (at < 0 || at >= e->repl_count)
    internal_error("a range printed as text outside its coroutine");
  e->repl[e->nrepl].first = n->first;
  e->repl[e->nrepl].last = n->last;
  e->repl[e->nrepl].text = text;
  e->repl[e->nrepl].next = e->repl_at[at];
  e->repl_at[at] = e->nrepl++;
}

void repl_release(Emitter *e) {
  xfree(e->repl_at);
  xfree(e->repl);
  e->repl_at = NULL;
  e->repl = NULL;
  e->nrepl = e->caprepl = e->repl_first = e->repl_count = 0;
}

/* }================================================================== */

/* {==================================================================
 * Types of frame fields
 * =================================================================== */

/* `_Alignas(16)` or `alignas(16)`: a field keeps it, a type name may not
   have it (`(char [4]){"abc"}`, `__typeof__(...)`). */
bool is_alignas(Emitter *e, const Node *k) {
  const char *w = tok_text(&e->toks->v[k->first]);
  return (k->flags & SP_ATTRIBUTE) && (strcmp(w, "_Alignas") == 0 || strcmp(w, "alignas") == 0);
}

/* The alignment specifiers among specs, each followed by a space: a field
   whose type is written as a type name (`__typeof__(...)`) keeps them. */
static char *alignas_str(Emitter *e, const Node *specs) {
  Text s;
  TEXT_INIT(s);
  for (int i = 0; i < specs->kids.n; i++)
    if (is_alignas(e, specs->kids.v[i])) {
      print_range(&s, e, specs->kids.v[i]->first, specs->kids.v[i]->last,
                  &(Style){.collapse = true});
      text_puts(&s, " ");
    }
  return text_take(&s);
}

/* The specifiers of a field: no storage class, no `coroutine`, and no
   top-level const (the frame is written by assignment); a hoisted struct
   is named, not defined again. Of a type name, no alignment either. */
char *specs_str(Emitter *e, const Node *specs, int drop_also) {
  Text s;
  TEXT_INIT(s);
  bool first = true;
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    const Node *prev = i > 0 ? specs->kids.v[i - 1] : NULL;
    if (prev && k->first >= prev->first && k->last <= prev->last)
      continue; /* the words of one macro (`u8` for `unsigned char`, `g_autoptr(T)`) stand at its
                   tokens */
    int drop =
        SP_TYPEDEF | SP_EXTERN | SP_STATIC | SP_AUTO | SP_REGISTER | SP_THREAD | SP_COROUTINE;
    if (k->kind == ND_SPECIFIER && (k->flags & drop))
      continue;
    if ((drop_also & SPECS_CONST) && k->kind == ND_SPECIFIER && k->flags == SP_CONST)
      continue;
    if ((drop_also & SPECS_ALIGNAS) && is_alignas(e, k))
      continue;
    if (!first)
      text_puts(&s, " ");
    first = false;
    print_range(&s, e, k->first, k->last, &(Style){.collapse = true});
  }
  return text_take(&s);
}

/* Sizes of arrays declared `[]`.
 *
 * `T a[] = {...};` gives the frame a field that needs a size, and the frame
 * is written at file scope, where the coroutine's locals do not exist. With
 * brace elision (`int m[][2] = {1, 2, 3}`), designators (`{[9] = 1}`) or
 * strings in arrays of char arrays, the size follows C's rules for the list
 * over the element type, and only the compiler knows the element type (how
 * many scalars a struct holds). So coroc counts only what needs no type: a
 * list without designators whose every item fills one element (a braced
 * item, or any item of a scalar element). Otherwise the compiler counts a
 * *shape* of the list, written before the frame: the same items, designators
 * and nesting, each standing where the user's stood and filling what it
 * fills, with values that mean something at file scope:
 *
 *   the user's item             in the shape
 *   {...}, or a macro for one   {0} ({} as written; 0 for a scalar element)
 *   "text", or a macro for a    itself: a string decides how much of a char
 *   string or for several items array it fills
 *   a value of scalar type      0
 *   a value of struct or        (__typeof__((void)0, V)){0}, where V is the
 *   union type (or unknown)     value with each name of the body `x` written
 *                               (*(__typeof__(T) *)0), T the type of x
 *   [K] =, .f =, [A ... B] =    themselves, names of the body typed as above
 *
 * Only the top level needs items: a braced item fills one subobject whatever
 * it holds. A struct or union value cannot become 0: it fills a whole
 * subobject of its own type, where a 0 would be elided into a first scalar.
 * Its stand-in needs its type, and C has no constant of struct type. gcc
 * rejects a compound literal inside a file-scope compound literal (clang
 * takes it); both take one in the initializer of a static object (a GNU
 * extension). So a shape with such a value is a static object,
 * `static __typeof__(T[]) coro_shape_F_x = {...};`, and any other shape is
 * only a type, `typedef __typeof__((T[]){...}) coro_shape_F_x;`, which takes
 * no storage. The field is `T x[sizeof (coro_shape_F_x) / sizeof (T[1])]`.
 * The shapes stand between `#pragma GCC diagnostic push` and `pop`, with the
 * warnings that an elided or overriding list gives turned off: a shape is
 * coroc's scaffolding, and the user's own list, where it stands in the body,
 * keeps its warnings. An array of unknown size may also come through a
 * typedef (`typedef int ints[]; ints a = {...};`): its field is then an array
 * of the typedef's elements, `__typeof__((*(ints *)0)[0]) a[N]`.
 */

/* What the elements of an array are, as far as counting a list goes. */
typedef enum {
  EL_POINTER, /* a pointer: one item each, a string too */
  EL_ARITH,   /* arithmetic or enum: one item each, but a string fills a char array */
  EL_ARRAY,   /* an array (or vector) of scalars: inner braces may be left out */
  EL_RECORD,  /* may hold a struct or union, or a type coroc cannot look into */
} ElemKind;

static ElemKind derived_kind(const Node *specs, const Node *declarator, int from, int depth,
                             const TokenList *toks);

/* `typedef int v4 __attribute__((vector_size(16)));`: brace elision goes
   into a vector as into an array. */
static bool is_vector_typedef(const Sym *s) {
  for (int i = s->decl->specs->first; i < s->toks->n; i++) {
    const Token *t = &s->toks->v[i];
    if (t->kind == TK_IDENT && strstr(tok_text(t), "vector_size"))
      return true;
    if (i > s->decl->last && (t->code == ';' || t->code == ','))
      break;
  }
  return false;
}

/* The kind of the type the specifiers name, looking through typedef names;
   toks: the tokens they were parsed from. */
static ElemKind specs_kind(const Node *specs, int depth, const TokenList *toks) {
  for (int i = 0; specs && i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if (k->kind == ND_TAGGED) /* its first token is struct, union or enum */
      return strcmp(tok_text(&toks->v[k->first]), "enum") == 0 ? EL_ARITH : EL_RECORD;
    if (k->kind == ND_SIZEOF) /* typeof */
      return EL_RECORD;
    if (k->kind == ND_IDENT) {
      Sym *s = k->sym;
      if (!s || s->kind != SYM_TYPEDEF || !s->decl || s->decl->kind != ND_INIT_DECL || !s->toks ||
          depth > 32)
        return EL_RECORD;
      return is_vector_typedef(s)
                 ? EL_ARRAY
                 : derived_kind(s->decl->specs, s->decl->declarator, 0, depth + 1, s->toks);
    }
  }
  return EL_ARITH;
}

/* The kind of the type that the derivations from `from` on make of the
   specifiers (from 1: the elements of an array declarator). */
static ElemKind derived_kind(const Node *specs, const Node *declarator, int from, int depth,
                             const TokenList *toks) {
  bool array = false;
  for (int i = from; declarator && i < declarator->kids.n; i++) {
    if (declarator->kids.v[i]->kind != ND_ARRAY)
      return array ? EL_ARRAY : EL_POINTER;
    array = true;
  }
  ElemKind base = specs_kind(specs, depth, toks);
  return array && base != EL_RECORD ? EL_ARRAY : base;
}

/* Is the object a scalar value where it is used? Arrays and functions decay.
   (A parameter's symbol keeps no tokens: it is the coroutine's own.) */
static bool object_is_scalar(Emitter *e, const Sym *s) {
  if (!s->decl || (s->decl->kind != ND_PARAM && s->decl->kind != ND_INIT_DECL))
    return false;
  const Node *specs = s->decl->specs, *d = s->decl->declarator;
  return (d && d->kids.n) || specs_kind(specs, 0, s->toks ? s->toks : e->toks) != EL_RECORD;
}

/* Does the call return a scalar? Known for a function called by its name;
   a coroutine's call makes an instance, a coro_t *. */
static bool returns_scalar(Emitter *e, const Node *callee) {
  const Sym *s = callee->kind == ND_IDENT ? callee->sym : NULL;
  if (s && s->kind == SYM_FUNCTION && (s->specs & SP_COROUTINE))
    return true;
  if (!s || s->kind != SYM_FUNCTION || !s->decl || s->decl->kind != ND_INIT_DECL)
    return false;
  const Node *d = s->decl->declarator; /* its derivations: the function, then what it returns */
  return d->kids.n && d->kids.v[0]->kind == ND_FUNC &&
         derived_kind(s->decl->specs, d, 1, 0, s->toks ? s->toks : e->toks) != EL_RECORD;
}

/* Is n's value a scalar, never a struct or union? Told by its form and by
   declarations: coroc does not type expressions. */
static bool is_scalar_expr(Emitter *e, const Node *n) {
  if (n->kind == ND_SIZEOF)
    return true;
  if (n->kind == ND_IDENT) {
    Sym *s = n->sym;
    return s && (s->kind == SYM_ENUMCONST || s->kind == SYM_FUNCTION ||
                 (s->kind == SYM_OBJECT && object_is_scalar(e, s)));
  }
  if (n->kind != ND_EXPR)
    return false; /* an await, a statement expression */
  switch ((Op)n->op) {
  case OP_PAREN:
    return is_scalar_expr(e, n->operand);
  case OP_COMMA:
    return is_scalar_expr(e, n->rhs);
  case OP_COND: /* one scalar arm makes both scalar */
    return is_scalar_expr(e, n->then ? n->then : n->cond) || is_scalar_expr(e, n->otherwise);
  case OP_CAST: /* to a union is GNU C */
    return derived_kind(n->lhs->specs, n->lhs->declarator, 0, 0, e->toks) != EL_RECORD;
  case OP_CALL:
    return returns_scalar(e, n->lhs);
  case OP_DEREF:
  case OP_INDEX:
  case OP_MEMBER:
  case OP_ASSIGN:
  case OP_COMPOUND_LITERAL:
  case OP_GENERIC:
  case OP_VA_ARG:
  case OP_STRING:
    return false;
  case OP_ASSIGN_OP:
  case OP_OR:
  case OP_AND:
  case OP_BINARY:
  case OP_ADDRESS:
  case OP_UNARY:
  case OP_POSTFIX:
  case OP_LABEL_ADDR:
  case OP_REAL:
  case OP_IMAG:
  case OP_NUMBER:
  case OP_CHAR:
    return true; /* arithmetic, comparisons, logic, &x, ++, compound assignments */
  }
  return true;
}

/* A string literal, in parentheses or not. */
static bool is_string(const Node *n) {
  while (n->kind == ND_EXPR && n->op == OP_PAREN)
    n = n->operand;
  return n->kind == ND_EXPR && n->op == OP_STRING;
}

/* The replacement list of object-like macro `name` as the coroutine saw it,
   or NULL. */
static const char *macro_text(Emitter *e, const char *name) {
  static const char ident[] = "_$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int i = 0; i < e->co->nmacros; i++) {
    const char *p = strchr(e->co->macros[i], '#') + 1;
    p += strspn(p, " \t");
    p += strncmp(p, "define", 6) == 0 ? 6 : 0;
    p += strspn(p, " \t");
    size_t n = strspn(p, ident);
    if (n == strlen(name) && strncmp(p, name, n) == 0)
      return p[n] == '(' ? NULL : p + n + strspn(p + n, " \t");
  }
  return NULL;
}

/* The replacement list of a macro used as an item (`ORIGIN`), or NULL:
   only its expansion says what the item fills. */
static const char *item_macro(Emitter *e, const Node *n) {
  return n->kind == ND_IDENT && !n->sym ? macro_text(e, tok_text(n->tok)) : NULL;
}

/* Is the text one braced list, `{...}` and nothing after? */
static bool is_one_list(const char *text) {
  int depth = 0;
  const char *p = text;
  for (; *p; p++) {
    if (*p == '"' || *p == '\'') { /* braces in a literal do not count */
      char quote = *p;
      while (p[1] && p[1] != quote)
        p += p[1] == '\\' && p[2] ? 2 : 1;
      p += p[1] != '\0';
    } else if (*p == '{') {
      depth++;
    } else if (*p == '}' && --depth == 0) {
      break;
    }
  }
  return *text == '{' && *p && p[1 + strspn(p + 1, " \t")] == '\0';
}

/* Does a macro's text start with a string literal (L"", u"", U"", u8"" too)? */
static bool is_string_text(const char *text) {
  return text[strspn(text, "LuU8")] == '"';
}

/* How an item of the list stands in the shape (see above). */
typedef enum { IT_BRACED, IT_COPY, IT_SCALAR, IT_TYPED } ItemKind;

static ItemKind item_kind(Emitter *e, const Node *item, ElemKind el) {
  const char *macro = item_macro(e, item);
  if (item->kind == ND_INIT_LIST || (macro && is_one_list(macro))) /* `#define ORIGIN {0, 0}` */
    return IT_BRACED;
  if (is_string(item) || (macro && (is_string_text(macro) || *macro == '{')))
    return IT_COPY; /* a string fills a char array; a macro for several items speaks for itself */
  if (el != EL_RECORD || is_scalar_expr(e, item))
    return IT_SCALAR;
  return IT_TYPED;
}

/* A braced item in the shape: it fills the subobject at hand, whatever it holds. */
static const char *braced_stand_in(Emitter *e, const Node *item, ElemKind el) {
  if (el == EL_POINTER || el == EL_ARITH)
    return "0";
  const char *macro = item_macro(e, item);
  bool empty = macro ? macro[1 + strspn(macro + 1, " \t")] == '}' : item->kids.n == 0;
  return empty ? "{}" : "{0}";
}

/* `char s[] = {"text"}`: the string is the whole array. */
static const Node *braced_string(const Node *init, ElemKind el) {
  const Node *only = init->kids.n == 1 ? init->kids.v[0] : NULL;
  return el == EL_ARITH && only && !only->designation && is_string(only) ? only : NULL;
}

/* How the size of `T a[] = init` is found. */
typedef enum {
  SIZE_COUNTED, /* by coroc */
  SIZE_TYPE,    /* by the compiler, from a typedef of a compound literal's type */
  SIZE_OBJECT,  /* by the compiler, from a static object: the list has a struct value */
} SizeWay;

static SizeWay size_way(Emitter *e, const Node *init, ElemKind el) {
  if (init->kind != ND_INIT_LIST || braced_string(init, el))
    return SIZE_COUNTED;
  bool counted = true, object = false;
  for (int i = 0; i < init->kids.n; i++) {
    Node *item = init->kids.v[i];
    ItemKind k = item_kind(e, item, el);
    bool one = k == IT_BRACED || el == EL_POINTER || (el == EL_ARITH && k == IT_SCALAR);
    counted &= one && !item->designation;
    object |= k == IT_TYPED;
  }
  return counted ? SIZE_COUNTED : object ? SIZE_OBJECT : SIZE_TYPE;
}

/* The typedef name through which the specifiers name an array without a
   size (`typedef int ints[];`), or NULL. */
static const Sym *unsized_typedef(const Node *specs, int depth) {
  const Sym *s = depth < 32 ? typedef_named(specs) : NULL;
  if (!s)
    return NULL;
  const Node *d = s->decl->declarator;
  if (!d->kids.n)
    return unsized_typedef(s->decl->specs, depth + 1);
  return d->kids.v[0]->kind == ND_ARRAY && !d->kids.v[0]->size ? s : NULL;
}

/* An array whose size its initializer gives. */
typedef struct {
  ElemKind el;         /* what its elements are */
  const Sym *typedef_; /* `ints a = {...}`: the typedef of the array type, or NULL for `T a[]` */
} Unsized;

/* Is this `T a[] = init`, or `ints a = init`? */
static bool is_unsized(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                       Unsized *u) {
  const Node *outer = declarator && declarator->kids.n ? declarator->kids.v[0] : NULL;
  u->typedef_ = init && !outer ? unsized_typedef(specs, 0) : NULL;
  if (u->typedef_) {
    u->el = derived_kind(u->typedef_->decl->specs, u->typedef_->decl->declarator, 1, 0,
                         u->typedef_->toks);
    return true;
  }
  if (!init || !outer || outer->kind != ND_ARRAY || outer->size)
    return false;
  u->el = derived_kind(specs, declarator, 1, 0, e->toks);
  return true;
}

static const char *shape_name(Emitter *e, const char *key) {
  return format("coro_shape_%s_%s", e->co->name, key);
}

static char *decl_sized(Emitter *e, const Node *specs, const Node *declarator, const char *size,
                        const char *name, bool is_param);

/* The size of `T a[] = init;`, for the field whose shape is named after
   `key`. NULL (`T[]`, no size) for a type without a field: a compound
   literal of it takes its size from the same list. */
static const char *array_size_from(Emitter *e, const Node *specs, const Node *declarator,
                                   const Node *init, const char *key, const Unsized *u) {
  ElemKind el = u->el;
  if (size_way(e, init, el) != SIZE_COUNTED) {
    if (!key || !*key)
      return NULL;
    const char *element = u->typedef_ ? format("(*(%s *)0)[0]", specs_str(e, specs, TYPE_NAME))
                                      : decl_sized(e, specs, declarator, "1", "", false);
    return format("sizeof (%s) / sizeof (%s)", shape_name(e, key), element);
  }
  const Node *str = init->kind != ND_INIT_LIST ? init : braced_string(init, el);
  if (str) { /* "text", L"text", "te" "xt": its own size */
    char *s = node_str(e, str);
    return format("sizeof %s / sizeof %s[0]", s, s);
  }
  return format("%d", init->kids.n);
}

/* The type the specifiers name, without a const of its own: the frame is
   written by assignment. A const written among them goes; one a typedef
   gives (`cpt p` with `typedef const struct pt cpt;`) has no words to leave
   out, so the field takes the type of the value of such an lvalue, which C
   leaves unqualified (a volatile given back: every access to the local
   still reaches memory). */
static char *unconst_specs(Emitter *e, const Node *specs, int drop_also) {
  int q = typedef_qualifiers(specs, 0);
  if (!(q & QUAL_CONST))
    return specs_str(e, specs, SPECS_CONST | drop_also);
  bool keep_volatile = (q | specs_qualifiers(specs, e->toks)) & QUAL_VOLATILE;
  return format("%s%s__typeof__(((void)0, *(%s *)0))", drop_also ? "" : alignas_str(e, specs),
                keep_volatile ? "volatile " : "", specs_str(e, specs, TYPE_NAME));
}

/* The declaration of a field: `int coro_x_2[4]`, or with name "" the type
   name `int[4]`; `size` for an outermost array without one (NULL: as
   written). Array parameters are pointers. */
static char *decl_sized(Emitter *e, const Node *specs, const Node *declarator, const char *size,
                        const char *name, bool is_param) {
  int drop_also = *name ? 0 : SPECS_ALIGNAS; /* "": a type name */
  if (!declarator)                           /* a type name of specifiers only */
    return unconst_specs(e, specs, SPECS_ALIGNAS);
  const Node *outer = declarator->kids.n ? declarator->kids.v[0] : NULL;
  bool has_pointer = is_param && outer && outer->kind != ND_POINTER; /* a decayed array */
  for (int i = 0; i < declarator->kids.n; i++)
    has_pointer |= declarator->kids.v[i]->kind == ND_POINTER;
  /* the frame is written by assignment (an array's elements by memcpy), so
     its fields are not const themselves: the specifiers' const goes when
     nothing is derived from it by a pointer, and the outermost pointer's own
     const goes, an array's elements' too (`char *const a[2]`) */
  int top = 0;
  while (!is_param && top < declarator->kids.n && declarator->kids.v[top]->kind == ND_ARRAY)
    top++;
  const Node *pointer = top < declarator->kids.n ? declarator->kids.v[top] : NULL;
  Style st = {.name = declarator->tok,
              .name_text = name,
              .collapse = true,
              .unconst = pointer && pointer->kind == ND_POINTER ? pointer : NULL};
  if (is_param && outer && outer->kind == ND_ARRAY) {
    st.name_text = format("(*%s)", name);
    st.omit = outer;
  } else if (is_param && outer && outer->kind == ND_FUNC) {
    st.name_text = format("(*%s)", name);
  } else if (outer && outer->kind == ND_ARRAY && !outer->size && size) {
    st.sized = outer;
    st.size = size;
  }
  char *type = declarator->kids.n ? specs_str(e, specs, (has_pointer ? 0 : SPECS_CONST) | drop_also)
                                  : unconst_specs(e, specs, drop_also);
  char *decl = range_str(e, declarator->first, declarator->last, &st);
  if (*decl == '\0')
    return type;
  return format("%s %s", type, decl);
}

/* The same, an array without a size sized by its initializer `init`; `key`
   names its shape (see array_size_from). Through a typedef (`ints a`), the
   field is an array of the typedef's elements: `__typeof__((*(ints *)0)[0])
   a[3]`. */
static char *sized_decl(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                        const char *key, const char *name, bool is_param) {
  Unsized u;
  if (is_param || !is_unsized(e, specs, declarator, init, &u))
    return decl_sized(e, specs, declarator, NULL, name, is_param);
  const char *size = array_size_from(e, specs, declarator, init, key, &u);
  if (u.typedef_ && size)
    return format("%s__typeof__((*(%s *)0)[0]) %s[%s]", *name ? alignas_str(e, specs) : "",
                  specs_str(e, specs, TYPE_NAME), name, size);
  return decl_sized(e, specs, declarator, size, name, is_param);
}

static void type_lent_names(Emitter *e, const Node *specs, const Node *declarator, const Sym *self,
                            int depth);
static char *auto_type(Emitter *e, const Node *init, const Sym *self, int depth);

/* Does a declaration's type name something of the body (not its own name)? */
static bool names_body_name(Emitter *e, const Node *specs, const Node *declarator) {
  int ranges[2][2] = {{specs->first, specs->last}, {declarator->first, declarator->last}};
  for (int r = 0; r < 2; r++)
    for (int i = ranges[r][0]; i <= ranges[r][1]; i++)
      if (&e->toks->v[i] != declarator->tok && is_body_name(token_sym(&e->toks->v[i])))
        return true;
  return false;
}

/* `__auto_type x = ...`: its type is its initializer's (types.c). */
static bool is_auto_type(Emitter *e, const Node *specs) {
  return is_auto_type_specs(specs, e->toks);
}

/* A field and its type are named alike: the field `name`'s shape is keyed by
   it. A field's type is written outside the body: a local it names for its
   type alone (`char raw[sizeof hdr]`) is written as an lvalue of that type. */
char *field_decl(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                 const char *name, bool is_param) {
  if (!*name) /* a type name in the body, where the locals are */
    return sized_decl(e, specs, declarator, init, name, name, is_param);
  if (init && !is_param && is_auto_type(e, specs))
    return format("%s %s", auto_type(e, init, token_sym(declarator->tok), 0), name);
  if (!names_body_name(e, specs, declarator)) /* (nearly every field) */
    return sized_decl(e, specs, declarator, init, name, name, is_param);
  int keep = e->nrepl;
  type_lent_names(e, specs, declarator, token_sym(declarator->tok), 0);
  char *decl = sized_decl(e, specs, declarator, init, name, name, is_param);
  drop_repl(e, keep);
  return decl;
}

/* The type of a compound literal, an array's size taken from its own list. */
char *literal_type(Emitter *e, const Node *lit, const char *key) {
  Node *type = lit->lhs; /* an ND_TYPENAME */
  Node init = {.kind = ND_INIT_LIST, .first = lit->first, .last = lit->last, .kids = lit->kids};
  Unsized u;
  if (!type->declarator && !is_unsized(e, type->specs, NULL, &init, &u))
    return specs_str(e, type->specs, SPECS_ALIGNAS);
  return sized_decl(e, type->specs, type->declarator, &init, key, "", false);
}

/* }================================================================== */

/* {==================================================================
 * The shapes of lists (see "Sizes of arrays declared []" above)
 * =================================================================== */


/* While a shape is printed, the names of the body print as lvalues of
   their types, so that `__typeof__` and `sizeof` around them mean at file
   scope what they mean in the body. */
typedef struct {
  Emitter *e;
  const Sym *self; /* the array being sized: its own type is not complete yet */
  int depth;       /* of names typed within the types of names typed */
} Typing;

static char *typed_node(Typing *t, Node *n);

/* `(*(__typeof__(int [3]) *)0)`: an lvalue of the type of a local, a
   parameter, or another name of the body (a static local, a function
   declared in a block). */
static const char *typed_name(Typing *t, const Sym *s) {
  const Node *d = s->decl;
  char *type;
  int keep = t->e->nrepl; /* the names its own type takes the types of, typed too */
  type_lent_names(t->e, d->specs, d->declarator, t->self, t->depth + 1);
  if (d->kind == ND_PARAM) {
    type = decl_sized(t->e, d->specs, d->declarator, NULL, "", true);
  } else if (d->init && is_auto_type(t->e, d->specs)) { /* `typeof(x)` of `__auto_type x = ...` */
    type = auto_type(t->e, d->init, s, t->depth + 1);
  } else {
    bool framed = s->owner == t->e->co && s->field && s != t->self;
    type = sized_decl(t->e, d->specs, d->declarator, framed ? d->init : NULL,
                      framed ? s->field : NULL, "", false);
  }
  drop_repl(t->e, keep);
  return format("(*(__typeof__(%s) *)0)", type);
}

/* Each name of the body in tokens first..last prints typed (tokens, as a
   designator keeps no expression nodes). */
static void type_names(Typing *t, int first, int last) {
  for (int i = first; i <= last; i++) {
    Token *tok = &t->e->toks->v[i];
    if (tok->kind == TK_IDENT && is_body_name(token_sym(tok)))
      push_repl(t->e, &(Node){.first = i, .last = i}, typed_name(t, token_sym(tok)));
  }
}

static void type_lent_name(Node *ident, bool type_only, void *ctx) {
  Typing *t = ctx;
  if (type_only && is_body_name(ident->sym) && ident->sym != t->self)
    push_repl(t->e, ident, typed_name(t, ident->sym));
}

/* Each name of the body that a declaration's type takes the type of
   (types.c, names_in_type) prints typed, until drop_repl. */
static void type_lent_names(Emitter *e, const Node *specs, const Node *declarator, const Sym *self,
                            int depth) {
  Typing t = {e, self, depth};
  if (depth < 32) /* (a chain of typeof(a) b; typeof(b) c; ... as long as a person writes) */
    names_in_type(specs, declarator, type_lent_name, &t);
}

/* A type declared in the body (a struct, union or enum with its members, or a typedef), as
   printed at file scope: a name of the body it takes the type of alone (`char d[sizeof hdr]`)
   prints typed, as in a field's type. */
char *hoisted_type_str(Emitter *e, const Node *type) {
  int keep = e->nrepl;
  for (int i = type->first; i <= type->last; i++)
    if (is_body_name(token_sym(&e->toks->v[i]))) { /* (rare: walked only then) */
      Typing t = {e, NULL, 0};
      names_in_type(type, NULL, type_lent_name, &t);
      break;
    }
  char *text = type->kind == ND_TAGGED ? format("%s;", range_str(e, type->first, type->last, NULL))
                                       : node_str(e, type);
  drop_repl(e, keep);
  return text;
}

/* A part of a value that means nothing at file scope, as an lvalue of its
   type; NULL for any other part. */
static const char *typed_part(Typing *t, Node *n) {
  if (n->kind == ND_AWAIT && n->callee) /* a task: its coroutine's value */
    return task_has_value(n->sym) ? format("(*(coro_value_%s *)0)", n->callee) : "((void)0)";
  if (n->kind == ND_AWAIT) /* an operation: its awaitable's result */
    return format("(*(__typeof__(%s) *)0).result", n->type);
  if (n->kind == ND_STMT_EXPR) { /* ({ ...; v; }): the type of v */
    Node *block = n->block, *last = block->kids.n ? block->kids.v[block->kids.n - 1] : NULL;
    if (!last || last->kind != ND_EXPR_STMT || !last->expr)
      return "((void)0)";
    return format("(*(__typeof__((void)0, %s) *)0)", typed_node(t, last->expr));
  }
  if (n->kind == ND_EXPR && n->op == OP_COMPOUND_LITERAL)
    return format("(*(__typeof__(%s) *)0)", literal_type(t->e, n, n->field));
  if (n->kind == ND_EXPR && n->op == OP_LABEL_ADDR)
    return "((void *)0)";
  if (n->kind == ND_EXPR && n->op == OP_VA_ARG) /* __builtin_va_arg(ap, T) */
    return format("(*(__typeof__(%s) *)0)",
                  range_str(t->e, n->lhs->last + 2, n->last - 1, &(Style){.collapse = true}));
  return NULL;
}

static bool typed_pre(Node *n, void *ctx) {
  Typing *t = ctx;
  const char *text = typed_part(t, n);
  if (text)
    push_repl(t->e, n, text);
  return !text;
}

/* n's text with its names and parts typed, for `__typeof__` at file scope. */
static char *typed_node(Typing *t, Node *n) {
  int keep = t->e->nrepl;
  type_names(t, n->first, n->last);
  visit(n, typed_pre, NULL, t);
  char *text = node_str(t->e, n);
  drop_repl(t->e, keep);
  return text;
}

/* The type of a local declared `__auto_type x = init`, written where the
   body's names do not exist: the type of init's value (after the comma, C
   converts it as __auto_type does: an array to a pointer, no qualifier),
   its names and parts typed. */
static char *auto_type(Emitter *e, const Node *init, const Sym *self, int depth) {
  Typing t = {e, self, depth};
  return format("__typeof__(((void)0, %s))", typed_node(&t, (Node *)init));
}

/* One item of a shape, designation included. */
static void print_shape_item(FILE *out, Typing *t, Node *item, ElemKind el) {
  if (item->designation) { /* its names and parts typed, as in a value */
    int keep = t->e->nrepl;
    type_names(t, item->designation->first, item->designation->last);
    visit(item->designation, typed_pre, NULL, t);
    char *designation = range_str(t->e, item->designation->first, item->designation->last,
                                  &(Style){.collapse = true});
    fputs(designation, out);
    xfree(designation);
    drop_repl(t->e, keep);
    fputc(' ', out);
  }
  switch (item_kind(t->e, item, el)) {
  case IT_BRACED:
    fputs(braced_stand_in(t->e, item, el), out);
    break;
  case IT_COPY:
    fputs(node_str(t->e, item), out);
    break;
  case IT_SCALAR:
    fputc('0', out);
    break;
  case IT_TYPED:
    xfprintf(out, "(__typeof__((void)0, %s)){0}", typed_node(t, item));
    break;
  }
}

static char *shape_items(Typing *t, const Node *init, ElemKind el) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  for (int i = 0; i < init->kids.n; i++) {
    if (i > 0)
      fputs(", ", f);
    print_shape_item(f, t, init->kids.v[i], el);
  }
  memstream_close(f);
  return buf;
}

/* The shape of one array's list, if the compiler must count it: its
   declaration (`typedef __typeof__((T[]){...}) coro_shape_F_x;` or a static
   object), else NULL. */
char *shape_decl(Emitter *e, const Node *specs, const Node *d, const Node *init, const char *key,
                 const Sym *self) {
  Unsized u;
  if (!is_unsized(e, specs, d, init, &u))
    return NULL;
  ElemKind el = u.el;
  SizeWay way = size_way(e, init, el);
  if (way == SIZE_COUNTED)
    return NULL;
  Typing t = {e, self, 0};
  char *type =
      u.typedef_ ? specs_str(e, specs, TYPE_NAME) : decl_sized(e, specs, d, NULL, "", false);
  char *items = shape_items(&t, init, el);
  if (way == SIZE_TYPE)
    return format("typedef __typeof__((%s){%s}) %s;", type, items, shape_name(e, key));
  return format("static __typeof__(%s) %s __attribute__((unused)) = {%s};", type,
                shape_name(e, key), items);
}

/* }================================================================== */

/* What emit_stackful.c needs of the above. */
char *emit_field_decl(Emitter *e, const Node *specs, const Node *declarator, const char *name) {
  return field_decl(e, specs, declarator, NULL, name, true);
}

char *emit_range(Emitter *e, int first, int last, bool raw) {
  return range_str(e, first, last, &(Style){.raw = raw, .collapse = !raw});
}

/* }================================================================== */
