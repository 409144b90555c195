/* frame.c: what lives in a coroutine's frame, and under which names.
 *
 *   struct coro_frame_NAME {
 *     coro_t coro_base;          the runtime's header
 *     PARAMS                     each parameter, under its own name
 *     LOCALS                     each local: its name, or coro_NAME_2... when
 *                                it shadows another of the same coroutine
 *     coro_lit_N                 compound literals that can be pointed to
 *     coro_result                a task's value
 *     coro_aw_N, coro_tmp_N      each await: what is awaited, its value
 *     coro_cond_N                each && and || whose right side awaits
 *   };
 *
 * For each coroutine definition, one walk over its body gives every
 * parameter and local a field (a symbol's `field`, and the coroutine's
 * `locals`); `static` and `extern` locals stay where they are. Types
 * (struct/union/enum tags, typedef names, enumeration constants) declared
 * in the body move to file scope in front of the frame, so they are renamed:
 * `struct node` becomes `struct coro_gen_node`. The identifier tokens of the
 * body point at their symbols (the parser resolved them), so renaming a
 * symbol renames every use: the printers print sym->field for the spelling.
 * The fields of awaits and conditions are named by their numbers (check.c).
 *
 * A type that a frame cannot hold is refused here: a field's type is written
 * outside the function, where no local exists.
 */
#include "coroc.h"
#include "stream.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  Coroutine *co;   /* the coroutine being laid out */
  Source *src;     /* its input */
  int stmt_expr;   /* > 0 inside ({ ... }): its locals stay real locals */
  int unevaluated; /* > 0 inside sizeof, _Alignof, typeof */
  int *scope_last; /* the last tokens of the blocks and for statements around the walk */
  int nscopes, capscopes;
  const char **names; /* field and type names taken so far: a hash set of capnames slots */
  int nnames, capnames;
  bool register_bound; /* a local is bound to a register (`register long r __asm__("r10")`) */
} Layout;

static unsigned name_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The names taken are an open-addressed hash set: a coroutine with a
   hundred thousand locals names them in linear time. */
