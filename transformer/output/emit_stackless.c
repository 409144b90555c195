/* emit_stackless.c: a coroutine printed as a state machine.
 *
 *   typedef int coro_value_fib;                  the type it yields
 *   struct coro_frame_fib {                      its parameters and locals
 *     coro_t coro_base;                          (frame.c)
 *     int n;
 *     int a;
 *   };
 *   static bool coro_resume_fib(coro_t *coro_c,  the body as a state machine:
 *                               void *coro_out)  a switch jumps to where the
 *   { ... }                                      last suspension left off
 *   coro_t *fib(int n)                           creation: allocate, store
 *   { ... }                                      the arguments, run nothing
 *
 * The body's lines were made by lower.c; this file prints them, with the
 * frame and functions around them.
 */
#define _GNU_SOURCE
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

/* The lines lower.c made, printed as they were made. */
static void emit_lines(Emitter *e, const Lines *lines) {
  int indent = e->indent;
  for (int i = 0; i < lines->n; i++) {
    const Line *l = &lines->v[i];
    if (l->kind == LINE_DIRECTIVE) {
      emit_directive(e, l->line);
      continue;
    }
    if (l->kind == LINE_RESUME) { /* on the definition's line, as the dispatch that jumps here */
      int at = e->mapped;
      e->indent = l->indent;
      emit_put(e, emit_line_of(e, e->co->decl), "%s", l->text);
      if (at)
        emit_sync(e, at); /* the next line has the number it would have had */
      continue;
    }
    e->indent = l->indent;
    emit_put(e, l->line, "%s", l->text);
    if (!l->line)
      emit_counted(e); /* a `}`, say: it stands where the compiler counts it */
  }
  e->indent = indent;
}

static void emit_hoisted_types(Emitter *e, Coroutine *co) {
  for (int i = 0; i < co->types.n; i++) {
    Node *t = co->types.v[i];
    emit_put(e, emit_line_of(e, t), "%s", hoisted_type_str(e, t));
  }
}

/* `__typeof__(int[3]) coro_lit_1;`: a kept compound literal's field. */
static void emit_literal_field(Emitter *e, Node *lit) {
  emit_put(e, emit_line_of(e, lit), "__typeof__(%s) %s;", literal_type(e, lit, lit->field),
           lit->field);
}

/* The shapes of the lists that size arrays declared [] (text.c, shape_decl),
   between pragmas that quiet what an elided list warns of: they are coroc's
   scaffolding, and the user's own lists keep their warnings. */
static void emit_shapes(Emitter *e, Coroutine *co) {
  bool open = false;
  for (int i = 0; i < co->locals.n + co->literals.n; i++) {
    Node *n = i < co->locals.n ? co->locals.v[i] : co->literals.v[i - co->locals.n];
    char *shape = NULL;
    if (n->kind == ND_INIT_DECL) {
      shape = shape_decl(e, n->specs, n->declarator, n->init, n->sym->field, n->sym);
    } else if (n->kind == ND_EXPR) { /* a kept compound literal */
      Node init = {.kind = ND_INIT_LIST, .first = n->first, .last = n->last, .kids = n->kids};
      shape = shape_decl(e, n->lhs->specs, n->lhs->declarator, &init, n->field, NULL);
    }
    if (!shape)
      continue;
    if (!open) {
      emit_put(e, 0, "/* the sizes of arrays declared [] in %s, counted by the compiler */",
               co->name);
      emit_put(e, 0, "#pragma GCC diagnostic push");
      static const char *const quiet[] = {"-Wmissing-braces", "-Wmissing-field-initializers",
                                          "-Woverride-init", "-Wpedantic"};
      for (size_t k = 0; k < sizeof quiet / sizeof quiet[0]; k++)
        emit_put(e, 0, "#pragma GCC diagnostic ignored \"%s\"", quiet[k]);
      open = true;
    }
    emit_put(e, emit_line_of(e, n), "%s", shape);
  }
  if (open)
    emit_put(e, 0, "#pragma GCC diagnostic pop");
}

