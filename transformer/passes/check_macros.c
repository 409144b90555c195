/* check_macros.c: the rules for the macros a coroutine uses as statements, for both backends.
 *
 * coroc reads a coroutine as written, its macros unexpanded (docs/design.md, "Two parses";
 * docs/limitations.md, "Macros"); macros.c says what an expansion does that the passes cannot see
 * (it jumps, opens a block, declares, heads a loop). check.c's walk calls check_macro_uses at
 * every node; the uses whose expansion a suspension would break, or whose declaration the passes
 * would resolve past, are refused here:
 *  - an await among the arguments of a macro that heads a loop, or a suspension inside such a
 *    loop when its `for` declares its own variable;
 *  - a macro's `continue` in a loop whose lowering moves its continues;
 *  - a suspension inside the block a macro opens (pthread_cleanup_push ... pop);
 *  - a suspension after a macro that declares what is read after it, and a macro that declares
 *    a name a local of the coroutine has, which is read after it.
 */
#include "coroc.h"

typedef struct {
  Source *src;   /* the coroutine's input */
  Coroutine *co; /* the coroutine being checked */
} MacroCheck;

/* Does the subtree hold an await? (check.c's walk has marked Node.awaits before it calls in.) */
static bool awaits(const Node *n) {
  return n && n->awaits;
}

static bool find_suspension(Node *n, void *ctx) {
  if (n->kind == ND_YIELD || n->kind == ND_AWAIT)
    *(Node **)ctx = n;
  return !*(Node **)ctx;
}

/* A macro that heads a loop (`TAILQ_FOREACH(np, head, link) { ... }`): its expansion evaluates
   the arguments at every turn, inside the loop's head, where nothing can suspend; and a variable
   that its own `for` declares is no local of the coroutine's, which a suspension would lose. */
static void check_loop_macro(const MacroCheck *c, Node *n) {
  if (n->kind != ND_WHILE || !(n->flags & LOOP_MACRO_HEAD))
    return;
  const char *name = tok_text(n->tok);
  if (awaits(n->cond)) {
    Node *await = NULL;
    visit(n->cond, find_suspension, NULL, &await);
    error_tok(await ? await->tok : n->tok,
              "an await in the arguments of '%s', a macro that heads a loop: its expansion "
              "evaluates them at every turn, in the loop's head; await before the loop",
              name);
  }
  bool declares = false;
  statement_macro(&c->src->original, n->first, &declares, NULL);
  Node *suspension = NULL;
  if (declares)
    visit(n->body, find_suspension, NULL, &suspension);
  if (suspension)
    error_tok(suspension->tok,
              "a %s inside '%s', a macro whose loop declares its own variable: coroutine '%s' "
              "would not keep it across the suspension; write the loop out",
              suspension->kind == ND_YIELD ? "yield" : "await", name, c->co->name);
}

/* A macro's `continue` (macros.c, "Macros that jump") in a loop whose condition comes after its
   body (a do-while) or whose step awaits: the lowering sends the loop's own continues to the
   condition or the step (lower_awaiting_loop), and the expansion's would pass them by. */
static bool continue_macro_pre(Node *n, void *ctx) {
  if (n->kind == ND_WHILE || n->kind == ND_DO || n->kind == ND_FOR)
    return false; /* (its continues are its own) */
  if (n->kind == ND_IDENT && n->tok && macro_jumps(tok_text(n->tok)) & JUMPS_CONTINUE)
    error_tok(n->tok,
              "the macro '%s' continues the loop around it, whose %s awaits after its body: coroc "
              "sends a continue there, and the expansion's would not go; write the continue out",
              tok_text(n->tok), *(const char **)ctx);
  return true;
}

static void check_continue_macros(const MacroCheck *c, Node *n) {
  const char *part = n->kind == ND_DO && awaits(n->cond)    ? "condition"
                     : n->kind == ND_FOR && awaits(n->step) ? "step"
                                                            : NULL;
  if (part && c->co->jump_macro)
    visit(n->body, continue_macro_pre, NULL, &part);
}

/* The macro a statement uses, `NAME;` or `NAME(...);`, with no declaration of the name: its token,
   or NULL. */
static const Token *statement_macro_use(const Node *stmt) {
  if (stmt->kind != ND_EXPR_STMT || !stmt->expr)
    return NULL;
  const Node *e = stmt->expr;
  if (e->kind == ND_EXPR && e->op == OP_CALL)
    e = e->lhs;
  return e->kind == ND_IDENT && !e->sym && e->tok ? e->tok : NULL;
}

/* A macro whose braces open a block that a later one closes (`pthread_cleanup_push(f, a); ...
   pthread_cleanup_pop(0);`, whose `do {` declares a buffer that the thread's cancellation chain
   points to): coroc does not see the block, so what it declares would not survive a suspension
   inside it in the stackless backend, and in either backend the thread's chain would point into a
   suspended instance while other code runs. A suspension between the two (or, with no closing
   macro, to the block's end) is refused. */
static void check_block_macros(const MacroCheck *c, const Node *block) {
  for (int i = 0; block->kind == ND_BLOCK && c->co->jump_macro && i < block->kids.n; i++) {
    const Token *opener = statement_macro_use(block->kids.v[i]);
    if (!opener || !(macro_jumps(tok_text(opener)) & OPENS_BLOCK))
      continue;
    Node *suspension = NULL;
    for (int j = i + 1; j < block->kids.n && !suspension; j++) {
      const Token *closer = statement_macro_use(block->kids.v[j]);
      if (closer && macro_jumps(tok_text(closer)) & CLOSES_BLOCK)
        break;
      visit(block->kids.v[j], find_suspension, NULL, &suspension);
    }
    if (suspension)
      error_tok(
          suspension->tok,
          "coroutine '%s' may not suspend inside the block that the macro '%s' at line %d "
          "opens: coroc does not see the block, and what the macro declares or registers in it "
          "would not survive the %s; suspend before it or after the macro that closes it",
          c->co->name, tok_text(opener), opener->line,
          suspension->kind == ND_YIELD ? "yield" : "await");
  }
}

