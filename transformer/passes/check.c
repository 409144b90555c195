/* check.c: the coroutine rules, for both backends, and what the later
 * passes are told about a body.
 *
 * One walk over each coroutine definition's body (docs/limitations.md has
 * every message):
 *  - a generator may not use a bare `yield;`, nor `return EXPR;` (one that
 *    awaits is an async generator, its children on the heap); a
 *    void coroutine yields no value; nothing may suspend where C does not
 *    evaluate (sizeof, typeof) or inside a statement expression; a local
 *    that lives in a frame has a size known at compile time and a type
 *    written out; a coroutine is not variadic; no #include in a body; one
 *    expression holds at most one `?:` that awaits in an arm (the stackless
 *    backend keeps its value in a block of its own);
 *  - as it goes, it numbers the resume points (each yield and await) 1, 2,
 *    3... in source order, says what each await awaits (a task, or an
 *    awaitable operation and its type), marks the values nobody uses and
 *    the subtrees that await (Node.awaits, Node.selects), and numbers the
 *    && and || whose right side awaits (their coro_cond_N fields).
 * The rules for the macros a body uses as statements (loops, blocks, jumps, declarations they
 * hide) are check_macros.c's, called at every node of the same walk.
 * Both backends run it, so they accept exactly the same programs.
 */
#include "coroc.h"
#include "stream.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  Coroutine *co;            /* the coroutine being checked */
  Definitions *defs;        /* every coroutine the file defines */
  Source *src;              /* its input */
  int stmt_expr;            /* > 0 inside ({ ... }) */
  int unevaluated;          /* > 0 inside sizeof, _Alignof, typeof */
  const Token *alloca_call; /* the first call of alloca (or of a macro that calls it) */
  const Token *setjmp_call; /* ... of setjmp */
} Checker;

/* {==================================================================
 * Locals that live in a frame
 * =================================================================== */

/* Is this array size a constant? Only names of objects make it variable:
   enumeration constants, macros (unknown names) and sizeof are constant. */
static bool variable_size_pre(Node *n, void *ctx) {
  if (n->kind == ND_SIZEOF)
    return false;
  if (n->kind == ND_IDENT && n->sym && n->sym->kind == SYM_OBJECT)
    *(bool *)ctx = true;
  return !*(bool *)ctx;
}

static bool is_variable_size(Node *n) {
  bool variable = false;
  visit(n, variable_size_pre, NULL, &variable);
  return variable;
}

static void check_no_vla(Checker *c, const Node *declarator, const char *what) {
  for (int i = 0; i < declarator->kids.n; i++) {
    Node *d = declarator->kids.v[i];
    if (d->kind == ND_ARRAY && is_variable_size(d->size))
      error_tok(declarator->tok ? declarator->tok : d->tok,
                "variable-length array %s in a "
                "coroutine: a frame needs sizes known at compile time",
                what);
  }
  (void)c;
}

/* An object declared in the body lives in the frame (frame.c), unless it is
   static, extern or thread-local, or in a statement expression: so its size
   must be known at compile time (an `__auto_type` one takes its
   initializer's type: text.c, auto_type). */
static void check_local(Checker *c, Node *init_decl, int specs) {
  Sym *s = init_decl->sym;
  if (!s || s->in_stmt_expr || s->kind != SYM_OBJECT ||
      (specs & (SP_STATIC | SP_EXTERN | SP_THREAD)))
    return;
  check_no_vla(c, init_decl->declarator, format("'%s'", s->name));
}

static void check_decl(Checker *c, Node *decl) {
  if (c->stmt_expr)
    return;
  for (int i = 0; i < decl->kids.n; i++)
    check_local(c, decl->kids.v[i], decl->specs->flags);
}

/* }================================================================== */

/* {==================================================================
 * Resume points and what is awaited
 * =================================================================== */

/* CORO_MAX_RESUME_POINTS of coro/gen.h: resume_point is a 16-bit field whose top
   bit marks stackful instances. */
enum { MAX_RESUME_POINTS = 0x7fff };

/* Resume points are numbered in source order; each remembers its line for
   the comment in the dispatch switch. */