/* The field of a parameter or local. */
static void emit_local_field(Emitter *e, Node *n) {
  Node *specs = n->specs, *d = n->declarator; /* of an ND_PARAM or ND_INIT_DECL */
  char *decl = field_decl(e, specs, d, n->kind == ND_PARAM ? NULL : n->init, n->sym->field,
                          n->kind == ND_PARAM);
  if (n->kind == ND_INIT_DECL) { /* `int x __attribute__((aligned(16)))`: the attribute too */
    int end = declarator_end(e->toks, n);
    if (end > d->last)
      decl = format("%s %s", decl, range_str(e, d->last + 1, end, &(Style){.collapse = true}));
    if (n->sym->cleanup) /* called by the body at its scope's exits instead (cleanup.c) */
      decl = cleanup_strip(e, decl, specs->first, end);
  }
  emit_put(e, emit_line_of(e, n), "%s;%s", decl, n->kind == ND_PARAM ? "  /* parameter */" : "");
}

/* The fields of a scope's locals, then those of the blocks in it: one
   block's inline, several blocks' in a union of one anonymous struct each,
   since they are never active at once (C11 anonymous members: the body
   still says coro_f->x). */
static void emit_scope_fields(Emitter *e, const FrameScope *s) {
  for (int i = 0; i < s->locals.n; i++)
    emit_local_field(e, s->locals.v[i]);
  if (s->nkids == 1) {
    emit_scope_fields(e, s->kids[0]);
    return;
  }
  if (s->nkids == 0)
    return;
  emit_put(e, 0, "union {  /* blocks never active at once share their storage */");
  e->indent++;
  for (int i = 0; i < s->nkids; i++) {
    emit_put(e, 0, "struct {  /* the %s at %s:%d */",
             s->kids[i]->node->kind == ND_FOR ? "for loop" : "block", e->src->name,
             emit_line_of(e, s->kids[i]->node));
    e->indent++;
    emit_scope_fields(e, s->kids[i]);
    e->indent--;
    emit_put(e, 0, "};");
  }
  e->indent--;
  emit_put(e, 0, "};");
}

/* The frames of the children it awaits inline (check.c), one member per
   await, all in one union: it awaits one child at a time. */
static void emit_children(Emitter *e, Coroutine *co) {
  emit_put(e, 0, "union {  /* the frames of the tasks it awaits, one at a time */");
  e->indent++;
  for (int i = 0; i < co->awaits.n; i++) {
    Node *n = co->awaits.v[i];
    if (n->inline_child)
      emit_put(e, emit_line_of(e, n), "struct coro_frame_%s coro_in_%d;", n->callee,
               n->resume_point);
  }
  e->indent--;
  emit_put(e, 0, "} coro_children;");
}

static void emit_frame(Emitter *e, Coroutine *co) {
  emit_shapes(e, co);
  emit_put(e, 0, "/* the frame of %s: its parameters and locals, kept across suspensions */",
           co->name);
  emit_put(e, 0, "struct coro_frame_%s {", co->name);
  e->indent++;
  if (co->is_generator && !co->is_async)
    emit_put(e, 0, "coro_t coro_base;  /* the runtime's header; must come first */");
  else
    emit_put(e, 0,
             "struct coro_task coro_base;  /* the runtime's header of a task; must come first */");
  if (co->runs_cleanups)
    emit_put(e, 0,
             "void (*coro_cleanup)(coro_t *coro_c);  /* right after the header: coro_free runs it "
             "(CORO_CLEANUP) */");
  for (int i = 0; i < co->locals.n; i++)
    if (!co->frame_scope || co->locals.v[i]->kind == ND_PARAM)
      emit_local_field(e, co->locals.v[i]);
  if (co->frame_scope)
    emit_scope_fields(e, co->frame_scope);
  for (int i = 0; i < co->literals.n; i++)
    emit_literal_field(e, co->literals.v[i]);
  if (!co->is_generator && !co->returns_void)
    emit_put(e, 0, "coro_value_%s coro_result;  /* what it returns, to the task awaiting it */",
             co->name);
  if (co->is_async)
    emit_put(e, 0, "struct coro_agen coro_agen;  /* an async generator's link to its consumer */");
  for (int i = 0; i < co->awaits.n; i++) {
    Node *n = co->awaits.v[i];
    int k = n->resume_point;
    if (!n->callee) {
      emit_put(e, emit_line_of(e, n), "%s coro_aw_%d;  /* awaited */", n->type, k);
      continue;
    }
    if (!n->inline_child)
      emit_put(e, emit_line_of(e, n), "coro_t *coro_aw_%d;  /* the task awaited */", k);
    if (task_has_value(n->sym) && !(n->inline_child && n->sole_await))
      emit_put(e, 0, "coro_value_%s coro_tmp_%d;  /* and its value */", n->callee, k);
  }
  if (has_inline_children(co))
    emit_children(e, co);
  for (int k = 1; k <= co->nconds; k++)
    emit_put(e, 0, "int coro_cond_%d;  /* an && or || around an await */", k);
  e->indent--;
  emit_put(e, 0, "};");
}

