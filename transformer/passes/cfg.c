/* cfg.c: the control-flow graph of a coroutine's body, for liveness (live.c).
 *
 * A node per expression evaluation, with the locals it reads (use) and the
 * one it sets whole (def: `x = ...;`, an initializer), and a node per resume
 * point (`x = yield v;` is v's evaluation, the resume point, then a node
 * that sets x: x is received after the resume, never read). An expression
 * with an await in it is read as a whole both before and after its resume
 * points (the lowering evaluates parts of it on either side), which is
 * conservative. Statements are built back to front: each is given the node
 * that runs after it, and returns its own first node; break, continue,
 * goto and the labels of a switch are edges to the nodes they go to.
 */
#include "live.h"

#include <stdlib.h>
#include <string.h>

static int new_cfg_node(Live *l) {
  l->nodes = xappend(l->nodes, l->nnodes, sizeof(CfgNode));
  l->nodes[l->nnodes] = (CfgNode){.def = -1};
  return l->nnodes++;
}

static void add_succ(Live *l, int from, int to) {
  CfgNode *n = &l->nodes[from];
  n->succ = xappend(n->succ, n->nsucc, sizeof(int));
  n->succ[n->nsucc++] = to;
}

static int label_node(Live *l, const char *name) {
  for (int i = 0; i < l->nlabels; i++)
    if (strcmp(l->labels[i].name, name) == 0)
      return l->labels[i].node;
  l->labels = xappend(l->labels, l->nlabels, sizeof(Label));
  l->labels[l->nlabels] = (Label){name, new_cfg_node(l)};
  return l->labels[l->nlabels++].node;
}

typedef struct {
  Live *l;
  int node;
  const Node *skip;    /* the local set by the node: not a read */
  const int *only_set; /* the locals the expression only sets (awaited_into), -1 after them */
} UseWalk;

static bool only_set(const int *list, int v) {
  for (; list && *list >= 0; list++)
    if (*list == v)
      return true;
  return false;
}

/* (An expression made by a machine can name tens of thousands of locals:
   xappend's doubling keeps that linear, tests/test_scaling.py.) */
static void add_use(Live *l, int node, int v) {
  CfgNode *c = &l->nodes[node];
  c->use = xappend(c->use, c->nuse, sizeof(int));
  c->use[c->nuse++] = v;
}

static bool use_pre(Node *n, void *ctx);

/* `a[i] = v` of an array a, `s.x.y = v`: a part of the local is written,
   nothing of it is read (nor is it set whole): only the index and the value
   are reads. Not `p[i] = v` of a pointer p, which reads p, nor `a[i][j] = v`
   or `s.x[i] = v`, where what is indexed may be a pointer kept in it. */
static bool partial_write(UseWalk *w, Node *n) {
  if (n->kind != ND_EXPR || n->op != OP_ASSIGN)
    return false;
  Node *lv = strip_parens(n->lhs);
  int v = lv && lv->kind == ND_EXPR && (lv->op == OP_INDEX || lv->op == OP_MEMBER)
              ? lvalue_var(w->l, lv)
              : -1;
  if (v < 0)
    return false;
  if (lv->op == OP_INDEX && !(w->l->vars[v]->is_array && var_of(strip_parens(lv->lhs)) == v))
    return false;
  for (Node *m = lv; m->kind == ND_EXPR; m = strip_parens(m->lhs))
    if (m->op == OP_INDEX && m != lv)
      return false;
  for (; lv->kind == ND_EXPR; lv = strip_parens(lv->lhs))
    if (lv->op == OP_INDEX)
      visit(lv->rhs, use_pre, NULL, w);
  visit(n->rhs, use_pre, NULL, w);
  return true;
}

static bool use_pre(Node *n, void *ctx) {
  UseWalk *w = ctx;
  if (n == w->skip || partial_write(w, n))
    return false;
  int v = var_of(n);
  if (v >= 0 && !only_set(w->only_set, v))
    add_use(w->l, w->node, v);
  return true;
}

/* `x = VALUE` as a whole expression: x is set whole. */
static Node *assigned_whole(Node *e) {
  e = strip_parens(e);
  if (!e || e->kind != ND_EXPR || e->op != OP_ASSIGN)
    return NULL;
  Node *lhs = strip_parens(e->lhs);
  return var_of(lhs) >= 0 ? lhs : NULL;
}

static int resume_chain(Live *l, Node *e, int head);

