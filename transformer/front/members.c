/* members.c: is a struct's member an array? What liveness asks of a path.
 *
 * An array decays to a pointer into its object wherever it is used as a
 * value, so `yield s.t;` of `struct { int n; char t[8]; } s` takes the
 * address of s without a `&` (live.c, "The locals, and what makes one stay
 * in the frame"), while `yield s.n;` only reads it. coroc keeps no types of
 * members in its tree (the parser skips member lists), so the answer is
 * read from the tokens of the struct's definition when it can be found and
 * read plainly:
 *
 *   struct pt { int x, y; char name[8]; };    x, y: not arrays; name: one
 *   typedef struct { T v; } box;               v: as T (a typedef name)
 *
 * Anything else (a member declared through parentheses, a type from
 * `typeof`, a struct defined in a header the parse let go of, a member
 * found twice) is MEMBER_UNKNOWN, which the caller treats as an array:
 * keeping a local in the frame is always safe.
 */
#include "coroc.h"

#include <string.h>

/* A token's spelling is this punctuator or word. */
static bool is(const Token *t, const char *s) {
  return strcmp(tok_text(t), s) == 0;
}

static bool is_one_of(const Token *t, const char *const *words) {
  for (int i = 0; words[i]; i++)
    if (is(t, words[i]))
      return true;
  return false;
}

/* Words of a member's specifiers that say nothing of arrays: a type of
   its own (after which a name is the declarator's), or a qualifier. */
static bool is_type_word(const Token *t) {
  static const char *const words[] = {"void",       "char",     "short",        "int",
                                      "long",       "float",    "double",       "signed",
                                      "unsigned",   "_Bool",    "_Complex",     "__int128",
                                      "__signed__", "__signed", "__unsigned__", NULL};
  return is_one_of(t, words);
}

static bool is_qualifier(const Token *t) {
  static const char *const words[] = {"const",        "volatile",  "restrict",      "__restrict",
                                      "__restrict__", "_Atomic",   "__volatile__",  "__volatile",
                                      "__const",      "__const__", "__extension__", NULL};
  return is_one_of(t, words);
}

/* The typedef name t, if it names an array type. One that cannot be
   found counts as an array. */
static bool typedef_is_array(const Token *t) {
  Sym *s = token_sym(t);
  if (!s) /* a header's token: the file scope's name, which the passes still see */
    s = scope_lookup(tok_text(t));
  if (!s || s->kind != SYM_TYPEDEF || !s->decl || s->decl->kind != ND_INIT_DECL)
    return true;
  return array_type_kind(s->decl->specs, s->decl->declarator, 0) != ARRAY_NO;
}

/* Past a balanced (...) or {...} that starts at i: the index after it. */
static int skip_balanced(const TokenList *toks, int i, int last) {
  int depth = 0;
  for (; i <= last; i++) {
    const char *s = tok_text(&toks->v[i]);
    depth += (s[0] == '(' || s[0] == '{' || s[0] == '[') && !s[1];
    depth -= (s[0] == ')' || s[0] == '}' || s[0] == ']') && !s[1];
    if (depth == 0)
      return i + 1;
  }
  return last + 1;
}

/* One member declaration, tokens i..end (its ';' excluded): the member
   named `name` in it (0: not an array, N: an array of N dimensions, or
   MEMBER_UNKNOWN), or MEMBER_NONE if it declares no such member. */
static int member_in_decl(const TokenList *toks, int i, int end, const char *name) {
  bool typedef_array = false, unknown = false, typed = false;
  for (; i < end; i++) { /* the specifiers */
    const Token *t = &toks->v[i];
    if (is(t, "struct") || is(t, "union") || is(t, "enum")) {
      typed = true;
      if (i + 1 < end && toks->v[i + 1].kind == TK_IDENT && !is(&toks->v[i + 1], "__attribute__"))
        i++;
      if (i + 1 < end && is(&toks->v[i + 1], "{"))
        i = skip_balanced(toks, i + 1, end - 1) - 1;
    } else if (is(t, "__attribute__") || is(t, "_Alignas") || is(t, "__attribute")) {
      i = skip_balanced(toks, i + 1, end - 1) - 1;
    } else if (is(t, "typeof") || is(t, "__typeof__") || is(t, "__typeof")) {
      unknown = typed = true;
      i = skip_balanced(toks, i + 1, end - 1) - 1;
    } else if (is_type_word(t)) {
      typed = true;
    } else if (t->kind == TK_IDENT && !is_qualifier(t) && !typed) {
      typedef_array = typedef_is_array(t); /* a typedef name */
      typed = true;
    } else if (!is_qualifier(t)) {
      break; /* the first declarator */
    }
  }
  while (i < end) { /* the declarators, each up to a ',' */
    bool star = false, paren = false, found = false, width = false;
    int dims = 0;
    for (; i < end && !is(&toks->v[i], ","); i++) {
      const Token *t = &toks->v[i];
      if (is(t, "__attribute__") || is(t, "__attribute") || is(t, "__asm__")) {
        i = skip_balanced(toks, i + 1, end - 1) - 1;
        continue;
      }
      width |= is(t, ":"); /* a bit-field's width names no member */
      if (width)
        continue;
      if (is(t, "*"))
        star = true;
      else if (is(t, "("))
        paren = true;
      else if (is(t, "[") && found)
        dims++;
      if (t->kind == TK_IDENT && is(t, name))
        found = true;
      if (is(t, "[") || (is(t, "(") && found))
        i = skip_balanced(toks, i, end - 1) - 1;
    }
    i++;
    if (found) {
      if (unknown || paren || (typedef_array && !star))
        return MEMBER_UNKNOWN;
      return star && dims ? MEMBER_UNKNOWN : dims; /* (`int *a[2]`: an array of pointers) */
    }
  }
  return MEMBER_NONE;
}

