/* stream.c: the streaming run, the C printed a coroutine at a time.
 *
 * A run of the whole file (run.c) parses all of it, keeps every
 * coroutine's tree, runs each pass over all of them and prints the output
 * in memory: on a file of 3,000 coroutines that is 150 bytes of memory per
 * byte of input. Here each coroutine is checked, laid out, lowered and
 * printed to the output file as soon as the file parse has read its
 * external declaration (parse_source_each); then its tree goes back to the
 * arena and what the passes and the printer took from the heap goes back
 * with the region around them (memory.c). What later coroutines need of it
 * stays: its Coroutine, with what it is, and the symbols of the file.
 *
 * Two things a coroutine's C depends on are decided by coroutines below
 * it: whether one of them awaits it with its frame inside their own
 * (Coroutine.awaited_inline: the creation inside a parent, and `unused` on
 * a static one), and, for the stackful backend, whether any coroutine of
 * the file has a cleanup (decide_cleanup). They are foreseen from the
 * user's tokens before the first coroutine is printed (an `await NAME(`
 * below it, not in a body that yields values; the word `cleanup`
 * anywhere, or a macro for one) and checked at the end against
 * what the passes decided. And an error is said as a run of the whole file
 * says it: that run reports a syntax error anywhere before the rules of
 * any coroutine, and the rules of all before any frame's. So the streaming
 * run holds its errors (diag_hold): on an error, on a foresight that was
 * wrong, and when a coroutine awaited above its definition turns out to be
 * a generator, or one read with coro_next above it an async generator
 * (errors of the whole run's check), it gives up, and run.c
 * runs the file again whole, which prints the same C or says the error.
 */
#include "coroc.h"
#include "stream.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* What a definition was printed with, to check at the end. */
typedef struct {
  Coroutine *co;
  bool awaited_inline; /* foreseen */
} Printed;

/* The names that an `await NAME(` of the user's tokens names, with the
   index of the last such await: a coroutine may be awaited inline only by
   one below it. Keyed by the interned spelling. */
typedef struct {
  const char *name;
  int last;
} Awaited;

typedef struct {
  Source *src;
  const Options *opt;
  EmitCursor cursor;
  Definitions defs;
  jmp_buf *give_up;
  bool check_emit; /* COROC_CHECK_EMIT: each coroutine printed twice and compared */
  bool foreseen;   /* the user's tokens have been looked at */
  Awaited *awaited;
  size_t mask;
  bool any_cleanup;  /* foreseen: a coroutine of the file has a cleanup */
  bool some_cleanup; /* decided: one has */
  Printed *printed;  /* each definition printed, in order */
  int nprinted, capprinted;
} Stream;

/* {==================================================================
 * Foresight, from the user's own tokens
 * =================================================================== */

static Awaited *awaited_slot(const Stream *s, const char *name) {
  size_t i = interned_hash(name) & s->mask;
  while (s->awaited[i].name && s->awaited[i].name != name)
    i = (i + 1) & s->mask;
  return &s->awaited[i];
}

/* Is t the word `word` (interned: spellings are compared as pointers)? */
static bool is_word(const Token *t, const char *word) {
  return tok_text(t) == word && t->kind == TK_IDENT && !t->dead;
}

/* A file-scope brace group of the user's tokens, by its first and last. */
typedef struct {
  int first, last;
} Group;

/* The file-scope brace groups (function bodies, mostly) that hold a
   `yield` with a value, in order, and their count in *n: a body that
   yields values and awaits is an async generator's, whose children go on
   the heap, never inline. (A guess like the others: a group that the
   preprocessor makes otherwise only makes it wrong, and the run gives up.) */
static Group *yielding_groups(const TokenList *o, int *n) {
  const char *open = INTERN("{"), *close = INTERN("}"), *yield = INTERN("yield"),
             *semicolon = INTERN(";");
  Group *v = NULL;
  int nv = 0, depth = 0, first = 0;
  bool yields = false;
  for (int i = 0; i < o->n; i++) {
    const char *w = tok_text(&o->v[i]); /* (a literal's or directive's is spelled whole) */
    if (w == open && depth++ == 0) {
      first = i;
      yields = false;
    } else if (w == close && depth > 0 && --depth == 0 && yields) {
      v = xappend(v, nv, sizeof *v);
      v[nv++] = (Group){first, i};
    } else if (depth > 0 && is_word(&o->v[i], yield) && tok_text(&o->v[i + 1]) != semicolon) {
      yields = true;
    }
  }
  *n = nv;
  return v;
}

