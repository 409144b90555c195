/* lexhook.c: the parser's token hook (next_token): what bison sees of the tokens.
 *
 * The scanner (lexer.l) only cuts text into tokens; this hook tells the
 * parser what each one is, for it depends on where the parser stands:
 *  - a word is a keyword (tokens.c keeps the table), a typedef name or an
 *    identifier: telling `T * x;` (a declaration) from `a * b;` (a product)
 *    is the classic "lexer hack", so the hook asks scope.c what the name
 *    means in the scopes the parser is in now;
 *  - `__attribute__((...))` and `__asm__ (...)` come as one token each:
 *    coroc never needs what is inside;
 *  - preprocessor lines and tokens of skipped #if groups are passed over
 *    (the file parse hands the #define lines it passes to macros.c);
 *  - in a coroutine's own tokens, a macro that stands for a type (`u8`,
 *    `bool`, `INLINE`) is replaced by its words, so that its declarations
 *    parse as the compiler will see them; one that stands for strings
 *    (`PRIu64`) is a string, one for attributes (`_cleanup_free_`,
 *    macros.c) one __attribute__ token (followed by the words of a type
 *    for `g_autoptr(T)`), one for _Pragma groups a pragma; one that heads
 *    a loop (`TAILQ_FOREACH`) or opens a block with no ';' after it
 *    (`Py_BEGIN_ALLOW_THREADS`) a token of its own, which the grammar takes
 *    where a statement begins; and a use whose arguments are not C
 *    (`CMP(a, <, b)`) one token for the whole use (macro_use_token).
 */
#include "coroc.h"
#include "parser.h"

#include <string.h>

/* Is token i there? The file parse reads the preprocessor's output as it
   comes: asking for a token scans up to it (source_more). A coroutine's
   parse reads the user's tokens, whole, whose `dead` the streaming run
   settles as the preprocessor's output comes (source_settle_original). */
static bool have_token(Parser *p, int i) {
  if (p->original)
    source_settle_original(p->src, i);
  return i < p->toks->n || (!p->original && source_more(p->src, i));
}

/* {==================================================================
 * The lexer hook: keywords, typedef names, opaque GNU groups
 * =================================================================== */

/* The parser's code for a keyword token, 0 for any other word. */
int keyword_code(const Token *t) {
  int code = name_keyword(tok_text(t));
  /* The three words are keywords of the .coc only: a header may use them as names. */
  if ((code == T_COROUTINE || code == T_YIELD || code == T_AWAIT) && !t->in_main)
    return 0;
  return code;
}

/* `__extension__` only silences pedantic warnings: the parser never sees
   it, and it stays in the output with the tokens around it. */
static bool is_extension(const Token *t) {
  return t->kind == TK_IDENT && name_keyword(tok_text(t)) == T_EXTENSION;
}

/* The directives of the file parse's tokens before `end` that the parser
   did not meet (a coroutine's body it skipped) take effect. */
void see_directives(Parser *p, int end) {
  for (int i = p->directives_seen; i < end; i++)
    if (p->toks->v[i].kind == TK_DIRECTIVE)
      macro_directive(tok_text(&p->toks->v[i]));
  if (p->directives_seen < end)
    p->directives_seen = end;
}

/* The index of the next token the parser should see at or after i: the
   original text's directive lines and skipped conditional groups are not C. */
static int live_index(Parser *p, int i) {
  while (have_token(p, i) && (p->toks->v[i].kind == TK_DIRECTIVE || p->toks->v[i].dead ||
                              is_extension(&p->toks->v[i]))) {
    if (!p->original && p->toks->v[i].kind == TK_DIRECTIVE && i >= p->directives_seen) {
      macro_directive(tok_text(&p->toks->v[i])); /* in effect from here on */
      p->directives_seen = i + 1;
    }
    i++;
  }
  return i;
}

/* {==================================================================
 * Type-like macros in the original tokens
 * =================================================================== */