/* Two tables for debuggers (coroc's gdb extension, docs/debugging.md),
   kept by `used` though no code reads them:
     static const unsigned short coro_lines_fib[] = {3, 6, 9};     the .coc line of the start and of
   each resume point static const char coro_locals_fib[] = "n | %a@4-9 coro_a_2=a@6-8";
   parameters | locals, FIELD=NAME where renamed, %NAME kept in a C local while the body runs,
   @FIRST-LAST the lines where a local is in scope */
static void emit_debug_tables(Emitter *e, Coroutine *co) {
  emit_put(e, 0,
           "/* for debuggers (docs/debugging.md): the .coc lines of %s's start and resume points; "
           "its parameters | locals, FIELD=NAME where renamed, %%NAME in a C local while it runs, "
           "@FIRST-LAST the lines of its scope */",
           co->name);
  char *text;
  size_t len;
  FILE *f = xmemstream(&text, &len); /* a stream: a coroutine may have 100,000 of either */
  xfprintf(f, "%d", emit_line_of(e, co->decl));
  for (int i = 1; i <= co->nresume; i++)
    xfprintf(f, ", %d", co->resume_lines[i]);
  memstream_close(f);
  emit_put(e, 0, "static const unsigned short coro_lines_%s[] __attribute__((used)) = {%s};",
           co->name, text);
  xfree(text);
  f = xmemstream(&text, &len);
  bool params = true, first = true;
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    if (params && n->kind != ND_PARAM) {
      fputs(first ? "| " : " | ", f);
      params = false;
    } else if (!first) {
      fputc(' ', f);
    }
    first = false;
    if (n->sym->cached) /* %i: while the body runs, the C local i has its value */
      fputc('%', f);
    if (strcmp(n->sym->field, n->sym->name) == 0)
      fputs(n->sym->name, f);
    else
      xfprintf(f, "%s=%s", n->sym->field, n->sym->name);
    /* from its declaration to the end of the block that declares it (frame.c): how the gdb
       extension tells two locals of one name apart (docs/debugging.md, "The program's names") */
    if (n->kind != ND_PARAM)
      xfprintf(f, "@%d-%d", emit_line_of(e, n), e->toks->v[n->sym->scope_last].line);
  }
  memstream_close(f);
  emit_put(e, 0, "static const char coro_locals_%s[] __attribute__((used)) = \"%s\";", co->name,
           text);
  xfree(text);
}

static void emit_resume(Emitter *e, Coroutine *co) {
  Node *body = co->def->body;
  emit_put(e, 0, "/* the body of %s, resumed at resume_point */", co->name);
  /* the lines that make code are pinned to the definition's line: a
     debugger entering the function shows the coroutine's header, and a
     breakpoint on a line of the body finds only the body's code */
  int at = emit_line_of(e, co->decl);
  emit_put(e, at, "static bool coro_resume_%s(coro_t *coro_c, void *coro_out) {", co->name);
  e->indent++;
  emit_put(e, at, "struct coro_frame_%s *coro_f = (struct coro_frame_%s *)coro_c;", co->name,
           co->name);
  emit_put(e, 0, "(void)coro_f, (void)coro_out;");
  if (co->is_async)
    emit_put(e, at,
             "CORO_AGEN_ENTER(coro_c);  /* resumed by the await of its next value, or woken */");
  emit_put(e, at, "switch (coro_enter(coro_c)) {  /* running now; 0: from the start */");
  for (int i = 1; i <= co->nresume; i++)
    emit_put(e, at, "case %d: goto coro_resume_%d;  /* %s:%d */", i, i, e->src->name,
             co->resume_lines[i]);
  emit_put(e, 0, "}");
  /* the start of the body is run once, every other resume jumps past it:
     saying so lets the compiler lay the resume paths out straight */
  emit_put(e, at, "coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */");
  emit_lines(e, &co->body);
  emit_put(e, e->toks->v[body->last].line,
           "coro_end: CORO_BODY_END;  /* reached once: the body returns */");
  emit_put(e, e->toks->v[body->last].line, "CORO_FINISH(coro_c);");
  e->indent--;
  emit_put(e, 0, "}");
}

