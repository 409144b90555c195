/* pp.h: what the files of coroc-lsp's own macro expander share (expand.c
 * says why the server has one). Its files, lowest first:
 *   pplex.c   C's preprocessing tokens of a text, as gcc's preprocessor
 *             reads them (its line splices, comments, the lines they are on)
 *   ppif.c    the value of an #if expression, in intmax_t and uintmax_t
 *   ppmacros.c  a #define read and printed again; the table of the macros a
 *             preamble left
 *   expand.c  the macros, the directives, and the text `cc -E -dD` prints
 * Every one of them answers "cannot" (a longjmp to the caller's jmp_buf) at
 * what it does not do exactly as gcc does: the server then runs the
 * preprocessor as before.
 */
#ifndef COROC_LSP_PP_H
#define COROC_LSP_PP_H

#include "lsp.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
  K_EOF,    /* the end of the text, or of a macro argument */
  K_EOD,    /* the end of a directive's line */
  K_PAD,    /* gcc's padding: no token, a say in the spacing of the next */
  K_IDENT,  /* an identifier */
  K_NUMBER, /* a pp-number */
  K_CHAR,   /* a character constant, its prefix (L, u, U) included */
  K_STRING, /* a string literal, its prefix (L, u, U, u8) included */
  K_PUNCT,  /* a punctuator */
  K_OTHER,  /* a character that is none of those (a stray \, @, `) */
} TokKind;

enum {
  F_WHITE = 1,     /* whitespace before it (gcc's PREV_WHITE) */
  F_BOL = 2,       /* the first token of its line */
  F_NOEXP = 4,     /* a macro's name met inside its own expansion: never expanded */
  F_PASTE = 8,     /* in a macro's body: the left operand of ## */
  F_STR = 16,      /* in a macro's body: the operand of # */
  F_PARAM = 32,    /* in a macro's body: a parameter (PPTok.arg) */
  F_SYS = 64,      /* spelled in a macro defined in a system header */
  F_BUILTIN = 128, /* what __LINE__ and its kind expanded to */
};

typedef struct {
  const char *s; /* the spelling, line splices taken out */
  int len;
  int line; /* the line it stands on in the output: its own, or where its expansion began */
  unsigned char kind, flags;
  short arg; /* F_PARAM: the parameter's index; K_PAD: its source's F_WHITE, -1: no source */
} PPTok;

/* The reading of one text: the body of a document, a macro's definition,
   or the result of ##. */
typedef struct {
  const char *p, *end;       /* the text not yet read */
  const char *base;          /* its start */
  const char *counted;       /* the lines before here are in `line` */
  int line;                  /* the line at `counted` */
  const size_t *splices;     /* where a line break was spliced out, offsets from base, in order */
  int nsplices, next_splice; /* ... and the first not yet counted */
  bool bol;                  /* no token read on this line yet */
  bool skipping;             /* in a group #if skips: what is not C is no error */
  bool args_white;           /* collecting a macro's arguments: a line's first token has F_WHITE */
  jmp_buf *fail;
} PPLexer;

/* The text with its line splices (backslash, blanks, newline) taken out and
   CR LF made LF, malloc'd; the offsets of the splices in *splices (malloc).
   NULL for a text with a NUL byte. */
char *pp_clean(const char *text, size_t len, size_t *out_len, size_t **splices, int *nsplices);
void pplex_init(PPLexer *l, const char *text, size_t len, int line, jmp_buf *fail);
/* The next token. In a directive (`in_directive`), the end of the line is
   K_EOD, and stays so until pplex_line_end passes it. */
PPTok pplex(PPLexer *l, bool in_directive);
void pplex_line_end(PPLexer *l);
/* Is the token spelled s? */
bool pp_is(const PPTok *t, const char *s);
/* Would a and b, printed with nothing between them, read as other tokens?
   (gcc's cpp_avoid_paste: where its output puts a space.) */
bool pp_avoid_paste(const PPTok *a, const PPTok *b);

/* An #if expression, read a token at a time from next() (macros expanded,
   K_EOD at its end); `defined` reads its operand itself (defined(), with
   the expansion of macros held off) and says whether it is a macro. */
typedef struct {
  PPTok (*next)(void *ctx);
  bool (*defined)(void *ctx);
  void *ctx;
  bool unsigned_char; /* __CHAR_UNSIGNED__: the value of '\377' */
  jmp_buf *fail;
} PPExpr;

bool ppif_eval(PPExpr *x);

/* {==================================================================
 * ppmacros.c: macros
 * =================================================================== */

/* Memory given back all at once (a run's, a table's). */
typedef struct Chunk {
  struct Chunk *next;
  size_t used, cap;
  max_align_t data[];
} Chunk;

typedef struct {
  Chunk *head;
} PPArena;

void *pp_alloc(PPArena *a, size_t n);
void pp_free_all(PPArena *a);

/* Tokens in an arena. */
typedef struct {
  PPTok *v;
  int n, cap;
} Toks;

void push_tok(Toks *ts, PPArena *a, PPTok t);

typedef struct Macro Macro;
struct Macro {
  const char *name;
  int len;
  unsigned hash;
  bool func, variadic;
  bool bad;  /* a definition not read here (it cannot be expanded, but is defined) */
  bool gone; /* the body's #undef, in a run's own definitions */
  int nparams;
  PPTok *params;
  PPTok *body;
  int nbody;
  int active; /* its expansions being read now: it is not expanded again */
  Macro *next;
};

unsigned hash_of(const char *s, int n);
bool named(const Macro *m, const PPTok *t, unsigned h);
/* A #define's text after `define` (the lexer there): the macro (in a), or
   NULL when it is no definition, or not one read here. Its tokens have the
   flags of `origin`: F_SYS (a system header's), F_BUILTIN (gcc's), 0. */
Macro *read_define(PPLexer *l, PPArena *a, unsigned origin);
/* `#define NAME(params) body`, as gcc's -dD prints it (no newline). */
void print_define(FILE *f, const Macro *m);
/* The table's macro of that name (h: its hash_of), or NULL. */
Macro *table_find(const MacroTable *t, const PPTok *name, unsigned h);
bool table_strict(const MacroTable *t);        /* the ISO modes (__STRICT_ANSI__) */
bool table_unsigned_char(const MacroTable *t); /* __CHAR_UNSIGNED__ */

#endif
