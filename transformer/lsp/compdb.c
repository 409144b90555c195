/* compdb.c: the preprocessor options a .coc is built with, from the
 * workspace's compile_commands.json.
 *
 * coroc preprocesses the input to learn the type names its headers declare
 * and which #if groups are in effect (source.c), so it needs the -I and -D
 * the build gives it; a language server has no command line but what the
 * build wrote down. CMake (CMAKE_EXPORT_COMPILE_COMMANDS) lists the
 * compiles of C files: the .coc itself is not compiled, but coroc_generate
 * (transformer/cmake/coroc_generate.cmake) compiles NAME.BACKEND.c with the
 * target's -I and -D, which are what coroc was given, and -I the .coc's
 * directory. So the .coc's options are those of its own entry if a build
 * lists one, else those of such a generated file. Without any, coroc's own
 * defaults hold: the input's directory for "..." includes and the runtime's
 * include directory (source.c). Separate from server.c: it is the only
 * file that knows the format of the database.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lsp.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  char *file;  /* absolute */
  char **args; /* the options for the preprocessor, paths made absolute */
  int nargs;
  bool has_dir_include; /* (set per lookup: -I the .coc's directory) */
} Entry;

static struct {
  char *root;
  char *path; /* the database read, or NULL */
  struct timespec mtime;
  Entry *v;
  int n;
} db;

static char *dup_str(const char *s) {
  char *d = strdup(s);
  if (!d)
    abort();
  return d;
}

static char *join(const char *dir, const char *path) {
  if (path[0] == '/' || !dir || !*dir)
    return dup_str(path);
  char *out;
  if (asprintf(&out, "%s/%s", dir, path) < 0)
    abort();
  return out;
}

/* The path without symbolic links, `.` and `..`, when it exists. */
static char *canonical(char *path) {
  char resolved[PATH_MAX];
  if (!realpath(path, resolved))
    return path;
  free(path);
  return dup_str(resolved);
}

/* A command line split into words as a POSIX shell would (quotes and
   backslashes; nothing is expanded). */
static char **split_command(const char *s, int *n) {
  char **words = calloc(strlen(s) / 2 + 2, sizeof *words);
  char *word = malloc(strlen(s) + 1);
  if (!words || !word)
    abort();
  *n = 0;
  for (const char *p = s;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (!*p)
      break;
    size_t len = 0;
    char quote = 0;
    for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
      if (quote == '\'' && *p == '\'')
        quote = 0;
      else if (quote == '"' && *p == '"')
        quote = 0;
      else if (!quote && (*p == '\'' || *p == '"'))
        quote = *p;
      else if (*p == '\\' && quote != '\'' && p[1])
        word[len++] = *++p;
      else
        word[len++] = *p;
    }
    word[len] = '\0';
    words[(*n)++] = dup_str(word);
  }
  free(word);
  return words;
}

/* The options that reach the preprocessor: with a value joined (-Idir) or
   apart (-I dir), paths made absolute against the entry's directory. */
static void keep_options(Entry *e, char **words, int n, const char *dir) {
  static const char *const with_path[] = {"-I",         "-isystem", "-iquote",
                                          "-idirafter", "-include", "-imacros"};
  e->args = calloc(2 * n + 1, sizeof *e->args);
  if (!e->args)
    abort();
  for (int i = 1; i < n; i++) {
    const char *w = words[i];
    if (strncmp(w, "-D", 2) == 0 || strncmp(w, "-U", 2) == 0) {
      if (w[2]) {
        e->args[e->nargs++] = dup_str(w);
      } else if (i + 1 < n) {
        e->args[e->nargs++] = strndup(w, 2);
        e->args[e->nargs++] = dup_str(words[++i]);
      }
      continue;
    }
    if (strncmp(w, "-std=", 5) == 0) {
      e->args[e->nargs++] = dup_str(w);
      continue;
    }
    for (size_t k = 0; k < sizeof with_path / sizeof with_path[0]; k++) {
      size_t len = strlen(with_path[k]);
      if (strncmp(w, with_path[k], len) != 0)
        continue;
      const char *value = w[len] ? w + len : i + 1 < n ? words[++i] : NULL;
      if (!value)
        break;
      e->args[e->nargs++] = dup_str(with_path[k]);
      e->args[e->nargs++] = join(dir, value);
      break;
    }
  }
}

static void forget(void) {
  for (int i = 0; i < db.n; i++) {
    free(db.v[i].file);
    for (int k = 0; k < db.v[i].nargs; k++)
      free(db.v[i].args[k]);
    free(db.v[i].args);
  }
  free(db.v);
  db.v = NULL;
  db.n = 0;
}

