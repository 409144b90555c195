/* syntax_error.c: the messages of syntax errors.
 *
 * bison knows where the parse stopped and which tokens it could have taken
 * there (parser.y hands them over by name, yyreport_syntax_error); these
 * say it as a compiler would, in the one format: what was wanted where
 * that is clear (a missing ';', an expression), an unknown type name where
 * two names stand in a row at the start of a declaration (`count_t i`),
 * otherwise what was found. Positions are the user's: the columns of the
 * preprocessed text are not.
 */
#include "parser.h"

#include <stdio.h>
#include <string.h>

/* Where a token stands, as the user wrote it (columns of the preprocessed
   text are not the user's). */
Pos token_pos(Parser *p, int index) {
  Token *t = &p->toks->v[index];
  if (!p->original && t->in_main)
    return source_original_pos(p->src, index);
  return tok_pos(t);
}

/* A token's name for a message: 'x' for punctuators and words, else its kind. */
static const char *symbol_text(const char *name) {
  if (name[0] == '"') {
    static char buf[64];
    snprintf(buf, sizeof buf, "'%.*s'", (int)strlen(name) - 2, name + 1);
    return buf;
  }
  if (strcmp(name, "IDENTIFIER") == 0)
    return "an identifier";
  if (strcmp(name, "TYPEDEF_NAME") == 0)
    return "a type name";
  if (strcmp(name, "NUMBER") == 0)
    return "a number";
  if (strcmp(name, "STRING") == 0)
    return "a string";
  if (strcmp(name, "CHAR") == 0)
    return "a character constant";
  if (strcmp(name, "end of file") == 0)
    return "the end of the input";
  return name;
}

/* Is the token named `name` among those the parser could have accepted? */
static bool expects(const char **expected, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(expected[i], name) == 0)
      return true;
  return false;
}

/* The file parse reads the preprocessor's output as the parser asks for
   it: a message that looks at the token after the one the parser stopped
   at must have it scanned first (else it reads what no token was written
   to, and the message depends on where a batch ended). */
static void scan_to(Parser *p, int i) {
  if (!p->original)
    source_more(p->src, i);
}

/* A coroutine's declaration without a type: `coroutine i64 f(void)`, where
   nothing declared i64, names an unknown type (as gcc says); with no name
   after it, the type is missing. */
void refuse_implicit_int(Parser *p, int specs, int after) {
  scan_to(p, after + 1);
  Token *t = &p->toks->v[after], *next = t->kind == TK_EOF ? t : t + 1;
  if (t->kind == TK_IDENT && !name_keyword(tok_text(t)) &&
      (next->kind == TK_IDENT || (next->kind == TK_PUNCT && next->code == '*')))
    error_at(token_pos(p, after), "unknown type name '%s'", tok_text(t));
  error_at(token_pos(p, specs), "implicit int in a coroutine: write the type out");
}

/* `count_t i`, where nothing declared count_t: two names in a row at the
   start of a declaration, the first of which the parser took for a variable.
   Like gcc, say what is wrong with the first rather than before the second.
   The start of a declaration: after '{', ';' or '}', or the '(' of a for. */
static bool unknown_type_name(Parser *p, int at) {
  if (at < 1)
    return false;
  Token *t = &p->toks->v[at], *name = &p->toks->v[at - 1];
  if (t->kind != TK_IDENT || name->kind != TK_IDENT || name_keyword(tok_text(t)) ||
      name_keyword(tok_text(name)))
    return false;
  if (at < 2)
    return true;
  Token *before = &p->toks->v[at - 2];
  if (before->kind != TK_PUNCT)
    return false;
  if (before->code == '{' || before->code == ';' || before->code == '}')
    return true;
  return before->code == '(' && at >= 3 && p->toks->v[at - 3].kind == TK_IDENT &&
         strcmp(tok_text(&p->toks->v[at - 3]), "for") == 0;
}

/* Could tok end a type, so that a name after it is declared (`int`, `*`, a
   typedef name or a tag)? Not `return`, `=`, ...: the name would be called. */
