/* coroc.h: the transformer's internal header (output/output.h has the output stage's part).
 *
 * The pipeline (docs/design.md), a folder a stage, one pass a file:
 *   front/source.c  read the .coc, run the system preprocessor on it, tokenize
 *                   the preprocessed text (what the compiler sees) and, when
 *                   needed, the original text (what the user wrote, macros
 *                   unexpanded)
 *   front/parser.y  parse the preprocessed text whole (headers included), so
 *                   that every typedef name is known and every syntax error
 *                   reported; then parse each coroutine definition again from
 *                   the original tokens, which is what the output is made of
 *   passes/check.c  the coroutine rules, for both backends; resume points numbered
 *   passes/frame.c  what lives in each frame, under which names
 *   passes/lower.c  each stackless body as lines of C
 *   output/emit.c   print the output: the user's text verbatim outside
 *                   coroutines, each coroutine by its backend (emit_stackless.c,
 *                   emit_stackful.c), made of the user's tokens by text.c
 * all on support/ (diagnostics, memory), and driven by main.c. A file calls
 * only files of its own stage or an earlier one (tests/layers/layers.txt);
 * the writer and text.c, in output/, stand below the passes: the lowering
 * writes through them. The blocks below go in that order.
 */
#ifndef COROC_H
#define COROC_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct Token Token;
typedef struct Node Node;
typedef struct Sym Sym;
typedef struct Coroutine Coroutine;
typedef struct Facts Facts; /* output/facts.h */
typedef struct Preprocessor Preprocessor;

/* {=====================================================================
 * support/diag.c: the one diagnostic format
 * ====================================================================== */

/* A source position as the user sees it. */
typedef struct {
  const char *file; /* the name to print (the input's name, or a header's) */
  int line;         /* 1-based */
  int col;          /* 1-based, in bytes */
  int len;          /* the bytes it spans from col (a token's), 0 if not known */
} Pos;

/* Print "FILE:LINE:COL: error: MSG", the source line and a caret, remove any
   partial output, and exit with status 1. */
_Noreturn void error_at(Pos pos, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same at a token (tok_pos, below: diag.c knows positions, not tokens). */
#define error_tok(tok, ...) error_at(tok_pos(tok), __VA_ARGS__)
/* The same for failures that have no source position (a preprocessor that would not run). */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A bug in coroc itself: "internal error at FILE:LINE". */
#define internal_error(...) internal_error_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void internal_error_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A diagnostic as data, for a program that shows it itself (a language
   server) instead of coroc's stderr. */
typedef enum {
  DIAG_ERROR,    /* error_at: in the input, at pos */
  DIAG_FATAL,    /* fatal: no position (pos.file is NULL) */
  DIAG_INTERNAL, /* internal_error: a bug in coroc (pos: coroc's own source file and line) */
} DiagKind;
typedef struct {
  DiagKind kind;
  Pos pos;
  const char *message; /* the text after "error: ", without the newline */
} Diagnostic;
/* Send every diagnostic to fn (with ctx) instead of printing it; NULL: print again. Kept across
   coroc_reset: it belongs to the program, not to one run. What the run does after the report (exit,
   or the longjmp to *diag_escape) is unchanged. */
void diag_set_sink(void (*fn)(const Diagnostic *d, void *ctx), void *ctx);
/* Register the text of a file so that diagnostics can print its lines. */
void diag_add_file(const char *name, const char *text, size_t len);
/* A function to call once before any error is reported (source.c: a
   preprocessor's own failure comes first), or NULL. */
void diag_before_error(void (*fn)(void));
/* A file to delete if coroc stops with an error (a temporary output or depfile). */
void diag_remove_on_error(const char *path);
/* While `to` is set (not NULL), an error is neither said nor acted on: it
   longjmps to *to (the streaming run then runs again whole: stream.c). */
void diag_hold(jmp_buf *to);

/* {=====================================================================
 * support/memory.c: allocation that cannot fail quietly, and arenas
 * ====================================================================== */

/* What these give is freed with xfree, or at the end of the run with
   everything else (memory_release, below). */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void *xappend(void *p, size_t n, size_t size); /* room for p[n], p growing (memory.c) */
void xfree(void *p);
char *xstrndup(const char *s, size_t n);
/* Ask for huge pages under a large block that is about to be written whole. */
void advise_huge_pages(void *p, size_t size);
/* The same for a block reserved beyond what may be written: past its first 8 MiB. */
void advise_huge_pages_reserved(void *p, size_t size);
/* A region: every block taken between begin and end goes back at its end
   (the streaming run: each coroutine's passes and printing, stream.c) ... */
void memory_region_begin(void);
void memory_region_end(void);
/* ... but for a block of lasting state made in it (a table made when first
   needed), which memory_keep takes out of the region; p is returned. */
void *memory_keep(void *p);
void memory_release_arenas(void); /* the arenas emptied, their blocks kept (the heap stays) */

/* Arenas: zeroed memory handed out in order, given back in one piece. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena Arena; /* (memory.c) */
typedef struct {
  ArenaBlock *block; /* the block being filled when the mark was taken */
  size_t used;       /* and how much of it was used */
} ArenaMark;
extern Arena arena_tree; /* nodes, node lists and symbols: a plain function's body goes back */
extern Arena arena_perm; /* what lives to the end: file-scope symbols, kept declarations */
void *arena_alloc(Arena *a, size_t size);
ArenaMark arena_mark(Arena *a);
void arena_release(Arena *a, ArenaMark m);

/* {=====================================================================
 * support/memstream.c: text built in memory
 * ====================================================================== */

char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *vformat(const char *fmt, va_list ap);
/* fprintf, fast on %s and %d only; _line: `spaces` blanks (<= 128), the text, a new line. */
void xfprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xvfprintf_line(FILE *f, size_t spaces, const char *fmt, va_list ap);
/* open_memstream: *buf and *len are set by memstream_close, which keeps the
   stream for the next one, or by fclose; *buf is freed with xfree. */
FILE *xmemstream(char **buf, size_t *len);
int memstream_close(FILE *f);   /* 0 */
size_t memstream_tell(FILE *f); /* where ftell would be (it cannot say): the bytes written */