/* The member `name` in a member list, tokens first..last (the braces
   excluded), nested anonymous structs and unions included. */
static int member_in_list(const TokenList *toks, int first, int last, const char *name) {
  int kind = MEMBER_NONE, start = first;
  for (int i = first; i <= last; i++) {
    const char *s = tok_text(&toks->v[i]);
    if ((s[0] == '{' || s[0] == '(') && !s[1]) {
      if (s[0] == '{') {
        int inner = member_in_list(toks, i + 1, skip_balanced(toks, i, last) - 2, name);
        kind = inner == MEMBER_NONE ? kind : kind == MEMBER_NONE ? inner : MEMBER_UNKNOWN;
      }
      i = skip_balanced(toks, i, last) - 1;
      continue;
    }
    if (s[0] != ';' || s[1])
      continue;
    int here = member_in_decl(toks, start, i, name);
    /* twice: not sure */
    kind = here == MEMBER_NONE ? kind : kind == MEMBER_NONE ? here : MEMBER_UNKNOWN;
    start = i + 1;
  }
  return kind;
}

/* The member list of a definition, tokens first..last: the kind of `name`. */
static int member_in_definition(const TokenList *toks, int first, int last, const char *name) {
  for (int i = first; i <= last; i++)
    if (is(&toks->v[i], "{")) {
      int kind = member_in_list(toks, i + 1, skip_balanced(toks, i, last) - 2, name);
      return kind == MEMBER_NONE ? MEMBER_UNKNOWN : kind;
    }
  return MEMBER_UNKNOWN;
}

static int member_in_specs(const Source *src, const TokenList *toks, const Node *specs,
                           const char *name, int depth);

/* A struct or union specifier, parsed from toks: its member `name`. A
   bare `struct s` is looked up: the user's own tokens know their tag, a
   header's or the file parse's are found by name at file scope. */
static int member_of_tagged(const Source *src, const TokenList *toks, const Node *tagged,
                            const char *name) {
  if (tagged->has_body)
    return member_in_definition(toks, tagged->first, tagged->last, name);
  Sym *s = tagged->tok ? token_sym(tagged->tok) : NULL;
  if (!s && tagged->tok && tagged->tok->kind == TK_IDENT)
    s = scope_lookup_tag(tok_text(tagged->tok));
  if (s && s->ext) /* a file-scope definition */
    return member_in_definition(&src->expanded, s->ext->first, s->ext->last, name);
  if (s && s->decl && s->decl->kind == ND_TAGGED && s->decl->has_body) /* one of the body */
    return member_in_definition(&src->original, s->decl->first, s->decl->last, name);
  return MEMBER_UNKNOWN;
}

/* A typedef name of a struct: the member of what it names. */
static int member_of_typedef(const Source *src, const Sym *s, const char *name, int depth) {
  if (!s->decl || s->decl->kind != ND_INIT_DECL || !s->decl->specs ||
      (s->decl->declarator && s->decl->declarator->kids.n))
    return MEMBER_UNKNOWN;
  const TokenList *toks = s->ext ? &src->expanded : &src->original; /* file scope, or the body */
  return member_in_specs(src, toks, s->decl->specs, name, depth + 1);
}

static int member_in_specs(const Source *src, const TokenList *toks, const Node *specs,
                           const char *name, int depth) {
  for (int i = 0; specs && depth < 32 && i < specs->kids.n; i++) {
    const Node *k = specs->kids.v[i];
    if (k->kind == ND_TAGGED)
      return member_of_tagged(src, toks, k, name);
    if (k->kind == ND_IDENT && k->sym && k->sym->kind == SYM_TYPEDEF)
      return member_of_typedef(src, k->sym, name, depth);
  }
  return MEMBER_UNKNOWN;
}

int member_dims(const Source *src, const Node *specs, const char *name) {
  return member_in_specs(src, &src->original, specs, name, 0);
}
