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

#define NBUCKETS 1024

typedef struct Macro Macro;
struct Macro {
  const char *name; /* the macro's name */
  const char *text; /* its whole #define line */
  bool type_like;   /* its body is words and stars only: `body` holds its tokens */
  TokenList body;   /* its replacement list */
  Macro *next;      /* the next in its hash chain */
};

static Macro *buckets[NBUCKETS];

static unsigned hash(const char *s, size_t n) {
  unsigned h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h % NBUCKETS;
}

static Macro **find(const char *name, size_t n) {
  Macro **m = &buckets[hash(name, n)];
  while (*m && (strlen((*m)->name) != n || strncmp((*m)->name, name, n) != 0))
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

/* `#define NAME body`, `#define NAME(args) body`, `#undef NAME` */
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
  Macro **slot = find(p, n);
  if (*slot)
    *slot = (*slot)->next; /* redefined or undefined: forget the old body */
  if (!define)
    return;
  Macro *m = xcalloc(1, sizeof *m);
  m->name = xstrndup(p, n);
  m->text = xstrndup(text, strlen(text));
  /* only words and stars can make a type (`unsigned long`, `struct node *`,
     nothing at all); a body like `'` would not even scan */
  const char *body = p + n;
  m->type_like =
      p[n] != '(' &&
      !body[strspn(body, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$ \t*")];
  if (m->type_like)
    tokenize("<macro>", body, strlen(body), false, NULL, &m->body);
  m->next = *slot;
  *slot = m;
}

/* Each run starts with no macro defined, as a process would. */
void macros_release(void) {
  for (int i = 0; i < NBUCKETS; i++)
    while (buckets[i]) {
      Macro *m = buckets[i];
      buckets[i] = m->next;
      xfree((char *)m->name);
      xfree((char *)m->text);
      xfree(m->body.v);
      xfree(m);
    }
}

const TokenList *macro_body(const char *name) {
  Macro *m = *find(name, strlen(name));
  return m && m->type_like ? &m->body : NULL;
}

const char *macro_definition(const char *name) {
  Macro *m = *find(name, strlen(name));
  return m ? m->text : NULL;
}
