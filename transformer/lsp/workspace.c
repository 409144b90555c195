/* workspace.c: the project's own files, for references, rename and
 * definitions.
 *
 * clangd runs without its background index (it would write its cache into
 * the project), so it knows the references of what it was given: the open
 * documents. For `textDocument/references` and `rename` the server gives
 * it the rest of the workspace too (server.c): every .coc, .c and .h under
 * the root, found here. Its .coc files alone (a few dozen at most) are
 * given to it ahead of any request, once the editor's first file is
 * diagnosed, so that a definition reaches another .coc. Left out: hidden
 * directories (.git), build trees (a directory holding a CMakeCache.txt),
 * the C that coroc wrote (it says so on its `#include <coro.h>` line:
 * renamed, it would be rewritten by the next build anyway), files over a
 * few megabytes, and anything past a bound on their number, so that a
 * rename in a huge tree stays a rename. And the requests that wait until
 * clangd has read them (clangd.c says when that is).
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  MAX_FILES = 2000,           /* files given to clangd at most */
  MAX_DEPTH = 12,             /* directories below the root */
  MAX_BYTES = 4 * 1024 * 1024 /* a larger file is not the project's own source */
};

typedef struct {
  char **v;
  int n, cap;
} Found;

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), s = strlen(suffix);
  return n > s && strcmp(name + n - s, suffix) == 0;
}

static bool is_source(const char *name, bool coc_only) {
  return has_suffix(name, ".coc") ||
         (!coc_only && (has_suffix(name, ".c") || has_suffix(name, ".h")));
}

/* Is the file C that coroc wrote? Its `#include <coro.h>` line says so. */
static bool written_by_coroc(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return true; /* (unreadable: nothing to give clangd either) */
  char head[4096];
  ssize_t n = read(fd, head, sizeof head - 1);
  close(fd);
  if (n <= 0)
    return false;
  head[n] = '\0';
  return strstr(head, "/* added by coroc:") != NULL;
}

static bool is_build_tree(const char *dir) {
  char *cache;
  if (asprintf(&cache, "%s/CMakeCache.txt", dir) < 0)
    abort();
  bool yes = access(cache, F_OK) == 0;
  free(cache);
  return yes;
}

static void add(Found *f, char *path) {
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->v = realloc(f->v, (size_t)f->cap * sizeof *f->v);
    if (!f->v)
      abort();
  }
  f->v[f->n++] = path;
}

static void walk(Found *f, const char *dir, int depth, int most, bool coc_only) {
  if (depth > MAX_DEPTH || is_build_tree(dir))
    return;
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) && f->n < most) {
    if (e->d_name[0] == '.')
      continue; /* ., .., and hidden directories and files */
    char *path;
    if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
      abort();
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) { /* (a link may lead out, or round) */
      free(path);
    } else if (S_ISDIR(st.st_mode)) {
      walk(f, path, depth + 1, most, coc_only);
      free(path);
    } else if (S_ISREG(st.st_mode) && is_source(e->d_name, coc_only) && st.st_size <= MAX_BYTES &&
               !written_by_coroc(path)) {
      add(f, path);
    } else {
      free(path);
    }
  }
  closedir(d);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char **workspace_files(const char *root, bool coc_only, int *n) {
  Found f = {0};
  if (root && root[0] == '/')
    walk(&f, root, 0, coc_only ? WORKSPACE_MOST_COC : MAX_FILES, coc_only);
  if (f.n > 1)
    qsort(f.v, (size_t)f.n, sizeof *f.v, by_name);
  add(&f, NULL); /* (the end) */
  *n = f.n - 1;
  return f.v;
}

void workspace_files_free(char **files) {
  for (char **p = files; p && *p; p++)
    free(*p);
  free(files);
}

/* {==================================================================
 * Requests that wait for clangd to have read the files
 * =================================================================== */

/* How long a references or rename request waits at most: clangd reads the
   files on its own threads, a few a second on a slow machine; past this
   the answer is of what it has read. */
enum { WAIT_MS = 30000 };

typedef struct {
  json_t *root; /* the message, kept whole */
  Message m;
  double deadline; /* CLOCK_MONOTONIC, ms */
} Waiting;

static struct {
  Waiting *v;
  int n, cap;
} waiting;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void workspace_wait(const Message *m) {
  if (waiting.n == waiting.cap) {
    waiting.cap = waiting.cap ? 2 * waiting.cap : 4;
    waiting.v = realloc(waiting.v, (size_t)waiting.cap * sizeof *waiting.v);
    if (!waiting.v)
      abort();
  }
  waiting.v[waiting.n++] = (Waiting){json_incref(m->root), *m, now_ms() + WAIT_MS};
}

bool workspace_waiting(void) {
  return waiting.n > 0;
}

bool workspace_next(bool ready, Message *m, json_t **root) {
  if (!waiting.n || (!ready && now_ms() < waiting.v[0].deadline))
    return false;
  *m = waiting.v[0].m;
  *root = waiting.v[0].root;
  memmove(&waiting.v[0], &waiting.v[1], (size_t)--waiting.n * sizeof *waiting.v);
  return true;
}

int workspace_wait_timeout(void) {
  if (!waiting.n)
    return -1;
  double left = waiting.v[0].deadline - now_ms();
  return left < 0 ? 0 : (int)left + 1;
}

/* }================================================================== */