/* `(n = await coro_read(...)) > 0`: a local set by an await's value and
   named nowhere else in the expression is not read by it; it is set, after
   the resume points. (Read whole, as the rest is, it would seem live
   across the await before it was ever set.) Only where that is sure: the
   expression's one await (with two, `(a = await f()) && (b = await g())`,
   a is set between them and must live across the second), and an
   assignment that C always evaluates (not on the right of `&&` or `||`,
   nor in an arm of `?:`, where the old value stays when it is skipped).
   The list ends with -1. */
typedef struct {
  int *v;     /* the locals set by `= EXPR` where EXPR awaits */
  int *count; /* [i]: how often the expression names v[i] */
  int n;
  int awaits; /* the awaits of the expression */
} SetWalk;

static bool count_awaits_pre(Node *n, void *ctx) {
  ((SetWalk *)ctx)->awaits += n->kind == ND_AWAIT;
  return true;
}

/* The assignments of e that C always evaluates (`always`: e itself is). */
static void find_sets(SetWalk *w, Node *e, bool always) {
  if (!e || e->kind != ND_EXPR)
    return;
  if (always && e->op == OP_ASSIGN && has_await(e->rhs)) {
    int t = var_of(strip_parens(e->lhs));
    if (t >= 0) {
      w->v = xappend(w->v, w->n + 1, sizeof(int)); /* (and the -1 after it) */
      w->v[w->n++] = t;
    }
  }
  bool first_only = e->op == OP_AND || e->op == OP_OR || e->op == OP_COND;
  Node *kid;
  for (int i = 0; (kid = node_child(e, &i));)
    find_sets(w, kid, always && (!first_only || kid == e->lhs));
}

static bool count_pre(Node *n, void *ctx) {
  SetWalk *w = ctx;
  int v = var_of(n);
  for (int i = 0; v >= 0 && i < w->n; i++)
    w->count[i] += w->v[i] == v;
  return true;
}

static int *awaited_into(Node *e) {
  SetWalk w = {0};
  visit(e, count_awaits_pre, NULL, &w);
  if (w.awaits != 1)
    return NULL;
  find_sets(&w, e, true);
  if (!w.n)
    return NULL;
  w.count = xcalloc(w.n, sizeof(int));
  visit(e, count_pre, NULL, &w);
  int kept = 0;
  for (int i = 0; i < w.n; i++)
    if (w.count[i] == 1)
      w.v[kept++] = w.v[i];
  w.v[kept] = -1;
  xfree(w.count);
  return w.v;
}

/* A statement expression may leave the expression it stands in: `({ if
   (done) goto out; 0; })`, a `break` or `continue` of the loop around, a
   `return`. Each such jump is an edge from the expression's node to where
   it goes; and the expression may then not set what it assigns. */
typedef struct {
  Live *l;
  int from;     /* the expression's node */
  int inside;   /* statement expressions around */
  int loops;    /* loops around, inside them */
  int switches; /* switches around, inside them */
  bool jumps;   /* found one */
} JumpWalk;

static void jump_to(JumpWalk *j, int target) {
  add_succ(j->l, j->from, target);
  j->jumps = true;
}

static bool jump_pre(Node *n, void *ctx) {
  JumpWalk *j = ctx;
  j->inside += n->kind == ND_STMT_EXPR;
  if (!j->inside)
    return true;
  j->loops += n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR;
  j->switches += n->kind == ND_SWITCH;
  if (n->kind == ND_GOTO && n->expr) {
    j->l->nodes[j->from].computed_goto = j->jumps = true;
  } else if (n->kind == ND_GOTO) {
    jump_to(j, label_node(j->l, tok_text(&n->tok[1])));
  } else if (n->kind == ND_RETURN) {
    jump_to(j, j->l->exit);
  } else if (n->kind == ND_BREAK && !j->loops && !j->switches) {
    jump_to(j, j->l->brk >= 0 ? j->l->brk : j->l->exit);
  } else if (n->kind == ND_CONTINUE && !j->loops) {
    jump_to(j, j->l->cont >= 0 ? j->l->cont : j->l->exit);
  }
  return true;
}

static void jump_post(Node *n, void *ctx) {
  JumpWalk *j = ctx;
  if (j->inside) {
    j->loops -= n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR;
    j->switches -= n->kind == ND_SWITCH;
  }
  j->inside -= n->kind == ND_STMT_EXPR;
}

/* The jumps out of e's statement expressions, from node `from`: are there
   any? (None in a body whose parse met no statement expression.) */
