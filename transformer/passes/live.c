/* live.c: which locals of a stackless coroutine must live in its frame.
 *
 * A local needs a field of the frame only when a value of it must survive
 * a suspension: when, at some resume point, the value it had before may be
 * read afterwards (it is live there), or when its address is taken and a
 * resume point stands in its scope (a pointer to it may be kept across the
 * suspension and used after). Every other local stays an ordinary C local
 * of the resume function, declared where the user declared it: the switch
 * that enters the body at a resume point jumps past its declaration, which
 * C allows, and what the local held before does not matter there.
 *
 *   coroutine int gen(void) {
 *     char big[256];  fill(big);      big: address taken, but no resume
 *     int sum = total(big);                point in its scope? It has one:
 *     for (int i = 0; i < 3; i++)          big is in the frame.
 *       yield i + sum;                i and sum: live across the yield
 *   }
 *
 * The analysis is the textbook one, on a control-flow graph of the body
 * made here: a node per expression evaluation, with the locals it reads
 * (use) and the ones it sets whole (def: `x = ...;`, an initializer), and a
 * node per resume point (`x = yield v;` is v's evaluation, the resume point,
 * then a node that sets x: x is received after the resume, never read). An
 * expression with an await in it is read as a whole both before and after
 * its resume points (the lowering evaluates parts of it on either side),
 * which is conservative. (A local read before
 * it is ever set has no value to keep: as in C, and as in the stackful
 * backend, it is indeterminate.) Then, backwards to a fixed point:
 *
 *     in(n) = use(n) + (out(n) - def(n)),   out(n) = the union of in(s), s after n
 *
 * and a local in in(r) of a resume point r is live across r. All the
 * declarators of one declaration go together (into the frame if one must),
 * and so do the locals of a declaration whose initializer awaits in a for
 * loop's first clause. The parameters are always in the frame: the creation
 * function stores them there before the body first runs.
 *
 * A body too large for the sets (nodes times locals past LIVE_MAX_BITS)
 * keeps every local in the frame, and --stats says so. --hoist-all asks for
 * every local in the frame (the lowering of tutorial chapters 3 and 4).
 */
#include "coroc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE_MAX_BITS = 1 << 27 };  /* 16 MiB of live sets at most */

typedef struct {
  int first, last;  /* token indices */
} Range;

/* A node of the graph. */
typedef struct {
  int *succ;       /* the nodes that may run next */
  int nsucc, capsucc;
  int *use, nuse;  /* the locals it reads (indices) */
  int def;         /* the local it sets whole, or -1 */
  int resume_point;/* > 0: a resume point */
  int tok;         /* a resume point's first token (its place, for scopes) */
  bool computed_goto; /* goto *p: it may go to any label */
} CfgNode;

typedef struct {
  const char *name;
  int node;
} Label;

typedef struct {
  int *cases, ncases;   /* the nodes of its case and default labels */
  bool has_default;
} SwitchCtx;

typedef struct {
  Coroutine *co;
  Source *src;
  Sym **vars;          /* the locals that may need the frame, by index */
  int nvars;
  int *group;          /* [var]: the index of the first local of its declaration */
  CfgNode *nodes;
  int nnodes, capnodes;
  Label *labels;
  int nlabels;
  int brk, cont;       /* where break and continue go (-1: nowhere) */
  SwitchCtx *sw;       /* the innermost switch */
  int exit;            /* the end of the body */
  bool *pinned;        /* [var]: it may not leave memory (its address, a macro, a moved declaration) */
  const Range *range;  /* [var]: its scope (walk_scopes) */
  Node **decls;        /* [var]: its ND_INIT_DECL */
  const char **late_why; /* [var]: a reason to keep it, given after liveness's (frame_address_taken) */
} Live;

/* {==================================================================
 * The locals, and what makes one stay in the frame whatever its liveness
 * =================================================================== */

static int var_of(const Node *n) {
  if (!n || n->kind != ND_IDENT || !n->sym)
    return -1;
  return n->sym->live_var - 1;
}

/* A local needs the frame for its own reasons: record the first. */
static void must_frame(Live *l, int v, const char *why) {
  if (v >= 0 && !l->vars[v]->frame_reason)
    l->vars[v]->frame_reason = why;
}

static const char *where(Live *l, const Node *n) {
  return format("%s:%d", l->src->name, l->src->original.v[n->first].line);
}

static Node *strip_parens(Node *n) {
  while (n && n->kind == ND_EXPR && n->op == OP_PAREN)
    n = n->operand;
  return n;
}

