/* stats.c: --stats, the size of each coroutine's frame.
 *
 * Only the compiler knows how big a frame is (the sizes of the user's types,
 * padding, alignment), so coroc asks it: the generated C, plus one constant
 * per coroutine and per field, is compiled to assembly ($COROC_CC, default
 * cc, with the same -I and -D), and the constants are read back from it.
 *
 *   coroutine fib (gen.coc:9), stackless: frame 48 bytes, align 8
 *     offset  size  field
 *          0    32  coro_base  (the runtime's header)
 *         32     4  n          (parameter)
 *   ...
 */
#define _GNU_SOURCE
#include "coroc.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

/* Run argv, wait, and give its exit status (-1 if it could not run). */
static int run_command(const char **argv) {
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], NULL, NULL, (char *const *)argv, environ) != 0)
    return -1;
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One constant the probe asks the compiler for. */
typedef struct {
  char *symbol; /* coro_stat_N */
  long value;   /* what the compiler said; -1 if not found */
} Probe;

static Probe *probes;
static int nprobes;

static const char *probe(FILE *c, const char *expr) {
  probes = xrealloc(probes, sizeof(Probe) * (nprobes + 1));
  probes[nprobes] = (Probe){format("coro_stat_%d", nprobes), -1};
  fprintf(c, "const unsigned long %s = %s;\n", probes[nprobes].symbol, expr);
  return probes[nprobes++].symbol;
}

/* The fuzz harness never asks for --stats (it runs the compiler); a run that
   did leaves nothing behind. */
void stats_release(void) {
  for (int i = 0; i < nprobes; i++)
    xfree(probes[i].symbol);
  xfree(probes);
  probes = NULL;
  nprobes = 0;
}

/* `coro_stat_3:` then `.quad 48` (or .xword, .8byte, .long on other targets;
   a constant 0 may be `.zero 8` instead) */
static void read_assembly(char *asm_text) {
  for (int i = 0; i < nprobes; i++) {
    char *label = format("\n%s:", probes[i].symbol);
    char *p = strstr(asm_text, label);
    if (!p)
      continue;
    p += strlen(label);
    p += strspn(p, " \t\n");
    bool zero = strncmp(p, ".zero", 5) == 0 || strncmp(p, ".space", 6) == 0; /* a 0 in .bss */
    p += strcspn(p, " \t");                                                  /* the directive */
    p += strspn(p, " \t");
    probes[i].value = zero ? 0 : strtol(p, NULL, 0);
  }
}

