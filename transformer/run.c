/* run.c: one run of the whole pipeline, in memory, from the input's path to
 * the text of each file coroc writes.
 *
 * main.c calls it once and writes what it gives; a program that runs the
 * pipeline again and again in one process (a language server, on every
 * keystroke; tests/reset) calls coroc_try (or coroc_try_buffer, on an
 * editor's text), then coroc_reset() (reset.c), which gives back
 * everything the run took, so that each run gives what a new `coroc`
 * process would. Separate from main.c, which is the command
 * line and the files, so that such a program links the pipeline without it.
 */
#include "output/output.h"
#include "stream.h"
#include "run.h"
#include "output/facts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --stats' table of the C text `c`, which it compiles. */
static char *stats_table(Source *src, Coroutine *cos, const Options *opt, const char *c,
                         size_t *len) {
  char *table = NULL;
  FILE *mem = xmemstream(&table, len);
  emit_stats(mem, src, cos, opt, c);
  fclose(mem);
  return table;
}

/* What coroc prints: the C, --dot's graphs, or --stats' table, which is
   read off the C; with `marks` (--html), the C with its lines noted. The
   printers only read what the passes decided, so printing twice gives the
   same bytes: with COROC_CHECK_EMIT set (the test suite sets it for every
   run) coroc prints twice and compares (with marks, the second time
   without them: noting lines changes no byte either). */
static char *render(Source *src, Coroutine *cos, const Options *opt, LineMarks *marks,
                    size_t *len) {
  char *out =
      marks ? emit_marked(src, cos, opt, marks, len) : emit_to_string(src, cos, opt, opt->dot, len);
  if (getenv("COROC_CHECK_EMIT")) {
    size_t again_len;
    char *again = emit_to_string(src, cos, opt, opt->dot, &again_len);
    if (again_len != *len || memcmp(again, out, *len) != 0)
      internal_error("printing twice gave different output: a printer changed the tree");
    xfree(again);
  }
  if (!opt->stats)
    return out;
  char *table = stats_table(src, cos, opt, out, len);
  xfree(out);
  return table;
}

/* --html: both lowerings of the one parse, each printed and measured as
   --stats measures it, on one page (html.c). The passes up to the frames
   decide the same for both backends; lower() is what differs. The stackful
   one goes first: its lowering only decides which instances run cleanups
   (cleanup.c), and the stackless lowering after it decides that again, for
   itself, before lowering the bodies; each is printed before the next
   lowering runs, so each sees the tree its own run of coroc would. */
static char *render_page(Source *src, Coroutine *cos, const Options *opt, size_t *len) {
  HtmlColumn col[2] = {{0}}; /* stackful, stackless */
  for (int i = 0; i < 2; i++) {
    Options one = *opt;
    one.backend = i == 0 ? BACKEND_STACKFUL : BACKEND_STACKLESS;
    lower(src, cos, &one);
    col[i].c = render(src, cos, &one, &col[i].marks, &col[i].len);
    size_t stats_len;
    col[i].stats = stats_table(src, cos, &one, col[i].c, &stats_len);
  }
  return emit_html(src, cos, &col[1], &col[0], len);
}

/* coroc-lsp's output of one lowering: the C, with where each coroutine's
   text is, and what the passes decided as data (facts.c), measured by the
   compiler when opt->measure asks (when it fails, the sizes stay -1). */
static void print_with_facts(Source *src, Coroutine *cos, const Options *opt, RunOutput *out) {
  out->facts = xcalloc(1, sizeof(Facts));
  *out->facts = frame_facts(src, cos, opt);
  out->text = emit_spans(src, cos, opt, out->facts, &out->len);
  if (opt->measure)
    facts_measure(out->facts, out->text, opt);
}

/* The input `in` read, or `text` (NULL: read `in`) named `in`, and its
   preprocessor started. */
static void load_input(const char *in, const char *text, size_t text_len, Options *opt,
                       const CppArgs *cpp, Source *src) {
  bool std_in = strcmp(in, "-") == 0;
  opt->cpp = cpp;
  opt->input_dir = std_in ? "." : source_dir_of(in);
  opt->input = std_in ? NULL : in;
  if (text)
    source_load_buffer(src, in, text, text_len, cpp);
  else
    source_load(src, in, cpp);
}

/* The passes both backends share, on the file `in`, or on `text` (NULL:
   read `in`) named `in`. */
static Coroutine *run_shared(const char *in, const char *text, size_t text_len, Options *opt,
                             const CppArgs *cpp, Source *src) {
  load_input(in, text, text_len, opt, cpp, src);
  Coroutine *cos = parse_source(src);
  if (getenv("COROC_DUMP_AST")) /* for debugging coroc: each coroutine's tree on stderr */
    for (Coroutine *co = cos; co; co = co->next)
      ast_dump(stderr, co->decl, 0);
  check(src, cos);              /* check.c: the coroutine rules, for both backends */
  layout_frames(src, cos, opt); /* frame.c, live.c: what lives in each frame */
  return cos;
}

