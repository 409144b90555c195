/* lines.c: the input's own #line directives, on their way through the
 * preprocessor and back.
 *
 * coroc works with physical lines, the lines of the file as it stands: a
 * token's line, a diagnostic's, the lines the liveness and the printers
 * count. A #line of the user's (`#line 100 "gen.y"`) changes what the
 * compiler counts after it, so each one is followed three times:
 *  - into the preprocessor: the directive is given a name that says where
 *    it stands (text_for_preprocessor), so that the preprocessor counts
 *    lines as the compiler will (`#if __LINE__ == 101` holds), and names the
 *    directive in every linemarker it writes after it;
 *  - back from it: the scanner and the reader of the preprocessor's errors
 *    map those names back to physical lines (coroc_line_name, and
 *    line_macro_number for `#line MACRO`, whose number only the
 *    preprocessor knows);
 *  - into the output: the number and the file name the compiler gives a
 *    physical line (logical_line), which the writer's #line directives say.
 * Below the scanner (lexer.l) and the reader (source.c), which both use it.
 */
#include "coroc.h"
#include "lines.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The blanks the preprocessor allows between `#` and a directive's name:
   a form feed or a vertical tab too (`#\f5` is `# 5`). Not a lone carriage
   return: that ends the line. */
static const char directive_blanks[] = " \t\v\f";

bool is_line_directive(const char *directive) {
  const char *p = strchr(directive, '#') + 1;
  p += strspn(p, directive_blanks);
  return (*p >= '0' && *p <= '9') ||
         (strncmp(p, "line", 4) == 0 && !isalnum((unsigned char)p[4]) && p[4] != '_');
}

/* The number a #line of the input gives the next line (-1 when it is a
   macro's, which is not known here; `# 0 "file"`, as `cc -E` writes, is 0),
   the physical line the directive ends on, and in *rest what follows the
   number (a file name, perhaps). */
static int line_directive_number(const Token *t, int *last_line, const char **rest) {
  const char *p = strchr(tok_text(t), '#') + 1;
  p += strspn(p, directive_blanks);
  if (strncmp(p, "line", 4) == 0)
    p += 4 + strspn(p + 4, directive_blanks);
  char *end;
  long n = strtol(p, &end, 10);
  *last_line = t->line;
  for (const char *q = tok_text(t); *q; q++)
    *last_line += *q == '\n';
  *rest = end;
  if (p[0] < '0' || p[0] > '9')
    return -1;
  return n >= 0 && n <= INT_MAX ? (int)n : 0;
}

/* What the preprocessor reads: the .coc, each of its own #line directives
   (`#line 100`, `#line 100 "gen.y"`, `# 100 "gen.y" 2`) given as
   `#line 100 "<coroc-line P 100>"`, P the physical line where it ends. The
   preprocessor then counts lines as the compiler will (`#if __LINE__ == 101`
   on the next line holds), and each linemarker it prints after it names the
   directive, so that the scanner maps the numbers back to lines of the file
   as it stands (coroc_line_name): the line numbers coroc works with and
   reports are physical, and the directives reach the compiler unchanged in
   the output. A directive whose number is a macro (`#line LINE`) is given
   as `#line LINE "<coroc-line P 0>"`: the preprocessor prints the number
   the macro makes in the linemarker it writes at once after it, which the
   scanner notes (line_macro_number). */
char *text_for_preprocessor(Source *src, size_t *len) {
  *len = src->len;
  if (!src->original_ready)
    return src->text; /* none can be there (may_have_line_directives) */
  char *buf = NULL;
  size_t size = 0, at = 0;
  FILE *out = NULL;
  for (int i = 0; i < src->original.n; i++) {
    Token *t = &src->original.v[i];
    if (t->kind != TK_DIRECTIVE || !is_line_directive(tok_text(t)))
      continue;
    src->has_line_directives = true;
    if (!out)
      out = xmemstream(&buf, &size);
    fwrite(src->text + at, 1, token_offset(src, t) - at, out);
    at = token_end(src, t);
    int last_line;
    const char *rest;
    int n = line_directive_number(t, &last_line, &rest);
    if (n >= 0) {
      fprintf(out, "#line %d \"<coroc-line %d %d>\"", n, last_line, n);
    } else { /* a macro's number: the preprocessor's first marker will say it */
      fputs("#line ", out);
      for (; *rest && *rest != '"'; rest++)
        fputc(*rest == '\n' || *rest == '\\' ? ' ' : *rest, out);
      fprintf(out, " \"<coroc-line %d 0>\"", last_line);
    }
  }
  if (!out)
    return src->text;
  fwrite(src->text + at, 1, src->len - at, out);
  fclose(out);
  *len = size;
  return buf;
}

