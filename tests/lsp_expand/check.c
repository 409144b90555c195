/* check.c: coroc-lsp's own expansion of a body (transformer/lsp/expand.c)
 * against the preprocessor's, for tests/test_lsp_expand.py.
 *
 *   coroc_lsp_expand [CPP-OPTION...] -- FILE...
 *
 * Each file goes through the server's preamble (preamble_expand) twice, as
 * an open document and its first change: the first run preprocesses the
 * whole text (the preprocessor's own answer), the second reads the kept
 * headers and expands the body, in the server's process when expand.c can
 * (else the preprocessor runs on the body). Then the two outputs are
 * compared as coroc reads them: the same tokens on the same lines of the
 * document (whitespace inside a line aside), the same directive lines; and
 * coroc's pipeline is run on each (both backends, as the server runs it):
 * the same C, or the same first error. One line a file:
 *   FILE HOW same
 *   FILE HOW differs: WHAT
 * HOW: `self` (expand.c), `cpp` (it fell back), `outside` (the preamble does
 * not stand for the file: nothing compared). When the preprocessor rejects
 * the whole text, the server must not expand its body either (made from a
 * preamble of the text up to its last #include line): it differs if it
 * does. Exit 1 if any differs.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"
#include "pp.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  size_t cap = 0;
  FILE *m = open_memstream(&buf, &cap);
  char chunk[65536];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
    fwrite(chunk, 1, n, m);
  fclose(f);
  fclose(m);
  *len = cap;
  return buf;
}

static char *read_fd_all(int fd, size_t *len) {
  struct stat st;
  fstat(fd, &st);
  char *buf = malloc(st.st_size + 1);
  size_t n = pread(fd, buf, st.st_size, 0) == st.st_size ? (size_t)st.st_size : 0;
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* One line of output, its tokens joined by a space (a directive as it is),
   after `line`'s earlier ones: a linemarker may split a line of the
   document (gcc's around a system header's macro), and coroc reads the
   pieces as one line. */
static void print_tokens(FILE *f, long line, long *last, const char *p, const char *eol) {
  jmp_buf fail;
  PPLexer l;
  pplex_init(&l, p, eol - p, 1, &fail);
  l.skipping = true; /* (anything at all is a token here) */
  if (p[0] == '#') {
    fprintf(f, "\n%ld: %.*s", line, (int)(eol - p), p);
    *last = -1;
    return;
  }
  if (!setjmp(fail)) {
    for (PPTok t; (t = pplex(&l, true)).kind != K_EOD;) {
      if (*last != line)
        fprintf(f, "\n%ld:", line);
      *last = line;
      fprintf(f, " %.*s", t.len, t.s);
    }
  } else {
    fprintf(f, "\n%ld: (unreadable) %.*s", line, (int)(eol - p), p);
    *last = -1;
  }
}

/* The document's lines from `from` on, as coroc reads them: "LINE: its
   tokens", one a line, in a memstream's text. */
static char *lines_of(const char *out, size_t len, int from) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  long line = 1, last = -1;
  bool main_file = false;
  for (const char *p = out, *end = out + len; p < end;) {
    const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end;
    if (eol - p > 2 && p[0] == '#' && p[1] == ' ' && p[2] >= '0' && p[2] <= '9') {
      line = strtol(p + 2, NULL, 10);
      main_file = memmem(p, eol - p, "\"<stdin>\"", 9) != NULL;
    } else {
      if (main_file && line >= from && eol > p)
        print_tokens(f, line, &last, p, eol);
      line++;
    }
    p = eol + 1;
  }
  fputc('\n', f);
  fclose(f);
  return text;
}

/* What coroc's pipeline says of the document with this output: its C by
   each backend, or its first error (malloc). */
static void collect(const Diagnostic *d, void *ctx) {
  char **first = ctx;
  if (!*first && asprintf(first, "%s:%d:%d: %s", d->pos.file ? d->pos.file : "", d->pos.line,
                          d->pos.col, d->message) < 0)
    abort();
}

static char *pipeline(const char *path, const char *text, size_t len, const char **args, int nargs,
                      const char *out, size_t out_len) {
  int fd = memfd_create("check-expanded", 0);
  if (fd < 0 || write(fd, out, out_len) != (ssize_t)out_len)
    abort();
  lseek(fd, 0, SEEK_SET);
  CppArgs cpp = {.args = args, .nargs = nargs, .output_fd = fd};
  Options opt = {.line_directives = true};
  RunOutput ro[2];
  char *first = NULL, *said = NULL;
  diag_set_sink(collect, &first);
  int failed = coroc_try_buffer_both(path, text, len, &opt, &cpp, ro);
  diag_set_sink(NULL, NULL);
  if (failed == 0) {
    if (asprintf(&said, "%.*s\n---\n%.*s", (int)ro[0].len, ro[0].text, (int)ro[1].len,
                 ro[1].text) < 0)
      abort();
  } else {
    if (asprintf(&said, "error %d: %s", failed, first ? first : "(none said)") < 0)
      abort();
  }
  free(first);
  coroc_reset();
  close(fd);
  return said;
}

