/* cleanup.c: locals declared with __attribute__((cleanup(fn))) in a coroutine.
 *
 * GCC and clang call fn(&x) whenever a local x so declared goes out of
 * scope: at the end of its block, and at a break, continue, goto or return
 * that leaves the block. A coroutine keeps that meaning, and adds one exit:
 * coro_free of an instance suspended inside x's scope calls fn(&x) too,
 * innermost first (docs/language.md, "Cleanup when an instance ends early").
 *
 * Stackful: the body is a plain function, so the compiler already calls
 * the cleanups at every exit of a scope; freeing a suspended instance
 * resumes it told to unwind, and each suspension of a body with cleanups
 * then returns (CORO_STACKFUL_RESUMED, emit_stackful.c), which runs them.
 *
 * Stackless: a local with a cleanup lives in the frame (live.c), where the
 * attribute means nothing (a field cannot have one, and the resume function
 * returns at every suspension, which would run it there). Its field is
 * declared without it, and the lowering calls fn at the exits of its scope
 * instead (cleanup_exit, cleanup_scope_end); the coroutine gets a function
 * coro_cleanup_NAME, at a place the runtime knows (right after the header),
 * that calls those in scope at the resume point where the instance is
 * suspended (Coroutine.cleanup_calls, which output/emit_cleanup.c prints).
 * Every one of them is in the frame, also one with no resume point in its
 * scope, so that the calls come in C's order: the compiler would run an
 * ordinary local's cleanup at the function's own exits, after the calls
 * written before them. (Only a coroutine with no suspension at all, and a
 * statement expression's local, keep theirs as C locals.)
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "stream.h"

#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * Which locals have a cleanup
 * =================================================================== */

typedef struct {
  Source *src;
  Coroutine *co;
} Note;

static bool note_pre(Node *n, void *ctx) {
  Note *k = ctx;
  if (n->kind != ND_INIT_DECL || !n->sym || n->sym->kind != SYM_OBJECT || !n->declarator)
    return true;
  const TokenList *o = &k->src->original;
  int end = declarator_end(o, n); /* `int x __attribute__((...)) = ...` */
  const char *fn = cleanup_function(o, n->declarator->first, end);
  if (!fn && n->specs)
    fn = cleanup_function(o, n->specs->first,
                          n->specs->last); /* before the type: every declarator's */
  if (fn) {
    n->sym->cleanup = fn;
    k->co->has_cleanup = true;
  }
  return true;
}

/* Does the body spell __attribute__ at all, or use a macro (which may
   stand for one)? cleanup_function reads only their tokens, so a body
   without either (nearly all) needs no walk. */
static bool body_has_attribute(const Source *src, const Coroutine *co) {
  const char *a = INTERN("__attribute__"), *b = INTERN("__attribute");
  const TokenList *o = &src->original;
  for (int i = co->def->body->first; i <= co->def->body->last && i < o->n; i++) {
    const Token *t = &o->v[i];
    if (tok_text(t) == a || tok_text(t) == b)
      return true;
    if (t->kind == TK_IDENT && !token_sym(t) && !name_keyword(tok_text(t)) &&
        macro_definition(tok_text(t))) /* (a name the body declares is no macro) */
      return true;
  }
  return false;
}

void note_cleanups(Source *src, Coroutine *co) {
  Note k = {src, co};
  if (body_has_attribute(src, co))
    visit(co->def->body, note_pre, NULL, &k);
}

/* }================================================================== */

/* {==================================================================
 * Where each framed cleanup is in scope, and where jumps go
 * =================================================================== */

typedef struct {
  Node *decl;  /* its ND_INIT_DECL */
  Node *scope; /* the block or for statement that declares it */
  int start;   /* in scope from the token after its declarator (and initializer) ... */
  int end;     /* ... to the last token of its scope */
} Span;

typedef struct {
  const Node *jump; /* a break, continue, goto or return */
  int to;           /* where it goes (a token position; INT_MAX: out of the body) */
} Exit;

static struct {
  const Coroutine *co;
  Span *spans;
  int nspans;
  Exit *exits;
  int nexits;
} plan; /* the coroutine being lowered's: cleanup_plan makes it, lower reads it */

typedef struct {
  Node **open; /* the blocks and for statements around, innermost last */
  int nopen;
  Node **loops; /* the loops and switches around, innermost last */
  int nloops;
  NodeList labels; /* ND_LABEL */
  NodeList gotos;  /* ND_GOTO */
  Source *src;
} PlanWalk;