static bool is_type_word(int code) {
  switch (code) {
  case T_VOID:
  case T_CHAR_KW:
  case T_SHORT:
  case T_INT:
  case T_LONG:
  case T_FLOAT:
  case T_DOUBLE:
  case T_SIGNED:
  case T_UNSIGNED:
  case T_BOOL:
  case T_COMPLEX:
  case T_IMAGINARY:
  case T_ATOMIC:
  case T_ALIGNAS: /* <stdalign.h>'s alignas: `alignas(16) char buf[16];` */
  case T_INT128:
  case T_FLOATN:
  case T_CONST:
  case T_VOLATILE:
  case T_RESTRICT:
  case T_STATIC:
  case T_EXTERN:
  case T_INLINE:
  case T_NORETURN:
  case T_REGISTER:
  case T_THREAD_LOCAL:
  case T_STRUCT:
  case T_UNION:
  case T_ENUM:
  case T_BUILTIN_VA_LIST:
  case T_TYPEDEF:
    return true;
  default:
    return false;
  }
}

bool begins_declaration(const Token *t) {
  if (t->kind != TK_IDENT)
    return false;
  int code = keyword_code(t);
  if (is_type_word(code) || code == T_TYPEOF || code == T_AUTO_TYPE)
    return true;
  Sym *s = code ? NULL : scope_lookup(tok_text(t));
  return s && s->kind == SYM_TYPEDEF;
}

bool declared_in_argument(const TokenList *toks, int at, int first) {
  const Token *t = &toks->v[at], *type = t - 1;
  while (type > &toks->v[first] && type->kind == TK_PUNCT && type->code == '*')
    type--;
  int tag = type >= &toks->v[first] && type->kind == TK_IDENT ? keyword_code(type) : 0;
  return t->kind == TK_IDENT && !keyword_code(t) && type >= &toks->v[first] && tag != T_STRUCT &&
         tag != T_UNION && tag != T_ENUM && begins_declaration(type);
}

/* Append the expansion of macro `name` to the queue if every word of it (and
   of the macros in it) is a type word, a typedef name, a tag after
   struct/union/enum, or a '*'. Returns false, leaving the queue as it was,
   for any other macro: those stay identifiers, as the user wrote them. */
static bool expand_type_macro(Parser *p, const char *name, int depth) {
  const TokenList *body = macro_body(name);
  if (!body || depth > 8)
    return false;
  int saved = p->nqueue;
  for (int i = 0; i < body->n; i++) {
    Token *t = &body->v[i];
    int code = t->kind == TK_IDENT ? keyword_code(t) : 0;
    bool after_tag = i > 0 && body->v[i - 1].kind == TK_IDENT &&
                     (strcmp(tok_text(&body->v[i - 1]), "struct") == 0 ||
                      strcmp(tok_text(&body->v[i - 1]), "union") == 0 ||
                      strcmp(tok_text(&body->v[i - 1]), "enum") == 0);
    bool ok = (t->kind == TK_PUNCT && t->code == '*') || (code && is_type_word(code)) || after_tag;
    if (!ok && t->kind == TK_IDENT && !code) {
      Sym *s = scope_lookup(tok_text(t));
      if (s && s->kind == SYM_TYPEDEF)
        ok = true;
      else if (expand_type_macro(p, tok_text(t), depth + 1))
        continue;
    }
    if (!ok || p->nqueue == (int)(sizeof p->queue / sizeof p->queue[0])) {
      p->nqueue = saved;
      return false;
    }
    p->queue[p->nqueue++] = t;
  }
  return true;
}

/* }================================================================== */

/* {==================================================================
 * Macro uses whose arguments are not C
 *
 * `CMP(a, <, b)`, GLib's `g_assert_cmpint(n, ==, 3)`, `STR(hello world)`,
 * `TRY(f(), goto fail)`: a macro may take an argument that is neither an
 * expression nor a type name, which the grammar cannot read. The hook hands
 * such a use over whole, as one RAW_MACRO token, and build.c makes it a call
 * whose arguments are the names in it. Whether an argument is C is told
 * from its tokens alone, outside any braces in it: one that begins or ends
 * with what no expression can, or holds two words or literals in a row
 * (strings excepted, which concatenate; `int x` included), or a `;` or a
 * statement's word, is not. An argument this misses stays a syntax error.
 * =================================================================== */

/* Can a punctuator begin an expression or a type name? (`&&` can: GNU's `&&label`.) */
static bool may_begin(int code) {
  switch (code) {
  case '(':
  case '*':
  case '&':
  case '+':
  case '-':
  case '~':
  case '!':
  case '{':
  case T_INC:
  case T_DEC:
  case T_ANDAND:
    return true;
  default:
    return false;
  }
}

