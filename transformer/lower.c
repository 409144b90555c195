/* lower.c: what a coroutine needs before it can be printed as a state machine.
 *
 * For each coroutine definition, one walk over its body:
 *  - checks the coroutine rules (docs/limitations.md): a generator may not
 *    await or use a bare `yield;`, nor `return EXPR;`; nothing may suspend
 *    where C does not evaluate (sizeof) or inside a statement expression;
 *    a variable-length array cannot live in a frame;
 *  - numbers the resume points (each yield) 1, 2, 3... in source order;
 *  - gives every parameter and local a field of the frame. A local that
 *    shadows another name of the same coroutine gets the field coro_NAME_N;
 *    `static` and `extern` locals stay where they are;
 *  - renames the types (struct/union/enum tags, typedef names, enumeration
 *    constants) declared in the body, because they move to file scope in
 *    front of the frame: `struct node` becomes `struct coro_gen_node`.
 *
 * The identifier tokens of the body point at their symbols (the parser
 * resolved them), so renaming a symbol renames every use: emit.c prints
 * sym->field instead of the spelling.
 */
#include "coroc.h"
#include "parser.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  Coroutine *co;      /* the coroutine being lowered */
  Coroutine *all;     /* every coroutine of the file */
  Source *src;        /* its input */
  int stmt_expr;      /* > 0 inside ({ ... }) */
  int unevaluated;    /* > 0 inside sizeof, _Alignof, typeof */
  const char **names; /* field and type names taken so far: a hash set of capnames slots */
  int nnames, capnames;
} Lowering;

static unsigned name_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The names taken are an open-addressed hash set: a coroutine with a
   hundred thousand locals names them in linear time. */
static bool name_taken(Lowering *l, const char *name) {
  if (!l->capnames)
    return false;
  for (unsigned i = name_hash(name) & (l->capnames - 1); l->names[i]; i = (i + 1) & (l->capnames - 1))
    if (strcmp(l->names[i], name) == 0)
      return true;
  return false;
}

static void insert_name(const char **set, int cap, const char *name) {
  unsigned i = name_hash(name) & (cap - 1);
  while (set[i])
    i = (i + 1) & (cap - 1);
  set[i] = name;
}

static const char *take_name(Lowering *l, const char *name) {
  if (2 * (l->nnames + 1) > l->capnames) {  /* keep it at most half full */
    int cap = l->capnames ? l->capnames * 2 : 64;
    const char **set = xcalloc(cap, sizeof(char *));
    for (int i = 0; i < l->capnames; i++)
      if (l->names[i])
        insert_name(set, cap, l->names[i]);
    xfree(l->names);
    l->names = set;
    l->capnames = cap;
  }
  insert_name(l->names, l->capnames, name);
  l->nnames++;
  return name;
}

/* A field name for a local: its own name the first time, then coro_NAME_2... */
static const char *field_name(Lowering *l, const char *name) {
  if (!name_taken(l, name))
    return take_name(l, name);
  for (int i = 2;; i++) {
    char *alt = format("coro_%s_%d", name, i);
    if (!name_taken(l, alt))
      return take_name(l, alt);
  }
}

/* A file-scope name for a type or constant declared in the body. */
static const char *hoisted_name(Lowering *l, const char *name) {
  char *base = format("coro_%s_%s", l->co->name, name);
  if (!name_taken(l, base))
    return take_name(l, base);
  for (int i = 2;; i++) {
    char *alt = format("%s_%d", base, i);
    if (!name_taken(l, alt))
      return take_name(l, alt);
  }
}