/* A live #line of the input: the lines after `physical` are numbered from
   `number`, in the file `quoted` (as written, quotes included) or NULL: the
   name the earlier ones left. */
struct LineDirective {
  int physical, number;
  const char *quoted;
};

static void find_line_directives(Source *src) {
  src->nline_dirs = 0;
  const char *quoted = NULL;
  for (int i = 0; i < src->original.n; i++) {
    Token *t = &src->original.v[i];
    if (t->kind != TK_DIRECTIVE || t->dead || !is_line_directive(tok_text(t)))
      continue;
    int last_line;
    const char *end;
    int n = line_directive_number(t, &last_line, &end);
    if (n < 0) { /* a macro's number: what the preprocessor said it is */
      n = line_macro_number(last_line, 0);
      end = strchr(end, '"') ? strchr(end, '"') : end;
    }
    if (n <= 0)
      continue;
    end += strspn(end, directive_blanks);
    if (*end == '"') {
      const char *q = end + 1;
      while (*q && *q != '"' && *q != '\n')
        q += (*q == '\\' && q[1]) ? 2 : 1;
      if (*q == '"')
        quoted = memory_keep(xstrndup(end, q + 1 - end)); /* (the run's, not a region's) */
    }
    src->line_dirs = memory_keep(xappend(src->line_dirs, src->nline_dirs, sizeof *src->line_dirs));
    src->line_dirs[src->nline_dirs++] = (struct LineDirective){last_line, n, quoted};
  }
}

int logical_line(Source *src, int physical, const char **quoted) {
  *quoted = NULL;
  if (!src->has_line_directives)
    return physical;
  if (src->nline_dirs < 0)
    find_line_directives(src);
  int lo = 0, hi = src->nline_dirs; /* the last directive before `physical` */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (src->line_dirs[mid].physical < physical)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return physical;
  struct LineDirective *d = &src->line_dirs[lo - 1];
  *quoted = d->quoted;
  return d->number + (physical - d->physical - 1);
}

bool coroc_line_name(const char *name, int *physical, int *number) {
  return sscanf(name, "<coroc-line %d %d>", physical, number) == 2;
}

/* The numbers that #line directives written with a macro give, by the
   directive's last line: the first marker the preprocessor prints after
   one (number `seen`) says it; later ones only ask (seen 0). 0: unknown. */
static struct MacroLine { int physical, number; } * macro_lines;
static int nmacro_lines;

void line_macros_forget(void) {
  xfree(macro_lines);
  macro_lines = NULL;
  nmacro_lines = 0;
}

int line_macro_number(int physical, int seen) {
  for (int i = 0; i < nmacro_lines; i++)
    if (macro_lines[i].physical == physical)
      return macro_lines[i].number;
  if (seen <= 0)
    return 0;
  macro_lines = memory_keep(xappend(macro_lines, nmacro_lines, sizeof *macro_lines));
  macro_lines[nmacro_lines++] = (struct MacroLine){physical, seen};
  return seen;
}

/* Can the `#` at p begin a directive? Only blanks and comments may stand
   before it on its line, so the byte before it, blanks passed over, is the
   line's start or the `/` that ends a comment. A `#` in the middle of a
   line (`** Ticket #2739` in a comment, a string's "#1") cannot: telling so
   spares a large file a scan of its own tokens (scan_original) that it
   would not otherwise need. */
static bool may_start_directive(const char *text, const char *p) {
  while (p > text && p[-1] && strchr(" \t\v\f\r", p[-1]))
    p--;
  return p == text || p[-1] == '\n' || p[-1] == '/';
}

/* Could the text hold a `#line N` or `# N` directive? A `#` that may start
   a directive, followed by blanks and a digit or the word line, anywhere
   (even in a comment): if none is there, none can be a directive. */
bool may_have_line_directives(const char *text, size_t len) {
  for (const char *p = memchr(text, '#', len); p; p = memchr(p, '#', text + len - p)) {
    bool first = may_start_directive(text, p);
    p++;
    if (!first)
      continue;
    while (p < text + len && *p && strchr(directive_blanks, *p))
      p++;
    if (p < text + len &&
        ((*p >= '0' && *p <= '9') || (text + len - p >= 4 && !memcmp(p, "line", 4))))
      return true;
  }
  return false;
}

/* The numbers of `#line MACRO` directives belong to one input. */
void lines_release(void) {
  macro_lines = NULL; /* (its block went with the heap) */
  nmacro_lines = 0;
}