static void load(const char *path) {
  forget();
  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  if (!json_is_array(root)) {
    rpc_log(2, "coroc-lsp: %s is not a compilation database: %s", path,
            root ? "not an array" : err.text);
    json_decref(root);
    return;
  }
  db.v = calloc(json_array_size(root) + 1, sizeof *db.v);
  if (!db.v)
    abort();
  size_t i;
  json_t *item;
  json_array_foreach(root, i, item) {
    const char *dir = json_string_value(json_object_get(item, "directory"));
    const char *file = json_string_value(json_object_get(item, "file"));
    const char *command = json_string_value(json_object_get(item, "command"));
    json_t *arguments = json_object_get(item, "arguments");
    if (!file || (!command && !json_is_array(arguments)))
      continue;
    int n = 0;
    char **words;
    if (json_is_array(arguments)) {
      words = calloc(json_array_size(arguments) + 1, sizeof *words);
      if (!words)
        abort();
      size_t k;
      json_t *a;
      json_array_foreach(arguments, k, a) {
        if (json_is_string(a))
          words[n++] = dup_str(json_string_value(a));
      }
    } else {
      words = split_command(command, &n);
    }
    Entry *e = &db.v[db.n++];
    e->file = canonical(join(dir, file));
    keep_options(e, words, n, dir);
    for (int k = 0; k < n; k++)
      free(words[k]);
    free(words);
  }
  json_decref(root);
}

void compdb_set_root(const char *root) {
  free(db.root);
  db.root = root ? dup_str(root) : NULL;
  free(db.path);
  db.path = NULL;
  forget();
}

/* The database of the root, read again when it changed (or appeared). */
static void refresh(void) {
  if (!db.root)
    return;
  static const char *const where[] = {"compile_commands.json", "build/compile_commands.json"};
  for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
    char *path = join(db.root, where[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (!db.path || strcmp(db.path, path) != 0 || st.st_mtim.tv_sec != db.mtime.tv_sec ||
          st.st_mtim.tv_nsec != db.mtime.tv_nsec) {
        free(db.path);
        db.path = path;
        db.mtime = st.st_mtim;
        load(path);
      } else {
        free(path);
      }
      return;
    }
    free(path);
  }
  free(db.path);
  db.path = NULL;
  forget();
}

/* Does the entry give -I dir? */
static bool includes_dir(const Entry *e, const char *dir) {
  for (int i = 0; i + 1 < e->nargs; i++)
    if (strcmp(e->args[i], "-I") == 0 && strcmp(e->args[i + 1], dir) == 0)
      return true;
  return false;
}

const char **compdb_args(const char *path, int *n) {
  *n = 0;
  refresh();
  if (!db.n)
    return NULL;
  const Entry *best = NULL;
  char *real = canonical(dup_str(path));
  for (int i = 0; i < db.n && !best; i++)
    if (strcmp(db.v[i].file, real) == 0)
      best = &db.v[i];
  if (!best) { /* coroc_generate's NAME.stackless.c or NAME.stackful.c */
    const char *slash = strrchr(real, '/');
    const char *base = slash ? slash + 1 : real;
    size_t stem = strlen(base);
    if (stem > 4 && strcmp(base + stem - 4, ".coc") == 0)
      stem -= 4;
    char *dir = strndup(real, slash ? (size_t)(slash - real) : 0);
    const Entry *by_name = NULL;
    for (int i = 0; i < db.n && !best; i++) {
      const char *f = strrchr(db.v[i].file, '/');
      f = f ? f + 1 : db.v[i].file;
      if (strncmp(f, base, stem) != 0 ||
          (strcmp(f + stem, ".stackless.c") != 0 && strcmp(f + stem, ".stackful.c") != 0))
        continue;
      if (dir && includes_dir(&db.v[i], dir))
        best = &db.v[i];
      else if (!by_name)
        by_name = &db.v[i];
    }
    free(dir);
    if (!best)
      best = by_name;
  }
  free(real);
  if (!best)
    return NULL;
  *n = best->nargs;
  return (const char **)best->args;
}

json_t *compdb_command(const char *path, const char *c_path) {
  int n;
  const char **args = compdb_args(path, &n);
  json_t *cmd = json_pack("[s, s]", "clang", "-xc");
  for (int i = 0; i < n; i++)
    json_array_append_new(cmd, json_string(args[i]));
  const char *rt = source_runtime_include();
  if (rt)
    json_array_append_new(cmd, json_pack("s+", "-I", rt));
  json_array_append_new(cmd, json_string("-c"));
  json_array_append_new(cmd, json_string(c_path));
  return cmd;
}