static bool is_dot(const Live *l, const Node *n) {
  return n->kind == ND_EXPR && n->op == OP_MEMBER && l->src->original.v[n->lhs->last + 1].code == '.';
}

/* A path into an object: `s.x`, `a[i]`, `s.t[2].u`, through parentheses. */
static bool is_path(const Live *l, const Node *n) {
  return n && n->kind == ND_EXPR && (n->op == OP_INDEX || is_dot(l, n));
}

/* The local whose storage an lvalue names, through `.` and the `[]` of an
   array (`&p.x`, `&a[2]`), or -1. (`&p[2]` of a pointer p names p too:
   that only keeps p in the frame when it need not be.) */
static int lvalue_var(const Live *l, Node *n) {
  for (n = strip_parens(n); is_path(l, n); n = strip_parens(n->lhs))
    ;
  return var_of(n);
}

/* How many of a local's outer derivations are arrays (`int g[2][3]`: 2); a
   type that is an array all the way down to a typedef name counts as many
   as it could need. */
static int array_dims(const Node *decl) {
  const Node *d = decl->declarator;
  int dims = 0;
  while (d && dims < d->kids.n && d->kids.v[dims]->kind == ND_ARRAY)
    dims++;
  if ((!d || dims == d->kids.n) && is_array_type(decl->specs, NULL, 0))
    return INT32_MAX;
  return dims;
}

/* May the value of a path into local v be an array, which decays to a
   pointer into v's storage? It is followed from v outwards, counting the
   array dimensions left: `g[1]` of `int g[2][3]` may, `g[1][2]` may not;
   `s.t` may when member t is an array (or members.c cannot say), `s.t[1]`
   of `char t[8]` may not; a member of a member is not looked up. A path
   through a pointer (`p[1]` of a pointer p, `s.p[1]`) points into what
   the pointer points at, not into v. */
static bool path_may_decay(const Live *l, Node *path, int v) {
  Node *ops[64];
  int nops = 0;
  for (Node *n = strip_parens(path); is_path(l, n); n = strip_parens(n->lhs))
    if (nops == 64)
      return true;
    else
      ops[nops++] = n;
  const Node *decl = l->decls[v];
  int left = array_dims(decl);  /* the array dimensions not yet indexed */
  const Node *specs = decl->specs;  /* the struct whose member `.` names, if known */
  if (decl->declarator && decl->declarator->kids.n > left)
    specs = NULL;  /* elements are pointers (or functions) */
  while (nops > 0) {  /* from the local outwards */
    Node *op = ops[--nops];
    if (op->op == OP_INDEX && left == 0)
      return false;  /* through a pointer: into what it points at */
    if (op->op == OP_INDEX) {
      left--;
      continue;
    }
    if (left > 0 || !specs)
      return true;
    left = member_dims(l->src, specs, l->src->original.v[op->last].text);
    if (left < 0)
      return true;
    specs = NULL;  /* (a member's own members: not looked up) */
  }
  return left > 0;
}

/* The locals whose address is taken (they need the frame if a resume
   point lies in their lifetime: scope_pre). C takes an address without `&`
   wherever an array decays: a local array named as a value, and a path
   into a local whose value may be an array (`yield s.t;`, `int *row =
   g[1];`). */
typedef struct {
  Live *l;
  const char **why;  /* [var]: where its address is taken, or NULL */
  bool *decay;       /* [var]: only by a part that may be an array (a weaker reason, said last) */
} AddrWalk;

static bool address_pre(Node *n, void *ctx);

static void address_taken(AddrWalk *a, int v, const char *what, const Node *at) {
  if (v >= 0 && (!a->why[v] || a->decay[v])) {
    a->why[v] = format("%s at %s", what, where(a->l, at));
    a->decay[v] = false;
  }
}

/* A path's index expressions, without the path itself. */
static void walk_indexes(AddrWalk *a, Node *path) {
  for (Node *n = strip_parens(path); is_path(a->l, n); n = strip_parens(n->lhs))
    if (n->op == OP_INDEX)
      visit(n->rhs, address_pre, NULL, a);
}

/* An operand that C writes but never decays: the left of `=` and `op=`,
   the operand of `++` and `--` (an array is none of these). */
static Node *written_operand(const Live *l, Node *n) {
  if (n->kind != ND_EXPR)
    return NULL;
  if (n->op == OP_ASSIGN || n->op == OP_ASSIGN_OP || n->op == OP_POSTFIX)
    return n->lhs;
  const char *op = l->src->original.v[n->first].text;
  if (n->op == OP_UNARY && (!strcmp(op, "++") || !strcmp(op, "--")))
    return n->operand;
  return NULL;
}