/* Running the pipeline again and again in one process (a language server, the fuzz harness,
   tests/reset): an error in the input longjmps to *diag_escape when it is set, instead of exiting
   (coroc_try in run.c sets it; the fuzz build's internal error still aborts); coroc_reset()
   (reset.c) then gives back all that a run left (memory, symbol tables, macros, token notes, a
   preprocessor still running), so that the next run starts as a new process would. Each part: */
#include <setjmp.h>
extern jmp_buf *diag_escape;
void coroc_reset(void);
/* coroc_reset but the heap's blocks and arenas: what tests/reset shows its
   heap check catches (a run that gives back everything else). */
void coroc_reset_keeping_heap(void);
void diag_release(void); /* diag.c: the files known to diagnostics */
void diag_restart(void); /* diag.c: the same, but the files to remove on an error */
/* coroc_reset but the heap (the caller's blocks are in it) and the files to
   remove on an error: before a streaming run that gave up runs again whole */
void coroc_restart(void);
void memory_release(void);    /* memory.c: every block, and the arenas emptied */
void memstream_release(void); /* memstream.c: the streams an error left open */
void scope_release(void);     /* scope.c */
void macros_release(void);    /* macros.c */
void source_release(void);    /* source.c: the token notes */
void tokens_release(void);    /* tokens.c: the spellings (their mapping) and their table */
void lexer_release(void);     /* lexer.l: unterminated literals; the room of the stream tokens */
void lines_release(void);     /* lines.c: the numbers of `#line MACRO` directives */
void cleanup_release(void);   /* cleanup.c: the plan of the last coroutine lowered */

/* {=====================================================================
 * front/source.c, lexer.l, tokens.c: the input and its tokens
 * ====================================================================== */

/* What the scanner saw. Punctuators and keywords carry the parser's token
   code in Token.code; TK_* says which family a token belongs to. */
typedef enum {
  TK_IDENT,     /* identifier or keyword (keywords are told apart by the parser's lexer hook) */
  TK_NUMBER,    /* a preprocessing number */
  TK_CHAR,      /* a character constant, any prefix */
  TK_STRING,    /* a string literal, any prefix */
  TK_PUNCT,     /* a punctuator */
  TK_DIRECTIVE, /* a whole preprocessor line of the original text (kept, never parsed) */
  TK_EOF,       /* the end of the input */
} TokenKind;

/* 16 bytes: the two lists of tokens are most of a run's memory. A token names its spelling by an
   offset (in token_spellings), not a pointer, and keeps no byte offset: one of the user's own finds
   it from its line and column (token_offset), and no other needs one. What the passes learn of the
   user's own tokens is kept beside them (source.c, token notes). */
struct Token {
  /* the spelling, NUL-terminated (tok_text): interned (tokens.c), or a copy for strings and
     directives; its offset in token_spellings */
  unsigned spelling;
  int line;           /* where it stands: line (1-based) ... */
  unsigned col;       /* ... column (1-based, in bytes) ... */
  unsigned file : 15; /* ... and file (an index of file_name) */
  /* the parser's token code (punctuators); 0 until the parser classifies it */
  unsigned code : 10;
  unsigned kind : 3; /* TokenKind: its family */
  bool space : 1;    /* whitespace (or a comment) came before it on its line */
  bool bol : 1;      /* it is the first token on its line */
  bool in_main : 1;  /* it comes from the .coc itself, not from a header */
  bool dead : 1;     /* original tokens: in a conditional group the preprocessor skipped */
};
_Static_assert(sizeof(Token) == 16, "the token lists are most of a run's memory");

/* tokens.c: every spelling of the run, in one mapping that never moves.
   Its first byte is a NUL: an all-zero token reads as "". */
extern char *token_spellings;
static inline const char *tok_text(const Token *t) { /* a token's spelling, NUL-terminated */
  return token_spellings + t->spelling;
}

/* tokens.c: files by number (a token keeps 15 bits, not a pointer). */
unsigned file_number(const char *interned_name);
const char *file_name(unsigned number);

/* Where a token stands. */
static inline Pos tok_pos(const Token *t) {
  return (Pos){file_name(t->file), t->line, (int)t->col, (int)__builtin_strlen(tok_text(t))};
}

/* The offset in token_spellings of one that intern or copy_spelling made. */
unsigned spelling_offset(const char *spelling);

/* tokens.c: the one copy of a spelling (identifiers, keywords, punctuators,
   numbers): equal spellings give equal pointers. */
const char *intern(const char *s, size_t len);
/* ... of a string literal: INTERN("yield") */
#define INTERN(word) intern(word, sizeof word - 1)
/* An interned word's keyword code (parser.h's T_*), 0 if none. */
int name_keyword(const char *interned);
/* An interned spelling's hash. */
unsigned interned_hash(const char *interned);
/* A spelling kept as it is, not interned (string literals, directive lines). */
char *copy_spelling(const char *s, size_t len);

/* A growable array of tokens; the parser pulls from it in order. */
typedef struct {
  Token *v; /* the tokens, v[n] is TK_EOF */
  int n;    /* count, not counting the TK_EOF */
  int cap;  /* allocated */
} TokenList;

/* lexer.l: scan len bytes of text named `file` into toks. With `preprocessed`, the text is the
   output of the C preprocessor: linemarkers set the file and line, and `main_file` is the name the
   preprocessor gives the .coc (its tokens get the name `file`); other directive lines become
   TK_DIRECTIVE tokens. Without it, the text is the user's .coc: each directive line becomes one
   TK_DIRECTIVE token. */
void tokenize(const char *file, const char *text, size_t len, bool preprocessed,
              const char *main_file, TokenList *toks);
/* The same for the user's own text, not preprocessed, where text[len] and
   text[len + 1] are NULs: scanned where it is, not copied first (flex
   writes into it as it scans, and puts each byte back). */
void tokenize_in_place(const char *file, char *text, size_t len, TokenList *toks);

/* lexer.l: the scan of a stream (the preprocessor's output, read from fd as it comes), in batches:
   stream_more scans until toks->n > want, or to the end of the text (then it adds the TK_EOF and
   answers false). The tokens never move. Linemarker lines are copied to markers if not NULL.
   scan_original, if not NULL, is called before an error in the text is reported: it has the user's
   own text scanned, whose columns the error points at (source.c: the scanner cannot name it). */
typedef struct TokenStream TokenStream;
TokenStream *stream_open(int fd, const char *file, const char *main_file, TokenList *toks,
                         FILE *markers, void (*scan_original)(void));
bool stream_more(TokenStream *ts, int want);

