/* lower.c: the body of a stackless coroutine, as the lines of C it becomes.
 *
 * The stackless backend turns a body into the inside of a resume function: a
 * switch jumps to where the last suspension left off, and every local whose
 * value must outlive a suspension has a field in the frame (one kept in a C
 * local between suspensions is copied there around each, save_kept and
 * resume_label). Most statements stay as written (their tokens printed
 * again by text.c with the renames of frame.c); what changes:
 *  - each `yield` becomes CORO_YIELD and a numbered resume point after it
 *    (`x = yield v;`: then CORO_RECEIVE(coro_c, x), the value sent);
 *  - each `await` becomes statements before the statement it stands in: the
 *    awaitable kept in the frame, a loop that suspends until it is ready, a
 *    resume point, and the value it gives (lower_await); C's evaluation
 *    rules hold, so an await on the right of && and || runs only when C
 *    would evaluate it (lower_logical), only the arm of ?: that C picks runs
 *    (lower_select), commas keep their order, and a loop whose condition or
 *    step awaits becomes an endless loop that tests inside (lower_awaiting_loop);
 *  - declarations of locals that live in the frame become assignments to
 *    their fields; the others stay declarations.
 * The result is data: Coroutine.body, a list of lines, each with the .coc
 * line it stands for and its depth, which emit_stackless.c prints. Lowering
 * writes through the same Emitter as the printers, with Emitter.sink set:
 * emit_put appends a line instead of printing it.
 */
#define _GNU_SOURCE
#include "output/output.h"
#include "stream.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* {==================================================================
 * await inside expressions
 * =================================================================== */

static char *lower_await_expr(Emitter *e, Node *n);
static void replace_expr_jumps(Emitter *e, Node *n);

static char *lower_select(Emitter *e, Node *n);

static void close_blocks(Emitter *e, int to);

/* The outermost awaits of n (an await inside another's operand is part of it). */
static bool awaits_pre(Node *n, void *ctx) {
  if (!has_await(n))
    return false;
  if (n->kind == ND_AWAIT) {
    list_push(ctx, n);
    return false;
  }
  return true;
}

static void collect_awaits(Node *n, NodeList *out) {
  visit(n, awaits_pre, NULL, out);
}

/* Before an operand that a macro or an assignment pushes to the right:
   "\n#line L\n" and blanks up to where the user wrote it (tabs kept), so
   that it starts at its own line and column, and a compiler's caret points
   there; " " with --no-line, where it stays on the line, and past column
   COROC_MAX_ALIGN_COLUMN. */
static char *at_own_column(Emitter *e, Node *n) {
  if (!e->opt->line_directives)
    return " ";
  char *pad = emit_column_pad(e->src, &e->src->original.v[n->first]);
  if (!pad)
    return " ";
  return format("\n%s\n%s", emit_line_text(e->src, emit_line_of(e, n)), pad);
}

/* Around a suspension at resume point k, the locals kept in C locals
   (live.c, Sym.cached) that are live across it: stored to their fields
   just before the body returns, loaded back just after it resumes there.
   Between suspensions they are ordinary C locals, which the compiler keeps
   in registers.
     coro_f->i = i;  ...suspend at 3...  coro_resume_3:;  i = coro_f->i;  */
static const SymList *kept_across(Emitter *e, int k) {
  return e->co->live_at && e->co->live_at[k].n ? &e->co->live_at[k] : NULL;
}

/* The copies of the kept locals: to the frame (`coro_f->i = i; coro_f->n = n`
   with sep "; ", or as one expression with sep ", "), or back from it
   (`i = coro_f->i; n = coro_f->n`). */
static char *kept_copies(const SymList *l, bool back, const char *sep) {
  char *text = NULL;
  size_t len;
  FILE *f = xmemstream(&text, &len);
  for (int i = 0; i < l->n; i++)
    xfprintf(f, back ? "%s%s = coro_f->%s" : "%scoro_f->%s = %s", i ? sep : "",
             back ? l->v[i]->name : l->v[i]->field, back ? l->v[i]->field : l->v[i]->name);
  memstream_close(f);
  return text;
}

static void save_kept(Emitter *e, int k, int line) {
  const SymList *l = kept_across(e, k);
  if (!l)
    return;
  char *text = kept_copies(l, false, "; ");
  emit_put(e, line, "%s;  /* kept in the frame while suspended */", text);
  xfree(text);
}

/* The label of resume point k, and on the same line the kept locals
   loaded back. The line stands for the coroutine's first line, as the
   dispatch switch that jumps to it does, and the lines after it keep the
   numbers they would have (LINE_RESUME): a breakpoint on the line of a
   yield, an await or the statement after it stops where that line's own
   code is, not at the loads, and no #line comes between a fallthrough
   comment and its case label (gcc wants them side by side). */
static void resume_label(Emitter *e, int k) {
  const SymList *l = kept_across(e, k);
  e->indent--;
  if (!l) {
    emit_put(e, 0, "coro_resume_%d:;", k);
  } else {
    char *text = kept_copies(l, true, "; ");
    lines_push(e->sink, (Line){LINE_RESUME, 0, e->indent,
                               format("coro_resume_%d:; %s;  /* back from the frame */", k, text)});
    xfree(text);
  }
  e->indent++;
}

