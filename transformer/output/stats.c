/* stats.c: --stats, the size of each coroutine's frame.
 *
 * What the passes decided, and the sizes the compiler gives (facts.c: the
 * same facts coroc-lsp shows in the editor), printed as a table:
 *
 *   coroutine fib (gen.coc:9), stackless: frame 48 bytes, align 8
 *     offset  size  field
 *          0    32  coro_base  (the runtime's header)
 *         32     4  n          (parameter)
 *   ...
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "facts.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

/* The frame sizes of the same input under --hoist-all, by coroutine, from
   coroc itself run again with it (the passes keep state: a second pipeline
   in this process would start where the first ended). Sizes are -1 where
   it could not say: standard input, or an input --hoist-all refuses. */
typedef struct {
  const char **names;
  long *sizes;
  int n;
} HoistAll;

static HoistAll hoist_all_sizes(const Options *opt) {
  HoistAll h = {0};
  if (!opt->input || opt->hoist_all || opt->backend != BACKEND_STACKLESS)
    return h;
  const char **argv = xcalloc(opt->cpp->nargs + 8, sizeof(char *));
  int n = 0;
  argv[n++] = "/proc/self/exe";
  argv[n++] = "--stats";
  argv[n++] = "--hoist-all";
  for (int i = 0; i < opt->cpp->nargs; i++)
    argv[n++] = opt->cpp->args[i];
  argv[n++] = opt->input;
  FILE *tmp = tmpfile();
  if (!tmp)
    return h;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fileno(tmp), 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ) == 0)
    waitpid(pid, &status, 0);
  posix_spawn_file_actions_destroy(&fa);
  rewind(tmp);
  char line[4096], name[1024];
  long size;
  while (status == 0 && fgets(line, sizeof line, tmp))
    if (sscanf(line, "coroutine %1023s (%*[^)]), stackless: frame %ld bytes", name, &size) == 2) {
      h.names = xappend(h.names, h.n, sizeof(char *));
      h.sizes = xappend(h.sizes, h.n, sizeof(long));
      h.names[h.n] = xstrndup(name, strlen(name));
      h.sizes[h.n++] = size;
    }
  fclose(tmp);
  xfree(argv);
  return h;
}

static long hoist_all_size(const HoistAll *h, const char *name) {
  for (int i = 0; i < h->n; i++)
    if (strcmp(h->names[i], name) == 0)
      return h->sizes[i];
  return -1;
}

/* Where the frame of each task it awaits lives (check.c, "Children inside
   their parent"): inside this one, or on the heap, and why. */
static void print_children(FILE *out, const char *file, const CoroFacts *f, bool stackful) {
  for (int i = 0; i < f->nchildren; i++) {
    const ChildFact *c = &f->children[i];
    if (c->inside)
      fprintf(out, "  await %s at %s:%d: %s\n", c->callee, file, c->line,
              stackful ? "its body runs on this stack, a plain call (no instance, no allocation)"
                       : "its frame is inside this one (coro_children), no allocation");
    else
      fprintf(
          out, "  await %s at %s:%d: %s: %s\n", c->callee, file, c->line,
          stackful ? "an instance of its own, with a stack of its own" : "its frame is on the heap",
          c->heap_reason);
  }
}

static void print_coroutine(FILE *out, const char *file, const CoroFacts *f, long every) {
  bool stackful = f->backend == BACKEND_STACKFUL;
  if (stackful && f->nfields == 0) /* (a struct of one unused char) */
    fprintf(out, "coroutine %s (%s:%d), stackful: no arguments", f->name, file, f->line);
  else
    fprintf(out, "coroutine %s (%s:%d), %s: %s %ld bytes, align %ld", f->name, file, f->line,
            stackful ? "stackful" : "stackless", stackful ? "arguments" : "frame", f->size,
            f->align);
  if (every >= 0)
    fprintf(out, " (%ld with every local in it, --hoist-all)", every);
  fputc('\n', out);
  if (!stackful)
    fprintf(out, "  %s\n", f->instances);
  if (f->nfields)
    fprintf(out, "  %6s %6s  %s\n", "offset", "size", "field");
  for (int i = 0; i < f->nfields; i++) {
    const FieldFact *x = &f->fields[i];
    if (x->line)
      fprintf(out, "  %6ld %6ld  %s  (%s:%d: %s)\n", x->offset, x->size, x->name, file, x->line,
              x->reason);
    else
      fprintf(out, "  %6ld %6ld  %s  (%s)\n", x->offset, x->size, x->name, x->reason);
  }
  print_children(out, file, f, stackful);
  if (stackful)
    fprintf(out, "  and a stack of its own: 256 KiB unless coro_set_stack_size says otherwise\n");
  else if (f->nplain) {
    fprintf(out,
            "  ordinary locals of the resume function, not in the frame (no value of "
            "theirs is needed after a suspension):");
    for (int i = 0; i < f->nplain; i++)
      fprintf(out, "%s %s (%s:%d)", i ? "," : "", f->plain[i], file, f->plain_lines[i]);
    fputc('\n', out);
  }
}

void emit_stats(FILE *out, Source *src, Coroutine *cos, const Options *opt, const char *c_text) {
  Facts facts = frame_facts(src, cos, opt);
  if (!facts_measure(&facts, c_text, opt))
    fatal("--stats: %s could not compile the generated code",
          getenv("COROC_CC") && *getenv("COROC_CC") ? getenv("COROC_CC") : "cc");
  HoistAll all = hoist_all_sizes(opt);
  for (int i = 0; i < facts.n; i++)
    print_coroutine(out, src->name, &facts.v[i], hoist_all_size(&all, facts.v[i].name));
}