static void emit_param_stores(Emitter *e, Coroutine *co, int at);
static void emit_creation_in(Emitter *e, Coroutine *co);
static void emit_creation_inside(Emitter *e, Coroutine *co);
static void emit_children_header(Emitter *e, Coroutine *co, int at, bool zeroed);

/* Where its frame has cleanups to run when freed suspended: the function that runs them. */
static void emit_cleanup_store(Emitter *e, Coroutine *co, int at) {
  if (co->runs_cleanups)
    emit_put(e, at, "coro_f->coro_cleanup = coro_cleanup_%s;", co->name);
}

static void emit_creation(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0, "/* %s(...) makes an instance and runs nothing yet (lazy start) */", co->name);
  emit_put(e, at, "%s {", emit_creation_header(e, co));
  e->indent++;
  emit_put(e, at,
           "struct coro_frame_%s *coro_f = (struct coro_frame_%s *)coro_frame_new("
           "sizeof *coro_f, _Alignof(struct coro_frame_%s), coro_resume_%s, %s);",
           co->name, co->name, co->name, co->name, emit_kind_of(co));
  emit_cleanup_store(e, co, at);
  emit_children_header(e, co, at, true);
  emit_param_stores(e, co, at);
  if (!co->is_generator && !co->returns_void)
    emit_put(e, at, "coro_f->coro_base.result = &coro_f->coro_result;");
  if (co->is_async)
    emit_put(e, at, "coro_f->coro_base.result = &coro_f->coro_agen;");
  emit_put(e, at, "return &coro_f->coro_base%s;", co->is_generator && !co->is_async ? "" : ".base");
  e->indent--;
  emit_put(e, 0, "}");
  emit_creation_in(e, co);
  if (co->awaited_inline)
    emit_creation_inside(e, co);
}

/* The stores of a creation's arguments into the frame's parameters. */
static void emit_param_stores(Emitter *e, Coroutine *co, int at) {
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    if (n->kind == ND_PARAM)
      emit_put(e, at, "coro_f->%s = %s;", n->sym->field, n->sym->name);
  }
}

/* A coroutine that awaits children inside its frame starts with their
   union's header zeroed and naming it as their parent: every child made
   there relies on it (coro_frame_again in <coro/gen.h>), and no await
   stores the parent link again. `zeroed`: the frame is zeroed already
   (coro_frame_new), only the link is stored. */
static void emit_children_header(Emitter *e, Coroutine *co, int at, bool zeroed) {
  if (!has_inline_children(co))
    return;
  if (zeroed)
    emit_put(e, at,
             "coro_children_home(&coro_f->coro_children, &coro_f->coro_base.base);  "
             "/* every child made inside it names it as its parent */");
  else
    emit_put(e, at,
             "coro_children_init(&coro_f->coro_children, &coro_f->coro_base.base);  "
             "/* its children start from a zeroed header that names it as their parent */");
}

/* The same as its creation function, in storage the caller gives instead
   of a new allocation: a CORO_FRAME(name) that is a local, a member, a
   block of an arena (docs/language.md, "Instances in storage you give").
   Only the header is zeroed (and its children's, if it has some), or the
   whole frame if it is small (below). */
static void emit_creation_in(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0, "/* %s(...) in storage the caller gives (CORO_FRAME(%s)): no allocation */",
           co->name, co->name);
  char *params = emit_param_list(e, co);
  emit_in_declaration(e, co);
  emit_put(e, at, "%scoro_t *coro_in_%s(struct coro_frame_%s *coro_f%s%s) {",
           emit_in_linkage(e, co), co->name, co->name, *params ? ", " : "", params);
  e->indent++;
  const char *header =
      co->is_generator && !co->is_async ? "coro_f->coro_base" : "coro_f->coro_base.base";
  /* the header, or a frame of at most 64 bytes whole: the body sets every
     field before it reads it, but GCC at -O2 does not always follow that
     through the resume point of an instance in a local, and warned that a
     kept local may be read uninitialized (tests/cases/frame_itself.coc);
     a large frame made at every turn of a loop still costs a few stores,
     not a memset of all of it */
  emit_put(e, at,
           "coro_frame_init(&%s, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, "
           "coro_resume_%s, %s);  /* a small frame zeroed whole, else its header */",
           header, co->name, emit_kind_of(co));
  emit_cleanup_store(e, co, at);
  emit_children_header(e, co, at, false);
  if (co->is_async) {
    emit_put(e, at, "coro_f->coro_agen = (struct coro_agen){0};");
    emit_put(e, at, "coro_f->coro_base.result = &coro_f->coro_agen;");
  }
  emit_param_stores(e, co, at);
  /* (no coro_base.result: only an await of a task on the heap reads it;
     an await of a child in storage reads coro_result where it is) */
  emit_put(e, at, "return &%s;", header);
  e->indent--;
  emit_put(e, 0, "}");
}