static bool address_pre(Node *n, void *ctx) {
  AddrWalk *a = ctx;
  Live *l = a->l;
  if (n->kind == ND_SIZEOF)
    return false;  /* not evaluated */
  if (n->kind == ND_EXPR && n->op == OP_ADDRESS)
    address_taken(a, lvalue_var(l, n->operand), "address taken", n);
  Node *written = written_operand(l, n);
  if (written && is_path(l, strip_parens(written))) {
    walk_indexes(a, written);
    Node *kid;
    for (int i = 0; (kid = node_child(n, &i));)
      if (kid != written)
        visit(kid, address_pre, NULL, ctx);
    return false;
  }
  if (is_path(l, strip_parens(n))) {
    int v = lvalue_var(l, n);
    if (v >= 0) {
      if (path_may_decay(l, n, v) && !a->why[v]) {
        a->why[v] = format("a part of it that may be an array used as a pointer at %s", where(l, n));
        a->decay[v] = true;
      }
      walk_indexes(a, n);
      return false;
    }
  }
  int v = var_of(n);
  if (v >= 0 && l->vars[v]->is_array)
    address_taken(a, v, "an array used as a pointer", n);
  return true;
}

/* The scopes of the body (its blocks and for statements, numbered as the
   walk meets them) and, for each local, the one that declares it and where
   its own scope ends: from its declaration to the end of that block. The
   resume points are noted too, in source order, so that a local's scope
   can be looked up among them. */

typedef struct {
  int *resumes;     /* the first tokens of the resume points, in order */
  int nresumes;
  int *labels;      /* the tokens of the labels, in order */
  int nlabels;
  int *open;        /* the scopes around, innermost last */
  int nopen, capopen;
  Node **scope;     /* [scope]: its node */
  int *parent;      /* [scope]: the scope around it, or -1 */
  int nscopes, capscopes;
  Range *range;     /* [var]: its scope */
  int *home;        /* [var]: the scope that declares it */
  SymList *names;   /* every name the body declares (the same walk: see choose_cached) */
} ScopeWalk;

static void name_declared(Node *n, SymList *names);

static bool scope_pre(Node *n, void *ctx) {
  ScopeWalk *w = ctx;
  name_declared(n, w->names);
  if (n->kind == ND_YIELD || n->kind == ND_AWAIT) {
    w->resumes = xrealloc(w->resumes, sizeof(int) * (w->nresumes + 1));
    w->resumes[w->nresumes++] = n->first;
  }
  if (n->kind == ND_LABEL) {
    w->labels = xrealloc(w->labels, sizeof(int) * (w->nlabels + 1));
    w->labels[w->nlabels++] = n->first;
  }
  if (n->kind == ND_INIT_DECL && n->sym && n->sym->live_var && w->nopen > 0) {
    int v = n->sym->live_var - 1, in = w->open[w->nopen - 1];
    w->range[v] = (Range){n->first, w->scope[in]->last};
    w->home[v] = in;
  }
  if (n->kind == ND_BLOCK || n->kind == ND_FOR) {
    if (w->nscopes == w->capscopes) {
      w->capscopes = w->capscopes ? 2 * w->capscopes : 16;
      w->scope = xrealloc(w->scope, sizeof(Node *) * w->capscopes);
      w->parent = xrealloc(w->parent, sizeof(int) * w->capscopes);
    }
    w->scope[w->nscopes] = n;
    w->parent[w->nscopes] = w->nopen ? w->open[w->nopen - 1] : -1;
    if (w->nopen == w->capopen)
      w->open = xrealloc(w->open, sizeof(int) * (w->capopen = w->capopen ? 2 * w->capopen : 16));
    w->open[w->nopen++] = w->nscopes++;
  }
  return true;
}

static void scope_post(Node *n, void *ctx) {
  ScopeWalk *w = ctx;
  if (n->kind == ND_BLOCK || n->kind == ND_FOR)
    w->nopen--;
}

/* Does a token of the sorted list v lie in r? */
static bool any_in(const int *v, int n, Range r) {
  int lo = 0, hi = n;  /* the first at or after r.first */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (v[mid] < r.first)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo] <= r.last;
}

/* A local lives from the entry to its block to the block's end, also
   before its declaration (C11 6.2.4p6). Once its address is taken, the
   only way back to a resume point of its block that stands before its
   declaration, without leaving the block, is a jump to a label there:
   with one, the whole block counts; without, from the declaration on. */
