/* external.c: the file parse, one external declaration at a time.
 *
 * The file parse reads the whole preprocessed unit, headers included, and
 * keeps none of its tree: once an external declaration is parsed, all its
 * nodes go back to the arena (external_done), and a large file costs the
 * memory of its largest declaration. What later passes ask of its symbols
 * is copied first, and a coroutine's declaration is kept whole.
 *
 * When the file parse meets a coroutine, the coroutine is parsed again from
 * the user's own tokens, there, in the scopes of that point (parser.y,
 * coroutine_found, runs the grammar again between coroutine_start and
 * coroutine_record here); the file parse then skips its body (body_begin).
 * Its tree is kept to the end, for the passes; or, in the streaming run,
 * the passes take it at the end of its external declaration (Parser.each),
 * and then it goes back like any other.
 */
#include "parse.h"
#include "stream.h"

#include <stdlib.h>

/* The file parse's token that is the user's token `orig` (a coroutine's
   closing brace), or -1 (it comes from a macro). Tokens are tied by line
   and spelling, counting repeats (source_find_original): the count is made
   once along the line, not per candidate, so a body on one long line costs
   one pass over it. */
static int expanded_of(Parser *p, int orig) {
  const TokenList *o = &p->src->original;
  const Token *close = &o->v[orig];
  int k = 0; /* same spellings before it on its line, as the user wrote them */
  for (int j = orig - 1; j >= p->src->original_from && o->v[j].line == close->line; j--)
    k += tok_text(&o->v[j]) == tok_text(close) && !o->v[j].dead && o->v[j].kind != TK_DIRECTIVE;
  int i = p->pos > 0 ? p->pos - 1 : 0;
  while (i > 0 && p->toks->v[i - 1].in_main && p->toks->v[i - 1].line == close->line)
    i--; /* from the start of its line */
  for (; source_more(p->src, i); i++) {
    const Token *t = &p->toks->v[i];
    if (!t->in_main || t->line < close->line)
      continue;
    if (t->line > close->line)
      return -1;
    if (tok_text(t) == tok_text(close) && k-- == 0)
      return source_find_original(p->src, i) == orig ? i : -1;
  }
  return -1;
}

/* Entering a function body: its parameters come into scope. When this is a
   coroutine of the file parse, its second parse has just run (parser.y,
   coroutine_found), from the user's own tokens, and the tree it made is the
   one that is used: the file parse skips the body (the token hook hands it
   SKIPPED_BODY instead) and returns true, to drop the '{' it may have read
   ahead. */
bool body_begin(Parser *p, Node *declarator) {
  Node *specs = p->specs.v[p->specs.n - 1];
  p->in_coroutine = specs->flags & SP_COROUTINE;
  scope_push();
  declare_params(p, declarator);
  if (p->original || !p->in_coroutine)
    return false;
  int close = expanded_of(p, (*p->last_co)->last);
  if (close < 0) { /* parse it here too, and give its tree back at its end */
    p->coroutine_body = arena_mark(&arena_tree);
    p->release_body = true;
    return false;
  }
  p->skip_to = close + 1;
  const TokenList *o = &p->src->original;
  source_skipped_lines(p->src, o->v[(*p->last_co)->first].line, o->v[(*p->last_co)->last].line);
  return true;
}

/* What a later pass asks of a file-scope declaration of the file parse: a
   function's type (the value of an awaitable), a typedef's (is it an
   array?). Its specifiers and declarator are copied, without the
   parameters, initializers and anything below. */
static Node *keep_node(const Node *n) {
  Node *copy = arena_alloc(&arena_perm, sizeof *copy);
  *copy = *n;
  copy->cond = copy->then = copy->otherwise = copy->body = NULL; /* all four slots */
  copy->kids = (NodeList){0};
  return copy;
}

static Node *keep_list(const Node *n) {
  Node *copy = keep_node(n);
  copy->kids.v = arena_alloc(&arena_perm, sizeof(Node *) * (n->kids.n + 1));
  copy->kids.n = copy->kids.cap = n->kids.n;
  for (int i = 0; i < n->kids.n; i++)
    copy->kids.v[i] = keep_node(n->kids.v[i]);
  return copy;
}

