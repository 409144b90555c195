/* dot.c: --dot, each coroutine's state machine as a Graphviz graph.
 *
 * The states are where a resume can continue: the start, each resume point
 * (a yield), and the end. There is an edge from state A to state B when the
 * body, resumed in A, can run to B without passing another resume point:
 *
 *   start -> yield@12 -> yield@12 (a loop)
 *                     -> done
 *
 * It is a small data-flow pass over the statements: `pending` is the set of
 * states the running code may have been resumed in. A yield draws an edge
 * from each of them to itself and then is the only one; joins (after an if,
 * at a loop head, at a label, after a switch) merge sets. Jumps (goto,
 * break, continue, return) carry their set to the target. The whole walk
 * repeats until no set grows, which settles loops and backward gotos.
 */
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int n;           /* states: 0 start, 1..nresume resume points, nresume+1 done */
  char *edge;      /* [from * n + to] */
  bool changed;    /* a walk added an edge or grew a label's set */
  char **label_in; /* [label] the states that reach it (by goto or by falling in) */
  const char **label_names;
  int nlabels;
} Graph;

typedef struct {
  char *brk;  /* where `break` sends its states, or NULL */
  char *cont; /* where `continue` sends its states */
  char *sw;   /* the states entering the innermost switch (its case labels get them) */
} Jumps;

static char *new_set(Graph *g) {
  return xcalloc(g->n, 1);
}

static void merge(Graph *g, char *into, const char *from) {
  for (int i = 0; i < g->n; i++)
    into[i] |= from[i];
}

/* Merging into a set that outlives one walk (a label's) is progress. */
static void merge_lasting(Graph *g, char *into, const char *from) {
  for (int i = 0; i < g->n; i++)
    if (from[i] && !into[i]) {
      into[i] = 1;
      g->changed = true;
    }
}

/* Does this switch body have a default label of its own (not a nested switch's)? */
static bool default_pre(Node *n, void *ctx) {
  if (n->kind == ND_DEFAULT)
    *(bool *)ctx = true;
  return n->kind != ND_SWITCH && !*(bool *)ctx;
}

static bool has_default(Node *n) {
  bool found = false;
  if (n && n->kind != ND_SWITCH)
    visit(n, default_pre, NULL, &found);
  return found;
}

static void clear(Graph *g, char *set) {
  memset(set, 0, g->n);
}

static char *label_set(Graph *g, const char *name) {
  for (int i = 0; i < g->nlabels; i++)
    if (strcmp(g->label_names[i], name) == 0)
      return g->label_in[i];
  g->label_names = xappend(g->label_names, g->nlabels, sizeof(char *));
  g->label_in = xappend(g->label_in, g->nlabels, sizeof(char *));
  g->label_names[g->nlabels] = name;
  return g->label_in[g->nlabels++] = new_set(g);
}

static void flow(Graph *g, Node *n, char *pending, Jumps j);
static void arrive(Graph *g, char *pending, int state);

static void flow_expr(Graph *g, Node *n, char *pending);

/* One part that orders awaits (collect_sequenced): what && || ?: may skip
   is a branch, the states before it get through too. */
static void flow_sequenced(Graph *g, Node *n, char *pending) {
  if (n->kind == ND_AWAIT) {
    flow_expr(g, n->expr, pending);
    arrive(g, pending, n->resume_point);
    return;
  }
  flow_expr(g, n->lhs, pending); /* the condition of ?: */
  if (n->op == OP_COMMA) {
    flow_expr(g, n->rhs, pending);
    return;
  }
  char *skip = new_set(g);
  merge(g, skip, pending);
  if (n->op == OP_COND) {
    flow_expr(g, n->then, pending);
    flow_expr(g, n->otherwise, skip);
  } else {
    flow_expr(g, n->rhs, pending); /* && || */
  }
  merge(g, pending, skip);
  xfree(skip);
}

/* The awaits of an expression, in an order C allows. */
static void flow_expr(Graph *g, Node *n, char *pending) {
  if (!has_await(n))
    return;
  NodeList parts = {0};
  collect_sequenced(n, &parts);
  for (int i = 0; i < parts.n; i++)
    flow_sequenced(g, parts.v[i], pending);
  xfree(parts.v);
}

static void arrive(Graph *g, char *pending, int state) {
  for (int i = 0; i < g->n; i++)
    if (pending[i] && !g->edge[i * g->n + state]) {
      g->edge[i * g->n + state] = 1;
      g->changed = true;
    }
  clear(g, pending);
  pending[state] = 1;
}

/* A loop: the body runs with what reaches the head; what comes round (the
   end of the body, continue) reaches the head again. */
static void flow_loop(Graph *g, Node *body, Node *cond, Node *step, char *pending, bool test_first,
                      Jumps j) {
  char *head = new_set(g), *out = new_set(g), *cont = new_set(g);
  merge(g, head, pending);
  for (int round = 0; round < 2; round++) {
    char *run = new_set(g);
    merge(g, run, head);
    if (test_first) {
      flow_expr(g, cond, run); /* the condition, every pass */
      merge(g, out, run);
    }
    flow(g, body, run, (Jumps){out, cont, j.sw}); /* Duff's device: cases inside loops */
    merge(g, run, cont);
    flow_expr(g, step, run);
    if (!test_first) {
      flow_expr(g, cond, run);
      merge(g, out, run);
    }
    merge(g, head, run);
  }
  clear(g, pending);
  merge(g, pending, out);
}