/* `await X`: evaluate X, keep the awaitable in the frame, suspend until it
   is ready; its value is then the awaitable's result (an operation) or the
   child task's return value, and the child is freed.

     coro_f->coro_aw_3 = coro_read(fd, buf, len);
     while (!CORO_READY(coro_f->coro_aw_3)) {
       CORO_AWAIT_SUSPEND(coro_c, 3, coro_f->coro_aw_3);
     coro_resume_3:;
     }
     ... coro_f->coro_aw_3.result ...                                      */
static char *lower_await_inline(Emitter *e, Node *n);

static char *lower_await(Emitter *e, Node *n) {
  if (n->inline_child)
    return lower_await_inline(e, n);
  int open = e->open_blocks;
  char *operand = lower_await_expr(e, n->expr);
  int line = emit_line_of(e, n), k = n->resume_point;
  emit_put(e, 0, "/* resume point %d: %s:%d */", k, e->src->name, line);
  emit_put(e, line, "coro_f->coro_aw_%d =%s%s;", k, at_own_column(e, n->expr), operand);
  close_blocks(e, open);
  if (!n->callee) {
    emit_put(e, line, "while (!CORO_READY(coro_f->coro_aw_%d)) {", k);
    e->indent++;
    save_kept(e, k, line);
    emit_put(e, line, "CORO_AWAIT_SUSPEND(coro_c, %d, coro_f->coro_aw_%d);", k, k);
    resume_label(e, k);
    e->indent--;
    emit_put(e, line, "}"); /* the await's line: not the next line's, whose code it is not */
    return format("coro_f->coro_aw_%d.result", k);
  }
  save_kept(e, k, line);
  emit_put(e, line, "CORO_AWAIT_TASK(coro_c, %d, coro_f->coro_aw_%d);", k, k);
  resume_label(e, k);
  bool is_void = !task_has_value(n->sym);
  if (!is_void)
    emit_put(e, line,
             "coro_f->coro_tmp_%d = *(coro_value_%s *)coro_as_task(coro_f->coro_aw_%d)->result;", k,
             n->callee, k);
  emit_put(e, line, "coro_free(coro_f->coro_aw_%d);", k);
  return is_void ? "(void)0" : format("coro_f->coro_tmp_%d", k);
}

/* `await child(x)` of a child whose frame is inside this one (check.c,
   "Children inside their parent"): made in its member of coro_children,
   then run at once, right here; this task suspends only if the child does,
   and the scheduler resumes it when the child ends, as for a child on the
   heap. Its arguments have no await (or it would be on the heap).

     coro_inside_child(&coro_f->coro_children.coro_in_3, x);
     if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_3.coro_base.base,
                          coro_resume_child, coro_kind_child)) {
       ...save the kept locals...; CORO_SUSPEND(coro_c, 3);
     coro_resume_3:;
       ...load them back...
     }
     coro_f->coro_tmp_3 = coro_f->coro_children.coro_in_3.coro_result;     */
static char *lower_await_inline(Emitter *e, Node *n) {
  Node *call = n->expr;
  int line = emit_line_of(e, n), k = n->resume_point;
  char *args = NULL;
  size_t len;
  FILE *f = xmemstream(&args, &len);
  for (int i = 0; i < call->kids.n; i++)
    xfprintf(f, ", %s", node_str(e, call->kids.v[i]));
  memstream_close(f);
  emit_put(e, 0, "/* resume point %d: %s:%d, the child's frame inside this one */", k, e->src->name,
           line);
  emit_put(e, line, "coro_inside_%s(&coro_f->coro_children.coro_in_%d%s);", n->callee, k, args);
  xfree(args);
  emit_put(e, line,
           "if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_%d.coro_base.base, "
           "coro_resume_%s, coro_kind_%s)) {",
           k, n->callee, n->callee);
  e->indent++;
  save_kept(e, k, line);
  emit_put(e, line, "CORO_SUSPEND(coro_c, %d);  /* it waits for something: so does this task */",
           k);
  resume_label(e, k);
  e->indent--;
  emit_put(e, line, "}"); /* the await's line, as above */
  if (!task_has_value(n->sym))
    return "(void)0";
  if (n->sole_await) /* read from the child's frame: nothing takes its place first */
    return format("coro_f->coro_children.coro_in_%d.coro_result", k);
  emit_put(e, line, "coro_f->coro_tmp_%d = coro_f->coro_children.coro_in_%d.coro_result;", k, k);
  return format("coro_f->coro_tmp_%d", k);
}

/* `A && B` with an await in B: B runs only when A holds, as C says.
     coro_f->coro_cond_1 = (A) != 0;
     if (coro_f->coro_cond_1) { ...B's awaits...; coro_f->coro_cond_1 = (B) != 0; }  */

