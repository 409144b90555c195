/* macros.c: the object-like macros in effect, as the file parse passes them.
 *
 * coroc parses a coroutine from the user's tokens, macros unexpanded, so that
 * the output keeps them. A macro that stands for a type, though, must be
 * seen through: in `coroutine bool evens(void)` or `static INLINE u8 x;`,
 * bool, INLINE and u8 are macros (stdbool.h's bool is `_Bool`). The
 * preprocessor runs with -dD, so its output carries every #define and #undef
 * where it took effect; the file parse hands each one here as it passes it,
 * and the coroutine parse, which runs nested at the coroutine's place, asks
 * for the expansion of a name. The definitions of all macros are kept, so
 * that one naming a coroutine's locals can be redefined for its body (directives.c).
 */
#include "coroc.h"

#include <string.h>

/* A header of a large program defines thousands of macros (glibc's and
   the runtime's alone, for examples/echo.coc, about 2,700), and a language
   server passes them all at every change: a definition costs one arena
   record, its name and text pointing into the directive token's spelling,
   which lives as long as the run. Its tokens are made only when a parse
   asks for them (macro_body), which few do. Its name is interned: a
   coroutine's parse asks about every word it reads, with the word's
   interned spelling, so a question is a hash already made and a pointer
   compared (hashing and comparing the text was 3% of coroc's time on
   benchmark part 4's large.coc). */
#define NBUCKETS 4096

typedef struct Macro Macro;
struct Macro {
  const char *name;      /* the macro's name, interned */
  const char *body_text; /* what follows its name in `text` */
  const char *text;      /* its whole #define line */
  bool type_like;        /* its body is words and stars only: `body` holds its tokens */
  TokenList body;        /* its replacement list, once asked for (v: NULL until then) */
  Macro *next;           /* the next in its hash chain */
};

static Macro *buckets[NBUCKETS];

static Macro **find(const char *interned) {
  Macro **m = &buckets[interned_hash(interned) % NBUCKETS];
  while (*m && (*m)->name != interned)
    m = &(*m)->next;
  return m;
}

static size_t ident_length(const char *p) {
  size_t n = 0;
  while (p[n] == '_' || p[n] == '$' || (p[n] >= 'a' && p[n] <= 'z') ||
         (p[n] >= 'A' && p[n] <= 'Z') || (n > 0 && p[n] >= '0' && p[n] <= '9'))
    n++;
  return n;
}

/* `#define NAME body`, `#define NAME(args) body`, `#undef NAME`; text is
   the directive token's spelling, which outlives every use here. */
void macro_directive(const char *text) {
  const char *p = strchr(text, '#') + 1;
  p += strspn(p, " \t");
  bool define = strncmp(p, "define", 6) == 0;
  if (!define && strncmp(p, "undef", 5) != 0)
    return;
  p += define ? 6 : 5;
  p += strspn(p, " \t");
  size_t n = ident_length(p);
  if (n == 0)
    return;
  const char *name = intern(p, n);
  Macro **slot = find(name);
  if (*slot) { /* redefined or undefined: forget the old body */
    xfree((*slot)->body.v);
    *slot = (*slot)->next;
  }
  if (!define)
    return;
  Macro *m = arena_alloc(&arena_perm, sizeof *m);
  m->name = name;
  m->body_text = p + n;
  m->text = text;
  /* only words and stars can make a type (`unsigned long`, `struct node *`,
     nothing at all); a body like `'` would not even scan */
  m->type_like =
      p[n] != '(' && !m->body_text[strspn(m->body_text,
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_$ \t*")];
  m->next = *slot;
  *slot = m;
}

/* Each run starts with no macro defined, as a process would (the records
   themselves go with the arena). */
void macros_release(void) {
  for (int i = 0; i < NBUCKETS; i++)
    for (Macro *m = buckets[i]; m; m = m->next)
      xfree(m->body.v);
  memset(buckets, 0, sizeof buckets);
}

const TokenList *macro_body(const char *name) {
  Macro *m = *find(name);
  if (!m || !m->type_like)
    return NULL;
  if (!m->body.v) { /* (a body scanned holds its TK_EOF at least) */
    tokenize("<macro>", m->body_text, strlen(m->body_text), false, NULL, &m->body);
    m->body.v = memory_keep(m->body.v); /* (the run's, not a region's) */
  }
  return &m->body;
}

const char *macro_definition(const char *name) {
  Macro *m = *find(name);
  return m ? m->text : NULL;
}
