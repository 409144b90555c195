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
#include "coroc.h"
#include "parser.h"

#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Printing token ranges, with the renames of frame.c
 * =================================================================== */

/* What a token stands for in the output. */
static const char *token_text(Emitter *e, const Token *t) {
  if (e->co && t->kind == TK_IDENT && (strcmp(t->text, "__func__") == 0 ||
                                       strcmp(t->text, "__FUNCTION__") == 0))
    return format("\"%s\"", e->co->name);  /* the coroutine's name, not coro_resume_NAME */
  Sym *s = token_sym(t);
  if (s && s->owner && s->field) {
    if (s->kind == SYM_OBJECT)
      return format("coro_f->%s", s->field);
    return s->field;
  }
  return t->text;
}

static const char *tagged_name(const Node *tagged) {
  Sym *s = token_sym(tagged->tok);
  if (s && s->field && s->owner)
    return s->field;
  return tagged->name;
}

static void print_range(FILE *out, Emitter *e, int first, int last, const Style *st);

/* Is token i a `const` that qualifies the pointer itself (`int *const p`)? */
static bool is_top_const(Emitter *e, const Node *pointer, int i) {
  if (i < pointer->first || i > pointer->last)
    return false;
  const Token *t = &e->toks->v[i];
  if (t->kind != TK_IDENT || (strcmp(t->text, "const") && strcmp(t->text, "__const") &&
                              strcmp(t->text, "__const__")))
    return false;
  for (int j = i + 1; j <= pointer->last; j++)
    if (e->toks->v[j].code == '*')
      return false;
  return true;
}

/* `struct coro_gen_node` for a hoisted definition; the keyword is its first token. */
static bool print_collapsed(FILE *out, Emitter *e, const Node *tagged) {
  const char *name = tagged_name(tagged);
  if (!name)
    return false;
  fprintf(out, "%s %s", e->toks->v[tagged->first].text, name);
  return true;
}

/* The widest lowered range that starts at token i and ends by `last`: the
   entries are chained by the token they start at, so printing a token asks
   only about its own (usually none). */
static int best_repl(Emitter *e, int i, int last) {
  int best = -1;
  if (!e->repl_at)
    return -1;
  for (int k = e->repl_at[i]; k >= 0; k = e->repl[k].next)
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
    e->repl_at[e->repl[e->nrepl].first] = e->repl[e->nrepl].next;
  }
}

static void print_range(FILE *out, Emitter *e, int first, int last, const Style *st) {
  bool started = false;
  for (int i = first; i <= last; i++) {
    const Token *t = &e->toks->v[i];
    if (t->dead || t->kind == TK_DIRECTIVE)
      continue;
    if (st && st->name && t == st->name && !*st->name_text)
      continue;  /* an abstract declarator: the name and its space go */
    if (st && st->unconst && is_top_const(e, st->unconst, i))
      continue;
    if (started && (t->space || t->bol))
      fputc(' ', out);
    started = true;
    if (st && st->omit && i == st->omit->first) {
      i = st->omit->last;
      continue;
    }
    if (st && st->sized && i == st->sized->first) {
      fprintf(out, "[%s]", st->size);
      i = st->sized->last;
      continue;
    }
    if (st && st->name && t == st->name) {
      fputs(st->name_text, out);
      continue;
    }
    const char *repl = replacement(e, i, last);
    if (repl && !(st && st->raw)) {  /* an await, or an && around one, already lowered */
      int end = repl_end(e, i, last);
      fputs(repl, out);
      i = end;
      continue;
    }
    Node *lit = token_literal(t), *hoisted = token_hoisted(t);
    if (lit && e->co && !(st && st->raw) && !(st && st->literal == lit)) {
      fprintf(out, "CORO_LITERAL(coro_f->%s, ", lit->name);
      print_range(out, e, lit->first, lit->last, &(Style){.collapse = true, .literal = lit});
      fputc(')', out);
      i = lit->last;
      continue;
    }
    if (hoisted && st && st->collapse && print_collapsed(out, e, hoisted)) {
      i = hoisted->last;
      continue;
    }
    if (hoisted && !token_sym(hoisted->tok) && hoisted->name) {
      /* an anonymous hoisted type gets its generated tag after the keyword */
      fprintf(out, "%s %s", t->text, hoisted->name);
      continue;
    }
    fputs(st && st->raw ? t->text : token_text(e, t), out);
  }
}

/* print_range into a new string */
char *range_str(Emitter *e, int first, int last, const Style *st) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  print_range(f, e, first, last, st);
  fclose(f);
  return buf;
}

char *node_str(Emitter *e, const Node *n) {
  return range_str(e, n->first, n->last, &(Style){.collapse = true});
}

void push_repl(Emitter *e, const Node *n, const char *text) {
  if (e->nrepl == e->caprepl) {
    e->caprepl = e->caprepl ? e->caprepl * 2 : 16;
    e->repl = xrealloc(e->repl, sizeof e->repl[0] * e->caprepl);
  }
  if (!e->repl_at) {
    e->repl_at = xcalloc(e->toks->n + 1, sizeof(int));
    for (int i = 0; i <= e->toks->n; i++)
      e->repl_at[i] = -1;
  }
  e->repl[e->nrepl].first = n->first;
  e->repl[e->nrepl].last = n->last;
  e->repl[e->nrepl].text = text;
  e->repl[e->nrepl].next = e->repl_at[n->first];
  e->repl_at[n->first] = e->nrepl++;
}

/* }================================================================== */