static Range lifetime(const ScopeWalk *w, int v) {
  Range name = w->range[v], block = {w->scope[w->home[v]]->first, name.first - 1};
  if (any_in(w->labels, w->nlabels, block))
    name.first = block.first;
  return name;
}

static void walk_scopes(Live *l, ScopeWalk *w) {
  w->range = xcalloc(l->nvars + 1, sizeof(Range));
  w->home = xcalloc(l->nvars + 1, sizeof(int));
  visit(l->co->def->body, scope_pre, scope_post, w);
}

static void release_scopes(ScopeWalk *w) {
  xfree(w->resumes);
  xfree(w->labels);
  xfree(w->open);
  xfree(w->scope);
  xfree(w->parent);
  xfree(w->range);
  xfree(w->home);
}

/* The locals whose address is taken: pinned, and in the frame when a
   resume point lies in their lifetime; one reached only through a part
   that may be an array gets that reason after liveness has given its own
   (l->late_why), since it is the less telling of the two. */
static void frame_address_taken(Live *l, const ScopeWalk *w) {
  AddrWalk a = {l, xcalloc(l->nvars, sizeof(char *)), xcalloc(l->nvars, sizeof(bool))};
  visit(l->co->def->body, address_pre, NULL, &a);
  l->late_why = xcalloc(l->nvars + 1, sizeof(char *));
  for (int v = 0; v < l->nvars; v++) {
    if (a.why[v])
      l->pinned[v] = true;
    if (!a.why[v] || !any_in(w->resumes, w->nresumes, lifetime(w, v)))
      continue;
    if (a.decay[v])
      l->late_why[v] = a.why[v];
    else
      must_frame(l, v, a.why[v]);
  }
  xfree(a.why);
  xfree(a.decay);
}

/* {==================================================================
 * Sharing: blocks that are never active at once
 * =================================================================== */

/* The locals of two sibling blocks are never alive at the same time (C
   ends a local's life when its block is left), so their fields can share
   storage, as a compiler shares stack slots: the frame holds a union of
   one struct per block. The tree of FrameScope says which fields go where;
   a scope with no field in it, or under it, is left out. */
static FrameScope *share_storage(Live *l, const ScopeWalk *w) {
  FrameScope **of = xcalloc(w->nscopes + 1, sizeof(FrameScope *));
  FrameScope *root = NULL;
  for (int v = 0; v < l->nvars; v++) {
    if (!l->vars[v]->frame_reason)
      continue;
    /* its scope, and those around it up to one already in the tree */
    for (int sc = w->home[v], child = -1; sc >= 0; child = sc, sc = w->parent[sc]) {
      if (child >= 0 && of[child]->linked)
        break;
      if (!of[sc]) {
        of[sc] = xcalloc(1, sizeof(FrameScope));
        of[sc]->node = w->scope[sc];
      }
      if (child >= 0) {
        of[sc]->kids = xrealloc(of[sc]->kids, sizeof(FrameScope *) * (of[sc]->nkids + 1));
        of[sc]->kids[of[sc]->nkids++] = of[child];
        of[child]->linked = true;
      }
      if (w->parent[sc] < 0)
        root = of[sc];
    }
    list_push(&of[w->home[v]]->locals, l->vars[v]->decl);
  }
  xfree(of);
  return root;
}

/* {==================================================================
 * The graph
 * =================================================================== */

static int new_cfg_node(Live *l) {
  if (l->nnodes == l->capnodes) {
    l->capnodes = l->capnodes ? l->capnodes * 2 : 256;
    l->nodes = xrealloc(l->nodes, sizeof(CfgNode) * l->capnodes);
  }
  l->nodes[l->nnodes] = (CfgNode){.def = -1};
  return l->nnodes++;
}

static void add_succ(Live *l, int from, int to) {
  CfgNode *n = &l->nodes[from];
  if (n->nsucc == n->capsucc) {
    n->capsucc = n->capsucc ? n->capsucc * 2 : 2;
    n->succ = xrealloc(n->succ, sizeof(int) * n->capsucc);
  }
  n->succ[n->nsucc++] = to;
}

static int label_node(Live *l, const char *name) {
  for (int i = 0; i < l->nlabels; i++)
    if (strcmp(l->labels[i].name, name) == 0)
      return l->labels[i].node;
  l->labels = xrealloc(l->labels, sizeof(Label) * (l->nlabels + 1));
  l->labels[l->nlabels] = (Label){name, new_cfg_node(l)};
  return l->labels[l->nlabels++].node;
}

