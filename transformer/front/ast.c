/* ast.c: node constructors, lists, and a debug dump (COROC_DUMP_AST=1). */
#include "coroc.h"
#include <stdlib.h>
#include <string.h>

Node *new_node(NodeKind kind, int first, int last) {
  Node *n = arena_alloc(&arena_tree, sizeof *n);
  n->kind = kind;
  n->first = first;
  n->last = last;
  return n;
}

void list_push(NodeList *l, Node *n) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4;
    l->v = xrealloc(l->v, sizeof(Node *) * l->cap);
  }
  l->v[l->n++] = n;
}

/* A child of a tree node: its list grows in the tree's arena (the old
   array stays there, unused: the doubling keeps that to as much again). */
void node_add_kid(Node *n, Node *kid) {
  NodeList *l = &n->kids;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 4;
    Node **v = arena_alloc(&arena_tree, sizeof(Node *) * cap);
    if (l->n)
      memcpy(v, l->v, sizeof(Node *) * l->n);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = kid;
}

Node *node_list(NodeKind kind, int first, int last, Node *item) {
  Node *list = new_node(kind, first, last);
  if (item)
    node_add_kid(list, item);
  return list;
}

Node *node_append(Node *list, Node *item, int last) {
  if (item)
    node_add_kid(list, item);
  list->last = last;
  return list;
}

static const char *const kind_names[] = {
    "BLOCK",
    "DECL",
    "EXPR_STMT",
    "IF",
    "SWITCH",
    "WHILE",
    "DO",
    "FOR",
    "GOTO",
    "CONTINUE",
    "BREAK",
    "RETURN",
    "LABEL",
    "CASE",
    "DEFAULT",
    "YIELD",
    "ASM_STMT",
    "LABEL_DECL",
    "STATIC_ASSERT",
    "PRAGMA",
    "DIRECTIVE",
    "SPECS",
    "SPECIFIER",
    "INIT_DECL",
    "DECLARATOR",
    "POINTER",
    "ARRAY",
    "FUNC",
    "PARAM",
    "TAGGED",
    "ENUMERATOR",
    "TYPENAME",
    "INIT_LIST",
    "DESIGNATION",
    "IDENT",
    "AWAIT",
    "STMT_EXPR",
    "SIZEOF",
    "EXPR",
    "FUNCDEF",
    "TRANSLATION_UNIT",
};

static const char *const op_names[] = {
    [OP_COMMA] = "comma",
    [OP_ASSIGN] = "assign",
    [OP_ASSIGN_OP] = "assign-op",
    [OP_COND] = "cond",
    [OP_OR] = "or",
    [OP_AND] = "and",
    [OP_BINARY] = "binary",
    [OP_CAST] = "cast",
    [OP_ADDRESS] = "address",
    [OP_DEREF] = "deref",
    [OP_UNARY] = "unary",
    [OP_POSTFIX] = "postfix",
    [OP_LABEL_ADDR] = "label-address",
    [OP_REAL] = "real",
    [OP_IMAG] = "imag",
    [OP_INDEX] = "index",
    [OP_CALL] = "call",
    [OP_MEMBER] = "member",
    [OP_COMPOUND_LITERAL] = "compound-literal",
    [OP_PAREN] = "paren",
    [OP_NUMBER] = "number",
    [OP_CHAR] = "char",
    [OP_STRING] = "string",
    [OP_GENERIC] = "generic",
    [OP_VA_ARG] = "va-arg",
};

/* The name of the slot of `parent` that holds `kid` (see struct Node), or
   NULL for one of its kids. */
static const char *slot_name(const Node *parent, const Node *kid) {
  NodeKind k = parent->kind;
  bool expr = k == ND_EXPR, cond = expr && parent->op == OP_COND;
  if (kid == parent->cond) {
    if (k == ND_IF || k == ND_SWITCH || k == ND_WHILE || k == ND_DO || k == ND_FOR || cond)
      return "cond";
    if (k == ND_DECL || k == ND_INIT_DECL || k == ND_PARAM || k == ND_TYPENAME || k == ND_FUNCDEF)
      return "specs";
    if (k == ND_CASE || k == ND_ENUMERATOR)
      return "value";
    return k == ND_ARRAY                          ? "size"
           : k == ND_STMT_EXPR                    ? "block"
           : !expr                                ? "expr"
           : parent->rhs || parent->op == OP_CALL ? "lhs"
                                                  : "operand";
  }
  if (kid == parent->then)
    return k == ND_IF || cond ? "then"
           : k == ND_FOR      ? "step"
           : k == ND_CASE     ? "high"
           : expr             ? "rhs"
                              : "declarator";
  if (kid == parent->otherwise)
    return k == ND_IF || cond ? "otherwise" : "init";
  if (kid == parent->body)
    return k == ND_EXPR || k == ND_INIT_LIST || k == ND_IDENT || k == ND_AWAIT || k == ND_SIZEOF ||
                   k == ND_STMT_EXPR
               ? "designation"
               : "body";
  return NULL;
}

typedef struct {
  FILE *out;
  int depth;
  NodeList parents; /* the nodes whose children are being dumped */
} Dump;

static bool dump_pre(Node *n, void *ctx) {
  Dump *d = ctx;
  const char *slot = d->parents.n ? slot_name(d->parents.v[d->parents.n - 1], n) : NULL;
  fprintf(d->out, "%*s%s%s%s", d->depth * 2, "", slot ? slot : "", slot ? ": " : "",
          kind_names[n->kind]);
  if (n->kind == ND_EXPR && n->op > 0 && n->op <= OP_VA_ARG)
    fprintf(d->out, " %s", op_names[n->op]);
  fprintf(d->out, " [%d..%d]%s%s\n", n->first, n->last, n->tok ? " " : "",
          n->tok ? tok_text(n->tok) : "");
  d->depth++;
  list_push(&d->parents, n);
  return true;
}