static char *lower_logical(Emitter *e, Node *n, bool is_and) {
  int open = e->open_blocks;
  char *left = lower_await_expr(e, n->lhs);
  int k = n->cond_number, line = emit_line_of(e, n); /* check.c numbered the conds */
  emit_put(e, line, "coro_f->coro_cond_%d = (%s) != 0;", k, left);
  close_blocks(e, open);
  emit_put(e, line, "if (%scoro_f->coro_cond_%d) {", is_and ? "" : "!", k);
  e->indent++;
  char *right = lower_await_expr(e, n->rhs);
  emit_put(e, line, "coro_f->coro_cond_%d = (%s) != 0;", k, right);
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "}");
  return format("coro_f->coro_cond_%d", k);
}

/* The value an await will have, as lower_await will name it. */
static const char *await_value(const Node *n) {
  if (!n->callee)
    return format("coro_f->coro_aw_%d.result", n->resume_point);
  if (!task_has_value(n->sym))
    return "(void)0";
  if (n->inline_child && n->sole_await)
    return format("coro_f->coro_children.coro_in_%d.coro_result", n->resume_point);
  return format("coro_f->coro_tmp_%d", n->resume_point);
}

/* n printed with each await in it standing for its value: a C expression of
   the type n will have, for __typeof__. */
static char *typed_text(Emitter *e, Node *n) {
  NodeList awaits = {0};
  collect_awaits(n, &awaits);
  int saved = e->nrepl;
  for (int i = 0; i < awaits.n; i++)
    push_repl(e, awaits.v[i], await_value(awaits.v[i]));
  char *text = node_str(e, n);
  drop_repl(e, saved);
  return text;
}

/* `C ? await A : B`: only the arm C picks runs, as C says. Its value is kept
   in a local of a block around the statement; it is used by the statement
   before any other suspension (lower_await_expr orders the operands so), so
   it need not be in the frame.
     {
       __typeof__(C ? A : B) coro_sel_1;
       if (C) { ...A's awaits...; coro_sel_1 = A; } else { coro_sel_1 = B; }
       ...the statement, with coro_sel_1...
     }                                                                  */

static char *lower_select(Emitter *e, Node *n) {
  int line = emit_line_of(e, n), k = ++e->nselects;
  char *cond = lower_await_expr(e, n->cond);
  if (n->discarded) { /* its value is dropped (it may be void): just the arms */
    emit_put(e, line, "if (%s) {", cond);
    e->indent++;
    int open = e->open_blocks;
    char *arm = n->then ? lower_await_expr(e, n->then) : cond;
    if (n->then && n->then->kind != ND_AWAIT)
      emit_put(e, line, "(void)(%s);", arm);
    close_blocks(e, open);
    e->indent--;
    emit_put(e, 0, "} else {");
    e->indent++;
    arm = lower_await_expr(e, n->otherwise);
    if (n->otherwise->kind != ND_AWAIT)
      emit_put(e, line, "(void)(%s);", arm);
    close_blocks(e, open);
    e->indent--;
    emit_put(e, 0, "}");
    return "(void)0";
  }
  char *type = format("__typeof__(%s ? %s : %s)", cond, n->then ? typed_text(e, n->then) : cond,
                      typed_text(e, n->otherwise));
  emit_put(e, 0, "{");
  e->indent++;
  e->open_blocks++;
  emit_put(e, line, "%s coro_sel_%d;", type, k);
  emit_put(e, line, "if (%s) {", cond);
  e->indent++;
  int open = e->open_blocks;
  emit_put(e, line, "coro_sel_%d = %s;", k, n->then ? lower_await_expr(e, n->then) : cond);
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "} else {");
  e->indent++;
  emit_put(e, line, "coro_sel_%d = %s;", k, lower_await_expr(e, n->otherwise));
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "}");
  return format("coro_sel_%d", k);
}

/* Close the blocks that lower_select opened, down to `to` left open. */
static void close_blocks(Emitter *e, int to) {
  while (e->open_blocks > to) {
    e->open_blocks--;
    e->indent--;
    emit_put(e, 0, "}");
  }
}

/* An operator whose operands C leaves unsequenced, with awaits below it:
   the parts that order awaits (collect_sequenced) are lowered in turn, and
   one holding a `?:` that awaits goes last, so that its value (a local of
   the block lower_select opens) is used before any other suspension. The
   operators between are looked through, not recursed into: a chain of a
   million `+` costs no C stack. */
static void lower_unsequenced(Emitter *e, Node *n) {
  NodeList parts = {0};
  collect_sequenced(n, &parts);
  Node *select = NULL;
  for (int i = 0; i < parts.n; i++)
    if (!has_awaiting_select(parts.v[i]))
      lower_await_expr(e, parts.v[i]);
  for (int i = 0; i < parts.n; i++)
    if (has_awaiting_select(parts.v[i])) {
      if (select) /* lower.c (check_one_select) refused it */
        internal_error("two operands hold a '?:' that awaits");
      select = parts.v[i];
    }
  if (select)
    lower_await_expr(e, select);
  xfree(parts.v);
}

/* Print the statements that evaluate the awaits in n, in an order C allows,
   and return the C text of n's value. Operands around an await that C
   leaves unsequenced are evaluated after it; &&, || and the comma keep
   their order; the arms of ?: are not supported yet. */
