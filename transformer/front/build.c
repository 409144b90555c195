/* build.c: what the grammar's actions make: nodes with their token
 * ranges, and the names declared in the scopes as the parse goes.
 *
 * The parse declares names as it meets them (scope.c), because the next
 * token's meaning depends on them: `T * x;` declares x only if T names a
 * type here (the token hook, lexhook.c, asks). In the second parse of a
 * coroutine, each name's token is also noted with what it declares or
 * names (token notes, source.c), which the passes read.
 */
#include "parse.h"
#include "parser.h" /* T_YIELD, T_AWAIT */

#include <string.h>

Node *expr_node(Loc loc, int op, Node *a, Node *b, Node *c) {
  Node *n = new_node(ND_EXPR, loc.first, loc.last);
  n->op = op;
  n->lhs = a;
  n->rhs = b;
  n->otherwise = c;
  return n;
}

/* The name a member designator begins with (`len`, `v` of `v[i].x`), or NULL. */
static Node *designator_base(Node *n) {
  while (n->kind == ND_EXPR && (n->op == OP_INDEX || n->op == OP_MEMBER))
    n = n->lhs;
  return n->kind == ND_IDENT ? n : NULL;
}

/* `__builtin_offsetof(T, v[i].x)`: the type is not evaluated (an ND_SIZEOF, as C has it), the
   indexes of the member designator are, when they are not constant (gcc and clang take `v[i]`):
   with any, the node is a call of the type's ND_SIZEOF with them as its arguments, which the
   passes read as they read any call's. */
Node *offsetof_node(Token *builtin, Loc loc, Node *type, Node *indexes) {
  Node *n = new_node(ND_SIZEOF, loc.first, loc.last);
  n->expr = type;
  n->tok = builtin;
  if (!indexes)
    return n;
  n->first = type->first, n->last = type->last;
  Node *call = expr_node(loc, OP_CALL, n, NULL, NULL);
  call->kids = indexes->kids;
  return call;
}

/* A call, or a use of a function-like macro: an argument that the macro
   takes as a name (`offsetof(struct s, len)`, macros.c) names no local,
   whatever its spelling (its indexes do: `offsetof(struct s, v[i])`), and is printed as written;
   one whose address the macro takes (`#define PTR(a) (&(a))`) is taken as its address, as if the
   `&` stood here. */
Node *call_node(Parser *p, Loc loc, Node *callee, Node *args) {
  Node *n = expr_node(loc, OP_CALL, callee, NULL, NULL);
  if (args)
    n->kids = args->kids;
  if (!p->original || callee->kind != ND_IDENT || !macro_definition(tok_text(callee->tok)))
    return n;
  for (int i = 0; i < n->kids.n; i++) {
    Node *arg = n->kids.v[i], *base = designator_base(arg);
    if (base && base->sym && macro_param_is_name(tok_text(callee->tok), i, 0)) {
      base->sym = NULL; /* (`v` of offsetof's `v[i]`: the member; i is read) */
      token_set_sym(base->tok, NULL);
    } else if (macro_param_address(tok_text(callee->tok), i, 0)) { /* `PTR(x)`: `&(x)` unseen */
      n->kids.v[i] = expr_node((Loc){arg->first, arg->last}, OP_ADDRESS, arg, NULL, NULL);
      n->kids.v[i]->tok = callee->tok; /* (the macro that takes it: live.c says so) */
    }
  }
  return n;
}

/* `CMP(i, <, n)`, a use whose arguments are not C (lexhook.c, RAW_MACRO), or one that opens or
   closes a block and stands with no ';' (BLOCK_MACRO, `Py_BEGIN_ALLOW_THREADS`): a call whose
   arguments are the names of the use, each an object's taken as its address (the passes cannot tell
   what the expansion does with it: such a local is kept in the frame). A name the macro takes as
   a name (`#x`), or that an argument declares (`int x`), is printed as written. */
Node *raw_macro_node(Parser *p, Token *name, Loc loc) {
  Node *n = expr_node(loc, OP_CALL, ident(p, name, (Loc){loc.first, loc.first}), NULL, NULL);
  int depth = 0, arg = 0;
  for (int i = loc.first + 1; i < loc.last; i++) {
    Token *t = &p->toks->v[i];
    int punct = t->kind == TK_PUNCT ? t->code : 0;
    depth += (punct == '(' || punct == '[' || punct == '{') -
             (punct == ')' || punct == ']' || punct == '}');
    arg += depth == 1 && punct == ',';
    int code = t->kind == TK_IDENT ? keyword_code(t) : 0;
    if (code == T_YIELD || code == T_AWAIT)
      error_tok(t,
                "%s among the arguments of '%s', which coroc cannot read as C: it makes no "
                "resume point there; %s before the macro's use",
                code == T_YIELD ? "a yield" : "an await", tok_text(name), tok_text(t));
    const char *before = tok_text(t - 1);
    if (t->kind != TK_IDENT || code || !strcmp(before, ".") || !strcmp(before, "->") ||
        declared_in_argument(p->toks, i, loc.first) || macro_param_is_name(tok_text(name), arg, 0))
      continue;
    Node *use = ident(p, t, (Loc){i, i});
    if (use->sym && use->sym->kind == SYM_OBJECT) /* (no `&` written: live.c says so) */
      use = expr_node((Loc){i, i}, OP_ADDRESS, use, NULL, NULL);
    node_add_kid(n, use);
  }
  return n;
}

