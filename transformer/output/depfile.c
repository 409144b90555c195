/* depfile.c: the dependency file of -MD/-MMD (docs/cli.md#dependency-files).
 *
 *   gen.c: gen.coc \
 *    /usr/include/stdc-predef.h \
 *    /opt/coroc/include/coro.h \
 *    local.h
 *
 * The files come from the linemarkers of the preprocessed text that coroc
 * already has (`# 1 "/usr/include/stdio.h" 1 3 4`: flag 1 = entering the
 * file, flag 3 = a system header), not from -MD options given to the
 * preprocessor: coroc needs nothing more from $COROC_CPP than it already
 * relies on, and no second file to read back. With gcc the list is the one
 * `gcc -M` prints for the same input and options, in the same order (the
 * tests compare them). Names are quoted for make as gcc quotes them.
 */
#define _GNU_SOURCE
#include "output/depfile.h"

#include <stdlib.h>
#include <string.h>

/* The distinct file names, in the order they were first entered. */
typedef struct {
  char **v;
  int n, cap;
} Names;

static bool seen(const Names *names, const char *name) {
  for (int i = 0; i < names->n; i++)
    if (strcmp(names->v[i], name) == 0)
      return true;
  return false;
}

static void add_name(Names *names, char *name) {
  if (seen(names, name))
    return;
  if (names->n == names->cap) {
    names->cap = names->cap ? 2 * names->cap : 64;
    names->v = xrealloc(names->v, names->cap * sizeof *names->v);
  }
  names->v[names->n++] = name;
}

/* The preprocessor's own pseudo files: gcc's <built-in>, <command-line> and
   <stdin>, clang's <command line>. The input itself is named by its path. */
static bool is_pseudo_file(const char *name) {
  size_t len = strlen(name);
  return len >= 2 && name[0] == '<' && name[len - 1] == '>';
}

/* The bytes of the string literal that starts at q (just past its opening
   quote) and ends at the first unescaped quote before `end`; *after is set
   past its closing quote. The preprocessor escapes `\` and `"` with a
   backslash and other bytes in octal (gcc) or, for a tab or a newline, as
   `\t` and `\n` (clang). NULL when there is no closing quote. */
static char *unquote(const char *q, const char *end, const char **after) {
  char *name = xcalloc(1, end - q + 1), *w = name;
  while (q < end && *q != '"') {
    if (*q != '\\' || q + 1 >= end) {
      *w++ = *q++;
    } else if (q[1] >= '0' && q[1] <= '7') {
      int byte = 0;
      for (int i = 0; i < 3 && q[1] >= '0' && q[1] <= '7'; i++)
        byte = byte * 8 + (*++q - '0');
      *w++ = (char)byte;
      q++;
    } else {
      *w++ = q[1] == 't' ? '\t' : q[1] == 'n' ? '\n' : q[1]; /* clang's \t and \n */
      q += 2;
    }
  }
  if (q >= end) {
    xfree(name);
    return NULL;
  }
  *after = q + 1;
  return name;
}

/* The flags after a linemarker's name: is it entering the file (1), and is
   the file a system header (3)? */
static void marker_flags(const char *p, const char *eol, bool *entering, bool *system) {
  *entering = *system = false;
  for (bool first = true; p < eol; first = false) {
    char *next;
    long flag = strtol(p, &next, 10);
    if (next == p || next > eol)
      break;
    *entering |= first && flag == 1;
    *system |= flag == 3;
    p = next;
  }
}

/* If the line [p, eol) is a linemarker `# N "NAME" 1 ...` that enters a
   file, the file's name (leading `./` dropped, as clang -M drops it). */
static char *entered_file(const char *p, const char *eol, bool *system) {
  if (eol - p < 5 || p[0] != '#' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
    return NULL;
  p += 2 + strspn(p + 2, "0123456789");
  if (eol - p < 2 || p[0] != ' ' || p[1] != '"')
    return NULL;
  const char *after;
  char *name = unquote(p + 2, eol, &after);
  bool entering;
  if (!name)
    return NULL;
  marker_flags(after, eol, &entering, system);
  if (!entering || is_pseudo_file(name) || !*name) {
    xfree(name);
    return NULL;
  }
  char *s = name;
  while (s[0] == '.' && s[1] == '/' && s[2])
    s += 2 + strspn(s + 2, "/");
  return s;
}

/* Write a file name as make reads it, quoted as gcc quotes it (libcpp's
   munge): a space or tab gets a backslash and the backslashes before it
   are doubled; `#` becomes `\#` and `$` becomes `$$`. */
static void put_quoted(FILE *f, const char *name) {
  int slashes = 0;
  for (const char *p = name; *p; p++) {
    if (*p == '\\') {
      slashes++;
    } else {
      if (*p == ' ' || *p == '\t')
        for (int i = 0; i <= slashes; i++)
          fputc('\\', f);
      else if (*p == '#')
        fputc('\\', f);
      else if (*p == '$')
        fputc('$', f);
      slashes = 0;
    }
    fputc(*p, f);
  }
}

char *depfile_quote(const char *name) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  put_quoted(f, name);
  fclose(f);
  return buf;
}

char *depfile_rule(const DepOptions *dep, const Source *src, const char *input, size_t *len) {
  Names names = {0};
  if (input)
    add_name(&names, xstrndup(input, strlen(input)));
  const char *end = src->cpp_text + src->cpp_len;
  for (const char *p = src->cpp_text; p < end;) {
    const char *eol = memchr(p, '\n', end - p);
    if (!eol)
      eol = end;
    bool system;
    char *name = entered_file(p, eol, &system);
    if (name && (dep->system_headers || !system))
      add_name(&names, name);
    p = eol + 1;
  }

  char *buf = NULL;
  FILE *f = xmemstream(&buf, len);
  for (int i = 0; i < dep->ntargets; i++)
    fprintf(f, "%s%s", i ? " " : "", dep->targets[i]); /* already as make reads them */
  fputc(':', f);
  for (int i = 0; i < names.n; i++) {
    fputs(i ? " \\\n " : " ", f);
    put_quoted(f, names.v[i]);
  }
  fputc('\n', f);
  /* -MP: make then takes a header that is gone for one that needs no
     making, instead of stopping with "No rule to make target". */
  for (int i = input ? 1 : 0; dep->phony && i < names.n; i++) {
    fputc('\n', f);
    put_quoted(f, names.v[i]);
    fputs(":\n", f);
  }
  fclose(f);
  return buf;
}