static bool framed_cleanup(const Coroutine *co, const Sym *s) {
  return s && s->cleanup && s->kind == SYM_OBJECT && s->owner == co && s->field && !s->cached;
}

/* Where a break (or a continue) in loop or switch n goes: a place inside
   the scope of what n's own first clause declares, outside its body. */
static int jump_target(const Node *n, bool is_continue) {
  if (n->kind == ND_DO)
    return n->body->last + 1; /* the `while` after the body */
  (void)is_continue;
  return n->body->first - 1; /* the `)` before the body */
}

static void add_exit(const Node *jump, int to) {
  plan.exits = xappend(plan.exits, plan.nexits, sizeof(Exit));
  plan.exits[plan.nexits++] = (Exit){jump, to};
}

static bool plan_pre(Node *n, void *ctx) {
  PlanWalk *w = ctx;
  switch (n->kind) {
  case ND_INIT_DECL:
    if (framed_cleanup(plan.co, n->sym) && w->nopen > 0) {
      Node *scope = w->open[w->nopen - 1];
      plan.spans = xappend(plan.spans, plan.nspans, sizeof(Span));
      plan.spans[plan.nspans++] = (Span){n, scope, n->last + 1, scope->last};
    }
    break;
  case ND_BREAK:
  case ND_CONTINUE: {
    for (int i = w->nloops - 1; i >= 0; i--) {
      Node *l = w->loops[i];
      if (n->kind == ND_CONTINUE && l->kind == ND_SWITCH)
        continue;
      add_exit(n, jump_target(l, n->kind == ND_CONTINUE));
      break;
    }
    break;
  }
  case ND_RETURN:
    add_exit(n, 0x7fffffff);
    break;
  case ND_LABEL:
    list_push(&w->labels, n);
    break;
  case ND_GOTO:
    list_push(&w->gotos, n);
    break;
  default:
    break;
  }
  if (n->kind == ND_BLOCK || n->kind == ND_FOR) {
    w->open = xappend(w->open, w->nopen, sizeof(Node *));
    w->open[w->nopen++] = n;
  }
  if (n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR || n->kind == ND_SWITCH) {
    w->loops = xappend(w->loops, w->nloops, sizeof(Node *));
    w->loops[w->nloops++] = n;
  }
  return true; /* (a statement expression's jumps may leave it too: lower.c, replace_expr_jumps) */
}

static void plan_post(Node *n, void *ctx) {
  PlanWalk *w = ctx;
  if (n->kind == ND_BLOCK || n->kind == ND_FOR)
    w->nopen--;
  if (n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR || n->kind == ND_SWITCH)
    w->nloops--;
}

static bool in_span(const Span *s, int at) {
  return s->start <= at && at <= s->end;
}

void cleanup_plan(Source *src, Coroutine *co) {
  xfree(plan.spans);
  xfree(plan.exits);
  plan.spans = NULL;
  plan.exits = NULL;
  plan.nspans = plan.nexits = 0;
  plan.co = co;
  if (!co->has_cleanup)
    return;
  PlanWalk w = {.src = src};
  visit(co->def->body, plan_pre, plan_post, &w);
  for (int i = 0; i < w.gotos.n; i++) {
    Node *g = w.gotos.v[i];
    if (g->expr) { /* goto *p: it may go anywhere */
      for (int k = 0; k < plan.nspans; k++)
        if (in_span(&plan.spans[k], g->first))
          error_tok(
              &src->original.v[g->first],
              "a computed 'goto' in the scope of '%s', which has a cleanup and is kept across "
              "a suspension: coroc cannot tell which cleanups it must run",
              plan.spans[k].decl->sym->name);
      continue;
    }
    const char *name = tok_text(&src->original.v[g->first + 1]); /* goto NAME; */
    for (int k = 0; k < w.labels.n; k++)
      if (!strcmp(tok_text(w.labels.v[k]->tok), name)) {
        add_exit(g, w.labels.v[k]->first);
        break;
      }
  }
  for (int k = 0; k < plan.nspans; k++)
    list_push(&co->cleanups, plan.spans[k].decl);
  xfree(w.open);
  xfree(w.loops);
  xfree(w.labels.v);
  xfree(w.gotos.v);
}

/* The calls of the cleanups of spans that `keep` selects, innermost (last
   declared) first: "fn(&coro_f->x); fn2(&coro_f->y);", or NULL. */
static char *calls(bool (*keep)(const Span *s, int a, int b, const void *n), int a, int b,
                   const void *n) {
  char *text = NULL;
  for (int k = plan.nspans - 1; k >= 0; k--) {
    const Span *s = &plan.spans[k];
    if (!keep(s, a, b, n))
      continue;
    char *one = format("%s(&coro_f->%s);", s->decl->sym->cleanup, s->decl->sym->field);
    text = text ? format("%s %s", text, one) : one;
  }
  return text;
}