typedef struct {
  Live *l;
  int node;
  const Node *skip;  /* the local set by the node: not a read */
  const int *only_set; /* the locals the expression only sets (awaited_into), -1 after them */
} UseWalk;

static bool only_set(const int *list, int v) {
  for (; list && *list >= 0; list++)
    if (*list == v)
      return true;
  return false;
}

static void add_use(Live *l, int node, int v) {
  CfgNode *c = &l->nodes[node];
  c->use = xrealloc(c->use, sizeof(int) * (c->nuse + 1));
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
  int v = lv && lv->kind == ND_EXPR && (lv->op == OP_INDEX || lv->op == OP_MEMBER) ? lvalue_var(w->l, lv) : -1;
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

/* The locals that tokens first..last name (an asm statement keeps no
   expression nodes): read, as far as the analysis knows. */
static void token_uses(Live *l, int node, int first, int last) {
  for (int i = first; i <= last; i++) {
    Sym *s = token_sym(&l->src->original.v[i]);
    if (s && s->live_var > 0)
      add_use(l, node, s->live_var - 1);
  }
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
      w->v = xrealloc(w->v, sizeof(int) * (w->n + 2));
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
  int from;       /* the expression's node */
  int inside;     /* statement expressions around */
  int loops;      /* loops around, inside them */
  int switches;   /* switches around, inside them */
  bool jumps;     /* found one */
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
    jump_to(j, label_node(j->l, n->tok[1].text));
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

/* The jumps out of e's statement expressions, from node `from`: are there any? */
static bool jumps_out(Live *l, Node *e, int from) {
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
  UseWalk w = {l, n, set_by, set_only};  /* `x = ...`: x is not read */
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
  for (int i = 0; set_only && set_only[i] >= 0; i++) {  /* then set, whole */
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
      l->sw->cases = xrealloc(l->sw->cases, sizeof(int) * (l->sw->ncases + 1));
      l->sw->cases[l->sw->ncases++] = entry;
      l->sw->has_default |= s->kind == ND_DEFAULT;
    }
    return entry;
  }
  case ND_LABEL: {
    int entry = label_node(l, s->tok->text);
    add_succ(l, entry, build(l, s->body, next));
    return entry;
  }
  case ND_GOTO: {
    if (s->expr) {  /* goto *p: any label whose address was taken */
      head = eval(l, s->expr, NULL, NULL, &tail);
      l->nodes[tail].computed_goto = true;
      return head;
    }
    int g = new_cfg_node(l);
    add_succ(l, g, label_node(l, s->tok[1].text));
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
    if (s->target) {  /* `x = yield v;`: x is set after the resume point, not read */
      Node *t = strip_parens(s->target);
      bool whole = var_of(t) >= 0;
      add_succ(l, r, eval_then(l, s->target, whole ? t : NULL, whole ? t : NULL, next));
    } else {
      add_succ(l, r, next);
    }
    return s->expr ? eval_then(l, s->expr, NULL, NULL, r) : r;
  }
  case ND_ASM_STMT: {
    int n = new_cfg_node(l);
    token_uses(l, n, s->first, s->last);
    add_succ(l, n, next);
    return n;
  }
  case ND_LABEL_DECL:
  case ND_STATIC_ASSERT:
  case ND_DIRECTIVE:
    return next;
  default:
    internal_error("unexpected statement kind %d", s->kind);
  }
}

/* }================================================================== */

/* {==================================================================
 * The fixed point
 * =================================================================== */

typedef uint64_t Word;

static void sym_push(SymList *l, Sym *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->v = xrealloc(l->v, sizeof(Sym *) * l->cap);
  }
  l->v[l->n++] = s;
}

/* Is token tok in the scope of local v (from its declaration to the end of
   its block)? A local live at a resume point outside it (a goto back into
   its block) cannot be named there. */
static bool in_scope(const Live *l, int v, int tok) {
  return l->range && tok >= l->range[v].first && tok <= l->range[v].last;
}

/* in(n) for every node, to the fixed point; then the locals live at each
   resume point must be in the frame. */
