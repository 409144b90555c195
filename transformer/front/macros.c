/* macros.c: the object-like macros in effect, as the file parse passes them.
 *
 * coroc parses a coroutine from the user's tokens, macros unexpanded, so that
 * the output keeps them. A macro that stands for a type, though, must be
 * seen through: in `coroutine bool evens(void)` or `static INLINE u8 x;`,
 * bool, INLINE and u8 are macros (stdbool.h's bool is `_Bool`). The
 * preprocessor runs with -dD, so its output carries every #define and #undef
 * where it took effect; the file parse hands each one here as it passes it,
 * and the coroutine parse, which runs nested at the coroutine's place, asks
 * for the expansion of a name. The definitions of all macros are kept, so
 * that one naming a coroutine's locals can be redefined for its body (directives.c).
 */
#include "coroc.h"

#include <string.h>

/* A header of a large program defines thousands of macros (glibc's and
   the runtime's alone, for examples/echo.coc, about 2,700), and a language
   server passes them all at every change: a definition costs one arena
   record, its name and text pointing into the directive token's spelling,
   which lives as long as the run. Its tokens are made only when a parse
   asks for them (macro_body), which few do. Its name is interned: a
   coroutine's parse asks about every word it reads, with the word's
   interned spelling, so a question is a hash already made and a pointer
   compared (hashing and comparing the text was 3% of coroc's time on
   benchmark part 4's large.coc). */
#define NBUCKETS 4096

/* How deep a macro's expansion is followed through the macros it names. */
enum { MACRO_NESTING = 8 };

typedef struct Macro Macro;
struct Macro {
  const char *name;      /* the macro's name, interned */
  const char *body_text; /* what follows its name in `text` */
  const char *text;      /* its whole #define line */
  bool type_like;        /* its body is words and stars only: `body` holds its tokens */
  signed char loop;      /* LOOP_*: does it head a loop (0: not asked since `asked`) */
  unsigned asked;        /* the definitions' generation when loop and jumps were last asked */
  short jumps;           /* JUMPS_* its expansion makes out of itself (-1: not asked since) */
  TokenList body;        /* its replacement list, once asked for (v: NULL until then) */
  Macro *next;           /* the next in its hash chain */
};

static Macro *buckets[NBUCKETS];

/* Counts the #define and #undef lines met: what a macro's loop and jumps were found to be reads
   the other macros it names as they were then, and is asked again once one has changed. */
static unsigned generation;

static Macro **find(const char *interned) {
  Macro **m = &buckets[interned_hash(interned) % NBUCKETS];
  while (*m && (*m)->name != interned)
    m = &(*m)->next;
  return m;
}

static size_t ident_length(const char *p) {
  size_t n = 0;
  while (p[n] == '_' || p[n] == '$' || (p[n] >= 'a' && p[n] <= 'z') ||
         (p[n] >= 'A' && p[n] <= 'Z') || (n > 0 && p[n] >= '0' && p[n] <= '9'))
    n++;
  return n;
}

/* `#define NAME body`, `#define NAME(args) body`, `#undef NAME`; text is
   the directive token's spelling, which outlives every use here. */