/* Can a punctuator end one? (`*` can: the type name `char *`.) */
static bool may_end(int code) {
  return code == ')' || code == ']' || code == '}' || code == '*' || code == T_INC || code == T_DEC;
}

/* A word or a literal, an operand in itself (1); strings, a string macro too (2); a type's word,
   a typedef name or a macro for a type (3); 0 for anything else. */
static int operand_kind(const Token *t) {
  if (t->kind == TK_STRING || (t->kind == TK_IDENT && string_macro(tok_text(t), 0)))
    return 2;
  if (t->kind == TK_NUMBER || t->kind == TK_CHAR)
    return 1;
  if (t->kind != TK_IDENT)
    return 0;
  int code = keyword_code(t);
  if (code == T_STRUCT || code == T_UNION || code == T_ENUM)
    return 0; /* (its tag follows) */
  if (code)
    return is_type_word(code) ? 3 : 0;
  Sym *s = scope_lookup(tok_text(t)); /* `const T *`, `const u8 *`: words of a type */
  return (s && s->kind == SYM_TYPEDEF) || macro_body(tok_text(t)) ? 3 : 1;
}

static bool is_statement_word(const Token *t) {
  switch (t->kind == TK_IDENT ? keyword_code(t) : 0) {
  case T_RETURN:
  case T_GOTO:
  case T_BREAK:
  case T_CONTINUE:
  case T_IF:
  case T_WHILE:
  case T_FOR:
  case T_DO:
  case T_SWITCH:
    return true;
  default:
    return false;
  }
}

/* Is the argument v[first..last] (inclusive) not C? */
static bool argument_is_raw(const Token *v, int first, int last) {
  if (first > last)
    return true; /* empty, beside others: `F(a, , b)` */
  if (v[first].kind == TK_PUNCT && !may_begin(v[first].code))
    return true;
  if (v[last].kind == TK_PUNCT && !may_end(v[last].code))
    return true;
  int braces = 0, parens = 0;
  for (int i = first; i <= last; i++) {
    int code = v[i].kind == TK_PUNCT ? v[i].code : 0;
    braces += (code == '{') - (code == '}');
    parens += (code == '(') - (code == ')');
    if (braces > 0 || code == '}')
      continue; /* a compound literal's list, a statement expression */
    if ((code == ';' && parens == 0) || is_statement_word(&v[i]))
      return true;
    if (i == first)
      continue;
    int a = operand_kind(&v[i - 1]), b = operand_kind(&v[i]);
    if (a && b && !(a == 2 && b == 2) && !(a == 3 && b != 1))
      return true; /* `hello world`, `x 1`, `int x` (type words in a row are a type) */
  }
  return false;
}

/* A use at v[at] of a function-like macro with an argument that is not C: the index of its
   ')', else -1. */
static int raw_macro_use(Parser *p, int at) {
  const Token *v = p->toks->v;
  if (!function_like_macro(tok_text(&v[at])) || !have_token(p, at + 1) ||
      v[at + 1].kind != TK_PUNCT || v[at + 1].code != '(')
    return -1;
  bool raw = false;
  int depth = 0, first = at + 2, nargs = 0, stmt_expr = -1;
  for (int i = at + 1; have_token(p, i) && v[i].kind != TK_EOF; i++) {
    int code = v[i].kind == TK_PUNCT ? v[i].code : 0;
    if (code == '{' && v[i - 1].kind == TK_PUNCT && v[i - 1].code == '(' && stmt_expr < 0)
      stmt_expr = i; /* a statement expression: its declarations are the parse's to see */
    if (code == '(' || code == '[' || code == '{')
      depth++;
    else if ((code == ')' || code == ']' || code == '}') && --depth == 0) {
      nargs++;
      raw |= (first <= i - 1 || nargs > 1) && argument_is_raw(v, first, i - 1);
      if (raw && stmt_expr >= 0)
        error_tok(&v[stmt_expr],
                  "a statement expression among the arguments of '%s', some of which coroc "
                  "cannot read as C: compute its value into a local before the macro's use",
                  tok_text(&v[at]));
      return raw ? i : -1;
    } else if (code == ',' && depth == 1) {
      nargs++;
      raw |= argument_is_raw(v, first, i - 1);
      first = i + 1;
    }
  }
  return -1;
}