/* {==================================================================
 * Declarations: frame fields and hoisted types
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

static void check_no_vla(Lowering *l, const Node *declarator, const char *what) {
  for (int i = 0; i < declarator->kids.n; i++) {
    Node *d = declarator->kids.v[i];
    if (d->kind == ND_ARRAY && is_variable_size(d->a))
      error_tok(declarator->tok ? declarator->tok : d->tok, "variable-length array %s in a "
                "coroutine: a frame needs sizes known at compile time", what);
  }
  (void)l;
}

static void hoist_tagged(Lowering *l, Node *tagged) {
  Token *t = tagged->tok;
  Sym *s = token_sym(t);
  if (s && s->kind == SYM_TAG && s->depth > 0 && !s->owner) {
    s->owner = l->co;
    s->field = hoisted_name(l, s->name);
  }
  if (tagged->has_body) {
    list_push(&l->co->types, tagged);
    token_set_hoisted(&l->src->original.v[tagged->first], tagged);
    if (!s)
      tagged->name = hoisted_name(l, "anon");
    for (int i = 0; i < tagged->kids.n; i++) {
      Node *e = tagged->kids.v[i];
      if (e->kind == ND_ENUMERATOR && e->sym) {
        e->sym->owner = l->co;
        e->sym->field = hoisted_name(l, e->sym->name);
      }
    }
  }
}

/* An object declared in the body: a frame field, unless static or extern. */
static void lower_local(Lowering *l, Node *init_decl, int specs) {
  Sym *s = init_decl->sym;
  if (!s || s->in_stmt_expr)
    return;
  if (s->kind == SYM_TYPEDEF) {
    s->owner = l->co;
    s->field = hoisted_name(l, s->name);
    return;
  }
  if (s->kind != SYM_OBJECT || (specs & (SP_STATIC | SP_EXTERN | SP_THREAD)))
    return;
  check_no_vla(l, init_decl->a, format("'%s'", s->name));
  Node *kinds = init_decl->c;
  for (int i = 0; i < kinds->kids.n; i++) {
    Token *t = &l->src->original.v[kinds->kids.v[i]->first];
    if (strcmp(t->text, "__auto_type") == 0)
      error_tok(t, "'%s' needs its type written out: a frame field cannot be __auto_type", s->name);
  }
  s->owner = l->co;
  s->field = field_name(l, s->name);
  list_push(&l->co->locals, init_decl);
}

static void lower_decl(Lowering *l, Node *decl) {
  Node *specs = decl->a;
  if (l->stmt_expr)
    return;
  for (int i = 0; i < specs->kids.n; i++)
    if (specs->kids.v[i]->kind == ND_TAGGED)
      hoist_tagged(l, specs->kids.v[i]);
  for (int i = 0; i < decl->kids.n; i++)
    lower_local(l, decl->kids.v[i], specs->flags);
  if (specs->flags & SP_TYPEDEF)
    list_push(&l->co->types, decl);
}

/* }================================================================== */

/* {==================================================================
 * The walk
 * =================================================================== */

/* CORO_MAX_RESUME_POINTS of coro.h: resume_point is a 16-bit field whose top
   bit marks stackful instances. */
enum { MAX_RESUME_POINTS = 0x7fff };

/* Resume points are numbered in source order; each remembers its line for
   the comment in the dispatch switch. */
static int new_resume_point(Lowering *l, const Token *where) {
  Coroutine *co = l->co;
  if (co->nresume == MAX_RESUME_POINTS)   /* the runtime keeps the number in 15 bits */
    error_tok(where, "coroutine '%s' has more than %d yields and awaits; split it into several coroutines",
              co->name, MAX_RESUME_POINTS);
  co->nresume++;
  co->resume_lines = xrealloc(co->resume_lines, sizeof(int) * (co->nresume + 1));
  co->resume_lines[co->nresume] = where->line;
  co->resume_words = xrealloc(co->resume_words, sizeof(char *) * (co->nresume + 1));
  co->resume_words[co->nresume] = where->text;  /* "yield" or "await" */
  return co->nresume;
}

static void walk_yield(Lowering *l, Node *n) {
  Coroutine *co = l->co;
  if (l->stmt_expr)
    error_tok(n->tok, "'yield' inside a statement expression is not supported: the "
              "expression's unfinished value would be lost while the coroutine is suspended");
  if (n->a) {
    if (co->returns_void)
      error_tok(n->tok, "'yield' with a value in coroutine '%s', whose type is void", co->name);
    co->is_generator = true;
  } else {
    co->has_bare_yield = true;
    if (!co->first_bare_yield)
      co->first_bare_yield = n->tok;
  }
  n->resume_point = new_resume_point(l, n->tok);
}