void macro_directive(const char *text) {
  const char *p = strchr(text, '#') + 1;
  p += strspn(p, " \t");
  bool define = strncmp(p, "define", 6) == 0;
  if (!define && strncmp(p, "undef", 5) != 0)
    return;
  p += define ? 6 : 5;
  p += strspn(p, " \t");
  size_t n = ident_length(p);
  if (n == 0)
    return;
  const char *name = intern(p, n);
  Macro **slot = find(name);
  generation++;
  if (*slot) { /* redefined or undefined: forget the old body */
    xfree((*slot)->body.v);
    *slot = (*slot)->next;
  }
  if (!define)
    return;
  Macro *m = arena_alloc(&arena_perm, sizeof *m);
  m->name = name;
  m->body_text = p + n;
  m->text = text;
  m->jumps = -1;
  m->asked = generation;
  /* only words and stars can make a type (`unsigned long`, `struct node *`,
     nothing at all); a body like `'` would not even scan */
  m->type_like =
      p[n] != '(' && !m->body_text[strspn(m->body_text,
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_$ \t*")];
  m->next = *slot;
  *slot = m;
}

/* Each run starts with no macro defined, as a process would (the records
   themselves go with the arena). */
void macros_release(void) {
  for (int i = 0; i < NBUCKETS; i++)
    for (Macro *m = buckets[i]; m; m = m->next)
      xfree(m->body.v);
  memset(buckets, 0, sizeof buckets);
}

/* What follows a macro's name, as tokens (a function-like macro's begin
   with its parameters), made once. */
static const TokenList *tokens_of(Macro *m) {
  if (!m->body.v) { /* (a body scanned holds its TK_EOF at least) */
    tokenize("<macro>", m->body_text, strlen(m->body_text), false, NULL, &m->body);
    m->body.v = memory_keep(m->body.v); /* (the run's, not a region's) */
  }
  return &m->body;
}

const TokenList *macro_body(const char *name) {
  Macro *m = *find(name);
  return m && m->type_like ? tokens_of(m) : NULL;
}

bool string_macro(const char *name, int depth) {
  Macro *m = depth < MACRO_NESTING ? *find(name) : NULL;
  if (!m || m->type_like || m->body_text[0] == '(')
    return false;
  const TokenList *body = tokens_of(m);
  if (body->n == 0 || body->v[0].kind == TK_EOF)
    return false;
  for (int i = 0; i < body->n && body->v[i].kind != TK_EOF; i++)
    if (body->v[i].kind != TK_STRING &&
        !(body->v[i].kind == TK_IDENT && string_macro(tok_text(&body->v[i]), depth + 1)))
      return false;
  return true;
}

bool function_like_macro(const char *name) {
  Macro *m = *find(name);
  return m && m->body_text[0] == '(';
}

const char *macro_definition(const char *name) {
  Macro *m = *find(name);
  return m ? m->text : NULL;
}

/* {==================================================================
 * Macros that stand for attributes or pragmas
 *
 * `#define UNUSED __attribute__((unused))`, GLib's `g_autofree` and
 * systemd's `_cleanup_free_` (an object-like macro naming a function-like
 * one: `_cleanup_(freep)`, which is `__attribute__((cleanup(freep)))`):
 * the coroutine parse takes such a use for the attribute it is, and the
 * cleanup pass reads the function out of its expansion. GLib's
 * `G_GNUC_BEGIN_IGNORE_DEPRECATIONS`, two `_Pragma("...")` groups, stands
 * where a statement may, and is one pragma to the parse. Only macros made
 * of such groups (of one kind) and uses of such macros are expanded here,
 * with their arguments put in for their parameters: nothing else needs it.
 * =================================================================== */

enum { MACRO_PARAMS = 16 };

static bool is_punct(const Token *t, int c) {
  return t->kind == TK_PUNCT && tok_text(t)[0] == c && tok_text(t)[1] == '\0';
}

/* The kind of group that word t begins (GROUP_ATTRIBUTE or GROUP_PRAGMA), or 0. */
static int group_word(const Token *t) {
  if (t->kind != TK_IDENT)
    return 0;
  const char *s = tok_text(t);
  if (s == INTERN("__attribute__") || s == INTERN("__attribute"))
    return GROUP_ATTRIBUTE;
  return s == INTERN("_Pragma") ? GROUP_PRAGMA : 0;
}

/* The index of the ')' that closes the '(' at v[i], or -1. */
static int group_end(const Token *v, int n, int i) {
  int depth = 0;
  for (; i < n; i++)
    if (is_punct(&v[i], '('))
      depth++;
    else if (is_punct(&v[i], ')') && --depth == 0)
      return i;
  return -1;
}

static void push_token(TokenList *out, const Token *t) {
  if (out->n == out->cap)
    out->v = xrealloc(out->v, sizeof *out->v * (size_t)(out->cap = 2 * out->cap + 16));
  out->v[out->n++] = *t;
}

/* The parameters of a function-like macro, from its tokens; the index after
   their ')', or -1 (a variadic macro, say: not an attribute's). */
static int params_of(const TokenList *body, const char **params, int *nparams) {
  int b = 1; /* past the '(' */
  for (; b < body->n && !is_punct(&body->v[b], ')'); b++) {
    if (body->v[b].kind == TK_IDENT && *nparams < MACRO_PARAMS)
      params[(*nparams)++] = tok_text(&body->v[b]);
    else if (!is_punct(&body->v[b], ','))
      return -1;
  }
  return b < body->n ? b + 1 : -1;
}

/* The arguments of a use whose '(' is v[open]: each one's first and last
   index; the index of the closing ')', or -1. */
static int args_of(const Token *v, int n, int open, int *first, int *last, int *nargs) {
  int depth = 0;
  *nargs = 0;
  for (int i = open; i < n; i++) {
    if (is_punct(&v[i], '(') && depth++ == 0) {
      first[0] = i + 1;
    } else if (is_punct(&v[i], ')') && --depth == 0) {
      last[(*nargs)++] = i - 1;
      return i;
    } else if (depth == 1 && is_punct(&v[i], ',') && *nargs < MACRO_PARAMS - 1) {
      last[*nargs] = i - 1;
      first[++*nargs] = i + 1;
    }
  }
  return -1;
}

/* A use of a macro at v[at]: its replacement list (from b on), its parameters, where each
   argument stands, and the use's last token. */
typedef struct {
  const TokenList *body;
  const char *params[MACRO_PARAMS];
  int nparams, first[MACRO_PARAMS], last[MACRO_PARAMS], b, end;
} MacroUse;

/* The use of macro m at v[at] read into u; false if it is none (a function-like macro's name
   without its arguments, or with too many or too few). */
static bool read_use(Macro *m, const Token *v, int n, int at, MacroUse *u) {
  u->body = tokens_of(m);
  u->nparams = u->b = 0;
  u->end = at;
  if (m->body_text[0] != '(')
    return true;
  int nargs = 0;
  u->b = params_of(u->body, u->params, &u->nparams);
  u->end = u->b >= 0 && at + 1 < n && is_punct(&v[at + 1], '(')
               ? args_of(v, n, at + 1, u->first, u->last, &nargs)
               : -1;
  return u->end >= 0 && nargs == (u->nparams ? u->nparams : 1);
}

/* `##` at v[i] (the scanner makes two '#' tokens of it, the second right after the first). */
static bool is_pasting(const Token *v, int n, int i) {
  return i + 1 < n && is_punct(&v[i], '#') && is_punct(&v[i + 1], '#') && !v[i + 1].space;
}

/* A token of the expansion whose spelling is made by pasting a and b (two words, or a word and
   a number), kept for the run; false if they do not make one. */
static bool paste(Token *a, const Token *b) {
  if (a->kind != TK_IDENT || (b->kind != TK_IDENT && b->kind != TK_NUMBER))
    return false;
  char *text = format("%s%s", tok_text(a), tok_text(b));
  a->spelling = spelling_offset(intern(text, strlen(text)));
  xfree(text);
  return true;
}

/* The replacement list of the use u (arguments from v) into out, with the arguments put in for
   the parameters and `##` pasted; false where a paste makes no token, or a `#` makes a string of
   an argument and strings (hash) are not allowed. */
static bool substitute(const MacroUse *u, const Token *v, TokenList *out, bool hash) {
  const TokenList *body = u->body;
  bool ok = true;
  for (int i = u->b; ok && i < body->n && body->v[i].kind != TK_EOF; i++) {
    if (is_pasting(body->v, body->n, i)) { /* paste the last token so far with the next one's */
      i += 2;
      const Token *next = &body->v[i < body->n ? i : body->n - 1];
      int k = 0;
      while (k < u->nparams && u->params[k] != tok_text(next))
        k++;
      const Token *right =
          k < u->nparams ? (u->first[k] <= u->last[k] ? &v[u->first[k]] : NULL) : next;
      ok = out->n > 0 && right && next->kind != TK_EOF && paste(&out->v[out->n - 1], right);
      for (int j = k < u->nparams ? u->first[k] + 1 : 1; ok && k < u->nparams && j <= u->last[k];
           j++)
        push_token(out, &v[j]);
      continue;
    }
    const Token *t = &body->v[i];
    ok = hash || !is_punct(t, '#');
    int k = 0;
    while (k < u->nparams && u->params[k] != tok_text(t))
      k++;
    if (k < u->nparams)
      for (int j = u->first[k]; j <= u->last[k]; j++)
        push_token(out, &v[j]);
    else
      push_token(out, t);
  }
  return ok;
}

/* The use expanded: groups of the kinds *kinds allows copied, uses of such
   macros expanded in turn; false if anything else is in it. The first group
   met narrows *kinds to its own. */
static bool expand_groups(const TokenList *use, TokenList *out, int depth, int *kinds) {
  if (use->n == 0)
    return false;
  for (int i = 0; i < use->n;) {
    int kind = group_word(&use->v[i]) & *kinds;
    int end = kind && i + 1 < use->n && is_punct(&use->v[i + 1], '(')
                  ? group_end(use->v, use->n, i + 1)
                  : -1;
    if (end >= 0) {
      *kinds = kind;
      for (; i <= end; i++)
        push_token(out, &use->v[i]);
      continue;
    }
    end = group_macro(use, i, out, depth + 1, kinds);
    if (end < 0)
      return false;
    i = end + 1;
  }
  return true;
}

int group_macro(const TokenList *toks, int at, TokenList *out, int depth, int *kinds) {
  Macro *m =
      toks->v[at].kind == TK_IDENT && depth < MACRO_NESTING ? *find(tok_text(&toks->v[at])) : NULL;
  MacroUse u;
  if (!m || m->type_like || !read_use(m, toks->v, toks->n, at, &u))
    return -1;
  TokenList use = {0}; /* the replacement list, the arguments put in */
  int saved = out->n, saved_kinds = *kinds;
  bool ok = substitute(&u, toks->v, &use, true) && expand_groups(&use, out, depth, kinds);
  xfree(use.v);
  if (!ok)
    out->n = saved, *kinds = saved_kinds;
  return ok ? u.end : -1;
}

int attribute_macro(const TokenList *toks, int at, TokenList *out, int depth) {
  int kinds = GROUP_ATTRIBUTE;
  return group_macro(toks, at, out, depth, &kinds);
}

/* GLib's `g_autoptr(GString)`: a cleanup attribute and a type name that pasting makes
 * (`__attribute__((cleanup(glib_autoptr_cleanup_GString))) GString_autoptr`). Such a use is
 * expanded here as the preprocessor would, arguments put in, `##` pasted and the result read
 * again for macros; only the words and punctuators such macros are made of are taken. */

static bool expand_into(const Token *v, int n, TokenList *out, int depth);

/* The use of a macro at v[at] expanded into out; the index of its last token, or -1. */
static int expand_use(const Token *v, int n, int at, TokenList *out, int depth) {
  Macro *m = depth < MACRO_NESTING ? *find(tok_text(&v[at])) : NULL;
  MacroUse u;
  if (!m || !read_use(m, v, n, at, &u))
    return -1;
  TokenList use = {0};
  bool ok = substitute(&u, v, &use, false) && expand_into(use.v, use.n, out, depth + 1);
  xfree(use.v);
  return ok ? u.end : -1;
}

/* Tokens v[0..n) into out, each macro's use among them expanded. */
static bool expand_into(const Token *v, int n, TokenList *out, int depth) {
  for (int i = 0; i < n; i++) {
    int end = v[i].kind == TK_IDENT ? expand_use(v, n, i, out, depth) : -1;
    if (end >= 0) {
      i = end;
      continue;
    }
    if (v[i].kind == TK_IDENT && depth >= MACRO_NESTING)
      return false;
    push_token(out, &v[i]);
  }
  return true;
}

int typed_attribute_macro(const TokenList *toks, int at, TokenList *groups, TokenList *type) {
  Macro *m = toks->v[at].kind == TK_IDENT ? *find(tok_text(&toks->v[at])) : NULL;
  if (!m || m->type_like)
    return -1;
  const TokenList *body = tokens_of(m); /* (it begins with __attribute__ or a macro's name) */
  int b = m->body_text[0] == '(' ? group_end(body->v, body->n, 0) + 1 : 0;
  const Token *w = b > 0 || m->body_text[0] != '(' ? &body->v[b] : NULL;
  if (!w || w->kind != TK_IDENT || (group_word(w) != GROUP_ATTRIBUTE && !*find(tok_text(w))))
    return -1;
  TokenList all = {0};
  int end = expand_use(toks->v, toks->n, at, &all, 0), i = 0;
  while (end >= 0 && i + 1 < all.n && group_word(&all.v[i]) == GROUP_ATTRIBUTE &&
         is_punct(&all.v[i + 1], '(')) {
    int close = group_end(all.v, all.n, i + 1);
    for (; close >= 0 && i <= close; i++)
      push_token(groups, &all.v[i]);
    if (close < 0)
      end = -1;
  }
  for (; end >= 0 && i < all.n; i++) /* what the parse will check is a type */
    if (all.v[i].kind == TK_IDENT || is_punct(&all.v[i], '*'))
      push_token(type, &all.v[i]);
    else
      end = -1;
  if (groups->n == 0 || type->n == 0)
    end = -1;
  xfree(all.v);
  return end;
}

/* }================================================================== */

/* {==================================================================
 * Macro parameters that take names, not values
 *
 * A macro's arguments are rewritten like the rest of a body (a local
 * named there becomes its field), because the coroutine parse reads them
 * unexpanded. A parameter that its replacement list uses only as a name,
 * not a value (`offsetof(T, member)`, `container_of(p, T, member)`, a
 * `.field`, a `#x` or an `a##b`), takes a member name or a word, which is
 * never a local: the argument is printed as written.
 * =================================================================== */

/* Is token i of v (n tokens) an argument of its own: '(' or ',' before
   it, ',' or ')' after it? */
static bool alone_in_argument(const Token *v, int n, int i) {
  return i > 0 && i + 1 < n && (is_punct(&v[i - 1], '(') || is_punct(&v[i - 1], ',')) &&
         (is_punct(&v[i + 1], ',') || is_punct(&v[i + 1], ')'));
}

/* Does a token end an operand, so that a '&' after it is the binary operator? */
static bool ends_operand(const Token *t) {
  if (t->kind == TK_IDENT)
    return !name_keyword(tok_text(t)); /* (`return &x`, `sizeof &x`: unary) */
  return t->kind == TK_NUMBER || t->kind == TK_CHAR || t->kind == TK_STRING || is_punct(t, ')') ||
         is_punct(t, ']') || tok_text(t) == INTERN("++") || tok_text(t) == INTERN("--");
}

/* What a use of a parameter says, for the walk below: go on, or stop with yes or no. */
enum { PARAM_ON, PARAM_YES, PARAM_NO };

/* A use, at v[i], of the parameter asked about; b: where the replacement list begins; callee: the
   token of the macro or function whose argument it stands in (-1: none), arg: which one. */
typedef int ParamUse(const Token *v, int n, int b, int i, int callee, int arg, int depth);

/* Each use of parameter `index` of function-like macro `name` in its replacement list, in turn,
   to `each` until it stops the walk: its answer; PARAM_ON once the list is read (*uses counts
   the uses), PARAM_NO for no such macro or parameter, `deep` for calls nested too deep to follow.
 */
static int param_uses(const char *name, int index, int depth, int deep, ParamUse *each, int *uses) {
  Macro *m = depth < MACRO_NESTING ? *find(name) : NULL;
  if (!m || m->body_text[0] != '(')
    return PARAM_NO;
  const TokenList *body = tokens_of(m);
  const char *params[MACRO_PARAMS];
  int nparams = 0, b = params_of(body, params, &nparams);
  if (b < 0 || index >= nparams)
    return PARAM_NO;
  const Token *v = body->v;
  int n = body->n, callee[MACRO_PARAMS], argno[MACRO_PARAMS], depth_now = 0;
  for (int i = b; i < n && v[i].kind != TK_EOF; i++) {
    if (is_punct(&v[i], '(')) { /* the word before it calls, if it is one */
      if (depth_now == MACRO_PARAMS)
        return deep;
      callee[depth_now] = i > b && v[i - 1].kind == TK_IDENT ? i - 1 : -1;
      argno[depth_now++] = 0;
    } else if (is_punct(&v[i], ')') && depth_now > 0) {
      depth_now--;
    } else if (is_punct(&v[i], ',') && depth_now > 0) {
      argno[depth_now - 1]++;
    }
    if (v[i].kind != TK_IDENT || tok_text(&v[i]) != params[index])
      continue;
    ++*uses;
    int answer = each(v, n, b, i, depth_now > 0 ? callee[depth_now - 1] : -1,
                      depth_now > 0 ? argno[depth_now - 1] : 0, depth);
    if (answer != PARAM_ON)
      return answer;
  }
  return PARAM_ON;
}

/* `&(a)`, `&a`, or handed alone to a macro that takes its address. */
static int address_use(const Token *v, int n, int b, int i, int callee, int arg, int depth) {
  int j = i - 1;
  while (j >= b && is_punct(&v[j], '('))
    j--;
  if (j >= b && is_punct(&v[j], '&') && (j == b || !ends_operand(&v[j - 1])))
    return PARAM_YES;
  return callee >= 0 && alone_in_argument(v, n, i) &&
                 macro_param_address(tok_text(&v[callee]), arg, depth + 1)
             ? PARAM_YES
             : PARAM_ON;
}

bool macro_param_address(const char *name, int index, int depth) {
  int uses = 0; /* (too deep to follow: say it may) */
  return param_uses(name, index, depth, PARAM_YES, address_use, &uses) == PARAM_YES;
}

/* After `.` or `->`, beside `#` (`##` is two `#` tokens), or alone as offsetof's member or as
   a parameter of a macro that takes it as a name: a name; anything else is a value. */
static int name_use(const Token *v, int n, int b, int i, int callee, int arg, int depth) {
  const char *before = i > b ? tok_text(&v[i - 1]) : "",
             *after = i + 1 < n ? tok_text(&v[i + 1]) : "";
  if (!strcmp(before, ".") || !strcmp(before, "->") || !strcmp(before, "#") || !strcmp(after, "#"))
    return PARAM_ON;
  if (callee >= 0 && alone_in_argument(v, n, i) &&
      ((tok_text(&v[callee]) == INTERN("__builtin_offsetof") && arg == 1) ||
       macro_param_is_name(tok_text(&v[callee]), arg, depth + 1)))
    return PARAM_ON;
  return PARAM_NO;
}

bool macro_param_is_name(const char *name, int index, int depth) {
  int uses = 0;
  return param_uses(name, index, depth, PARAM_NO, name_use, &uses) == PARAM_ON && uses > 0;
}

/* }================================================================== */

/* {==================================================================
 * Macros that head a loop
 *
 * sys/queue.h's `TAILQ_FOREACH(var, head, field) { ... }`, the Linux
 * kernel's list_for_each_entry, uthash's HASH_ITER, a `forever`: a use
 * followed by the statement that the macro's `for (...)` or `while (...)`
 * heads. The coroutine parse takes such a use for a loop's head (its
 * arguments are expressions still, rewritten like the rest), so that a
 * yield in the body is a resume point inside the loop, as in a `for`
 * written out. A macro whose replacement begins with another such macro's
 * use is one too.
 * =================================================================== */

enum { LOOP_UNASKED, LOOP_NOT, LOOP_PLAIN, LOOP_DECLARING };

/* `for (int i = 0; ...`, `for (struct node *n = ...`, `for (__typeof__(x) p = ...`: the words
   after `for (` declare (a type, then a name or a '*'), where an expression would not put them. */
static bool declares_in_for(const Token *v, int n) {
  if (n < 4 || v[2].kind != TK_IDENT)
    return false;
  const char *first = tok_text(&v[2]);
  return v[3].kind == TK_IDENT || is_punct(&v[3], '*') || first == INTERN("__typeof__") ||
         first == INTERN("typeof") || first == INTERN("__auto_type");
}

/* Forget what was found of m under older definitions of the macros it names. */
static void ask_again(Macro *m) {
  if (m->asked != generation)
    m->asked = generation, m->loop = LOOP_UNASKED, m->jumps = -1;
}

static int loop_kind(Macro *m, int depth) {
  ask_again(m);
  if (m->loop != LOOP_UNASKED)
    return m->loop;
  const TokenList *body = tokens_of(m);
  int b = m->body_text[0] == '(' ? group_end(body->v, body->n, 0) + 1 : 0;
  const Token *v = body->v + b;
  int n = body->n - b, kind = LOOP_NOT;
  const char *word = n >= 2 && v[0].kind == TK_IDENT ? tok_text(&v[0]) : NULL;
  if (word && (word == INTERN("for") || word == INTERN("while")) && is_punct(&v[1], '(')) {
    kind = word == INTERN("for") && declares_in_for(v, n) ? LOOP_DECLARING : LOOP_PLAIN;
  } else if (word && depth < MACRO_NESTING) { /* another macro's use */
    Macro *inner = *find(word);
    if (inner && inner != m)
      kind = loop_kind(inner, depth + 1);
  }
  m->loop = (signed char)kind;
  return kind;
}

/* {==================================================================
 * Macros that jump
 *
 * `#define TRY(x) do { if ((x) < 0) goto fail; } while (0)`, a `break`
 * or `continue` for the loop around the use, a `return`: the coroutine's
 * passes do not see such a jump, which the compiler makes all the same.
 * What a replacement list says is read as tokens: a `break` or `continue`
 * inside a loop (or a switch, for break) of the macro's own braces is
 * its own; any other, and every goto and return, jumps out of the use. A
 * macro named in the replacement adds its own jumps.
 * =================================================================== */

/* Which braces the words before them open: a loop's body, a switch's, or another block. */
enum { BRACE_BLOCK, BRACE_LOOP, BRACE_SWITCH };

static int brace_kind(const Token *v, int b, int i) {
  int j = i - 1;
  if (j >= b && v[j].kind == TK_IDENT && tok_text(&v[j]) == INTERN("do"))
    return BRACE_LOOP;
  if (j < b || !is_punct(&v[j], ')'))
    return BRACE_BLOCK;
  for (int depth = 0; j >= b; j--) /* back to the '(' of `for (...)`, `switch (...)` */
    if (is_punct(&v[j], ')'))
      depth++;
    else if (is_punct(&v[j], '(') && --depth == 0)
      break;
  const char *word = j > b && v[j - 1].kind == TK_IDENT ? tok_text(&v[j - 1]) : "";
  return word == INTERN("for") || word == INTERN("while") ? BRACE_LOOP
         : word == INTERN("switch")                       ? BRACE_SWITCH
                                                          : BRACE_BLOCK;
}

bool is_alloca(const char *interned) {
  return interned == INTERN("alloca") || interned == INTERN("__builtin_alloca") ||
         interned == INTERN("__builtin_alloca_with_align") ||
         interned == INTERN("__builtin_alloca_with_align_and_max");
}

static int jumps_of(Macro *m, int depth) {
  ask_again(m);
  if (m->jumps >= 0)
    return m->jumps;
  m->jumps = 0; /* (a macro that names itself adds nothing) */
  const TokenList *body = tokens_of(m);
  int b = m->body_text[0] == '(' ? group_end(body->v, body->n, 0) + 1 : 0, jumps = 0;
  int braces[MACRO_PARAMS], nbraces = 0, deeper = 0; /* the kinds of the braces open */
  for (int i = b; i < body->n && body->v[i].kind != TK_EOF; i++) {
    const Token *t = &body->v[i];
    if (is_punct(t, '{') && nbraces < MACRO_PARAMS)
      braces[nbraces++] = brace_kind(body->v, b, i);
    else if (is_punct(t, '{'))
      deeper++;
    else if (is_punct(t, '}') && deeper > 0)
      deeper--;
    else if (is_punct(t, '}') && nbraces > 0)
      nbraces--;
    else if (is_punct(t, '}'))
      jumps |= CLOSES_BLOCK;
    if (t->kind != TK_IDENT)
      continue;
    const char *w = tok_text(t);
    bool in_loop = false, in_switch = false;
    for (int k = 0; k < nbraces; k++)
      in_loop |= braces[k] == BRACE_LOOP, in_switch |= braces[k] == BRACE_SWITCH;
    if (w == INTERN("goto"))
      jumps |= JUMPS_GOTO;
    else if (w == INTERN("return"))
      jumps |= JUMPS_RETURN;
    else if (w == INTERN("break") && !in_loop && !in_switch)
      jumps |= JUMPS_BREAK;
    else if (w == INTERN("continue") && !in_loop)
      jumps |= JUMPS_CONTINUE;
    else if (is_alloca(w))
      jumps |= USES_ALLOCA;
    else if (is_setjmp(w))
      jumps |= USES_SETJMP;
    else if (depth < MACRO_NESTING) {
      Macro *inner = *find(w);
      if (inner && inner != m)
        jumps |= jumps_of(inner, depth + 1);
    }
  }
  if (nbraces + deeper > 0)
    jumps |= OPENS_BLOCK;
  m->jumps = (short)jumps;
  return jumps;
}

bool is_setjmp(const char *interned) {
  return interned == INTERN("setjmp") || interned == INTERN("_setjmp") ||
         interned == INTERN("sigsetjmp") || interned == INTERN("__sigsetjmp") ||
         interned == INTERN("__builtin_setjmp");
}

const Token *macro_first_word(const char *name) {
  Macro *m = *find(name);
  if (!m)
    return NULL;
  const TokenList *body = tokens_of(m);
  int b = m->body_text[0] == '(' ? group_end(body->v, body->n, 0) + 1 : 0;
  return b > 0 || m->body_text[0] != '(' ? &body->v[b] : NULL; /* (its TK_EOF if empty) */
}

int macro_jumps(const char *name) {
  Macro *m = *find(name);
  return m ? jumps_of(m, 0) : 0; /* (`#define BAIL goto out` is words alone: type_like) */
}

/* }================================================================== */

const char *macro_declared_name(const TokenList *toks, int at) {
  Macro *m = toks->v[at].kind == TK_IDENT ? *find(tok_text(&toks->v[at])) : NULL;
  MacroUse u;
  TokenList out = {0};
  const char *name = NULL;
  if (m && read_use(m, toks->v, toks->n, at, &u) && substitute(&u, toks->v, &out, true)) {
    int depth = 0;
    for (int i = 1; i < out.n && !name; i++) {
      const Token *t = &out.v[i], *next = i + 1 < out.n ? &out.v[i + 1] : NULL;
      depth += (is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{')) -
               (is_punct(t, ')') || is_punct(t, ']') || is_punct(t, '}'));
      bool after_type = out.v[i - 1].kind == TK_IDENT || is_punct(&out.v[i - 1], '*');
      if (depth == 0 && t->kind == TK_IDENT && !name_keyword(tok_text(t)) && after_type &&
          (!next || is_punct(next, '=') || is_punct(next, '[') || is_punct(next, ';') ||
           is_punct(next, ',')))
        name = tok_text(t);
    }
  }
  xfree(out.v);
  return name;
}

int statement_macro(const TokenList *toks, int at, bool *declares, int *jumps) {
  const Token *v = toks->v;
  Macro *m = v[at].kind == TK_IDENT ? *find(tok_text(&v[at])) : NULL;
  if (!m)
    return 0;
  bool function_like = m->body_text[0] == '(';
  if (function_like && (at + 1 >= toks->n || !is_punct(&v[at + 1], '(')))
    return 0; /* the name alone, not a use */
  if (jumps)
    *jumps = jumps_of(m, 0);
  int kind = loop_kind(m, 0);
  if (kind != LOOP_PLAIN && kind != LOOP_DECLARING)
    return 0;
  if (declares)
    *declares = kind == LOOP_DECLARING;
  return function_like ? 2 : 1;
}

/* }================================================================== */
