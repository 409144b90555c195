/* main.c: the command line (docs/cli.md).
 *
 *   coroc [--backend=stackless|stackful] [-o OUT.c] [--header[=OUT.h]]
 *         [-I DIR]... [-D NAME[=VALUE]]...
 *         [-MD|-MMD [-MF DEPFILE] [-MT TARGET]... [-MP]]
 *         [--no-line] [--dot] [--stats] IN.coc
 *   coroc --html[=OUT.html] [--hoist-all] [-I DIR]... [-D NAME[=VALUE]]... IN.coc
 *
 * The output is built in memory and written only once everything succeeded:
 * to a temporary file beside OUT.c that is then renamed over it, so a failed
 * run leaves no partial file and leaves an existing OUT.c as it was. The
 * depfile of -MD (depfile.c) and the header of --header (emit_header.c)
 * are written the same way, and so is the page of --html (html.c).
 * Exit status: 0 success, 1 an error in the input, 2 a usage error.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "run.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: coroc [--backend=stackless|stackful] [-o OUT.c] [--header[=OUT.h]]\n"
    "             [-I DIR]... [-D NAME[=VALUE]]...\n"
    "             [-MD|-MMD [-MF DEPFILE] [-MT TARGET]... [-MP]]\n"
    "             [--no-line] [--hoist-all] [--dot] [--stats] IN.coc\n"
    "       coroc --html[=OUT.html] [--hoist-all] [-I DIR]... [-D NAME[=VALUE]]... IN.coc\n"
    "       coroc --help | --version\n";

static const char help_text[] =
    "\n"
    "Turn the coroutines of a .coc file (C with `coroutine`, `yield` and `await`)\n"
    "into plain C. IN.coc may be - for standard input.\n"
    "\n"
    "  --backend=stackless  each coroutine becomes a switch-based state machine whose\n"
    "                       locals live in a heap frame (the default)\n"
    "  --backend=stackful   each coroutine stays a function that runs on its own stack\n"
    "  -o OUT.c             write the C here (whole, or not at all); default: stdout\n"
    "  --header[=OUT.h]     also write a header (whole, or not at all) with which other\n"
    "                       files make instances of the coroutines with external\n"
    "                       linkage: NAME(args), and coro_in_NAME(&storage, args) in\n"
    "                       a CORO_FRAME(NAME) they give; default: OUT.c with its\n"
    "                       suffix replaced by .h\n"
    "  -MD                  also write a depfile: a Makefile rule naming the input and\n"
    "                       every file the preprocessor read for it, so that a build\n"
    "                       runs coroc again when a header changes\n"
    "  -MMD                 the same without system headers\n"
    "  -MF DEPFILE          where the depfile goes (whole, or not at all); default:\n"
    "                       OUT.c with its suffix replaced by .d\n"
    "  -MT TARGET           the rule's target, as written (may be repeated); default:\n"
    "                       OUT.c\n"
    "  -MP                  also a rule without prerequisites for each header, so that\n"
    "                       make does not stop when a header is removed\n"
    "  -I DIR, -D NAME[=V]  as for the C compiler: coroc preprocesses the input to learn\n"
    "                       the type names of headers and which #if groups are in effect\n"
    "  --no-line            no #line directives (they point compiler errors and gdb\n"
    "                       into the .coc)\n"
    "  --hoist-all          every local of a stackless coroutine in its frame (by default\n"
    "                       only those whose values live across a yield or await)\n"
    "  --dot                print each coroutine's state machine as a Graphviz graph\n"
    "  --stats              print each coroutine's frame size\n"
    "  --html[=OUT.html]    instead of C, write one page (whole, or not at all): the\n"
    "                       .coc and the C of both backends side by side, each line of\n"
    "                       C linked to the .coc line it comes from, and each\n"
    "                       coroutine's frame and state machine; default: IN's name\n"
    "                       with its suffix replaced by .html, in the current directory\n"
    "  --help, --version    print this, or the version, and exit\n"
    "\n"
    "The preprocessor is `cc -E` unless $COROC_CPP names another.\n"
    "For editors, coroc-lsp (installed beside coroc) is the language server of .coc\n"
    "files: it speaks LSP on standard input and output (docs/editors.md).\n"
    "Exit status: 0 success, 1 an error in the input, 2 a usage error.\n";

static _Noreturn void usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "coroc: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage_text);
  exit(2);
}

typedef struct {
  Options opt;
  CppArgs cpp;
  DepOptions dep;
  const char *dep_option; /* "-MD" or "-MMD" as given; NULL: no depfile */
  const char *in;
  const char *out;
  bool header;      /* --header was given (its file: opt.header) */
  bool html;        /* --html was given ... */
  const char *page; /* ... and its page goes here (given, or settle_html's) */
  const char *only; /* the first option that --html cannot go with, or NULL */
} Command;

