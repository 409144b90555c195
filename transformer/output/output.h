/* output/output.h: the output stage's interface, apart from coroc.h (the map of the stages) because
 * only the files that write C need it: the printers in output/, the lowering (passes/lower.c and
 * cleanup.c, which write through the same writer), the driver and the language server. */
#ifndef COROC_OUTPUT_H
#define COROC_OUTPUT_H

#include "coroc.h"

/* {=====================================================================
 * output/: writing C. writer.c, directives.c and text.c serve the lowering
 * too; the printers come after them.
 * ====================================================================== */

/* output/writer.c: where the lines of a printed output come from, noted for --html (html.c): each
   line the writer began (emit_put), at its byte offset in the output, with the .coc line it stands
   for (0: a line of coroc's own). Lines copied from the .coc, and those after a #line inside one
   line's text, are not noted: the #line directives say where they are. */
typedef struct {
  size_t offset; /* where the line starts in the output */
  /* the .coc line it stands for; 0: none in particular; -1: the one the compiler counts */
  int line;
} LineMark;
typedef struct {
  LineMark *v;
  int n, cap;
} LineMarks;

/* output/writer.c: the line writer that lowering and printing share. */
typedef struct {
  FILE *out;          /* where the output goes */
  Lines *sink;        /* lowering: lines go here instead (lower.c) */
  Source *src;        /* the input */
  const Options *opt; /* the command line */
  TokenList *toks;    /* the original tokens */
  Coroutine *co;      /* the coroutine being printed */
  int indent;         /* current indentation, in levels of two spaces */
  int mapped;         /* the .coc line the compiler will give the next output line; 0: unknown */
  bool named;         /* a #line has named the .coc already */
  struct {
    int first, last, next;
    const char *text;
  } * repl; /* ranges printed as text (lowering; typed names in shapes) */
  int nrepl, caprepl;
  /* [token - repl_first] the newest repl entry starting there, or -1: for co's tokens (text.c) */
  int *repl_at, repl_first, repl_count;
  const char *continue_label; /* lowering: a loop whose condition awaits: where `continue` goes */
  /* lowering: blocks opened around a statement for `?:` values, to close after it */
  int open_blocks;
  int nselects;       /* lowering: coro_sel_N numbers used so far */
  bool continue_used; /* lowering: a `goto continue_label` was printed */
  /* printing: the generators whose coro_next_of_NAME wraps coro_next so far, the last of them
     (NULL: none), and those whose frame coro_next and coro_free take (emit_frame_dispatch) */
  int nnext_by_name, nframes_by_type;
  const char *next_by_name_last;
  LineMarks *marks; /* printing for --html: each line begun is noted here; NULL: not */
} Emitter;

