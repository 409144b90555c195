/* tokens.c: the spellings of tokens, each kept once.
 *
 * The scanner makes hundreds of thousands of tokens for a file with its
 * headers. Copying each one's spelling costs a malloc per token; instead,
 * every identifier, keyword, punctuator and number is interned: one copy of
 * each distinct spelling, in the run's mapping (below), found again through
 * a hash table. Two tokens spell the same word exactly when their spellings are
 * the same pointer, so the symbol tables compare pointers, and a word's
 * keyword code is stored beside its one copy (no search per identifier).
 * String literals, long and seldom repeated, are copied as they come.
 *
 * All of them, interned or copied, lie in one mapping reserved whole at the
 * start of a run (address space only: the kernel gives it pages as they are
 * written), so they stay where they are and a token names its own by its
 * offset there, in 4 bytes (Token.spelling, tok_text).
 *
 *   Name: | keyword | hash | len | t e x t \0 |
 *                                  ^ Token.spelling is the offset of this
 */
#include "coroc.h"
#include "parser.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
  int keyword;   /* the parser's token code if this word is a keyword, else 0 */
  unsigned hash; /* of the spelling */
  int len;       /* strlen(text) */
  char text[];   /* the spelling, NUL-terminated */
} Name;

typedef struct {
  const char *name;
  int code;
} Keyword;

/* The GNU spellings map to the standard word. Type names that gcc knows
   without a declaration, which system headers use (bits/link.h has
   __int128_t), are keywords here too; __seg_fs and __seg_gs are qualifiers. */
static const Keyword keywords[] = {
    {"_Alignas", T_ALIGNAS},
    {"_Alignof", T_ALIGNOF},
    {"_Atomic", T_ATOMIC},
    {"_Bool", T_BOOL},
    {"_Complex", T_COMPLEX},
    {"_Float128", T_FLOATN},
    {"_Float128x", T_FLOATN},
    {"_Float16", T_FLOATN},
    {"_Float32", T_FLOATN},
    {"_Float32x", T_FLOATN},
    {"_Float64", T_FLOATN},
    {"_Float64x", T_FLOATN},
    {"_Generic", T_GENERIC},
    {"_Imaginary", T_IMAGINARY},
    {"_Noreturn", T_NORETURN},
    {"_Nonnull", T_NULLABILITY},
    {"_Null_unspecified", T_NULLABILITY},
    {"_Nullable", T_NULLABILITY},
    {"_Static_assert", T_STATIC_ASSERT},
    {"_Thread_local", T_THREAD_LOCAL},
    {"__alignof", T_ALIGNOF},
    {"__alignof__", T_ALIGNOF},
    {"__asm", T_ASM},
    {"__asm__", T_ASM},
    {"_Pragma", T_PRAGMA},
    {"__attribute", T_ATTRIBUTE},
    {"__attribute__", T_ATTRIBUTE},
    {"__auto_type", T_AUTO_TYPE},
    {"__bf16", T_FLOATN},
    {"__builtin_ms_va_list", T_BUILTIN_VA_LIST},
    {"__builtin_sysv_va_list", T_BUILTIN_VA_LIST},
    {"__builtin_offsetof", T_OFFSETOF},
    {"__builtin_types_compatible_p", T_TYPES_COMPATIBLE},
    {"__builtin_va_arg", T_VA_ARG},
    {"__builtin_va_list", T_BUILTIN_VA_LIST},
    {"__complex", T_COMPLEX},
    {"__complex__", T_COMPLEX},
    {"__const", T_CONST},
    {"__const__", T_CONST},
    {"__extension__", T_EXTENSION},
    {"__float128", T_FLOATN},
    {"__fp16", T_FLOATN},
    {"__ibm128", T_FLOATN},
    {"__imag", T_IMAG},
    {"__imag__", T_IMAG},
    {"__inline", T_INLINE},
    {"__inline__", T_INLINE},
    {"__int128", T_INT128},
    {"__int128_t", T_INT128},
    {"__uint128_t", T_INT128},
    {"__float80", T_FLOATN},
    {"_Decimal32", T_FLOATN},
    {"_Decimal64", T_FLOATN},
    {"_Decimal128", T_FLOATN},
    {"__seg_fs", T_NULLABILITY},
    {"__seg_gs", T_NULLABILITY},
    {"__label__", T_LABEL},
    {"__real", T_REAL},
    {"__real__", T_REAL},
    {"__restrict", T_RESTRICT},
    {"__restrict__", T_RESTRICT},
    {"__signed", T_SIGNED},
    {"__signed__", T_SIGNED},
    {"__thread", T_THREAD_LOCAL},
    {"__typeof", T_TYPEOF},
    {"__typeof__", T_TYPEOF},
    {"__volatile", T_VOLATILE},
    {"__volatile__", T_VOLATILE},
    {"asm", T_ASM},
    {"auto", T_AUTO},
    {"await", T_AWAIT},
    {"break", T_BREAK},
    {"case", T_CASE},
    {"char", T_CHAR_KW},
    {"const", T_CONST},
    {"continue", T_CONTINUE},
    {"coroutine", T_COROUTINE},
    {"default", T_DEFAULT},
    {"do", T_DO},
    {"double", T_DOUBLE},
    {"else", T_ELSE},
    {"enum", T_ENUM},
    {"extern", T_EXTERN},
    {"float", T_FLOAT},
    {"for", T_FOR},
    {"goto", T_GOTO},
    {"if", T_IF},
    {"inline", T_INLINE},
    {"int", T_INT},
    {"long", T_LONG},
    {"register", T_REGISTER},
    {"restrict", T_RESTRICT},
    {"return", T_RETURN},
    {"short", T_SHORT},
    {"signed", T_SIGNED},
    {"sizeof", T_SIZEOF},
    {"static", T_STATIC},
    {"struct", T_STRUCT},
    {"switch", T_SWITCH},
    {"typedef", T_TYPEDEF},
    {"typeof", T_TYPEOF},
    {"union", T_UNION},
    {"unsigned", T_UNSIGNED},
    {"void", T_VOID},
    {"volatile", T_VOLATILE},
    {"while", T_WHILE},
    {"yield", T_YIELD},
};