/* The value of an option given as "-o X" or "-oX". */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  if (arg[strlen(name)])
    return arg + strlen(name);
  if (*i + 1 >= argc)
    usage_error("option '%s' needs a value", name);
  return argv[++*i];
}

/* -MD, -MMD, -MF DEPFILE, -MT TARGET, -MP: true if argv[*i] is one of them. */
static bool parse_dep_option(int argc, char **argv, int *i, Command *cmd) {
  const char *a = argv[*i];
  if (strcmp(a, "-MD") == 0 || strcmp(a, "-MMD") == 0) {
    cmd->dep_option = a;
    cmd->dep.system_headers = strcmp(a, "-MD") == 0;
  } else if (strncmp(a, "-MF", 3) == 0) {
    if (cmd->dep.path)
      usage_error("%s", "more than one -MF");
    cmd->dep.path = option_value(argc, argv, i, "-MF");
  } else if (strncmp(a, "-MT", 3) == 0) {
    cmd->dep.targets[cmd->dep.ntargets++] = option_value(argc, argv, i, "-MT");
  } else if (strcmp(a, "-MP") == 0) {
    cmd->dep.phony = true;
  } else {
    return false;
  }
  return true;
}

/* OUT.c with its suffix replaced by `suffix`, as gcc -MD names its depfile
   (.d) and bison its header (.h). */
static char *beside_output(const char *out, const char *suffix) {
  const char *base = strrchr(out, '/');
  base = base ? base + 1 : out;
  const char *dot = strrchr(base, '.');
  size_t stem = dot && dot != base ? (size_t)(dot - out) : strlen(out);
  return format("%.*s%s", (int)stem, out, suffix);
}

/* The header's name, given or derived from -o; what it may not go with. */
static void settle_header(Command *cmd) {
  if (!cmd->header)
    return;
  if (cmd->opt.dot || cmd->opt.stats)
    usage_error("%s", "--header cannot be combined with --dot or --stats (they print no C)");
  if (!cmd->opt.header && !cmd->out)
    usage_error("%s", "--header needs a file name when there is no -o: give --header=OUT.h");
  if (!cmd->opt.header)
    cmd->opt.header = beside_output(cmd->out, ".h");
  if (cmd->out && strcmp(cmd->opt.header, cmd->out) == 0)
    usage_error("the header and the output are both '%s'", cmd->out);
  if (cmd->dep_option && strcmp(cmd->opt.header, cmd->dep.path) == 0)
    usage_error("the header and the depfile are both '%s'", cmd->opt.header);
}

/* The page's name, given or IN's; what it may not go with: --html prints
   no C, and shows both backends with their #line directives. */
static void settle_html(Command *cmd) {
  if (!cmd->html)
    return;
  if (cmd->only)
    usage_error("--html cannot be combined with %s (the page is all it writes)", cmd->only);
  if (cmd->opt.dot || cmd->opt.stats)
    usage_error("%s", "--html cannot be combined with --dot or --stats (the page shows both)");
  if (!cmd->page && strcmp(cmd->in, "-") == 0)
    usage_error("%s",
                "--html needs a file name when the input is standard input: give "
                "--html=OUT.html");
  if (!cmd->page) { /* IN's name in the current directory, as cc -c names its object */
    const char *base = strrchr(cmd->in, '/');
    cmd->page = beside_output(base ? base + 1 : cmd->in, ".html");
  }
  if (strcmp(cmd->page, cmd->in) == 0)
    usage_error("the page and the input are both '%s'", cmd->in);
}