/* The input, read and prepared by source.c. */
typedef struct {
  const char *name; /* the name diagnostics and #line use ("<stdin>" for -) */
  /* the whole original text as read, NUL-terminated: what the output copies */
  const char *raw;
  char *text; /* the same, as coroc scans it (a lone CR made an LF: source.c); two NULs after it */
  size_t len; /* its length */
  TokenList expanded;   /* the preprocessed translation unit */
  TokenList original;   /* the .coc's own tokens, macros unexpanded: scanned when first needed */
  int original_from;    /* ... those before it were given back (source_drop_original) */
  bool original_ready;  /* ... and they have been */
  bool *line_live;      /* [line] the preprocessed text has tokens (or text) from this line */
  bool *directive_live; /* [line] the preprocessor kept the directive on this line (-dD) */
  bool *line_passed;    /* [line] the scan passed over it, text and all (source_pass_over) */
  int nlines;           /* lines in the original */
  int lines_marked;     /* ... marked for the preprocessed tokens before this one */
  int line_reached;     /* ... the last line of the .coc they came to */
  bool out_of_order;    /* ... a line of the .coc came after a later one */
  bool as_they_come;    /* the streaming run: a line settled once the stream is past it */
  int dead_from;        /* the original tokens before it have their `dead` settled */
  unsigned *line_start; /* [line] the offset in text of its first byte: made with the original */
  int *line_token;      /* [line] the first original token on it or after it: ... and this */
  bool has_line_directives;        /* the .coc has #line directives of its own */
  struct LineDirective *line_dirs; /* its live ones, in order (lines.c, logical_line) */
  int nline_dirs;                  /* how many; -1 until they are looked for */
  struct Preprocessor *cpp;        /* the preprocessor while it runs (source.c) */
  const char *cpp_text; /* -MD: the preprocessor's linemarker lines (depfile.c reads them) */
  size_t cpp_len;       /* its length */
} Source;

/* Where a token of the user's own text (Source.original) starts in it, and
   where it ends (its spelling is the text's own bytes). */
static inline size_t token_offset(const Source *src, const Token *t) {
  return src->line_start[t->line] + t->col - 1;
}
static inline size_t token_end(const Source *src, const Token *t) {
  return token_offset(src, t) + __builtin_strlen(tok_text(t));
}

/* Options that reach the preprocessor. */
typedef struct {
  const char **args; /* -I DIR, -D NAME=VALUE, ... as separate argv words */
  int nargs;
  bool keep_output; /* keep what it printed in Source.cpp_text (-MD: depfile.c reads it) */
  int output_fd;    /* > 0: its output, made already (lsp/preamble.c), read instead of running it */
} CppArgs;

/* The preprocessor's command for the input (NULL-terminated, in the run's memory). */
const char **source_cpp_argv(const char *path, const char *text, size_t len, const CppArgs *args);
void source_load(Source *src, const char *path, const CppArgs *cpp);
/* The same with the text given (len bytes, copied) instead of read from
   `path`, which names it (an editor's buffer, not yet saved). */
void source_load_buffer(Source *src, const char *path, const char *text, size_t len,
                        const CppArgs *cpp);
/* The preprocessed tokens come as the preprocessor writes them: is token
   `index` there (scanning more if needed)? source_finish: all of them. */
bool source_more(Source *src, int index);
void source_finish(Source *src);
#ifdef COROC_FUZZING
/* source_load without the preprocessor, for the fuzz harness: the text (len
   bytes, any bytes) is both the original and, after `prelude` (preprocessed
   text of headers, or NULL), the preprocessed input (source.c says how). */
void source_load_text(Source *src, const char *name, const char *text, size_t len,
                      const char *prelude);
#endif

/* Token notes: what the parse and the passes learn about the user's own
   tokens (Source.original), kept beside them. Asked of any other token
   (a header's, a macro's), they answer NULL, and setting one is ignored. */
Sym *token_sym(const Token *t); /* the declaration a name refers to */
void token_set_sym(const Token *t, Sym *s);
/* the type definition this keyword starts, moved to file scope */
Node *token_hoisted(const Token *t);
void token_set_hoisted(const Token *t, Node *n);
/* the compound literal this '(' starts, kept in the frame */
Node *token_literal(const Token *t);
void token_set_literal(const Token *t, Node *n);
/* Where coro.h is (beside an installed coroc, or in its source tree). */
const char *source_runtime_include(void);
/* The directory of a path ("." for a bare name or standard input). */
char *source_dir_of(const char *path);
/* Can c be part of an identifier (GNU C allows `$`)? (tokens.c) */
bool is_ident_char(char c);
/* Where the preprocessed token `index` stands in the user's text. */
Pos source_original_pos(Source *src, int index);
/* The index of the original token that the preprocessed token `index` comes from, or -1. */
int source_find_original(Source *src, int index);
/* The user's tokens up to index `upto` have their `dead` settled (the
   streaming run reads the preprocessor's output further if it must). */
void source_settle_original(Source *src, int upto);

/* front/lines.h: the input's own #line directives (lines.c), for the
   scanner, the reader and the writers. */

/* {=====================================================================
 * front/ast.c: the syntax tree
 * ====================================================================== */