/* C text for the type a function returns: its specifiers (no storage
   class) and its declarator without the name and the parameter list. */
static char *return_type(Sym *f) {
  TokenList *toks = f->toks;
  Node *specs = f->decl->c, *d = f->decl->a;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = xmemstream(&buf, &len);
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if (k->kind == ND_EXPR && (k->flags & (SP_TYPEDEF | SP_EXTERN | SP_STATIC | SP_THREAD)))
      continue;
    for (int j = k->first; j <= k->last; j++) {
      Token *t = &toks->v[j];
      if (t->kind == TK_IDENT && (!strcmp(t->text, "inline") || !strcmp(t->text, "__inline") ||
                                  !strcmp(t->text, "__inline__")))
        continue;
      fprintf(out, "%s%s", len || ftell(out) ? " " : "", t->text);
    }
  }
  Node *params = d->kids.v[0];
  for (int j = d->first; j <= d->last; j++) {
    if (j == params->first) {
      j = params->last;
      continue;
    }
    if (&toks->v[j] != d->tok)
      fprintf(out, " %s", toks->v[j].text);
  }
  fclose(out);
  return buf;
}

/* Does this body have a `yield EXPR;` (is it a generator's)? */
static bool yield_value_pre(Node *n, void *ctx) {
  if (n->kind == ND_YIELD && n->a)
    *(bool *)ctx = true;
  return !*(bool *)ctx;
}

static bool yields_values(Node *body) {
  bool found = false;
  visit(body, yield_value_pre, NULL, &found);
  return found;
}

/* The definition of coroutine `name`, if the file has one. */
static Coroutine *find_definition(Lowering *l, const char *name) {
  for (Coroutine *c = l->all; c; c = c->next)
    if (c->def && strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

/* What is awaited: a coroutine (a task: `await child(x)`), or an awaitable
   operation, a function returning an awaitable struct (`await coro_read(...)`). */
static void classify_await(Lowering *l, Node *n) {
  Node *op = n->a;
  Sym *f = op->kind == ND_EXPR && op->flags == OP_CALL && op->a->kind == ND_IDENT ? op->a->sym
                                                                                     : NULL;
  if (f && (f->specs & SP_COROUTINE)) {
    Coroutine *callee = find_definition(l, f->name);
    if (callee && callee->is_generator)
      error_tok(n->tok, "'%s' is a generator: consume it with coro_next; only tasks are "
                "awaited", f->name);
    n->name = f->name;
    n->sym = f;
    return;
  }
  if (f && f->kind == SYM_FUNCTION && f->decl && f->decl->kind == ND_INIT_DECL) {
    n->type = return_type(f);
    return;
  }
  error_tok(n->tok, "'await' needs a call: of a coroutine, or of a function that returns an "
            "awaitable (docs/runtime.md)");
}

static void walk_await(Lowering *l, Node *n) {
  if (l->unevaluated)
    error_tok(n->tok, "'await' in an operand that C does not evaluate (sizeof, _Alignof, typeof)");
  if (l->stmt_expr)
    error_tok(n->tok, "'await' inside a statement expression is not supported");
  if (!l->co->first_await)
    l->co->first_await = n->tok;
  n->resume_point = new_resume_point(l, n->tok);
  classify_await(l, n);
  list_push(&l->co->awaits, n);
}

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
    if (n->flags == ',') {
      heirs[0] = n->a, heirs[1] = n->b;
    } else if (n->flags == '?') {
      heirs[0] = n->b, heirs[1] = n->c;
    } else if (n->flags == ')') {
      heirs[0] = n->a;
    } else if (n->flags == '(' && n->a->kind == ND_TYPENAME && (n->a->a->flags & SP_VOID) &&
               !n->a->b) {
      heirs[0] = n->b;
    }
    for (int i = 0; i < 2; i++)
      if (heirs[i])
        list_push(&todo, heirs[i]);
  }
  xfree(todo.v);
}

bool has_await(const Node *n) {
  return n && n->awaits;
}

bool has_awaiting_select(const Node *n) {
  return n && n->selects;
}