/* A task awaited with its frame inside its parent's (check.c, "Children
   inside their parent"), made there again at each await: the header is as
   the last child made there left it when it ended, which is what a new one
   needs but for four fields (coro_frame_again). coro_inside_NAME puts the
   arguments in; coro_start_child writes those fields (of kind
   coro_kind_NAME) once it knows no trace is recorded, where the compiler
   merges them with the store of the child's end (lower.c). A child in a
   loop then costs its arguments and two stores, as a call would. */
static void emit_creation_inside(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0,
           "/* %s(...) inside the frame of a task awaiting it, where a child has ended or "
           "nothing was yet */",
           co->name);
  char *params = emit_param_list(e, co);
  emit_put(e, at, "enum { coro_kind_%s = %s };  /* its kind, for coro_start_child */", co->name,
           emit_kind_of(co));
  emit_put(e, at, "static inline coro_t *coro_inside_%s(struct coro_frame_%s *coro_f%s%s) {",
           co->name, co->name, *params ? ", " : "", params);
  e->indent++;
  emit_cleanup_store(e, co, at);
  emit_children_header(e, co, at, false);
  emit_param_stores(e, co, at);
  emit_put(e, at, "return &coro_f->coro_base.base;");
  e->indent--;
  emit_put(e, 0, "}");
}

/* What an instance is: its value type and its frame, with what the frame
   needs before it (also in the header: emit_header.c). */
void emit_stackless_frame(Emitter *e, Coroutine *co) {
  emit_value_type(e, co);
  /* macros defined in the body are defined here too: the frame may use them
     (`char buf[CAP];`); defined twice the same way, they are defined once.
     An #undef stays only where it stands, so after the body every macro is
     as the user left it. */
  for (int i = co->first; i <= co->last; i++)
    if (is_first_define(e, co, i))
      emit_directives(e, i, i + 1);
  emit_hoisted_types(e, co);
  emit_frame(e, co);
}

/* From here to the end of the file, coro_next of one of this generator's
   instances calls its resume function by name instead of through the
   instance's pointer: the compiler may then inline the body into the
   consumer's loop and see the whole life of an instance in the same file
   (made by coro_in_NAME in a local, say), as C++ compilers do with a
   coroutine whose definition they see. Each generator's wrapper tries it,
   then the one before, ending at <coro.h>'s coro_next: the first
   CORO_MAX_NEXT_BY_NAME generators of a file, so that a file of many does
   not make every coro_next a long chain of tests. `&coro_next` and
   `(coro_next)(g, &v)` still name the library's. */
enum { CORO_MAX_NEXT_BY_NAME = 8 };

/* coro_next(g, &v) with v of this generator's value type (the macro picks
   it by the type of &v, CORO_NEXT_TO_N): the body, inline, stores into v;
   every other way (the slow one, another generator's) stores into a copy,
   which goes to v after. The address of the consumer's variable then goes
   to no call, and the compiler keeps v in a register: without it, every
   resume stored v to the stack for a call that never came (docs/abi.md,
   "The consumer's variable"). */