static Node *keep_declaration(const Node *init_decl) {
  Node *copy = keep_node(init_decl);
  copy->declarator = keep_list(init_decl->declarator); /* and its derivations */
  copy->specs = keep_list(init_decl->specs);
  return copy;
}

/* The streaming run: an external declaration of coroutines, printed, that
   declared no type and whose declarations nothing keeps. Its preprocessed
   tokens, and those back to the last declaration that something kept points
   into, will not be read again: their pages go back (a file of coroutines
   then holds its headers' tokens, not its own). Its file-scope symbols'
   tokens are copied out first. The tokens of its last line stay, and a few
   before them: the next coroutine, if it starts on that line, is found by
   walking back along it (expanded_of, source_find_original), and a syntax
   error's message looks up to LOOK_BACK tokens back (syntax_error.c). */
enum { LOOK_BACK = 4 };

static void give_back_behind(Parser *p, Loc loc) {
  Token *v = p->toks->v, *lo = v + loc.first, *hi = v + loc.last;
  for (int i = p->external_syms; i < scope_declared_count(); i++) {
    Sym *s = scope_declared(i);
    if (s->depth == 0 && s->tok >= lo && s->tok <= hi) {
      Token *copy = arena_alloc(&arena_perm, sizeof *copy);
      *copy = *s->tok;
      s->tok = copy;
    }
  }
  int keep = loc.last;
  while (keep > loc.first && v[keep - 1].in_main && v[keep - 1].line == v[loc.last].line)
    keep--;
  keep = keep - LOOK_BACK > p->behind_from ? keep - LOOK_BACK : p->behind_from;
  see_directives(p, keep); /* (those a skipped body held are read before it goes) */
  memory_not_read_again(v, sizeof(Token) * (size_t)p->behind_from,
                        sizeof(Token) * (size_t)p->behind_done, sizeof(Token) * (size_t)keep);
  p->behind_done = keep;
}

/* The end of an external declaration of the file parse. Its tree is needed
   by nothing once parsed (coroutines are parsed again, from the user's own
   tokens), so all of it goes back to the arena: a large file costs the
   memory of its largest declaration, not of all of them. What later passes
   read of the symbols it declared is copied first. A coroutine's is kept
   whole: its second parse made its tree in between. The typedef names,
   enumeration constants and tags it declares at file scope keep where it
   is (Sym.ext), for a header that shows a frame which uses them. */
void external_done(Parser *p, Loc loc) {
  bool objects = false, types = p->ntags_defined > 0;
  for (int i = p->external_syms; i < scope_declared_count(); i++) {
    Sym *s = scope_declared(i);
    if (s->depth == 0 && (s->kind == SYM_OBJECT || s->kind == SYM_FUNCTION))
      objects = true;
    else if (s->depth == 0 && (s->kind == SYM_TYPEDEF || s->kind == SYM_ENUMCONST))
      types = true;
  }
  if (types) {
    External *ext = arena_alloc(&arena_perm, sizeof *ext);
    *ext = (External){loc.first, loc.last, objects};
    for (int i = p->external_syms; i < scope_declared_count(); i++) {
      Sym *s = scope_declared(i);
      if (s->depth == 0 && (s->kind == SYM_TYPEDEF || s->kind == SYM_ENUMCONST))
        s->ext = ext;
    }
    for (int i = 0; i < p->ntags_defined; i++)
      p->tags_defined[i]->ext = ext;
  }
  p->ntags_defined = 0;
  bool printed = p->keep_external && p->each, kept = types;
  if (printed) { /* streaming: its coroutines go now, then the tree */
    for (Coroutine *co = *p->unsent; co; co = co->next)
      p->each(co, p->each_ctx);
    p->unsent = p->cos_tail;
    p->keep_external = false;
  }
  if (!p->keep_external) {
    for (int i = p->external_syms; i < scope_declared_count(); i++) {
      Sym *s = scope_declared(i);
      /* (not one that a later one of the same name hides already: a
         coroutine's name, declared by both parses; no name finds it) */
      bool wanted = (s->kind == SYM_FUNCTION || s->kind == SYM_TYPEDEF) && s->decl &&
                    s->decl->kind == ND_INIT_DECL && scope_lookup(s->name) == s;
      if (wanted && (s->specs & SP_COROUTINE)) { /* a call makes a coro_t *: only this counts */
        s->void_task = !task_has_value(s);
        wanted = false;
      }
      s->decl = wanted ? keep_declaration(s->decl) : NULL;
      kept |= wanted;
    }
    arena_release(&arena_tree, p->external_mark);
  }
  if (printed && !kept)
    give_back_behind(p, loc);
  else if (p->each)
    p->behind_from = p->behind_done = loc.last + 1;
  p->keep_external = false;
  p->external_mark = arena_mark(&arena_tree);
  p->external_syms = scope_declared_count();
}

