/* render.c: the editor rendering of a .coc, the C that clangd reads for it
 * (docs/editors.md, "Inside").
 *
 * clangd ignores #line, so coroc's own output (whose bodies are rewritten,
 * and whose lines are not the .coc's) cannot give an exact map of
 * positions. The rendering is the user's own text with a few edits, each
 * a replacement of a byte range of the .coc by generated text, and the map
 * of positions is exact by construction: an offset outside every edit
 * moves by the sum of the length changes before it; one inside an edit is
 * generated text, never shown as the user's.
 *
 * The edits make the .coc's three words plain C with the types coroc
 * gives them. `T NAME(params) { body }` is the body's view of a coroutine
 * (what `return` checks against, what `await NAME(...)` gives):
 *   coroutine              blanks (a generator's: a pragma that quiets
 *                          -Wreturn-type, popped after its body: it ends
 *                          with `return;` or by falling off its end)
 *   yield E;  (generator)  return E;     (E converted to T, as coroc does)
 *   L = yield E;           {coro_lsp_recv_(&(L)); return E;}
 *   yield;    (task)       blanks
 *   await NAME(args)       NAME(args)    (a coroutine: the value is a T)
 *   await f(args)          f(args).result   (an awaitable's value)
 *   NAME(args) elsewhere   coro_lsp_new_(NAME(args))   (a coro_t *)
 * and before the first coroutine, a line with `#include <coro.h>` and the
 * two helpers (coroc puts the include there too). The words are found by
 * a small lexer of its own, so that any text renders, an unfinished one
 * included: the rendering never waits for coroc to accept the text.
 * Separate from the proxy (clangd.c), which only maps through it.
 */
#define _GNU_SOURCE
#include "lsp.h"

#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Tokens
 * =================================================================== */

typedef enum { T_IDENT, T_PUNCT, T_OTHER } TokKind;

typedef struct {
  TokKind kind;
  size_t from, to;
} Tok;

typedef struct {
  const char *s;
  size_t len;
  Tok *v;
  int n, cap;
} Lexed;

static void push_tok(Lexed *lx, TokKind kind, size_t from, size_t to) {
  if (lx->n == lx->cap) {
    lx->cap = lx->cap ? 2 * lx->cap : 256;
    lx->v = realloc(lx->v, lx->cap * sizeof *lx->v);
    if (!lx->v)
      abort();
  }
  lx->v[lx->n++] = (Tok){kind, from, to};
}

static bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c & 0x80);
}

static bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

/* The end of a directive that starts at i (backslash-newlines continue it). */
static size_t directive_end(const char *s, size_t len, size_t i) {
  for (; i < len && s[i] != '\n'; i++)
    if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n')
      i++;
    else if (s[i] == '\\' && i + 2 < len && s[i + 1] == '\r' && s[i + 2] == '\n')
      i += 2;
  return i;
}

/* The end of a literal quoted by q that starts at i (its quote). */
static size_t quoted_end(const char *s, size_t len, size_t i, char q) {
  for (i++; i < len && s[i] != q && s[i] != '\n'; i++)
    if (s[i] == '\\' && i + 1 < len)
      i++;
  return i < len && s[i] == q ? i + 1 : i;
}