typedef enum {
  /* statements */
  ND_BLOCK,      /* { items }: kids */
  ND_DECL,       /* a declaration: specs, the init-declarators in kids */
  ND_EXPR_STMT,  /* expr; (expr NULL for the empty statement) */
  ND_IF,         /* if (cond) then else otherwise */
  ND_SWITCH,     /* switch (cond) body */
  ND_WHILE,      /* while (cond) body */
  ND_DO,         /* do body while (cond); */
  ND_FOR,        /* for (init; cond; step) body: init an ND_DECL or ND_EXPR_STMT */
  ND_GOTO,       /* goto label (tok) or goto *expr */
  ND_CONTINUE,   /* continue; */
  ND_BREAK,      /* break; */
  ND_RETURN,     /* return expr; */
  ND_LABEL,      /* tok: body */
  ND_CASE,       /* case value: body, or case value ... high: body */
  ND_DEFAULT,    /* default: body */
  ND_YIELD,      /* yield expr; (expr NULL: bare yield;); target = yield expr; (flags: YIELD_*) */
  ND_ASM_STMT,   /* __asm__ (...); kept as written; expr: its operands' names (build.c, asm_node),
                    flags: ASM_GOTO */
  ND_LABEL_DECL, /* __label__ a, b; kept as written */
  ND_STATIC_ASSERT, /* _Static_assert(...); kept as written */
  ND_PRAGMA,        /* _Pragma("...") among a block's items; kept as written */
  ND_DIRECTIVE,     /* a preprocessor line inside a body, kept in place */
  /* declarations */
  ND_SPECS,       /* declaration specifiers: flags, the specifier nodes in kids */
  ND_SPECIFIER,   /* one word of the specifiers (a storage class, qualifier, built-in type
                     word, attribute): flags its SP_* (the other specifiers are ND_TAGGED,
                     ND_IDENT of a typedef name, ND_SIZEOF of typeof) */
  ND_INIT_DECL,   /* declarator = init (init NULL if none); specs: its declaration's (shared, not
                     a child); sym: what it declares */
  ND_DECLARATOR,  /* tok: the name (NULL if abstract); kids: derivations, innermost last */
  ND_POINTER,     /* a derivation: * qualifiers */
  ND_ARRAY,       /* a derivation: [size]; tok: the '[' */
  ND_FUNC,        /* a derivation: (params in kids) */
  ND_PARAM,       /* specs declarator (declarator abstract or NULL) */
  ND_TAGGED,      /* struct/union/enum specifier: tok is the tag (or NULL), has_body */
  ND_ENUMERATOR,  /* tok: name, value or NULL */
  ND_TYPENAME,    /* specs declarator (abstract, or NULL) */
  ND_INIT_LIST,   /* { ... } initializer: kids, each with its designation or NULL */
  ND_DESIGNATION, /* `[2] =`, `.x =` before an element of an initializer list, kept as written */
  /* expressions: only what lowering needs to see is told apart */
  ND_IDENT,     /* tok: identifier; tok->sym says what it names */
  ND_AWAIT,     /* await expr */
  ND_STMT_EXPR, /* ({ block }) */
  ND_SIZEOF,    /* sizeof/_Alignof/typeof operand that C does not evaluate: expr */
  ND_EXPR,      /* any other expression: op says which; operands lhs, rhs (and cond, then,
                   otherwise of `?:`); a call's arguments in kids */
  /* the file */
  ND_FUNCDEF,          /* specs declarator body */
  ND_TRANSLATION_UNIT, /* kids: external declarations */
} NodeKind;

/* Storage classes and other specifier flags of ND_SPECS. */
enum {
  SP_TYPEDEF = 1 << 0,
  SP_EXTERN = 1 << 1,
  SP_STATIC = 1 << 2,
  SP_AUTO = 1 << 3,
  SP_REGISTER = 1 << 4,
  SP_THREAD = 1 << 5,
  SP_COROUTINE = 1 << 6, /* the word `coroutine` */
  SP_CONST = 1 << 7,
  SP_VOID = 1 << 8,      /* the type specifier is exactly void */
  SP_TYPE = 1 << 9,      /* some type specifier was given */
  SP_VOLATILE = 1 << 10, /* volatile or _Atomic: every access must reach memory */
  /* an attribute or _Alignas: what it asks of storage is kept where it is */
  SP_ATTRIBUTE = 1 << 11,
  /* a type coroc cannot see through: __builtin_va_list, __auto_type, _Atomic(T) */
  SP_OPAQUE = 1 << 12,
};

/* Where a yield stands (ND_YIELD's flags): only a plain statement, `yield;`
   or `yield EXPR;`, or the statement `LVALUE = yield EXPR;` is accepted. */
/* ND_WHILE's flags: its head is a macro's use (`TAILQ_FOREACH(v, h, f)`: cond, printed as it is;
   `forever`: an ND_IDENT), whose expansion is a `for` or `while` (macros.c). */
enum { LOOP_MACRO_HEAD = 1 };
/* ND_ASM_STMT's flags: `asm goto`, which may jump to any label of the body. */
enum { ASM_GOTO = 1 };

enum {
  YIELD_COMPOUND = 1 << 0, /* `target += yield expr` and the like: refused */
  YIELD_IN_EXPR = 1 << 1,  /* inside an expression, not a statement of its own: refused */
  YIELD_IN_INIT = 1 << 2,  /* an initializer `T x = yield expr`: refused */
};

/* The parser's limit on nesting (its stack depth, in grammar symbols): brackets, prefix operators,
   right-leaning chains (`a = b = c`, `?:`), nested statements. */
#define COROC_MAX_NESTING 1000000

/* The widest column that the operand of a yield or an await is put back at (lower.c at_own_column,
   emit_stackful.c realign): a person's line is narrower; a machine-made line of 30,000 yields gets
   no padding, which would grow with the square of its length. */
#define COROC_MAX_ALIGN_COLUMN 400

/* A list of nodes. */
typedef struct {
  Node **v; /* the nodes */
  int n;    /* count */
  int cap;  /* allocated */
} NodeList;

typedef struct {
  Sym **v; /* the symbols */
  int n;   /* count */
  int cap; /* allocated */
} SymList;

/* A node's children are named by what they are for its kind (see NodeKind).
   Four slots hold them; the names of one slot are aliases, so that a walk
   that does not care what a child is can take them in order (node_child). */
