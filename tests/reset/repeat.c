/* repeat.c: coroc's pipeline run again and again in one process, as a
 * language server would run it, each run checked against a fresh `coroc`.
 *
 *   coroc_repeat [--rounds N] [--keep-heap] MANIFEST
 *
 * MANIFEST has a line per case, fields separated by tabs:
 *
 *   STATUS  STDOUT-FILE  STDERR-FILE  ARG...  INPUT
 *
 * what a fresh `coroc ARG... INPUT` process gave (tests/test_reset.py runs
 * it): its exit status, and files holding what it printed. ARGs are
 * --backend=stackless|stackful, --no-line, --hoist-all, --dot, -I DIR and
 * -D NAME[=VALUE] (the options that change what coroc prints on standard
 * output, each a field of its own, -I and its DIR two).
 *
 * Each round runs every case once, in an order of its own (rounds after the
 * first shuffle it), through coroc_try (transformer/run.c), then
 * coroc_reset() (transformer/reset.c): inputs that end in an error
 * interleave with inputs that do not. Each run must give the fresh
 * process's status, standard output and standard error, byte for byte; and,
 * from the second round on, leave the process as the first round left it:
 * no more heap in use (an allocation coroc_reset did not give back), no
 * more open descriptors, no child process. Built with AddressSanitizer
 * (tests/test_reset.py builds it so), a use of memory a run gave back fails
 * it too, and LeakSanitizer checks at the exit.
 *
 * --keep-heap does all coroc_reset() does but memory_release(): each
 * module's state goes, the blocks stay. The outputs still match, but the
 * heap grows by what a run leaves (as a one-shot coroc leaves it to exit()):
 * the test shows so that the heap check sees it. (Leaving out coroc_reset
 * altogether, the next run reads the last one's state and fails sooner.)
 *
 * The runs go on a thread with a large stack, as main.c's do.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPEAT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define REPEAT_ASAN 1
#endif
#ifdef REPEAT_ASAN
/* <sanitizer/allocator_interface.h>'s, which gcc's packages may not install */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

/* Bytes of heap in use now: the sanitizer's count (0 in a build without it,
   where the heap is not checked: glibc's own count, mallinfo2, covers one
   arena of many and counts the chunks its caches keep as in use). */
static size_t heap_in_use(void) {
#ifdef REPEAT_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return 0;
#endif
}

/* Descriptors open now. */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return -1;
  int n = 0;
  while (readdir(d))
    n++;
  closedir(d);
  return n;
}

/* A child process not waited for, or none. */
static bool has_child(void) {
  errno = 0;
  return !(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

typedef struct {
  int status;
  char *out, *err; /* what the fresh process printed */
  size_t out_len, err_len;
  Options opt;
  CppArgs cpp;
  const char *input;
  char *line; /* the manifest's line, which the fields point into */
} Case;

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "coroc_repeat: cannot read %s: %s\n", path, strerror(errno));
    exit(2);
  }
  char *text = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (cap - n < 65536)
      text = realloc(text, cap = 2 * cap + 65536);
    got = fread(text + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return text;
}

static void parse_case(Case *c, char *line) {
  *c = (Case){.line = line, .opt = {.line_directives = true}};
  char *field[64];
  int n = 0;
  for (char *save, *f = strtok_r(line, "\t", &save); f && n < 64; f = strtok_r(NULL, "\t", &save))
    field[n++] = f;
  if (n < 4) {
    fprintf(stderr, "coroc_repeat: a manifest line needs STATUS STDOUT STDERR ... INPUT\n");
    exit(2);
  }
  c->status = atoi(field[0]);
  c->out = slurp(field[1], &c->out_len);
  c->err = slurp(field[2], &c->err_len);
  c->input = field[n - 1];
  c->cpp.args = calloc(n, sizeof(char *));
  for (int i = 3; i < n - 1; i++) {
    const char *a = field[i];
    if (strcmp(a, "--backend=stackful") == 0)
      c->opt.backend = BACKEND_STACKFUL;
    else if (strcmp(a, "--backend=stackless") == 0)
      c->opt.backend = BACKEND_STACKLESS;
    else if (strcmp(a, "--no-line") == 0)
      c->opt.line_directives = false;
    else if (strcmp(a, "--hoist-all") == 0)
      c->opt.hoist_all = true;
    else if (strcmp(a, "--dot") == 0)
      c->opt.dot = true;
    else if ((strcmp(a, "-I") == 0 || strcmp(a, "-D") == 0) && i + 1 < n - 1) {
      c->cpp.args[c->cpp.nargs++] = a;
      c->cpp.args[c->cpp.nargs++] = field[++i];
    } else {
      fprintf(stderr, "coroc_repeat: an option it does not take: %s\n", a);
      exit(2);
    }
  }
}

/* Where two texts first differ, for the message. */
static size_t first_difference(const char *a, size_t alen, const char *b, size_t blen) {
  size_t i = 0;
  while (i < alen && i < blen && a[i] == b[i])
    i++;
  return i;
}

