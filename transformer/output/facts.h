/* facts.h: what the passes decided about each coroutine's instances, as
 * data (output/facts.c): --stats prints it, coroc-lsp shows it in the
 * editor. Apart from coroc.h, which only names Facts, because only the two
 * of them and run.c read it.
 */
#ifndef COROC_FACTS_H
#define COROC_FACTS_H

#include "coroc.h"

/* output/facts.c: what the passes decided about each coroutine's instances, as data: --stats
   prints it (stats.c), coroc-lsp shows it in the editor. Lines and columns are the .coc's
   (1-based; columns in bytes). */
typedef struct {
  const char *name;   /* the field: a local's or parameter's, or coroc's own (coro_base, ...) */
  const char *reason; /* why it is in the frame, as --stats says it */
  int line;           /* a local's or parameter's declaration line; 0 for coroc's own fields */
  long offset, size;  /* facts_measure's; -1 before, or when the compiler did not say */
} FieldFact;
typedef struct {
  int number;            /* the resume point's number (check.c) */
  const char *word;      /* "yield" or "await" */
  int line, col;         /* its word */
  int end_line, end_col; /* just past the end of its expression */
  const char **live;     /* the locals whose values the frame keeps across it (live.c), in order */
  int nlive;             /* their count; -1: not analysed (every local is kept) */
  int child;             /* an await of a task: its index in children; else -1 */
} ResumeFact;
typedef struct {
  const char *callee;      /* the task awaited */
  int line;                /* the await's */
  bool inside;             /* its frame is inside the parent's (stackful: its body runs on the
                              parent's stack) */
  const char *heap_reason; /* why not, when not */
} ChildFact;
typedef struct {
  const char *name;
  int line;         /* its declaration's first line */
  int col, end_col; /* on that line: its first token, and just past its name */
  const char *kind; /* "generator", "async generator" or "task" */
  const char *type; /* the value type, as written ("int", "char *") */
  Backend backend;
  const char *type_name; /* the struct measured: struct coro_frame_NAME, coro_args_NAME */
  long size, align;      /* facts_measure's; -1 before */
  const char *instances; /* facts_measure's, stackless: where each instance lives, or NULL */
  FieldFact *fields;     /* in the frame's order (stackful: its arguments') */
  int nfields;
  ResumeFact *resumes; /* by number, from 1 */
  int nresumes;
  ChildFact *children; /* the tasks it awaits, in order */
  int nchildren;
  const char **plain; /* stackless: the locals that stay ordinary C locals ... */
  int *plain_lines;   /* ... and their lines */
  int nplain;
  size_t c_from, c_to; /* its C in the output: [from, to) (emit_with_spans) */
} CoroFacts;
struct Facts {
  CoroFacts *v; /* the coroutine definitions, in file order */
  int n;
};
/* The facts of each definition, with the backend of `opt`, as lower() left them. */
Facts frame_facts(Source *src, Coroutine *cos, const Options *opt);
/* The sizes and offsets, from the compiler ($COROC_CC, default cc) given the C text that
   holds the structs; false when it could not compile it. */
bool facts_measure(Facts *f, const char *c_text, const Options *opt);
/* output/emit.c: the output, noting where each definition's C is in it (c_from, c_to). */
char *emit_spans(Source *src, Coroutine *cos, const Options *opt, Facts *facts, size_t *len);

#endif
