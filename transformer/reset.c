/* reset.c: the way back to the start, for a program that runs the pipeline
 * again and again in one process (a language server; the fuzz harness;
 * tests/reset).
 *
 * coroc runs once and leaves its memory to exit(). A program that runs it
 * on input after input calls coroc_reset() after each run (coroc_try,
 * run.c), also when an error longjmp'ed out of it halfway: it gives back
 * all that the run left, memory, descriptors and child processes, so that
 * the next run starts as a new process would (but for the arenas' blocks,
 * kept empty for the next run to take: memory.c). Each module gives back its
 * own; this file only knows them all, so it stands on top, beside main.c.
 */
#include "coroc.h"
#include "front/lines.h"

/* Every module's state, as at the start of the process: the modules' own
   first (they free into the heap), the streams an error left open, then
   the heap and the arenas (unless kept), and what diagnostics know last. */
static void release_modules(void) {
  scope_release();
  macros_release();
  source_release();
  tokens_release();
  lexer_release();
  lines_release();
  cleanup_release();
  memstream_release();
}

static void release_all(bool heap) {
  release_modules();
  if (heap)
    memory_release();
  diag_release();
}

/* (the arenas hold nothing of the caller's) */
void coroc_restart(void) {
  release_modules();
  memory_release_arenas();
  diag_restart();
}

void coroc_reset(void) {
  release_all(true);
}

void coroc_reset_keeping_heap(void) {
  release_all(false);
}
