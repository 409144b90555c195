/* emit_stackful.c: the stackful backend.
 *
 * The body needs no transformation: it stays an ordinary C function, with
 * its locals on a stack of its own, and `yield` becomes a call that switches
 * back to the consumer (runtime/stackful.c, runtime/asm/). So the body is
 * copied as the user wrote it, comments, macros and #if included, with only
 * three kinds of splices: each `yield EXPR;` becomes
 * `CORO_STACKFUL_YIELD(coro_c, T, EXPR);` (`yield;` CORO_STACKFUL_YIELD_TASK),
 * each `await X` a CORO_STACKFUL_AWAIT... statement expression, and
 * `__func__` the coroutine's name. Splices keep their line breaks, so one
 * #line before the body keeps every line of it where the .coc has it.
 * A splice makes its line longer, though, so (unless --no-line) the operand
 * of a yield or await goes on a line of its own, after `#line N`, blank up to
 * its column: a compiler's caret then points where the user wrote it.
 * `X = yield EXPR;` becomes that yield and `CORO_RECEIVE(coro_c, X);` in a
 * do-while, one statement where the user wrote one.
 *
 *   typedef int coro_value_fib;
 *   struct coro_args_fib { int n; };              the arguments, until it starts
 *   static void coro_body_fib(coro_t *coro_c, int n) { ...the body... }
 *   static void coro_entry_fib(coro_t *coro_c)    runs first on the new stack
 *   coro_t *fib(int n)                            creation: lazy, as stackless
 */
#define _GNU_SOURCE
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

/* The splices of a body: its yields and awaits sorted by position, and the
   next one not yet printed. */
typedef struct {
  NodeList nodes; /* ND_YIELD and ND_AWAIT, by their first token */
  int next;       /* the first one not yet reached */
} Splices;