static bool ends_type(const Token *tok) {
  static const char *const words[] = {"void",  "char",     "short",     "int",      "long",
                                      "float", "double",   "signed",    "unsigned", "_Bool",
                                      "const", "volatile", "coroutine", NULL};
  if (tok->kind == TK_PUNCT)
    return tok->code == '*';
  if (tok->kind != TK_IDENT)
    return false;
  for (int i = 0; words[i]; i++)
    if (strcmp(tok_text(tok), words[i]) == 0)
      return true;
  return !name_keyword(tok_text(tok));
}

/* `int f(i64 n)`, `int f(int a, i64 n)`, where nothing declared i64: in a
   function declarator's parameter list, two names in a row after its '('
   or a parameter's ','. (Not `g(a b)` in an expression: what stands before
   the list is not a declaration.) The index of the unknown name, or -1. */
static int unknown_param_type(Parser *p, int at) { /* (4 tokens back at most: external.c) */
  scan_to(p, at + 1);
  const Token *v = p->toks->v;
  /* the parser stops at the second name, or the first */
  for (int type = at - 1; type <= at; type++) {
    if (type < 4 || v[type].kind != TK_IDENT || v[type + 1].kind != TK_IDENT ||
        name_keyword(tok_text(&v[type])) || name_keyword(tok_text(&v[type + 1])) ||
        v[type - 1].kind != TK_PUNCT)
      continue;
    if (v[type - 1].code == '(' && v[type - 2].kind == TK_IDENT && ends_type(&v[type - 3]))
      return type; /* the first parameter, of a declarator `T f(` */
    if (v[type - 1].code == ',' && v[type - 2].kind == TK_IDENT && ends_type(&v[type - 3]))
      return type; /* a later one, after `T a,` */
  }
  return -1;
}

/* The message says what was wanted where that is clear: a missing ';' or
   an expression; otherwise what was found. */
void syntax_error(Parser *p, int at, const char **expected, int n, bool typedef_name) {
  Token *t = &p->toks->v[at];
  Pos pos = token_pos(p, at);
  const char *found = t->kind == TK_EOF ? "the end of the input" : format("'%s'", tok_text(t));
  if (t->kind == TK_PUNCT && t->code == T_STRAY)
    error_at(pos, "stray '%s' in program", tok_text(t));
  if (expects(expected, n, "';'") && unknown_type_name(p, at))
    error_at(token_pos(p, at - 1), "unknown type name '%s'", tok_text(&p->toks->v[at - 1]));
  int unknown = unknown_param_type(p, at);
  if (unknown >= 0 && t->kind != TK_EOF)
    error_at(token_pos(p, unknown), "unknown type name '%s'", tok_text(&p->toks->v[unknown]));
  if (n == 1)
    error_at(pos, "expected %s before %s", symbol_text(expected[0]), found);
  if (t->kind == TK_EOF && expects(expected, n, "'}'"))
    error_at(pos, "expected '}' before the end of the input (an unclosed '{')");
  bool want_semi = expects(expected, n, "';'");
  bool want_expr = expects(expected, n, "IDENTIFIER") && expects(expected, n, "NUMBER");
  if (want_semi && (t->bol || t->kind == TK_EOF || t->code == '}'))
    error_at(pos, "expected ';' before %s", found);
  if (want_expr && !expects(expected, n, "TYPEDEF_NAME"))
    error_at(pos, "expected an expression before %s", found);
  if (typedef_name)
    error_at(pos, "unexpected type name %s here", found);
  error_at(pos, "syntax error before %s", found);
}

void yyerror(Loc *loc, Parser *p, const char *msg) {
  if (strcmp(msg, "memory exhausted") == 0) /* the stack reached YYMAXDEPTH */
    error_at(token_pos(p, loc->first),
             "nested too deeply: coroc's parser holds at most %d "
             "unfinished constructs (brackets, operators, statements) at once",
             COROC_MAX_NESTING);
  error_at(token_pos(p, loc->first), "%s", msg);
}
