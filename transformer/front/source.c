/* source.c: the input, as the user wrote it and as the compiler will see it.
 *
 * coroc must know what every header declares (`uint64_t *p = q;` is a
 * declaration only if uint64_t is a type) and which `#if` groups are in
 * effect, exactly as the compiler will. So it asks the compiler: the input
 * goes through the system preprocessor (`cc -E`, or $COROC_CPP) with the
 * user's -I and -D options, and the parser reads the result.
 *
 * The output, though, is made of the user's own text, macros unexpanded. So
 * the input is also tokenized as written. Tying the two together:
 *  - a line of the .coc is live when the preprocessed text has tokens from
 *    it; a run of tokens between two directive lines that has no live line
 *    was skipped by #if (or expands to nothing) and is marked dead;
 *  - a preprocessed token from the .coc is matched to the original token on
 *    the same line with the same spelling, counting repeats.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "lines.h"
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* {==================================================================
 * Reading
 * =================================================================== */

/* All of fd; `size`, its size if known, sizes the buffer at once. */
static char *read_fd(int fd, size_t size, size_t *len) {
  size_t cap = size + 1 > 65536 ? size + 1 : 65536, n = 0;
  char *buf = xrealloc(NULL, cap + 2);
  advise_huge_pages(buf, cap + 2);
  for (;;) {
    if (n == cap) {
      cap *= 2;
      buf = xrealloc(buf, cap + 2);
      advise_huge_pages_reserved(buf, cap + 2);
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return NULL;
    if (r == 0)
      break;
    n += r;
  }
  buf[n] = buf[n + 1] = '\0'; /* (the room tokenize_in_place asks) */
  *len = n;
  return buf;
}

/* A copy of a text with the two NULs after it that tokenize_in_place asks. */
static char *copy_with_room(const char *text, size_t len) {
  char *copy = xcalloc(len + 2, 1);
  memcpy(copy, text, len);
  return copy;
}

static char *read_input(const char *path, size_t *len) {
  if (strcmp(path, "-") == 0) {
    char *text = read_fd(0, 0, len);
    if (!text)
      fatal("cannot read standard input: %s", strerror(errno));
    return text;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    fatal("%s: is a directory", path);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    fatal("cannot open %s: %s", path, strerror(errno));
  char *text =
      read_fd(fd, fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, len);
  close(fd);
  if (!text)
    fatal("cannot read %s: %s", path, strerror(errno));
  return text;
}

/* }================================================================== */

/* {==================================================================
 * Running the preprocessor
 * =================================================================== */

/* Where coro.h is, so that a .coc that includes it preprocesses without an
   -I: beside an installed coroc (PREFIX/bin/../include), else in the source
   tree this coroc was built from. */
const char *source_runtime_include(void) {
  static char dir[PATH_MAX + 16];
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      snprintf(dir, sizeof dir, "%s/../include", exe);
      char probe[PATH_MAX + 32];
      snprintf(probe, sizeof probe, "%s/coro.h", dir);
      if (access(probe, R_OK) == 0)
        return dir;
    }
  }
#ifdef COROC_RUNTIME_INCLUDE
  return COROC_RUNTIME_INCLUDE;
#else
  return NULL;
#endif
}

char *source_dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return xstrndup(".", 1);
  return xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

