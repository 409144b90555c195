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
  "BLOCK", "DECL", "EXPR_STMT", "IF", "SWITCH", "WHILE", "DO", "FOR", "GOTO", "CONTINUE",
  "BREAK", "RETURN", "LABEL", "CASE", "DEFAULT", "YIELD", "ASM_STMT", "LABEL_DECL",
  "STATIC_ASSERT", "DIRECTIVE", "SPECS", "INIT_DECL", "DECLARATOR", "POINTER", "ARRAY", "FUNC",
  "PARAM", "TAGGED", "ENUMERATOR", "TYPENAME", "INIT_LIST", "IDENT", "AWAIT", "STMT_EXPR",
  "SIZEOF", "EXPR", "FUNCDEF", "TRANSLATION_UNIT",
};

typedef struct {
  FILE *out;
  int depth;
} Dump;

static bool dump_pre(Node *n, void *ctx) {
  Dump *d = ctx;
  fprintf(d->out, "%*s%s [%d..%d]%s%s\n", d->depth * 2, "", kind_names[n->kind], n->first, n->last,
          n->tok ? " " : "", n->tok ? n->tok->text : "");
  d->depth++;
  return true;
}

static void dump_post(Node *n, void *ctx) {
  (void)n;
  ((Dump *)ctx)->depth--;
}

void ast_dump(FILE *out, const Node *n, int depth) {
  visit((Node *)n, dump_pre, dump_post, &(Dump){out, depth});
}

/* {==================================================================
 * The visitor
 * =================================================================== */

Node *node_child(const Node *n, int *i) {
  /* fixed children first, in the order they stand in the source */
  static const int order_for[] = {3, 0, 2, 1};  /* d (init), a (cond), c (step), b (body) */
  static const int order_do[] = {1, 0, -1, -1}; /* b (body), a (cond) */
  static const int order_any[] = {0, 1, 2, 3};  /* a, b, c, d */
  const int *order = n->kind == ND_FOR ? order_for : n->kind == ND_DO ? order_do : order_any;
  Node *fixed[] = {n->a, n->b, n->c, n->d};
  while (*i < 4) {
    int k = order[(*i)++];
    if (k >= 0 && fixed[k])
      return fixed[k];
  }
  while (*i - 4 < n->kids.n) {
    Node *kid = n->kids.v[(*i)++ - 4];
    if (kid)
      return kid;
  }
  return NULL;
}

void visit(Node *root, VisitPre *pre, VisitPost *post, void *ctx) {
  if (!root)
    return;
  struct Frame { Node *n; int next; } *stack = NULL;
  int depth = 0, cap = 0;
  if (!pre(root, ctx)) {
    if (post)
      post(root, ctx);
    return;
  }
  stack = xrealloc(stack, sizeof *stack * (cap = 64));
  stack[depth++] = (struct Frame){root, 0};
  while (depth > 0) {
    struct Frame *top = &stack[depth - 1];
    Node *kid = node_child(top->n, &top->next);
    if (!kid) {
      depth--;
      if (post)
        post(top->n, ctx);
      continue;
    }
    if (!pre(kid, ctx)) {
      if (post)
        post(kid, ctx);
      continue;
    }
    if (depth == cap)
      stack = xrealloc(stack, sizeof *stack * (cap *= 2));
    stack[depth++] = (struct Frame){kid, 0};
  }
  xfree(stack);
}