static char *lower_await_expr(Emitter *e, Node *n) {
  if (!has_await(n))
    return node_str(e, n);
  char *text = NULL;
  if (n->kind == ND_AWAIT) {
    text = lower_await(e, n);
  } else if (n->kind == ND_EXPR && (n->op == OP_AND || n->op == OP_OR) && has_await(n->rhs)) {
    text = lower_logical(e, n, n->op == OP_AND);
  } else if (n->kind == ND_EXPR && n->op == OP_COMMA) { /* left, then right, as C says */
    int open = e->open_blocks;
    char *left = lower_await_expr(e, n->lhs);
    if (n->lhs->kind != ND_AWAIT) /* an await's own statements are all it needs */
      emit_put(e, emit_line_of(e, n), "(void)(%s);", left);
    close_blocks(e, open);
    text = format("(%s)", lower_await_expr(e, n->rhs));
  } else if (n->kind == ND_EXPR && n->op == OP_COND &&
             (has_await(n->then) || has_await(n->otherwise))) {
    text = lower_select(e, n);
  } else {
    lower_unsequenced(e, n);
    return node_str(e, n);
  }
  push_repl(e, n, text);
  return text;
}

/* }================================================================== */

/* {==================================================================
 * Statements of a coroutine body
 * =================================================================== */

static void lower_stmt(Emitter *e, Node *n);

/* Is an __attribute__ among the specifiers, or a macro made of them (not an _Alignas, which a
   type name drops)? */
static bool has_attribute_specifier(Emitter *e, const Node *specs) {
  for (int i = 0; i < specs->kids.n; i++) {
    const Node *k = specs->kids.v[i];
    if (k->kind == ND_SPECIFIER && k->flags & SP_ATTRIBUTE && !is_alignas(e, k))
      return true;
  }
  return false;
}

/* `int a = 1, b[2] = {3, 4};` in a body: the objects live in the frame, so
   only the initializations remain, where the declaration stood. */
static char *init_str(Emitter *e, Node *init_decl) {
  Node *specs = init_decl->specs, *d = init_decl->declarator, *init = init_decl->init;
  Sym *s = init_decl->sym;
  const char *lhs = format("coro_f->%s", s->field);
  /* the literal's type: the declaration's, but an attribute among its specifiers
     (`int __attribute__((aligned(32))) a[3]`) is the object's, which clang ignores in a type name
     with a warning: the field's type then, which keeps what the attribute does to the type */
  bool attributed = has_attribute_specifier(e, specs);
  int array = array_type_kind(specs, d, 0);
  if (array == ARRAY_MAYBE) /* (`__typeof__(s.member) x = {...}`: either way, by address) */
    return format(
        "__builtin_memcpy(&%s, &(%s)%s, sizeof %s)", lhs, format("__typeof__(%s)", lhs),
        init->kind == ND_INIT_LIST ? node_str(e, init) : format("{%s}", node_str(e, init)), lhs);
  if (array == ARRAY_YES) {
    char *type =
        attributed ? format("__typeof__(%s)", lhs) : field_decl(e, specs, d, init, "", false);
    const char *lit =
        init->kind == ND_INIT_LIST ? node_str(e, init) : format("{%s}", node_str(e, init));
    return format("__builtin_memcpy(%s, (%s)%s, sizeof %s)", lhs, type, lit, lhs);
  }
  if (init->kind == ND_INIT_LIST)
    return format(
        "%s = (%s)%s", lhs,
        attributed ? format("__typeof__(%s)", lhs) : field_decl(e, specs, d, NULL, "", false),
        node_str(e, init));
  return format("%s = %s", lhs, node_str(e, init));
}

/* Does the object live in this coroutine's frame (under sym->field)? */
static bool is_framed(Emitter *e, const Sym *s) {
  return s && s->kind == SYM_OBJECT && s->owner == e->co && s->field && !s->cached;
}

/* The initializations of a declaration joined by `sep`; NULL if none. */
static char *decl_inits(Emitter *e, Node *decl, const char *sep) {
  char *all = NULL;
  for (int i = 0; i < decl->kids.n; i++) {
    Node *id = decl->kids.v[i];
    if (!id->init || !is_framed(e, id->sym))
      continue;
    char *one = init_str(e, id);
    all = all ? format("%s%s%s", all, sep, one) : one;
  }
  return all;
}

static bool stays_in_place(Emitter *e, Node *decl) {
  for (int i = 0; i < decl->kids.n; i++) {
    Sym *s = decl->kids.v[i]->sym;
    if (s && !is_framed(e, s))
      return true; /* static, extern, a function declaration, a local not in the frame */
  }
  return false;
}

/* `int x = 5, y = await f(x);`: each declarator in turn, its awaits just
   before its own initialization (x must be set before f(x) runs). */
static void lower_awaiting_decl(Emitter *e, Node *decl) {
  for (int i = 0; i < decl->kids.n; i++) {
    Node *id = decl->kids.v[i];
    if (!id->init || !is_framed(e, id->sym))
      continue;
    int open = e->open_blocks;
    if (has_await(id->init))
      lower_await_expr(e, id->init);
    emit_put(e, emit_line_of(e, id), "%s;", init_str(e, id));
    close_blocks(e, open);
  }
}