static bool jumps_out(Live *l, Node *e, int from) {
  if (!l->co->saw_stmt_expr)
    return false;
  JumpWalk j = {l, from, 0, 0, 0, false};
  visit(e, jump_pre, jump_post, &j);
  return j.jumps;
}

/* An evaluation of `e` (which may be NULL) that sets `def` (a node naming
   the local, or NULL) after it, `set_by` being the node of e that names it
   as the left of `=` (not a read): its first graph node, and in *tail its
   last, whose successors the caller adds. */
static int eval(Live *l, Node *e, const Node *def, const Node *set_by, int *tail) {
  int n = new_cfg_node(l);
  bool awaits = e && has_await(e);
  int *set_only = awaits ? awaited_into(e) : NULL;
  UseWalk w = {l, n, set_by, set_only}; /* `x = ...`: x is not read */
  if (e)
    visit(e, use_pre, NULL, &w);
  bool jumps = e && jumps_out(l, e, n);
  if (!awaits) {
    l->nodes[n].def = def && !jumps ? var_of(def) : -1;
    *tail = n;
    return n;
  }
  /* read whole before the resume points and again after them */
  int last = resume_chain(l, e, n);
  int after = new_cfg_node(l);
  UseWalk w2 = {l, after, w.skip, set_only};
  visit(e, use_pre, NULL, &w2);
  l->nodes[after].def = def && !jumps_out(l, e, after) ? var_of(def) : -1;
  add_succ(l, last, after);
  for (int i = 0; set_only && set_only[i] >= 0; i++) { /* then set, whole */
    int set = new_cfg_node(l);
    l->nodes[set].def = set_only[i];
    add_succ(l, after, set);
    after = set;
  }
  xfree(set_only);
  *tail = after;
  return n;
}

typedef struct {
  Live *l;
  int last;
} ChainWalk;

static bool chain_pre(Node *n, void *ctx) {
  ChainWalk *c = ctx;
  if (n->kind == ND_AWAIT) {
    int r = new_cfg_node(c->l);
    c->l->nodes[r].resume_point = n->resume_point;
    c->l->nodes[r].tok = n->first;
    add_succ(c->l, c->last, r);
    c->last = r;
  }
  return true;
}

/* A node for each await of e, in order after `head`: the last. */
static int resume_chain(Live *l, Node *e, int head) {
  ChainWalk c = {l, head};
  visit(e, chain_pre, NULL, &c);
  return c.last;
}

static int build(Live *l, Node *s, int next);

/* The nodes of a statement list, in order, ending at `next`. */
static int build_items(Live *l, Node *block, int next) {
  for (int i = block->kids.n - 1; i >= 0; i--)
    next = build(l, block->kids.v[i], next);
  return next;
}

/* An evaluation followed by `next`. */
static int eval_then(Live *l, Node *e, const Node *def, const Node *set_by, int next) {
  int tail;
  int head = eval(l, e, def, set_by, &tail);
  add_succ(l, tail, next);
  return head;
}

static int build_decl(Live *l, Node *decl, int next) {
  for (int i = decl->kids.n - 1; i >= 0; i--) {
    Node *id = decl->kids.v[i];
    if (!id->init)
      continue;
    bool tracked = id->sym && id->sym->live_var;
    Node name = {.kind = ND_IDENT, .sym = id->sym, .first = id->first, .last = id->first};
    next = eval_then(l, id->init, tracked ? &name : NULL, NULL, next);
  }
  return next;
}

static int build_loop_body(Live *l, Node *body, int next, int brk, int cont) {
  int saved_brk = l->brk, saved_cont = l->cont;
  l->brk = brk, l->cont = cont;
  int entry = build(l, body, next);
  l->brk = saved_brk, l->cont = saved_cont;
  return entry;
}

