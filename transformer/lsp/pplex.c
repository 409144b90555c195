/* pplex.c: C's preprocessing tokens, as gcc's preprocessor reads them, for
 * coroc-lsp's own macro expander (expand.c).
 *
 * Separate from coroc's scanner (front/lexer.l), which reads what the
 * preprocessor printed, or the user's text with its directives whole: here
 * the text is the user's, and what matters is what gcc's reading gives a
 * macro expansion and `cc -E`'s output: which token is first on its line,
 * which has whitespace before it, and the physical line each starts on
 * (a line splice moves the next token to the next line; a block comment
 * may hold line breaks). What gcc reads otherwise than this file does is
 * refused (PPLexer.fail): raw strings, digraphs, UCNs and bytes past ASCII
 * in identifiers, u8 character constants, unterminated comments.
 */
#define _GNU_SOURCE
#include "pp.h"

#include <stdlib.h>
#include <string.h>

static _Noreturn void cannot(PPLexer *l) {
  longjmp(*l->fail, 1);
}

char *pp_clean(const char *text, size_t len, size_t *out_len, size_t **splices, int *nsplices) {
  char *out = malloc(len + 1);
  size_t n = 0, cap = 0;
  *splices = NULL;
  *nsplices = 0;
  if (!out)
    abort();
  for (size_t i = 0; i < len;) {
    char c = text[i];
    if (c == '\0') {
      free(out);
      free(*splices);
      *splices = NULL;
      return NULL;
    }
    if (c == '\\') { /* a splice: backslash, blanks, newline (gcc allows the blanks) */
      size_t j = i + 1;
      while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\f' || text[j] == '\v'))
        j++;
      size_t nl = j < len && text[j] == '\n'                              ? 1
                  : j + 1 < len && text[j] == '\r' && text[j + 1] == '\n' ? 2
                                                                          : 0;
      if (nl) {
        if (*nsplices == (int)cap) {
          cap = cap ? 2 * cap : 16;
          *splices = realloc(*splices, cap * sizeof **splices);
          if (!*splices)
            abort();
        }
        (*splices)[(*nsplices)++] = n;
        i = j + nl;
        continue;
      }
    }
    if (c == '\r' && i + 1 < len && text[i + 1] == '\n') {
      i++;
      continue;
    }
    out[n++] = c;
    i++;
  }
  out[n] = '\0';
  *out_len = n;
  return out;
}

void pplex_init(PPLexer *l, const char *text, size_t len, int line, jmp_buf *fail) {
  *l = (PPLexer){.p = text,
                 .end = text + len,
                 .base = text,
                 .counted = text,
                 .line = line,
                 .bol = true,
                 .fail = fail};
}

/* The physical line of the text at q (q never moves back). */
static int line_at(PPLexer *l, const char *q) {
  for (; l->counted < q; l->counted++)
    l->line += *l->counted == '\n';
  while (l->next_splice < l->nsplices && l->splices[l->next_splice] <= (size_t)(q - l->base)) {
    l->line++;
    l->next_splice++;
  }
  return l->line;
}

static bool is_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}

static bool is_char(unsigned char c) {
  return is_start(c) || is_digit(c);
}

/* Past the literal whose quote is at p; an unterminated one is the rest of
   the line as one K_OTHER (gcc's reading, where it is only a warning:
   coroc reports it, reading the output; a string being typed is one). */
static const char *quoted(PPLexer *l, const char *p, PPTok *t) {
  char q = *p++;
  while (p < l->end && *p != q && *p != '\n')
    p += *p == '\\' && p + 1 < l->end && p[1] != '\n' ? 2 : 1;
  if (p < l->end && *p == q) {
    t->kind = q == '"' ? K_STRING : K_CHAR;
    return p + 1;
  }
  t->kind = K_OTHER;
  return p;
}

/* An identifier, or the prefix of a literal (L"", u8"", U''). */
static const char *word(PPLexer *l, const char *p, PPTok *t) {
  const char *s = p;
  while (p < l->end && is_char(*p))
    p++;
  if (p < l->end && ((unsigned char)*p >= 0x80 || *p == '\\') && !l->skipping)
    cannot(l); /* a UCN or UTF-8 in a name */
  size_t n = p - s;
  t->kind = K_IDENT;
  if (p < l->end && (*p == '"' || *p == '\'')) {
    bool prefix = (n == 1 && strchr("LuU", *s)) || (n == 2 && memcmp(s, "u8", 2) == 0);
    bool raw = s[n - 1] == 'R' &&
               (n == 1 || (n == 2 && strchr("LuU", *s)) || (n == 3 && memcmp(s, "u8", 2) == 0));
    if ((raw && *p == '"') || (n == 2 && memcmp(s, "u8", 2) == 0 && *p == '\''))
      cannot(l); /* a raw string (gnu11 has them), u8'' (C2X's) */
    if (prefix)
      return quoted(l, p, t);
  }
  return p;
}

static const char *number(PPLexer *l, const char *p, PPTok *t) {
  t->kind = K_NUMBER;
  for (p++; p < l->end; p++) {
    if (is_char(*p) || *p == '.')
      continue;
    if ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]))
      continue;
    break;
  }
  if (p < l->end && ((unsigned char)*p >= 0x80 || *p == '\\') && !l->skipping)
    cannot(l);
  return p;
}

