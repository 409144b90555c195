/* facts.c: what the passes decided about each coroutine's instances, as data.
 *
 * One list of structs (Facts, coroc.h) says, for each coroutine definition
 * and one backend: its kind and value type, every field of its frame (or of
 * its stackful arguments) with the reason it is there, the locals that stay
 * ordinary C locals, each resume point with the locals whose values the
 * frame keeps across it (live.c), and where the frame of each task it
 * awaits lives (check.c, "Children inside their parent"). --stats prints
 * it (stats.c); coroc-lsp shows it in the editor (lsp/insight.c). So the
 * two cannot say different things: this is the one reading of the passes.
 *
 * The sizes and offsets are the compiler's (facts_measure): the generated
 * C, plus one constant per coroutine and per field, is compiled to
 * assembly ($COROC_CC, default cc, with the same -I and -D), and the
 * constants are read back from it.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "facts.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

/* {==================================================================
 * Reading the passes
 * =================================================================== */

static void add_field(CoroFacts *f, const char *name, const char *reason, int line) {
  f->fields = xappend(f->fields, f->nfields, sizeof(FieldFact));
  f->fields[f->nfields++] = (FieldFact){name, reason, line, -1, -1};
}

/* A stackful task's arguments also keep what it returns (coro_result). */
static bool stackful_result(const Coroutine *co) {
  return !co->is_generator && !co->returns_void;
}

/* The frame fields coroc adds beyond the locals (emit_stackless.c, emit_frame),
   with what each is for. */
static void extra_fields(CoroFacts *f, Coroutine *co) {
  if (co->runs_cleanups)
    add_field(f, "coro_cleanup",
              "the function coro_free calls to run the cleanups of a suspended instance", 0);
  for (int i = 0; i < co->literals.n; i++)
    add_field(f, co->literals.v[i]->field, "a compound literal that outlives a suspension", 0);
  if (!co->is_generator && !co->returns_void)
    add_field(f, "coro_result", "the value it returns", 0);
  if (co->is_async)
    add_field(f, "coro_agen", "an async generator's link to its consumer", 0);
  for (int i = 0; i < co->awaits.n; i++) {
    Node *a = co->awaits.v[i];
    if (!a->inline_child)
      add_field(f, format("coro_aw_%d", a->resume_point),
                a->callee ? "the task awaited" : "the awaitable", 0);
    if (a->callee && task_has_value(a->sym) && !(a->inline_child && a->sole_await))
      add_field(f, format("coro_tmp_%d", a->resume_point), "the awaited task's value", 0);
  }
  if (has_inline_children(co))
    add_field(f, "coro_children", "the frames of the tasks it awaits inline, one at a time", 0);
  for (int i = 1; i <= co->nconds; i++)
    add_field(f, format("coro_cond_%d", i), "an && or || around an await", 0);
}

/* The fields in the order of the struct: stackless, the runtime's header, the
   locals and parameters, coroc's own; stackful, what it returns, the async
   generator's link, the parameters. */
static void fields(CoroFacts *f, Source *src, Coroutine *co, bool stackful) {
  if (!stackful)
    add_field(f, "coro_base",
              co->is_generator && !co->is_async ? "the runtime's header"
                                                : "the runtime's header of a task",
              0);
  else if (stackful_result(co))
    add_field(f, "coro_result", "the value it returns", 0);
  if (stackful && co->is_async)
    add_field(f, "coro_agen", "an async generator's link to its consumer", 0);
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    if (!stackful || n->kind == ND_PARAM)
      add_field(f, n->sym->field, n->sym->frame_reason, src->original.v[n->first].line);
  }
  if (!stackful)
    extra_fields(f, co);
}

/* The value type as written: the declaration's words before the name, but
   the storage class and `coroutine` ("const char *"). */
static const char *value_type(Source *src, Coroutine *co) {
  const Token *name = co->declarator->tok;
  char *text = "";
  for (int i = co->specs->first; i < src->original.n && &src->original.v[i] != name; i++) {
    const char *w = tok_text(&src->original.v[i]);
    if (strcmp(w, "coroutine") == 0 || strcmp(w, "static") == 0 || strcmp(w, "extern") == 0 ||
        strcmp(w, "inline") == 0)
      continue;
    bool glue = !*text || (strcmp(w, "*") == 0 && text[strlen(text) - 1] == '*');
    text = format("%s%s%s", text, glue ? "" : " ", w);
  }
  return text;
}