static const char *display_name(const char *path) {
  return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* The preprocessor said no (a missing header, #error, an unterminated #if).
   Its first error becomes ours, in the one format: `FILE:LINE:COL: error:`
   with the line and a caret, where the compiler said `fatal error:`. */
static _Noreturn void report_cpp_failure(FILE *errs, const char *path) {
  char line[4096];
  rewind(errs);
  while (fgets(line, sizeof line, errs)) {
    line[strcspn(line, "\n")] = '\0';
    char *kind = strstr(line, ": fatal error: ");
    int skip = 15;
    if (!kind) {
      kind = strstr(line, ": error: ");
      skip = 9;
    }
    if (!kind)
      continue;
    *kind = '\0';
    /* FILE:LINE:COL, FILE:LINE, or FILE */
    char *file = line, *c2 = strrchr(file, ':');
    int ln = 0, col = 1;
    if (c2 && c2[1] >= '0' && c2[1] <= '9') {
      int last = atoi(c2 + 1);
      *c2 = '\0';
      char *c1 = strrchr(file, ':');
      if (c1 && c1[1] >= '0' && c1[1] <= '9') {
        ln = atoi(c1 + 1);
        col = last;
        *c1 = '\0';
      } else {
        ln = last;
      }
    }
    int physical, number;
    bool moved = coroc_line_name(file, &physical, &number); /* after a #line of the input */
    const char *name = moved || strcmp(file, "<stdin>") == 0 ? display_name(path) : file;
    if (moved && number == 0)
      number = line_macro_number(physical, 0);
    if (moved && ln > 0)
      ln = number ? physical + 1 + (ln - number) : physical + 1;
    if (ln > 0)
      error_at((Pos){xstrndup(name, strlen(name)), ln, col, 0}, "%s", kind + skip);
    fatal("%s: %s", name, kind + skip);
  }
  fatal("the preprocessor failed on %s and said nothing", display_name(path));
}

/* Split $COROC_CPP (default "cc -E") into words. */
static int cpp_command(const char **argv, int max) {
  const char *env = getenv("COROC_CPP");
  char *cmd = xstrndup(env && *env ? env : "cc -E", env && *env ? strlen(env) : 5);
  int n = 0;
  for (char *w = strtok(cmd, " \t"); w && n < max; w = strtok(NULL, " \t"))
    argv[n++] = w;
  return n;
}

/* The preprocessor, running: its output is scanned as it comes (lexer.l's
   streams), so that coroc parses while the preprocessor still works. */
struct Preprocessor {
  pid_t pid;           /* it */
  int out;             /* its output */
  FILE *errs;          /* its diagnostics */
  const char *path;    /* the input, for messages */
  TokenStream *stream; /* the scan of its output */
  FILE *markers;       /* -MD: its linemarkers, kept for depfile.c ... */
  char *marker_text;   /* ... here */
  size_t marker_len;
};

static Source *loading;
/* The preprocessor until it is waited for and its diagnostics closed: an
   error that ends the run before that (an internal error, or the report of
   the preprocessor's own failure) leaves it to source_release. */
static Preprocessor *running;
static void mark_live_lines(Source *src);
static void mark_dead(Source *src, int upto);
static void source_settle(void);
static void scan_loading(void);

static void close_pipe(const int fd[2]) {
  close(fd[0]);
  close(fd[1]);
}

const char **source_cpp_argv(const char *path, const char *text, size_t len, const CppArgs *args) {
  const char **argv = xcalloc(args->nargs + 32, sizeof *argv);
  int n = cpp_command(argv, 8);
  /* Without the word `coroutine` anywhere in it, the input has no coroutine
     (one made by a macro is refused): it is plain C, which comes out as it
     went in, and coroc only parses it. Then neither the macro definitions
     nor coro.h's declarations are needed (the output does not include coro.h
     either), and the preprocessor has less to do, and coroc less to read. */
  bool plain = !memmem(text, len, "coroutine", 9);
  if (!plain)
    argv[n++] = "-dD"; /* keep #define/#undef lines: they say which directives were in effect */
  argv[n++] = "-x";
  argv[n++] = "c";
  argv[n++] = "-iquote";
  argv[n++] = strcmp(path, "-") == 0 ? "." : source_dir_of(path);
  /* A .coc may call coroutines and coro_next without including coro.h
     itself: the output includes it before the first coroutine, so coroc
     reads the input as if it did, and knows coro_t is a type. */
  const char *rt = source_runtime_include();
  if (rt) {
    argv[n++] = "-idirafter";
    argv[n++] = rt;
    if (!plain) {
      argv[n++] = "-include";
      argv[n++] = format("%s/coro.h", rt);
    }
  }
  for (int i = 0; i < args->nargs; i++)
    argv[n++] = args->args[i];
  argv[n++] = "-";
  argv[n] = NULL;
  return argv;
}

/* The preprocessor's output made already (CppArgs.output_fd): read, as
   the preprocessor's would be, from its descriptor. */
static void take_given_output(Source *src, const char *path, const CppArgs *args) {
  Preprocessor *cpp = xcalloc(1, sizeof *cpp);
  *cpp = (Preprocessor){.out = args->output_fd, .path = path};
  cpp->stream = stream_open(cpp->out, src->name, "<stdin>", &src->expanded, NULL, scan_loading);
  src->cpp = cpp;
  running = cpp;
  diag_before_error(source_settle);
}

/* The input, in an unlinked temporary file read from its start. */
static FILE *input_file(const char *text, size_t len) {
  FILE *f = tmpfile();
  if (!f)
    fatal("cannot make a temporary file: %s", strerror(errno));
  if (fwrite(text, 1, len, f) != len || fflush(f) != 0 || lseek(fileno(f), 0, SEEK_SET) != 0) {
    int e = errno;
    fclose(f);
    fatal("cannot write the input to a temporary file: %s", strerror(e));
  }
  return f;
}

/* Start the preprocessor on the input, its output scanned as it comes. The
   input is its standard input ("<stdin>"), from a temporary file. Its
   diagnostics are collected and, on failure, reported in the one format
   (wait_preprocessor). */
static void preprocess(Source *src, const char *path, const char *text, size_t len,
                       const CppArgs *args) {
  if (args->output_fd > 0) {
    take_given_output(src, path, args);
    return;
  }
  const char **argv = source_cpp_argv(path, text, len, args);

  /* The input goes to the preprocessor as a file, not a pipe: it is all
     here already, and a pipe would need a process or thread of ours to
     write it while we read the output (a large input would fill both pipes
     and stop the two sides). Each failure below closes what was opened
     before it: a run that ends in an error gives back its descriptors too
     (a language server runs the pipeline on every keystroke). */
  FILE *input = input_file(text, len);
  int out[2];
  if (pipe(out) < 0) {
    int e = errno;
    fclose(input);
    fatal("pipe: %s", strerror(e));
  }
  FILE *errs = tmpfile();
  if (!errs) {
    int e = errno;
    fclose(input);
    close_pipe(out);
    fatal("cannot make a temporary file: %s", strerror(e));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fileno(input), 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fileno(errs), 2);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  fclose(input); /* (the preprocessor has its own descriptor of it) */
  if (err) {
    close_pipe(out);
    fclose(errs);
    fatal("cannot run the preprocessor '%s': %s (set COROC_CPP to a command like \"cc -E\")",
          argv[0], strerror(err));
  }
  close(out[1]);
  Preprocessor *cpp = xcalloc(1, sizeof *cpp);
  *cpp = (Preprocessor){.pid = pid, .out = out[0], .errs = errs, .path = path};
  if (args->keep_output)
    cpp->markers = xmemstream(&cpp->marker_text, &cpp->marker_len);
  cpp->stream =
      stream_open(out[0], src->name, "<stdin>", &src->expanded, cpp->markers, scan_loading);
  src->cpp = cpp;
  running = cpp;
  diag_before_error(source_settle);
}

/* The preprocessor has said all it will: did it fail? Then its error is
   the one to report, whatever came of reading its output. */
static void wait_preprocessor(Preprocessor *cpp) {
  if (!cpp->errs) { /* (the output was given: no process, and the descriptor is the caller's) */
    cpp->out = -1;
    running = NULL;
    return;
  }
  close(cpp->out);
  cpp->out = -1;
  int status;
  waitpid(cpp->pid, &status, 0);
  cpp->pid = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    report_cpp_failure(cpp->errs, cpp->path); /* (source_release closes errs) */
  fclose(cpp->errs);
  running = NULL;
}

/* The end of the preprocessor's output: what needs all of it is done now. */
static void finish_preprocessor(Source *src) {
  Preprocessor *cpp = src->cpp;
  src->cpp = NULL;
  diag_before_error(NULL);
  wait_preprocessor(cpp);
  if (cpp->markers) { /* the depfile's linemarkers */
    fclose(cpp->markers);
    src->cpp_text = cpp->marker_text;
    src->cpp_len = cpp->marker_len;
  }
  if (src->original_ready)
    mark_dead(src, INT_MAX);
  xfree(cpp);
}

/* The preprocessor's output is scanned a batch of tokens at a time. The
   fuzz harness takes small ones, so that what the streaming run settles as
   the output comes is settled at many more points (source_load_text). */
#ifdef COROC_FUZZING
enum { BATCH = 64 };
#else
enum { BATCH = 4096 };
#endif

bool source_more(Source *src, int index) {
  while (src->cpp && index >= src->expanded.n) {
    bool more = stream_more(src->cpp->stream, index + BATCH);
    mark_live_lines(src);
    if (!more)
      finish_preprocessor(src);
  }
  return index < src->expanded.n;
}

void source_finish(Source *src) {
  while (src->cpp)
    source_more(src, src->expanded.n + (1 << 20));
}

/* An error is about to be reported, with the preprocessor still writing:
   if it failed, its error comes first (the rest of its output, unread, may
   be what made the parser stop). */
static void source_settle(void) {
  Source *src = loading;
  if (!src || !src->cpp)
    return;
  Preprocessor *cpp = src->cpp;
  src->cpp = NULL;
  char buf[1 << 16];
  while (read(cpp->out, buf, sizeof buf) > 0)
    ;
  wait_preprocessor(cpp);
}

/* }================================================================== */

/* {==================================================================
 * Tying the two token lists together
 * =================================================================== */

static void scan_original(Source *src);

/* Is the liveness of `line` known? Once the preprocessor has ended; or,
   in the streaming run, once its output is past the line: the .coc's lines
   come out of it in order (a file with #line directives of its own, whose
   lines may not, does not come here; one that includes itself is told by
   Source.out_of_order, and the streaming run then gives up). */
static bool line_settled(const Source *src, int line) {
  return !src->cpp || (src->as_they_come && !src->out_of_order && line < src->line_reached);
}

/* A run of tokens between directive lines with no live line in it was
   skipped by the preprocessor: the nested parse must not see it. The runs
   are settled in order, from Source.dead_from, up to the one that holds
   original token `upto`: a run is live once one of its lines is, dead
   once all of them are settled and none is, and until then the
   preprocessor's output is read further. */
static void mark_dead(Source *src, int upto) {
  TokenList *o = &src->original;
  int i = src->dead_from;
  while (i < o->n && i <= upto) {
    if (o->v[i].kind == TK_DIRECTIVE) {
      i++;
      continue;
    }
    int j = i;
    bool live = false;
    for (; j < o->n && o->v[j].kind != TK_DIRECTIVE && !live; j++) {
      int line = o->v[j].line;
      live = line < src->nlines && src->line_live[line];
    }
    while (j < o->n && o->v[j].kind != TK_DIRECTIVE)
      j++;
    if (!live && !line_settled(src, o->v[j - 1].line)) {
      src->dead_from = i;
      source_more(src, src->expanded.n); /* (a batch more: the end settles every line) */
      continue;
    }
    for (int k = i; k < j; k++)
      o->v[k].dead = !live;
    i = j;
  }
  if (i > src->dead_from) /* (the preprocessor's end, above, may have settled all) */
    src->dead_from = i;
}

/* The lines of the text, counted by memchr: a byte at a time, the count
   went to memory at every byte (a char may alias it), 5% of the time on a
   large file. */
static int count_lines(const char *text, size_t len) {
  int n = 0;
  for (const char *p = text, *end = text + len; (p = memchr(p, '\n', end - p)); p++)
    n++;
  return n;
}

/* The tables of which lines are live, made when first needed: by the
   first batch of preprocessed tokens, or by the scan that passes over the
   lines of the bodies (source_pass_over), which marks them itself. */
static void make_live_lines(Source *src) {
  if (!src->line_live) {
    src->line_live = xcalloc(src->nlines + 1, sizeof(bool));
    src->directive_live = xcalloc(src->nlines + 1, sizeof(bool));
  }
}

/* The lines of the .coc that the preprocessed tokens scanned since the
   last call come from (Source.line_live, directive_live). */
static void mark_live_lines(Source *src) {
  make_live_lines(src);
  for (int i = src->lines_marked; i < src->expanded.n; i++) {
    Token *t = &src->expanded.v[i];
    if (!t->in_main || t->line <= 0 || t->line >= src->nlines)
      continue;
    src->out_of_order |= t->line < src->line_reached;
    if (t->line > src->line_reached)
      src->line_reached = t->line;
    if (t->kind == TK_DIRECTIVE)
      src->directive_live[t->line] = true;
    else
      src->line_live[t->line] = true;
  }
  src->lines_marked = src->expanded.n;
}

void source_pass_over(Source *src, const bool *pass) {
  if (!src->cpp)
    return; /* (all of the preprocessor's output is scanned already) */
  make_live_lines(src);
  src->line_passed = xcalloc(src->nlines + 1, sizeof(bool));
  stream_pass_over(src->cpp->stream, pass, src->nlines, src->line_live, src->line_passed);
}

void source_skipped_lines(Source *src, int after, int before) {
  for (int line = after + 1; src->line_passed && line < before; line++)
    src->line_passed[line] = false;
}

bool source_passed_lines_left(const Source *src) {
  for (int line = 0; src->line_passed && line <= src->nlines; line++)
    if (src->line_passed[line])
      return true;
  return false;
}

/* The first original token on `line` or after it, of those kept
   (Source.original_from on): looked up where scan_original noted it. */
static int first_on_line(Source *src, int line) {
  line = line < 0 ? 0 : line > src->nlines + 1 ? src->nlines + 1 : line;
  int i = src->line_token[line];
  return i > src->original_from ? i : src->original_from;
}

int source_find_original(Source *src, int index) {
  if (!src->as_they_come)
    source_finish(src); /* which lines are live needs all of the preprocessor's output */
  scan_original(src);
  Token *t = &src->expanded.v[index];
  if (!t->in_main)
    return -1;
  source_settle_original(src, first_on_line(src, t->line + 1) - 1); /* (its line is live) */
  int repeat = 0;
  for (int j = index - 1; j >= 0; j--) {
    Token *u = &src->expanded.v[j];
    if (!u->in_main || u->line != t->line)
      break;
    if (strcmp(tok_text(u), tok_text(t)) == 0)
      repeat++;
  }
  for (int i = first_on_line(src, t->line); i < src->original.n; i++) {
    Token *o = &src->original.v[i];
    if (o->line != t->line)
      break;
    if (o->kind != TK_DIRECTIVE && !o->dead && strcmp(tok_text(o), tok_text(t)) == 0 &&
        repeat-- == 0)
      return i;
  }
  return -1;
}

Pos source_original_pos(Source *src, int index) {
  int i = source_find_original(src, index); /* (scans the original) */
  if (i >= 0)
    return tok_pos(&src->original.v[i]);
  Token *t = &src->expanded.v[index];
  if (t->kind == TK_EOF)
    return tok_pos(&src->original.v[src->original.n]);
  if (!t->in_main)
    return tok_pos(t);
  /* made by a macro: point at the start of the line it stands on */
  i = first_on_line(src, t->line);
  if (i < src->original.n && src->original.v[i].line == t->line)
    return tok_pos(&src->original.v[i]);
  return (Pos){src->name, t->line, 1, 0};
}

/* }================================================================== */

/* {==================================================================
 * Token notes
 * =================================================================== */

/* Parallel to Source.original, in chunks made when their first note is
   set: the streaming run forgets those of the coroutines it has printed
   (source_forget_notes). */
typedef struct {
  Sym *sym;
  Node *hoisted;
  Node *literal;
} Note;

enum { NOTE_CHUNK_BITS = 12, NOTE_CHUNK = 1 << NOTE_CHUNK_BITS };

static const TokenList *noted; /* the user's own tokens */
static Note **notes;           /* [index >> NOTE_CHUNK_BITS] a chunk, or NULL */
static int nchunks;

/* (What is made here lasts the run, not a region's: memory_keep.) */
static Note *note_of(const Token *t, bool make) {
  if (!noted || t < noted->v || t > noted->v + noted->n)
    return NULL;
  size_t i = t - noted->v, c = i >> NOTE_CHUNK_BITS;
  if (!notes) {
    if (!make)
      return NULL;
    nchunks = (noted->n >> NOTE_CHUNK_BITS) + 1;
    notes = memory_keep(xcalloc(nchunks, sizeof *notes));
  }
  if (!notes[c]) {
    if (!make)
      return NULL;
    notes[c] = memory_keep(xcalloc(NOTE_CHUNK, sizeof(Note)));
  }
  return &notes[c][i & (NOTE_CHUNK - 1)];
}

void source_drop_original(Source *src, int last) {
  int from = first_on_line(src, src->original.v[last].line); /* its line may hold another */
  if (from <= src->original_from)
    return;
  memory_not_read_again(src->original.v, 0, sizeof(Token) * (size_t)src->original_from,
                        sizeof(Token) * (size_t)from);
  src->original_from = from;
}

void source_forget_notes(int below) {
  for (int c = 0; notes && c < nchunks && (c + 1) << NOTE_CHUNK_BITS <= below; c++) {
    xfree(notes[c]);
    notes[c] = NULL;
  }
}

static void forget_all_notes(void) {
  for (int c = 0; notes && c < nchunks; c++)
    xfree(notes[c]);
  xfree(notes);
  notes = NULL;
  nchunks = 0;
}

Sym *token_sym(const Token *t) {
  Note *n = note_of(t, false);
  return n ? n->sym : NULL;
}

void token_set_sym(const Token *t, Sym *s) {
  Note *n = note_of(t, true);
  if (n)
    n->sym = s;
}

Node *token_hoisted(const Token *t) {
  Note *n = note_of(t, false);
  return n ? n->hoisted : NULL;
}

void token_set_hoisted(const Token *t, Node *node) {
  Note *n = note_of(t, true);
  if (n)
    n->hoisted = node;
}

Node *token_literal(const Token *t) {
  Note *n = note_of(t, false);
  return n ? n->literal : NULL;
}

void token_set_literal(const Token *t, Node *node) {
  Note *n = note_of(t, true);
  if (n)
    n->literal = node;
}

/* }================================================================== */

/* Where each line of the text starts: an original token's offset is its
   line's start and its column (token_offset), so a token keeps no offset of
   its own. Lines end at LF in the text coroc scans (normalize_line_ends). */
static void mark_line_starts(Source *src) {
  src->line_start = xcalloc(src->nlines, sizeof *src->line_start);
  int line = 1;
  for (const char *p = src->text, *end = p + src->len; (p = memchr(p, '\n', end - p)); p++)
    src->line_start[++line] = (unsigned)(p + 1 - src->text);
}

/* Where each line's tokens begin: the index of the first user's token on
   the line or after it (Source.line_token), for first_on_line, which
   looks it up for each coroutine a few times (a search there was 1% of a
   run on part 4's large.coc). */
static void mark_line_tokens(Source *src) {
  const TokenList *o = &src->original;
  src->line_token = xcalloc(src->nlines + 2, sizeof *src->line_token);
  int line = 0;
  for (int i = 0; i < o->n; i++)
    while (line <= o->v[i].line)
      src->line_token[line++] = i;
  while (line < src->nlines + 2)
    src->line_token[line++] = o->n;
}

/* The user's own tokens are scanned when first needed: by a coroutine (the
   output is made of them; load scans them while the preprocessor starts,
   when the file seems to declare one), a diagnostic (it points into them),
   or #line directives (the preprocessor must not see them). A file without
   any of these, plain C, is scanned once, as the preprocessor expanded it. */
static void scan_original(Source *src) {
  if (src->original_ready)
    return;
  src->original_ready = true;
  tokenize_in_place(src->name, src->text, src->len, &src->original);
  mark_line_starts(src);
  mark_line_tokens(src);
  noted = &src->original;
  if (src->line_live && !src->cpp) /* (else once the lines are known, or as they come) */
    mark_dead(src, INT_MAX);
}

void source_settle_original(Source *src, int upto) {
  if (upto >= src->dead_from)
    mark_dead(src, upto);
}

/* (loading: the input being loaded. The scanner of the preprocessor's
   output asks for the user's own tokens when it meets an error, to point at
   the user's column: lexer.l, unterminated; stream_open is given this.) */
static void scan_loading(void) {
  if (loading)
    scan_original(loading);
}

/* A line ends at LF, CR LF, or a CR alone (old Mac files), as the
   preprocessor says. coroc counts lines by LF: in a file with a lone CR, it
   scans a copy where each lone CR is an LF. A byte for a byte, so offsets
   hold in both, and the output copies the user's bytes (Source.raw). */
static void normalize_line_ends(Source *src) {
  char *copy = NULL;
  const char *end = src->raw + src->len;
  for (const char *p = src->raw; (p = memchr(p, '\r', end - p)); p++) /* (most files have none) */
    if (p + 1 == end || p[1] != '\n') {
      if (!copy)
        copy = copy_with_room(src->raw, src->len);
      copy[p - src->raw] = '\n';
    }
  if (copy)
    src->text = copy;
}

/* The text is what diagnostics quote, and it must be text. */
static void take_text(Source *src) {
  src->nline_dirs = -1;
  line_macros_forget(); /* (one input's, as its #line directives) */
  normalize_line_ends(src);
  src->nlines = 2 + count_lines(src->text, src->len); /* (both views of it count by these) */
  diag_add_file(src->name, src->text, src->len);
  const char *nul = memchr(src->text, '\0', src->len);
  if (nul) {
    Pos pos = {src->name, 1, 1, 1};
    for (const char *p = src->text; p < nul; p++, pos.col++)
      if (*p == '\n')
        pos = (Pos){src->name, pos.line + 1, 0, 1};
    error_at(pos, "a NUL byte in the source: is this a C file?");
  }
}

/* Does the text seem to declare a coroutine: the word `coroutine` on a line
   with no comment, string or character literal before it? A guess, of when
   to scan the user's tokens (load): a wrong one costs a scan or saves none,
   it changes no result. C that only speaks of coroutines in its comments,
   as SQLite does, is passed through without its own tokens. */
static bool seems_to_declare_coroutines(const char *text, size_t len) {
  const char *end = text + len;
  for (const char *p = text; (p = memmem(p, (size_t)(end - p), "coroutine", 9)); p += 9) {
    if ((p > text && is_ident_char(p[-1])) || (p + 9 < end && is_ident_char(p[9])))
      continue;
    const char *line = p;
    while (line > text && line[-1] != '\n')
      line--;
    if (strcspn(line, "/*\"'\n") >= (size_t)(p - line))
      return true;
  }
  return false;
}

/* The text read (or given), then preprocessed as the parser asks. */
static void load(Source *src, const char *path, char *text, size_t text_len, const CppArgs *cpp) {
  loading = src;
  src->name = display_name(path);
  src->raw = src->text = text;
  src->len = text_len;
  take_text(src);
  if (may_have_line_directives(src->text, src->len))
    scan_original(src);
  size_t len;
  char *input = text_for_preprocessor(src, &len);
  preprocess(src, path, input, len, cpp); /* its output is scanned as the parser asks */
  if (input != src->text)
    xfree(input); /* (the child feeding the preprocessor has its own copy) */
  /* The user's tokens now, while the preprocessor starts and reads the
     headers and coroc would only wait for its first line: the first
     coroutine needs all of them, and they stay from then on, so the peak
     of memory is the same (part 4's large.coc: 226 -> 210 ms). */
  if (seems_to_declare_coroutines(src->text, src->len))
    scan_original(src);
}

void source_load(Source *src, const char *path, const CppArgs *cpp) {
  size_t len;
  char *text = read_input(path, &len);
  load(src, path, text, len, cpp);
}

void source_load_buffer(Source *src, const char *path, const char *text, size_t len,
                        const CppArgs *cpp) {
  load(src, path, copy_with_room(text, len), len, cpp);
}

#ifdef COROC_FUZZING
/* The fuzz harness cannot run `cc -E` per input (a process each time, and
   the time is all the preprocessor's): the text stands for what the
   preprocessor would print for it. The prelude (NUL-terminated, ending with
   a newline; NULL for none) stands for what it prints before the input,
   from headers such as coro.h: linemarkers, then declarations. The input is
   copied, with its #line directives given as for the preprocessor; every
   other directive line stays in the expanded tokens as a directive in
   effect, as -dD keeps #define and #undef: no macro is expanded, no
   #include read, and every #if group is taken. */
static int fuzz_output = -1; /* the "preprocessor's" output, closed by source_release */

/* `if 0`, the words of a directive after its `#`. */
static bool is_if_zero(const char *word) {
  if (strncmp(word, "if", 2) != 0 || (word[2] != ' ' && word[2] != '\t'))
    return false;
  const char *c = word + 2 + strspn(word + 2, " \t");
  return c[0] == '0' && !isalnum((unsigned char)c[1]) && c[1] != '_';
}

/* The groups a preprocessor would skip, of those it can tell without
   evaluating anything: `#if 0`'s, and the `#else` or `#elif` of an `#if 1`
   (any other condition is taken as true). Their lines are blanked, a space
   for each byte, so that every line keeps its number. The directive lines
   of the conditionals stay, as the other directives do. */
static void skip_false_groups(char *text, size_t len) {
  enum { MAX_DEPTH = 64 };
  bool skip[MAX_DEPTH + 1] = {false}, taken[MAX_DEPTH + 1] = {false};
  int depth = 0, untracked = 0; /* (conditionals nested deeper are not followed) */
  for (char *line = text, *end = text + len; line < end;) {
    char *eol = memchr(line, '\n', (size_t)(end - line));
    eol = eol ? eol : end;
    const char *p = line + strspn(line, " \t");
    const char *word = p + (*p == '#' ? 1 + strspn(p + 1, " \t") : 0);
    bool directive = *p == '#', outer = skip[depth];
    if (directive && strncmp(word, "if", 2) == 0) {
      if (depth == MAX_DEPTH) {
        untracked++;
      } else {
        bool zero = is_if_zero(word);
        depth++;
        skip[depth] = outer || zero;
        taken[depth] = !zero;
      }
    } else if (directive && (strncmp(word, "el", 2) == 0) && depth > 0 && !untracked) {
      skip[depth] = skip[depth - 1] || taken[depth];
      taken[depth] = true;
      outer = skip[depth - 1];
    } else if (directive && strncmp(word, "endif", 5) == 0 && depth > 0) {
      if (untracked)
        untracked--;
      else
        depth--;
      outer = skip[depth];
    }
    bool conditional = directive && (strncmp(word, "if", 2) == 0 || strncmp(word, "el", 2) == 0 ||
                                     strncmp(word, "endif", 5) == 0);
    if (conditional ? outer : skip[depth])
      memset(line, ' ', (size_t)(eol - line));
    line = eol + 1;
  }
}

void source_load_text(Source *src, const char *name, const char *text, size_t len,
                      const char *prelude) {
  src->name = name;
  src->raw = src->text = copy_with_room(text, len);
  src->len = len;
  take_text(src);
  if (may_have_line_directives(src->text, src->len))
    scan_original(src);
  size_t len_in;
  char *input = text_for_preprocessor(src, &len_in);
  size_t before = prelude ? strlen(prelude) : 0;
  static const char marker[] = "# 1 \"<stdin>\"\n";
  size_t plen = before + sizeof marker - 1 + len_in;
  char *pp = xcalloc(1, plen + 1);
  if (prelude)
    memcpy(pp, prelude, before);
  memcpy(pp + before, marker, sizeof marker - 1);
  memcpy(pp + before + sizeof marker - 1, input, len_in);
  if (input != src->text)
    xfree(input);
  skip_false_groups(pp + before + sizeof marker - 1, len_in);
  /* read as a preprocessor's output is, a batch at a time */
  fuzz_output = memfd_create("coroc-fuzz-output", 0);
  if (fuzz_output < 0 || write(fuzz_output, pp, plen) != (ssize_t)plen ||
      lseek(fuzz_output, 0, SEEK_SET) != 0)
    fatal("cannot make the preprocessor's output: %s", strerror(errno));
  xfree(pp);
  take_given_output(src, name, &(CppArgs){.output_fd = fuzz_output});
  if (seems_to_declare_coroutines(src->text, src->len)) /* (as load does) */
    scan_original(src);
}

#endif

/* What a run leaves here: the token notes, which belong to its tokens, and
   a preprocessor an error left running (an internal error reports without
   settling it) or not yet closed (its own failure is reported from inside
   wait_preprocessor). Its output closed, it stops at its next write. */
void source_release(void) {
  Preprocessor *cpp = running;
  running = NULL;
  if (cpp && cpp->errs) { /* (a given output has no process, and its descriptor is the caller's) */
    if (cpp->out >= 0)
      close(cpp->out);
    if (cpp->pid > 0)
      waitpid(cpp->pid, NULL, 0);
    fclose(cpp->errs);
  }
  loading = NULL;
  forget_all_notes();
  noted = NULL;
#ifdef COROC_FUZZING
  if (fuzz_output >= 0)
    close(fuzz_output);
  fuzz_output = -1;
#endif
}
