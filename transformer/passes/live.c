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
 * (made by cfg.c): a node per expression evaluation, with the locals it reads
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
#include "live.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE_MAX_BITS = 1 << 27 }; /* 16 MiB of live sets at most */

/* {==================================================================
 * The locals, and what makes one stay in the frame whatever its liveness
 * =================================================================== */

/* A local needs the frame for its own reasons: record the first. */
static void must_frame(Live *l, int v, const char *why) {
  if (v >= 0 && !l->vars[v]->frame_reason)
    l->vars[v]->frame_reason = why;
}

static const char *where(Live *l, const Node *n) {
  return format("%s:%d", l->src->name, l->src->original.v[n->first].line);
}

/* How many of a local's outer derivations are arrays (`int g[2][3]`: 2); a
   type that is an array all the way down to a typedef name counts as many
   as it could need. */
static int array_dims(const Node *decl) {
  const Node *d = decl->declarator;
  int dims = 0;
  while (d && dims < d->kids.n && d->kids.v[dims]->kind == ND_ARRAY)
    dims++;
  if ((!d || dims == d->kids.n) && array_type_kind(decl->specs, NULL, 0) != ARRAY_NO)
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
  int left = array_dims(decl);     /* the array dimensions not yet indexed */
  const Node *specs = decl->specs; /* the struct whose member `.` names, if known */
  if (decl->declarator && decl->declarator->kids.n > left)
    specs = NULL;    /* elements are pointers (or functions) */
  while (nops > 0) { /* from the local outwards */
    Node *op = ops[--nops];
    if (op->op == OP_INDEX && left == 0)
      return false; /* through a pointer: into what it points at */
    if (op->op == OP_INDEX) {
      left--;
      continue;
    }
    if (left > 0 || !specs)
      return true;
    left = member_dims(l->src, specs, tok_text(&l->src->original.v[op->last]));
    if (left < 0)
      return true;
    specs = NULL; /* (a member's own members: not looked up) */
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
  const char **why; /* [var]: where its address is taken, or NULL */
  bool *decay;      /* [var]: only by a part that may be an array (a weaker reason, said last) */
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
  const char *op = tok_text(&l->src->original.v[n->first]);
  if (n->op == OP_UNARY && (!strcmp(op, "++") || !strcmp(op, "--")))
    return n->operand;
  return NULL;
}

/* `asm`, `__asm` or `__asm__`: the token an asm statement's names take their address from
   (build.c, asm_node). */
static bool is_asm_word(const char *word) {
  return !strcmp(word, "asm") || !strcmp(word, "__asm") || !strcmp(word, "__asm__");
}

static bool address_pre(Node *n, void *ctx) {
  AddrWalk *a = ctx;
  Live *l = a->l;
  if (n->kind == ND_SIZEOF)
    return false; /* not evaluated */
  if (n->kind == ND_EXPR && n->op == OP_ADDRESS)
    address_taken(a, lvalue_var(l, n->operand),
                  n->first != n->operand->first             ? "address taken"
                  : n->tok && is_asm_word(tok_text(n->tok)) ? "named in an asm statement's operands"
                  : n->tok ? format("address taken by the macro %s", tok_text(n->tok))
                           : "named where a macro's arguments are not C",
                  n); /* (no `&` written: build.c call_node and raw_macro_node) */
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
        a->why[v] =
            format("a part of it that may be an array used as a pointer at %s", where(l, n));
        a->decay[v] = true;
      }
      walk_indexes(a, n);
      return false;
    }
  }
  int v = var_of(n);
  if (v >= 0 && l->vars[v]->may_be_array)
    address_taken(a, v,
                  l->vars[v]->is_array ? "an array used as a pointer"
                                       : "used as a value, of a type that may be an array (typeof)",
                  n);
  return true;
}

/* The scopes of the body (its blocks and for statements, numbered as the
   walk meets them) and, for each local, the one that declares it and where
   its own scope ends: from its declaration to the end of that block. The
   resume points are noted too, in source order, so that a local's scope
   can be looked up among them. */

