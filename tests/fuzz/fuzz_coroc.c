/* fuzz_coroc.c: a libFuzzer target for coroc's whole pipeline, in-process.
 *
 * Each input is a .coc text. It goes through what `coroc IN.coc` does,
 * once per backend:
 *
 *   source_load_text  the text stands for the preprocessor's output too
 *                     (source.c: no `cc -E` per input), after a prelude that
 *                     stands for coro.h and the types of common headers
 *                     (prelude.h)
 *   parse_source      both parses
 *   check, layout_frames, lower
 *                     the coroutine rules, the frames, the stackless bodies
 *   emit, emit_dot    the C (printed twice: the same bytes, as
 *                     COROC_CHECK_EMIT checks), --dot's graphs, and the C of
 *                     --no-line
 *   stream_source     the streaming run, which `coroc IN.coc -o OUT.c` takes
 *                     (docs/design.md, "The streaming run"): a coroutine at a
 *                     time, each one's memory given back before the next. It
 *                     must print the same bytes as the whole run, or give up
 *                     (then coroc runs the file whole); and give up when the
 *                     whole run finds an error.
 *
 * --stats is left out: it runs the compiler. An error in the input is a
 * normal end of a run (diag.c longjmps back here, under COROC_FUZZING); an
 * internal error aborts, and so does output that changes when printed
 * again: those are what the fuzzer looks for, with the sanitizers' reports.
 * After each run, coroc_reset() gives back everything, so runs are
 * independent and LeakSanitizer sees no leak.
 *
 * Inputs need no header byte: every file of the test suite is a seed as it
 * stands. Built by tests/fuzz/CMakeLists.txt; run by tests/fuzz/run.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "stream.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the preprocessor would print before the input: coro.h and the types
   of common headers (prelude.h), preprocessed at build time into the file
   COROC_FUZZ_PRELUDE names ($COROC_FUZZ_PRELUDE may name another). */
static char *prelude;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *path = getenv("COROC_FUZZ_PRELUDE");
  if (!path || !*path)
    path = COROC_FUZZ_PRELUDE;
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz_coroc: cannot read the prelude %s\n", path);
    exit(1);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);  /* libc's: the prelude lives to the end */
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, got, mem);
  fclose(f);
  if (len && text[len - 1] != '\n')
    fputc('\n', mem);  /* the input's linemarker must start a line */
  fclose(mem);
  prelude = text;
  return 0;
}

typedef struct {
  const uint8_t *data;
  size_t size;
} Input;

static const CppArgs no_cpp = {0};

/* One run of the whole pipeline, as `coroc --backend=B` would do it with
   --dot, --stats or --html; its C (with #line directives) in *whole, a
   copy in libc's heap (NULL: an error in the input). */
static void run(const Input *in, Backend backend, char **whole, size_t *whole_len) {
  jmp_buf escape;
  *whole = NULL;
  if (setjmp(escape) == 0) {
    diag_escape = &escape;
    Source src = {0};
    source_load_text(&src, "fuzz.coc", (const char *)in->data, in->size, prelude);
    Coroutine *cos = parse_source(&src);
    Options opt = {.backend = backend, .cpp = &no_cpp, .input_dir = ".", .line_directives = true};
    check(&src, cos);
    layout_frames(&src, cos, &opt);
    lower(&src, cos, &opt);
    size_t len, dot_len, again_len, plain_len;
    char *c = emit_to_string(&src, cos, &opt, false, &len);
    emit_to_string(&src, cos, &opt, true, &dot_len);
    char *again = emit_to_string(&src, cos, &opt, false, &again_len);
    if (again_len != len || memcmp(again, c, len) != 0) {
      fprintf(stderr, "fuzz_coroc: printing again gave different output: a printer changed the tree\n");
      abort();
    }
    opt.line_directives = false;
    emit_to_string(&src, cos, &opt, false, &plain_len);
    *whole = malloc(len + 1);
    if (!*whole)
      abort();
    memcpy(*whole, c, len);
    *whole_len = len;
  }
  diag_escape = NULL;
  coroc_reset();  /* (all the buffers above go with it) */
}

/* The streaming run of the same input (stream.c), printed into memory, and
   held to what the whole run printed. */
static void run_streaming(const Input *in, Backend backend, const char *whole, size_t whole_len) {
  jmp_buf give_up;
  static char *c; /* (read after the longjmp: not locals) */
  static size_t len;
  static FILE *out;
  if (setjmp(give_up) == 0) {
    diag_hold(&give_up);
    Source src = {0};
    source_load_text(&src, "fuzz.coc", (const char *)in->data, in->size, prelude);
    Options opt = {.backend = backend, .cpp = &no_cpp, .input_dir = ".", .line_directives = true};
    out = open_memstream(&c, &len); /* libc's: the runs' regions come and go as it grows */
    stream_source(&src, &opt, out, &give_up);
    fclose(out);
    out = NULL;
    diag_hold(NULL);
    if (!whole) {
      fprintf(stderr, "fuzz_coroc: the streaming run printed C where the whole run found an error\n");
      abort();
    }
    if (len != whole_len || memcmp(c, whole, len) != 0) {
      fprintf(stderr, "fuzz_coroc: the streaming run printed other C than the whole run\n");
      abort();
    }
  } else { /* an error, or what only the whole file decides: coroc would run it whole */
    diag_hold(NULL);
    memory_region_end();
    if (out)
      fclose(out);
    out = NULL;
  }
  free(c);
  c = NULL;
  coroc_reset();
}

static void run_both(const Input *in, Backend backend) {
  char *whole;
  size_t whole_len = 0;
  run(in, backend, &whole, &whole_len);
  run_streaming(in, backend, whole, whole_len);
  free(whole);
}

/* The passes recurse as deep as the input nests: coroc runs them on a
   thread with a large stack (main.c), and so does the harness (libFuzzer's
   own thread has the usual 8 MiB). One thread for all inputs: under ASan a
   new thread per input would cost more than the run (its stack's shadow is
   cleared when it ends). */
enum { RUN_STACK = 1 << 30 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static const Input *pending;  /* the input handed to the worker, NULL when it is done */

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!pending)
      pthread_cond_wait(&wake, &lock);
    pthread_mutex_unlock(&lock);
    run_both(pending, BACKEND_STACKLESS);
    run_both(pending, BACKEND_STACKFUL);
    pthread_mutex_lock(&lock);
    pending = NULL;
    pthread_cond_broadcast(&wake);
  }
  return NULL;
}

static void start_worker(void) {
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, RUN_STACK) != 0 ||
      pthread_create(&thread, &attr, worker, NULL) != 0) {
    fprintf(stderr, "fuzz_coroc: cannot start a thread with a %d MiB stack\n", RUN_STACK >> 20);
    exit(1);
  }
  pthread_attr_destroy(&attr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, start_worker);
  Input in = {data, size};
  pthread_mutex_lock(&lock);
  pending = &in;
  pthread_cond_broadcast(&wake);
  while (pending)
    pthread_cond_wait(&wake, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}
