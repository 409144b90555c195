/* html.c: --html, one page with the .coc and the C of both backends.
 *
 * Three columns, the .coc, its stackless C and its stackful C, as coroc
 * prints them (main.c lowers the one parse for each backend and hands over
 * both outputs). Each line of C that stands for a .coc line links to it,
 * and each .coc line to the first line of each column made from it:
 * plain anchors, so the page reads without JavaScript and in print, and a
 * little script highlights a line's whole family on hover. Below, each
 * coroutine's frame and arguments as --stats prints them (stats.c, read
 * back into tables) and its state machine, drawn by Graphviz's dot as
 * inline SVG when dot is on PATH. Everything is on the page: no request
 * leaves it.
 *
 * Where a line of C comes from is what the compiler and gdb will say: the
 * #line directives coroc printed, and the lines counted after each. What the
 * writer itself began is noted as it printed it (writer.c, LineMarks), so a
 * line of coroc's own, which stands for no .coc line, links nowhere. A .coc
 * with #line directives of its own makes the compiler count other numbers,
 * and perhaps other files: those are mapped back to the physical lines
 * that give them (lines.c, logical_line), the numbers this page shows.
 * Separate from the printers it calls (dot.c; stats.c through main.c): it
 * only arranges what they print.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "front/lines.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* {==================================================================
 * Text as HTML
 * =================================================================== */

/* n bytes of text, escaped; control characters (a form feed, a lone CR)
   as their Unicode pictures, which HTML allows where the bytes are not. */
static void put_text(FILE *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '&')
      fputs("&amp;", out);
    else if (c == '<')
      fputs("&lt;", out);
    else if (c == '>')
      fputs("&gt;", out);
    else if (c == '"')
      fputs("&quot;", out);
    else if (c == '\'')
      fputs("&#39;", out);
    else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
      fprintf(out, "&#x%x;", c == 0x7f ? 0x2421 : 0x2400 + c);
    else
      fputc(c, out);
  }
}

static void put_str(FILE *out, const char *s) {
  put_text(out, s, strlen(s));
}

/* Text that may name lines of the .coc (`gen.coc:12`, as --stats writes
   them): escaped, each such name a link to the line (`line 12`). */
static void put_linked(FILE *out, Source *src, const char *s) {
  size_t name_len = strlen(src->name);
  const char *at = s;
  for (const char *p = strstr(s, src->name); p; p = strstr(p + 1, src->name)) {
    const char *q = p + name_len;
    if (*q != ':' || q[1] < '0' || q[1] > '9')
      continue;
    int line = atoi(q + 1);
    q++;
    q += strspn(q, "0123456789");
    put_text(out, at, (size_t)(p - at));
    fprintf(out, "<a href=\"#L%d\">line %d</a>", line, line); /* the page is of one file */
    at = q;
    p = q - 1;
  }
  put_str(out, at);
}

/* }================================================================== */

/* {==================================================================
 * Where each line of C comes from
 * =================================================================== */

/* A line of C: its text, and the .coc line it stands for. */
typedef struct {
  const char *text;
  size_t len;     /* without its newline (or CR LF) */
  int coc;        /* the .coc line it stands for; 0: none */
  bool own;       /* a line of coroc's own (the writer began it for no .coc line) */
  bool directive; /* a #line directive */
} CLine;

/* The physical line the compiler's (file, number) stands for, when the .coc
   has #line directives of its own: the inverse of logical_line. */
typedef struct {
  int logical;
  const char *quoted; /* the file name a directive gave, as written; NULL: the .coc's */
  int physical;
} Logical;

static int by_logical(const void *a, const void *b) {
  const Logical *x = a, *y = b;
  if (x->logical != y->logical)
    return x->logical < y->logical ? -1 : 1;
  return x->physical - y->physical;
}

typedef struct {
  Source *src;
  Logical *v; /* sorted by logical number; NULL when the .coc has no #line of its own */
  int n;
} LineNames;