static void solve(Live *l) {
  int words = (l->nvars + 63) / 64;
  Word *in = xcalloc((size_t)l->nnodes * words, sizeof(Word));
  Word *out = xcalloc(words, sizeof(Word));
  for (bool changed = true; changed;) {
    changed = false;
    for (int n = l->nnodes - 1; n >= 0; n--) {
      CfgNode *c = &l->nodes[n];
      memset(out, 0, sizeof(Word) * words);
      for (int i = 0; i < c->nsucc; i++)
        for (int w = 0; w < words; w++)
          out[w] |= in[(size_t)c->succ[i] * words + w];
      if (c->def >= 0)
        out[c->def / 64] &= ~((Word)1 << (c->def % 64));
      for (int i = 0; i < c->nuse; i++)
        out[c->use[i] / 64] |= (Word)1 << (c->use[i] % 64);
      Word *mine = &in[(size_t)n * words];
      if (memcmp(mine, out, sizeof(Word) * words) != 0) {
        memcpy(mine, out, sizeof(Word) * words);
        changed = true;
      }
    }
  }
  int *at = xcalloc(l->co->nresume + 1, sizeof(int));  /* [resume point]: its node */
  for (int n = 0; n < l->nnodes; n++)
    at[l->nodes[n].resume_point] = n;
  l->co->live_at = xcalloc(l->co->nresume + 1, sizeof(SymList));
  for (int rp = 1; rp <= l->co->nresume; rp++)  /* the first that keeps it says why */
    for (int v = 0; v < l->nvars; v++)
      if (at[rp] && in[(size_t)at[rp] * words + v / 64] >> (v % 64) & 1) {
        must_frame(l, v, format("live across the %s at %s:%d", l->co->resume_words[rp],
                                l->src->name, l->co->resume_lines[rp]));
        sym_push(&l->co->live_at[rp], l->vars[v]);
        if (!in_scope(l, v, l->nodes[at[rp]].tok))
          l->pinned[v] = true;  /* live where its name means something else, or nothing */
      }
  xfree(at);
  xfree(in);
  xfree(out);
}

/* }================================================================== */

static void add_computed_gotos(Live *l) {
  for (int n = 0; n < l->nnodes; n++)
    if (l->nodes[n].computed_goto)
      for (int i = 0; i < l->nlabels; i++)
        add_succ(l, n, l->labels[i].node);
}

/* A macro's expansion may read or write a local where the body only says
   its name (`#define SUM (a + b)` ... `yield SUM;`): the graph does not see
   those uses, so a local named in a #define that the body may expand (one
   in effect at the coroutine whose name it uses, or one in the body) stays
   in the frame. */
static void frame_named_in(Live *l, const char *define) {
  const char *p = strchr(define, '#') + 1;
  p += strspn(p, " \t");
  if (strncmp(p, "define", 6) != 0)
    return;
  p += 6;
  p += strspn(p, " \t");
  const char *name = p;
  while (is_ident_char(*p))
    p++;
  const char *macro = xstrndup(name, p - name);
  while (*p) {
    if (*p == '"' || *p == '\'') {  /* a literal names nothing */
      char quote = *p++;
      while (*p && *p != quote)
        p += (*p == '\\' && p[1]) ? 2 : 1;
      p += *p ? 1 : 0;
      continue;
    }
    if (!is_ident_char(*p) || (*p >= '0' && *p <= '9')) {
      while (is_ident_char(*p))  /* (the rest of a number) */
        p++;
      p += *p ? 1 : 0;
      continue;
    }
    const char *w = p;
    while (is_ident_char(*p))
      p++;
    for (int v = 0; v < l->nvars; v++)
      if (strlen(l->vars[v]->name) == (size_t)(p - w) && !strncmp(l->vars[v]->name, w, p - w)) {
        must_frame(l, v, format("named by the macro %s", macro));
        l->pinned[v] = true;
      }
  }
}

static void frame_named_in_macros(Live *l) {
  for (int i = 0; i < l->co->nmacros; i++)
    frame_named_in(l, l->co->macros[i]);
  for (int i = l->co->first; i <= l->co->last; i++) {
    Token *t = &l->src->original.v[i];
    if (t->kind == TK_DIRECTIVE && !t->dead)
      frame_named_in(l, t->text);
  }
}

/* Declarations the lowering cannot leave in place: `for (int i = await
   f(); ...)` (it sets such a clause before the loop) and `int x = c ? await
   f() : 0;` (the value of such a `?:` is made in a block of its own, which
   would end the scope of x). Their locals stay in the frame. */
static void frame_moved_decl(Live *l, Node *decl, const char *why) {
  for (int i = 0; i < decl->kids.n; i++) {
    Sym *s = decl->kids.v[i]->sym;
    if (s && s->live_var) {
      must_frame(l, s->live_var - 1, why);
      l->pinned[s->live_var - 1] = true;
    }
  }
}