/* The depfile's name and the rule's target, given or derived from -o. */
static void settle_depfile(Command *cmd) {
  DepOptions *dep = &cmd->dep;
  if (!cmd->dep_option) {
    if (dep->path || dep->ntargets || dep->phony)
      usage_error("%s", "-MF, -MT and -MP need -MD or -MMD");
    return;
  }
  if (!dep->ntargets && !cmd->out)
    usage_error("%s needs a target for its rule: give -o OUT.c or -MT TARGET", cmd->dep_option);
  if (!dep->path && !cmd->out)
    usage_error("%s needs -MF DEPFILE when there is no -o", cmd->dep_option);
  if (!dep->ntargets)
    dep->targets[dep->ntargets++] = depfile_quote(cmd->out); /* gcc quotes the -o target */
  if (!dep->path)
    dep->path = beside_output(cmd->out, ".d");
  if (cmd->out && strcmp(dep->path, cmd->out) == 0)
    usage_error("the depfile and the output are both '%s'", cmd->out);
}

static void parse_args(int argc, char **argv, Command *cmd) {
  cmd->opt.line_directives = true;
  cmd->cpp.args = xcalloc(2 * argc + 1, sizeof(char *));
  cmd->dep.targets = xcalloc(argc + 1, sizeof(char *));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) {
      printf("%s%s", usage_text, help_text);
      exit(0);
    } else if (strcmp(a, "--version") == 0) {
      printf("coroc %s\n", COROC_VERSION);
      exit(0);
    } else if (strncmp(a, "--backend=", 10) == 0) {
      cmd->only = cmd->only ? cmd->only : "--backend";
      if (strcmp(a + 10, "stackless") == 0)
        cmd->opt.backend = BACKEND_STACKLESS;
      else if (strcmp(a + 10, "stackful") == 0)
        cmd->opt.backend = BACKEND_STACKFUL;
      else
        usage_error("unknown backend '%s' (stackless or stackful)", a + 10);
    } else if (strcmp(a, "--no-line") == 0) {
      cmd->only = cmd->only ? cmd->only : "--no-line";
      cmd->opt.line_directives = false;
    } else if (strcmp(a, "--hoist-all") == 0) {
      cmd->opt.hoist_all = true;
    } else if (strcmp(a, "--dot") == 0) {
      cmd->opt.dot = true;
    } else if (strcmp(a, "--stats") == 0) {
      cmd->opt.stats = true;
    } else if (strcmp(a, "--header") == 0 || strncmp(a, "--header=", 9) == 0) {
      if (cmd->header)
        usage_error("%s", "more than one --header");
      cmd->header = true;
      if (a[8] == '=' && a[9] == '\0')
        usage_error("option '%s' needs a value", "--header=");
      cmd->opt.header = a[8] == '=' ? a + 9 : NULL;
      cmd->only = cmd->only ? cmd->only : "--header";
    } else if (strcmp(a, "--html") == 0 || strncmp(a, "--html=", 7) == 0) {
      if (cmd->html)
        usage_error("%s", "more than one --html");
      if (a[6] == '=' && a[7] == '\0')
        usage_error("option '%s' needs a value", "--html=");
      cmd->html = true;
      cmd->page = a[6] == '=' ? a + 7 : NULL;
    } else if (parse_dep_option(argc, argv, &i, cmd)) {
      cmd->only = cmd->only ? cmd->only : "a depfile (-MD, -MMD, -MF, -MT, -MP)";
      continue;
    } else if (strncmp(a, "-o", 2) == 0) {
      cmd->only = cmd->only ? cmd->only : "-o";
      if (cmd->out)
        usage_error("%s", "more than one -o");
      cmd->out = option_value(argc, argv, &i, "-o");
    } else if (strncmp(a, "-I", 2) == 0 || strncmp(a, "-D", 2) == 0) {
      char flag[3] = {a[0], a[1], 0};
      cmd->cpp.args[cmd->cpp.nargs++] = flag[1] == 'I' ? "-I" : "-D";
      cmd->cpp.args[cmd->cpp.nargs++] = option_value(argc, argv, &i, flag);
    } else if (a[0] == '-' && a[1] != '\0') {
      usage_error("unknown option '%s'", a);
    } else {
      if (cmd->in)
        usage_error("more than one input file ('%s')", a);
      cmd->in = a;
    }
  }
  if (!cmd->in)
    usage_error("%s", "no input file");
  if (cmd->opt.dot && cmd->opt.stats)
    usage_error("%s", "--dot and --stats cannot be combined");
  settle_html(cmd);
  settle_depfile(cmd);
  settle_header(cmd);
  cmd->cpp.keep_output = cmd->dep_option != NULL;
}