static LineNames line_names(Source *src) {
  LineNames names = {.src = src};
  if (!src->has_line_directives)
    return names;
  names.v = xcalloc((size_t)src->nlines + 1, sizeof(Logical));
  for (int p = 1; p <= src->nlines; p++) {
    const char *quoted;
    int l = logical_line(src, p, &quoted);
    names.v[names.n++] = (Logical){l, quoted, p};
  }
  qsort(names.v, names.n, sizeof(Logical), by_logical);
  return names;
}

/* The .coc line the compiler counts as `number` of the file `quoted` names
   (NULL: the .coc), or 0 if none. */
static int physical_of(const LineNames *names, int number, const char *quoted) {
  if (!names->v)
    return quoted ? 0 : number;
  int lo = 0, hi = names->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (names->v[mid].logical < number)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < names->n && names->v[lo].logical == number; lo++) {
    const char *q = names->v[lo].quoted;
    if (q ? quoted && strcmp(q, quoted) == 0 : !quoted)
      return names->v[lo].physical;
  }
  return 0;
}

/* The blanks the preprocessor allows in a directive (lines.c), from p on. */
static size_t blanks(const char *p, const char *end) {
  const char *q = p;
  while (q < end && *q && strchr(" \t\v\f", *q))
    q++;
  return (size_t)(q - p);
}

/* `#line N ["file"]` or `# N "file" FLAGS`: true, with the number and the
   file name (as written, quotes included; NULL if none) it gives. */
static bool read_directive(const char *s, size_t len, int *number, char **quoted) {
  const char *end = s + len, *p = s;
  p += blanks(p, end);
  if (p == end || *p++ != '#')
    return false;
  p += blanks(p, end);
  if (end - p > 4 && strncmp(p, "line", 4) == 0 && blanks(p + 4, end))
    p += 4;
  p += blanks(p, end);
  if (p == end || *p < '0' || *p > '9')
    return false;
  *number = atoi(p);
  p += strspn(p, "0123456789");
  p += blanks(p, end);
  *quoted = NULL;
  if (p < end && *p == '"') {
    const char *q = p + 1;
    while (q < end && *q != '"')
      q += *q == '\\' && q + 1 < end ? 2 : 1;
    if (q < end)
      *quoted = xstrndup(p, (size_t)(q + 1 - p));
  }
  return true;
}

/* The lines of one backend's C, each with the .coc line it stands for:
   the writer's note where it began the line, else the compiler's count. */
static CLine *c_lines(const LineNames *names, const HtmlColumn *col, int *count) {
  int cap = 1;
  for (size_t i = 0; i < col->len; i++)
    cap += col->c[i] == '\n';
  CLine *v = xcalloc((size_t)cap, sizeof(CLine));
  char *own_name = format("\"%s\"", names->src->name);
  int n = 0, number = 1, mark = 0;
  char *file = NULL; /* the file the compiler is in: NULL, the .coc */
  for (size_t at = 0; at < col->len;) {
    const char *nl = memchr(col->c + at, '\n', col->len - at);
    size_t end = nl ? (size_t)(nl - col->c) : col->len;
    CLine *l = &v[n++];
    l->text = col->c + at;
    l->len = end - at - (end > at && col->c[end - 1] == '\r');
    while (mark < col->marks.n && col->marks.v[mark].offset < at)
      mark++;
    int given;
    char *quoted;
    if (read_directive(l->text, l->len, &given, &quoted)) {
      l->directive = true;
      number = given;
      if (quoted)
        file = strcmp(quoted, own_name) == 0 ? NULL : quoted;
    } else {
      if (mark < col->marks.n && col->marks.v[mark].offset == at && col->marks.v[mark].line >= 0) {
        l->coc = col->marks.v[mark].line;
        l->own = l->coc == 0;
      } else {
        l->coc = physical_of(names, number, file);
      }
      number++;
    }
    at = end + 1;
  }
  xfree(own_name);
  *count = n;
  return v;
}

/* }================================================================== */

/* {==================================================================
 * The three columns
 * =================================================================== */