static void dump_post(Node *n, void *ctx) {
  (void)n;
  Dump *d = ctx;
  d->depth--;
  d->parents.n--;
}

void ast_dump(FILE *out, const Node *n, int depth) {
  Dump d = {out, depth, {0}};
  visit((Node *)n, dump_pre, dump_post, &d);
  xfree(d.parents.v);
}

/* {==================================================================
 * The visitor
 * =================================================================== */

/* The four slots first, in the order they stand in the source, then the
   kids. The order of the slots, by kind: */
static const int order_for[] = {2, 0, 1, 3};    /* init, cond, step, body */
static const int order_do[] = {3, 0, -1, -1};   /* body, cond */
static const int order_decl[] = {1, 2, -1, -1}; /* declarator, init: the specs are the
                                                   declaration's, not a child of each */
static const int order_any[] = {0, 1, 2, 3};
static const int order_none[] = {-1, -1, -1, -1}; /* a struct's members: no part of the walks */

static inline const int *slot_order(const Node *n) {
  return n->kind == ND_FOR         ? order_for
         : n->kind == ND_DO        ? order_do
         : n->kind == ND_INIT_DECL ? order_decl
         : n->kind == ND_TAGGED    ? order_none
                                   : order_any;
}

Node *node_child(const Node *n, int *i) {
  const int *order = slot_order(n);
  Node *slot[] = {n->cond, n->then, n->otherwise, n->body};
  while (*i < 4) {
    int k = order[(*i)++];
    if (k >= 0 && slot[k])
      return slot[k];
  }
  while (*i - 4 < n->kids.n) {
    Node *kid = n->kids.v[(*i)++ - 4];
    if (kid)
      return kid;
  }
  return NULL;
}

/* A node being walked: its children in the slots are found once, when it
   is entered, and then handed out in turn (finding the next one again at
   every step, from the four slots, was a tenth of coroc's time on a large
   .coc: every pass walks every body). */
typedef struct {
  Node *n;
  Node *slot[4]; /* its non-NULL slots, in order */
  int nslots;
  int next; /* children handed out: slots first, then kids */
} Frame;

static inline void put_slot(Frame *f, Node *kid) {
  if (kid)
    f->slot[f->nslots++] = kid;
}

/* The slots in slot_order's order, written out: this runs at every node. */
static inline void enter(Frame *f, Node *n) {
  f->n = n;
  f->nslots = 0;
  f->next = 0;
  switch (n->kind) {
  case ND_FOR: /* init, cond, step, body */
    put_slot(f, n->otherwise);
    put_slot(f, n->cond);
    put_slot(f, n->then);
    put_slot(f, n->body);
    break;
  case ND_DO: /* body, cond */
    put_slot(f, n->body);
    put_slot(f, n->cond);
    break;
  case ND_INIT_DECL: /* declarator, init */
    put_slot(f, n->then);
    put_slot(f, n->otherwise);
    break;
  case ND_TAGGED: /* its enumerators (kids) alone: a struct's members are not walked */
    break;
  default:
    put_slot(f, n->cond);
    put_slot(f, n->then);
    put_slot(f, n->otherwise);
    put_slot(f, n->body);
  }
}

static inline Node *next_of(Frame *f) {
  if (f->next < f->nslots)
    return f->slot[f->next++];
  const NodeList *kids = &f->n->kids;
  while (f->next - f->nslots < kids->n) {
    Node *kid = kids->v[f->next++ - f->nslots];
    if (kid)
      return kid;
  }
  return NULL;
}

/* The stack of a walk starts on the C stack, deep enough for any body of
   real code: a walk took a malloc and a free before (every pass walks each
   body several times, and each await and loop again), 4% of the time. A
   deeper tree moves it to the heap. */
enum { VISIT_STACK = 64 };

static Frame *grow(Frame *stack, Frame *local, int *cap) {
  Frame *bigger = xrealloc(stack == local ? NULL : stack, sizeof *stack * (size_t)*cap * 2);
  if (stack == local)
    memcpy(bigger, local, sizeof *stack * (size_t)*cap);
  *cap *= 2;
  return bigger;
}

/* A node with no children: none in a slot, none in the list. */
static inline bool is_leaf(const Node *n) {
  return !n->cond && !n->then && !n->otherwise && !n->body && n->kids.n == 0;
}

void visit(Node *root, VisitPre *pre, VisitPost *post, void *ctx) {
  if (!root)
    return;
  if (!pre(root, ctx)) {
    if (post)
      post(root, ctx);
    return;
  }
  Frame local[VISIT_STACK], *stack = local;
  int depth = 0, cap = VISIT_STACK;
  enter(&stack[depth++], root);
  while (depth > 0) {
    Frame *top = &stack[depth - 1];
    Node *kid = next_of(top);
    if (!kid) {
      depth--;
      if (post)
        post(top->n, ctx);
      continue;
    }
    if (!pre(kid, ctx) || is_leaf(kid)) { /* (a leaf needs no frame: half the nodes) */
      if (post)
        post(kid, ctx);
      continue;
    }
    if (depth == cap)
      stack = grow(stack, local, &cap);
    enter(&stack[depth++], kid);
  }
  if (stack != local)
    xfree(stack);
}