/* `__asm__ volatile ("..." : "=r"(out) : "r"(in));` in a coroutine's own tokens, which the hook
   hands over as one token: the names in its operands (after the template's `:`, up to the
   clobbers) are read as a call's arguments, each object's taken as its address, so that the
   passes keep such a local in the frame and the printer writes its field there. A `[name]` before
   an operand is the template's name for it, no C name; an `asm goto`'s labels are no objects
   (ASM_GOTO: the passes take it for a jump to any label). A yield, an await or a statement
   expression (whose declarations the parse would not see) among the operands is refused. */
Node *asm_node(Parser *p, Token *word, Loc loc) {
  Node *n = new_node(ND_ASM_STMT, loc.first, loc.last);
  if (!p->original)
    return n;
  n->expr = expr_node(loc, OP_CALL, ident(p, word, (Loc){loc.first, loc.first}), NULL, NULL);
  int depth = 0, section = 0, symbolic = 0;
  for (int i = loc.first + 1; i <= loc.last && section < 3; i++) {
    Token *t = &p->toks->v[i];
    int punct = t->kind == TK_PUNCT ? t->code : 0;
    if (depth == 0 && t->kind == TK_IDENT && !strcmp(tok_text(t), "goto"))
      n->flags |= ASM_GOTO;
    symbolic += depth == 1 && punct == '[';
    symbolic -= symbolic && depth == 2 && punct == ']';
    depth += (punct == '(' || punct == '[') - (punct == ')' || punct == ']');
    section += depth == 1 && punct == ':';
    const char *before = tok_text(t - 1);
    int code = t->kind == TK_IDENT ? keyword_code(t) : 0;
    if (section > 0 && (code == T_YIELD || code == T_AWAIT || (punct == '{' && *before == '(')))
      error_tok(t,
                "%s among an asm statement's operands, which coroc does not read as C: compute "
                "the value into a local before the asm statement",
                code == T_YIELD   ? "a yield"
                : code == T_AWAIT ? "an await"
                                  : "a statement expression");
    if (section == 0 || symbolic || t->kind != TK_IDENT || code || !strcmp(before, ".") ||
        !strcmp(before, "->"))
      continue;
    Node *use = ident(p, t, (Loc){i, i});
    bool in_register = use->sym && use->sym->specs & SP_REGISTER;   /* (no address to take) */
    if (use->sym && use->sym->kind == SYM_OBJECT && !in_register) { /* (live.c: "named in ...") */
      use = expr_node((Loc){i, i}, OP_ADDRESS, use, NULL, NULL);
      use->tok = word;
    }
    node_add_kid(n->expr, use);
  }
  return n;
}

/* `TAILQ_FOREACH(np, head, link) statement`: a while loop whose head is the macro's use (head),
   printed as written (its arguments rewritten) where a `while (...)` would be. */
Node *loop_macro_node(Token *name, Loc loc, Node *head, Node *body) {
  Node *n = new_node(ND_WHILE, loc.first, loc.last);
  n->tok = name;
  n->flags = LOOP_MACRO_HEAD;
  n->cond = head;
  n->body = body;
  return n;
}

/* `int CAT(my, var) = 0;` in a coroutine's own tokens: a macro that makes
   the declared name, read unexpanded as a function declarator. Left alone,
   the object would be no local of the coroutine's, and would not survive a
   suspension. (A function declared in a body under a function-like
   macro's name is refused with it: no real code does that.) */
void check_declared_name(Parser *p, const Node *init_decl) {
  const Node *d = init_decl->declarator;
  if (p->original && d->tok && d->kids.n && d->kids.v[0]->kind == ND_FUNC &&
      function_like_macro(tok_text(d->tok)))
    error_tok(d->tok,
              "'%s' is a macro that makes the name declared here: coroc reads a coroutine as "
              "written, before macros expand; write the name itself",
              tok_text(d->tok));
}

/* An identifier in an expression (or a typedef name as a type) knows at
   once which declaration it names: the scopes are exact only now. */
Node *ident(Parser *p, Token *t, Loc loc) {
  Node *n = new_node(ND_IDENT, loc.first, loc.last);
  n->tok = t;
  n->sym = scope_lookup(tok_text(t));
  if (p->original)
    token_set_sym(t, n->sym);
  return n;
}