/* A local the body named only for its type, in a type that moved out of the body (a frame
   field's, a hoisted struct's) would be reported unused where the user's code was not. */
static void mark_lent_used(Emitter *e, Node *decl) {
  if (decl->specs->flags & SP_EXTERN)
    return; /* (an extern named only for its type need not be defined) */
  for (int i = 0; i < decl->kids.n; i++) {
    Sym *s = decl->kids.v[i]->sym;
    if (s && s->lent_type && !is_framed(e, s) && !s->cached)
      emit_put(e, 0, "(void)%s; /* named for its type alone, outside the body */", s->name);
  }
}

static void lower_decl(Emitter *e, Node *decl) {
  if (decl->specs->flags & SP_TYPEDEF)
    return; /* hoisted */
  if (has_await(decl) && !stays_in_place(e, decl)) {
    lower_awaiting_decl(e, decl);
    return;
  }
  for (int i = 0; i < decl->kids.n; i++)
    if (has_await(decl->kids.v[i]->init))
      lower_await_expr(e, decl->kids.v[i]->init);
  if (stays_in_place(e, decl)) {
    /* a local kept in a C local starts at 0 where C leaves it indeterminate:
       the stores before a suspension read it, on paths that never set it too */
    int saved = e->nrepl;
    for (int i = 0; i < decl->kids.n; i++) {
      Node *id = decl->kids.v[i];
      if (id->sym && id->sym->cached && !id->init)
        push_repl(e, id, format("%s = 0", node_str(e, id)));
    }
    emit_put(e, emit_line_of(e, decl), "%s", node_str(e, decl));
    drop_repl(e, saved);
    mark_lent_used(e, decl);
    return;
  }
  char *inits = decl_inits(e, decl, "; ");
  if (inits)
    emit_put(e, emit_line_of(e, decl), "%s;", inits);
}

static void lower_yield(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  if (!n->expr) { /* `yield;` in a task: every other ready task gets a turn */
    emit_put(e, 0, "/* resume point %d: %s:%d */", n->resume_point, e->src->name, line);
    save_kept(e, n->resume_point, line);
    emit_put(e, line, "CORO_YIELD_TASK(coro_c, %d);", n->resume_point);
    resume_label(e, n->resume_point);
    return;
  }
  /* an async generator's yield says so (CORO_AGEN_...); `yield await x;`: the awaits first */
  const char *agen = e->co->is_async ? "AGEN_" : "";
  char *value = has_await(n->expr) ? format(" %s", lower_await_expr(e, n->expr)) : NULL;
  char *at = value ? "" : at_own_column(e, n->expr);
  emit_put(e, 0, "/* resume point %d: %s:%d */", n->resume_point, e->src->name, line);
  const SymList *kept = kept_across(e, n->resume_point);
  if (kept) { /* the value first (`yield i++;`), then the kept locals, in one statement */
    char *stores = kept_copies(kept, false, ", ");
    emit_put(e, line, "CORO_%sYIELD_KEEPING(coro_c, coro_out, %d, coro_value_%s, (%s),%s%s);", agen,
             n->resume_point, e->co->name, stores, at, value ? value : node_str(e, n->expr));
    xfree(stores);
  } else {
    emit_put(e, line, "CORO_%sYIELD(coro_c, coro_out, %d, coro_value_%s,%s%s);", agen,
             n->resume_point, e->co->name, at, value ? value : node_str(e, n->expr));
  }
  resume_label(e, n->resume_point);
  if (n->target) /* `x = yield v;`: after the kept locals are back, x gets what was sent */
    emit_put(e, line, "CORO_RECEIVE(coro_c,%s%s);", at_own_column(e, n->target),
             node_str(e, n->target));
}

/* The cleanups of the locals in the frame whose scope ends here, or that a
   jump leaves (cleanup.c), where C would call them. */
static void put_cleanups(Emitter *e, int line, char *calls) {
  if (calls)
    emit_put(e, line, "%s  /* cleanups: leaving their scope */", calls);
}

/* The items of a block, with the directives kept between them. */
static void lower_items(Emitter *e, Node *block) {
  int prev = block->first + 1;
  for (int i = 0; i < block->kids.n; i++) {
    emit_directives(e, prev, block->kids.v[i]->first);
    lower_stmt(e, block->kids.v[i]);
    prev = block->kids.v[i]->last + 1;
  }
  emit_directives(e, prev, block->last);
}

/* The body of if/while/for/do/switch: a block, or one statement indented.
   A statement that prints as several gets braces of its own. */
static void lower_substmt(Emitter *e, int line, const char *header, Node *body) {
  /* a statement that lowers to several (a yield, an await, a task's return)
     gets braces of its own */
  bool several = body->kind != ND_BLOCK &&
                 (body->kind == ND_YIELD || body->kind == ND_RETURN || has_await(body));
  if (body->kind == ND_BLOCK || several) {
    emit_put(e, line, "%s%s{", header, *header ? " " : "");
    e->indent++;
    if (body->kind == ND_BLOCK) {
      lower_items(e, body);
      put_cleanups(e, e->toks->v[body->last].line, cleanup_scope_end(body));
    } else {
      lower_stmt(e, body);
    }
    e->indent--;
    emit_put(e, 0, "}");
    return;
  }
  emit_put(e, line, "%s", header);
  e->indent++;
  lower_stmt(e, body);
  e->indent--;
}