static void emit_next_into(Emitter *e, Coroutine *co, int at) {
  int n = e->nnext_by_name;
  emit_put(e, 0,
           "/* coro_next(g, &v) with v a coro_value_%s: only the inline body stores into v, every "
           "other way into a copy, so that v may stay in a register */",
           co->name);
  emit_put(e, at,
           "static inline __attribute__((unused)) bool coro_next_to_%s(coro_t *coro_g, "
           "coro_value_%s *coro_o) {",
           co->name, co->name);
  e->indent++;
  emit_put(e, at,
           "if (__builtin_expect(coro_g->resume == coro_resume_%s && coro_next_open(coro_g), 1)) {",
           co->name);
  emit_put(e, at, "  return coro_resume_%s(coro_g, coro_o);", co->name);
  emit_put(e, 0, "}");
  emit_put(e, at, "coro_value_%s coro_v;  /* every other way stores here */", co->name);
  emit_put(e, at,
           "bool coro_r = coro_g->resume == coro_resume_%s ? coro_next_slow(coro_g, &coro_v) : "
           "coro_next(coro_g, &coro_v);  /* another's: the one before */",
           co->name);
  emit_put(e, at, "return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);");
  e->indent--;
  emit_put(e, 0, "}");
  const char *before = n > 1 ? format("CORO_NEXT_TO_%d(out, other)", n - 1)
                             : "_Generic((out), void *: other, default: coro_next)";
  emit_put(e, 0,
           "#define CORO_NEXT_TO_%d(out, other) _Generic((out), coro_value_%s *: coro_next_to_%s, "
           "default: %s)",
           n, co->name, co->name, before);
}

static void emit_next_by_name(Emitter *e, Coroutine *co) {
  if (e->nnext_by_name >= CORO_MAX_NEXT_BY_NAME)
    return;
  e->nnext_by_name++;
  e->next_by_name_last = co->name;
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0,
           "/* coro_next below calls %s's body by name when the instance is one of its own: "
           "the compiler may inline it */",
           co->name);
  emit_put(
      e, at,
      "static inline __attribute__((unused)) bool coro_next_of_%s(coro_t *coro_g, void *coro_o) {",
      co->name);
  e->indent++;
  emit_put(e, at, "if (coro_g->resume == coro_resume_%s) {", co->name);
  e->indent++;
  emit_put(e, at,
           "return coro_next_open(coro_g) ? coro_resume_%s(coro_g, coro_o) : "
           "coro_next_slow(coro_g, coro_o);",
           co->name);
  e->indent--;
  emit_put(e, 0, "}");
  emit_put(e, at, "return coro_next(coro_g, coro_o);  /* another's: the one before */");
  e->indent--;
  emit_put(e, 0, "}");
  emit_next_into(e, co, at);
}

/* coro_next and coro_free of the frame itself (emit_frame_dispatch): the
   body by name, the refusals by name, and nothing else; the frame's
   address goes to no call but the cleanups' (docs/abi.md, "The frame
   itself"). */
static void emit_by_frame(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0,
           "/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(%s): the compiler sees "
           "the whole life of an instance in a local */",
           co->name);
  emit_put(e, at,
           "static inline __attribute__((unused)) bool coro_next_in_%s(struct coro_frame_%s "
           "*coro_f, void *coro_o) {",
           co->name, co->name);
  e->indent++;
  emit_put(e, at, "coro_t *coro_g = &coro_f->coro_base;");
  emit_put(e, at,
           "return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_%s(coro_g, "
           "coro_o) : coro_next_refused_in(coro_g, \"%s\");",
           co->name, co->name);
  e->indent--;
  emit_put(e, 0, "}");
  emit_put(e, at,
           "static inline __attribute__((unused)) void coro_free_in_%s(struct coro_frame_%s "
           "*coro_f) {",
           co->name, co->name);
  e->indent++;
  if (co->runs_cleanups)
    emit_put(e, at, "coro_free_inline(&coro_f->coro_base);  /* its cleanups, if suspended */");
  else
    emit_put(e, at, "coro_free_refused_in(&coro_f->coro_base, \"%s\");  /* nothing to give back */",
             co->name);
  e->indent--;
  emit_put(e, 0, "}");
}

static void emit_generator_ways(Emitter *e, Coroutine *co) {
  if (!co->is_generator || co->is_async)
    return;
  emit_next_by_name(e, co);
  emit_by_frame(e, co);
  emit_frame_dispatch(e, co);
}

void emit_stackless(Emitter *e, Coroutine *co) {
  emit_put(e, 0, "/* coroutine %s (%s:%d), lowered by coroc into a state machine */", co->name,
           e->src->name, emit_line_of(e, co->decl));
  emit_stackless_frame(e, co);
  emit_put(e, 0, "CORO_NODISCARD %s;  /* it may call itself */", emit_creation_header(e, co));
  redefine_macros(e, co, false);
  emit_resume(e, co);
  redefine_macros(e, co, true);
  emit_debug_tables(e, co);
  if (co->runs_cleanups)
    emit_cleanup_function(e, co);
  emit_creation(e, co);
  emit_generator_ways(e, co);
}