static int build(Live *l, Node *s, int next) {
  int tail, head;
  switch ((NodeKind)s->kind) {
  case ND_BLOCK:
    return build_items(l, s, next);
  case ND_DECL:
    return build_decl(l, s, next);
  case ND_EXPR_STMT: {
    Node *lhs = assigned_whole(s->expr);
    return eval_then(l, s->expr, lhs, lhs, next);
  }
  case ND_IF: {
    head = eval(l, s->cond, NULL, NULL, &tail);
    add_succ(l, tail, build(l, s->then, next));
    add_succ(l, tail, s->otherwise ? build(l, s->otherwise, next) : next);
    return head;
  }
  case ND_WHILE: {
    head = eval(l, s->cond, NULL, NULL, &tail);
    add_succ(l, tail, build_loop_body(l, s->body, head, next, head));
    add_succ(l, tail, next);
    return head;
  }
  case ND_DO: {
    head = eval(l, s->cond, NULL, NULL, &tail);
    int body = build_loop_body(l, s->body, head, next, head);
    add_succ(l, tail, body);
    add_succ(l, tail, next);
    return body;
  }
  case ND_FOR: {
    int cond = eval(l, s->cond, NULL, NULL, &tail);
    int step = eval_then(l, s->step, NULL, NULL, cond);
    add_succ(l, tail, build_loop_body(l, s->body, step, next, step));
    if (s->cond)
      add_succ(l, tail, next);
    return s->init->kind == ND_DECL ? build_decl(l, s->init, cond) : build(l, s->init, cond);
  }
  case ND_SWITCH: {
    head = eval(l, s->cond, NULL, NULL, &tail);
    SwitchCtx sw = {0}, *saved = l->sw;
    l->sw = &sw;
    int saved_brk = l->brk;
    l->brk = next;
    build(l, s->body, next);
    l->brk = saved_brk;
    l->sw = saved;
    for (int i = 0; i < sw.ncases; i++)
      add_succ(l, tail, sw.cases[i]);
    if (!sw.has_default)
      add_succ(l, tail, next);
    xfree(sw.cases);
    return head;
  }
  case ND_CASE:
  case ND_DEFAULT: {
    int entry = new_cfg_node(l);
    add_succ(l, entry, build(l, s->body, next));
    if (l->sw) {
      l->sw->cases = xappend(l->sw->cases, l->sw->ncases, sizeof(int));
      l->sw->cases[l->sw->ncases++] = entry;
      l->sw->has_default |= s->kind == ND_DEFAULT;
    }
    return entry;
  }
  case ND_LABEL: {
    int entry = label_node(l, tok_text(s->tok));
    add_succ(l, entry, build(l, s->body, next));
    return entry;
  }
  case ND_GOTO: {
    if (s->expr) { /* goto *p: any label whose address was taken */
      head = eval(l, s->expr, NULL, NULL, &tail);
      l->nodes[tail].computed_goto = true;
      return head;
    }
    int g = new_cfg_node(l);
    add_succ(l, g, label_node(l, tok_text(&s->tok[1])));
    return g;
  }
  case ND_CONTINUE:
  case ND_BREAK: {
    int target = s->kind == ND_BREAK ? l->brk : l->cont;
    int n = new_cfg_node(l);
    add_succ(l, n, target >= 0 ? target : next);
    return n;
  }
  case ND_RETURN:
    return eval_then(l, s->expr, NULL, NULL, l->exit);
  case ND_YIELD: {
    int r = new_cfg_node(l);
    l->nodes[r].resume_point = s->resume_point;
    l->nodes[r].tok = s->first;
    if (s->target) { /* `x = yield v;`: x is set after the resume point, not read */
      Node *t = strip_parens(s->target);
      bool whole = var_of(t) >= 0;
      add_succ(l, r, eval_then(l, s->target, whole ? t : NULL, whole ? t : NULL, next));
    } else {
      add_succ(l, r, next);
    }
    return s->expr ? eval_then(l, s->expr, NULL, NULL, r) : r;
  }
  case ND_ASM_STMT: { /* its operands' names as a call's arguments (build.c, asm_node) */
    if (!s->expr)
      return next;
    int tail, head = eval(l, s->expr, NULL, NULL, &tail);
    if (s->flags & ASM_GOTO) /* to any of its labels: to any label, as a goto *p */
      l->nodes[tail].computed_goto = true;
    add_succ(l, tail, next);
    return head;
  }
  case ND_LABEL_DECL:
  case ND_STATIC_ASSERT:
  case ND_PRAGMA:
  case ND_DIRECTIVE:
    return next;
  default:
    internal_error("unexpected statement kind %d", s->kind);
  }
}

static void add_computed_gotos(Live *l) {
  for (int n = 0; n < l->nnodes; n++)
    if (l->nodes[n].computed_goto)
      for (int i = 0; i < l->nlabels; i++)
        add_succ(l, n, l->labels[i].node);
}

void build_cfg(Live *l) {
  l->exit = new_cfg_node(l);
  l->entry = build(l, l->co->def->body, l->exit);
  add_computed_gotos(l);
}