/* The resume points, found in the tree (check.c numbered them). */
typedef struct {
  Source *src;
  Coroutine *co;
  CoroFacts *f;
} ResumeWalk;

static int child_of(const CoroFacts *f, const Coroutine *co, const Node *n) {
  for (int i = 0, k = 0; i < co->awaits.n; i++)
    if (co->awaits.v[i]->callee) {
      if (co->awaits.v[i] == n)
        return k < f->nchildren ? k : -1;
      k++;
    }
  return -1;
}

static bool resume_pre(Node *n, void *ctx) {
  ResumeWalk *w = ctx;
  if ((n->kind != ND_YIELD && n->kind != ND_AWAIT) || n->resume_point < 1 ||
      n->resume_point > w->co->nresume)
    return true;
  const Token *first = &w->src->original.v[n->first];
  const Token *last = &w->src->original.v[n->last >= n->first ? n->last : n->first];
  ResumeFact *r = &w->f->resumes[n->resume_point - 1];
  *r = (ResumeFact){n->resume_point,
                    n->kind == ND_YIELD ? "yield" : "await",
                    first->line,
                    (int)first->col,
                    last->line,
                    (int)(last->col + strlen(tok_text(last))),
                    NULL,
                    -1,
                    -1};
  SymList *live = w->co->live_across ? &w->co->live_across[n->resume_point] : NULL;
  if (live) {
    r->live = xcalloc(live->n + 1, sizeof(char *));
    for (int i = 0; i < live->n; i++)
      r->live[i] = live->v[i]->field;
    r->nlive = live->n;
  }
  if (n->kind == ND_AWAIT && n->callee)
    r->child = child_of(w->f, w->co, n);
  return true;
}

static void children(CoroFacts *f, Source *src, Coroutine *co) {
  for (int i = 0; i < co->awaits.n; i++) {
    Node *a = co->awaits.v[i];
    if (!a->callee)
      continue;
    f->children = xappend(f->children, f->nchildren, sizeof(ChildFact));
    f->children[f->nchildren++] =
        (ChildFact){a->callee, src->original.v[a->first].line, a->inline_child != NULL,
                    a->inline_child ? NULL : a->heap_reason};
  }
}

static CoroFacts one(Source *src, Coroutine *co, const Options *opt) {
  bool stackful = opt->backend == BACKEND_STACKFUL;
  const Token *first = &src->original.v[co->first], *name = co->declarator->tok;
  CoroFacts f = {.name = co->name,
                 .line = first->line,
                 .col = (int)first->col,
                 .end_col = name->line == first->line ? (int)(name->col + strlen(tok_text(name)))
                                                      : (int)(first->col + strlen(tok_text(first))),
                 .kind = co->is_async       ? "async generator"
                         : co->is_generator ? "generator"
                                            : "task",
                 .type = value_type(src, co),
                 .backend = opt->backend,
                 .type_name = format("struct coro_%s_%s", stackful ? "args" : "frame", co->name),
                 .size = -1,
                 .align = -1};
  fields(&f, src, co, stackful);
  children(&f, src, co);
  f.nresumes = co->nresume;
  f.resumes = xcalloc(co->nresume + 1, sizeof(ResumeFact));
  ResumeWalk w = {src, co, &f};
  visit(co->def->body, resume_pre, NULL, &w);
  if (!stackful) {
    f.plain = xcalloc(co->plain_locals.n + 1, sizeof(char *));
    f.plain_lines = xcalloc(co->plain_locals.n + 1, sizeof(int));
    for (int i = 0; i < co->plain_locals.n; i++) {
      Node *n = co->plain_locals.v[i];
      f.plain[i] = n->sym->name;
      f.plain_lines[i] = src->original.v[n->first].line;
    }
    f.nplain = co->plain_locals.n;
  }
  return f;
}