/* The first line of a column made from each .coc line, or 0: [coc line]. */
static int *first_lines(const CLine *v, int n, int nlines) {
  int *first = xcalloc((size_t)nlines + 2, sizeof(int));
  for (int i = 0; i < n; i++)
    if (v[i].coc > 0 && v[i].coc <= nlines && !first[v[i].coc])
      first[v[i].coc] = i + 1;
  return first;
}

static void put_source_column(FILE *out, Source *src, int *first_sl, int *first_sf) {
  fprintf(out, "<section class=\"col\" id=\"coc\">\n<h2>");
  put_str(out, src->name);
  fputs(" <small>the .coc</small></h2>\n<pre>", out);
  size_t at = 0;
  for (int line = 1; at < src->len || line == 1; line++) {
    const char *nl = memchr(src->text + at, '\n', src->len - at);
    size_t end = nl ? (size_t)(nl - src->text) : src->len;
    fprintf(out, "<span class=\"l\" id=\"L%d\" data-l=\"%d\">", line, line);
    fprintf(out, "<a class=\"n\" href=\"#L%d\" data-n=\"%d\"></a>", line, line);
    if (line <= src->nlines && first_sl[line])
      fprintf(out,
              "<a class=\"to\" href=\"#sl%d\" title=\"its first stackless line, %d\""
              " aria-label=\"to stackless line %d\"></a>",
              first_sl[line], first_sl[line], first_sl[line]);
    else
      fputs("<span class=\"to\"></span>", out);
    if (line <= src->nlines && first_sf[line])
      fprintf(out,
              "<a class=\"to t2\" href=\"#sf%d\" title=\"its first stackful line, %d\""
              " aria-label=\"to stackful line %d\"></a>",
              first_sf[line], first_sf[line], first_sf[line]);
    else
      fputs("<span class=\"to t2\"></span>", out);
    put_text(out, src->text + at, end - at - (end > at && src->text[end - 1] == '\r'));
    fputs("\n</span>", out);
    if (!nl)
      break;
    at = end + 1;
  }
  fputs("</pre>\n</section>\n", out);
}

static void put_c_column(FILE *out, const char *id, const char *title, const char *option,
                         const CLine *v, int n) {
  fprintf(out, "<section class=\"col\" id=\"%s\">\n<h2>%s <small>%s</small></h2>\n<pre>", id, title,
          option);
  for (int i = 0; i < n; i++) {
    const CLine *l = &v[i];
    const char *kind = l->directive ? " d" : l->own ? " o" : "";
    fprintf(out, "<span class=\"l%s\" id=\"%s%d\"", kind, id, i + 1);
    if (l->coc > 0)
      fprintf(out, " data-l=\"%d\"", l->coc);
    fprintf(out, "><span class=\"n\" data-n=\"%d\"></span>", i + 1);
    if (l->coc > 0)
      fprintf(out,
              "<a class=\"g\" href=\"#L%d\" data-n=\"%d\" aria-label=\"from .coc line %d\"></a>",
              l->coc, l->coc, l->coc);
    else
      fputs("<span class=\"g\"></span>", out);
    put_text(out, l->text, l->len);
    fputs("\n</span>", out);
  }
  fputs("</pre>\n</section>\n", out);
}

/* }================================================================== */

/* {==================================================================
 * Each coroutine: its frame (--stats) and its state machine (--dot)
 * =================================================================== */

/* `  OFFSET SIZE  FIELD  (WHY)`, a row of --stats' table. */
static bool stats_row(const char *line, long *offset, long *size, char **field, char **why) {
  char *end;
  *offset = strtol(line, &end, 10);
  if (end == line || *end != ' ')
    return false;
  const char *p = end;
  *size = strtol(p, &end, 10);
  if (end == p || strncmp(end, "  ", 2) != 0)
    return false;
  p = end + 2;
  const char *gap = strstr(p, "  (");
  size_t len = strlen(p);
  if (!gap || len < 1 || p[len - 1] != ')' || strchr(p, ' ') != gap)
    return false;
  *field = xstrndup(p, (size_t)(gap - p));
  *why = xstrndup(gap + 3, len - (size_t)(gap + 3 - p) - 1);
  return true;
}