Node *funcdef_end(Parser *p, Node *specs, Node *declarator, Node *body, Loc loc) {
  scope_pop();
  p->in_coroutine = false;
  end_decl(p);
  if (p->release_body && scope_depth() == 0) {
    arena_release(&arena_tree, p->coroutine_body);
    p->release_body = false;
    body = NULL;
  }
  Node *n = new_node(ND_FUNCDEF, loc.first, loc.last);
  n->specs = specs;
  n->declarator = declarator->declarator; /* declarator_reg made an ND_INIT_DECL around it */
  n->body = body;
  n->tok = declarator->tok;
  if (p->original && scope_depth() == 0)
    p->done = true;
  return n;
}

/* The macros (in effect here) that the coroutine's tokens use: directives.c
   redefines those that name its locals for the length of its body. */
static void record_macros(Parser *p, Coroutine *co, int first, int end) {
  TokenList *o = &p->src->original;
  for (int i = first; i < end && i < o->n; i++) {
    Token *t = &o->v[i];
    const char *def = t->kind == TK_IDENT && !t->dead ? macro_definition(tok_text(t)) : NULL;
    bool seen = false;
    for (int j = 0; def && j < co->nmacros; j++)
      seen |= co->macros[j] == def;
    if (!def || seen)
      continue;
    co->macros = xappend(co->macros, co->nmacros, sizeof(char *));
    co->macros[co->nmacros++] = def;
  }
}

/* The file parse met a declaration or definition. If it is a coroutine,
   where its second parse starts, from the original tokens, here, in these
   scopes (parser.y runs it); -1 if it is not (and in the second parse,
   whose own end this may be). */
int coroutine_start(Parser *p, Node *specs, Node *n, bool is_def, Loc loc) {
  if (p->original) {
    if (!is_def && scope_depth() == 0)
      p->done = true;
    return -1;
  }
  if (!(specs->flags & SP_COROUTINE))
    return -1;
  Token *kw = NULL;
  for (int i = 0; i < specs->kids.n; i++)
    if (specs->kids.v[i]->flags == SP_COROUTINE)
      kw = specs->kids.v[i]->tok;
  if (scope_depth() != 0)
    error_at(source_original_pos(p->src, kw - p->toks->v),
             "a coroutine must be declared at file scope");
  /* the declarator */
  Node *d = is_def ? n->declarator : n->kids.n == 1 ? n->kids.v[0]->declarator : NULL;
  if (!d || d->kids.n == 0 || d->kids.v[0]->kind != ND_FUNC)
    error_at(source_original_pos(p->src, kw - p->toks->v),
             "'coroutine' declares a function: give one function declarator");
  int start = source_find_original(p->src, loc.first);
  if (start < 0)
    error_at(source_original_pos(p->src, loc.first),
             "cannot find this coroutine in the source text (is it produced by a macro?)");
  p->keep_external = true;
  return start;
}

/* The coroutine its second parse made of the original tokens [start, end). */
void coroutine_record(Parser *p, Node *unit, int start, int end) {
  Coroutine *co = xcalloc(1, sizeof *co);
  record_macros(p, co, start, end);
  co->def = unit->kind == ND_FUNCDEF ? unit : NULL;
  co->is_prototype = !co->def;
  co->decl = unit;
  co->first = unit->first;
  co->last = unit->last;
  Node *specs = unit->specs;
  co->specs = specs;
  co->declarator = co->def ? unit->declarator : unit->kids.v[0]->declarator;
  co->name = tok_text(co->declarator->tok);
  co->is_static = specs->flags & SP_STATIC;
  co->returns_void = (specs->flags & SP_VOID) && co->declarator->kids.n == 1;
  *p->cos_tail = co;
  p->last_co = p->cos_tail;
  p->cos_tail = &co->next;
}