/* {==================================================================
 * Types of frame fields
 * =================================================================== */

/* The specifiers of a field: no storage class, no `coroutine`, and no
   top-level const (the frame is written by assignment); a hoisted struct
   is named, not defined again. */
char *specs_str(Emitter *e, const Node *specs, bool drop_const) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  bool first = true;
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if (i > 0 && k->first == specs->kids.v[i - 1]->first)
      continue;  /* the words of one macro (`u8` for `unsigned char`) stand at one token */
    int drop = SP_TYPEDEF | SP_EXTERN | SP_STATIC | SP_AUTO | SP_REGISTER | SP_THREAD | SP_COROUTINE;
    if (k->kind == ND_EXPR && (k->flags & drop))
      continue;
    if (drop_const && k->kind == ND_EXPR && k->flags == SP_CONST)
      continue;
    if (!first)
      fputc(' ', f);
    first = false;
    print_range(f, e, k->first, k->last, &(Style){.collapse = true});
  }
  fclose(f);
  return buf;
}

/* Could the specifiers name a struct, union or array type (a tag, or a
   typedef name we do not look through)? Then `{1, 2, 3, 4}` may fill
   elements several values at a time. */
static bool has_aggregate_type(const Node *specs) {
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if ((k->kind == ND_TAGGED && strcmp(k->tok->text, "enum") != 0) || k->kind == ND_IDENT ||
        k->kind == ND_SIZEOF)
      return true;
  }
  return false;
}

/* The size of `T a[] = init;`: counted from the initializer. */
static const char *array_size_from(Emitter *e, const Node *init, bool elements_are_scalars) {
  if (!init)
    return NULL;
  if (init->kind != ND_INIT_LIST) {  /* char s[] = "text", wchar_t w[] = L"text" */
    char *lit = node_str(e, init);
    return format("sizeof %s / sizeof %s[0]", lit, lit);
  }
  for (int i = 0; i < init->kids.n; i++)
    if (init->kids.v[i]->d)
      error_tok(&e->toks->v[init->first], "an array in a coroutine with designated initializers "
                "needs an explicit size");
  for (int i = 0; i < init->kids.n && !elements_are_scalars; i++)
    if (init->kids.v[i]->kind != ND_INIT_LIST)
      error_tok(&e->toks->v[init->first], "an array of arrays or structs in a coroutine whose "
                "initializer leaves out inner braces needs an explicit size");
  if (init->kids.n == 1 && init->kids.v[0]->kind == ND_EXPR && init->kids.v[0]->flags == OP_STRING) {
    char *lit = node_str(e, init->kids.v[0]);
    return format("sizeof %s / sizeof %s[0]", lit, lit);
  }
  return format("%d", init->kids.n);
}

/* The declaration of a field: `int coro_x_2[4]`, or with name "" the type
   name `int[4]`. Array parameters are pointers. */
char *field_decl(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                        const char *name, bool is_param) {
  const Node *outer = declarator->kids.n ? declarator->kids.v[0] : NULL;
  bool has_pointer = is_param && outer && outer->kind != ND_POINTER;  /* a decayed array */
  for (int i = 0; i < declarator->kids.n; i++)
    has_pointer |= declarator->kids.v[i]->kind == ND_POINTER;
  /* the frame is written by assignment, so its fields are not const
     themselves: the specifiers' const goes when nothing is derived from it
     by a pointer, and the outermost pointer's own const goes */
  Style st = {.name = declarator->tok, .name_text = name, .collapse = true,
              .unconst = outer && outer->kind == ND_POINTER ? outer : NULL};
  if (is_param && outer && outer->kind == ND_ARRAY) {
    st.name_text = format("(*%s)", name);
    st.omit = outer;
  } else if (is_param && outer && outer->kind == ND_FUNC) {
    st.name_text = format("(*%s)", name);
  } else if (outer && outer->kind == ND_ARRAY && !outer->a && init) {
    st.sized = outer;
    /* the element type: what the derivations after the array make of the specifiers */
    bool scalar = declarator->kids.n > 1 ? declarator->kids.v[1]->kind == ND_POINTER
                                         : !has_aggregate_type(specs);
    st.size = array_size_from(e, init, scalar);
  }
  char *type = specs_str(e, specs, !has_pointer);
  char *decl = range_str(e, declarator->first, declarator->last, &st);
  if (*decl == '\0')
    return type;
  return format("%s %s", type, decl);
}

/* Is the declared type an array, looking through typedef names
   (`my_pair_t pair = {...}` where my_pair_t is an array type)? */
bool is_array_type(const Node *specs, const Node *declarator, int depth) {
  if (declarator && declarator->kids.n)
    return declarator->kids.v[0]->kind == ND_ARRAY;
  for (int i = 0; specs && i < specs->kids.n && depth < 32; i++) {
    Node *k = specs->kids.v[i];
    Sym *s = k->kind == ND_IDENT ? k->sym : NULL;
    if (s && s->kind == SYM_TYPEDEF && s->decl && s->decl->kind == ND_INIT_DECL)
      return is_array_type(s->decl->c, s->decl->a, depth + 1);
  }
  return false;
}

/* What emit_stackful.c needs of the above. */
char *emit_field_decl(Emitter *e, const Node *specs, const Node *declarator, const char *name) {
  return field_decl(e, specs, declarator, NULL, name, true);
}

char *emit_range(Emitter *e, int first, int last, bool raw) {
  return range_str(e, first, last, &(Style){.raw = raw, .collapse = !raw});
}

/* }================================================================== */