/* A use at v[at] of a macro that opens or closes a block (macros.c), standing with no ';' after
   it, as CPython's `Py_BEGIN_ALLOW_THREADS` does: the index of its last token (its ')' if it is
   function-like), else -1 (with its ';' it is read as a call). */
static int statement_end(Parser *p, int at) {
  const Token *v = p->toks->v;
  int end = at, depth = 0;
  if (function_like_macro(tok_text(&v[at])))
    for (end = at + 1; have_token(p, end) && v[end].kind != TK_EOF; end++) {
      int code = v[end].kind == TK_PUNCT ? v[end].code : 0;
      if (code == '(')
        depth++;
      else if (code == ')' && --depth == 0)
        break;
      else if (depth == 0)
        return -1; /* the name alone */
    }
  int next = live_index(p, end + 1);
  return have_token(p, next) && v[next].kind == TK_PUNCT && v[next].code == ';' ? -1 : end;
}

/* }================================================================== */

/* `__attribute__((...))`, `__asm__ volatile (...)` and `_Pragma("...")` (in a coroutine's own
   tokens: the preprocessor makes it a #pragma line): coroc never needs what is inside, so the hook
   returns each as one token covering its balanced parentheses. Returns the index of the last
   token of the group. */
static int skip_group(Parser *p, int i, bool is_asm) {
  int first = i;
  i = live_index(p, i + 1);
  while (is_asm && have_token(p, i) && p->toks->v[i].kind == TK_IDENT) /* volatile, goto, inline */
    i = live_index(p, i + 1);
  if (!have_token(p, i) || p->toks->v[i].code != '(')
    error_tok(&p->toks->v[i], "expected '(' after '%s'", tok_text(&p->toks->v[first]));
  int depth = 0;
  for (; have_token(p, i); i = live_index(p, i + 1)) {
    int c = p->toks->v[i].code;
    if (c == '(')
      depth++;
    else if (c == ')' && --depth == 0)
      return i;
  }
  error_tok(&p->toks->v[p->toks->n], "unbalanced parentheses at the end of the input");
}

static int classify(Parser *p, Token *t, int *index) {
  switch (t->kind) {
  case TK_NUMBER:
    return T_NUMBER;
  case TK_CHAR:
    return T_CHAR;
  case TK_STRING:
    return T_STRING;
  case TK_PUNCT:
    return t->code;
  case TK_EOF:
    return T_YYEOF;
  case TK_DIRECTIVE:
    internal_error("directive reached the parser");
  case TK_IDENT:
    break;
  }
  int code = keyword_code(t);
  if (code == T_ATTRIBUTE || code == T_ASM || code == T_PRAGMA) {
    *index = skip_group(p, *index, code == T_ASM);
    return code;
  }
  if (code)
    return code;
  /* a member name after . or -> is never a type */
  if (p->prev_code == '.' || p->prev_code == T_ARROW)
    return T_IDENTIFIER;
  Sym *sym = scope_lookup(tok_text(t));
  return sym && sym->kind == SYM_TYPEDEF ? T_TYPEDEF_NAME : T_IDENTIFIER;
}

/* A word t at i of a coroutine's own tokens that is a macro's use the grammar takes whole: its
   token code, with *end its last token (the words of a type that follow an attribute, queued);
   0 for any other word. What the use jumps to unseen is noted in p. */