typedef struct {
  int *resumes; /* the first tokens of the resume points, in order */
  int nresumes;
  int *labels; /* the tokens of the labels, in order */
  int nlabels;
  int *open; /* the scopes around, innermost last */
  int nopen, capopen;
  Node **scope; /* [scope]: its node */
  int *parent;  /* [scope]: the scope around it, or -1 */
  int nscopes, capscopes;
  Range *range;   /* [var]: its scope */
  int *home;      /* [var]: the scope that declares it */
  SymList *names; /* every name the body declares (the same walk: see choose_cached) */
  NodeList moved; /* the for statements, declarations and switches, in order: frame_moved_decls */
} ScopeWalk;

static void name_declared(Node *n, SymList *names);

static bool scope_pre(Node *n, void *ctx) {
  ScopeWalk *w = ctx;
  name_declared(n, w->names);
  if (n->kind == ND_FOR || n->kind == ND_DECL || n->kind == ND_SWITCH)
    list_push(&w->moved, n);
  if (n->kind == ND_YIELD || n->kind == ND_AWAIT) {
    w->resumes = xappend(w->resumes, w->nresumes, sizeof(int));
    w->resumes[w->nresumes++] = n->first;
  }
  if (n->kind == ND_LABEL) {
    w->labels = xappend(w->labels, w->nlabels, sizeof(int));
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
  int lo = 0, hi = n; /* the first at or after r.first */
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
  xfree(w->moved.v);
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

/* }================================================================== */

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
        of[sc]->kids = xappend(of[sc]->kids, of[sc]->nkids, sizeof(FrameScope *));
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

/* The nodes in an order that takes a node after its successors where it
   can: the postorder of a depth-first walk from the entry, then of walks
   from the nodes it did not reach. A backward problem then settles in a
   pass or two, and one more a loop nested. The order of the nodes' numbers
   took one pass a statement on a straight line (build() makes a block's
   statements last first): 10,000 locals declared one after another took
   15 s. The walk keeps its own stack: a body may be as deep as it is long. */
static int *backward_order(const Live *l) {
  int *order = xcalloc(l->nnodes + 1, sizeof(int));
  int *stack = xcalloc(l->nnodes + 1, sizeof(int));
  int *next_succ = xcalloc(l->nnodes + 1, sizeof(int));
  bool *seen = xcalloc(l->nnodes + 1, sizeof(bool));
  int n = 0;
  for (int root = -1; root < l->nnodes; root++) {
    int r = root < 0 ? l->entry : root;
    if (seen[r])
      continue;
    int top = 0;
    seen[r] = true;
    stack[top++] = r;
    while (top > 0) {
      int v = stack[top - 1];
      const CfgNode *c = &l->nodes[v];
      if (next_succ[v] < c->nsucc) {
        int s = c->succ[next_succ[v]++];
        if (!seen[s]) {
          seen[s] = true;
          stack[top++] = s;
        }
      } else {
        order[n++] = v;
        top--;
      }
    }
  }
  xfree(stack);
  xfree(next_succ);
  xfree(seen);
  return order;
}

/* in(n) for every node, to the fixed point; then the locals live at each
   resume point must be in the frame. */
static void solve(Live *l) {
  int words = (l->nvars + 63) / 64;
  Word *in = xcalloc((size_t)l->nnodes * words, sizeof(Word));
  Word *out = xcalloc(words, sizeof(Word));
  int *order = backward_order(l);
  for (bool changed = true; changed;) {
    changed = false;
    for (int k = 0; k < l->nnodes; k++) {
      int n = order[k];
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
  int *at = xcalloc(l->co->nresume + 1, sizeof(int)); /* [resume point]: its node */
  for (int n = 0; n < l->nnodes; n++)
    at[l->nodes[n].resume_point] = n;
  l->co->live_at = xcalloc(l->co->nresume + 1, sizeof(SymList));
  l->co->live_across = xcalloc(l->co->nresume + 1, sizeof(SymList));
  for (int rp = 1; rp <= l->co->nresume; rp++) /* the first that keeps it says why */
    for (int v = 0; v < l->nvars; v++)
      if (at[rp] && in[(size_t)at[rp] * words + v / 64] >> (v % 64) & 1) {
        must_frame(l, v,
                   format("live across the %s at %s:%d", l->co->resume_words[rp], l->src->name,
                          l->co->resume_lines[rp]));
        sym_push(&l->co->live_at[rp], l->vars[v]);
        sym_push(&l->co->live_across[rp], l->vars[v]);
        if (!in_scope(l, v, l->nodes[at[rp]].tok))
          l->pinned[v] = true; /* live where its name means something else, or nothing */
      }
  xfree(at);
  xfree(in);
  xfree(out);
  xfree(order);
}

/* }================================================================== */

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
    if (*p == '"' || *p == '\'') { /* a literal names nothing */
      char quote = *p++;
      while (*p && *p != quote)
        p += (*p == '\\' && p[1]) ? 2 : 1;
      p += *p ? 1 : 0;
      continue;
    }
    if (!is_ident_char(*p) || (*p >= '0' && *p <= '9')) {
      while (is_ident_char(*p)) /* (the rest of a number) */
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
      frame_named_in(l, tok_text(t));
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

static void moved_decl(Live *l, Node *n) {
  if (n->kind == ND_FOR && n->init->kind == ND_DECL && has_await(n->init))
    frame_moved_decl(l, n->init, "declared in a for loop's first clause that awaits");
  if (n->kind == ND_DECL && has_awaiting_select(n))
    frame_moved_decl(l, n, "its initializer has a ?: that awaits");
  if (n->kind == ND_SWITCH && n->body->kind == ND_BLOCK) /* `switch (k) { int x; case 1: ...`: */
    for (int i = 0; i < n->body->kids.n; i++) {          /* no statement there ever runs */
      Node *item = n->body->kids.v[i];
      if (item->kind == ND_CASE || item->kind == ND_DEFAULT || item->kind == ND_LABEL)
        break;
      for (int j = 0; item->kind == ND_DECL && j < item->kids.n; j++)
        if (item->kids.v[j]->sym && item->kids.v[j]->sym->live_var)
          l->pinned[item->kids.v[j]->sym->live_var - 1] = true;
    }
  if (n->kind == ND_DECL && has_await(n)) /* lowered as assignments to its fields (lower.c) */
    for (int i = 0; i < n->kids.n; i++)
      if (n->kids.v[i]->sym && n->kids.v[i]->sym->live_var)
        l->pinned[n->kids.v[i]->sym->live_var - 1] = true;
}

/* The declarations that the lowering moves, and those of a switch body before its
   first label: met by the scope walk (moved), taken in its order. */
static void frame_moved_decls(Live *l, const ScopeWalk *w) {
  for (int i = 0; i < w->moved.n; i++)
    moved_decl(l, w->moved.v[i]);
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
  int end = declarator_end(&l->src->original, d); /* `int x __attribute__((...))` */
  return s->frame_reason && !l->pinned[v] && !s->in_stmt_expr && end <= d->declarator->last &&
         is_plain_scalar(d->specs, d->declarator, &l->src->original, 0) && !shared_name(names, s);
}

static void choose_cached(Live *l, const SymList *names) {
  bool *ok = xcalloc(l->nvars + 1, sizeof(bool));
  for (int v = 0; v < l->nvars; v++)
    ok[v] = is_plain_local(l, v, names);
  for (int v = 0; v < l->nvars; v++) /* one declaration's locals go together */
    if (!ok[v])
      for (int u = l->group[v]; u < l->nvars && l->group[u] == l->group[v]; u++)
        ok[u] = false;
  for (int v = 0; v < l->nvars; v++)
    l->vars[v]->cached = ok[v];
  for (int rp = 1; rp <= l->co->nresume; rp++) { /* the live sets keep the cached ones */
    SymList *live = &l->co->live_at[rp];
    int kept = 0;
    for (int i = 0; i < live->n; i++)
      if (live->v[i]->cached)
        live->v[kept++] = live->v[i];
    live->n = kept;
  }
  xfree(ok);
}

/* An explicit register variable (`register long r10 __asm__("r10")`) that the analysis finds a
   suspension needs (with every local in the frame, it stays in its register unasked):
   C keeps its value only at the asm statements that name it, not across a call (gcc and clang
   lose it to the callee at -O0 as at -O2), so a suspension, a call of the runtime in either
   backend, would lose it too; and no field is bound to a register. */
static void refuse_register_fields(Live *l) {
  for (int v = 0; v < l->nvars; v++) {
    Node *d = l->decls[v];
    Sym *s = l->vars[v];
    if (!s->frame_reason || register_binding_end(&l->src->original, d) < 0)
      continue;
    /* (the reason says `at FILE:LINE` for --stats; a diagnostic's text names no path) */
    const char *file = strstr(s->frame_reason, format("%s:", l->src->name));
    error_tok(d->declarator->tok,
              "'%s' is bound to a register, whose value C keeps only at the asm statements that "
              "name it, not across a call or a suspension; coroutine '%s' would need it in its "
              "frame (%.*s%s%s): copy it to an ordinary local before the suspension",
              s->name, l->co->name,
              file ? (int)(file - s->frame_reason) : (int)strlen(s->frame_reason), s->frame_reason,
              file ? "line " : "", file ? file + strlen(l->src->name) + 1 : "");
  }
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

void decide_frame(Source *src, Coroutine *co, const char *hoist_all) {
  Live l = {.co = co, .src = src, .brk = -1, .cont = -1};
  ScopeWalk scopes = {0};
  /* the candidates: the locals laid out, in order; a declaration's go together */
  l.vars = xcalloc(co->locals.n + 1, sizeof(Sym *));
  l.group = xcalloc(co->locals.n + 1, sizeof(int));
  l.pinned = xcalloc(co->locals.n + 1, sizeof(bool));
  l.decls = xcalloc(co->locals.n + 1, sizeof(Node *));
  SymList names = {0}; /* every name the body declares, and the parameters' */
  for (int i = 0; i < co->locals.n; i++)
    if (co->locals.v[i]->kind == ND_PARAM)
      sym_push(&names, co->locals.v[i]->sym);
  scopes.names = &names; /* the scope walk adds the body's */
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
    int array = array_type_kind(n->specs, n->declarator, 0);
    s->is_array = array == ARRAY_YES;
    s->may_be_array = array != ARRAY_NO;
    bool same = decl_of_prev && n->specs == decl_of_prev->specs;
    l.group[l.nvars] = same ? l.group[l.nvars - 1] : l.nvars;
    decl_of_prev = n;
    l.vars[l.nvars++] = s;
  }
  if (hoist_all) { /* (a local bound to a register stays one: no field is) */
    for (int v = 0; v < l.nvars; v++)
      if (register_binding_end(&src->original, l.decls[v]) < 0)
        l.vars[v]->frame_reason = hoist_all;
  } else if (l.nvars > 0) {
    walk_scopes(&l, &scopes);
    if (names.n > 1)
      qsort(names.v, names.n, sizeof(Sym *), compare_names);
    l.range = scopes.range;
    frame_address_taken(&l, &scopes);
    for (int v = 0; v < l.nvars; v++) /* the lowering calls its cleanup (cleanup.c) */
      if (l.vars[v]->cleanup && scopes.nresumes > 0 && !l.vars[v]->in_stmt_expr) {
        must_frame(&l, v, "a cleanup, called by the body where its scope ends");
        l.pinned[v] = true;
      }
    frame_named_in_macros(&l);
    frame_moved_decls(&l, &scopes);
    build_cfg(&l);
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
    for (int v = 0; v < l.nvars; v++) /* one declaration's locals go together */
      if (l.vars[v]->frame_reason)
        for (int u = l.group[v]; u < l.nvars && l.group[u] == l.group[v]; u++)
          if (!l.vars[u]->frame_reason)
            l.vars[u]->frame_reason =
                format("declared with '%s', which is in the frame", l.vars[v]->name);
    if (analysed)
      choose_cached(&l, &names);
  }
  refuse_register_fields(&l);
  /* the locals that need no field leave the frame */
  int kept = 0;
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    Sym *s = n->sym;
    if (n->kind == ND_PARAM || s->frame_reason) {
      co->locals.v[kept++] = n;
      continue;
    }
    s->field = NULL; /* an ordinary local of the resume function (still the coroutine's) */
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