/* A macro for a cleanup attribute: a use of one the macros defined by now
   make (`_cleanup_free_`, `g_autofree` from a header), or a #define below
   that spells `cleanup` (the file's own, defined after a coroutine). */
static bool cleanup_macro(const TokenList *o, int i) {
  const Token *t = &o->v[i];
  if (t->kind == TK_DIRECTIVE)
    return strstr(tok_text(t), "cleanup") != NULL;
  return t->kind == TK_IDENT && !t->dead && macro_definition(tok_text(t)) &&
         cleanup_function(o, i, i) != NULL;
}

static void foresee(Stream *s) {
  const TokenList *o = &s->src->original;
  const char *await = INTERN("await"), *cleanup = INTERN("cleanup"),
             *gnu_cleanup = INTERN("__cleanup__"), *paren = INTERN("(");
  int ngroups, g = 0;
  Group *groups = yielding_groups(o, &ngroups);
  size_t size = 64;
  int nawaits = 0;
  for (int i = 0; i < o->n; i++)
    nawaits += is_word(&o->v[i], await);
  while (size < 2 * (size_t)nawaits)
    size *= 2;
  s->awaited = memory_keep(xcalloc(size, sizeof *s->awaited));
  s->mask = size - 1;
  for (int i = 0; i + 2 < o->n; i++) {
    const Token *t = &o->v[i];
    s->any_cleanup |= is_word(t, cleanup) || is_word(t, gnu_cleanup) || cleanup_macro(o, i);
    while (g < ngroups && groups[g].last < i)
      g++;
    bool in_async_generator = g < ngroups && groups[g].first <= i;
    if (is_word(t, await) && t[1].kind == TK_IDENT && !t[2].dead && tok_text(&t[2]) == paren &&
        !in_async_generator) {
      Awaited *a = awaited_slot(s, tok_text(&t[1]));
      *a = (Awaited){tok_text(&t[1]), i};
    }
  }
  xfree(groups);
  s->foreseen = true;
}

/* The lines strictly inside the body of each coroutine the user's tokens
   define: the file parse skips those bodies (it takes their tree from the
   coroutine's parse of the user's tokens: external.c, body_begin), so the
   scan of the preprocessor's output passes over their lines (lexer.l,
   PASS). A body is `{` after `)` at file scope, in a declaration that
   spells `coroutine` (not one made by a macro). A guess, checked: a body
   with lines passed over that the file parse read after all (a
   `coroutine` in a group #if skips, a brace in a macro) and the run gives
   up (check_foresight). */
static bool *body_lines(const Source *src) {
  const TokenList *o = &src->original;
  const char *open = INTERN("{"), *close = INTERN("}"), *paren = INTERN(")"),
             *semicolon = INTERN(";"), *coroutine = INTERN("coroutine");
  bool *pass = xcalloc(src->nlines + 1, sizeof(bool));
  int depth = 0, body = -1;
  bool declares = false; /* the declaration at file scope spells `coroutine` */
  for (int i = 0; i < o->n; i++) {
    const char *w = tok_text(&o->v[i]); /* (a literal's or directive's is spelled whole) */
    if (w == open && depth++ == 0) {
      body = declares && i > 0 && tok_text(&o->v[i - 1]) == paren ? i : -1;
    } else if (w == close && depth > 0 && --depth == 0) {
      for (int line = body < 0 ? INT_MAX : o->v[body].line + 1; line < o->v[i].line; line++)
        pass[line] = true;
      declares = false;
    } else if (depth == 0 && (w == semicolon || w == coroutine)) {
      declares = w == coroutine;
    }
  }
  return pass;
}

/* Will a coroutine below this definition await it inline? */
static bool foresee_awaited(const Stream *s, const Coroutine *co) {
  const Awaited *a = awaited_slot(s, co->name);
  return a->name && a->last > co->last;
}

/* }================================================================== */

/* {==================================================================
 * Each coroutine
 * =================================================================== */

/* Give up, for run.c to run the file whole; with COROC_STREAM_REPORT set,
   say why (tests check that a file streams: the output is the same). */
static _Noreturn void give_up(Stream *s, const char *why) {
  if (getenv("COROC_STREAM_REPORT"))
    fprintf(stderr, "coroc: the streaming run gives up (%s): the file is run whole\n", why);
  longjmp(*s->give_up, 2);
}