static int macro_use_token(Parser *p, Token *t, int i, int *end) {
  *end = i;
  if (string_macro(tok_text(t), 0)) /* `"%" PRIu64 "\n"`: a string among strings */
    return T_STRING;
  /* `UNUSED`, `_cleanup_free_`, `__aligned(8)`: an attribute; GLib's
     `G_GNUC_BEGIN_IGNORE_DEPRECATIONS`: a pragma */
  TokenList groups = {0}, type = {0};
  int kinds = GROUP_ATTRIBUTE | GROUP_PRAGMA;
  *end = group_macro(p->toks, i, &groups, 0, &kinds);
  xfree(groups.v);
  if (*end >= 0)
    return kinds == GROUP_PRAGMA ? T_PRAGMA : T_ATTRIBUTE;
  groups = (TokenList){0}; /* `g_autoptr(GString)`: an attribute, then the words of a type */
  *end = typed_attribute_macro(p->toks, i, &groups, &type);
  xfree(groups.v);
  if (*end >= 0 && type.n <= (int)(sizeof p->queue / sizeof p->queue[0])) {
    Token *words = memory_keep(type.v); /* (the run's: the tree points at them) */
    for (int k = 0; k < type.n; k++)
      p->queue[k] = &words[k];
    p->nqueue = type.n, p->qhead = 0, p->qindex = *end; /* (inside the attribute's range) */
    return T_ATTRIBUTE;
  }
  xfree(type.v);
  int jumps = 0, loop = statement_macro(p->toks, i, NULL, &jumps);
  int raw_end = loop ? -1 : raw_macro_use(p, i);
  for (int k = i + 2; k < raw_end; k++) /* `TRY(f(), goto fail)`: its argument jumps */
    if (is_statement_word(&p->toks->v[k]))
      jumps |= keyword_code(&p->toks->v[k]) == T_RETURN ? JUMPS_RETURN : JUMPS_GOTO;
  /* (check.c, frame.c: jumps the passes do not see; a block a user's break would leave) */
  if (jumps & (JUMPS_ANY | OPENS_BLOCK | CLOSES_BLOCK) && !p->jump_macro)
    p->jump_macro = t, p->jump_deed = jumps;
  if (jumps & JUMPS_RETURN && !p->return_macro)
    p->return_macro = t;
  *end = jumps & (OPENS_BLOCK | CLOSES_BLOCK) ? statement_end(p, i) : -1;
  if (*end >= 0) /* `Py_BEGIN_ALLOW_THREADS`, no ';': a statement of its own */
    return T_BLOCK_MACRO;
  *end = raw_end >= 0 ? raw_end : i;
  if (raw_end >= 0)
    return T_RAW_MACRO;
  /* `TAILQ_FOREACH(...)`, `forever`: a loop's head */
  return loop == 2 ? T_LOOP_MACRO_CALL : loop ? T_LOOP_MACRO : 0;
}

int next_token(YYSTYPE *lval, Loc *lloc, Parser *p) {
  if (p->original && !p->started) {
    p->started = true;
    *lloc = (Loc){p->pos, p->pos - 1};
    return T_START_COROUTINE;
  }
  if (p->original && p->done) {
    *lloc = (Loc){p->pos, p->pos - 1};
    return T_YYEOF;
  }
  if (p->skip_to > 0) { /* a coroutine's body, parsed from the user's tokens (body_begin) */
    see_directives(p, p->skip_to); /* its #defines still take effect */
    *lloc = (Loc){p->skip_to - 1, p->skip_to - 1};
    p->pos = p->skip_to;
    p->skip_to = 0;
    p->prev_code = '}';
    return T_SKIPPED_BODY;
  }
  if (p->qhead < p->nqueue) { /* inside a type-like macro: its words, at its place */
    Token *t = p->queue[p->qhead++];
    int index = p->qindex;
    int code = classify(p, t, &index);
    lval->T_IDENTIFIER = t;
    *lloc = (Loc){p->qindex, p->qindex};
    p->prev_code = code;
    return code;
  }
  int i = live_index(p, p->pos);
  Token *t = &p->toks->v[i];
  if (p->original && t->kind == TK_IDENT && !keyword_code(t) && p->prev_code != '.' &&
      p->prev_code != T_ARROW) {
    p->nqueue = p->qhead = 0;
    if (expand_type_macro(p, tok_text(t), 0)) {
      p->qindex = i;
      p->pos = i + 1;
      return next_token(lval, lloc, p); /* an empty macro (INLINE) simply vanishes */
    }
    int end, code = macro_use_token(p, t, i, &end);
    if (code) {
      lval->T_IDENTIFIER = t;
      *lloc = (Loc){i, end};
      p->pos = end + 1;
      p->prev_code = code;
      return code;
    }
  }
  int last = i;
  int code = classify(p, t, &last);
  lval->T_IDENTIFIER = t;
  *lloc = (Loc){i, last};
  p->pos = t->kind == TK_EOF ? i : last + 1;
  p->prev_code = code;
  return code;
}

/* }================================================================== */
