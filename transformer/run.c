/* run.c: one run of the whole pipeline, in memory, from the input's path to
 * the text of each file coroc writes.
 *
 * main.c calls it once and writes what it gives; a program that runs the
 * pipeline again and again in one process (a language server, on every
 * keystroke; tests/reset) calls coroc_try, then coroc_reset() (reset.c),
 * which gives back everything the run took, so that each run gives what a
 * new `coroc` process would. Separate from main.c, which is the command
 * line and the files, so that such a program links the pipeline without it.
 */
#include "coroc.h"

#include <stdlib.h>
#include <string.h>

/* What coroc prints: the C, --dot's graphs, or --stats' table, which is
   read off the C. The printers only read what the passes decided, so
   printing twice gives the same bytes: with COROC_CHECK_EMIT set (the test
   suite sets it for every run) coroc prints twice and compares. */
static char *render(Source *src, Coroutine *cos, const Options *opt, size_t *len) {
  char *out = emit_to_string(src, cos, opt, opt->dot, len);
  if (getenv("COROC_CHECK_EMIT")) {
    size_t again_len;
    char *again = emit_to_string(src, cos, opt, opt->dot, &again_len);
    if (again_len != *len || memcmp(again, out, *len) != 0)
      internal_error("printing twice gave different output: a printer changed the tree");
    xfree(again);
  }
  if (!opt->stats)
    return out;
  char *table = NULL;
  FILE *mem = xmemstream(&table, len);
  emit_stats(mem, src, cos, opt, out);
  fclose(mem);
  xfree(out);
  return table;
}

void coroc_run(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
               RunOutput *out) {
  *out = (RunOutput){0};
  bool std_in = strcmp(in, "-") == 0;
  opt->cpp = cpp;
  opt->input_dir = std_in ? "." : source_dir_of(in);
  opt->input = std_in ? NULL : in;
  Source src = {0};
  source_load(&src, in, cpp);
  Coroutine *cos = parse_source(&src);
  if (getenv("COROC_DUMP_AST")) /* for debugging coroc: each coroutine's tree on stderr */
    for (Coroutine *co = cos; co; co = co->next)
      ast_dump(stderr, co->decl, 0);
  check(&src, cos);              /* check.c: the coroutine rules, for both backends */
  layout_frames(&src, cos, opt); /* frame.c, live.c: what lives in each frame */
  lower(&src, cos, opt);         /* lower.c: each stackless body as lines of C */

  out->text = render(&src, cos, opt, &out->len);
  if (dep)
    out->rule = depfile_rule(dep, &src, std_in ? NULL : in, &out->rule_len);
  if (opt->header) { /* emit_header.c: for other files (and twice the same, as render checks) */
    out->header = emit_header(&src, cos, opt, &out->header_len);
    if (getenv("COROC_CHECK_EMIT")) {
      size_t again_len;
      char *again = emit_header(&src, cos, opt, &again_len);
      if (again_len != out->header_len || memcmp(again, out->header, out->header_len) != 0)
        internal_error(
            "printing the header twice gave different output: a printer changed the tree");
      xfree(again);
    }
  }
}

int coroc_try(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
              RunOutput *out) {
  jmp_buf escape;
  jmp_buf *volatile outer = diag_escape;
  *out = (RunOutput){0};
  if (setjmp(escape) != 0) {
    diag_escape = outer;
    *out = (RunOutput){0}; /* (what it had went with the error) */
    return 1;
  }
  diag_escape = &escape;
  coroc_run(in, opt, cpp, dep, out);
  diag_escape = outer;
  return 0;
}