static bool moved_decls_pre(Node *n, void *ctx) {
  Live *l = ctx;
  if (n->kind == ND_FOR && n->init->kind == ND_DECL && has_await(n->init))
    frame_moved_decl(l, n->init, "declared in a for loop's first clause that awaits");
  if (n->kind == ND_DECL && has_awaiting_select(n))
    frame_moved_decl(l, n, "its initializer has a ?: that awaits");
  if (n->kind == ND_SWITCH && n->body->kind == ND_BLOCK)  /* `switch (k) { int x; case 1: ...`: */
    for (int i = 0; i < n->body->kids.n; i++) {             /* no statement there ever runs */
      Node *item = n->body->kids.v[i];
      if (item->kind == ND_CASE || item->kind == ND_DEFAULT || item->kind == ND_LABEL)
        break;
      for (int j = 0; item->kind == ND_DECL && j < item->kids.n; j++)
        if (item->kids.v[j]->sym && item->kids.v[j]->sym->live_var)
          l->pinned[item->kids.v[j]->sym->live_var - 1] = true;
    }
  if (n->kind == ND_DECL && has_await(n))  /* lowered as assignments to its fields (lower.c) */
    for (int i = 0; i < n->kids.n; i++)
      if (n->kids.v[i]->sym && n->kids.v[i]->sym->live_var)
        l->pinned[n->kids.v[i]->sym->live_var - 1] = true;
  return true;
}

/* {==================================================================
 * Locals in C locals between suspensions
 * =================================================================== */

/* A local in the frame for its liveness alone is read and written by the
   body as an ordinary C local, which the compiler keeps in a register; its
   field holds it only while the body is suspended: stored as the body
   suspends at a resume point where it is live, loaded back as it resumes
   there (lower.c, save_kept). A loop that awaits a child that returns at
   once, or a generator's loop between two yields, then runs in registers,
   as an optimising compiler's own coroutines do. Such a local is a plain
   scalar (types.c, is_plain_scalar: nothing can point into it), is never
   pinned (its address taken, named by a macro, declared by a declaration
   that awaits), has a name no other local or parameter of the coroutine
   has (the store and the load name it where they stand), and is in scope
   at every resume point where it is live. The locals of one declaration go
   together. */

static int compare_names(const void *a, const void *b) {
  return strcmp((*(Sym *const *)a)->name, (*(Sym *const *)b)->name);
}

/* The names declared in a body (objects, extern and static ones too,
   functions, typedefs, enumeration constants), as their symbols, sorted by
   name: one declared twice is not kept in a C local, whose save and load
   could name the other. */
static void name_declared(Node *n, SymList *names) {
  if ((n->kind == ND_INIT_DECL || n->kind == ND_ENUMERATOR) && n->sym && n->sym->name)
    sym_push(names, n->sym);
}

static bool shared_name(const SymList *sorted, Sym *s) {
  if (sorted->n == 0)
    return false;
  Sym *const *at = bsearch(&s, sorted->v, sorted->n, sizeof(Sym *), compare_names);
  Sym *const *end = sorted->v + sorted->n;
  return at && ((at > sorted->v && strcmp(at[-1]->name, s->name) == 0) ||
                (at + 1 < end && strcmp(at[1]->name, s->name) == 0));
}

static bool is_plain_local(Live *l, int v, const SymList *names) {
  Node *d = l->decls[v];
  Sym *s = l->vars[v];
  int end = d->init ? d->init->first - 2 : d->last;  /* `int x __attribute__((...))` */
  return s->frame_reason && !l->pinned[v] && !s->in_stmt_expr && end <= d->declarator->last &&
         is_plain_scalar(d->specs, d->declarator, &l->src->original, 0) &&
         !shared_name(names, s);
}

static void choose_cached(Live *l, const SymList *names) {
  bool *ok = xcalloc(l->nvars + 1, sizeof(bool));
  for (int v = 0; v < l->nvars; v++)
    ok[v] = is_plain_local(l, v, names);
  for (int v = 0; v < l->nvars; v++)  /* one declaration's locals go together */
    if (!ok[v])
      for (int u = l->group[v]; u < l->nvars && l->group[u] == l->group[v]; u++)
        ok[u] = false;
  for (int v = 0; v < l->nvars; v++)
    l->vars[v]->cached = ok[v];
  for (int rp = 1; rp <= l->co->nresume; rp++) {  /* the live sets keep the cached ones */
    SymList *live = &l->co->live_at[rp];
    int kept = 0;
    for (int i = 0; i < live->n; i++)
      if (live->v[i]->cached)
        live->v[kept++] = live->v[i];
    live->n = kept;
  }
  xfree(ok);
}