/* A loop body: `continue` in it is the loop's own again. */
static void lower_loop_body(Emitter *e, int line, const char *header, Node *body) {
  const char *saved = e->continue_label;
  e->continue_label = NULL;
  lower_substmt(e, line, header, body);
  e->continue_label = saved;
}

/* A for loop's first clause, lowered: the initializations of locals in
   the frame, or the declaration of ordinary locals as written, or the
   expression. */
static char *for_init(Emitter *e, Node *init) {
  if (init->kind == ND_DECL && stays_in_place(e, init)) {
    char *text = node_str(e, init);
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == ';' || text[len - 1] == ' '))
      text[--len] = '\0'; /* its ';' is the clause's */
    return text;
  }
  if (init->kind == ND_DECL) {
    char *inits = decl_inits(e, init, ", ");
    return inits ? inits : "";
  }
  return init->expr ? node_str(e, init->expr) : "";
}

static void lower_for(Emitter *e, Node *n) {
  char *init = for_init(e, n->init);
  char *header =
      format("for (%s;%s%s;%s%s)", init, n->cond ? " " : "", n->cond ? node_str(e, n->cond) : "",
             n->step ? " " : "", n->step ? node_str(e, n->step) : "");
  lower_loop_body(e, emit_line_of(e, n), header, n->body);
  put_cleanups(e, e->toks->v[n->last].line, cleanup_scope_end(n));
}

/* A loop whose condition (or step) awaits: the condition becomes
   statements at the top (or, for do-while, the bottom) of an endless loop.
     while (C) S   ->  for (;;) { ...C's awaits...; if (!(C)) break; S }
     do S while (C) -> for (;;) { S coro_cont_N:; ...; if (!(C)) break; }

   `continue` must still reach the condition and the step: where they come
   after the body, it becomes `goto coro_cont_N`. With `init_done`, a for
   loop's init (which awaits) was printed before the loop by the caller. */
static void lower_awaiting_loop(Emitter *e, Node *n, Node *cond, Node *step, bool cond_last,
                                bool init_done) {
  int line = emit_line_of(e, n);
  char *init = "";
  if (init_done) {
    ;
  } else if (n->kind == ND_FOR) {
    init = for_init(e, n->init);
  }
  bool after = cond_last || has_await(step);
  char *plain_step = step && !has_await(step) ? node_str(e, step) : "";
  emit_put(e, line, "for (%s;;%s%s) {", init, *plain_step ? " " : "", plain_step);
  e->indent++;
  int open = e->open_blocks;
  if (cond && !cond_last) {
    emit_put(e, line, "if (!(%s)) break;", lower_await_expr(e, cond));
    close_blocks(e, open);
  }
  const char *saved = e->continue_label;
  bool saved_used = e->continue_used;
  e->continue_label = after ? format("coro_cont_%d", n->first) : NULL;
  e->continue_used = false;
  if (n->body->kind == ND_BLOCK) {
    lower_items(e, n->body);
    put_cleanups(e, e->toks->v[n->body->last].line, cleanup_scope_end(n->body));
  } else {
    lower_stmt(e, n->body);
  }
  bool used = e->continue_used;
  e->continue_label = saved;
  e->continue_used = saved_used;
  if (after && used) {
    e->indent--;
    emit_put(e, 0, "coro_cont_%d:;", n->first);
    e->indent++;
  }
  if (cond && cond_last) {
    drop_repl(e, 0); /* (the body's statements replaced their own) */
    replace_expr_jumps(e, n);
    emit_put(e, line, "if (!(%s)) break;", lower_await_expr(e, cond));
    close_blocks(e, open);
  }
  if (step && has_await(step)) {
    emit_put(e, line, "%s;", lower_await_expr(e, step));
    close_blocks(e, open);
  }
  e->indent--;
  emit_put(e, 0, "}");
  if (n->kind == ND_FOR)
    put_cleanups(e, e->toks->v[n->last].line, cleanup_scope_end(n));
}

static void lower_return(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  if (n->expr) {
    char *value = lower_await_expr(e, n->expr);
    if (e->co->returns_void)
      emit_put(e, line, "(void)(%s);", value);
    else
      emit_put(e, line, "coro_f->coro_result = %s;", value);
  }
  put_cleanups(e, line, cleanup_exit(n));
  emit_put(e, line, "CORO_FINISH(coro_c);");
}

/* {==================================================================
 * Jumps out of statement expressions
 * =================================================================== */