/* The lines --stats printed for `co`, from *at on: a heading, then its
   indented lines, a table and notes. */
static void put_frame(FILE *out, Source *src, Coroutine *co, const char **at) {
  char *head =
      format("coroutine %s (%s:%d), ", co->name, src->name, src->original.v[co->first].line);
  const char *p = strncmp(*at, head, strlen(head)) == 0 ? *at : NULL;
  if (!p) {
    fputs("<p class=\"note\">(--stats said nothing of it)</p>\n", out);
    xfree(head);
    return;
  }
  bool table = false;
  for (bool first = true; *p && (first || strncmp(p, "  ", 2) == 0); first = false) {
    const char *nl = strchr(p, '\n');
    char *line = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
    p = nl ? nl + 1 : p + strlen(p);
    long offset, size;
    char *field, *why;
    if (first) {
      fputs("<h4>", out);
      put_linked(out, src, line + strlen(head));
      fputs("</h4>\n", out);
    } else if (strstr(line, "offset") && strstr(line, "size") && strstr(line, "field") && !table) {
      fputs(
          "<table>\n<thead><tr><th>offset</th><th>size</th><th>field</th>"
          "<th>why it is there</th></tr></thead>\n<tbody>\n",
          out);
      table = true;
    } else if (table && stats_row(line + 2, &offset, &size, &field, &why)) {
      fprintf(out, "<tr><td>%ld</td><td>%ld</td><td><code>", offset, size);
      put_str(out, field);
      fputs("</code></td><td>", out);
      put_linked(out, src, why);
      fputs("</td></tr>\n", out);
      xfree(field);
      xfree(why);
    } else {
      if (table)
        fputs("</tbody>\n</table>\n", out);
      table = false;
      fputs("<p>", out);
      put_linked(out, src, line + 2);
      fputs("</p>\n", out);
    }
    xfree(line);
  }
  if (table)
    fputs("</tbody>\n</table>\n", out);
  *at = p;
  xfree(head);
}

/* The whole of a stream's file, from its start. */
static char *slurp(FILE *f) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = xmemstream(&text, &len);
  char buf[4096];
  size_t got;
  rewind(f);
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, got, mem);
  fclose(mem);
  return text;
}

