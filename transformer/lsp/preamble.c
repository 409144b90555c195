/* preamble.c: a document's headers, preprocessed once, not at every change.
 *
 * coroc reads its input through the system preprocessor (source.c), and
 * nearly all of that work is the headers: echo.coc's 700 lines become
 * 300 KB of declarations and 2,000 macros. An edit in a function body
 * changes none of it. So the server splits the document in two:
 *  - the prefix, up to its last #include (and to the end of the #if group
 *    around it), preprocessed whole when it changes (or the options do);
 *    what that printed up to the body's first line is kept (the head), and
 *    so are the macros in effect there: the #define and #undef lines the
 *    preprocessor prints with -dD, those of its built-ins left out;
 *  - the body, everything after, expanded at each change on its own with
 *    the prefix's macros: by the server itself (expand.c, which reads the
 *    macros once, into the preamble's table), or, when it cannot say it
 *    exactly, by the preprocessor, with the prefix's macros read first
 *    (-imacros) and a #line that gives the body's lines their numbers in
 *    the document.
 * The head and the body's output, joined, are what the preprocessor prints
 * for the whole document: the body can hold no #include (the prefix ends at
 * the last one), its macros are the ones the whole run would see, and
 * __LINE__ counts as in the document. coroc reads the joined text instead
 * of running the preprocessor (CppArgs.output_fd), once per backend.
 *
 * What stays out, run as before (preamble_expand answers -1): a document
 * with `#line` directives or lone CRs (coroc gives the preprocessor
 * another text then: lines.c), plain C (no -dD), a body with __COUNTER__
 * or #pragma pop_macro (state the macros do not carry), and any run where
 * the preprocessor fails: coroc's own run then reports the failure as it
 * always does. The files the head came from (its linemarkers name them)
 * are looked at again at each change: when one of them changed on disk
 * (its time, size or inode), or went, the prefix is preprocessed again,
 * as clangd does with its own preamble.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "front/lines.h"
#include "lsp.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A file the preprocessor read for the head, and what it was then. */
typedef struct {
  char *path;
  struct stat st;
} Header;

struct Preamble {
  char *key; /* the preprocessor's command for the whole document, words joined by NULs */
  size_t key_len;
  char *prefix; /* the document's text before the body */
  size_t prefix_len;
  int body_line; /* the body's first line (1-based) */
  char *head;    /* what the preprocessor printed before the body's first line */
  size_t head_len;
  int macros;        /* a memfd: the #define and #undef lines in effect at the body */
  MacroTable *table; /* the same, read, with the built-ins' (expand.c); NULL: cc expands */
  Header *headers;   /* the files the head came from, as they were */
  int nheaders;
};

void preamble_free(Preamble *p) {
  if (!p)
    return;
  free(p->key);
  free(p->prefix);
  free(p->head);
  if (p->macros >= 0)
    close(p->macros);
  expand_table_free(p->table);
  for (int i = 0; i < p->nheaders; i++)
    free(p->headers[i].path);
  free(p->headers);
  free(p);
}

/* {==================================================================
 * Where the body starts
 * =================================================================== */

/* The offset just past the line of `at` (and its continuations). */
static size_t line_end(const char *text, size_t len, size_t at) {
  while (at < len && text[at] != '\n')
    at += text[at] == '\\' && at + 1 < len ? 2 : 1;
  return at < len ? at + 1 : len;
}

/* Past a comment at `at` (none: `at`); a block comment may end lines later. */
static size_t skip_comment(const char *text, size_t len, size_t at) {
  if (at + 1 < len && text[at] == '/' && text[at + 1] == '*') {
    const char *end = memmem(text + at + 2, len - at - 2, "*/", 2);
    return end ? (size_t)(end - text) + 2 : len;
  }
  if (at + 1 < len && text[at] == '/' && text[at + 1] == '/') {
    size_t end = line_end(text, len, at); /* (the newline stays: it ends the line) */
    return end > at && text[end - 1] == '\n' ? end - 1 : end;
  }
  return at;
}

/* Past a line that is not a directive: its literals and comments, which
   may hide a `#` or a newline. */