static bool same(const char *what, const Case *c, int round, const char *want, size_t want_len,
                 const char *got, size_t got_len) {
  if (got_len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0))
    return true;
  size_t at = first_difference(want, want_len, got, got_len);
  size_t from = at > 60 ? at - 60 : 0;
  fprintf(stderr,
          "coroc_repeat: round %d, %s: %s differs from a fresh coroc's at byte %zu "
          "(%zu bytes, fresh: %zu)\n  fresh: %.*s\n  here:  %.*s\n",
          round + 1, c->input, what, at, got_len, want_len,
          (int)((want_len < at + 60 ? want_len : at + 60) - from), want + from,
          (int)((got_len < at + 60 ? got_len : at + 60) - from), got + from);
  return false;
}

static Case *cases;
static int ncases, rounds = 3;
static bool keep_heap;
static int failures;

/* One run of case c, as round `round` of them: true if it gave what the
   fresh process did. */
static bool run_case(Case *c, int round) {
  char *err = NULL;
  size_t err_len = 0;
  FILE *real_stderr = stderr;
  FILE *capture = open_memstream(&err, &err_len);
  if (!capture) {
    fprintf(stderr, "coroc_repeat: open_memstream: %s\n", strerror(errno));
    exit(2);
  }
  stderr = capture; /* (glibc's stderr is a variable: diag.c prints into this) */
  RunOutput out;
  Options opt = c->opt;
  int status = coroc_try(c->input, &opt, &c->cpp, NULL, &out);
  fflush(stderr);
  stderr = real_stderr;
  fclose(capture);
  bool ok = true;
  if (status != c->status) {
    fprintf(stderr, "coroc_repeat: round %d, %s: exit status %d, a fresh coroc's %d\n", round + 1,
            c->input, status, c->status);
    ok = false;
  }
  ok &= same("standard output", c, round, c->out, c->out_len, out.text ? out.text : "",
             out.text ? out.len : 0);
  ok &= same("standard error", c, round, c->err, c->err_len, err, err_len);
  free(err);
  if (keep_heap)
    coroc_reset_keeping_heap();
  else
    coroc_reset();
  return ok;
}

/* The order of round r: in order first, then shuffled (a fixed sequence,
   so a failure repeats). */
static void order_of(int *order, int r) {
  for (int i = 0; i < ncases; i++)
    order[i] = i;
  uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)(r + 1);
  for (int i = ncases - 1; r > 0 && i > 0; i--) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    int j = (int)((x >> 33) % (uint64_t)(i + 1));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

static void *run_all(void *arg) {
  (void)arg;
  int *order = calloc(ncases ? ncases : 1, sizeof(int));
  size_t heap = 0, first_heap = 0, most_heap = 0;
  int fds = -1;
  for (int r = 0; r < rounds; r++) {
    order_of(order, r);
    for (int i = 0; i < ncases; i++) {
      Case *c = &cases[order[i]];
      if (!run_case(c, r))
        failures++;
      size_t now = heap_in_use();
      int nfds = open_fds();
      if (has_child()) {
        fprintf(stderr, "coroc_repeat: round %d, %s: a child process is left\n", r + 1, c->input);
        failures++;
        while (waitpid(-1, NULL, WNOHANG) > 0)
          ;
      }
      if (r > 0 && now > heap) {
        fprintf(stderr,
                "coroc_repeat: round %d, %s: %zu bytes more heap in use after the run than "
                "after the first round (not given back by coroc_reset)\n",
                r + 1, c->input, now - heap);
        failures++;
      }
      if (r > 0 && nfds != fds) {
        fprintf(stderr,
                "coroc_repeat: round %d, %s: %d descriptors open after the run, %d after the "
                "first round\n",
                r + 1, c->input, nfds, fds);
        failures++;
      }
      if (now > most_heap)
        most_heap = now;
    }
    if (r == 0) {
      heap = heap_in_use();
      fds = open_fds();
    }
    if (r == 0)
      first_heap = heap;
  }
  size_t last = heap_in_use();
  printf(
      "coroc_repeat: %d rounds of %d cases, %d failed; heap in use after the first round "
      "%zu bytes, at the end %zu (%+ld per run after the first round), at most %zu\n",
      rounds, ncases, failures, first_heap, last,
      rounds > 1 ? ((long)last - (long)first_heap) / ((long)(rounds - 1) * ncases) : 0L, most_heap);
  free(order);
  return NULL;
}

int main(int argc, char **argv) {
  const char *manifest = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--keep-heap") == 0)
      keep_heap = true;
    else
      manifest = argv[i];
  }
  if (!manifest || rounds < 1) {
    fprintf(stderr, "usage: coroc_repeat [--rounds N] [--keep-heap] MANIFEST\n");
    return 2;
  }
  size_t len;
  char *text = slurp(manifest, &len);
  text = realloc(text, len + 1);
  text[len] = '\0';
  for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    cases = realloc(cases, sizeof(Case) * (ncases + 1));
    parse_case(&cases[ncases++], line);
  }

  /* The passes recurse as deep as the input nests: main.c runs them on a
     thread with a 1 GiB stack, and so does this. */
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, 1u << 30) != 0 ||
      pthread_create(&thread, &attr, run_all, NULL) != 0 || pthread_join(thread, NULL) != 0) {
    fprintf(stderr, "coroc_repeat: cannot start a thread with a 1 GiB stack\n");
    return 2;
  }
  pthread_attr_destroy(&attr);

  for (int i = 0; i < ncases; i++) {
    free(cases[i].out);
    free(cases[i].err);
    free(cases[i].cpp.args);
  }
  free(cases);
  free(text);
  return failures ? 1 : 0;
}