/* The first original token at or after byte `offset` (tokens are in order). */
static int token_at(const Source *src, size_t offset) {
  const TokenList *o = &src->original;
  int lo = src->original_from, hi = o->n; /* (those before it went back) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (token_offset(src, &o->v[mid]) < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Start a new output line that the compiler counts as line `t->line` of the
   .coc, blank up to `t`'s column (tabs kept, so that a display column is the
   same too): what follows then stands where the user wrote it, and a
   compiler's diagnostic points at the right column. Used where a splice has
   put more text before it on its line than the user had. False, and nothing
   printed, past column COROC_MAX_ALIGN_COLUMN. */
static bool realign(FILE *out, Source *src, Token *t) {
  char *pad = emit_column_pad(src, t);
  if (!pad)
    return false;
  xfprintf(out, "\n%s\n%s", emit_line_text(src, t->line), pad);
  xfree(pad);
  return true;
}

/* The text of the .coc from byte `from` to byte `to`, with the splices of
   the yields and awaits and of __func__ made. An await inside another's
   operand is printed by the nested call, which moves sp->next on. With
   #line directives, the operand of a splice starts a line of its own at its
   own column (realign). */
static void splice_inline_call(FILE *out, Source *src, Coroutine *co, Splices *sp, Node *y,
                               bool lines);

static void splice(FILE *out, Source *src, Coroutine *co, Splices *sp, size_t from, size_t to,
                   bool lines) {
  TokenList *o = &src->original;
  size_t at = from;
  for (int i = token_at(src, from); i < o->n && token_offset(src, &o->v[i]) < to; i++) {
    Token *t = &o->v[i];
    if (token_offset(src, t) < at || t->dead)
      continue;
    while (sp->next < sp->nodes.n && sp->nodes.v[sp->next]->first < i)
      sp->next++;
    Node *y =
        sp->next < sp->nodes.n && sp->nodes.v[sp->next]->first == i ? sp->nodes.v[sp->next] : NULL;
    bool func = t->kind == TK_IDENT &&
                (!strcmp(tok_text(t), "__func__") || !strcmp(tok_text(t), "__FUNCTION__"));
    if (!y && !func)
      continue;
    fwrite(src->raw + at, 1, token_offset(src, t) - at, out);
    if (func) {
      xfprintf(out, "\"%s\"", co->name);
      at = token_end(src, t);
      continue;
    }
    sp->next++;
    at = token_end(src, &o->v[y->last]);
    if (y->kind == ND_YIELD && !y->expr) { /* `yield;` in a task */
      fputs("CORO_STACKFUL_YIELD_TASK(coro_c);", out);
      continue;
    }
    Token *first = &o->v[y->expr->first], *last = &o->v[y->expr->last];
    if (y->kind == ND_AWAIT && y->inline_child) {
      splice_inline_call(out, src, co, sp, y, lines);
      continue;
    }
    if (y->kind == ND_YIELD && y->target) /* two statements where the user wrote one */
      fputs("do { ", out);
    const char *agen = co->is_async ? "AGEN_" : ""; /* an async generator's forms */
    if (y->kind == ND_YIELD)
      xfprintf(out, "CORO_STACKFUL_%sYIELD(coro_c, coro_value_%s,", agen, co->name);
    if (y->kind == ND_AWAIT && y->discarded)
      fputs("(void)", out); /* its value is dropped */
    if (y->kind == ND_YIELD)
      ;
    else if (!y->callee)
      xfprintf(out, "CORO_STACKFUL_%sAWAIT(coro_c,", agen);
    else if (task_has_value(y->sym))
      xfprintf(out, "CORO_STACKFUL_%sAWAIT_TASK(coro_c, coro_value_%s,", agen, y->callee);
    else
      xfprintf(out, "CORO_STACKFUL_%sAWAIT_VOID_TASK(coro_c,", agen);
    if (!lines || !realign(out, src, first))
      fputc(' ', out);
    splice(out, src, co, sp, token_offset(src, first), token_end(src, last), lines);
    fputs(y->kind == ND_YIELD ? ");" : ")", out);
    if (y->kind == ND_YIELD && y->target) { /* `x = yield v;`: then x gets what was sent */
      Token *tf = &o->v[y->target->first], *tl = &o->v[y->target->last];
      fputs(" CORO_RECEIVE(coro_c,", out);
      if (!lines || !realign(out, src, tf))
        fputc(' ', out);
      splice(out, src, co, sp, token_offset(src, tf), token_end(src, tl), lines);
      fputs("); } while (0)", out);
      if (lines && realign(out, src, &o->v[y->last]))
        at = token_offset(src,
                          &o->v[y->last]); /* the ';' where it was: what follows keeps its line */
      else
        fputc(';', out);
    }
  }
  if (at < to)
    fwrite(src->raw + at, 1, to - at, out);
}

/* `await child(x, y)` of a child defined above (check.c, "Children inside
   their parent"): its body, called on this stack as a plain function with
   this instance, `coro_body_child(coro_c, x, y)`. Where the child's body
   suspends, this whole stack does, and this instance is what waits and is
   woken; no instance of the child is made. */
static void splice_inline_call(FILE *out, Source *src, Coroutine *co, Splices *sp, Node *y,
                               bool lines) {
  TokenList *o = &src->original;
  Node *call = y->expr;
  if (y->discarded)
    fputs("(void)", out);
  if (co->runs_cleanups) /* the child unwound: so does this body (cleanup.c) */
    xfprintf(out, "CORO_STACKFUL_INLINE%s(coro_c, ", task_has_value(y->sym) ? "" : "_VOID");
  xfprintf(out, "coro_body_%s(coro_c", y->callee);
  if (call->kids.n) {
    fputs(", ", out);
    Token *first = &o->v[call->kids.v[0]->first],
          *last = &o->v[call->kids.v[call->kids.n - 1]->last];
    if (lines)
      realign(out, src, first); /* the arguments where the user wrote them */
    splice(out, src, co, sp, token_offset(src, first), token_end(src, last), lines);
  }
  fputs(co->runs_cleanups ? "))" : ")", out);
}

static bool yields_pre(Node *n, void *ctx) {
  if (n->kind == ND_YIELD || n->kind == ND_AWAIT)
    list_push(ctx, n);
  return true;
}

static int by_position(const void *a, const void *b) {
  return (*(Node *const *)a)->first - (*(Node *const *)b)->first;
}

/* The parameters of the body function: coro_c, then the user's own. */
static char *body_params(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  if (f->kids.n == 0 ||
      (f->kids.n == 1 && !f->kids.v[0]->declarator && (f->kids.v[0]->specs->flags & SP_VOID)))
    return "coro_t *coro_c __attribute__((unused))";
  char *list = emit_range(e, f->first + 1, f->last - 1, true);
  return format("coro_t *coro_c __attribute__((unused)), %s", list);
}

static void emit_creation_body(Emitter *e, Coroutine *co, NodeList *params, bool value,
                               bool in_storage);
static void emit_by_frame(Emitter *e, Coroutine *co);

/* Its value type and the struct of its arguments (also in the header:
   emit_header.c, since the storage holds them). */
void emit_stackful_args(Emitter *e, Coroutine *co) {
  NodeList params = {0};
  Node *f = co->declarator->kids.v[0];
  for (int i = 0; i < f->kids.n; i++)
    if (f->kids.v[i]->sym)
      list_push(&params, f->kids.v[i]);
  emit_value_type(e, co);
  emit_put(e, 0, "struct coro_args_%s {  /* its arguments, kept until the body starts */",
           co->name);
  emit_indent(e, 1);
  bool has_result = !co->is_generator && !co->returns_void;
  if (co->is_async)
    emit_put(e, 0, "struct coro_agen coro_agen;  /* an async generator's link to its consumer */");
  else if (params.n == 0 && !has_result)
    emit_put(e, 0, "char coro_unused;  /* (a struct may not be empty) */");
  if (has_result)
    emit_put(e, 0, "coro_value_%s coro_result;  /* what it returns, to the task awaiting it */",
             co->name);
  for (int i = 0; i < params.n; i++)
    emit_put(
        e, emit_line_of(e, params.v[i]), "%s;",
        emit_field_decl(e, params.v[i]->specs, params.v[i]->declarator, params.v[i]->sym->field));
  emit_indent(e, -1);
  emit_put(e, 0, "};");
  xfree(params.v);
}

/* CORO_FRAME(name) of a stackful coroutine: the runtime's bookkeeping, then
   room for the arguments (the stack is the runtime's). */
void emit_stackful_storage(Emitter *e, Coroutine *co) {
  emit_put(e, 0, "struct coro_frame_%s {", co->name);
  emit_indent(e, 1);
  emit_put(e, 0, "struct coro_stackful_storage coro_head;  /* the runtime's bookkeeping */");
  emit_put(e, 0, "struct coro_args_%s coro_args;  /* room for the arguments */", co->name);
  emit_indent(e, -1);
  emit_put(e, 0, "};");
}

void emit_stackful(Emitter *e, Coroutine *co) {
  Source *src = e->src;
  Node *body = co->def->body;
  NodeList params = {0};
  Node *f = co->declarator->kids.v[0];
  for (int i = 0; i < f->kids.n; i++)
    if (f->kids.v[i]->sym)
      list_push(&params, f->kids.v[i]);
  int at = emit_line_of(e, co->decl);

  emit_put(e, 0, "/* coroutine %s (%s:%d): stackful, the body runs on a stack of its own */",
           co->name, src->name, at);
  emit_stackful_args(e, co);
  emit_put(e, 0, "CORO_NODISCARD %s;  /* it may call itself */", emit_creation_header(e, co));

  /* the body, as written, from its '{' on */
  Splices yields = {0};
  visit(body, yields_pre, NULL, &yields.nodes);
  if (yields.nodes.n > 1) /* (qsort wants an array, and a body may have no yield) */
    qsort(yields.nodes.v, yields.nodes.n, sizeof(Node *), by_position);
  Token *open = &src->original.v[body->first], *close = &src->original.v[body->last];
  emit_sync(e, open->line);
  bool value = !co->is_generator && !co->returns_void; /* a task's body returns its value */
  if (co->runs_cleanups) { /* freed suspended, it returns from where it stopped (cleanup.c) */
    emit_put(e, 0, "#undef CORO_STACKFUL_RESUMED");
    if (value)
      emit_put(
          e, 0,
          "#define CORO_STACKFUL_RESUMED(c) do { if (__builtin_expect(coro_stackful_unwinding(c), 0)) "
          "return (coro_value_%s){0}; } while (0)",
          co->name);
    else
      emit_put(
          e, 0,
          "#define CORO_STACKFUL_RESUMED(c) do { if (__builtin_expect(coro_stackful_unwinding(c), 0)) "
          "return; } while (0)");
    emit_sync(e, open->line);
  }
  if (value)
    xfprintf(e->out, "static coro_value_%s coro_body_%s(%s)", co->name, co->name,
             body_params(e, co));
  else
    xfprintf(e->out, "static void coro_body_%s(%s)", co->name, body_params(e, co));
  Token *next = &src->original.v[body->first + 1];
  /* code after '{' on its line */
  bool shared = body->first < body->last && next->line == open->line;
  if (!(e->opt->line_directives && shared && realign(e->out, src, open)))
    fputc(' ', e->out);
  splice(e->out, src, co, &yields, token_offset(src, open), token_end(src, close),
         e->opt->line_directives);
  fputc('\n', e->out);
  emit_resync(e, close->line + 1);
  if (co->runs_cleanups) {
    emit_put(e, 0, "#undef CORO_STACKFUL_RESUMED");
    emit_put(e, 0, "#define CORO_STACKFUL_RESUMED(c) ((void)0)  /* as <coro/gen.h> has it */");
  }

  emit_put(e, 0, "/* the first thing to run on the new stack: the body, with its arguments */");
  emit_put(e, at, "static void coro_entry_%s(coro_t *coro_c) {", co->name);
  emit_indent(e, 1);
  /* coro_body_NAME(coro_c, coro_a->x, ...): built once, not re-formatted per parameter */
  char *call = NULL;
  size_t call_len = 0;
  FILE *args = xmemstream(&call, &call_len);
  xfprintf(args, "coro_body_%s(coro_c", co->name);
  for (int i = 0; i < params.n; i++)
    xfprintf(args, ", coro_a->%s", params.v[i]->sym->field);
  memstream_close(args);
  if (params.n || value)
    emit_put(e, at, "struct coro_args_%s *coro_a = coro_stackful_args(coro_c);", co->name);
  if (co->is_async)
    emit_put(e, at,
             "(void)coro_agen_enter(coro_c);  /* (resumed by the await of its first value) */");
  emit_put(e, at, "%s%s);", value ? "coro_a->coro_result = " : "", call);
  emit_indent(e, -1);
  emit_put(e, 0, "}");

  emit_put(e, 0, "/* %s(...) makes an instance and runs nothing yet (lazy start) */", co->name);
  emit_put(e, at, "%s {", emit_creation_header(e, co));
  emit_creation_body(e, co, &params, value, false);

  /* the same in storage the caller gives: CORO_FRAME(name), coro_in_name */
  emit_put(e, 0, "/* %s(...) in storage the caller gives (CORO_FRAME(%s)): no allocation */",
           co->name, co->name);
  emit_stackful_storage(e, co);
  char *params_text = emit_param_list(e, co);
  emit_in_declaration(e, co);
  emit_put(e, at, "%scoro_t *coro_in_%s(struct coro_frame_%s *coro_f%s%s) {",
           emit_in_linkage(e, co), co->name, co->name, *params_text ? ", " : "", params_text);
  emit_creation_body(e, co, &params, value, true);
  if (co->is_generator && !co->is_async)
    emit_by_frame(e, co);
}

/* coro_next(&frame, &v) and coro_free(&frame), as the stackless backend
   has them (emit_frame_dispatch): here what the instance it holds takes. */
static void emit_by_frame(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0, "/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(%s) */", co->name);
  emit_put(e, at,
           "static inline __attribute__((unused)) bool coro_next_in_%s(struct coro_frame_%s "
           "*coro_f, void *coro_o) {",
           co->name, co->name);
  emit_put(e, at, "  return (coro_next)((coro_t *)(void *)coro_f, coro_o);");
  emit_put(e, 0, "}");
  emit_put(e, at,
           "static inline __attribute__((unused)) void coro_free_in_%s(struct coro_frame_%s "
           "*coro_f) {",
           co->name, co->name);
  emit_put(e, at, "  coro_free_inline((coro_t *)(void *)coro_f);");
  emit_put(e, 0, "}");
  emit_frame_dispatch(e, co);
}