static size_t skip_code_line(const char *text, size_t len, size_t at) {
  while (at < len && text[at] != '\n') {
    size_t past = skip_comment(text, len, at);
    if (past != at) {
      at = past;
    } else if (text[at] == '"' || text[at] == '\'') {
      char q = text[at++];
      while (at < len && text[at] != q && text[at] != '\n')
        at += text[at] == '\\' && at + 1 < len ? 2 : 1;
      at += at < len && text[at] == q;
    } else {
      at += text[at] == '\\' && at + 1 < len ? 2 : 1;
    }
  }
  return at < len ? at + 1 : len;
}

typedef enum { DIR_OTHER, DIR_INCLUDE, DIR_IF, DIR_ENDIF } DirKind;

static DirKind directive_kind(const char *name, size_t n) {
  static const struct {
    const char *name;
    DirKind kind;
  } known[] = {{"include", DIR_INCLUDE}, {"include_next", DIR_INCLUDE},
               {"import", DIR_INCLUDE},  {"if", DIR_IF},
               {"ifdef", DIR_IF},        {"ifndef", DIR_IF},
               {"endif", DIR_ENDIF}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i].name) == n && memcmp(known[i].name, name, n) == 0)
      return known[i].kind;
  return DIR_OTHER;
}

/* The offset where the body starts (0: all of it is body) and its line:
   after the last #include, or after the #endif that closes the group it
   stands in. -1 when an #if is never closed (the preprocessor will say). */
static long body_start(const char *text, size_t len, int *body_line) {
  size_t at = 0, end = 0;
  int line = 1, depth = 0, end_line = 1;
  bool waiting = false; /* an #include seen inside a group: the prefix ends with the group */
  while (at < len) {
    size_t start = at;
    while (at < len && (text[at] == ' ' || text[at] == '\t' || skip_comment(text, len, at) != at))
      at = text[at] == ' ' || text[at] == '\t' ? at + 1 : skip_comment(text, len, at);
    size_t next;
    if (at < len && text[at] == '#') {
      size_t p = at + 1;
      while (p < len && (text[p] == ' ' || text[p] == '\t'))
        p++;
      size_t n = 0;
      while (p + n < len && is_ident_char(text[p + n]))
        n++;
      DirKind kind = directive_kind(text + p, n);
      next = skip_code_line(text, len, p + n);
      depth += kind == DIR_IF ? 1 : kind == DIR_ENDIF ? -1 : 0;
      for (size_t i = start; i < next; i++)
        line += text[i] == '\n';
      if (kind == DIR_INCLUDE)
        waiting = true;
      if (waiting && depth <= 0) {
        end = next;
        end_line = line;
        waiting = false;
      }
    } else {
      next = skip_code_line(text, len, at);
      for (size_t i = start; i < next; i++)
        line += text[i] == '\n';
    }
    at = next;
  }
  if (waiting || depth > 0)
    return -1;
  *body_line = end_line;
  return (long)end;
}

/* }================================================================== */

/* {==================================================================
 * Running the preprocessor
 * =================================================================== */

static int memfd_of(const char *name, const char *text, size_t len) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  for (size_t done = 0; done < len;) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += w;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

