/* stream.h: the pieces of the pipeline that the streaming run (stream.c)
 * takes a coroutine at a time, beside coroc.h's, which take the whole file.
 *
 * The streaming run prints each coroutine as soon as the file parse has
 * read it, and gives its memory back before the next (docs/design.md, "The
 * streaming run"). Each phase gives it the same work on one coroutine as on
 * the list, in the file's order: the whole-file entries of coroc.h are
 * these in a loop, so both runs print the same C.
 */
#ifndef COROC_STREAM_H
#define COROC_STREAM_H

#include "output/output.h"

/* front/parser.y: parse_source, each coroutine handed to `each` (with ctx)
   once the file parse has read its external declaration, whose tree then
   goes back to the arena as a plain function's does. */
Coroutine *parse_source_each(Source *src, void (*each)(Coroutine *co, void *ctx), void *ctx);

/* front/source.c: the lines of the .coc whose pass[line] is set (lines
   strictly inside the bodies of coroutines, which the file parse skips)
   are passed over by the scan of the preprocessor's output, which makes no
   tokens of them; only whether each has text is noted (its liveness). The
   file parse says which lines it did skip (source_skipped_lines: those
   between two lines); a line passed over that it did not skip means the
   guess was wrong (source_passed_lines_left), and the run gives up. */
void source_pass_over(Source *src, const bool *pass);
/* front/lexer.l: from here on, the stream passes over the lines of the .coc
   whose pass[line] is set (of `lines`), making no tokens of them: one with
   text is marked in live[line] and passed[line]. Directive lines, and lines
   with what may run past their end, are scanned as usual. */
void stream_pass_over(TokenStream *ts, const bool *pass, int lines, bool *live, bool *passed);
void source_skipped_lines(Source *src, int after, int before);
bool source_passed_lines_left(const Source *src);

/* front/source.c: the notes of the tokens before index `below` are not
   asked again (their coroutines are printed): their memory goes back. */
void source_forget_notes(int below);
/* ... and the user's tokens before the line of token `last` (the last one
   printed) are not read again: the pages they fill go back. */
void source_drop_original(Source *src, int last);
/* support/memory.c: bytes [from, to) of a block (those in [from, done) said
   before) are not read again: their whole pages go back (under ASan:
   poisoned). */
void memory_not_read_again(void *block, size_t from, size_t done, size_t to);
/* ... a mapping of `size` bytes unmapped, the first `written` of which may
   have been said so (under ASan their poison goes first: a later mapping
   may be made where it was). */
void memory_unmap(void *block, size_t size, size_t written);

/* passes/check.c: what kind a coroutine is (is_generator, is_async); then,
   once it is in the table of definitions, its body checked against the
   definitions met so far. */
typedef struct {
  Coroutine **slot; /* open addressing: NULL or the first definition of a name */
  size_t mask;      /* slots - 1, a power of two at least twice the definitions */
  size_t n;         /* the definitions */
  /* the coroutines asked about where the table had no definition of them,
     and what was asked (MISSED_*): its definition below would have been
     an error of the whole run's check if it is a generator (awaited), or
     an async generator (made, and its values taken with coro_next) */
  struct Missed {
    const char *name;
    unsigned asked;
  } * missed;
  int nmissed, capmissed;
} Definitions;
enum { MISSED_AWAIT = 1, MISSED_NEXT = 2 };
void check_kind_of(Coroutine *co);
void definitions_add(Definitions *d, Coroutine *co); /* a definition (a prototype is not) */
unsigned definitions_missed(const Definitions *d, const char *name); /* MISSED_*, or 0 */
void definitions_free(Definitions *d);
void check_coroutine(Source *src, Coroutine *co, Definitions *defs);

/* passes/frame.c, lower.c, cleanup.c: layout_frames, lower and
   decide_cleanups of one coroutine; `any_cleanup`: whether the file has a
   coroutine with a cleanup (which decides the stackful backend's). */
void layout_frame(Source *src, Coroutine *co, const Options *opt);
void lower_coroutine(Source *src, Coroutine *co, const Options *opt, bool any_cleanup);
void decide_cleanup(Coroutine *co, const Options *opt, bool any_cleanup);

/* output/emit.c: printing begun, then each coroutine with the user's text
   before it, then the text after the last (emit() is these in a loop). */
typedef struct {
  Emitter e;     /* the writer, from one coroutine to the next */
  size_t at;     /* the user's text is printed up to this offset */
  bool included; /* the #include of the runtime is printed */
} EmitCursor;
void emit_begin(EmitCursor *c, FILE *out, Source *src, const Options *opt, LineMarks *marks);
void emit_next(EmitCursor *c, Coroutine *co);
void emit_end(EmitCursor *c);

/* stream.c: the file parsed, each coroutine checked, laid out, lowered and
   printed to out as soon as it is read, its memory given back before the
   next one; on an error or what only the whole file decides, a longjmp to
   *give_up (run.c then runs the file whole). */
void stream_source(Source *src, const Options *opt, FILE *out, jmp_buf *give_up);

#endif