struct Node {
  union {          /* slot 1 */
    Node *cond;    /* ND_IF, ND_SWITCH, ND_WHILE, ND_DO, ND_FOR; `?:` */
    Node *expr;    /* ND_EXPR_STMT, ND_RETURN, ND_YIELD, ND_AWAIT, ND_SIZEOF, ND_GOTO */
    Node *specs;   /* ND_DECL, ND_INIT_DECL, ND_PARAM, ND_TYPENAME, ND_FUNCDEF */
    Node *value;   /* ND_CASE, ND_ENUMERATOR */
    Node *size;    /* ND_ARRAY (NULL for []) */
    Node *lhs;     /* ND_EXPR: the first operand (a call's function, a cast's ND_TYPENAME) */
    Node *operand; /* ND_EXPR: a unary operator's one operand (the same slot as lhs) */
    Node *block;   /* ND_STMT_EXPR: its compound statement */
    /* ND_TAGGED of a struct or union in a coroutine: an ND_DECL of ND_DECLs, its members (each a
       specs and declarators), which visit does not enter (names_in_type does) */
    Node *members;
  };
  union {             /* slot 2 */
    Node *then;       /* ND_IF; `?:` (NULL for GNU `a ?: b`) */
    Node *declarator; /* ND_INIT_DECL, ND_PARAM, ND_TYPENAME, ND_FUNCDEF */
    Node *step;       /* ND_FOR */
    Node *high;       /* ND_CASE: the end of a GNU case range */
    Node *rhs;        /* ND_EXPR: the second operand (a cast's operand) */
    Node *target;     /* ND_YIELD: the lvalue of `target = yield expr;`, which receives the value
                         sent (evaluated after the suspension, so walked after expr) */
  };
  union {            /* slot 3 */
    Node *otherwise; /* ND_IF (the else branch); `?:` */
    Node *init;      /* ND_INIT_DECL: its initializer; ND_FOR: the init clause */
  };
  union {              /* slot 4 */
    Node *body;        /* ND_SWITCH, ND_WHILE, ND_DO, ND_FOR, ND_LABEL, ND_CASE, ND_DEFAULT,
                          ND_FUNCDEF */
    Node *designation; /* any element of an initializer list: its designators, or NULL (so no
                          expression's own child may take this slot) */
  };
  NodeList kids;     /* children in order, by kind */
  Token *tok;        /* the representative token: for diagnostics and names */
  Sym *sym;          /* ND_INIT_DECL, ND_TAGGED, ND_ENUMERATOR, ND_PARAM: the symbol declared;
                        ND_IDENT: the one named; ND_AWAIT of a task: the coroutine */
  union {            /* one string, named by what it is for the node's kind: */
    const char *tag; /* ND_TAGGED: the generated tag of an anonymous hoisted type */
    /* ND_AWAIT: the coroutine awaited (a task), or NULL (an awaitable operation) */
    const char *callee;
    const char *field; /* ND_EXPR OP_COMPOUND_LITERAL kept in the frame: its field (coro_lit_N) */
  };
  union {
    const char *type;        /* ND_AWAIT of an operation: the awaitable's type, as C text */
    const char *heap_reason; /* ND_AWAIT of a task whose frame is on the heap: why (--stats) */
  };
  Coroutine *inline_child; /* ND_AWAIT of a task defined above in the file: its frame lives in
                              the awaiting frame (check.c, "Children inside their parent") */
  int first;               /* index of its first token (in the token list it was parsed from) */
  int last;                /* index of its last token; last < first for an empty node */
  union {                  /* a small number, named by what it is for the node's kind: */
    int flags;             /* SP_* (ND_SPECS), SP_TYPE: typeof (ND_SIZEOF), YIELD_*, ASM_GOTO */
    int op;                /* ND_EXPR: which operator (Op) */
  };
  union {             /* one number, named by what it is for the node's kind: */
    int resume_point; /* ND_YIELD, ND_AWAIT: its number */
    int cond_number;  /* ND_EXPR && or || whose right side awaits: its coro_cond_N */
  };
  unsigned char kind; /* NodeKind: what it is */
  bool has_body : 1;  /* ND_TAGGED: has a { member list } */
  bool variadic : 1;  /* ND_FUNC: its parameters end in `...` (also the params list while parsed) */
  /* an expression whose value is not used (a statement's, a comma's left, a (void) cast's) */
  bool discarded : 1;
  bool sole_await : 1; /* ND_AWAIT: the only await of its full expression (check.c): a child inside
                          the frame is read where it ended, no other can take its place before */
  bool awaits : 1;     /* check.c: an await stands in this subtree (set by mark_awaits) */
  bool selects : 1;    /* check.c: a `?:` with an await in an arm stands in this subtree */
};

Node *new_node(NodeKind kind, int first, int last);
void list_push(NodeList *l, Node *n);  /* a list of the passes (malloc'd) */
void node_add_kid(Node *n, Node *kid); /* a tree node's kids (in the tree's arena) */
Node *node_list(NodeKind kind, int first, int last, Node *item);
Node *node_append(Node *list, Node *item, int last);
void ast_dump(FILE *out, const Node *n, int depth);

/* The one walk over a tree: depth first, children in source order (a for loop's init before its
   condition, step and body). `pre` sees a node before its children and returns false to skip them;
   `post` (may be NULL) sees it after them. The walk keeps its own stack on the heap, so a chain of
   a million operators costs no C stack. */
typedef bool VisitPre(Node *n, void *ctx);
typedef void VisitPost(Node *n, void *ctx);
void visit(Node *root, VisitPre *pre, VisitPost *post, void *ctx);
/* The i-th child in source order, for i = 0, 1, ...; NULL past the last
   (a missing optional child is skipped, never returned as NULL). */
Node *node_child(const Node *n, int *i);

/* The operators of ND_EXPR (Node.op). Operands are lhs and rhs in the order
   they are written; a unary operator has its operand in lhs (alias operand). */
typedef enum {
  OP_COMMA = 1,  /* lhs, rhs */
  OP_ASSIGN,     /* lhs = rhs */
  OP_ASSIGN_OP,  /* lhs op= rhs: *=, /=, %=, +=, -=, <<=, >>=, &=, ^=, |= (tok: the operator) */
  OP_COND,       /* cond ? then : otherwise (then NULL for GNU `cond ?: otherwise`) */
  OP_OR,         /* lhs || rhs */
  OP_AND,        /* lhs && rhs */
  OP_BINARY,     /* any other binary operator: | ^ & == != < > <= >= << >> + - * / % */
  OP_CAST,       /* (lhs) rhs: lhs an ND_TYPENAME */
  OP_ADDRESS,    /* &operand */
  OP_DEREF,      /* *operand */
  OP_UNARY,      /* + - ~ ! operand, ++operand, --operand */
  OP_POSTFIX,    /* operand++, operand-- */
  OP_LABEL_ADDR, /* &&label */
  OP_REAL,       /* __real__ operand */
  OP_IMAG,       /* __imag__ operand */
  OP_INDEX,      /* lhs[rhs] */
  OP_CALL,       /* lhs(kids) */
  OP_MEMBER,     /* lhs.member, lhs->member */
  OP_COMPOUND_LITERAL, /* (lhs){kids}: lhs an ND_TYPENAME */
  OP_PAREN,            /* (operand) */
  OP_NUMBER,           /* a number */
  OP_CHAR,             /* a character constant */
  OP_STRING,           /* string literals, concatenated */
  OP_GENERIC,          /* _Generic(lhs, associations in kids) */
  OP_VA_ARG,           /* __builtin_va_arg(lhs, type) */
} Op;

