/* ast.c: node constructors, lists, and a debug dump (COROC_DUMP_AST=1). */
#include "coroc.h"

Node *new_node(NodeKind kind, int first, int last) {
  Node *n = xcalloc(1, sizeof *n);
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

Node *node_list(NodeKind kind, int first, int last, Node *item) {
  Node *list = new_node(kind, first, last);
  if (item)
    list_push(&list->kids, item);
  return list;
}

Node *node_append(Node *list, Node *item, int last) {
  if (item)
    list_push(&list->kids, item);
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

void ast_dump(FILE *out, const Node *n, int depth) {
  if (!n)
    return;
  fprintf(out, "%*s%s [%d..%d]%s%s\n", depth * 2, "", kind_names[n->kind], n->first, n->last,
          n->tok ? " " : "", n->tok ? n->tok->text : "");
  const Node *kids[] = {n->a, n->b, n->c, n->d};
  for (int i = 0; i < 4; i++)
    ast_dump(out, kids[i], depth + 1);
  for (int i = 0; i < n->kids.n; i++)
    ast_dump(out, n->kids.v[i], depth + 1);
}