static void write_stdout(const char *buf, size_t len) {
  if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)
    fatal("cannot write the output: %s", strerror(errno));
}

/* A file written whole under a temporary name, until commit() renames it. */
typedef struct {
  const char *path; /* the name to give it (through a symlink: its target) */
  char *tmp;        /* the temporary file; NULL when there is nothing to rename */
} Pending;

/* Is `out` a device or a FIFO (-o /dev/null, -o /dev/stdout)? Renaming a
   file over it would replace the device itself: it is written into. */
static bool is_special(const char *out, struct stat *st) {
  return stat(out, st) == 0 && !S_ISREG(st->st_mode);
}

/* A temporary file beside `out`, to be renamed over it. */
static FILE *open_temp(const char *out, Pending *p) {
  char *target = realpath(out, NULL); /* through a symlink: replace its target, keep the link */
  if (target) {
    out = format("%s", target); /* (in the run's heap, which memory_release gives back) */
    free(target);
  }
  char *tmp = format("%s.tmp.XXXXXX", out);
  int fd = mkstemp(tmp);
  if (fd < 0)
    fatal("cannot create %s: %s", out, strerror(errno));
  diag_remove_on_error(tmp);
  mode_t mask = umask(0); /* a new file as the shell would make it, not mkstemp's 0600 */
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  FILE *f = fdopen(fd, "w+");
  if (!f)
    fatal("cannot write %s: %s", out, strerror(errno));
  *p = (Pending){out, tmp};
  return f;
}

static void close_written(FILE *f, const char *out) {
  if (fclose(f) != 0)
    fatal("cannot write %s: %s", out, strerror(errno));
}

/* Write buf to a temporary file beside `out`, or into a device. */
static Pending write_temp(const char *out, const char *buf, size_t len) {
  struct stat st;
  Pending p = {out, NULL};
  FILE *f = is_special(out, &st) ? fopen(out, "w") : open_temp(out, &p);
  if (!f || fwrite(buf, 1, len, f) != len)
    fatal("cannot write %s: %s", out, strerror(errno));
  close_written(f, out);
  return p;
}

static void commit(const Pending *p) {
  if (p->tmp && rename(p->tmp, p->path) != 0)
    fatal("cannot write %s: %s", p->path, strerror(errno));
}

/* Write the output (to OUT or standard output), the depfile and the
   header, each whole or not at all: all are written out before any is
   renamed into place. The depfile goes first, so that a rename that fails
   never leaves a new output beside an older depfile, which could miss a
   header it includes; the header next, so that a new .c never stands
   beside an older header (a file compiled with that fails to compile or
   link, which is loud; the other way round could pass silently). */
static void write_results(const Command *cmd, const char *buf, size_t len, const char *rule,
                          size_t rule_len, const char *header, size_t header_len) {
  Pending dep = {0}, out = {0}, hdr = {0};
  if (rule)
    dep = write_temp(cmd->dep.path, rule, rule_len);
  if (header)
    hdr = write_temp(cmd->opt.header, header, header_len);
  if (cmd->out)
    out = write_temp(cmd->out, buf, len);
  else
    write_stdout(buf, len);
  commit(&dep);
  commit(&hdr);
  commit(&out);
}

/* Where the C is written as it is made (coroc_run_to): a temporary file
   beside OUT, renamed over it at the end (*p); the null device itself; or,
   for standard output and another device, a file of no name, copied into
   it at the end (*copy set), so that a failed run writes nothing there
   either. NULL: no such file (then the C is made in memory). */