/* coroc_run, on the file `in`, or on `text` (NULL: read `in`) named `in`. */
static void run(const char *in, const char *text, size_t text_len, Options *opt, const CppArgs *cpp,
                const DepOptions *dep, RunOutput *out) {
  *out = (RunOutput){0};
  bool std_in = strcmp(in, "-") == 0;
  Source src = {0};
  Coroutine *cos = run_shared(in, text, text_len, opt, cpp, &src);
  if (opt->html) { /* lowered twice: one page with both backends */
    out->text = render_page(&src, cos, opt, &out->len);
    return;
  }
  lower(&src, cos, opt); /* lower.c: each stackless body as lines of C */

  if (opt->facts) { /* coroc-lsp: the C, and what the passes decided, as data */
    print_with_facts(&src, cos, opt, out);
    return;
  }
  out->text = render(&src, cos, opt, NULL, &out->len);
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

void coroc_run(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
               RunOutput *out) {
  run(in, NULL, 0, opt, cpp, dep, out);
}

/* run() with the error caught. */
static int try_run(const char *in, const char *text, size_t text_len, Options *opt,
                   const CppArgs *cpp, const DepOptions *dep, RunOutput *out) {
  jmp_buf escape;
  jmp_buf *volatile outer = diag_escape;
  *out = (RunOutput){0};
  if (setjmp(escape) != 0) {
    diag_escape = outer;
    *out = (RunOutput){0}; /* (what it had went with the error) */
    return 1;
  }
  diag_escape = &escape;
  run(in, text, text_len, opt, cpp, dep, out);
  diag_escape = outer;
  return 0;
}

/* {==================================================================
 * The streaming run (stream.c), and the run again whole when it gives up
 * =================================================================== */

/* Only the C of one backend is printed a coroutine at a time: --dot,
   --stats, --html, --header and coroc-lsp's facts read every coroutine
   at once. So does a run asked to (COROC_WHOLE, to compare the two), and
   one that traces its parse or prints its trees (COROC_TRACE,
   COROC_DUMP_AST), which a streaming run that gave up would print twice. */
static bool streams(const Options *opt) {
  return !opt->dot && !opt->stats && !opt->html && !opt->header && !opt->facts &&
         !getenv("COROC_WHOLE") && !getenv("COROC_TRACE") && !getenv("COROC_DUMP_AST");
}

/* The output file emptied, for the run again whole. (The null device
   cannot be emptied, nor needs to be.) */
static void start_over(FILE *out) {
  fflush(out);
  if (ftruncate(fileno(out), 0) == 0)
    rewind(out);
  clearerr(out);
}

static void write_text(FILE *out, const RunOutput *r) {
  if (fwrite(r->text, 1, r->len, out) != r->len)
    fatal("cannot write the output: %s", strerror(errno));
}

void coroc_run_to(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
                  FILE *out, RunOutput *rest) {
  if (!streams(opt)) {
    run(in, NULL, 0, opt, cpp, dep, rest);
    write_text(out, rest);
    return;
  }
  *rest = (RunOutput){0};
  Source *src = xcalloc(1, sizeof *src); /* (read after the longjmp: not a local) */
  jmp_buf give_up;
  switch (setjmp(give_up)) {
  case 0:
    break;
  case 1: /* an error (diag_hold) */
    if (getenv("COROC_STREAM_REPORT"))
      fputs("coroc: the streaming run gives up (an error): the file is run whole\n", stderr);
    /* fall through */
  default: { /* or what only the whole file decides (stream.c says why) */
    diag_hold(NULL);
    const char *raw = src->raw; /* standard input cannot be read twice: its text is kept */
    size_t len = src->len;
    coroc_restart();
    memory_region_end();
    start_over(out);
    run(in, strcmp(in, "-") == 0 ? raw : NULL, len, opt, cpp, dep, rest);
    write_text(out, rest);
    return;
  }
  }
  diag_hold(&give_up);
  load_input(in, NULL, 0, opt, cpp, src);
  stream_source(src, opt, out, &give_up);
  if (fflush(out) != 0 || ferror(out))
    fatal("cannot write the output: %s", strerror(errno));
  diag_hold(NULL);
  if (dep)
    rest->rule = depfile_rule(dep, src, strcmp(in, "-") == 0 ? NULL : in, &rest->rule_len);
}

/* }================================================================== */

int coroc_try(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
              RunOutput *out) {
  return try_run(in, NULL, 0, opt, cpp, dep, out);
}

int coroc_try_buffer(const char *path, const char *text, size_t len, Options *opt,
                     const CppArgs *cpp, RunOutput *out) {
  return try_run(path, text, len, opt, cpp, NULL, out);
}

/* coroc_try_buffer with both backends from one parse, the preprocessor run
   once (as --html does): out[BACKEND_STACKLESS] and out[BACKEND_STACKFUL]
   (opt's backend is not read). 0; 1: an error in the passes both backends
   share, reported once, which each backend's own run would report; 2: an
   error in one backend's lowering or printing: the caller resets, then runs
   each backend on its own to know which says what. */

/* How far coroc_try_buffer_both got: an error before the lowerings is both
   backends' (static: read after the longjmp). */
static volatile bool lowering;

int coroc_try_buffer_both(const char *path, const char *text, size_t len, const Options *opt,
                          const CppArgs *cpp, RunOutput out[2]) {
  jmp_buf escape;
  jmp_buf *volatile outer = diag_escape;
  out[0] = out[1] = (RunOutput){0};
  lowering = false;
  if (setjmp(escape) != 0) {
    diag_escape = outer;
    out[0] = out[1] = (RunOutput){0};
    return lowering ? 2 : 1;
  }
  diag_escape = &escape;
  Options shared = *opt;
  Source src = {0};
  Coroutine *cos = run_shared(path, text, len, &shared, cpp, &src);
  lowering = true;
  /* As --html does (render_page): the stackful lowering first, which only
     decides which instances run cleanups, then the stackless one, which
     decides that again for itself; each printed before the next. */
  for (int i = 0; i < 2; i++) {
    Options one = shared;
    one.backend = i == 0 ? BACKEND_STACKFUL : BACKEND_STACKLESS;
    lower(&src, cos, &one);
    if (one.facts)
      print_with_facts(&src, cos, &one, &out[one.backend]);
    else
      out[one.backend].text = render(&src, cos, &one, NULL, &out[one.backend].len);
  }
  diag_escape = outer;
  return 0;
}