static void flow(Graph *g, Node *n, char *pending, Jumps j) {
  if (!n)
    return;
  switch (n->kind) {
  case ND_BLOCK:
    for (int i = 0; i < n->kids.n; i++)
      flow(g, n->kids.v[i], pending, j);
    return;
  case ND_YIELD:
    arrive(g, pending, n->resume_point);
    return;
  case ND_RETURN:
    flow_expr(g, n->expr, pending);
    arrive(g, pending, g->n - 1);
    clear(g, pending);
    return;
  case ND_EXPR_STMT:
    flow_expr(g, n->expr, pending);
    return;
  case ND_DECL:
    for (int i = 0; i < n->kids.n; i++)
      flow_expr(g, n->kids.v[i]->init, pending);
    return;
  case ND_IF: {
    flow_expr(g, n->cond, pending);
    char *other = new_set(g);
    merge(g, other, pending);
    flow(g, n->then, pending, j);
    flow(g, n->otherwise, other, j);
    merge(g, pending, other);
    return;
  }
  case ND_WHILE:
    flow_loop(g, n->body, n->cond, NULL, pending, true, j);
    return;
  case ND_FOR:
    flow(g, n->init, pending, j); /* once */
    flow_loop(g, n->body, n->cond, n->step, pending, true, j);
    return;
  case ND_DO:
    flow_loop(g, n->body, n->cond, NULL, pending, false, j);
    return;
  case ND_SWITCH: {
    flow_expr(g, n->cond, pending);
    char *in = new_set(g), *out = new_set(g);
    merge(g, in, pending);
    if (!has_default(n->body))
      merge(g, out, in); /* no case matched */
    clear(g, pending);   /* before the first label nothing runs */
    flow(g, n->body, pending, (Jumps){out, j.cont, in});
    merge(g, pending, out);
    return;
  }
  case ND_CASE:
  case ND_DEFAULT:
    if (j.sw)
      merge(g, pending, j.sw);
    flow(g, n->body, pending, j);
    return;
  case ND_LABEL: {
    char *in = label_set(g, tok_text(n->tok));
    merge_lasting(g, in, pending);
    merge(g, pending, in);
    flow(g, n->body, pending, j);
    return;
  }
  case ND_GOTO:
    if (!n->expr) /* goto *p: computed, its targets unknown */
      merge_lasting(g, label_set(g, tok_text(&n->tok[1])), pending);
    clear(g, pending);
    return;
  case ND_BREAK:
    if (j.brk)
      merge(g, j.brk, pending);
    clear(g, pending);
    return;
  case ND_CONTINUE:
    if (j.cont)
      merge(g, j.cont, pending);
    clear(g, pending);
    return;
  default:
    return; /* declarations and expressions: straight through */
  }
}

/* One coroutine's graph. Alone in the file, it is the whole digraph (nodes
 * s0, s1...). With others, it is one cluster of the file's digraph, and its
 * nodes are named after it (NAME_s0...), so that `dot -Tsvg` draws one page
 * with a box per coroutine: several digraphs in one input would make several
 * SVG documents in one file, which no viewer opens. */
static void print_graph(FILE *out, Source *src, Coroutine *co, Graph *g, bool cluster) {
  const char *in = cluster ? "    " : "  ";
  const char *prefix = cluster ? co->name : "";
  const char *sep = cluster ? "_" : "";
  if (cluster)
    fprintf(out, "  subgraph \"cluster_%s\" {\n", co->name);
  else
    fprintf(out, "digraph \"%s\" {\n", co->name);
  fprintf(out, "%slabel=\"coroutine %s (%s:%d)\";\n", in, co->name, src->name,
          src->original.v[co->first].line);
  if (!cluster)
    fprintf(out, "  node [shape=box, fontname=\"monospace\"];\n");
  fprintf(out, "%s%s%ss0 [label=\"start\", shape=oval];\n", in, prefix, sep);
  for (int i = 1; i <= co->nresume; i++)
    fprintf(out, "%s%s%ss%d [label=\"%d: %s, line %d\"];\n", in, prefix, sep, i, i,
            co->resume_words[i], co->resume_lines[i]);
  fprintf(out, "%s%s%ss%d [label=\"done\", shape=oval];\n", in, prefix, sep, g->n - 1);
  for (int a = 0; a < g->n; a++)
    for (int b = 0; b < g->n; b++)
      if (g->edge[a * g->n + b])
        fprintf(out, "%s%s%ss%d -> %s%ss%d;\n", in, prefix, sep, a, prefix, sep, b);
  fprintf(out, cluster ? "  }\n" : "}\n");
}

/* Work out one coroutine's graph and print it. */
static void graph_coroutine(FILE *out, Source *src, Coroutine *co, bool cluster) {
  Graph g = {.n = co->nresume + 2};
  g.edge = xcalloc(g.n * g.n, 1);
  for (int round = 0; round < 64; round++) {
    g.changed = false;
    char *pending = new_set(&g);
    pending[0] = 1;
    flow(&g, co->def->body, pending, (Jumps){NULL, NULL, NULL});
    arrive(&g, pending, g.n - 1); /* falling off the end */
    if (!g.changed)
      break;
  }
  print_graph(out, src, co, &g, cluster);
}

void emit_dot(FILE *out, Source *src, Coroutine *cos) {
  int ndefs = 0;
  for (Coroutine *co = cos; co; co = co->next)
    ndefs += co->def != NULL;
  bool cluster = ndefs > 1;
  if (cluster) {
    fprintf(out, "digraph \"%s\" {\n", src->name);
    fprintf(out, "  label=\"%s\";\n", src->name);
    fprintf(out, "  node [shape=box, fontname=\"monospace\"];\n");
  }
  for (Coroutine *co = cos; co; co = co->next)
    if (co->def)
      graph_coroutine(out, src, co, cluster);
  if (cluster)
    fprintf(out, "}\n");
}

/* One coroutine's graph, a digraph of its own (--html draws one a coroutine). */
void emit_dot_coroutine(FILE *out, Source *src, Coroutine *co) {
  graph_coroutine(out, src, co, false);
}