static const char *punctuator(PPLexer *l, const char *p, PPTok *t) {
  static const char *const multi[] = {"...", "<<=", ">>=", "->", "++", "--", "<<", ">>",
                                      "<=",  ">=",  "==",  "!=", "&&", "||", "*=", "/=",
                                      "%=",  "+=",  "-=",  "&=", "^=", "|=", "##"};
  static const char *const digraphs[] = {"<:", ":>", "<%", "%>", "%:"};
  size_t left = l->end - p;
  for (size_t i = 0; i < sizeof digraphs / sizeof *digraphs; i++)
    if (left >= 2 && memcmp(p, digraphs[i], 2) == 0) {
      if (!l->skipping)
        cannot(l);
      t->kind = K_OTHER;
      return p + 2;
    }
  t->kind = K_PUNCT;
  for (size_t i = 0; i < sizeof multi / sizeof *multi; i++) {
    size_t n = strlen(multi[i]);
    if (left >= n && memcmp(p, multi[i], n) == 0)
      return p + n;
  }
  if (strchr("[](){}.&*+-~!/%<>^|?:;=,#", *p))
    return p + 1;
  t->kind = K_OTHER;
  if (*p == '\\' || *p == '@' || *p == '`' || l->skipping)
    return p + 1;
  cannot(l); /* a control character, a byte past ASCII */
}

/* Past blanks and comments; whether there were any. */
static bool blanks(PPLexer *l, bool in_directive, bool *at_newline) {
  bool white = false;
  *at_newline = false;
  while (l->p < l->end) {
    char c = *l->p;
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
      l->p++;
    } else if (c == '/' && l->p + 1 < l->end && l->p[1] == '*') {
      const char *close = memmem(l->p + 2, l->end - l->p - 2, "*/", 2);
      if (!close)
        cannot(l); /* (gcc: an error) */
      l->p = close + 2;
    } else if (c == '/' && l->p + 1 < l->end && l->p[1] == '/') {
      const char *nl = memchr(l->p, '\n', l->end - l->p);
      l->p = nl ? nl : l->end;
    } else if (c == '\n' && !in_directive) {
      l->p++;
      l->bol = true;
      white = false; /* (a new line's flags start afresh) */
      continue;
    } else {
      *at_newline = c == '\n';
      break;
    }
    white = true;
  }
  return white;
}

PPTok pplex(PPLexer *l, bool in_directive) {
  PPTok t = {0};
  bool at_newline;
  bool white = blanks(l, in_directive, &at_newline);
  t.line = line_at(l, l->p);
  if (l->p >= l->end || at_newline) {
    t.kind = in_directive ? K_EOD : K_EOF;
    return t;
  }
  t.flags = (white || (l->bol && l->args_white) ? F_WHITE : 0) | (l->bol ? F_BOL : 0);
  l->bol = false;
  const char *s = l->p, *p;
  unsigned char c = *s;
  if (is_start(c))
    p = word(l, s, &t);
  else if (is_digit(c) || (c == '.' && s + 1 < l->end && is_digit(s[1])))
    p = number(l, s, &t);
  else if (c == '"' || c == '\'')
    p = quoted(l, s, &t);
  else
    p = punctuator(l, s, &t);
  t.s = s;
  t.len = (int)(p - s);
  l->p = p;
  return t;
}

void pplex_line_end(PPLexer *l) {
  if (l->p < l->end && *l->p == '\n') {
    l->p++;
    l->bol = true;
  }
}

bool pp_is(const PPTok *t, const char *s) {
  return (t->kind == K_PUNCT || t->kind == K_IDENT) && (size_t)t->len == strlen(s) &&
         memcmp(t->s, s, t->len) == 0;
}

/* What gcc's cpp_avoid_paste says after an operator a, by the first
   character c of the operator that follows (0: not an operator). */
static bool operator_pastes(const PPTok *a, const PPTok *b, char c) {
  static const char *const with_eq[] = {"=", "!", ">", "<", "+", "-",  "*",
                                        "/", "%", "&", "|", "^", ">>", "<<"};
  for (size_t i = 0; c == '=' && i < sizeof with_eq / sizeof *with_eq; i++)
    if (pp_is(a, with_eq[i]))
      return true;
  static const struct {
    const char *op, *next;
  } pairs[] = {{">", ">"}, {"<", "<%:"}, {"+", "+"},  {"-", "->"}, {"/", "/*"}, {"%", ":%"},
               {"&", "&"}, {"|", "|"},   {":", ":>"}, {"->", "*"}, {".", ".%"}, {"#", "#%"}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
    if (pp_is(a, pairs[i].op))
      return (c && strchr(pairs[i].next, c)) ||
             (pairs[i].op[0] == '.' && !pairs[i].op[1] && b->kind == K_NUMBER);
  return false;
}

bool pp_avoid_paste(const PPTok *a, const PPTok *b) {
  char c = b->kind == K_PUNCT ? b->s[0] : 0;
  bool plain_literal =
      (b->kind == K_CHAR || b->kind == K_STRING) && (b->s[0] == '\'' || b->s[0] == '"');
  switch (a->kind) {
  case K_PUNCT:
    return operator_pastes(a, b, c);
  case K_IDENT:
    return b->kind == K_IDENT || plain_literal;
  case K_NUMBER:
    return b->kind == K_NUMBER || b->kind == K_IDENT || (b->kind == K_CHAR && b->s[0] == '\'') ||
           c == '.' || c == '+' || c == '-';
  case K_OTHER:
    return a->s[0] == '\\' && b->kind == K_IDENT;
  default:
    return false;
  }
}