static char *compile_to_assembly(const char *c_path, const Options *opt) {
  const char *cc = getenv("COROC_CC");
  char *out_path = format("%s.s", c_path);
  const char **argv = xcalloc(opt->cpp->nargs + 16, sizeof(char *));
  int n = 0;
  argv[n++] = cc && *cc ? cc : "cc";
  argv[n++] = "-std=gnu11";
  argv[n++] = "-S";
  argv[n++] = "-w";
  argv[n++] = "-o";
  argv[n++] = out_path;
  if (source_runtime_include()) {
    argv[n++] = "-I";
    argv[n++] = source_runtime_include();
  }
  argv[n++] = "-iquote";
  argv[n++] = opt->input_dir;
  for (int i = 0; i < opt->cpp->nargs; i++)
    argv[n++] = opt->cpp->args[i];
  argv[n++] = c_path;
  diag_remove_on_error(out_path);
  if (run_command(argv) != 0)
    fatal("--stats: %s could not compile the generated code", argv[0]);
  FILE *f = fopen(out_path, "r");
  char *text = NULL;
  size_t len = 0;
  FILE *mem = xmemstream(&text, &len);
  char buf[4096];
  size_t got;
  while (f && (got = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, got, mem);
  if (f)
    fclose(f);
  fclose(mem);
  unlink(out_path);
  return text;
}

/* The frame fields coroc adds beyond the locals (emit_stackless.c, emit_frame), with
   what each is for: pairs of strings, then NULL. */
static char **extra_fields(Coroutine *co) {
  char **v = xcalloc(2 * (co->literals.n + 2 * co->awaits.n + co->nconds + 3) + 1, sizeof(char *));
  int n = 0;
  if (co->runs_cleanups) {
    v[n++] = "coro_cleanup";
    v[n++] = "the function coro_free calls to run the cleanups of a suspended instance";
  }
  for (int i = 0; i < co->literals.n; i++) {
    v[n++] = (char *)co->literals.v[i]->field;
    v[n++] = "a compound literal that outlives a suspension";
  }
  if (!co->is_generator && !co->returns_void) {
    v[n++] = "coro_result";
    v[n++] = "the value it returns";
  }
  if (co->is_async) {
    v[n++] = "coro_agen";
    v[n++] = "an async generator's link to its consumer";
  }
  for (int i = 0; i < co->awaits.n; i++) {
    Node *a = co->awaits.v[i];
    if (!a->inline_child) {
      v[n++] = format("coro_aw_%d", a->resume_point);
      v[n++] = a->callee ? "the task awaited" : "the awaitable";
    }
    if (a->callee && task_has_value(a->sym) && !(a->inline_child && a->sole_await)) {
      v[n++] = format("coro_tmp_%d", a->resume_point);
      v[n++] = "the awaited task's value";
    }
  }
  if (has_inline_children(co)) {
    v[n++] = "coro_children";
    v[n++] = "the frames of the tasks it awaits inline, one at a time";
  }
  for (int i = 1; i <= co->nconds; i++) {
    v[n++] = format("coro_cond_%d", i);
    v[n++] = "an && or || around an await";
  }
  return v;
}

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
      h.names = xrealloc(h.names, sizeof(char *) * (h.n + 1));
      h.sizes = xrealloc(h.sizes, sizeof(long) * (h.n + 1));
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

/* What an instance of a frame of `size` bytes costs, as runtime/registry.c
   places it: a slot of its thread's slabs (the size rounded up to 8 bytes,
   16 when it is aligned to 16; nothing else) up to 512 bytes aligned to at
   most 16, else malloc with a 48-byte record in front (rounded up to the
   frame's alignment; and malloc's own 8 bytes and rounding). */
static char *instance_memory(long size, long align) {
  long step = align > 8 ? 16 : 8;
  if (size <= 512 && align <= 16)
    return format("each instance: a %ld-byte slot of its thread's slabs",
                  (size + step - 1) / step * step);
  long front = align > 16 ? (48 + align - 1) / align * align : 48;
  return format("each instance: malloc'ed, %ld bytes with the runtime's record in front",
                size + front);
}

/* A stackful task's arguments also keep what it returns (coro_result). */
static bool stackful_result(const Coroutine *co) {
  return !co->is_generator && !co->returns_void;
}

/* Does it take parameters (not `(void)` or `()`)? */
static bool has_params(const Coroutine *co) {
  for (int i = 0; i < co->locals.n; i++)
    if (co->locals.v[i]->kind == ND_PARAM)
      return true;
  return false;
}

/* Where the frame of each task it awaits lives (check.c, "Children inside
   their parent"): inside this one, or on the heap, and why. */
static void print_children(FILE *out, Source *src, Coroutine *co, bool stackful) {
  for (int i = 0; i < co->awaits.n; i++) {
    Node *a = co->awaits.v[i];
    if (!a->callee)
      continue;
    int line = src->original.v[a->first].line;
    if (a->inline_child)
      fprintf(out, "  await %s at %s:%d: %s\n", a->callee, src->name, line,
              stackful ? "its body runs on this stack, a plain call (no instance, no allocation)"
                       : "its frame is inside this one (coro_children), no allocation");
    else
      fprintf(
          out, "  await %s at %s:%d: %s: %s\n", a->callee, src->name, line,
          stackful ? "an instance of its own, with a stack of its own" : "its frame is on the heap",
          a->heap_reason);
  }
}

void emit_stats(FILE *out, Source *src, Coroutine *cos, const Options *opt, const char *c_text) {
  char path[] = "/tmp/coroc-stats-XXXXXX.c";
  int fd = mkstemps(path, 2);
  if (fd < 0)
    fatal("--stats: cannot make a temporary file");
  diag_remove_on_error(path);
  FILE *c = fdopen(fd, "w");
  fputs(c_text, c);
  fputs("\n/* --stats probes */\n", c);
  bool stackful = opt->backend == BACKEND_STACKFUL;
  const char *kind = stackful ? "args" : "frame";
  int k = nprobes; /* this call's first probe (--html asks once for each backend) */
  for (Coroutine *co = cos; co; co = co->next) {
    if (!co->def)
      continue;
    char *type = format("struct coro_%s_%s", kind, co->name);
    probe(c, format("sizeof(%s)", type));
    probe(c, format("_Alignof(%s)", type));
    if (!stackful) {
      probe(c, format("__builtin_offsetof(%s, coro_base)", type));
      probe(c, format("sizeof(((%s *)0)->coro_base)", type));
    }
    if (stackful && stackful_result(co)) {
      probe(c, format("__builtin_offsetof(%s, coro_result)", type));
      probe(c, format("sizeof(((%s *)0)->coro_result)", type));
    }
    if (stackful && co->is_async) {
      probe(c, format("__builtin_offsetof(%s, coro_agen)", type));
      probe(c, format("sizeof(((%s *)0)->coro_agen)", type));
    }
    for (int i = 0; i < co->locals.n; i++) {
      Sym *s = co->locals.v[i]->sym;
      if (stackful && co->locals.v[i]->kind != ND_PARAM)
        continue;
      probe(c, format("__builtin_offsetof(%s, %s)", type, s->field));
      probe(c, format("sizeof(((%s *)0)->%s)", type, s->field));
    }
    if (!stackful) {
      char **names = extra_fields(co);
      for (int i = 0; names[i]; i += 2) {
        probe(c, format("__builtin_offsetof(%s, %s)", type, names[i]));
        probe(c, format("sizeof(((%s *)0)->%s)", type, names[i]));
      }
    }
  }
  fclose(c);
  read_assembly(compile_to_assembly(path, opt));
  unlink(path);
  HoistAll all = hoist_all_sizes(opt);

  for (Coroutine *co = cos; co; co = co->next) {
    if (!co->def)
      continue;
    long size = probes[k++].value, align = probes[k++].value;
    if (stackful && !stackful_result(co) && !has_params(co) &&
        !co->is_async) /* (a struct of one unused char) */
      fprintf(out, "coroutine %s (%s:%d), stackful: no arguments", co->name, src->name,
              src->original.v[co->first].line);
    else
      fprintf(out, "coroutine %s (%s:%d), %s: %s %ld bytes, align %ld", co->name, src->name,
              src->original.v[co->first].line, stackful ? "stackful" : "stackless",
              stackful ? "arguments" : "frame", size, align);
    long every = hoist_all_size(&all, co->name);
    if (every >= 0)
      fprintf(out, " (%ld with every local in it, --hoist-all)", every);
    fputc('\n', out);
    if (!stackful)
      fprintf(out, "  %s\n", instance_memory(size, align));
    if (!stackful || stackful_result(co) || has_params(co) || co->is_async)
      fprintf(out, "  %6s %6s  %s\n", "offset", "size", "field");
    if (!stackful) {
      long off = probes[k++].value, hsize = probes[k++].value;
      fprintf(out, "  %6ld %6ld  coro_base  (the runtime's header%s)\n", off, hsize,
              co->is_generator && !co->is_async ? "" : " of a task");
    } else if (stackful_result(co)) {
      long off = probes[k++].value, rsize = probes[k++].value;
      fprintf(out, "  %6ld %6ld  coro_result  (the value it returns)\n", off, rsize);
    }
    if (stackful && co->is_async) {
      long off = probes[k++].value, asize = probes[k++].value;
      fprintf(out, "  %6ld %6ld  coro_agen  (an async generator's link to its consumer)\n", off,
              asize);
    }
    for (int i = 0; i < co->locals.n; i++) {
      Node *n = co->locals.v[i];
      if (stackful && n->kind != ND_PARAM)
        continue;
      long off = probes[k++].value, fsize = probes[k++].value;
      fprintf(out, "  %6ld %6ld  %s  (%s:%d: %s)\n", off, fsize, n->sym->field, src->name,
              src->original.v[n->first].line, n->sym->frame_reason);
    }
    if (!stackful) {
      char **names = extra_fields(co);
      for (int i = 0; names[i]; i += 2) {
        long off = probes[k++].value, fsize = probes[k++].value;
        fprintf(out, "  %6ld %6ld  %s  (%s)\n", off, fsize, names[i], names[i + 1]);
      }
    }
    print_children(out, src, co, stackful);
    if (stackful)
      fprintf(out, "  and a stack of its own: 256 KiB unless coro_set_stack_size says otherwise\n");
    else if (co->plain_locals.n) {
      fprintf(out,
              "  ordinary locals of the resume function, not in the frame (no value of "
              "theirs is needed after a suspension):");
      for (int i = 0; i < co->plain_locals.n; i++) {
        Node *n = co->plain_locals.v[i];
        fprintf(out, "%s %s (%s:%d)", i ? "," : "", n->sym->name, src->name,
                src->original.v[n->first].line);
      }
      fputc('\n', out);
    }
  }
}