/* The preprocessor rejects the whole text: with a preamble made of the
   text up to its last #include line alone (its headers; the body empty),
   does the server expand the body anyway? (It must leave it to the
   preprocessor, whose error coroc then reports.) */
static bool rejected_body(const char *path, const char *text, size_t len, const char **args,
                          int nargs) {
  size_t prefix = 0;
  for (const char *p = text; p < text + len;) {
    const char *nl = memchr(p, '\n', text + len - p), *eol = nl ? nl + 1 : text + len;
    if (strncmp(p, "#include", 8) == 0)
      prefix = eol - text;
    p = eol;
  }
  Preamble *p = NULL;
  Expanded how1, how2 = EXPANDED_BY_COROC;
  int fd = preamble_expand(&p, path, text, prefix, args, nargs, &how1);
  coroc_reset();
  if (fd >= 0) {
    close(fd);
    fd = preamble_expand(&p, path, text, len, args, nargs, &how2);
    coroc_reset();
    if (fd >= 0)
      close(fd);
  }
  preamble_free(p);
  return how1 == EXPANDED_WHOLE && how2 == EXPANDED_BODY;
}

static bool check_file(const char *path, const char **args, int nargs) {
  size_t len;
  char *text = slurp(path, &len);
  if (!text) {
    printf("%s\tunreadable differs: cannot read it\n", path);
    return false;
  }
  Preamble *p = NULL;
  Expanded how1, how2;
  int whole_fd = preamble_expand(&p, path, text, len, args, nargs, &how1);
  coroc_reset();
  int body_fd = whole_fd >= 0 ? preamble_expand(&p, path, text, len, args, nargs, &how2) : -1;
  coroc_reset();
  bool ok = true;
  if (whole_fd < 0 && how1 == EXPANDED_BY_COROC && rejected_body(path, text, len, args, nargs)) {
    printf("%s\tself differs: expanded a body that gcc rejects\n", path);
    ok = false;
  } else if (whole_fd < 0 || body_fd < 0 || how1 != EXPANDED_WHOLE || how2 == EXPANDED_WHOLE) {
    printf("%s\toutside same\n", path);
  } else {
    size_t whole_len, body_len;
    char *whole = read_fd_all(whole_fd, &whole_len), *body = read_fd_all(body_fd, &body_len);
    const char *how = how2 == EXPANDED_BODY ? "self" : "cpp";
    const char *dump = getenv("CHECK_DUMP"); /* (by hand: both outputs, to look at) */
    if (dump) {
      char *name;
      if (asprintf(&name, "%s.cpp", dump) < 0)
        abort();
      FILE *f = fopen(name, "w");
      fwrite(whole, 1, whole_len, f);
      fclose(f);
      name[strlen(name) - 3] = 'o';
      name[strlen(name) - 2] = 'w';
      name[strlen(name) - 1] = 'n';
      f = fopen(name, "w");
      fwrite(body, 1, body_len, f);
      fclose(f);
      free(name);
    }
    char *a = lines_of(whole, whole_len, 1), *b = lines_of(body, body_len, 1);
    char *ca = pipeline(path, text, len, args, nargs, whole, whole_len);
    char *cb = pipeline(path, text, len, args, nargs, body, body_len);
    if (strcmp(a, b) != 0) {
      const char *x = a, *y = b;
      while (*x && *x == *y)
        x++, y++;
      while (x > a && x[-1] != '\n')
        x--, y--;
      printf("%s\t%s differs: lines: the preprocessor's %.*s ... expand's %.*s\n", path, how,
             (int)strcspn(x, "\n"), x, (int)strcspn(y, "\n"), y);
      ok = false;
    } else if (strcmp(ca, cb) != 0) {
      printf("%s\t%s differs: coroc says otherwise\n", path, how);
      ok = false;
    } else {
      printf("%s\t%s same\n", path, how);
    }
    free(a);
    free(b);
    free(ca);
    free(cb);
    free(whole);
    free(body);
  }
  if (whole_fd >= 0)
    close(whole_fd);
  if (body_fd >= 0)
    close(body_fd);
  preamble_free(p);
  free(text);
  return ok;
}

int main(int argc, char **argv) {
  int dashes = 1;
  while (dashes < argc && strcmp(argv[dashes], "--") != 0)
    dashes++;
  if (dashes >= argc) {
    fprintf(stderr, "usage: %s [CPP-OPTION...] -- FILE...\n", argv[0]);
    return 2;
  }
  bool ok = true;
  for (int i = dashes + 1; i < argc; i++) {
    ok &= check_file(argv[i], (const char **)argv + 1, dashes - 1);
    fflush(stdout);
  }
  return ok ? 0 : 1;
}