static int new_resume_point(Checker *c, const Token *where) {
  Coroutine *co = c->co;
  if (co->nresume == MAX_RESUME_POINTS) /* the runtime keeps the number in 15 bits */
    error_tok(where,
              "coroutine '%s' has more than %d yields and awaits; split it into several coroutines",
              co->name, MAX_RESUME_POINTS);
  co->nresume++;
  co->resume_lines = xappend(co->resume_lines, co->nresume, sizeof(int));
  co->resume_lines[co->nresume] = where->line;
  co->resume_words = xappend(co->resume_words, co->nresume, sizeof(char *));
  co->resume_words[co->nresume] = tok_text(where); /* "yield" or "await" */
  return co->nresume;
}

static void walk_yield(Checker *c, Node *n) {
  Coroutine *co = c->co;
  if (c->stmt_expr)
    error_tok(n->tok,
              "'yield' inside a statement expression is not supported: the "
              "expression's unfinished value would be lost while the coroutine is suspended");
  if (n->flags & YIELD_IN_INIT)
    error_tok(n->tok,
              "'yield' in an initializer: declare the variable, then receive the value "
              "sent with the statement 'NAME = yield EXPR;'");
  if (n->flags & YIELD_COMPOUND)
    error_tok(n->tok,
              "only '=' receives the value sent to a 'yield': write 'tmp = yield EXPR;', "
              "then use tmp");
  if (n->flags & YIELD_IN_EXPR)
    error_tok(n->tok,
              "'LVALUE = yield EXPR;' must be a statement of its own, not part of a "
              "larger expression or of a for loop's clauses");
  if (n->expr) {
    if (co->returns_void)
      error_tok(n->tok, "'yield' with a value in coroutine '%s', whose type is void", co->name);
    co->is_generator = true;
  } else {
    co->has_bare_yield = true;
    if (!co->first_bare_yield)
      co->first_bare_yield = n->tok;
  }
  n->resume_point = new_resume_point(c, n->tok);
}

/* C text for the type a function returns: its specifiers (no storage
   class) and its declarator without the name and the parameter list. */
static char *return_type(Sym *f) {
  TokenList *toks = f->toks;
  Node *specs = f->decl->specs, *d = f->decl->declarator;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = xmemstream(&buf, &len);
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if (k->kind == ND_SPECIFIER && (k->flags & (SP_TYPEDEF | SP_EXTERN | SP_STATIC | SP_THREAD)))
      continue;
    for (int j = k->first; j <= k->last; j++) {
      Token *t = &toks->v[j];
      if (t->kind == TK_IDENT &&
          (!strcmp(tok_text(t), "inline") || !strcmp(tok_text(t), "__inline") ||
           !strcmp(tok_text(t), "__inline__")))
        continue;
      xfprintf(out, "%s%s", len || memstream_tell(out) ? " " : "", tok_text(t));
    }
  }
  Node *params = d->kids.v[0];
  for (int j = d->first; j <= d->last; j++) {
    if (j == params->first) {
      j = params->last;
      continue;
    }
    if (&toks->v[j] != d->tok)
      xfprintf(out, " %s", tok_text(&toks->v[j]));
  }
  memstream_close(out);
  return buf;
}

/* Does this body have a `yield EXPR;` (is it a generator's)? */
static bool yield_value_pre(Node *n, void *ctx) {
  if (n->kind == ND_YIELD && n->expr)
    *(bool *)ctx = true;
  return !*(bool *)ctx;
}

static bool yields_values(Node *body) {
  bool found = false;
  visit(body, yield_value_pre, NULL, &found);
  return found;
}

/* Does this body hold a node of this kind (an await: is a generator an
   async generator)? */
typedef struct {
  NodeKind kind;
  bool found;
} KindSought;

static bool kind_pre(Node *n, void *ctx) {
  KindSought *k = ctx;
  k->found |= n->kind == k->kind;
  return !k->found;
}

static bool holds_kind(Node *body, NodeKind kind) {
  KindSought k = {kind, false};
  visit(body, kind_pre, NULL, &k);
  return k.found;
}