/* Print co, twice with COROC_CHECK_EMIT set (as run.c's render does for
   the whole output): the printers only read, so both give the same bytes. */
static void print(Stream *s, Coroutine *co) {
  if (!s->check_emit) {
    emit_next(&s->cursor, co);
    return;
  }
  char *text[2];
  size_t len[2];
  EmitCursor after[2];
  for (int i = 0; i < 2; i++) {
    after[i] = s->cursor;
    after[i].e.out = xmemstream(&text[i], &len[i]);
    emit_next(&after[i], co);
    fclose(after[i].e.out);
  }
  if (len[0] != len[1] || memcmp(text[0], text[1], len[0]) != 0)
    internal_error("printing twice gave different output: a printer changed the tree");
  FILE *out = s->cursor.e.out;
  fwrite(text[0], 1, len[0], out);
  s->cursor = after[0];
  s->cursor.e.out = out;
}

static void note_printed(Stream *s, Coroutine *co, bool awaited) {
  if (s->nprinted == s->capprinted) {
    s->capprinted = s->capprinted ? 2 * s->capprinted : 256;
    s->printed = memory_keep(xrealloc(s->printed, sizeof *s->printed * s->capprinted));
  }
  s->printed[s->nprinted++] = (Printed){co, awaited};
}

/* What later coroutines read of co: what it is. The rest went with its
   tree and its region. */
static void forget(Coroutine *co) {
  xfree(co->macros); /* (the parse's) */
  *co = (Coroutine){.name = co->name,
                    .first = co->first,
                    .last = co->last,
                    .is_prototype = co->is_prototype,
                    .is_static = co->is_static,
                    .is_generator = co->is_generator,
                    .is_async = co->is_async,
                    .returns_void = co->returns_void,
                    .runs_cleanups = co->runs_cleanups,
                    .next = co->next};
}

static void each(Coroutine *co, void *ctx) {
  Stream *s = ctx;
  if (!s->foreseen)
    foresee(s);
  check_kind_of(co);
  unsigned missed = co->def ? definitions_missed(&s->defs, co->name) : 0;
  if (((missed & MISSED_AWAIT) && co->is_generator) || ((missed & MISSED_NEXT) && co->is_async))
    give_up(s, "a coroutine used above its definition as the whole run refuses");
  definitions_add(&s->defs, co);
  memory_region_begin();
  check_coroutine(s->src, co, &s->defs);
  layout_frame(s->src, co, s->opt);
  bool awaited = co->def && foresee_awaited(s, co);
  co->awaited_inline = awaited;
  lower_coroutine(s->src, co, s->opt, s->any_cleanup);
  print(s, co);
  co->awaited_inline = false; /* from here on, what the awaits below decide */
  s->some_cleanup |= co->def && co->has_cleanup;
  if (co->def)
    note_printed(s, co, awaited);
  cleanup_release(); /* (the plan is in the region) */
  memory_region_end();
  forget(co);
  source_forget_notes(co->last + 1);
  source_drop_original(s->src, co->last);
}

/* }================================================================== */

/* Was every foresight right? */
static void check_foresight(Stream *s) {
  if (s->src->out_of_order) /* (the lines of the .coc were settled as they came) */
    give_up(s, "the preprocessor gave the lines of the .coc out of order");
  if (source_passed_lines_left(s->src))
    give_up(s, "a body passed over was parsed");
  if (s->opt->backend == BACKEND_STACKFUL && s->some_cleanup != s->any_cleanup)
    give_up(s, "the foresight of a cleanup was wrong");
  for (int i = 0; i < s->nprinted; i++)
    if (s->printed[i].co->awaited_inline != s->printed[i].awaited_inline)
      give_up(s, "the foresight of an await inline was wrong");
}

void stream_source(Source *src, const Options *opt, FILE *out, jmp_buf *give_up_to) {
  Stream *s = xcalloc(1, sizeof *s);
  *s = (Stream){.src = src, .opt = opt, .give_up = give_up_to};
  s->check_emit = getenv("COROC_CHECK_EMIT") != NULL;
  emit_begin(&s->cursor, out, src, opt, NULL);
  src->as_they_come = !src->has_line_directives;
  if (src->as_they_come && src->original_ready)
    source_pass_over(src, body_lines(src));
  parse_source_each(src, each, s);
  check_foresight(s);
  emit_end(&s->cursor);
  definitions_free(&s->defs);
  xfree(s->awaited);
  xfree(s->printed);
  xfree(s);
}