/* Node.awaits and Node.selects, from the leaves up, once per body. */
static bool awaits_pre(Node *n, void *ctx) {
  (void)n, (void)ctx;
  return true;
}

static void awaits_post(Node *n, void *ctx) {
  (void)ctx;
  n->awaits = n->kind == ND_AWAIT;
  n->selects = false;
  Node *kid;
  for (int i = 0; (kid = node_child(n, &i));) {
    n->awaits |= kid->awaits;
    n->selects |= kid->selects;
  }
  if (n->kind == ND_EXPR && n->flags == '?' && (has_await(n->b) || has_await(n->c)))
    n->selects = true;
}

static void mark_awaits(Node *body) {
  visit(body, awaits_pre, awaits_post, NULL);
}

/* Is n one of the parts that order awaits (see collect_sequenced)? */
static bool is_sequencing(const Node *n) {
  if (n->kind == ND_AWAIT)
    return true;
  if (n->kind != ND_EXPR)
    return false;
  switch (n->flags) {
  case T_ANDAND:
  case T_OROR:
    return has_await(n->b);
  case '?':
    return has_await(n->b) || has_await(n->c);
  case ',':
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

/* Children in source order, so that fields and resume points are numbered
   as they appear (a for loop's init comes before its condition and body). */
static bool is_compound_literal(const Node *n) {
  return n && n->kind == ND_EXPR && n->flags == '{';
}

/* A compound literal lives in the enclosing block, which a suspension
   leaves: one that can be pointed to (an array, or one under a unary &)
   gets a frame field. One used only for its value needs none. */
static void keep_literal(Lowering *l, Node *lit) {
  if (l->stmt_expr || l->unevaluated || lit->name)
    return;
  char *field = format("coro_lit_%d", l->co->literals.n + 1);
  lit->name = take_name(l, field);
  list_push(&l->co->literals, lit);
  token_set_literal(&l->src->original.v[lit->first], lit);
}

/* What the walk does at a node before its children: number resume points,
   give locals their fields, keep compound literals, mark discarded values. */
static bool lower_pre(Node *n, void *ctx) {
  Lowering *l = ctx;
  switch (n->kind) {
  case ND_YIELD:
    walk_yield(l, n);
    return true;
  case ND_AWAIT:
    walk_await(l, n);
    return true;
  case ND_RETURN:
    if (n->a && !l->co->first_return_value)
      l->co->first_return_value = n;
    return true;
  case ND_STMT_EXPR:
    l->stmt_expr++;
    return true;
  case ND_DECL:
    lower_decl(l, n);
    break;
  case ND_SIZEOF:
    l->unevaluated++;
    break;
  case ND_EXPR_STMT:
    mark_discarded(n->a);
    break;
  default:
    break;
  }
  if (n->kind == ND_EXPR && n->flags == ',')
    mark_discarded(n->a);
  if (n->kind == ND_EXPR && (n->flags == T_ANDAND || n->flags == T_OROR) && has_await(n->b))
    n->resume_point = ++l->co->nconds;  /* its coro_cond_N field */
  if (is_compound_literal(n)) {
    Node *type = n->a;
    if (type->b && type->b->kids.n && type->b->kids.v[0]->kind == ND_ARRAY)
      keep_literal(l, n);
  }
  if (n->kind == ND_EXPR && n->flags == '&' && !n->b && is_compound_literal(n->a))
    keep_literal(l, n->a);
  return true;
}

static void lower_post(Node *n, void *ctx) {
  Lowering *l = ctx;
  if (n->kind == ND_STMT_EXPR)
    l->stmt_expr--;
  else if (n->kind == ND_SIZEOF)
    l->unevaluated--;
}

static void walk(Lowering *l, Node *body) {
  mark_awaits(body);
  visit(body, lower_pre, lower_post, l);
}

/* The rules that depend on the whole body: what kind of coroutine it is. */
static void check_kind(Coroutine *co) {
  if (!co->is_generator) {
    if (co->returns_void && co->first_return_value)  /* C11 6.8.6.4p1, as for any function */
      error_tok(co->first_return_value->tok, "'return' with a value in coroutine '%s', whose "
                "type is void", co->name);
    return;
  }
  if (co->has_bare_yield)
    error_tok(co->first_bare_yield, "a generator cannot use a bare 'yield;': it hands values to "
              "its consumer, and only tasks yield to the scheduler");
  if (co->first_await)
    error_tok(co->first_await, "a generator cannot 'await': only tasks (coroutines without "
              "'yield EXPR') await");
  if (co->first_return_value)
    error_tok(co->first_return_value->tok, "'return' with a value in generator '%s': use "
              "'return;' to end the sequence", co->name);
}

/* A frame field's type is written in the frame struct, outside the
   function, where no local exists: `char b[sizeof n]`, `typeof(n) m` or a
   parameter `int m[n]` cannot be laid out. */
static void check_field_types(Lowering *l) {
  for (int i = 0; i < l->co->locals.n; i++) {
    Node *n = l->co->locals.v[i];
    Node *specs = n->kind == ND_PARAM ? n->a : n->c;
    Node *d = n->kind == ND_PARAM ? n->b : n->a;
    int ranges[2][2] = {{specs->first, specs->last}, {d->first, d->last}};
    for (int r = 0; r < 2; r++)
      for (int j = ranges[r][0]; j <= ranges[r][1]; j++) {
        Token *t = &l->src->original.v[j];
        Sym *s = token_sym(t);
        if (s && s->kind == SYM_OBJECT && s->owner == l->co && t != n->sym->tok)
          error_tok(t, "the type of '%s' depends on '%s', a local of coroutine '%s': a frame "
                    "needs every type known outside the body", n->sym->name, t->text, l->co->name);
      }
  }
}

/* `#include` inside a body: its text is not in the tokens coroc prints. */
static void check_no_include(Lowering *l) {
  for (int i = l->co->first; i <= l->co->last; i++) {
    Token *t = &l->src->original.v[i];
    if (t->kind != TK_DIRECTIVE || t->dead)
      continue;
    const char *p = strchr(t->text, '#') + 1;
    p += strspn(p, " \t");
    if (strncmp(p, "include", 7) == 0)
      error_tok(t, "#include inside a coroutine is not supported: include it before the coroutine");
  }
}

/* Types declared in the body move to file scope, in front of the frame, where
   the coroutine's locals do not exist. */
static void check_hoisted_types(Lowering *l) {
  for (int i = 0; i < l->co->types.n; i++) {
    Node *t = l->co->types.v[i];
    for (int j = t->first; j <= t->last; j++) {
      Token *tok = &l->src->original.v[j];
      Sym *s = token_sym(tok);
      if (s && s->kind == SYM_OBJECT && s->owner == l->co && s->tok != tok)
        error_tok(tok, "a type declared in coroutine '%s' cannot depend on its local '%s': "
                  "coroc moves the type to file scope", l->co->name, tok->text);
    }
  }
}

/* The parameters come first in the frame, under their own names. */
static void lower_params(Lowering *l) {
  Node *f = l->co->declarator->kids.v[0];
  if (f->flags)
    error_tok(l->co->declarator->tok, "coroutine '%s' cannot be variadic: its body runs after the "
              "call that had the extra arguments", l->co->name);
  for (int i = 0; i < f->kids.n; i++) {
    Node *param = f->kids.v[i];
    if (!param->sym)
      continue;
    param->sym->owner = l->co;
    param->sym->field = take_name(l, param->sym->name);
    list_push(&l->co->locals, param);
  }
}

/* }================================================================== */

void lower(Source *src, Coroutine *cos, const Options *opt) {
  (void)opt;
  for (Coroutine *co = cos; co; co = co->next)  /* an await of a later one must know */
    co->is_generator = co->def && yields_values(co->def->c);
  for (Coroutine *co = cos; co; co = co->next) {
    if (!co->def)
      continue;
    Lowering l = {.co = co, .all = cos, .src = src};
    lower_params(&l);
    walk(&l, co->def->c);
    check_kind(co);
    check_hoisted_types(&l);
    check_field_types(&l);
    check_no_include(&l);

  }
}