/* {=====================================================================
 * front/members.c: is a struct's member an array?
 * ====================================================================== */

enum {
  MEMBER_UNKNOWN = -1, /* the definition could not be read plainly: take it as an array */
  MEMBER_NONE = -2,    /* (members.c, while it looks) no member of that name here */
};
/* Member `name` of the struct or union that a body local's `specs` name: 0 if it is not an array, N
   if it is an array of N dimensions, or MEMBER_UNKNOWN. */
int member_dims(const Source *src, const Node *specs, const char *name);

/* {=====================================================================
 * front/types.c: what a declaration says of a type
 * ====================================================================== */

/* Is the declared type an array, looking through typedef names and typeof? ARRAY_MAYBE where
   coroc cannot tell (`__typeof__(s.member) x`): is_array_type says no, for those who must be sure
   it is one; who must be sure it is none asks array_type_kind. */
enum { ARRAY_NO, ARRAY_YES, ARRAY_MAYBE };
int array_type_kind(const Node *specs, const Node *declarator, int depth);
bool is_array_type(const Node *specs, const Node *declarator, int depth);
/* Are the specifiers `__auto_type` (the declared type is the initializer's)? */
bool is_auto_type_specs(const Node *specs, const TokenList *toks);
/* Is it a plain scalar (arithmetic, an enum, a pointer; not volatile or _Atomic; no attribute or
   alignment): a value a C local can hold? */
bool is_plain_scalar(const Node *specs, const Node *declarator, const TokenList *toks, int depth);
enum { QUAL_CONST = 1, QUAL_VOLATILE = 2, QUAL_RESTRICT = 4 }; /* the qualifiers of a type itself */
int specs_qualifiers(const Node *specs, const TokenList *toks); /* written among the specifiers */
int qualifier_of(const char *word); /* QUAL_CONST for `const` and `__const`, ...; 0 if none */
const Sym *typedef_named(const Node *specs); /* the typedef name among them, if coroc read it */
int typedef_qualifiers(const Node *specs, int depth); /* given by the typedef name among them */
/* Each name under specs and declarator, and whether C takes its type alone (`sizeof n`). */
typedef void TypeNameFn(Node *ident, bool type_only, void *ctx);
void names_in_type(const Node *specs, const Node *declarator, TypeNameFn *fn, void *ctx);
/* A name declared in the body (an object, a parameter, a function), which file scope does not see:
   text.c writes it typed where a type outside the body takes its type. */
bool is_body_name(const Sym *s);
/* Does the coroutine f (a symbol) give a value to its awaiter? */
bool task_has_value(const Sym *f);
int declarator_end(const TokenList *toks, const Node *init_decl); /* with attributes after */
/* The last token of `__asm__("r10")` after an explicit register variable's declarator, or -1. */
int register_binding_end(const TokenList *toks, const Node *init_decl);
/* The fn of a `cleanup(fn)` in the attributes in o->v[from..to] (macros seen through), or NULL. */
const char *cleanup_function(const TokenList *o, int from, int to);

/* {=====================================================================
 * front/scope.c: symbols and scopes (the typedef-name feedback, and name resolution)
 * ====================================================================== */

/* external.c: an external declaration of the .coc that declares a type, a tag or an enumeration
   constant (what a header of its frames may copy: emit_header.c). */
typedef struct {
  int first, last;      /* its tokens in Source.expanded */
  bool declares_object; /* it also declares an object or a function */
} External;

typedef enum {
  SYM_OBJECT,    /* a variable or parameter */
  SYM_FUNCTION,  /* a function */
  SYM_TYPEDEF,   /* a typedef name */
  SYM_ENUMCONST, /* an enumeration constant */
  SYM_TAG,       /* a struct, union or enum tag */
} SymKind;

struct Sym {
  SymKind kind;      /* what it names */
  const char *name;  /* its spelling */
  Node *decl;        /* the node that declared it */
  int depth;         /* scope depth: 0 file scope, 1 a function's outermost block, ... */
  int specs;         /* SP_* flags of its declaration */
  Token *tok;        /* the token that named it */
  Coroutine *owner;  /* frame.c: the coroutine whose frame or types hold it, or NULL */
  const char *field; /* frame.c: its name in the frame, or the renamed type/constant */
  int scope_last; /* frame.c: a local in the frame: the last token of the block (or for statement)
                     that declares it, where its scope ends */
  bool in_stmt_expr; /* declared inside a statement expression (stays a real local) */
  bool void_task;    /* a coroutine (its declaration is not kept) that returns void */
  bool lent_type;    /* frame.c: an object of the body named for its type alone by a frame field's
                        type or a hoisted type, where the body no longer names it (lower.c) */
  bool is_array;     /* live.c: a local of array type */
  bool may_be_array; /* live.c: ... or one whose type coroc cannot tell (ARRAY_MAYBE) */
  int live_var;      /* live.c, while it works: 1 + the local's index; 0 for others */
  bool cached;       /* live.c: a local in the frame kept in a C local of the resume function
                        between suspensions: saved to its field as the body suspends, loaded back
                        as it resumes */
  const char *frame_reason; /* live.c: why the local or parameter is in the frame (--stats) */
  const char *cleanup; /* cleanup.c: fn of a local declared __attribute__((cleanup(fn))), or NULL */
  TokenList *toks;     /* the tokens its declaration was parsed from */
  const External *ext; /* external.c: a file-scope typedef name, enumeration constant or tag (for a
                          tag: defined with its members) of the file parse: its declaration */
  Sym *chain;          /* scope.c: the next older symbol in the same hash chain */
};

void scope_reset(void);
void scope_push(void);
void scope_pop(void);
int scope_depth(void);
Sym *scope_declare(SymKind kind, Token *tok, Node *decl, int specs);
Sym *scope_lookup(const char *name);     /* ordinary identifiers */
int scope_declared_count(void);          /* the symbols in scope now, in the order declared ... */
Sym *scope_declared(int i);              /* ... the i-th of them */
Sym *scope_lookup_tag(const char *name); /* struct/union/enum tags */

/* {=====================================================================
 * front/parser.y: the two parses (its C: build.c, external.c, syntax_error.c)
 * ====================================================================== */