/* The body of a creation function: make the instance (on the heap, or in
   the caller's coro_f), store the arguments, return it. */
static void emit_creation_body(Emitter *e, Coroutine *co, NodeList *params, bool value,
                               bool in_storage) {
  int at = emit_line_of(e, co->decl);
  emit_indent(e, 1);
  emit_put(e, at,
           "coro_t *coro_c = %scoro_entry_%s, sizeof(struct coro_args_%s), "
           "_Alignof(struct coro_args_%s), %s);",
           in_storage ? "coro_stackful_init(coro_f, sizeof *coro_f, " : "coro_stackful_new(",
           co->name, co->name, co->name, emit_kind_of(co));
  if (params->n || value || co->is_async) {
    emit_put(e, at, "struct coro_args_%s *coro_a = coro_stackful_args(coro_c);", co->name);
    for (int i = 0; i < params->n; i++)
      emit_put(e, at, "coro_a->%s = %s;", params->v[i]->sym->field, params->v[i]->sym->name);
    if (value)
      emit_put(e, at, "coro_as_task(coro_c)->result = &coro_a->coro_result;");
    if (co->is_async)
      emit_put(e, at, "coro_as_task(coro_c)->result = &coro_a->coro_agen;");
  }
  emit_put(e, at, "return coro_c;");
  emit_indent(e, -1);
  emit_put(e, 0, "}");
}
