/* reset.c: the fuzz build's way back to the start (tests/fuzz).
 *
 * The fuzz harness runs the pipeline on input after input in one process,
 * where coroc runs once and leaves its memory to exit(). After each run,
 * coroc_reset() gives back all that the run left, also when an error
 * longjmp'ed out of it halfway, so that the next run starts as a new process
 * would. Each module gives back its own; this file only knows them all, so
 * it stands on top, beside main.c, and is built into the fuzz target alone.
 */
#include "coroc.h"

#ifdef COROC_FUZZING

/* Every module's state, as at the start of the process: the modules' own
   first (they free into the heap), the streams an error left open, then
   the heap and the arenas, and what diagnostics know last. */
void coroc_reset(void) {
  scope_release();
  macros_release();
  source_release();
  tokens_release();
  stats_release();
  lexer_release();
  lines_release();
  memstream_release();
  memory_release();
  diag_release();
}

#endif /* COROC_FUZZING */