static bool name_taken(Layout *l, const char *name) {
  if (!l->capnames)
    return false;
  for (unsigned i = name_hash(name) & (l->capnames - 1); l->names[i];
       i = (i + 1) & (l->capnames - 1))
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

static const char *take_name(Layout *l, const char *name) {
  if (2 * (l->nnames + 1) > l->capnames) { /* keep it at most half full */
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
static const char *field_name(Layout *l, const char *name) {
  if (!name_taken(l, name))
    return take_name(l, name);
  for (int i = 2;; i++) {
    char *alt = format("coro_%s_%d", name, i);
    if (!name_taken(l, alt))
      return take_name(l, alt);
  }
}

/* A file-scope name for a type or constant declared in the body. */
static const char *hoisted_name(Layout *l, const char *name) {
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

static void hoist_tagged(Layout *l, Node *tagged) {
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
      tagged->tag = hoisted_name(l, "anon");
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
static void layout_local(Layout *l, Node *init_decl, int specs) {
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
  s->owner = l->co;
  s->field = field_name(l, s->name);
  s->scope_last = l->scope_last[l->nscopes - 1]; /* (the body is a block: one is open) */
  list_push(&l->co->locals, init_decl);
}

static void layout_decl(Layout *l, Node *decl) {
  Node *specs = decl->specs;
  if (l->stmt_expr)
    return;
  for (int i = 0; i < specs->kids.n; i++)
    if (specs->kids.v[i]->kind == ND_TAGGED)
      hoist_tagged(l, specs->kids.v[i]);
  for (int i = 0; i < decl->kids.n; i++) {
    layout_local(l, decl->kids.v[i], specs->flags);
    l->register_bound |=
        specs->flags & SP_REGISTER && register_binding_end(&l->src->original, decl->kids.v[i]) >= 0;
  }
  if (specs->flags & SP_TYPEDEF)
    list_push(&l->co->types, decl);
}

static bool is_compound_literal(const Node *n) {
  return n && n->kind == ND_EXPR && n->op == OP_COMPOUND_LITERAL;
}

/* A compound literal lives in the enclosing block, which a suspension
   leaves: one that can be pointed to (an array, or one under a unary &)
   gets a frame field. One used only for its value needs none. */
static void keep_literal(Layout *l, Node *lit) {
  if (l->stmt_expr || l->unevaluated || lit->field)
    return;
  char *field = format("coro_lit_%d", l->co->literals.n + 1);
  lit->field = take_name(l, field);
  list_push(&l->co->literals, lit);
  token_set_literal(&l->src->original.v[lit->first], lit);
}

/* `(struct pt){1, 2}.y`: a member of a compound literal, whose address
   may be taken (`&` around it) or which may itself be an array that
   decays (coroc does not know the members' types): the literal, or NULL. */
static Node *literal_under_member(Layout *l, Node *n) {
  if (n->kind != ND_EXPR || n->op != OP_MEMBER || l->src->original.v[n->lhs->last + 1].code != '.')
    return NULL;
  Node *lhs = n->lhs;
  while (lhs && lhs->kind == ND_EXPR && lhs->op == OP_PAREN)
    lhs = lhs->operand;
  return is_compound_literal(lhs) ? lhs : NULL;
}

/* The parameters come first in the frame, under their own names. */
static void layout_params(Layout *l) {
  Node *f = l->co->declarator->kids.v[0];
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

/* {==================================================================
 * The walk, in source order: fields are numbered as they appear
 * =================================================================== */

static bool layout_pre(Node *n, void *ctx) {
  Layout *l = ctx;
  if (n->kind == ND_BLOCK || n->kind == ND_FOR) {
    if (l->nscopes == l->capscopes)
      l->scope_last =
          xrealloc(l->scope_last, sizeof(int) * (size_t)(l->capscopes = 2 * l->capscopes + 16));
    l->scope_last[l->nscopes++] = n->last;
  }
  if (n->kind == ND_STMT_EXPR)
    l->stmt_expr++;
  else if (n->kind == ND_SIZEOF)
    l->unevaluated++;
  else if (n->kind == ND_DECL)
    layout_decl(l, n);
  if (is_compound_literal(n) && array_type_kind(n->lhs->specs, n->lhs->declarator, 0) != ARRAY_NO)
    keep_literal(l, n); /* (int[]){...}, or (three){...} of `typedef int three[3]` */
  if (n->kind == ND_EXPR && n->op == OP_ADDRESS && is_compound_literal(n->operand))
    keep_literal(l, n->operand);
  Node *lit = literal_under_member(l, n);
  if (lit)
    keep_literal(l, lit); /* &(struct pt){1, 2}.y, or a member that may be an array */
  return true;
}

static void layout_post(Node *n, void *ctx) {
  Layout *l = ctx;
  if (n->kind == ND_BLOCK || n->kind == ND_FOR)
    l->nscopes--;
  if (n->kind == ND_STMT_EXPR)
    l->stmt_expr--;
  else if (n->kind == ND_SIZEOF)
    l->unevaluated--;
}

/* }================================================================== */

/* {==================================================================
 * What a frame cannot hold
 * =================================================================== */

/* A frame field's type is written in the frame struct, outside the
   function, where no local exists. A local that lends only its type
   (`char raw[sizeof hdr]`, `typeof(n) m`) is written as an lvalue of that
   type (text.c, typed_name); one whose value the type needs (a parameter
   `int m[][n]`) cannot be laid out. An array parameter's outer size, which
   decays away, is not printed. */
typedef struct {
  Layout *l;
  Node *local; /* the ND_PARAM or ND_INIT_DECL whose type is looked at; NULL: a hoisted type */
  int *lent, n, cap; /* the tokens of the names that lend only their types */
} FieldType;

static bool in_decayed_size(const Node *local, int tok) {
  if (!local || local->kind != ND_PARAM)
    return false;
  const Node *outer = local->declarator->kids.n ? local->declarator->kids.v[0] : NULL;
  return outer && outer->kind == ND_ARRAY && outer->size && tok >= outer->size->first &&
         tok <= outer->size->last;
}

static void refuse_dependence(FieldType *f, const Token *t) {
  const Sym *s = token_sym(t);
  bool param = s && s->decl && s->decl->kind == ND_PARAM;
  if (!f->local)
    error_tok(t,
              "a type declared in coroutine '%s' cannot depend on the value of its %s '%s': "
              "coroc moves the type to file scope",
              f->l->co->name, param ? "parameter" : "local", tok_text(t));
  error_tok(t,
            "the type of '%s' depends on the value of '%s', a %s of coroutine '%s': a frame "
            "needs every type known outside the body",
            f->local->sym->name, tok_text(t), param ? "parameter" : "local", f->l->co->name);
}

/* (A parameter named in the parameter list is its prototype's symbol,
   which declares the same node as the one the body sees.) */
static bool is_local_of(const Sym *s, const Coroutine *co) {
  if (!s || s->kind != SYM_OBJECT)
    return false;
  return s->owner == co ||
         (s->decl && s->decl->kind == ND_PARAM && s->decl->sym && s->decl->sym->owner == co);
}

/* An object declared in the body, which text.c writes typed where it lends its type. */
static bool is_body_object(const Sym *s) {
  return is_body_name(s) && s->kind == SYM_OBJECT;
}

static void field_type_name(Node *ident, bool type_only, void *ctx) {
  FieldType *f = ctx;
  if (is_body_object(ident->sym) && type_only)
    ident->sym->lent_type = true;
  if (!is_local_of(ident->sym, f->l->co) || in_decayed_size(f->local, ident->first))
    return;
  if (!type_only || ident->sym->in_stmt_expr)
    refuse_dependence(f, &f->l->src->original.v[ident->first]);
  if (f->n == f->cap)
    f->lent = xrealloc(f->lent, sizeof(int) * (size_t)(f->cap = 2 * f->cap + 8));
  f->lent[f->n++] = ident->first;
}

static bool is_lent(const FieldType *f, int tok) {
  for (int i = 0; i < f->n; i++)
    if (f->lent[i] == tok)
      return true;
  return in_decayed_size(f->local, tok);
}

/* Every token of a type's range that names a local but the one declared (a name in an attribute,
   say, is no node of the type), and the names of its tree that lend only their types: the tree is
   walked only for a type that names a local (rare). */
static void check_type_names(FieldType *f, const Node *type) {
  int first = type->first, last = type->last;
  const Sym *self = f->local ? f->local->sym : NULL;
  bool walked = false;
  for (int j = first; j <= last; j++) {
    Token *t = &f->l->src->original.v[j];
    if (!is_body_object(token_sym(t)) || (self && t == self->tok))
      continue;
    if (!walked)
      names_in_type(type, NULL, field_type_name, f);
    walked = true;
    if (is_local_of(token_sym(t), f->l->co) && !is_lent(f, j))
      refuse_dependence(f, t);
  }
}

/* A frame field's type: its specifiers, then its declarator. */
static void check_field_types(Layout *l) {
  for (int i = 0; i < l->co->locals.n; i++) {
    Node *n = l->co->locals.v[i];
    FieldType f = {.l = l, .local = n}; /* an ND_PARAM or ND_INIT_DECL */
    check_type_names(&f, n->specs);
    check_type_names(&f, n->declarator);
    xfree(f.lent);
  }
}

/* Types declared in the body move to file scope, in front of the frame, where
   the coroutine's locals do not exist: one may name a local for its type
   alone (`struct { char d[sizeof hdr]; }`, written typed as a field is). */
static void check_hoisted_types(Layout *l) {
  for (int i = 0; i < l->co->types.n; i++) {
    Node *t = l->co->types.v[i];
    FieldType f = {.l = l};
    check_type_names(&f, t);
    xfree(f.lent);
  }
}

/* }================================================================== */

/* The stackful backend prints a body as written, its locals on its own stack:
   which of them a frame would keep is asked only of the printers that show
   it (the facts an editor shows, --stats, --html, --dot). The analysis
   refuses nothing, so both backends still accept the same programs. */
static bool frame_decided(const Options *opt) {
  return opt->backend == BACKEND_STACKLESS || opt->facts || opt->stats || opt->html || opt->dot;
}

/* What the macro co->jump_macro does that coroc's passes do not see: it jumps out of its use
   (true), or its braces open or close a block (a break among the statements between is the
   block's). */
static bool jumps_unseen(const Coroutine *co) {
  return co->jump_deed & JUMPS_ANY;
}

/* A macro's jump (macros.c, "Macros that jump") may leave the scope of a local with a cleanup,
   which the body calls where it sees the scope left (cleanup.c): it would not be called. */
static void check_jumps_and_cleanups(const Coroutine *co) {
  if (!co->jump_macro)
    return;
  for (int i = 0; i < co->locals.n; i++) {
    const Sym *s = co->locals.v[i]->sym;
    if (s && s->cleanup)
      error_tok(co->jump_macro,
                "the macro '%s' %s in coroutine '%s', whose local '%s' has a cleanup that coroc "
                "calls where it sees its scope left: write the %s out",
                tok_text(co->jump_macro),
                jumps_unseen(co) ? "jumps out of its use" : "opens or closes a block", co->name,
                s->name, jumps_unseen(co) ? "jump" : "block");
  }
}

void layout_frame(Source *src, Coroutine *co, const Options *opt) {
  if (!co->def)
    return;
  Layout l = {.co = co, .src = src};
  layout_params(&l);
  visit(co->def->body, layout_pre, layout_post, &l);
  note_cleanups(src, co); /* cleanup.c: which locals have __attribute__((cleanup)) */
  check_jumps_and_cleanups(co);
  /* live.c: only what must survive a suspension; every local where a macro jumps unseen (with a
     local bound to a register, in the stackful backend too: live.c refuses one a suspension
     needs, and both backends accept the same programs) */
  if (frame_decided(opt) || l.register_bound)
    decide_frame(src, co,
                 opt->hoist_all   ? "every local (--hoist-all)"
                 : co->jump_macro ? format("every local: the macro %s %s where coroc cannot see",
                                           tok_text(co->jump_macro),
                                           jumps_unseen(co) ? "jumps" : "opens or closes a block")
                                  : NULL);
  check_hoisted_types(&l);
  check_field_types(&l);
  xfree(l.scope_last);
  xfree(l.names);
}

void layout_frames(Source *src, Coroutine *cos, const Options *opt) {
  for (Coroutine *co = cos; co; co = co->next)
    layout_frame(src, co, opt);
}