/* `dot -Tsvg` of a graph: the <svg> element, or NULL and why not. */
static char *draw(const char *graph, const char **why) {
  FILE *in = tmpfile(), *svg = tmpfile();
  if (!in || !svg) {
    *why = "no temporary file for dot";
    return NULL;
  }
  fputs(graph, in);
  fflush(in);
  rewind(in);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
  posix_spawn_file_actions_adddup2(&fa, fileno(svg), 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const char *argv[] = {"dot", "-Tsvg", NULL};
  pid_t pid;
  int status = -1;
  bool ran = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0;
  if (ran)
    waitpid(pid, &status, 0);
  posix_spawn_file_actions_destroy(&fa);
  char *text = ran && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? slurp(svg) : NULL;
  fclose(in);
  fclose(svg);
  char *start = text ? strstr(text, "<svg") : NULL;
  char *end = start ? strstr(start, "</svg>") : NULL;
  if (!end) {
    *why = ran ? "Graphviz's dot could not draw it"
               : "it is drawn when Graphviz's dot is installed, and there is no dot on PATH";
    xfree(text);
    return NULL;
  }
  end[strlen("</svg>")] = '\0';
  char *copy = xstrndup(start, strlen(start));
  xfree(text);
  return copy;
}

static void put_state_machine(FILE *out, Source *src, Coroutine *co) {
  char *graph = NULL;
  size_t len = 0;
  FILE *mem = xmemstream(&graph, &len);
  emit_dot_coroutine(mem, src, co);
  fclose(mem);
  const char *why = NULL;
  char *svg = draw(graph, &why);
  fputs("<figure class=\"graph\">\n", out);
  if (svg) {
    fputs(svg, out);
    fputs("\n", out);
  } else {
    fputs("<p class=\"note\">The state machine: ", out);
    put_str(out, why);
    fputs(". Its graph, as <code>coroc --dot</code> prints it:</p>\n<pre>", out);
    put_str(out, graph);
    fputs("</pre>\n", out);
  }
  fprintf(out,
          "<figcaption>the states of %s: where a resume continues, and where it can run "
          "to next</figcaption>\n</figure>\n",
          co->name);
  xfree(svg);
  xfree(graph);
}

static void put_coroutines(FILE *out, Source *src, Coroutine *cos, const HtmlColumn *stackless,
                           const HtmlColumn *stackful) {
  const char *sl = stackless->stats, *sf = stackful->stats;
  for (Coroutine *co = cos; co; co = co->next) {
    if (!co->def)
      continue;
    int line = src->original.v[co->first].line;
    fprintf(out,
            "<section class=\"co\" id=\"co-%s\">\n<h3>coroutine <code>%s</code> "
            "<a href=\"#L%d\">line %d</a></h3>\n<div class=\"frames\">\n",
            co->name, co->name, line, line);
    fputs("<div class=\"frame\">\n", out);
    put_frame(out, src, co, &sl);
    fputs("</div>\n<div class=\"frame\">\n", out);
    put_frame(out, src, co, &sf);
    fputs("</div>\n</div>\n", out);
    put_state_machine(out, src, co);
    fputs("</section>\n", out);
  }
}

/* }================================================================== */

static const char style[] =
    "<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:.5em 1em;color:#222;background:#fff}\n"
    "h1{font-size:1.3em;margin:.2em 0}h2{font-size:1em}h3{font-size:1.1em}h4{font-size:1em;"
    "font-weight:normal;margin:.3em 0}\n"
    "code,pre{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace}\n"
    ".cols{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.5em}\n"
    ".col{min-width:0;border:1px solid #bbb}\n"
    ".col h2{margin:0;padding:.3em .5em;background:#eee;border-bottom:1px solid #bbb}\n"
    ".col small{font-weight:normal;color:#666}\n"
    ".col pre{margin:0;overflow:auto;max-height:80vh;font-size:12px;line-height:1.35}\n"
    ".l{display:block;white-space:pre;padding-right:.5em}\n"
    ".n,.g,.to{display:inline-block;text-align:right;color:#999;text-decoration:none;"
    "user-select:none}\n"
    ".n{width:3.5em;padding-right:.4em}.g{width:3em;padding-right:.6em;color:#36c}\n"
    ".to{width:1em;color:#36c}.t2{margin-right:.5em}\n"
    ".n::before,.g::before{content:attr(data-n)}\n"
    "a.to::before{content:\"\\25B8\"}\n"
    ".d{color:#999}.o{color:#555;font-style:italic}\n"
    ".l:target{background:#fd8}.l.hl{background:#cdf}.l.hl:target{background:#fd8}\n"
    ".co{border-top:1px solid #bbb;margin-top:1em}\n"
    ".frames{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1em}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left;vertical-align:top}\n"
    "td:nth-child(-n+2){text-align:right;font-variant-numeric:tabular-nums}\n"
    ".graph svg{max-width:100%;height:auto}.note{color:#555}\n"
    "figure{margin:.5em 0}figcaption{color:#555;font-size:13px}\n"
    "@media print{\n"
    "  @page{size:landscape;margin:1cm}\n"
    "  body{font-size:10px}.col pre{max-height:none;overflow:visible;font-size:8px}\n"
    "  .l{white-space:pre-wrap;word-break:break-all}.l.hl{background:none}\n"
    "  .co{break-inside:avoid}\n"
    "}\n"
    "</style>\n";

/* Hovering a line lights every line of its .coc line in the three columns;
   a click keeps them lit and scrolls the other columns to them. */
static const char script[] =
    "<script>\n"
    "(function () {\n"
    "  var by = {}, lit = [], kept = null;\n"
    "  var lines = document.querySelectorAll('.l[data-l]');\n"
    "  for (var i = 0; i < lines.length; i++) {\n"
    "    var k = lines[i].getAttribute('data-l');\n"
    "    (by[k] = by[k] || []).push(lines[i]);\n"
    "  }\n"
    "  function light(k) {\n"
    "    lit.forEach(function (l) { l.classList.remove('hl'); });\n"
    "    lit = k ? by[k] || [] : [];\n"
    "    lit.forEach(function (l) { l.classList.add('hl'); });\n"
    "  }\n"
    "  function line(e) { return e.target.closest ? e.target.closest('.l[data-l]') : null; }\n"
    "  document.addEventListener('mouseover', function (e) {\n"
    "    var l = line(e);\n"
    "    if (kept === null) light(l ? l.getAttribute('data-l') : null);\n"
    "  });\n"
    "  document.addEventListener('click', function (e) {\n"
    "    var l = line(e);\n"
    "    if (!l || e.target.closest('a')) return;\n"
    "    var k = l.getAttribute('data-l');\n"
    "    kept = kept === k ? null : k;\n"
    "    light(k);\n"
    "    if (kept === null) return;\n"
    "    ['coc', 'sl', 'sf'].forEach(function (id) {\n"
    "      var col = document.getElementById(id).querySelector('pre');\n"
    "      var first = lit.filter(function (x) { return col.contains(x); })[0];\n"
    "      if (first && !col.contains(l))\n"
    "        col.scrollTop = first.offsetTop - col.offsetTop - col.clientHeight / 3;\n"
    "    });\n"
    "  });\n"
    "})();\n"
    "</script>\n";

char *emit_html(Source *src, Coroutine *cos, const HtmlColumn *stackless,
                const HtmlColumn *stackful, size_t *len) {
  LineNames names = line_names(src);
  int nsl, nsf;
  CLine *sl = c_lines(&names, stackless, &nsl), *sf = c_lines(&names, stackful, &nsf);
  int *first_sl = first_lines(sl, nsl, src->nlines), *first_sf = first_lines(sf, nsf, src->nlines);

  char *page = NULL;
  FILE *out = xmemstream(&page, len);
  fputs(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
      out);
  put_str(out, src->name);
  fputs(": coroc's two lowerings</title>\n", out);
  fputs(style, out);
  fputs("</head>\n<body>\n<header>\n<h1>", out);
  put_str(out, src->name);
  fprintf(out,
          "</h1>\n<p>The .coc and the C that coroc makes of it with each backend, as "
          "<code>coroc --backend=stackless</code> and <code>--backend=stackful</code> print it. "
          "Each line of C links, in its second margin, to the .coc line its "
          "<code>#line</code> directives give it (the line compiler messages and gdb name); "
          "each .coc line to the first line of each column made from it. Lines of coroc's own, "
          "which stand for no .coc line, are in italics. Point at a line to light its family "
          "in all three columns; click to keep it lit.</p>\n");
  fputs("<nav><p>The coroutines, their frames and state machines:", out);
  for (Coroutine *co = cos; co; co = co->next)
    if (co->def)
      fprintf(out, " <a href=\"#co-%s\"><code>%s</code></a>", co->name, co->name);
  fputs("</p></nav>\n</header>\n<main>\n<div class=\"cols\">\n", out);
  put_source_column(out, src, first_sl, first_sf);
  put_c_column(out, "sl", "stackless", "--backend=stackless", sl, nsl);
  put_c_column(out, "sf", "stackful", "--backend=stackful", sf, nsf);
  fputs("</div>\n<h2>The coroutines</h2>\n", out);
  put_coroutines(out, src, cos, stackless, stackful);
  fputs("</main>\n", out);
  fputs(script, out);
  fputs("</body>\n</html>\n", out);
  fclose(out);
  xfree(sl);
  xfree(sf);
  xfree(first_sl);
  xfree(first_sf);
  xfree(names.v);
  return page;
}
