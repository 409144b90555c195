/* parse.h: the parser's state, and what the grammar's actions call.
 *
 * parser.y is the grammar; what its actions do beyond making a node of a
 * rule's tokens is C of its own, below it, in three files by job:
 *   build.c         nodes with their token ranges, and names declared in
 *                   the scopes as the parse goes
 *   external.c      the file parse, one external declaration at a time: its
 *                   tree given back, a coroutine's body skipped and
 *                   recorded once it is parsed again (the second parse
 *                   itself is parser.y's: it runs the grammar again)
 *   syntax_error.c  the messages of syntax errors, in the one format
 * Included by parser.y (and so by its parser.h, for the token hook,
 * lexhook.c) and by those three.
 */
#ifndef COROC_PARSE_H
#define COROC_PARSE_H

#include "coroc.h"

/* A location is a range of token indices; every node keeps it. */
typedef struct {
  int first, last;
} Loc;

/* One parse: the file parse of the preprocessed tokens, or a coroutine's
   second parse of the user's own (original). */
typedef struct Parser Parser;
struct Parser {
  Source *src;              /* the input */
  TokenList *toks;          /* the tokens being parsed */
  int pos;                  /* the index of the next token */
  bool original;            /* parsing one coroutine from the original tokens */
  bool started;             /* original: the START_COROUTINE token was sent */
  bool done;                /* original: the coroutine has been reduced */
  int prev_code;            /* the code of the token returned last */
  NodeList specs;           /* the specifiers of the declarations being parsed, innermost last */
  Node *unit;               /* the result: translation unit, or the coroutine's node */
  Coroutine *cos;           /* the coroutines found, in file order */
  Coroutine **cos_tail;     /* where the next one goes */
  int stmt_expr_depth;      /* > 0 inside a statement expression ({ ... }) */
  bool in_coroutine;        /* the file parse is inside a coroutine's body */
  int directives_seen;      /* file parse: directives below this index went to macros.c */
  Token *queue[64];         /* original: the expansion of a type-like macro, being returned */
  int nqueue, qhead;        /* its length and the next to return */
  int qindex;               /* the index of the macro's name, the location of all of it */
  ArenaMark external_mark;  /* file parse: the tree's arena where this external declaration began */
  int external_syms;        /* ... and the count of symbols then (scope.c) */
  bool keep_external;       /* ... it is a coroutine's: keep its tree */
  ArenaMark coroutine_body; /* file parse: where the body of the coroutine being parsed began */
  bool release_body;        /* ... give it back at its end */
  /* file parse: > 0: a coroutine's body is skipped up to here (body_begin) */
  int skip_to;
  /* file parse: the file-scope tags that this external declaration defines */
  Sym **tags_defined;
  int ntags_defined, captags_defined;
  Coroutine **last_co; /* the coroutine found last */
  /* the streaming run: each coroutine is handed to `each` at the end of its
     external declaration, before its tree goes back (parse_source_each) */
  void (*each)(Coroutine *co, void *ctx);
  void *each_ctx;
  Coroutine **unsent; /* ... the first not handed over yet is *unsent */
  /* ... the preprocessed tokens [behind_from, behind_done) went back: those
     of coroutines' external declarations printed, back to the last one that
     something kept points into (give_back_behind) */
  int behind_from, behind_done;
  /* original: Coroutine's, as the grammar meets them */
  bool saw_yield_value, saw_await, saw_stmt_expr;
  Token *jump_macro, *return_macro; /* the first use of a macro that jumps (returns) out of it */
  int jump_deed;                    /* what jump_macro's use does (Coroutine.jump_deed) */
};

/* lexhook.c: the parser's code for a keyword token, 0 for any other word
   (its token hook, next_token, is declared in parser.h: it takes bison's
   YYSTYPE). */
int keyword_code(const Token *t);
/* ... and the directives before token `end` of the file parse that it did
   not meet (a skipped coroutine body's) take effect now. */
void see_directives(Parser *p, int end);

/* {=====================================================================
 * build.c: nodes, and names declared
 * ====================================================================== */

Node *expr_node(Loc loc, int op, Node *a, Node *b, Node *c);
Node *ident(Parser *p, Token *t, Loc loc); /* an identifier, resolved in the scopes of now */
Node *call_node(Parser *p, Loc loc, Node *callee, Node *args); /* args NULL: `f()` */
/* `CMP(i, <, n)`: a use whose arguments are not C (lexhook.c), a call of the names in it. */
Node *raw_macro_node(Parser *p, Token *name, Loc loc);
Node *offsetof_node(Token *builtin, Loc loc, Node *type, Node *indexes);
Node *asm_node(Parser *p, Token *word, Loc loc);
Node *loop_macro_node(Token *name, Loc loc, Node *head, Node *body);
void check_declared_name(Parser *p, const Node *init_decl); /* a macro making it: refused */
Node *specs_add(Node *specs, Node *item, int flags, Loc loc);
Node *declarator_new(Token *name, Loc loc);
Node *declarator_derive(Node *d, Node *deriv, Loc loc);
Node *declarator_paren(Node *inner, Loc loc);
void begin_decl(Parser *p, Node *specs); /* the specifiers of the declaration parsed now ... */
void end_decl(Parser *p);                /* ... until its end */
Node *decl_end(Parser *p, Node *specs, Node *list, Loc loc);
void begin_kr_params(Parser *p, Node *init_decl, Loc loc);
void declare(Parser *p, Node *init_decl);
void declare_params(Parser *p, Node *declarator);
void declare_tag(Parser *p, Node *tagged, bool defines);
/* yield and await belong to coroutine bodies (the file parse sees them all). */
void outside_check(Parser *p, const char *word, Loc loc);

/* {=====================================================================
 * external.c: the file parse, one external declaration at a time
 * ====================================================================== */

/* A function body is entered: its parameters come into scope. A
   coroutine's body is skipped by the file parse when its second parse has
   made its tree: true, to drop the '{' the parser may have read ahead. */
bool body_begin(Parser *p, Node *declarator);
Node *funcdef_end(Parser *p, Node *specs, Node *declarator, Node *body, Loc loc);
/* The end of an external declaration of the file parse: its tree goes back. */
void external_done(Parser *p, Loc loc);
/* A declaration or definition was parsed: if it is a coroutine's (of the
   file parse), where its second parse starts among the original tokens,
   else -1. */
int coroutine_start(Parser *p, Node *specs, Node *n, bool is_def, Loc loc);
/* Its second parse made `unit` of original tokens [start, end): the coroutine found. */
void coroutine_record(Parser *p, Node *unit, int start, int end);

/* {=====================================================================
 * syntax_error.c: the messages of syntax errors
 * ====================================================================== */

/* Where a token stands, as the user wrote it. */
Pos token_pos(Parser *p, int index);
/* The parser stopped at token `at`, where it could have taken the tokens
   named `expected` (bison's names: "';'", "IDENTIFIER", ...); `typedef_name`:
   the token it stopped at is a type name. */
_Noreturn void syntax_error(Parser *p, int at, const char **expected, int n, bool typedef_name);
/* bison's own errors (its stack full: the input nested too deeply). */
void yyerror(Loc *loc, Parser *p, const char *msg);
/* A coroutine declared without a type. */
_Noreturn void refuse_implicit_int(Parser *p, int specs, int after);

#endif