/* }================================================================== */

static void release(Live *l) {
  for (int i = 0; i < l->nnodes; i++) {
    xfree(l->nodes[i].succ);
    xfree(l->nodes[i].use);
  }
  xfree(l->nodes);
  xfree(l->labels);
  xfree(l->vars);
  xfree(l->group);
  xfree(l->pinned);
  xfree(l->decls);
  xfree(l->late_why);
}

void decide_frame(Source *src, Coroutine *co, bool hoist_all) {
  Live l = {.co = co, .src = src, .brk = -1, .cont = -1};
  ScopeWalk scopes = {0};
  /* the candidates: the locals laid out, in order; a declaration's go together */
  l.vars = xcalloc(co->locals.n + 1, sizeof(Sym *));
  l.group = xcalloc(co->locals.n + 1, sizeof(int));
  l.pinned = xcalloc(co->locals.n + 1, sizeof(bool));
  l.decls = xcalloc(co->locals.n + 1, sizeof(Node *));
  SymList names = {0};  /* every name the body declares, and the parameters' */
  for (int i = 0; i < co->locals.n; i++)
    if (co->locals.v[i]->kind == ND_PARAM)
      sym_push(&names, co->locals.v[i]->sym);
  scopes.names = &names;  /* the scope walk adds the body's */
  const Node *decl_of_prev = NULL;
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    Sym *s = n->sym;
    if (n->kind == ND_PARAM) {
      s->frame_reason = "a parameter: set when the instance is made";
      continue;
    }
    s->live_var = l.nvars + 1;
    l.decls[l.nvars] = n;
    s->is_array = is_array_type(n->specs, n->declarator, 0);
    bool same = decl_of_prev && n->specs == decl_of_prev->specs;
    l.group[l.nvars] = same ? l.group[l.nvars - 1] : l.nvars;
    decl_of_prev = n;
    l.vars[l.nvars++] = s;
  }
  if (hoist_all) {
    for (int v = 0; v < l.nvars; v++)
      l.vars[v]->frame_reason = "every local (--hoist-all)";
  } else if (l.nvars > 0) {
    walk_scopes(&l, &scopes);
    if (names.n > 1)
      qsort(names.v, names.n, sizeof(Sym *), compare_names);
    l.range = scopes.range;
    frame_address_taken(&l, &scopes);
    for (int v = 0; v < l.nvars; v++)  /* the lowering calls its cleanup (cleanup.c) */
      if (l.vars[v]->cleanup && scopes.nresumes > 0 && !l.vars[v]->in_stmt_expr) {
        must_frame(&l, v, "a cleanup, called by the body where its scope ends");
        l.pinned[v] = true;
      }
    frame_named_in_macros(&l);
    visit(co->def->body, moved_decls_pre, NULL, &l);
    l.exit = new_cfg_node(&l);
    build(&l, co->def->body, l.exit);
    add_computed_gotos(&l);
    if ((double)l.nnodes * ((l.nvars + 63) / 64 * 64) > LIVE_MAX_BITS) {
      for (int v = 0; v < l.nvars; v++)
        must_frame(&l, v, "every local: the body is too large for the analysis");
    } else {
      solve(&l);
    }
    for (int v = 0; v < l.nvars; v++)
      if (l.late_why[v])
        must_frame(&l, v, l.late_why[v]);
    bool analysed = co->live_at != NULL;
    for (int v = 0; v < l.nvars; v++)  /* one declaration's locals go together */
      if (l.vars[v]->frame_reason)
        for (int u = l.group[v]; u < l.nvars && l.group[u] == l.group[v]; u++)
          if (!l.vars[u]->frame_reason)
            l.vars[u]->frame_reason = format("declared with '%s', which is in the frame",
                                             l.vars[v]->name);
    if (analysed)
      choose_cached(&l, &names);
  }
  /* the locals that need no field leave the frame */
  int kept = 0;
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    Sym *s = n->sym;
    if (n->kind == ND_PARAM || s->frame_reason) {
      co->locals.v[kept++] = n;
      continue;
    }
    s->field = NULL;  /* an ordinary local of the resume function (still the coroutine's) */
    list_push(&co->plain_locals, n);
  }
  co->locals.n = kept;
  if (!hoist_all && l.nvars > 0)
    co->frame_scope = share_storage(&l, &scopes);
  for (int v = 0; v < l.nvars; v++)
    l.vars[v]->live_var = 0;
  release_scopes(&scopes);
  release(&l);
  xfree(names.v);
}