/* lower.c's result: a stackless body as lines of C, in order. */
typedef enum {
  LINE_CODE,      /* a line of C */
  LINE_DIRECTIVE, /* a preprocessor line of the body, printed where it stands */
  LINE_RESUME,    /* a resume point's label with the kept locals loaded back: on the coroutine's
                     first line, as the dispatch that jumps there, and the lines after it are
                     numbered as if it were not there (lower.c, resume_label) */
} LineKind;

typedef struct {
  LineKind kind; /* what it is */
  /* LINE_CODE: the .coc line it stands for (0: none); LINE_DIRECTIVE: its token */
  int line;
  int indent;       /* LINE_CODE, LINE_RESUME: its depth */
  const char *text; /* LINE_CODE, LINE_RESUME: the C */
} Line;

typedef struct {
  Line *v; /* the lines */
  int n;   /* count */
  int cap; /* allocated */
} Lines;

/* A coroutine definition or prototype found by the whole-file parse. */
/* live.c: where the locals in the frame go. The fields of sibling blocks
   share storage (a union of one struct per block, emit_stackless.c). */
typedef struct FrameScope FrameScope;
struct FrameScope {
  Node *node;        /* the block or for statement */
  NodeList locals;   /* its locals in the frame (ND_INIT_DECL), in order */
  FrameScope **kids; /* the scopes in it that hold fields, in order */
  int nkids;
  bool linked; /* (while it is built: in its parent's kids) */
};

struct Coroutine {
  const char *name;     /* its name */
  Node *def;            /* the definition parsed from the original tokens (NULL for a prototype) */
  Node *decl;           /* the definition, or the prototype's declaration */
  Node *specs;          /* its declaration specifiers */
  Node *declarator;     /* its declarator (the name and the parameter list) */
  int first, last;      /* its range in the original tokens */
  bool is_prototype;    /* a declaration without a body */
  bool is_static;       /* declared static */
  bool is_generator;    /* it has a `yield EXPR;` */
  bool is_async;        /* a generator that awaits too (an async generator: check.c) */
  bool saw_yield_value; /* its parse met a `yield EXPR` (check_kind_of) */
  bool saw_await;       /* ... an await */
  bool saw_stmt_expr;   /* ... a statement expression `({ ... })` */
  /* ... the first use of a macro that jumps out of it (`TRY(x)`: a goto) or opens or closes a
     block, and of one that returns: jumps the passes do not see (macros.c, "Macros that jump");
     jump_deed: what the first does (JUMPS_*, OPENS_BLOCK, CLOSES_BLOCK) */
  Token *jump_macro, *return_macro;
  int jump_deed;
  bool returns_void;   /* its declared type is void */
  bool awaited_inline; /* some coroutine below awaits it with its frame inside its own (check.c) */
  int nresume;         /* resume points numbered 1..nresume */
  int *resume_lines;   /* [n]: the .coc line of resume point n */
  const char **resume_words; /* [n]: "yield" or "await" */
  bool has_bare_yield;       /* it has a `yield;` */
  Token *first_bare_yield;   /* ... this one, for the message */
  Token *first_await;        /* its first await, for messages */
  Node *first_return_value;  /* its first `return EXPR;`, for messages */
  NodeList locals;           /* ND_INIT_DECL / ND_PARAM nodes whose objects live in the frame */
  NodeList plain_locals;     /* live.c: ND_INIT_DECL nodes of locals that stay ordinary C locals */
  FrameScope *frame_scope;   /* live.c: the locals in the frame by scope (the body's); NULL: flat */
  NodeList types;       /* ND_DECL nodes of types declared in the body, hoisted to file scope */
  NodeList literals;    /* compound literals kept in the frame (Node.field is the field) */
  NodeList awaits;      /* its ND_AWAIT nodes: each has fields coro_aw_N (and coro_tmp_N) */
  int nconds;           /* coro_cond_1..n: the int fields of && and || around an await */
  const char **macros;  /* #define lines, in effect at the coroutine, of the macros its body uses */
  int nmacros;          /* their count */
  SymList *live_at;     /* live.c: [resume point] the cached locals (Sym.cached) live across it */
  SymList *live_across; /* live.c: [resume point] every local live across it (facts.c); or NULL */
  Lines body;           /* lower.c: the stackless body as lines of C */
  bool has_cleanup; /* cleanup.c: a local of its body is declared __attribute__((cleanup(fn))) */
  /* cleanup.c: coro_free of a suspended instance runs cleanups (CORO_CLEANUP) */
  bool runs_cleanups;
  NodeList cleanups; /* cleanup.c: stackless: its locals in the frame that have a cleanup */
  /* cleanup.c: stackless: [resume point] the cleanups in scope there, or NULL */
  char **cleanup_calls;
  Node **cleanup_points; /* cleanup.c: [resume point] its yield or await */
  Coroutine *next;       /* the next one in the file */
};

/* Parse the whole preprocessed unit, then each coroutine again from the
   original tokens. Returns the coroutines in file order. */
Coroutine *parse_source(Source *src);

/* {=====================================================================
 * front/macros.c: the macros in effect (from the preprocessor's -dD)
 * ====================================================================== */

/* A #define or #undef line met by the file parse. */
void macro_directive(const char *text);
/* The replacement list of object-like macro `name` (interned) of words and stars only, or NULL. */
const TokenList *macro_body(const char *name);
/* Whether `name` (interned) is an object-like macro made of string literals and such macros
   (<inttypes.h>'s PRIu64: `"%" PRIu64 "\n"` is one string); depth: 0. */
bool string_macro(const char *name, int depth);
/* Is `name` (interned) a function-like macro? */
bool function_like_macro(const char *name);
/* The #define line of macro `name` (interned) in effect now, or NULL. */
const char *macro_definition(const char *name);
/* A use at toks->v[at] of a macro made of __attribute__ groups: they go to out; the index of its
   last token, or -1 for any other word. */
int attribute_macro(const TokenList *toks, int at, TokenList *out, int depth);
/* The name that the declaration a statement macro's use at toks->v[at] expands to declares
   (`DECL_I;` of `#define DECL_I int i = 0`: i; `DECLARE_BITMAP(mask, 64)`: mask), or NULL. */
const char *macro_declared_name(const TokenList *toks, int at);
/* The kinds of groups a macro may be made of (macros.c). */
enum { GROUP_ATTRIBUTE = 1, GROUP_PRAGMA = 2 };
/* The same for a macro made of groups of one of the kinds *kinds allows (a set of GROUP_ bits),
   which it narrows to the kind the use is made of. */