static bool leaves(const Span *s, int from, int to, const void *n) {
  (void)n;
  return in_span(s, from) && !in_span(s, to);
}

static bool ends_with(const Span *s, int a, int b, const void *n) {
  (void)a, (void)b;
  return s->scope == n;
}

static bool in_scope_at(const Span *s, int at, int b, const void *n) {
  (void)b, (void)n;
  return in_span(s, at);
}

char *cleanup_exit(const Node *jump) {
  if (plan.nspans == 0)
    return NULL;
  for (int i = 0; i < plan.nexits; i++)
    if (plan.exits[i].jump == jump)
      return calls(leaves, jump->first, plan.exits[i].to, NULL);
  return NULL;
}

/* A block whose last statement jumps cannot reach its end: nothing is
   written there (a call after a `break` would read to the compiler as a
   case that falls through). */
static bool ends_in_jump(const Node *block) {
  if (block->kind != ND_BLOCK || block->kids.n == 0)
    return false;
  const Node *last = block->kids.v[block->kids.n - 1];
  while (last->kind == ND_LABEL || last->kind == ND_CASE || last->kind == ND_DEFAULT)
    last = last->body;
  return last->kind == ND_BREAK || last->kind == ND_CONTINUE || last->kind == ND_GOTO ||
         last->kind == ND_RETURN;
}

char *cleanup_scope_end(const Node *scope) {
  if (plan.nspans == 0 || ends_in_jump(scope))
    return NULL;
  return calls(ends_with, 0, 0, scope);
}

char *cleanup_at(int tok) {
  if (plan.nspans == 0)
    return NULL;
  return calls(in_scope_at, tok, 0, NULL);
}

/* }================================================================== */

/* {==================================================================
 * Which instances run cleanups when freed (CORO_CLEANUP)
 * =================================================================== */

/* Stackless: its own framed cleanups, or a child inside its frame that
   has some (a child is defined above its parent, so decided first).
   Stackful: any coroutine of the file with a cleanup makes every body that
   has one, and every body that awaits a child on its stack or is awaited
   so, unwind when freed: the child's suspension is the instance's. */
void decide_cleanup(Coroutine *co, const Options *opt, bool any) {
  if (!co->def)
    return;
  if (opt->backend == BACKEND_STACKFUL) {
    co->runs_cleanups = any && (co->has_cleanup || co->awaited_inline || has_inline_children(co));
    return;
  }
  co->runs_cleanups = false;
  for (int k = 1; co->cleanup_calls && k <= co->nresume; k++)
    co->runs_cleanups |= co->cleanup_calls[k] != NULL;
  for (int i = 0; i < co->awaits.n; i++)
    if (co->awaits.v[i]->inline_child && co->awaits.v[i]->inline_child->runs_cleanups)
      co->runs_cleanups = true;
}

void decide_cleanups(Coroutine *cos, const Options *opt) {
  bool any = false;
  for (Coroutine *co = cos; co; co = co->next)
    any |= co->def && co->has_cleanup;
  for (Coroutine *co = cos; co; co = co->next)
    decide_cleanup(co, opt, any);
}

/* The resume point's awaits and yields, by number. */
static bool points_pre(Node *n, void *ctx) {
  if ((n->kind == ND_YIELD || n->kind == ND_AWAIT) && n->resume_point > 0)
    ((Node **)ctx)[n->resume_point] = n;
  return true;
}

void cleanup_points(Coroutine *co) {
  if (plan.nspans == 0 && !has_inline_children(co))
    return;
  Node **point = xcalloc(co->nresume + 1, sizeof(Node *));
  visit(co->def->body, points_pre, NULL, point);
  co->cleanup_calls = xcalloc(co->nresume + 1, sizeof(char *));
  co->cleanup_points = point;
  for (int k = 1; k <= co->nresume; k++)
    if (point[k])
      co->cleanup_calls[k] = cleanup_at(point[k]->first);
}

/* }================================================================== */

/* The plan outlives cleanup_plan (lower reads it), so the last coroutine's
   is still here at the end of the run: it goes with the run. Left for the
   next run, its lists would be freed twice (memory_release takes every block
   back, then the next cleanup_plan frees them again). */
void cleanup_release(void) {
  xfree(plan.spans);
  xfree(plan.exits);
  memset(&plan, 0, sizeof plan);
}
