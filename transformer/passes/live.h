/* live.h: what live.c and cfg.c share: the state of one body's analysis,
 * its control-flow graph, and which local an expression names.
 *
 * live.c decides which locals keep their field in the frame; the graph it
 * solves on is built by cfg.c. Private to the two: nothing else includes it.
 */
#ifndef COROC_LIVE_H
#define COROC_LIVE_H

#include "coroc.h"

typedef struct {
  int first, last; /* token indices */
} Range;

/* A node of the graph. */
typedef struct {
  int *succ; /* the nodes that may run next */
  int nsucc;
  int *use, nuse;     /* the locals it reads (indices; one an occurrence) */
  int def;            /* the local it sets whole, or -1 */
  int resume_point;   /* > 0: a resume point */
  int tok;            /* a resume point's first token (its place, for scopes) */
  bool computed_goto; /* goto *p: it may go to any label */
} CfgNode;

typedef struct {
  const char *name;
  int node;
} Label;

typedef struct {
  int *cases, ncases; /* the nodes of its case and default labels */
  bool has_default;
} SwitchCtx;

typedef struct {
  Coroutine *co;
  Source *src;
  Sym **vars; /* the locals that may need the frame, by index */
  int nvars;
  int *group; /* [var]: the index of the first local of its declaration */
  CfgNode *nodes;
  int nnodes;
  Label *labels;
  int nlabels;
  int brk, cont; /* where break and continue go (-1: nowhere) */
  SwitchCtx *sw; /* the innermost switch */
  int exit;      /* the end of the body */
  int entry;     /* where the body starts */
  /* [var]: it may not leave memory (its address, a macro, a moved declaration) */
  bool *pinned;
  const Range *range; /* [var]: its scope (walk_scopes) */
  Node **decls;       /* [var]: its ND_INIT_DECL */
  /* [var]: a reason to keep it, given after liveness's (frame_address_taken) */
  const char **late_why;
} Live;

/* Build the graph of l->co's body: a node per expression evaluation and per
   resume point, l->exit its end (cfg.c). */
void build_cfg(Live *l);

/* Which local an expression names (a local the analysis looks at has
   Sym.live_var = 1 + its index), or -1. */
static inline int var_of(const Node *n) {
  if (!n || n->kind != ND_IDENT || !n->sym)
    return -1;
  return n->sym->live_var - 1;
}

static inline Node *strip_parens(Node *n) {
  while (n && n->kind == ND_EXPR && n->op == OP_PAREN)
    n = n->operand;
  return n;
}

static inline bool is_dot(const Live *l, const Node *n) {
  return n->kind == ND_EXPR && n->op == OP_MEMBER &&
         l->src->original.v[n->lhs->last + 1].code == '.';
}

/* A path into an object: `s.x`, `a[i]`, `s.t[2].u`, through parentheses. */
static inline bool is_path(const Live *l, const Node *n) {
  return n && n->kind == ND_EXPR && (n->op == OP_INDEX || is_dot(l, n));
}

/* The local whose storage an lvalue names, through `.` and the `[]` of an
   array (`&p.x`, `&a[2]`), or -1. (`&p[2]` of a pointer p names p too:
   that only keeps p in the frame when it need not be.) */
static inline int lvalue_var(const Live *l, Node *n) {
  for (n = strip_parens(n); is_path(l, n); n = strip_parens(n->lhs))
    ;
  return var_of(n);
}

#endif
