/* scope.c: symbols and scopes.
 *
 * Two namespaces of C are kept: ordinary identifiers (objects, functions,
 * typedef names, enumeration constants) and tags. Each is a hash table of
 * chains, newest first; each symbol records the depth of the scope that
 * declared it, and leaving a scope unlinks the symbols it declared. That
 * is all the lexer hack needs (is this name a typedef here?), and all that
 * name resolution needs (which declaration does this identifier mean?).
 */
#include "coroc.h"

#include <string.h>

#define NBUCKETS 4096

typedef struct {
  Sym *buckets[NBUCKETS]; /* chains, newest declaration first */
} Namespace;

static Namespace ordinary, tags;
static int depth;

/* Every live symbol in declaration order, so that leaving a scope touches
   only its own symbols (each is at the head of its chain). */
static Sym **declared;
static int ndeclared, capdeclared;

/* Names are interned (tokens.c): one hash computed once per spelling, and
   equal names are equal pointers. */
static unsigned hash(const char *name) {
  return interned_hash(name) % NBUCKETS;
}

void scope_reset(void) {
  memset(&ordinary, 0, sizeof ordinary);
  memset(&tags, 0, sizeof tags);
  depth = 0;
  ndeclared = 0;
}

/* The symbols live in the arenas, which go back after each run. */
void scope_release(void) {
  scope_reset();
  xfree(declared);
  declared = NULL;
  capdeclared = 0;
}

void scope_push(void) {
  depth++;
}

void scope_pop(void) {
  if (depth == 0)
    internal_error("scope_pop at file scope");
  while (ndeclared > 0 && declared[ndeclared - 1]->depth >= depth) {
    Sym *s = declared[--ndeclared];
    Namespace *ns = s->kind == SYM_TAG ? &tags : &ordinary;
    unsigned h = hash(s->name);
    if (ns->buckets[h] != s)
      internal_error("scope chain out of order for '%s'", s->name);
    ns->buckets[h] = s->chain;
  }
  depth--;
}

int scope_declared_count(void) {
  return ndeclared;
}

Sym *scope_declared(int i) {
  return declared[i];
}

int scope_depth(void) {
  return depth;
}

Sym *scope_declare(SymKind kind, Token *tok, Node *decl, int specs) {
  Namespace *ns = kind == SYM_TAG ? &tags : &ordinary;
  /* a file-scope symbol lives to the end; a block's goes with the tree */
  Sym *s = arena_alloc(depth == 0 ? &arena_perm : &arena_tree, sizeof *s);
  *s = (Sym){.kind = kind,
             .name = tok_text(tok),
             .decl = decl,
             .depth = depth,
             .specs = specs,
             .tok = tok};
  unsigned h = hash(tok_text(tok));
  s->chain = ns->buckets[h];
  ns->buckets[h] = s;
  if (ndeclared == capdeclared) {
    capdeclared = capdeclared ? capdeclared * 2 : 1024;
    declared = memory_keep(xrealloc(declared, sizeof(Sym *) * capdeclared));
  }
  declared[ndeclared++] = s;
  return s;
}

static Sym *lookup(Namespace *ns, const char *name) {
  for (Sym *s = ns->buckets[hash(name)]; s; s = s->chain)
    if (s->name == name)
      return s;
  return NULL;
}

Sym *scope_lookup(const char *name) {
  return lookup(&ordinary, name);
}

Sym *scope_lookup_tag(const char *name) {
  return lookup(&tags, name);
}