/* Tokens of the text; comments, literals' insides and directives are skipped. */
static void lex(Lexed *lx) {
  const char *s = lx->s;
  size_t len = lx->len;
  bool line_start = true;
  for (size_t i = 0; i < len;) {
    char c = s[i];
    if (c == '\n') {
      line_start = true;
      i++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      i++;
    } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
      i = directive_end(s, len, i); /* (a // comment continues at a backslash too) */
    } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
      char *end = memmem(s + i + 2, len - i - 2, "*/", 2);
      i = end ? (size_t)(end - s) + 2 : len;
    } else if (c == '#' && line_start) {
      i = directive_end(s, len, i);
    } else {
      line_start = false;
      size_t from = i;
      if (ident_start(c)) {
        while (i < len && ident_char(s[i]))
          i++;
        push_tok(lx, T_IDENT, from, i);
      } else if ((c >= '0' && c <= '9') ||
                 (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
        while (i < len && (ident_char(s[i]) || s[i] == '.' ||
                           ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
          i++;
        push_tok(lx, T_OTHER, from, i);
      } else if (c == '"' || c == '\'') {
        i = quoted_end(s, len, i, c);
        push_tok(lx, T_OTHER, from, i);
      } else {
        static const char *const two[] = {
            "->", "++", "--", "==", "!=", "<=", ">=", "&&", "||", "<<",
            ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##"};
        i++;
        for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
          if (i < len && c == two[k][0] && s[i] == two[k][1]) {
            i++;
            if (i < len && s[i] == '=' && (c == '<' || c == '>') && s[i - 1] == c)
              i++; /* <<= >>= */
            break;
          }
        push_tok(lx, T_PUNCT, from, i);
      }
    }
  }
}

static bool is(const Lexed *lx, int k, const char *word) {
  if (k < 0 || k >= lx->n)
    return false;
  size_t n = lx->v[k].to - lx->v[k].from;
  return strlen(word) == n && memcmp(lx->s + lx->v[k].from, word, n) == 0;
}

/* The token that closes the bracket opened at k, or -1 (an unfinished text). */
static int matching(const Lexed *lx, int k) {
  char open = lx->s[lx->v[k].from], close = open == '(' ? ')' : open == '{' ? '}' : ']';
  int depth = 0;
  for (int i = k; i < lx->n; i++) {
    if (lx->v[i].kind != T_PUNCT || lx->v[i].to - lx->v[i].from != 1)
      continue;
    char c = lx->s[lx->v[i].from];
    if (c == open)
      depth++;
    else if (c == close && --depth == 0)
      return i;
  }
  return -1;
}

/* }================================================================== */

/* {==================================================================
 * The coroutines of the text
 * =================================================================== */

typedef struct {
  int word;       /* the token `coroutine` */
  int name;       /* its declarator's name */
  int body, end;  /* the body's braces, or -1 (a prototype) */
  bool generator; /* a `yield E` in its body */
  bool awaits;
} Found;

/* The coroutine declared from the word `coroutine` at k: its name (the
   first identifier followed by a parenthesis, past attributes) and its body. */
static bool find_coroutine(const Lexed *lx, int k, Found *f) {
  *f = (Found){k, -1, -1, -1, false, false};
  int i = k + 1;
  for (; i + 1 < lx->n; i++) {
    if (is(lx, i, "__attribute__") || is(lx, i, "__attribute")) {
      if (!is(lx, i + 1, "(") || (i = matching(lx, i + 1)) < 0)
        return false;
      continue;
    }
    if (is(lx, i, ";") || is(lx, i, "{") || is(lx, i, "="))
      return false;
    if (lx->v[i].kind == T_IDENT && is(lx, i + 1, "(") && !is(lx, i + 2, "*"))
      break; /* (not `int (*NAME(params))(int)`'s `int (`) */
  }
  if (i + 1 >= lx->n)
    return false;
  f->name = i;
  int close = matching(lx, i + 1);
  for (i = close; i >= 0 && i < lx->n; i++) {
    if (is(lx, i, ";"))
      return true;
    if (is(lx, i, "{")) {
      f->body = i;
      f->end = matching(lx, i);
      return true;
    }
  }
  return true;
}

static void classify(const Lexed *lx, Found *f) {
  int end = f->end >= 0 ? f->end : lx->n;
  for (int i = f->body + 1; f->body >= 0 && i < end; i++) {
    if (is(lx, i, "yield") && !is(lx, i + 1, ";"))
      f->generator = true;
    if (is(lx, i, "await"))
      f->awaits = true;
  }
}

/* The declared type's words, as written (without static, inline, extern). */
static char *type_text(const Lexed *lx, const Found *f) {
  size_t cap = 1;
  for (int i = f->word + 1; i < f->name; i++)
    cap += lx->v[i].to - lx->v[i].from + 1;
  char *out = malloc(cap), *o = out;
  if (!out)
    abort();
  for (int i = f->word + 1; i < f->name; i++) {
    if (is(lx, i, "static") || is(lx, i, "inline") || is(lx, i, "extern"))
      continue;
    if (o > out && lx->v[i].kind == T_IDENT && o[-1] != '*')
      *o++ = ' ';
    else if (o > out && is(lx, i, "*") && o[-1] != '*')
      *o++ = ' ';
    memcpy(o, lx->s + lx->v[i].from, lx->v[i].to - lx->v[i].from);
    o += lx->v[i].to - lx->v[i].from;
  }
  *o = '\0';
  return out;
}

/* }================================================================== */

/* {==================================================================
 * Edits
 * =================================================================== */

typedef struct {
  Edit *v;
  int n, cap;
  int seq;
} Edits;

static void edit(Edits *e, size_t from, size_t to, const char *text) {
  if (e->n == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 64;
    e->v = realloc(e->v, e->cap * sizeof *e->v);
    if (!e->v)
      abort();
  }
  char *t = strdup(text);
  if (!t)
    abort();
  e->v[e->n++] = (Edit){.coc_from = from, .coc_to = to, .text = t, .seq = e->seq++};
}

static int by_place(const void *a, const void *b) {
  const Edit *x = a, *y = b;
  if (x->coc_from != y->coc_from)
    return x->coc_from < y->coc_from ? -1 : 1;
  bool xw = x->coc_to > x->coc_from, yw = y->coc_to > y->coc_from;
  if (xw != yw) /* an insertion before a replacement at the same place */
    return xw ? 1 : -1;
  return x->seq - y->seq;
}

static void blank(Edits *e, const Tok *t) {
  char spaces[16];
  size_t n = t->to - t->from < sizeof spaces ? t->to - t->from : sizeof spaces - 1;
  memset(spaces, ' ', n);
  spaces[n] = '\0';
  edit(e, t->from, t->to, spaces);
}

/* What comes before the first coroutine: the runtime, and the helpers the
   other edits call (their names are coro_'s, which a user may not take). */
static const char PRELUDE[] =
    "#include <coro.h> /* coroc-lsp: as coroc's output has it */ "
    "/* a call of a coroutine makes an instance */ "
    "\n#define coro_lsp_new_(call) ((void)(call), (coro_t *)0)"
    "\n#define coro_lsp_recv_(p) ((void)(p)) /* L = yield E: L receives */\n";

static const char PUSH[] =
    "_Pragma(\"clang diagnostic push\") "
    "_Pragma(\"clang diagnostic ignored \\\"-Wreturn-type\\\"\")";
static const char POP[] = " _Pragma(\"clang diagnostic pop\")";

/* A yielded value initializes a T (coro_lsp_value_: the body's first
   line), as coroc converts it; not a return, which C would check for
   more (the address of a local, which a generator may well yield). */
#define YIELDED "coro_lsp_value_ coro_lsp_v_ ="
#define YIELDED_END " (void)coro_lsp_v_;}"

/* The start of the line the token is on. */
static size_t line_start(const char *s, size_t at) {
  while (at > 0 && s[at - 1] != '\n' && s[at - 1] != '\r')
    at--;
  return at;
}

/* The first token of the statement `L = yield E;` whose `=` is at k. */
static int statement_start(const Lexed *lx, int k) {
  int i = k - 1, depth = 0;
  for (; i >= 0; i--) {
    if (depth == 0 && is(lx, i, ")")) {
      /* the condition of an if, while, for or switch ends the statement's head */
      int d = 0, j = i;
      for (; j >= 0; j--) {
        if (is(lx, j, ")"))
          d++;
        else if (is(lx, j, "(") && --d == 0)
          break;
      }
      if (j > 0 && (is(lx, j - 1, "if") || is(lx, j - 1, "while") || is(lx, j - 1, "for") ||
                    is(lx, j - 1, "switch")))
        break;
    }
    if (is(lx, i, ")") || is(lx, i, "]")) {
      depth++;
    } else if (is(lx, i, "(") || is(lx, i, "[")) {
      if (--depth < 0)
        break;
    } else if (depth == 0 && (is(lx, i, ";") || is(lx, i, "{") || is(lx, i, "}") ||
                              is(lx, i, ":") || is(lx, i, "else") || is(lx, i, "do"))) {
      break;
    }
  }
  return i + 1;
}

/* The `;` that ends the statement going on at k, or -1. */
static int statement_end(const Lexed *lx, int k) {
  int depth = 0;
  for (int i = k; i < lx->n; i++) {
    if (is(lx, i, "(") || is(lx, i, "[") || is(lx, i, "{"))
      depth++;
    else if (is(lx, i, ")") || is(lx, i, "]") || is(lx, i, "}"))
      depth--;
    else if (depth == 0 && is(lx, i, ";"))
      return i;
    if (depth < 0)
      return -1;
  }
  return -1;
}

static bool is_coroutine_name(const Lexed *lx, const Found *fs, int nf, int k) {
  if (k < 0 || k >= lx->n || lx->v[k].kind != T_IDENT)
    return false;
  size_t n = lx->v[k].to - lx->v[k].from;
  for (int i = 0; i < nf; i++) {
    const Tok *t = &lx->v[fs[i].name];
    if (t->to - t->from == n && memcmp(lx->s + t->from, lx->s + lx->v[k].from, n) == 0)
      return true;
  }
  return false;
}

/* The coroutine whose body holds token k, or NULL. */
static const Found *inside(const Found *fs, int nf, int k) {
  for (int i = 0; i < nf; i++)
    if (fs[i].body >= 0 && k > fs[i].body && (fs[i].end < 0 || k < fs[i].end))
      return &fs[i];
  return NULL;
}

static void yield_edits(const Lexed *lx, Edits *e, const Found *in, int k) {
  const Tok *t = &lx->v[k];
  if (!in || is(lx, k + 1, ";")) {
    blank(e, t); /* a task's turn (or a misplaced yield, which coroc reports) */
    return;
  }
  int end = statement_end(lx, k);
  if (end < 0) { /* (an unfinished statement: the check that return makes) */
    edit(e, t->from, t->to, "return");
    return;
  }
  if (is(lx, k - 1, "=")) { /* L = yield E; */
    int start = statement_start(lx, k - 1);
    if (start < k - 1) {
      edit(e, lx->v[start].from, lx->v[start].from, "{coro_lsp_recv_(&(");
      edit(e, lx->v[k - 1].from, t->to, ")); " YIELDED);
      edit(e, lx->v[end].to, lx->v[end].to, YIELDED_END);
      return;
    }
  }
  edit(e, t->from, t->to, "{" YIELDED);
  edit(e, lx->v[end].to, lx->v[end].to, YIELDED_END);
}

/* The parameters' names, as a call of the coroutine passes them. */
static void param_names(const Lexed *lx, const Found *f, char *out, size_t size) {
  int open = f->name + 1, close = matching(lx, open);
  size_t o = 0;
  out[0] = '\0';
  int last = -1, depth = 0, inner = -1;
  for (int i = open + 1; close > open && i <= close; i++) {
    if (depth == 0 && (is(lx, i, ",") || i == close)) {
      int name = last >= 0 ? last : inner;
      if (name >= 0 && !is(lx, name, "void")) {
        size_t n = lx->v[name].to - lx->v[name].from;
        if (o + n + 3 < size) {
          o += snprintf(out + o, size - o, "%s%.*s", o ? ", " : "", (int)n,
                        lx->s + lx->v[name].from);
        }
      }
      last = inner = -1;
      continue;
    }
    if (is(lx, i, "(") || is(lx, i, "["))
      depth++;
    else if (is(lx, i, ")") || is(lx, i, "]"))
      depth--;
    else if (lx->v[i].kind == T_IDENT && depth == 0)
      last = i;
    else if (lx->v[i].kind == T_IDENT && depth == 1 && inner < 0 && is(lx, i - 1, "*"))
      inner = i; /* int (*fn)(int) */
  }
}

/* The type of a generator's values, where its body starts: the type of a
   call of itself with its own parameters (unevaluated). */
static char *value_typedef(const Lexed *lx, const Found *f) {
  char args[512], *out;
  param_names(lx, f, args, sizeof args);
  const Tok *name = &lx->v[f->name];
  if (asprintf(&out, " typedef __typeof__(%.*s(%s)) coro_lsp_value_;", (int)(name->to - name->from),
               lx->s + name->from, args) < 0)
    abort();
  return out;
}

/* What coroc writes beside a coroutine for storage given by the caller:
   CORO_FRAME(NAME) and coro_in_NAME (its size is not the rendering's to
   know, nor needed to check a use). */
static char *frame_declarations(const Lexed *lx, const Found *f) {
  const Tok *name = &lx->v[f->name];
  int n = (int)(name->to - name->from);
  char *out;
  if (asprintf(&out,
               " struct coro_frame_%.*s { char coro_lsp_unknown_; };"
               " coro_t *coro_in_%.*s();",
               n, lx->s + name->from, n, lx->s + name->from) < 0)
    abort();
  return out;
}

/* Is the name at k a value: `= NAME;`, `return NAME;`, `{..., NAME}`?
   (Only there: the same name may be a local's or a member's elsewhere.) */
static bool as_value(const Lexed *lx, int k) {
  int before = is(lx, k - 1, "&") ? k - 2 : k - 1;
  return (is(lx, before, "=") || is(lx, before, ",") || is(lx, before, "return") ||
          is(lx, before, "{")) &&
         (is(lx, k + 1, ";") || is(lx, k + 1, ",") || is(lx, k + 1, "}"));
}

/* Is the identifier at k declared in the function it is in, before it (a
   parameter, or a local: then it hides the coroutine of that name)? The
   function's head is what stands before its outermost brace. */
static bool declared_in_function(const Lexed *lx, int k) {
  int depth = 0, body = -1;
  for (int i = k - 1; i >= 0; i--) {
    if (is(lx, i, "}")) {
      depth++;
    } else if (is(lx, i, "{") && depth-- == 0) {
      body = i;
      depth = 0;
    }
  }
  if (body < 0)
    return false;
  int head = body;
  while (head > 0 && !is(lx, head - 1, ";") && !is(lx, head - 1, "}"))
    head--;
  size_t n = lx->v[k].to - lx->v[k].from;
  for (int i = head; i < k; i++)
    if (lx->v[i].kind == T_IDENT && lx->v[i].to - lx->v[i].from == n &&
        memcmp(lx->s + lx->v[i].from, lx->s + lx->v[k].from, n) == 0 && i > 0 &&
        (lx->v[i - 1].kind == T_IDENT || is(lx, i - 1, "*")) &&
        (is(lx, i + 1, ",") || is(lx, i + 1, ")") || is(lx, i + 1, "=") || is(lx, i + 1, ";") ||
         is(lx, i + 1, "[")))
      return true;
  return false;
}

/* Is the token at k inside parentheses (a for's clauses, a call's
   arguments) of the statement it is in? */
static bool inside_parens(const Lexed *lx, int k) {
  int depth = 0;
  for (int i = k - 1; i >= 0; i--) {
    if (is(lx, i, ")"))
      depth++;
    else if (is(lx, i, "(") && depth-- == 0)
      return true;
    else if (depth == 0 && (is(lx, i, "{") || is(lx, i, "}")))
      return false;
  }
  return false;
}

/* Does the `:` at k end a label or a case (not the middle of a ?:)? */
static bool label_colon(const Lexed *lx, int k) {
  int depth = 0;
  for (int i = k - 1; i >= 0; i--) {
    if (is(lx, i, ")") || is(lx, i, "]"))
      depth++;
    else if (is(lx, i, "(") || is(lx, i, "["))
      depth--;
    else if (depth == 0 && is(lx, i, "?"))
      return false;
    else if (depth == 0 && (is(lx, i, ";") || is(lx, i, "{") || is(lx, i, "}")))
      return true;
  }
  return true;
}

/* Does a statement start at token k? */
static bool starts_statement(const Lexed *lx, int k) {
  if (k == 0 || is(lx, k - 1, "{") || is(lx, k - 1, "}") || is(lx, k - 1, "else") ||
      is(lx, k - 1, "do"))
    return true;
  if (is(lx, k - 1, ";"))
    return !inside_parens(lx, k);
  if (is(lx, k - 1, ":"))
    return label_colon(lx, k - 1);
  if (!is(lx, k - 1, ")"))
    return false;
  int d = 0, j = k - 1; /* the condition of an if, while, for or switch */
  for (; j >= 0; j--) {
    if (is(lx, j, ")"))
      d++;
    else if (is(lx, j, "(") && --d == 0)
      break;
  }
  return j > 0 && (is(lx, j - 1, "if") || is(lx, j - 1, "while") || is(lx, j - 1, "for") ||
                   is(lx, j - 1, "switch"));
}

/* `await X`: the word goes; an awaitable's call gets `.result`. Returns the
   token of an awaited coroutine's name (its call stays a call), or -1. */
static int await_edits(const Lexed *lx, Edits *e, const Found *fs, int nf, int k) {
  int callee = k + 1;
  int open = callee < lx->n && lx->v[callee].kind == T_IDENT && is(lx, callee + 1, "(") ? callee + 1
             : is(lx, callee, "(")                                                      ? callee
                                                                                        : -1;
  int close = open >= 0 ? matching(lx, open) : -1;
  bool statement = close >= 0 && is(lx, close + 1, ";") && starts_statement(lx, k);
  if (statement) /* (the value dropped, as coroc allows: C must not call it unused) */
    edit(e, lx->v[k].from, lx->v[k].to, "(void)");
  else
    blank(e, &lx->v[k]);
  if (is_coroutine_name(lx, fs, nf, callee) && is(lx, callee + 1, "("))
    return callee;
  if (close >= 0 && !statement)
    edit(e, lx->v[close].to, lx->v[close].to, ".result");
  return -1;
}

/* }================================================================== */

/* {==================================================================
 * The rendering and its map
 * =================================================================== */

static void make_text(Render *r, const Text *coc) {
  size_t len = coc->len;
  for (int i = 0; i < r->nedits; i++)
    len += strlen(r->edits[i].text) - (r->edits[i].coc_to - r->edits[i].coc_from);
  char *c = malloc(len + 1), *o = c;
  if (!c)
    abort();
  size_t at = 0;
  for (int i = 0; i < r->nedits; i++) {
    Edit *ed = &r->edits[i];
    memcpy(o, coc->text + at, ed->coc_from - at);
    o += ed->coc_from - at;
    ed->c_from = o - c;
    size_t n = strlen(ed->text);
    memcpy(o, ed->text, n);
    o += n;
    ed->c_to = o - c;
    at = ed->coc_to;
  }
  memcpy(o, coc->text + at, coc->len - at);
  o += coc->len - at;
  *o = '\0';
  r->c.text = c;
  r->c.len = o - c;
}

/* Drop edits that overlap one before them (an odd text can give two for
   one place); what is left is sorted and disjoint. */
static void make_disjoint(Edits *e) {
  qsort(e->v, e->n, sizeof *e->v, by_place);
  int n = 0;
  size_t end = 0;
  for (int i = 0; i < e->n; i++) {
    if (n > 0 && e->v[i].coc_from < end) {
      free(e->v[i].text);
      continue;
    }
    e->v[n++] = e->v[i];
    if (e->v[i].coc_to > end)
      end = e->v[i].coc_to;
  }
  e->n = n;
}

Render *render_make(const Text *coc, bool coc_rules) {
  Render *r = calloc(1, sizeof *r);
  if (!r)
    abort();
  r->refs = 1;
  text_set(&r->coc, coc->text, coc->len);
  Lexed lx = {coc->text, coc->len, NULL, 0, 0};
  Edits e = {0};
  if (coc_rules)
    lex(&lx);
  Found *fs = calloc(lx.n + 1, sizeof *fs);
  int nf = 0;
  if (!fs)
    abort();
  int depth = 0;
  for (int i = 0; i < lx.n; i++) {
    if (is(&lx, i, "{"))
      depth++;
    else if (is(&lx, i, "}") && depth > 0)
      depth--;
    else if (depth == 0 && is(&lx, i, "coroutine") && find_coroutine(&lx, i, &fs[nf]))
      classify(&lx, &fs[nf++]);
  }
  r->coros = calloc(nf + 1, sizeof *r->coros);
  if (!r->coros)
    abort();
  for (int i = 0; i < nf; i++) {
    const Tok *name = &lx.v[fs[i].name];
    CoroInfo *ci = &r->coros[r->ncoros++];
    ci->name = strndup(coc->text + name->from, name->to - name->from);
    ci->at = name->from;
    ci->type = type_text(&lx, &fs[i]);
    ci->kind = fs[i].body < 0    ? CORO_PROTOTYPE
               : fs[i].generator ? (fs[i].awaits ? CORO_ASYNC_GENERATOR : CORO_GENERATOR)
                                 : CORO_TASK;
  }
  bool *awaited = calloc(lx.n + 1, sizeof *awaited), prelude = false;
  if (!awaited)
    abort();
  for (int i = 0; i < lx.n; i++) {
    const Tok *t = &lx.v[i];
    if (is(&lx, i, "coroutine")) {
      const Found *f = NULL;
      for (int k = 0; k < nf && !f; k++)
        if (fs[k].word == i)
          f = &fs[k];
      if (f && !prelude) {
        size_t at = line_start(coc->text, t->from);
        edit(&e, at, at, PRELUDE);
        prelude = true;
      }
      if (f && f->generator && f->end >= 0) {
        edit(&e, t->from, t->to, PUSH);
        edit(&e, lx.v[f->end].to, lx.v[f->end].to, POP);
        char *value = value_typedef(&lx, f);
        edit(&e, lx.v[f->body].to, lx.v[f->body].to, value);
        free(value);
      } else {
        blank(&e, t);
      }
      if (f && f->end >= 0) {
        char *frame = frame_declarations(&lx, f);
        edit(&e, lx.v[f->end].to, lx.v[f->end].to, frame);
        free(frame);
      }
    } else if (is(&lx, i, "yield")) {
      yield_edits(&lx, &e, inside(fs, nf, i), i);
    } else if (is(&lx, i, "await")) {
      int callee = await_edits(&lx, &e, fs, nf, i);
      if (callee >= 0)
        awaited[callee] = true;
    } else if (!awaited[i] && is_coroutine_name(&lx, fs, nf, i) && is(&lx, i + 1, "(") &&
               !is(&lx, i - 1, ".") && !is(&lx, i - 1, "->")) {
      bool declarator = false;
      for (int k = 0; k < nf; k++)
        declarator |= fs[k].name == i;
      int close = matching(&lx, i + 1);
      if (!declarator && close >= 0) {
        edit(&e, t->from, t->from, "coro_lsp_new_(");
        edit(&e, lx.v[close].to, lx.v[close].to, ")");
      }
    } else if (is_coroutine_name(&lx, fs, nf, i) && as_value(&lx, i) &&
               !declared_in_function(&lx, i)) {
      /* the name as a value: a pointer to the function that makes instances */
      size_t at = is(&lx, i - 1, "&") ? lx.v[i - 1].from : t->from;
      edit(&e, at, at, "(coro_t *(*)())");
    }
  }
  make_disjoint(&e);
  r->edits = e.v;
  r->nedits = e.n;
  make_text(r, coc);
  free(awaited);
  free(fs);
  free(lx.v);
  return r;
}

void render_release(Render *r) {
  if (!r || --r->refs > 0)
    return;
  for (int i = 0; i < r->nedits; i++)
    free(r->edits[i].text);
  for (int i = 0; i < r->ncoros; i++) {
    free(r->coros[i].name);
    free(r->coros[i].type);
  }
  free(r->edits);
  free(r->coros);
  text_free(&r->c);
  text_free(&r->coc);
  free(r);
}

/* The last edit that starts at or before coc offset `at` (by coc_from), or -1. */
static int edit_before(const Render *r, size_t at) {
  int lo = 0, hi = r->nedits - 1, best = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (r->edits[mid].coc_from <= at) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

size_t render_to_c(const Render *r, size_t at, bool *generated) {
  *generated = false;
  int i = edit_before(r, at);
  if (i < 0)
    return at;
  const Edit *ed = &r->edits[i];
  if (at < ed->coc_to) { /* inside a word that was replaced */
    *generated = true;
    return ed->c_from;
  }
  return at - ed->coc_to + ed->c_to;
}

size_t render_to_coc(const Render *r, size_t at, const Edit **in) {
  *in = NULL;
  int lo = 0, hi = r->nedits - 1, best = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (r->edits[mid].c_from <= at) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best < 0)
    return at;
  const Edit *ed = &r->edits[best];
  if (at < ed->c_to) {
    *in = ed;
    return ed->coc_from;
  }
  return at - ed->c_to + ed->coc_to;
}

const CoroInfo *render_coroutine(const Render *r, const char *name, size_t len) {
  for (int i = 0; i < r->ncoros; i++)
    if (strlen(r->coros[i].name) == len && memcmp(r->coros[i].name, name, len) == 0)
      return &r->coros[i];
  return NULL;
}

/* For clang-format: words of the same width that it reads as C++ keywords
   of the same place (a specifier; a unary operator), so that what it
   decides about spaces and breaks is what it would decide about the .coc. */
char *render_for_format(const Text *coc) {
  Lexed lx = {coc->text, coc->len, NULL, 0, 0};
  lex(&lx);
  char *out = malloc(coc->len + 1);
  if (!out)
    abort();
  memcpy(out, coc->text, coc->len + 1);
  for (int i = 0; i < lx.n; i++) {
    if (is(&lx, i, "coroutine"))
      memcpy(out + lx.v[i].from, "constexpr", 9);
    else if (is(&lx, i, "yield") || is(&lx, i, "await"))
      memcpy(out + lx.v[i].from, "throw", 5);
  }
  free(lx.v);
  return out;
}

/* }================================================================== */
