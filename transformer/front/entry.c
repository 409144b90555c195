/* entry.c: the front end's entry: a source's file parse, which parses each
 * coroutine again, nested, as it meets it (parser.y, coroutine_found).
 *
 * The file parse reads the unit as the preprocessor expanded it; what it
 * hands on is the list of coroutines, each with its tree (or, in the
 * streaming run, each to `each` as soon as its external declaration ends).
 */
#include "parse.h"
#include "parser.h" /* yyparse, yydebug */
#include "stream.h"

#include <stdlib.h>

Coroutine *parse_source(Source *src) {
  return parse_source_each(src, NULL, NULL);
}

Coroutine *parse_source_each(Source *src, void (*each)(Coroutine *co, void *ctx), void *ctx) {
  scope_reset();
  Parser p = {.src = src, .toks = &src->expanded, .each = each, .each_ctx = ctx};
  p.cos_tail = &p.cos;
  p.unsent = &p.cos;
  p.external_mark = arena_mark(&arena_tree);
  yydebug = getenv("COROC_TRACE") != NULL; /* the trace of both parses */
  if (yyparse(&p) != 0)
    internal_error("parse failed without a diagnostic");
  xfree(p.tags_defined);
  return p.cos;
}