/* One line of output that stands for .coc line `line` (0: none in particular). */
void emit_put(Emitter *e, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ... and the line just begun with no .coc line stands where the compiler counts it (--html) */
void emit_counted(Emitter *e);
int emit_line_of(Emitter *e, const Node *n);
void emit_indent(Emitter *e, int delta);
/* The next output line is .coc line `line`: a #line if the compiler would not know. */
void emit_sync(Emitter *e, int line);
void emit_resync(Emitter *e, int line);         /* ... the compiler knows already */
void emit_line_directive(Emitter *e, int line); /* a #line for .coc line `line`, now */
/* The text of a #line directive for physical line `physical` of the input,
   as emit_line_directive writes it, but on its own: for an operand put back
   at its column in the middle of a statement (lower.c, emit_stackful.c). */
char *emit_line_text(Source *src, int physical);
/* The blanks from the start of an original token's line to it, tabs kept;
   NULL past column COROC_MAX_ALIGN_COLUMN (lower.c, emit_stackful.c). */
char *emit_column_pad(const Source *src, const Token *t);
void lines_push(Lines *l, Line line);

/* output/directives.c: the preprocessor lines kept inside a body */
/* the kept directives among tokens [from, to) */
void emit_directives(Emitter *e, int from, int to);
void emit_directive(Emitter *e, int index); /* the one that is token index */
/* The macro a #define or #undef line names (*len bytes at the result), or NULL. */
const char *directive_macro_name(const char *text, size_t *len, bool *define);
bool is_first_define(Emitter *e, Coroutine *co, int index);
void redefine_macros(Emitter *e, Coroutine *co, bool restore);

/* output/creation.c: the pieces of a coroutine's creation both backends print */
char *emit_creation_header(Emitter *e, Coroutine *co);
/* "int n, char *s" of the coroutine's `(int n, char *s)`; "" of `(void)` and `()`. */
char *emit_param_list(Emitter *e, Coroutine *co);
void emit_value_type(Emitter *e, Coroutine *co);
/* The linkage words before coro_in_NAME: static inline in the .c alone, or
   external when a header declares it (Options.header). */
const char *emit_in_linkage(Emitter *e, Coroutine *co);
/* The kind of its instances (enum coro_kind): "CORO_TASK | CORO_CLEANUP", say. */
const char *emit_kind_of(const Coroutine *co);
void emit_in_declaration(Emitter *e, Coroutine *co); /* ... and, when external, its prototype */
void emit_frame_dispatch(Emitter *e, Coroutine *co); /* coro_next(&frame, ...), coro_free(&frame) */

/* output/text.c: how a range of tokens is printed */
typedef struct {
  const Token *name;     /* a declarator's name token ... */
  const char *name_text; /* ... is printed as this ("" for nothing) */
  const Node *omit;      /* a node whose tokens are left out */
  const Node *sized;     /* an ND_ARRAY printed with ... */
  const char *size;      /* ... this size between its brackets */
  bool collapse;         /* print hoisted struct/union/enum definitions as `struct NAME` */
  bool raw;              /* print names as written (the creation function's parameters) */
  const Node *unconst;   /* an ND_POINTER whose own `const` (after its last '*') is left out */
  bool unqualify;        /* ... and its volatile and restrict (a value type: unqualified) */
  const Node *literal;   /* the compound literal being printed inside its CORO_LITERAL */
} Style;
char *range_str(Emitter *e, int first, int last, const Style *st);
char *node_str(Emitter *e, const Node *n);
char *emit_range(Emitter *e, int first, int last, bool raw);
enum { SPECS_CONST = 1, SPECS_ALIGNAS = 2, TYPE_NAME = 3 }; /* what specs_str leaves out */
char *specs_str(Emitter *e, const Node *specs, int drop_also);
/* Is specifier k an _Alignas or alignas (an attribute that a type name leaves out)? */
bool is_alignas(Emitter *e, const Node *k);
char *field_decl(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                 const char *name, bool is_param);
char *emit_field_decl(Emitter *e, const Node *specs, const Node *declarator, const char *name);
/* a type declared in the body, at file scope (a local named for its type alone printed typed) */
char *hoisted_type_str(Emitter *e, const Node *type);
/* a kept compound literal's field type */
char *literal_type(Emitter *e, const Node *lit, const char *key);
char *shape_decl(Emitter *e, const Node *specs, const Node *d, const Node *init, const char *key,
                 const Sym *self); /* the shape sizing an array declared [], or NULL */
void push_repl(Emitter *e, const Node *n, const char *text); /* print n as text */
void drop_repl(Emitter *e, int keep);                        /* ... forget those from keep on */
void repl_release(Emitter *e); /* ... and the writer is done with its coroutine */

/* output/emit_cleanup.c: the stackless printer's part of cleanups */
/* A field's declaration without the cleanup attribute (or macro for one) in tokens first..last. */
char *cleanup_strip(Emitter *e, const char *decl, int first, int last);
/* coro_cleanup_NAME, what coro_free runs for a suspended stackless instance */
void emit_cleanup_function(Emitter *e, Coroutine *co);

/* output/emit_stackless.c, emit_stackful.c: a coroutine definition, by backend */
void emit_stackless(Emitter *e, Coroutine *co);
void emit_stackful(Emitter *e, Coroutine *co);
/* ... and the types of its instance, as the header prints them too: the
   value type, the frame and what it needs (stackless: macros defined in the
   body, types hoisted out of it; stackful: the arguments, then the storage) */
void emit_stackless_frame(Emitter *e, Coroutine *co);
void emit_stackful_args(Emitter *e, Coroutine *co);
void emit_stackful_storage(Emitter *e, Coroutine *co);

/* output/emit.c: the driver of printing: the user's text between
   coroutines, each coroutine by its backend */
void emit(FILE *out, Source *src, Coroutine *cos, const Options *opt);
/* The output (or --dot's graphs, with `dot`) as a string of *len bytes. */
char *emit_to_string(Source *src, Coroutine *cos, const Options *opt, bool dot, size_t *len);
/* The output, the same bytes, with the lines the writer began noted in *marks (--html). */
char *emit_marked(Source *src, Coroutine *cos, const Options *opt, LineMarks *marks, size_t *len);

/* output/emit_header.c: --header, the frames and creation functions of the
   coroutines with external linkage, for other files (docs/cli.md) */
char *emit_header(Source *src, Coroutine *cos, const Options *opt, size_t *len);

/* output/dot.c: --dot, each coroutine's state machine as a Graphviz graph */
void emit_dot(FILE *out, Source *src, Coroutine *cos);
/* ... one coroutine's alone, as --dot prints it for a file with no other (--html) */
void emit_dot_coroutine(FILE *out, Source *src, Coroutine *co);
/* output/stats.c: --stats, each coroutine's frame as the compiler lays it out */
void emit_stats(FILE *out, Source *src, Coroutine *cos, const Options *opt, const char *c_text);

/* output/html.c: --html, one page with the .coc and both lowerings side by side */
typedef struct {
  const char *c;     /* the C a backend printed (with #line directives) ... */
  size_t len;        /* ... its length ... */
  LineMarks marks;   /* ... and the lines the writer began in it (emit_marked) */
  const char *stats; /* what --stats prints for it */
} HtmlColumn;
char *emit_html(Source *src, Coroutine *cos, const HtmlColumn *stackless,
                const HtmlColumn *stackful, size_t *len);

/* output/depfile.h has -MD's interface (DepOptions, depfile_rule); run.h
   run.c's, one run in memory (coroc_run, coroc_try, RunOutput...). */

#endif