/* `x = ({ if (done) goto out; v; });`: a statement expression is printed
   as its text, but a jump in it that leaves it is a jump of the body, and
   gets what the same jump as a statement gets: the calls of the cleanups
   whose scope it leaves, a `continue` that the loop's lowering moved to a
   label, a `return` that stores the result and finishes the instance. Its
   text is replaced so (push_repl) while the statement around is printed.

     ({ if (x) return 5; 2; })  ->  ({ if (x) { coro_f->coro_result = 5; CORO_FINISH(coro_c); } 2;
   })
*/
typedef struct {
  Emitter *e;
  Node *root;   /* the statement whose own expressions are walked */
  int inside;   /* statement expressions around */
  int loops;    /* loops around, inside them */
  int switches; /* switches around, inside them */
} ExprJumps;

static bool is_loop(const Node *n) {
  return n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR;
}

/* A statement of the root's own (its body, its branches): lowered by itself. */
static bool is_substatement(const Node *root, const Node *n) {
  switch (root->kind) {
  case ND_IF:
    return n == root->then || n == root->otherwise;
  case ND_WHILE:
  case ND_DO:
  case ND_FOR:
  case ND_SWITCH:
  case ND_LABEL:
  case ND_CASE:
  case ND_DEFAULT:
    return n == root->body;
  case ND_BLOCK:
    return true;
  default:
    return false;
  }
}

/* `return EXPR;` in a statement expression, as lower_return prints it. */
static char *return_text(Emitter *e, Node *n, const char *calls) {
  char *value = "";
  if (n->expr)
    value = e->co->returns_void ? format("(void)(%s); ", node_str(e, n->expr))
                                : format("coro_f->coro_result = %s; ", node_str(e, n->expr));
  return format("{ %s%s%sCORO_FINISH(coro_c); }", value, calls ? calls : "", calls ? " " : "");
}

static void replace_jump(ExprJumps *j, Node *n) {
  Emitter *e = j->e;
  char *calls = cleanup_exit(n), *jump = NULL;
  if (n->kind == ND_RETURN) {
    push_repl(e, n, return_text(e, n, calls));
    return;
  }
  if (n->kind == ND_CONTINUE && e->continue_label) {
    jump = format("goto %s;", e->continue_label);
    e->continue_used = true;
  }
  if (calls || jump)
    push_repl(
        e, n,
        format("{ %s%s%s }", calls ? calls : "", calls ? " " : "", jump ? jump : node_str(e, n)));
}

static bool expr_jumps_pre(Node *n, void *ctx) {
  ExprJumps *j = ctx;
  if (!j->inside && n != j->root && is_substatement(j->root, n))
    return false;
  j->inside += n->kind == ND_STMT_EXPR;
  if (!j->inside)
    return true;
  j->loops += is_loop(n);
  j->switches += n->kind == ND_SWITCH;
  if ((n->kind == ND_GOTO && !n->expr) || n->kind == ND_RETURN ||
      (n->kind == ND_BREAK && !j->loops && !j->switches) || (n->kind == ND_CONTINUE && !j->loops))
    replace_jump(j, n);
  return true;
}

static void expr_jumps_post(Node *n, void *ctx) {
  ExprJumps *j = ctx;
  if (j->inside) {
    j->loops -= is_loop(n);
    j->switches -= n->kind == ND_SWITCH;
  }
  j->inside -= n->kind == ND_STMT_EXPR;
}

/* The replacements for the jumps out of the statement expressions in n's
   own expressions (not in its substatements, which are lowered by themselves). */
static void replace_expr_jumps(Emitter *e, Node *n) {
  if (!e->co->saw_stmt_expr) /* (nearly every body: then no walk) */
    return;
  ExprJumps j = {e, n, 0, 0, 0};
  visit(n, expr_jumps_pre, expr_jumps_post, &j);
}

/* }================================================================== */

static void lower_stmt_kind(Emitter *e, Node *n);

/* A "fallthrough" comment before a case label tells the compiler that the
   fall into it is meant; comments are not kept otherwise, so this one is. */
static void keep_fallthrough_comment(Emitter *e, Node *label) {
  if (label->first == 0)
    return;
  const Token *prev = &e->toks->v[label->first - 1], *t = &e->toks->v[label->first];
  for (size_t i = token_end(e->src, prev), end = token_offset(e->src, t); i + 4 <= end; i++)
    if (strncasecmp(e->src->text + i, "fall", 4) == 0) {
      emit_put(e, 0, "/* fallthrough */");
      return;
    }
}

/* A statement; blocks that its `?:` awaits opened close after it. */
static void lower_stmt(Emitter *e, Node *n) {
  int open = e->open_blocks;
  lower_stmt_kind(e, n);
  close_blocks(e, open);
}