char *read_whole_fd(int fd, size_t *len) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return NULL;
  char *buf = malloc(st.st_size + 1);
  if (!buf)
    abort();
  size_t n = 0;
  while (n < (size_t)st.st_size) {
    ssize_t r = pread(fd, buf + n, st.st_size - n, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    n += r;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* argv on `text`, with `extra` as its descriptor 3 (-1: none): what it
   printed (malloc), or NULL when it failed. Its messages are not read: on
   a failure, coroc's own run says them. */
static char *run_cpp(const char **argv, const char *text, size_t len, int extra, size_t *out_len) {
  int in = memfd_of("coroc-lsp-cpp-in", text, len);
  int out = memfd_create("coroc-lsp-cpp-out", MFD_CLOEXEC);
  char *printed = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in, 0);
  posix_spawn_file_actions_adddup2(&fa, out, 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  if (extra >= 0)
    posix_spawn_file_actions_adddup2(&fa, extra, 3);
  pid_t pid;
  int status = 1;
  if (in >= 0 && out >= 0 &&
      posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      printed = read_whole_fd(out, out_len);
  }
  posix_spawn_file_actions_destroy(&fa);
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  return printed;
}

/* }================================================================== */

/* {==================================================================
 * Reading what it printed
 * =================================================================== */

/* Is the line at `p` a linemarker (`# 12 "file" 2`)? Then its number and
   whether it names the input ("<stdin>"), the built-ins. */
static bool linemarker(const char *p, const char *end, long *number, bool *main, bool *builtin) {
  if (p + 2 >= end || p[0] != '#' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
    return false;
  *number = strtol(p + 2, NULL, 10);
  const char *q = memchr(p, '"', end - p);
  *main = q && end - q > 8 && memcmp(q, "\"<stdin>\"", 9) == 0;
  *builtin = q && end - q > 11 && memcmp(q, "\"<built-in>\"", 12) == 0;
  return true;
}

/* The offset of the first line the preprocessor printed for line `body_line`
   of the input or after it (a linemarker there included); the output's
   length when there is none. With `macros`, the #define and #undef lines
   before it go there, but the built-ins' (the body's run has them); with
   `all`, all of them and the linemarkers (what expand_table reads). */
static size_t cut_at(const char *out, size_t len, int body_line, FILE *macros, FILE *all) {
  long line = 1;
  bool main = false, builtin = false;
  for (size_t at = 0; at < len;) {
    const char *p = out + at, *nl = memchr(p, '\n', len - at);
    const char *end = nl ? nl : out + len;
    long number;
    bool marks_main, marks_builtin;
    if (linemarker(p, end, &number, &marks_main, &marks_builtin)) {
      if (marks_main && number >= body_line)
        return at;
      if (all)
        fprintf(all, "%.*s\n", (int)(end - p), p);
      line = number;
      main = marks_main;
      builtin = marks_builtin;
    } else {
      if (main && line >= body_line)
        return at;
      bool directive = strncmp(p, "#define ", 8) == 0 || strncmp(p, "#undef ", 7) == 0;
      if (macros && !builtin && directive)
        fprintf(macros, "%.*s\n", (int)(end - p), p);
      if (all && directive)
        fprintf(all, "%.*s\n", (int)(end - p), p);
      line++;
    }
    at = end - out + (nl != NULL);
  }
  return len;
}

/* The file a linemarker names (its quoted name, unescaped as the
   preprocessor escapes it: \\, \" and \ooo), malloc'd; NULL for a name in
   angle brackets (<stdin>, <built-in>, <command-line>). */
static char *marked_file(const char *p, const char *end) {
  const char *q = memchr(p, '"', end - p);
  if (!q || q + 1 >= end || q[1] == '<')
    return NULL;
  char *name = malloc(end - q), *o = name;
  if (!name)
    abort();
  for (q++; q < end && *q != '"'; q++) {
    if (*q == '\\' && q + 1 < end && q[1] >= '0' && q[1] <= '7') {
      int c = 0;
      for (int i = 0; i < 3 && q + 1 < end && q[1] >= '0' && q[1] <= '7'; i++)
        c = c * 8 + (*++q - '0');
      *o++ = (char)c;
    } else {
      *o++ = *q == '\\' && q + 1 < end ? *++q : *q;
    }
  }
  *o = '\0';
  return name;
}

/* The files that the linemarkers of the head name, each once, as they are
   on disk now. One that cannot be looked at is left out: nothing could
   tell when it changes. */
static void note_headers(Preamble *np) {
  const char *out = np->head, *end = np->head + np->head_len;
  int cap = 0;
  for (const char *p = out; p < end;) {
    const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end;
    long number;
    bool main, builtin;
    char *name = linemarker(p, eol, &number, &main, &builtin) ? marked_file(p, eol) : NULL;
    bool seen = false;
    for (int i = 0; name && !seen && i < np->nheaders; i++)
      seen = strcmp(np->headers[i].path, name) == 0;
    struct stat st;
    if (name && !seen && stat(name, &st) == 0) {
      if (np->nheaders == cap) {
        cap = cap ? 2 * cap : 64;
        np->headers = realloc(np->headers, cap * sizeof *np->headers);
        if (!np->headers)
          abort();
      }
      np->headers[np->nheaders++] = (Header){name, st};
      name = NULL;
    }
    free(name);
    p = eol + (nl != NULL);
  }
}

/* Is every file the head came from as it was? */
static bool headers_unchanged(const Preamble *p) {
  for (int i = 0; i < p->nheaders; i++) {
    struct stat st;
    const struct stat *was = &p->headers[i].st;
    if (stat(p->headers[i].path, &st) != 0 || st.st_ino != was->st_ino ||
        st.st_dev != was->st_dev || st.st_size != was->st_size ||
        st.st_mtim.tv_sec != was->st_mtim.tv_sec || st.st_mtim.tv_nsec != was->st_mtim.tv_nsec)
      return false;
  }
  return true;
}

/* }================================================================== */

/* The command's words, joined by NULs: what says the options changed. */
static char *command_key(const char **argv, size_t *len) {
  size_t n = 0;
  for (int i = 0; argv[i]; i++)
    n += strlen(argv[i]) + 1;
  char *key = malloc(n + 1), *o = key;
  if (!key)
    abort();
  for (int i = 0; argv[i]; i++)
    o = stpcpy(o, argv[i]) + 1;
  *len = n;
  return key;
}

/* Is the command gcc's preprocessor with options that expand.c's model
   holds for (the modes C99 to C17; no options that change what it reads or
   prints, or make a warning an error)? */
static bool expandable_command(const char **argv) {
  static const char *const with_value[] = {"-I",       "-D",       "-U",       "-iquote",
                                           "-isystem", "-include", "-imacros", "-idirafter"};
  static const char *const prefixes[] = {"-I", "-D", "-U", "-iquote", "-isystem", "-idirafter"};
  static const char *const modes[] = {
      "c99",   "c11",   "c17",          "c18",          "gnu99",        "gnu11",
      "gnu17", "gnu18", "iso9899:1999", "iso9899:2011", "iso9899:2017", "iso9899:2018"};
  const char *cc = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(cc, "cc") != 0 && strncmp(cc, "gcc", 3) != 0)
    return false;
  for (int i = 1; argv[i]; i++) {
    const char *w = argv[i];
    bool ok = strcmp(w, "-E") == 0 || strcmp(w, "-dD") == 0 || strcmp(w, "-") == 0;
    if (strcmp(w, "-x") == 0) {
      ok = argv[i + 1] && strcmp(argv[i + 1], "c") == 0;
      i++;
    }
    for (size_t k = 0; !ok && k < sizeof with_value / sizeof *with_value; k++)
      if (strcmp(w, with_value[k]) == 0 && argv[i + 1]) {
        ok = true;
        i++;
      }
    for (size_t k = 0; !ok && k < sizeof prefixes / sizeof *prefixes; k++)
      ok = strncmp(w, prefixes[k], strlen(prefixes[k])) == 0;
    for (size_t k = 0; !ok && k < sizeof modes / sizeof *modes; k++)
      ok = strncmp(w, "-std=", 5) == 0 && strcmp(w + 5, modes[k]) == 0;
    if (!ok)
      return false;
  }
  return true;
}

/* The whole document through the preprocessor: the new preamble (*p), and
   what it printed, or NULL. */
static char *build(Preamble **p, const char **argv, const char *text, size_t len, size_t start,
                   int body_line, size_t *out_len) {
  preamble_free(*p);
  *p = NULL;
  char *out = run_cpp(argv, text, len, -1, out_len);
  if (!out)
    return NULL;
  Preamble *np = calloc(1, sizeof *np);
  char *macros = NULL, *all = NULL;
  size_t macros_len = 0, all_len = 0;
  FILE *m = open_memstream(&macros, &macros_len), *a = open_memstream(&all, &all_len);
  if (!np || !m || !a)
    abort();
  np->key = command_key(argv, &np->key_len);
  np->prefix = malloc(start + 1);
  if (!np->prefix)
    abort();
  memcpy(np->prefix, text, start);
  np->prefix_len = start;
  np->body_line = body_line;
  np->head_len = cut_at(out, *out_len, body_line, m, a);
  fclose(m);
  fclose(a);
  if (expandable_command(argv))
    np->table = expand_table(all, all_len); /* (NULL: not gcc's macros) */
  free(all);
  np->head = malloc(np->head_len + 1);
  if (!np->head)
    abort();
  memcpy(np->head, out, np->head_len);
  np->macros = memfd_of("coroc-lsp-macros", macros, macros_len);
  free(macros);
  note_headers(np);
  if (np->macros < 0)
    preamble_free(np);
  else
    *p = np;
  return out;
}

/* The command for the body alone: the whole one without its -include and
   -imacros (their macros are in the preamble's), reading the preamble's
   macros (descriptor 3) first. */
static const char **body_command(const char **argv) {
  int n = 0;
  while (argv[n])
    n++;
  const char **body = calloc(n + 3, sizeof *body);
  if (!body)
    abort();
  int k = 0;
  for (int i = 0; argv[i + 1]; i++) {
    if (strcmp(argv[i], "-include") == 0 || strcmp(argv[i], "-imacros") == 0)
      i++;
    else
      body[k++] = argv[i];
  }
  body[k++] = "-imacros";
  body[k++] = "/dev/fd/3";
  body[k++] = "-"; /* (the whole command's last word) */
  return body;
}

/* The body after the preamble's macros, by the preprocessor: from the
   body's first line on (malloc), or NULL. */
static char *run_cpp_on_body(const Preamble *p, const char **argv, const char *text, size_t len,
                             size_t *out_len) {
  char *input;
  int n = asprintf(&input, "#line %d\n%.*s", p->body_line, (int)(len - p->prefix_len),
                   text + p->prefix_len);
  if (n < 0)
    abort();
  const char **body = body_command(argv);
  size_t body_len;
  char *out = run_cpp(body, input, (size_t)n, p->macros, &body_len);
  free(body);
  free(input);
  if (!out)
    return NULL;
  size_t from = cut_at(out, body_len, p->body_line, NULL, NULL);
  memmove(out, out + from, body_len - from);
  *out_len = body_len - from;
  return out;
}

/* The body expanded with the preamble's macros, by the server itself when
   it can (expand.c), else by the preprocessor: the whole document's
   output (malloc), or NULL. */
static char *expand_body(const Preamble *p, const char **argv, const char *text, size_t len,
                         size_t *out_len, Expanded *how) {
  size_t body_len;
  char *out = p->table ? expand_text(p->table, text + p->prefix_len, len - p->prefix_len,
                                     p->body_line, &body_len)
                       : NULL;
  *how = out ? EXPANDED_BODY : EXPANDED_BODY_CPP;
  if (!out)
    out = run_cpp_on_body(p, argv, text, len, &body_len);
  if (!out)
    return NULL;
  char marker[32];
  int marker_len = snprintf(marker, sizeof marker, "# %d \"<stdin>\"\n", p->body_line);
  char *whole = malloc(p->head_len + marker_len + body_len + 1);
  if (!whole)
    abort();
  memcpy(whole, p->head, p->head_len);
  memcpy(whole + p->head_len, marker, marker_len);
  memcpy(whole + p->head_len + marker_len, out, body_len);
  *out_len = p->head_len + marker_len + body_len;
  free(out);
  return whole;
}

/* Does the text hold something the preamble cannot stand for? */
static bool outside(const char *text, size_t len) {
  if (may_have_line_directives(text, len))
    return true;
  for (const char *p = text; (p = memchr(p, '\r', text + len - p)); p++)
    if (p + 1 == text + len || p[1] != '\n')
      return true; /* a lone CR: coroc reads another text (source.c) */
  return false;
}

static bool body_outside(const char *body, size_t len) {
  return memmem(body, len, "__COUNTER__", 11) || memmem(body, len, "pop_macro", 9);
}

int preamble_expand(Preamble **p, const char *path, const char *text, size_t len, const char **args,
                    int nargs, Expanded *how) {
  *how = EXPANDED_BY_COROC;
  int body_line = 1;
  long start = body_start(text, len, &body_line);
  CppArgs cpp = {.args = args, .nargs = nargs};
  const char **argv = source_cpp_argv(path, text, len, &cpp); /* (the run's memory) */
  bool dd = false;
  for (int i = 0; argv[i]; i++)
    dd |= strcmp(argv[i], "-dD") == 0;
  if (start < 0 || !dd || outside(text, len) || body_outside(text + start, len - (size_t)start)) {
    preamble_free(*p);
    *p = NULL;
    return -1;
  }
  size_t key_len, out_len;
  char *key = command_key(argv, &key_len);
  Preamble *kept = *p;
  char *out = NULL;
  if (kept && kept->key_len == key_len && memcmp(kept->key, key, key_len) == 0 &&
      kept->prefix_len == (size_t)start && kept->body_line == body_line &&
      memcmp(kept->prefix, text, start) == 0 && headers_unchanged(kept)) {
    out = expand_body(kept, argv, text, len, &out_len, how);
  }
  if (!out) {
    out = build(p, argv, text, len, (size_t)start, body_line, &out_len);
    *how = out ? EXPANDED_WHOLE : EXPANDED_BY_COROC;
  }
  free(key);
  int fd = out ? memfd_of("coroc-lsp-expanded", out, out_len) : -1;
  free(out);
  return fd;
}
