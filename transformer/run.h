/* run.h: the driver's interface, what main.c, coroc-lsp and the tests'
 * repeat harness call: one run of the whole pipeline on a file or an
 * editor's buffer, in memory, its output as data (run.c).
 */
#ifndef COROC_RUN_H
#define COROC_RUN_H

#include "coroc.h"
#include "output/depfile.h"
#include "output/facts.h"

/* {=====================================================================
 * run.c: one run of the whole pipeline, in memory
 * ====================================================================== */

typedef struct {
  char *text; /* the C, --dot's graphs or --stats' table */
  size_t len;
  char *rule; /* -MD's rule, or NULL */
  size_t rule_len;
  char *header; /* --header's, or NULL */
  size_t header_len;
  Facts
      *facts; /* with Options.facts: each definition's (output/facts.h), its place in text noted */
} RunOutput;

/* What `coroc` does with `in` ("-": standard input) short of writing files:
   read it, parse, check, lay out, lower and print, by `opt` (its cpp, input
   and input_dir are set here from `cpp` and `in`); `dep`, when not NULL, is
   -MD's. An error ends the run as error_at says: by exit(1), or by a
   longjmp to *diag_escape. What it gives lives until coroc_reset(). */
void coroc_run(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
               RunOutput *out);
/* coroc_run with the C written to `out` a coroutine at a time, as it is
   made (stream.c), and the memory of each given back before the next: what
   the output of coroc is. What `rest` gets is the rest (text NULL): -MD's
   rule. --dot, --stats, --html and --header run whole, their text written
   to out. On an error, or what only the whole file decides, the streaming
   run gives up quietly, empties `out` (which must be a file, or the null
   device) and runs again whole, which says the error as coroc_run does. */
void coroc_run_to(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
                  FILE *out, RunOutput *rest);
/* coroc_run with the error caught: 0, or 1 when the input had an error (its
   message is on stderr, or with diag_set_sink's sink). The caller calls
   coroc_reset() after either. */
int coroc_try(const char *in, Options *opt, const CppArgs *cpp, const DepOptions *dep,
              RunOutput *out);
/* coroc_try on `text` (len bytes: an editor's buffer) named `path`, whose
   directory is searched first for "..." includes, as the file's would be. */
int coroc_try_buffer(const char *path, const char *text, size_t len, Options *opt,
                     const CppArgs *cpp, RunOutput *out);
/* Both backends of one parse into out[Backend]: 0, 1 (an error of both), 2 (run.c says). */
int coroc_try_buffer_both(const char *path, const char *text, size_t len, const Options *opt,
                          const CppArgs *cpp, RunOutput out[2]);

#endif