Node *specs_add(Node *specs, Node *item, int flags, Loc loc) {
  if (!specs)
    specs = new_node(ND_SPECS, loc.first, loc.last);
  if (item)
    node_add_kid(specs, item);
  specs->flags |= flags;
  specs->last = loc.last;
  return specs;
}

Node *declarator_new(Token *name, Loc loc) {
  Node *d = new_node(ND_DECLARATOR, loc.first, loc.last);
  d->tok = name;
  return d;
}

Node *declarator_derive(Node *d, Node *deriv, Loc loc) {
  node_add_kid(d, deriv);
  d->first = loc.first;
  d->last = loc.last;
  return d;
}

Node *declarator_paren(Node *inner, Loc loc) {
  inner->first = loc.first;
  inner->last = loc.last;
  return inner;
}

void begin_decl(Parser *p, Node *specs) {
  list_push(&p->specs, specs);
}

void end_decl(Parser *p) {
  p->specs.n--;
}

/* `specs declarators;`: the list of init-declarators becomes the declaration. */
Node *decl_end(Parser *p, Node *specs, Node *list, Loc loc) {
  list->kind = ND_DECL;
  list->specs = specs;
  list->first = loc.first;
  list->last = loc.last;
  end_decl(p);
  return list;
}

/* The parameter declarations of an old-style definition begin (`int
   add(a, b) int a, b; {`): they come into the body's scope. A coroutine
   cannot be one, and only a function has parameters to declare. */
void begin_kr_params(Parser *p, Node *init_decl, Loc loc) {
  Node *specs = p->specs.v[p->specs.n - 1];
  if (specs->flags & SP_COROUTINE)
    error_at(token_pos(p, loc.first), "a coroutine needs a prototype-style parameter list");
  Node *d = init_decl->declarator;
  if (d->kids.n == 0 || d->kids.v[0]->kind != ND_FUNC)
    error_at(token_pos(p, loc.last), "expected ';' after '%s'", tok_text(&p->toks->v[loc.last]));
  scope_push();
}

/* What a declarator declares: a typedef name, a function or an object. */
void declare(Parser *p, Node *init_decl) {
  Node *specs = p->specs.v[p->specs.n - 1];
  Node *d = init_decl->declarator;
  if (!d->tok)
    return;
  SymKind kind = SYM_OBJECT;
  if (specs->flags & SP_TYPEDEF)
    kind = SYM_TYPEDEF;
  else if (d->kids.n > 0 && d->kids.v[0]->kind == ND_FUNC)
    kind = SYM_FUNCTION;
  init_decl->specs = specs;
  init_decl->sym = scope_declare(kind, d->tok, init_decl, specs->flags);
  init_decl->sym->toks = p->toks;
  init_decl->sym->in_stmt_expr = p->stmt_expr_depth > 0;
  if (p->original)
    token_set_sym(d->tok, init_decl->sym);
}

/* A function body sees its parameters: those of the derivation nearest the
   name (`int (*f(int a))(char b)` takes a, not b). */
void declare_params(Parser *p, Node *init_decl) {
  Node *d = init_decl->declarator;
  if (d->kids.n == 0 || d->kids.v[0]->kind != ND_FUNC)
    return;
  Node *f = d->kids.v[0];
  for (int i = 0; i < f->kids.n; i++) {
    Node *param = f->kids.v[i];
    if (param->declarator && param->declarator->tok) {
      param->sym = scope_declare(SYM_OBJECT, param->declarator->tok, param, param->specs->flags);
      if (p->original)
        token_set_sym(param->declarator->tok, param->sym);
    }
  }
}

/* `struct s {...}` declares s here; a bare `struct s` names the visible one,
   or, when there is none, declares an incomplete one in this scope (C11 6.7.2.3). */
void declare_tag(Parser *p, Node *tagged, bool defines) {
  Token *t = tagged->tok;
  tagged->flags = SP_TYPE;
  if (t->kind != TK_IDENT || keyword_code(t))
    return; /* anonymous */
  Sym *sym = defines ? NULL : scope_lookup_tag(tok_text(t));
  if (defines) {
    Sym *here = scope_lookup_tag(tok_text(t));
    if (here && here->depth == scope_depth())
      sym = here; /* completing a forward declaration of this scope */
  }
  if (!sym)
    sym = scope_declare(SYM_TAG, t, tagged, 0);
  if (defines)
    sym->decl = tagged;
  if (p->original)
    token_set_sym(t, sym);
  if (defines && !p->original && scope_depth() == 0) { /* (for external_done) */
    if (p->ntags_defined == p->captags_defined) {
      p->captags_defined = p->captags_defined ? 2 * p->captags_defined : 16;
      p->tags_defined = xrealloc(p->tags_defined, sizeof(Sym *) * p->captags_defined);
    }
    p->tags_defined[p->ntags_defined++] = sym;
  }
}

void outside_check(Parser *p, const char *word, Loc loc) {
  if (!p->original && !p->in_coroutine)
    error_at(source_original_pos(p->src, loc.first), "'%s' outside a coroutine", word);
}