int group_macro(const TokenList *toks, int at, TokenList *out, int depth, int *kinds);
/* A use at toks->v[at] of a macro that expands to __attribute__ groups and then words of a type
   (GLib's `g_autoptr(GString)`, `g_auto(GStrv)`, pasted as the preprocessor does): the groups go
   to `groups`, the type's words and stars (new tokens where pasted) to `type`; the index of its
   last token, or -1. */
int typed_attribute_macro(const TokenList *toks, int at, TokenList *groups, TokenList *type);
bool macro_param_is_name(const char *name, int index, int depth); /* `member` of offsetof */
/* Does macro `name` take the address of its parameter `index` (`#define PTR(a) (&(a))`), or hand
   it to a macro that does? The passes do not see that `&`. */
bool macro_param_address(const char *name, int index, int depth);
/* A use at toks->v[at] of a macro: whether it heads a loop (`TAILQ_FOREACH(v, h, f)`, `forever`):
   1 an object-like one, 2 a function-like one, 0 none, with *declares (may be NULL): its `for`
   declares; and *jumps (may be NULL): the jumps out of the use its expansion makes (JUMPS_*). */
int statement_macro(const TokenList *toks, int at, bool *declares, int *jumps);
enum { JUMPS_GOTO = 1, JUMPS_BREAK = 2, JUMPS_CONTINUE = 4, JUMPS_RETURN = 8, JUMPS_ANY = 15 };
enum { USES_ALLOCA = 16 }; /* (*jumps too) the expansion calls alloca: glibc's strdupa, say */
/* (*jumps too) the expansion opens a block it does not close (pthread_cleanup_push's `do {`), or
   closes one it did not open (pthread_cleanup_pop's `} while (0)`) */
enum { OPENS_BLOCK = 32, CLOSES_BLOCK = 64 };
enum { USES_SETJMP = 128 }; /* (*jumps too) the expansion calls setjmp: Lua's LUAI_TRY, say */
int macro_jumps(const char *name);    /* the same for macro `name` (interned) */
bool is_alloca(const char *interned); /* alloca and GCC's __builtin_alloca* */
bool is_setjmp(const char *interned); /* setjmp, sigsetjmp and the names they are macros for */
/* The first token of macro `name`'s replacement list (TK_EOF: empty), or NULL. */
const Token *macro_first_word(const char *name);
/* lexhook.c: does a declaration begin with this word (a type, a qualifier, a storage class)? */
bool begins_declaration(const Token *t);
/* Is toks->v[at] a name that a macro's argument declares (`DECLARE(int x)`, `F(char **p)`): the
   tokens before it, back to `first`, stars passed over, begin a declaration? */
bool declared_in_argument(const TokenList *toks, int at, int first);

/* {=====================================================================
 * passes/: check.c (check_macros.c), frame.c (live.c, cfg.c), cleanup.c, lower.c; and the
 * command line's options, which they and the printers read
 * ====================================================================== */

typedef enum { BACKEND_STACKLESS, BACKEND_STACKFUL } Backend;

typedef struct {
  Backend backend;       /* --backend */
  const CppArgs *cpp;    /* -I and -D, for --stats' compile */
  const char *input_dir; /* where "..." includes are searched first */
  bool line_directives;  /* not --no-line */
  bool hoist_all;        /* --hoist-all: every local in the frame */
  const char *input;     /* the input's path (NULL for standard input): --stats runs again on it */
  bool dot;              /* --dot: print Graphviz instead of C */
  bool stats;            /* --stats: print frame sizes instead of C */
  bool html;             /* --html: print the page of both lowerings instead of C (html.c) */
  /* --header: where the header of the frames goes, or NULL (then each coro_in_NAME is a
     static inline of the .c; with it, an external function) */
  const char *header;
  bool facts;   /* coroc-lsp: RunOutput.facts too (frame_facts, facts.c) ... */
  bool measure; /* ... with the compiler's sizes (facts_measure) */
} Options;

/* check.c: the coroutine rules, for both backends; numbers the resume
   points, says what each await awaits, marks discarded values. */
void check(Source *src, Coroutine *cos);
/* check_macros.c: the rules for a macro used at node n of coroutine co (check.c's walk). */
void check_macro_uses(Source *src, Coroutine *co, Node *n);
/* check.c: does this expression hold an await? (O(1): see Node.awaits) */
bool has_await(const Node *n);
/* Does it await a child whose frame is inside its own (ND_AWAIT.inline_child)? */
bool has_inline_children(const Coroutine *co);
/* check.c: does it hold a `?:` with an await in an arm? (O(1)) */
bool has_awaiting_select(const Node *n);
/* check.c: mark n and what inherits its fate as discarded (see Node.discarded) */
void mark_discarded(Node *n);
/* check.c: the parts of expression n that order its awaits, in the order C evaluates them: each
   await, each && || whose right side awaits, each ?: with an await in an arm, each comma with an
   await; found without descending into them, and only where an await is. Plain operators around
   them (C leaves their operands unsequenced) are looked through. */
void collect_sequenced(Node *n, NodeList *out);

/* frame.c: the fields of each frame, and the names of types moved out of bodies. */
void layout_frames(Source *src, Coroutine *cos, const Options *opt);
/* live.c: the locals laid out (co->locals) that need no field leave the
   frame (into co->plain_locals); each one kept gets its frame_reason. */
void decide_frame(Source *src, Coroutine *co, const char *hoist_all); /* non-NULL: why all */

/* lower.c: each stackless body as lines of C (Coroutine.body). */
void lower(Source *src, Coroutine *cos, const Options *opt);

/* cleanup.c: locals declared __attribute__((cleanup(fn))) (Sym.cleanup). */
void note_cleanups(Source *src, Coroutine *co); /* before the frame is decided */
/* lowering: where its framed ones are in scope */
void cleanup_plan(Source *src, Coroutine *co);
/* the calls a break, continue, goto, return makes */
char *cleanup_exit(const Node *jump);
char *cleanup_scope_end(const Node *scope); /* the calls at the end of a block or for */
void cleanup_points(Coroutine *co);         /* Coroutine.cleanup_calls, after lowering */
void decide_cleanups(Coroutine *cos, const Options *opt); /* Coroutine.runs_cleanups */

/* output/output.h: the writer, how tokens are printed, the printers (output/ and the lowering). */

#endif