static void lower_stmt_kind(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  drop_repl(e, 0);
  replace_expr_jumps(e, n);
  switch (n->kind) {
  case ND_BLOCK:
    lower_substmt(e, line, "", n);
    return;
  case ND_DECL:
    lower_decl(e, n);
    return;
  case ND_EXPR_STMT:
    if (has_await(n->expr)) {
      char *value = lower_await_expr(e, n->expr);
      if (n->expr->kind == ND_AWAIT || (n->expr->kind == ND_EXPR && n->expr->op == OP_COND))
        return; /* `await op(...);` alone: nothing is left to do */
      if (n->expr->kind == ND_EXPR && n->expr->op == OP_COMMA)
        emit_put(e, line, "(void)%s;", value); /* the value of a comma's right side, dropped */
      else
        emit_put(e, line, "%s;", value);
      return;
    }
    emit_put(e, line, "%s", node_str(e, n));
    return;
  case ND_CONTINUE:
  case ND_GOTO:
  case ND_BREAK: {
    char *jump = node_str(e, n), *calls = cleanup_exit(n);
    if (n->kind == ND_CONTINUE && e->continue_label) {
      jump = format("goto %s;", e->continue_label);
      e->continue_used = true;
    }
    if (calls) /* one statement still: it may be the body of an if */
      emit_put(e, line, "{ %s %s }  /* cleanups: leaving their scope */", calls, jump);
    else
      emit_put(e, line, "%s", jump);
    return;
  }
  case ND_ASM_STMT:
  case ND_LABEL_DECL:
  case ND_STATIC_ASSERT:
  case ND_PRAGMA:
    emit_put(e, line, "%s", node_str(e, n));
    return;
  case ND_IF:
    lower_substmt(e, line, format("if (%s)", lower_await_expr(e, n->cond)), n->then);
    if (n->otherwise) {
      int else_line = n->otherwise->first > 0 ? e->toks->v[n->otherwise->first - 1].line : line;
      lower_substmt(e, else_line, "else", n->otherwise);
    }
    return;
  case ND_SWITCH:
    lower_substmt(e, line, format("switch (%s)", lower_await_expr(e, n->cond)), n->body);
    return;
  case ND_WHILE:
    if (has_await(n->cond)) {
      lower_awaiting_loop(e, n, n->cond, NULL, false, false);
      return;
    }
    if (n->flags & LOOP_MACRO_HEAD) /* `TAILQ_FOREACH(...)`: the macro's use is the head */
      lower_loop_body(e, line, node_str(e, n->cond), n->body);
    else
      lower_loop_body(e, line, format("while (%s)", node_str(e, n->cond)), n->body);
    return;
  case ND_DO:
    if (has_await(n->cond)) {
      lower_awaiting_loop(e, n, n->cond, NULL, true, false);
      return;
    }
    lower_loop_body(e, line, "do", n->body);
    drop_repl(e, 0); /* (the body's statements replaced their own) */
    replace_expr_jumps(e, n);
    emit_put(e, e->toks->v[n->last].line, "while (%s);", node_str(e, n->cond));
    return;
  case ND_FOR:
    if (has_await(n->cond) || has_await(n->step) || has_await(n->init)) {
      /* an init that awaits is printed before the loop (the tree stays as it is:
         the printer may run twice) */
      bool init_done = true;
      if (n->init->kind == ND_DECL && has_await(n->init))
        lower_awaiting_decl(e, n->init);
      else if (n->init->kind == ND_EXPR_STMT && has_await(n->init->expr))
        emit_put(e, line, "%s;", lower_await_expr(e, n->init->expr));
      else
        init_done = false;
      lower_awaiting_loop(e, n, n->cond, n->step, false, init_done);
      return;
    }
    lower_for(e, n);
    return;
  case ND_RETURN:
    lower_return(e, n);
    return;
  case ND_YIELD:
    lower_yield(e, n);
    return;
  case ND_LABEL:
    e->indent--;
    emit_put(e, line, "%s:", tok_text(n->tok));
    e->indent++;
    lower_stmt(e, n->body);
    return;
  case ND_CASE:
    e->indent--;
    keep_fallthrough_comment(e, n);
    if (n->high)
      emit_put(e, line, "case %s ... %s:", node_str(e, n->value), node_str(e, n->high));
    else
      emit_put(e, line, "case %s:", node_str(e, n->value));
    e->indent++;
    lower_stmt(e, n->body);
    return;
  case ND_DEFAULT:
    e->indent--;
    keep_fallthrough_comment(e, n);
    emit_put(e, line, "default:");
    e->indent++;
    lower_stmt(e, n->body);
    return;
  default:
    internal_error("unexpected statement kind %d", n->kind);
  }
}

/* }================================================================== */

/* One stackless body as lines of C (its cleanups not yet decided). */
static void lower_body(Source *src, Coroutine *co, const Options *opt) {
  Emitter e = {
      .src = src, .opt = opt, .toks = &src->original, .co = co, .indent = 1, .sink = &co->body};
  cleanup_plan(src, co);
  lower_items(&e, co->def->body);
  put_cleanups(&e, e.toks->v[co->def->body->last].line, cleanup_scope_end(co->def->body));
  cleanup_points(co);
  repl_release(&e);
}

void lower(Source *src, Coroutine *cos, const Options *opt) {
  if (opt->backend != BACKEND_STACKLESS) {
    decide_cleanups(cos, opt);
    return; /* a stackful body stays as written (emit_stackful.c) */
  }
  for (Coroutine *co = cos; co; co = co->next)
    if (co->def)
      lower_body(src, co, opt);
  decide_cleanups(cos, opt);
}

void lower_coroutine(Source *src, Coroutine *co, const Options *opt, bool any_cleanup) {
  if (co->def && opt->backend == BACKEND_STACKLESS)
    lower_body(src, co, opt);
  decide_cleanup(co, opt, any_cleanup);
}