Facts frame_facts(Source *src, Coroutine *cos, const Options *opt) {
  Facts facts = {0};
  for (Coroutine *co = cos; co; co = co->next)
    if (co->def) {
      facts.v = xappend(facts.v, facts.n, sizeof(CoroFacts));
      facts.v[facts.n++] = one(src, co, opt);
    }
  return facts;
}

/* }================================================================== */

/* {==================================================================
 * Measuring: the compiler's sizes and offsets
 * =================================================================== */

/* Run argv, wait, and give its exit status (-1 if it could not run). */
static int run_command(const char **argv) {
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], NULL, NULL, (char *const *)argv, environ) != 0)
    return -1;
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Where each constant goes: the probes in order. */
typedef struct {
  long **to;
  int n;
} Probes;

static void probe(FILE *c, Probes *p, long *to, const char *expr) {
  p->to = xappend(p->to, p->n, sizeof(long *));
  p->to[p->n] = to;
  fprintf(c, "const unsigned long coro_stat_%d = %s;\n", p->n++, expr);
}

/* `coro_stat_3:` then `.quad 48` (or .xword, .8byte, .long on other targets;
   a constant 0 may be `.zero 8` instead) */
static void read_assembly(const char *asm_text, const Probes *p) {
  for (int i = 0; i < p->n; i++) {
    char *label = format("\ncoro_stat_%d:", i);
    const char *at = strstr(asm_text, label);
    xfree(label);
    if (!at)
      continue;
    at += strlen(label);
    at += strspn(at, " \t\n");
    bool zero = strncmp(at, ".zero", 5) == 0 || strncmp(at, ".space", 6) == 0; /* a 0 in .bss */
    at += strcspn(at, " \t");                                                  /* the directive */
    at += strspn(at, " \t");
    *p->to[i] = zero ? 0 : strtol(at, NULL, 0);
  }
}

/* The assembly of the C at c_path, or NULL when the compiler failed. */
static char *compile_to_assembly(const char *c_path, const Options *opt) {
  const char *cc = getenv("COROC_CC");
  char *out_path = format("%s.s", c_path);
  int nargs = opt->cpp ? opt->cpp->nargs : 0;
  const char **argv = xcalloc(nargs + 16, sizeof(char *));
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
  argv[n++] = opt->input_dir ? opt->input_dir : ".";
  for (int i = 0; i < nargs; i++)
    argv[n++] = opt->cpp->args[i];
  argv[n++] = c_path;
  diag_remove_on_error(out_path);
  int status = run_command(argv);
  xfree(argv);
  FILE *f = status == 0 ? fopen(out_path, "r") : NULL;
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
  if (status != 0) {
    xfree(text);
    return NULL;
  }
  return text;
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

bool facts_measure(Facts *facts, const char *c_text, const Options *opt) {
  char path[] = "/tmp/coroc-stats-XXXXXX.c";
  int fd = mkstemps(path, 2);
  if (fd < 0)
    return false;
  diag_remove_on_error(path);
  FILE *c = fdopen(fd, "w");
  fputs(c_text, c);
  fputs("\n/* --stats probes */\n", c);
  Probes p = {0};
  for (int i = 0; i < facts->n; i++) {
    CoroFacts *f = &facts->v[i];
    probe(c, &p, &f->size, format("sizeof(%s)", f->type_name));
    probe(c, &p, &f->align, format("_Alignof(%s)", f->type_name));
    for (int k = 0; k < f->nfields; k++) {
      probe(c, &p, &f->fields[k].offset,
            format("__builtin_offsetof(%s, %s)", f->type_name, f->fields[k].name));
      probe(c, &p, &f->fields[k].size,
            format("sizeof(((%s *)0)->%s)", f->type_name, f->fields[k].name));
    }
  }
  fclose(c);
  char *assembly = compile_to_assembly(path, opt);
  unlink(path);
  bool compiled = assembly != NULL;
  if (compiled)
    read_assembly(assembly, &p);
  for (int i = 0; compiled && i < facts->n; i++)
    if (facts->v[i].backend == BACKEND_STACKLESS)
      facts->v[i].instances = instance_memory(facts->v[i].size, facts->v[i].align);
  xfree(assembly);
  xfree(p.to);
  return compiled;
}

/* }================================================================== */