/* A macro used as a statement whose expansion declares (`DECLARE_BITMAP(bits, 64);`, `#define
   DECL_I int i = 0`): the coroutine is read as written and declares nothing there, so what the
   expansion declares would be an ordinary local of the resume function, lost at a suspension in
   its scope (the rest of the block) if a word the use names is read after it. */
static const Token *declaring_macro(const MacroCheck *c, const Node *stmt, int *declared) {
  const Token *use = statement_macro_use(stmt); /* (a name with a declaration is no macro's use) */
  const Node *call = use ? stmt->expr : NULL;
  const TokenList *o = &c->src->original;
  int braces = 0; /* (a statement expression's declarations are its own) */
  *declared = -1;
  for (int i = call && call->op == OP_CALL ? call->lhs->last + 2 : 0; call && i < call->last; i++) {
    braces += (o->v[i].kind == TK_PUNCT && o->v[i].code == '{') -
              (o->v[i].kind == TK_PUNCT && o->v[i].code == '}');
    if (braces == 0 && declared_in_argument(o, i, call->first)) {
      *declared = i; /* `DECLARE(int x);`: its argument declares x (lexhook.c, raw_macro_use) */
      return use;
    }
  }
  const Token *word = use ? macro_first_word(tok_text(use)) : NULL;
  return word && begins_declaration(word) ? use : NULL;
}

/* A word that names nothing the parse knows (not a keyword): what a macro may declare. */
static bool is_unknown_word(const Token *t) {
  return t->kind == TK_IDENT && !token_sym(t) && !name_keyword(tok_text(t));
}

/* Does a word named nothing by the use (its arguments, or its replacement's words) stand
   unknown in tokens from..to, where the object it may declare would be read? */
static bool named_after(const MacroCheck *c, const Node *use, const Token *macro, int from,
                        int to) {
  const TokenList *o = &c->src->original;
  for (int j = from; j <= to; j++) {
    if (!is_unknown_word(&o->v[j]))
      continue;
    const char *w = tok_text(&o->v[j]);
    for (int k = use->first; k <= use->last; k++)
      if (&o->v[k] != macro && is_unknown_word(&o->v[k]) && tok_text(&o->v[k]) == w)
        return true;
    for (const Token *r = macro_first_word(tok_text(macro)); r && r->kind != TK_EOF; r++)
      if (r->kind == TK_IDENT && !name_keyword(tok_text(r)) && tok_text(r) == w)
        return true;
  }
  return false;
}

/* `DECLARE(int x);`, or `DECL_X;` of `#define DECL_X int x = 0`, where the coroutine has an x of
   its own in scope: the parse does not see the macro's x, so the x's after the use in its block
   are the other one's, suspension or not (the stackless backend would write the other's field
   there): the index of the first, or -1. */
static int shadowed_after(const MacroCheck *c, const Node *stmt, const char *name,
                          const Node *block) {
  const TokenList *o = &c->src->original;
  for (int j = stmt->last + 1; name && j <= block->last; j++) {
    const Sym *s = o->v[j].kind == TK_IDENT ? token_sym(&o->v[j]) : NULL;
    if (s && s->kind == SYM_OBJECT && s->depth > 0 && tok_text(&o->v[j]) == name)
      return j;
  }
  return -1;
}

static void check_declaring_macros(const MacroCheck *c, const Node *block) {
  for (int i = 0; block->kind == ND_BLOCK && i < block->kids.n; i++) {
    const TokenList *o = &c->src->original;
    int declared, shadowed;
    const Token *macro = declaring_macro(c, block->kids.v[i], &declared);
    const char *name = !macro          ? NULL
                       : declared >= 0 ? tok_text(&o->v[declared])
                                       : macro_declared_name(o, (int)(macro - o->v));
    if (macro && (shadowed = shadowed_after(c, block->kids.v[i], name, block)) >= 0)
      error_tok(declared >= 0 ? &o->v[declared] : macro,
                "the macro '%s' declares '%s', which coroc does not see: the '%s' at line %d "
                "would be read as the one of coroutine '%s' declared at line %d; give it another "
                "name, or declare it as written",
                tok_text(macro), name, name, o->v[shadowed].line, c->co->name,
                token_sym(&o->v[shadowed])->tok->line);
    Node *suspension = NULL;
    for (int j = i + 1; macro && j < block->kids.n && !suspension; j++)
      visit(block->kids.v[j], find_suspension, NULL, &suspension);
    if (suspension && named_after(c, block->kids.v[i], macro, suspension->first, block->last))
      error_tok(macro,
                "the macro '%s' declares, where coroc reads coroutine '%s' as written and sees no "
                "declaration: what it declares would not survive the %s at line %d; declare it "
                "as written",
                tok_text(macro), c->co->name, suspension->kind == ND_YIELD ? "yield" : "await",
                suspension->tok->line);
  }
}

void check_macro_uses(Source *src, Coroutine *co, Node *n) {
  MacroCheck c = {src, co};
  check_declaring_macros(&c, n);
  check_block_macros(&c, n);
  check_continue_macros(&c, n);
  check_loop_macro(&c, n);
}