static size_t name_hash(const char *s) {
  size_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The slot of `name`: its definition's, or the empty one where it would go. */
static Coroutine **definition_slot(const Definitions *d, const char *name) {
  size_t i = name_hash(name) & d->mask;
  while (d->slot[i] && strcmp(d->slot[i]->name, name) != 0)
    i = (i + 1) & d->mask;
  return &d->slot[i];
}

/* Twice the slots, the definitions hashed again. (The table lasts the run:
   memory_keep takes it out of the streaming run's region.) */
static void definitions_grow(Definitions *d) {
  size_t size = d->slot ? 2 * (d->mask + 1) : 16;
  Definitions bigger = *d;
  bigger.slot = memory_keep(xcalloc(size, sizeof(Coroutine *)));
  bigger.mask = size - 1;
  for (size_t i = 0; d->slot && i <= d->mask; i++)
    if (d->slot[i])
      *definition_slot(&bigger, d->slot[i]->name) = d->slot[i];
  xfree(d->slot);
  *d = bigger;
}

void definitions_add(Definitions *d, Coroutine *co) {
  if (!co->def)
    return;
  if (!d->slot || 2 * (d->n + 1) > d->mask + 1)
    definitions_grow(d);
  Coroutine **slot = definition_slot(d, co->name);
  if (!*slot) { /* the first definition of a name is the one */
    *slot = co;
    d->n++;
  }
}

void definitions_free(Definitions *d) {
  xfree(d->slot);
  xfree(d->missed);
  *d = (Definitions){0};
}

/* The note of `name` among those missed, or NULL. */
static struct Missed *missed_note(const Definitions *d, const char *name) {
  for (int i = 0; i < d->nmissed; i++)
    if (strcmp(d->missed[i].name, name) == 0)
      return &d->missed[i];
  return NULL;
}

unsigned definitions_missed(const Definitions *d, const char *name) {
  const struct Missed *m = missed_note(d, name);
  return m ? m->asked : 0;
}

/* The definition of coroutine `name`, if the file has one (so far). A name
   not found is noted with what was asked of it (MISSED_*): the streaming
   run must know if its definition comes later. */
static Coroutine *find_definition(Checker *c, const char *name, unsigned asked) {
  Coroutine *found = *definition_slot(c->defs, name);
  Definitions *d = c->defs;
  if (found)
    return found;
  struct Missed *m = missed_note(d, name);
  if (m) {
    m->asked |= asked;
    return NULL;
  }
  if (d->nmissed == d->capmissed) {
    d->capmissed = d->capmissed ? 2 * d->capmissed : 16;
    d->missed = memory_keep(xrealloc(d->missed, sizeof *d->missed * d->capmissed));
  }
  d->missed[d->nmissed++] = (struct Missed){name, asked};
  return NULL;
}

/* Children inside their parent. `await child(...)` of a coroutine defined
   above in the file, whose arguments do not await, needs no frame of its
   own on the heap: the child's frame is a field of the awaiting one
   (stackless; all such fields of a coroutine share storage, since it awaits
   one child at a time), or its body runs as a plain call on the awaiting
   stack (stackful). Defined above: its frame's struct is complete where the
   parent's is printed, and no chain of such awaits can come back to the
   parent (a recursive coroutine keeps the heap), so every chain of inline
   children ends, and an await chain allocates once, at its root. Otherwise
   the child is made on the heap, and n->heap_reason says why (--stats). */
static void place_child(Checker *c, Node *n, Coroutine *callee) {
  if (!callee)
    n->heap_reason = "its definition is not in this file";
  else if (c->co->is_async)
    n->heap_reason = format(
        "%s is an async generator, whose body runs only as its consumer's child", c->co->name);
  else if (callee == c->co)
    n->heap_reason = "it awaits itself (recursion)";
  else if (callee->first > c->co->first)
    n->heap_reason = format("it is defined below %s (a frame holds only children defined above it)",
                            c->co->name);
  else if (has_await(n->expr))
    n->heap_reason = "its arguments await";
  else {
    n->inline_child = callee;
    callee->awaited_inline = true;
  }
}

/* What is awaited: a coroutine (a task: `await child(x)`), or an awaitable
   operation, a function returning an awaitable struct (`await coro_read(...)`). */
static void classify_await(Checker *c, Node *n) {
  Node *call = n->expr;
  Sym *f = call->kind == ND_EXPR && call->op == OP_CALL && call->lhs->kind == ND_IDENT
               ? call->lhs->sym
               : NULL;
  if (f && (f->specs & SP_COROUTINE)) {
    Coroutine *callee = find_definition(c, f->name, MISSED_AWAIT);
    if (callee && callee->is_async)
      error_tok(n->tok,
                "'%s' is an async generator: a task takes its values with 'await "
                "coro_next_await(gen, &value)'; only tasks are awaited",
                f->name);
    if (callee && callee->is_generator)
      error_tok(n->tok,
                "'%s' is a generator: consume it with coro_next; only tasks are "
                "awaited",
                f->name);
    n->callee = f->name;
    n->sym = f;
    place_child(c, n, callee);
    return;
  }
  if (f && f->kind == SYM_FUNCTION && f->decl && f->decl->kind == ND_INIT_DECL) {
    n->type = return_type(f);
    return;
  }
  error_tok(n->tok,
            "'await' needs a call: of a coroutine, or of a function that returns an "
            "awaitable (docs/runtime.md)");
}

static void walk_await(Checker *c, Node *n) {
  if (c->unevaluated)
    error_tok(n->tok, "'await' in an operand that C does not evaluate (sizeof, _Alignof, typeof)");
  if (c->stmt_expr)
    error_tok(n->tok, "'await' inside a statement expression is not supported");
  if (!c->co->first_await)
    c->co->first_await = n->tok;
  n->resume_point = new_resume_point(c, n->tok);
  classify_await(c, n);
  list_push(&c->co->awaits, n);
}

/* }================================================================== */

/* {==================================================================
 * What the later passes are told
 * =================================================================== */

/* A value nobody uses: the arms of a dropped ?: and the right of a dropped
   comma are dropped too; so is what stands in parentheses or a (void) cast.
   A node marked once has had its heirs marked: a chain of commas, each
   marking its left side, costs one visit a node. */
void mark_discarded(Node *n) {
  NodeList todo = {0};
  if (n)
    list_push(&todo, n);
  while (todo.n > 0) {
    n = todo.v[--todo.n];
    if (n->discarded)
      continue;
    n->discarded = true;
    if (n->kind != ND_EXPR)
      continue;
    Node *heirs[2] = {NULL, NULL};
    if (n->op == OP_COMMA) {
      heirs[0] = n->lhs, heirs[1] = n->rhs;
    } else if (n->op == OP_COND) {
      heirs[0] = n->then, heirs[1] = n->otherwise;
    } else if (n->op == OP_PAREN) {
      heirs[0] = n->operand;
    } else if (n->op == OP_CAST && (n->lhs->specs->flags & SP_VOID) && !n->lhs->declarator) {
      heirs[0] = n->rhs; /* (void)x */
    }
    for (int i = 0; i < 2; i++)
      if (heirs[i])
        list_push(&todo, heirs[i]);
  }
  xfree(todo.v);
}

bool has_inline_children(const Coroutine *co) {
  for (int i = 0; i < co->awaits.n; i++)
    if (co->awaits.v[i]->inline_child)
      return true;
  return false;
}

bool has_await(const Node *n) {
  return n && n->awaits;
}

bool has_awaiting_select(const Node *n) {
  return n && n->selects;
}

/* Node.awaits and Node.selects, from the leaves up, once per body: each
   node, when the walk leaves it, hands its marks to its parent, the node
   below it on the stack of the nodes being walked (asking each node for
   its children again, after the walk had given them, cost as much as the
   walk). */
static bool awaits_pre(Node *n, void *ctx) {
  n->awaits = n->kind == ND_AWAIT;
  n->selects = false;
  list_push(ctx, n);
  return true;
}

static void awaits_post(Node *n, void *ctx) {
  NodeList *open = ctx;
  open->n--;
  if (n->kind == ND_EXPR && n->op == OP_COND && (has_await(n->then) || has_await(n->otherwise)))
    n->selects = true;
  if (open->n > 0) {
    Node *parent = open->v[open->n - 1];
    parent->awaits |= n->awaits;
    parent->selects |= n->selects;
  }
}

static void mark_awaits(Node *body) {
  NodeList open = {0};
  visit(body, awaits_pre, awaits_post, &open);
  xfree(open.v);
}

/* Is n one of the parts that order awaits (see collect_sequenced)? */
static bool is_sequencing(const Node *n) {
  if (n->kind == ND_AWAIT)
    return true;
  if (n->kind != ND_EXPR)
    return false;
  switch (n->op) {
  case OP_AND:
  case OP_OR:
    return has_await(n->rhs);
  case OP_COND:
    return has_await(n->then) || has_await(n->otherwise);
  case OP_COMMA:
    return true;
  default:
    return false;
  }
}

static bool sequenced_pre(Node *n, void *ctx) {
  if (!has_await(n) || n->kind == ND_SIZEOF || n->kind == ND_STMT_EXPR)
    return false;
  if (is_sequencing(n)) {
    list_push(ctx, n);
    return false;
  }
  return true;
}

void collect_sequenced(Node *n, NodeList *out) {
  visit(n, sequenced_pre, NULL, out);
}

/* The stackless backend keeps the value of a `?:` that awaits in a local of
   a block around its statement, used before any other suspension: so among
   the operands C leaves unsequenced (looked through plain operators, as
   lower_unsequenced does), one at most may hold such a `?:`. Refused for
   both backends, so that both accept the same programs. */
static void check_one_select(Checker *c, Node *n) {
  if (!has_awaiting_select(n) || (n->kind != ND_EXPR && n->kind != ND_INIT_LIST) ||
      is_sequencing(n))
    return;
  Node *kid, *first = NULL;
  for (int i = 0; (kid = node_child(n, &i));) {
    if (!has_awaiting_select(kid))
      continue;
    if (first)
      error_tok(&c->src->original.v[kid->first],
                "two operands that each hold a '?:' with 'await' "
                "in one expression: put one in a variable first");
    first = kid;
  }
}

/* }================================================================== */

/* {==================================================================
 * The walk
 * =================================================================== */

/* Is sym (in ctx) assigned to, or its address taken, in a subtree? */
typedef struct {
  const Sym *sym;
  bool changed;
} Changes;

static bool changes_pre(Node *n, void *ctx) {
  Changes *ch = ctx;
  if (n->kind == ND_EXPR && (n->op == OP_ASSIGN || n->op == OP_ASSIGN_OP || n->op == OP_ADDRESS)) {
    Node *target = n->lhs; /* (a unary operator's operand is lhs) */
    if (target && target->kind == ND_IDENT && target->sym == ch->sym)
      ch->changed = true;
  }
  return !ch->changed;
}

/* The async generator that n makes, where coroc can tell: n is a call of
   one defined in this file, or a local initialized with such a call and
   never assigned again. */
static Coroutine *async_made_by(Checker *c, Node *n) {
  if (n->kind == ND_IDENT && n->sym && n->sym->kind == SYM_OBJECT && n->sym->decl &&
      n->sym->decl->kind == ND_INIT_DECL && n->sym->decl->init) {
    Changes ch = {n->sym, false};
    visit(c->co->def->body, changes_pre, NULL, &ch);
    if (ch.changed)
      return NULL;
    n = n->sym->decl->init;
  }
  if (n->kind != ND_EXPR || n->op != OP_CALL || n->lhs->kind != ND_IDENT || !n->lhs->sym ||
      !(n->lhs->sym->specs & SP_COROUTINE))
    return NULL;
  Coroutine *co = find_definition(c, n->lhs->sym->name, MISSED_NEXT);
  return co && co->is_async ? co : NULL;
}

/* coro_next or coro_send of an async generator (the runtime refuses the others). */
static void check_next_call(Checker *c, Node *n) {
  if (n->kind != ND_EXPR || n->op != OP_CALL || n->lhs->kind != ND_IDENT || n->kids.n < 1 ||
      (strcmp(tok_text(n->lhs->tok), "coro_next") != 0 &&
       strcmp(tok_text(n->lhs->tok), "coro_send") != 0))
    return;
  Coroutine *g = async_made_by(c, n->kids.v[0]);
  if (g)
    error_tok(n->lhs->tok,
              "'%s' is an async generator (it awaits): a task takes its values with "
              "'await coro_next_await(gen, &value)', not %s",
              g->name, tok_text(n->lhs->tok));
}

/* `while (({ if (done) break; 1; }))`: a break or continue inside a
   statement expression in a loop's own condition or step. gcc takes it for
   the loop around this one, clang for this one: no lowering could give
   the program one meaning, so it is refused, in both backends. */
typedef struct {
  int inside, loops, switches;
} HeaderJumps;

static bool header_jump_pre(Node *n, void *ctx) {
  HeaderJumps *h = ctx;
  h->inside += n->kind == ND_STMT_EXPR;
  if (!h->inside)
    return true;
  h->loops += n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR;
  h->switches += n->kind == ND_SWITCH;
  if ((n->kind == ND_BREAK && !h->loops && !h->switches) || (n->kind == ND_CONTINUE && !h->loops))
    error_tok(
        n->tok,
        "'%s' inside a statement expression in a loop's condition or step: gcc and "
        "clang do not agree on which loop it leaves; test the condition in the loop's body instead",
        n->kind == ND_BREAK ? "break" : "continue");
  return true;
}

static void header_jump_post(Node *n, void *ctx) {
  HeaderJumps *h = ctx;
  if (h->inside) {
    h->loops -= n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR;
    h->switches -= n->kind == ND_SWITCH;
  }
  h->inside -= n->kind == ND_STMT_EXPR;
}

static void check_loop_header(const Checker *c, Node *n) {
  if ((n->kind != ND_WHILE && n->kind != ND_DO && n->kind != ND_FOR) || !c->co->saw_stmt_expr)
    return; /* (a body whose parse met no statement expression has none) */
  HeaderJumps h = {0};
  visit(n->cond, header_jump_pre, header_jump_post, &h);
  if (n->kind == ND_FOR)
    visit(n->step, header_jump_pre, header_jump_post, &h);
}

/* alloca's memory is the calling function's stack: in the stackless backend the resume function's,
   gone at the next suspension (and both backends take the same programs). So is what setjmp saves:
   a longjmp after a suspension goes back into a frame that has returned. */
static void note_stack_calls(Checker *c, const Node *n) {
  if (n->kind != ND_EXPR || n->op != OP_CALL || n->lhs->kind != ND_IDENT)
    return;
  const char *name = tok_text(n->lhs->tok);
  int macro = n->lhs->sym ? 0 : macro_jumps(name);
  if (!c->alloca_call && (is_alloca(name) || macro & USES_ALLOCA))
    c->alloca_call = n->lhs->tok;
  if (!c->setjmp_call && (is_setjmp(name) || (macro & USES_SETJMP && !(macro & OPENS_BLOCK))))
    c->setjmp_call = n->lhs->tok; /* (pthread_cleanup_push's block: check_macros.c) */
}

static bool check_pre(Node *n, void *ctx) {
  Checker *c = ctx;
  note_stack_calls(c, n);
  check_macro_uses(c->src, c->co, n);
  check_next_call(c, n);
  check_loop_header(c, n);
  switch (n->kind) {
  case ND_YIELD:
    walk_yield(c, n);
    return true;
  case ND_AWAIT:
    walk_await(c, n);
    return true;
  case ND_RETURN:
    if (n->expr && !c->co->first_return_value)
      c->co->first_return_value = n;
    return true;
  case ND_STMT_EXPR:
    c->stmt_expr++;
    return true;
  case ND_DECL:
    check_decl(c, n);
    break;
  case ND_SIZEOF:
    c->unevaluated++;
    break;
  case ND_EXPR_STMT:
    mark_discarded(n->expr);
    break;
  default:
    break;
  }
  check_one_select(c, n);
  if (n->kind == ND_EXPR && n->op == OP_COMMA)
    mark_discarded(n->lhs);
  if (n->kind == ND_EXPR && (n->op == OP_AND || n->op == OP_OR) && has_await(n->rhs))
    n->cond_number = ++c->co->nconds; /* its coro_cond_N field */
  return true;
}

static void check_post(Node *n, void *ctx) {
  Checker *c = ctx;
  if (n->kind == ND_STMT_EXPR)
    c->stmt_expr--;
  else if (n->kind == ND_SIZEOF)
    c->unevaluated--;
}

/* The rules that depend on the whole body: what kind of coroutine it is. */
static void check_kind(Coroutine *co) {
  if (!co->is_generator) {
    if (co->returns_void && co->first_return_value) /* C11 6.8.6.4p1, as for any function */
      error_tok(co->first_return_value->tok,
                "'return' with a value in coroutine '%s', whose "
                "type is void",
                co->name);
    return;
  }
  if (co->has_bare_yield)
    error_tok(co->first_bare_yield,
              "a generator cannot use a bare 'yield;': it hands values to "
              "its consumer, and only tasks yield to the scheduler");
  if (co->first_return_value)
    error_tok(co->first_return_value->tok,
              "'return' with a value in generator '%s': use "
              "'return;' to end the sequence",
              co->name);
}

/* `#include` inside a body: its text is not in the tokens coroc prints. */
static void check_no_include(Checker *c) {
  for (int i = c->co->first; i <= c->co->last; i++) {
    Token *t = &c->src->original.v[i];
    if (t->kind != TK_DIRECTIVE || t->dead)
      continue;
    const char *p = strchr(tok_text(t), '#') + 1;
    p += strspn(p, " \t");
    if (strncmp(p, "include", 7) == 0)
      error_tok(t, "#include inside a coroutine is not supported: include it before the coroutine");
  }
}

static void check_variadic(Coroutine *co) {
  if (co->declarator->kids.v[0]->variadic)
    error_tok(co->declarator->tok,
              "coroutine '%s' cannot be variadic: its body runs after the "
              "call that had the extra arguments",
              co->name);
}

/* The awaits that are alone in their full expression (a statement's, a
   condition, an initializer, a for clause): the value of a child inside the
   frame is read from the child's own frame, since no other child can take
   its place in coro_children before the expression is done (lower.c). */
static bool count_awaits_pre(Node *n, void *ctx) {
  if (n->kind == ND_AWAIT) {
    Node **one = ctx;
    one[one[0] ? 1 : 0] = n; /* the first, and whether there is a second */
  }
  return true;
}

static bool is_expression(const Node *n) {
  return n->kind == ND_EXPR || n->kind == ND_AWAIT || n->kind == ND_IDENT ||
         n->kind == ND_STMT_EXPR || n->kind == ND_SIZEOF || n->kind == ND_INIT_LIST;
}

static bool sole_awaits_pre(Node *n, void *ctx) {
  (void)ctx;
  if (!is_expression(n))
    return true;
  if (has_await(n)) {
    Node *found[2] = {NULL, NULL};
    visit(n, count_awaits_pre, NULL, found);
    if (found[0] && !found[1])
      found[0]->sole_await = true;
  }
  return false;
}

/* }================================================================== */

/* What kind a coroutine is, from what its parse met: a walk of each body
   for it was 1.4% of coroc's time on benchmark part 4's large.coc. The
   walks that only an await or a statement expression gives work to are
   skipped in a body whose parse met none (mark_awaits and the sole awaits
   here, the jumps out of statement expressions in lower.c). With
   COROC_CHECK_EMIT set (the test suite's runs), walks find all three
   again, and must agree. */
void check_kind_of(Coroutine *co) {
  co->is_generator = co->def && co->saw_yield_value;
  co->is_async = co->is_generator && co->saw_await;
  if (co->def && getenv("COROC_CHECK_EMIT") &&
      (co->saw_yield_value != yields_values(co->def->body) ||
       co->saw_await != holds_kind(co->def->body, ND_AWAIT) ||
       co->saw_stmt_expr != holds_kind(co->def->body, ND_STMT_EXPR)))
    internal_error("the parse and a walk of '%s' disagree on what it holds", co->name);
}

void check_coroutine(Source *src, Coroutine *co, Definitions *defs) {
  if (!co->def)
    return;
  Checker c = {.co = co, .defs = defs, .src = src};
  check_variadic(co);
  if (co->return_macro) /* (a coroutine's return ends its instance: the lowering writes that) */
    error_tok(co->return_macro,
              "the macro '%s' returns from coroutine '%s' where coroc cannot see it: a return "
              "ends the instance, which coroc writes where the return stands; write it out",
              tok_text(co->return_macro), co->name);
  if (co->saw_await) /* (without: every mark stays false, as the parse made it) */
    mark_awaits(co->def->body);
  visit(co->def->body, check_pre, check_post, &c);
  if (c.alloca_call && co->nresume > 0)
    error_tok(c.alloca_call,
              "'%s' allocates on the stack of coroutine '%s', which its suspensions leave (in the "
              "stackless backend the memory is gone at the next one): use malloc and free",
              tok_text(c.alloca_call), co->name);
  if (c.setjmp_call && co->nresume > 0)
    error_tok(c.setjmp_call,
              "'%s'%s saves the stack of coroutine '%s', which its suspensions leave (in the "
              "stackless backend a longjmp after one goes back into a call that has returned): "
              "keep the setjmp and its longjmps in a function the coroutine calls",
              tok_text(c.setjmp_call),
              is_setjmp(tok_text(c.setjmp_call)) ? "" : ", which calls setjmp,", co->name);
  check_kind(co);
  check_no_include(&c);
  if (co->saw_await)
    visit(co->def->body, sole_awaits_pre, NULL, NULL);
}

void check(Source *src, Coroutine *cos) {
  for (Coroutine *co = cos; co; co = co->next) /* an await of a later one must know */
    check_kind_of(co);
  Definitions defs = {0};
  for (Coroutine *co = cos; co; co = co->next)
    definitions_add(&defs, co);
  for (Coroutine *co = cos; co; co = co->next)
    check_coroutine(src, co, &defs);
  definitions_free(&defs);
}