/* {==================================================================
 * The run's spellings, in one mapping
 * =================================================================== */

char *token_spellings;
static size_t spellings_used;

/* What a run may spell: far more than the tokens' own limit could use on
   any input coroc can read, and only address space until written. */
enum { SPELLINGS_MAX = 1 << 30 };

/* Room for n bytes at the given alignment, in the mapping. The first run
   reserves it; its first byte stays a NUL (the spelling of offset 0). */
static void *spelling_room(size_t n, size_t align) {
  if (!token_spellings) {
    token_spellings = mmap(NULL, SPELLINGS_MAX, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (token_spellings == MAP_FAILED) {
      token_spellings = NULL;
      fatal("cannot reserve room for the spellings: %s", strerror(errno));
    }
    spellings_used = 1;
  }
  size_t at = (spellings_used + align - 1) & ~(align - 1);
  if (n > SPELLINGS_MAX - at)
    fatal("more than %d MiB of spellings: coroc's limit", SPELLINGS_MAX >> 20);
  spellings_used = at + n;
  return token_spellings + at;
}

unsigned spelling_offset(const char *spelling) {
  return (unsigned)(spelling - token_spellings);
}

/* }================================================================== */

static Name **table; /* open addressing; a slot is NULL or a Name */
static size_t cap, count;

static unsigned hash_bytes(const char *s, size_t len) {
  unsigned h = 2166136261u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static Name *name_of(const char *text) {
  return (Name *)(text - offsetof(Name, text));
}

static void grow(void) {
  size_t ncap = cap ? cap * 2 : 1 << 14;
  Name **nt = memory_keep(xcalloc(ncap, sizeof *nt)); /* (the run's, not a region's) */
  for (size_t i = 0; i < cap; i++)
    if (table[i]) {
      size_t j = table[i]->hash & (ncap - 1);
      while (nt[j])
        j = (j + 1) & (ncap - 1);
      nt[j] = table[i];
    }
  xfree(table);
  table = nt;
  cap = ncap;
}

static void add_keywords(void);

const char *intern(const char *s, size_t len) {
  if (!table) {
    grow();
    add_keywords();
  }
  unsigned h = hash_bytes(s, len);
  size_t i = h & (cap - 1);
  for (Name *n; (n = table[i]); i = (i + 1) & (cap - 1))
    if (n->hash == h && (size_t)n->len == len && memcmp(n->text, s, len) == 0)
      return n->text;
  Name *n = spelling_room(sizeof *n + len + 1, _Alignof(Name));
  n->keyword = 0;
  n->hash = h;
  n->len = (int)len;
  memcpy(n->text, s, len);
  n->text[len] = '\0';
  table[i] = n;
  if (2 * ++count > cap) /* at most half full */
    grow();
  return n->text;
}

static void add_keywords(void) {
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
    name_of(intern(keywords[i].name, strlen(keywords[i].name)))->keyword = keywords[i].code;
}

int name_keyword(const char *interned) {
  return name_of(interned)->keyword;
}

unsigned interned_hash(const char *interned) {
  return name_of(interned)->hash;
}

char *copy_spelling(const char *s, size_t len) {
  char *p = spelling_room(len + 1, 1);
  memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

/* The files tokens come from, by number: a header's name is interned once
   by the scanner, and each token keeps its number. */
static const char **files;
static unsigned nfiles;

unsigned file_number(const char *interned_name) {
  /* The first file is the input, which a linemarker names again after
     every header it includes (18,000 times in sqlite3.c, which includes
     128 files); then the newest are asked most. */
  if (nfiles > 0 && files[0] == interned_name)
    return 0;
  for (unsigned i = nfiles; i-- > 1;)
    if (files[i] == interned_name)
      return i;
  if (nfiles == 1u << 15)
    fatal("more than %u files included", nfiles);
  files = memory_keep(xappend(files, nfiles, sizeof *files));
  files[nfiles] = interned_name;
  return nfiles++;
}

const char *file_name(unsigned number) {
  return files[number];
}

/* The spellings (and the file names among them) go back after each run:
   the mapping, and the table that finds them (the keywords come back with
   the first word interned). */
void tokens_release(void) {
  xfree(table);
  table = NULL;
  cap = count = 0;
  xfree(files);
  files = NULL;
  nfiles = 0;
  if (token_spellings)
    munmap(token_spellings, SPELLINGS_MAX);
  token_spellings = NULL;
  spellings_used = 0;
}

bool is_ident_char(char c) {
  return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}