static FILE *open_output(const Command *cmd, Pending *p, bool *copy) {
  struct stat st, null;
  *p = (Pending){cmd->out, NULL};
  *copy = false;
  if (cmd->out && !is_special(cmd->out, &st))
    return open_temp(cmd->out, p);
  if (cmd->out && S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
      st.st_rdev == null.st_rdev)
    return fopen(cmd->out, "w");
  *copy = true;
  return tmpfile();
}

/* The C goes out 64 KiB at a time. stdio's own buffer is a block of the
   file system's (4 KiB): on part 4's large.coc, whose C is 12 MB, its 3,000
   writes into a file took a tenth of the run (228 -> 202 ms with this
   buffer, 2026-12-01; 256 KiB saved hardly more). */
static FILE *buffered(FILE *f) {
  static char buf[1 << 16];
  if (f)
    setvbuf(f, buf, _IOFBF, sizeof buf);
  return f;
}

/* The C made in the unnamed file, copied where it goes. */
static void copy_output(FILE *from, const Command *cmd) {
  FILE *to = cmd->out ? fopen(cmd->out, "w") : stdout;
  const char *name = cmd->out ? cmd->out : "the output";
  char buf[1 << 16];
  size_t n;
  if (!to || fseek(from, 0, SEEK_SET) != 0)
    fatal("cannot write %s: %s", name, strerror(errno));
  while ((n = fread(buf, 1, sizeof buf, from)) > 0)
    if (fwrite(buf, 1, n, to) != n)
      fatal("cannot write %s: %s", name, strerror(errno));
  if (ferror(from) || (cmd->out ? fclose(to) : fflush(to)) != 0)
    fatal("cannot write %s: %s", name, strerror(errno));
  fclose(from);
}

/* The C written as it is made, then, as write_results does, the depfile
   and the header, each whole or not at all, and the renames in its order. */
static void transform_streaming(Command *cmd, FILE *f, Pending *out, bool copy) {
  RunOutput r;
  coroc_run_to(cmd->in, &cmd->opt, &cmd->cpp, cmd->dep_option ? &cmd->dep : NULL, f, &r);
  Pending dep = {0}, hdr = {0};
  if (r.rule)
    dep = write_temp(cmd->dep.path, r.rule, r.rule_len);
  if (r.header)
    hdr = write_temp(cmd->opt.header, r.header, r.header_len);
  if (copy)
    copy_output(f, cmd);
  else
    close_written(f, cmd->out);
  commit(&dep);
  commit(&hdr);
  commit(out);
}

static int transform(Command cmd) {
  RunOutput r;
  cmd.opt.html = cmd.html;
  if (!cmd.html) {
    Pending out;
    bool copy;
    FILE *f = buffered(open_output(&cmd, &out, &copy));
    if (f) {
      transform_streaming(&cmd, f, &out, copy);
      return 0;
    }
  }
  coroc_run(cmd.in, &cmd.opt, &cmd.cpp, cmd.dep_option ? &cmd.dep : NULL, &r); /* run.c */
  if (cmd.html) { /* the page, whole or not at all */
    Pending p = write_temp(cmd.page, r.text, r.len);
    commit(&p);
    return 0;
  }
  write_results(&cmd, r.text, r.len, r.rule, r.rule_len, r.header, r.header_len);
  return 0;
}

/* The passes walk the tree with explicit stacks where it can be as deep as
   the input is long (a chain of a million operators); what still recurses
   follows nesting (statements in statements, awaits in awaits), which the
   parser bounds at COROC_MAX_NESTING. A thread with a stack sized for that
   bound runs them; untouched, its pages cost nothing. */
enum { TRANSFORM_STACK = 1 << 30 };

static void *transform_thread(void *arg) {
  return (void *)(intptr_t)transform(*(Command *)arg);
}

int main(int argc, char **argv) {
  Command cmd = {0};
  parse_args(argc, argv, &cmd);
  pthread_attr_t attr;
  pthread_t thread;
  void *status;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, TRANSFORM_STACK) != 0 ||
      pthread_create(&thread, &attr, transform_thread, &cmd) != 0 ||
      pthread_join(thread, &status) != 0)
    fatal("cannot start a thread with a %d MiB stack", TRANSFORM_STACK >> 20);
  return (int)(intptr_t)status;
}
