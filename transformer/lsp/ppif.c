/* ppif.c: the value of an #if expression, for coroc-lsp's own macro
 * expander (expand.c), as gcc gives it.
 *
 * C11 6.10.1: integer constants and character constants, the identifiers
 * left after expansion as 0, `defined`, and C's operators but assignment,
 * ++, --, casts and sizeof, computed in intmax_t or uintmax_t (a u suffix,
 * or a constant too large for intmax_t, makes a value unsigned, and an
 * unsigned operand makes the usual conversions unsigned). Signed overflow
 * wraps, as gcc's does (it only warns). An operand that is not evaluated
 * (after a false &&, beside a ?: not taken) may divide by zero. A
 * separate file: an expression is its own small language.
 *
 * What gcc reads otherwise than this file does, or reports as an error, is
 * refused: floating constants, multi-character and prefixed character
 * constants, escapes out of range, a division by zero or INTMAX_MIN / -1
 * that is evaluated, any malformed expression.
 */
#define _GNU_SOURCE
#include "pp.h"

#include <stdint.h>
#include <string.h>

typedef struct {
  uintmax_t v;
  bool uns;
} Val;

typedef struct {
  PPExpr *x;
  PPTok cur;
  int skip;  /* inside operands that are not evaluated */
  int depth; /* of the C stack this parse takes: bounded, it is the server's */
} Parser;

enum { MAX_DEPTH = 1000 };

static _Noreturn void cannot(Parser *p) {
  longjmp(*p->x->fail, 1);
}

static void advance(Parser *p) {
  do
    p->cur = p->x->next(p->x->ctx);
  while (p->cur.kind == K_PAD);
}

static bool at(Parser *p, const char *op) {
  return p->cur.kind == K_PUNCT && pp_is(&p->cur, op);
}

static void expect(Parser *p, const char *op) {
  if (!at(p, op))
    cannot(p);
  advance(p);
}

/* {==================================================================
 * Constants
 * =================================================================== */

static int digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return 99;
}

/* An integer suffix: u, l, ll in either case and order; whether it has u. */
static bool suffix(const char *s, int n, bool *uns) {
  static const char *const ok[] = {"",   "u",  "l",  "ll",  "ul",  "lu",  "ull", "llu",
                                   "U",  "L",  "LL", "UL",  "LU",  "ULL", "LLU", "uL",
                                   "Ul", "Lu", "lU", "uLL", "Ull", "LLu", "llU"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (strlen(ok[i]) == (size_t)n && memcmp(ok[i], s, n) == 0) {
      *uns = memchr(s, 'u', n) || memchr(s, 'U', n);
      return true;
    }
  return false;
}

static Val integer(Parser *p, const PPTok *t) {
  const char *s = t->s;
  int n = t->len, i = 0, base = 10;
  if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    base = 16, i = 2;
  else if (n > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
    base = 2, i = 2;
  else if (s[0] == '0')
    base = 8;
  int first = i;
  uintmax_t v = 0;
  for (; i < n && digit_value(s[i]) < base; i++) {
    unsigned d = digit_value(s[i]);
    if (v > (UINTMAX_MAX - d) / base)
      cannot(p); /* too large for any type */
    v = v * base + d;
  }
  bool uns;
  if ((base == 16 || base == 2) && i == first)
    cannot(p);
  if (!suffix(s + i, n - i, &uns))
    cannot(p); /* a floating constant, a digit out of its base, another suffix */
  return (Val){v, uns || v > INTMAX_MAX};
}

/* The value of the escape at s (after its backslash); *n: its length. */
static int escape(Parser *p, const char *s, int left, int *n) {
  static const char simple[] = "n\nt\tv\vb\br\rf\fa\a\\\\''\"\"??e\033E\033";
  for (const char *e = simple; *e; e += 2)
    if (*s == e[0]) {
      *n = 1;
      return (unsigned char)e[1];
    }
  int v = 0, i = 0;
  if (*s >= '0' && *s <= '7') {
    for (; i < 3 && i < left && s[i] >= '0' && s[i] <= '7'; i++)
      v = v * 8 + (s[i] - '0');
  } else if (*s == 'x') {
    for (i = 1; i < left && digit_value(s[i]) < 16; i++)
      if ((v = v * 16 + digit_value(s[i])) > 0xff)
        cannot(p);
    if (i == 1)
      cannot(p);
  } else {
    cannot(p); /* \u, \U, or one gcc only warns of */
  }
  if (v > 0xff)
    cannot(p);
  *n = i;
  return v;
}

/* 'c', one character: an int, of the value a char has. */
static Val character(Parser *p, const PPTok *t) {
  const char *s = t->s + 1;
  int left = t->len - 2, n = 1, c;
  if (t->s[0] != '\'' || left < 1)
    cannot(p); /* L'c', u'c', U'c'; '' */
  if (*s == '\\' && left > 1)
    c = escape(p, s + 1, left - 1, &n), n++;
  else if ((unsigned char)*s >= 0x80)
    cannot(p);
  else
    c = (unsigned char)*s;
  if (n != left)
    cannot(p); /* several characters */
  intmax_t v = p->x->unsigned_char ? c : (signed char)c;
  return (Val){(uintmax_t)v, false};
}

/* }================================================================== */

/* {==================================================================
 * Operators
 * =================================================================== */

static Val comma(Parser *p);

static Val shift(Val l, Val r, bool left) {
  uintmax_t n = r.v;
  if (!r.uns && (intmax_t)r.v < 0) { /* a negative count shifts the other way */
    left = !left;
    n = -r.v;
  }
  bool negative = !l.uns && (intmax_t)l.v < 0;
  if (left)
    return (Val){n >= 64 ? 0 : l.v << n, l.uns};
  if (n >= 64)
    return (Val){negative ? UINTMAX_MAX : 0, l.uns};
  return (Val){negative ? (uintmax_t)((intmax_t)l.v >> n) : l.v >> n, l.uns};
}

static Val divide(Parser *p, Val l, Val r, bool rem) {
  bool uns = l.uns || r.uns;
  if (r.v == 0 || (!uns && (intmax_t)l.v == INTMAX_MIN && (intmax_t)r.v == -1)) {
    if (!p->skip)
      cannot(p);
    return (Val){0, uns};
  }
  if (uns)
    return (Val){rem ? l.v % r.v : l.v / r.v, true};
  intmax_t a = (intmax_t)l.v, b = (intmax_t)r.v;
  return (Val){(uintmax_t)(rem ? a % b : a / b), false};
}

static bool less(Val l, Val r) {
  return l.uns || r.uns ? l.v < r.v : (intmax_t)l.v < (intmax_t)r.v;
}

static Val apply(Parser *p, const PPTok *op, Val l, Val r) {
  bool uns = l.uns || r.uns;
  const char *s = op->s;
  if (pp_is(op, "*"))
    return (Val){l.v * r.v, uns};
  if (pp_is(op, "/") || pp_is(op, "%"))
    return divide(p, l, r, *s == '%');
  if (pp_is(op, "+"))
    return (Val){l.v + r.v, uns};
  if (pp_is(op, "-"))
    return (Val){l.v - r.v, uns};
  if (pp_is(op, "<<") || pp_is(op, ">>"))
    return shift(l, r, *s == '<');
  if (pp_is(op, "<"))
    return (Val){less(l, r), false};
  if (pp_is(op, ">"))
    return (Val){less(r, l), false};
  if (pp_is(op, "<="))
    return (Val){!less(r, l), false};
  if (pp_is(op, ">="))
    return (Val){!less(l, r), false};
  if (pp_is(op, "=="))
    return (Val){l.v == r.v, false};
  if (pp_is(op, "!="))
    return (Val){l.v != r.v, false};
  if (pp_is(op, "&"))
    return (Val){l.v & r.v, uns};
  if (pp_is(op, "^"))
    return (Val){l.v ^ r.v, uns};
  return (Val){l.v | r.v, uns};
}

/* A binary operator's precedence (0: not one). */
static int precedence(const Parser *p) {
  static const struct {
    const char *op;
    int prec;
  } ops[] = {{"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4},  {"&", 5},  {"==", 6},
             {"!=", 6}, {"<", 7},  {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8},
             {">>", 8}, {"+", 9},  {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}};
  if (p->cur.kind != K_PUNCT)
    return 0;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (pp_is(&p->cur, ops[i].op))
      return ops[i].prec;
  return 0;
}

static Val unary_at(Parser *p);
static Val conditional_at(Parser *p);

/* The two ways the parse nests (-x, (x), x ? y : z), counted. */
static Val nested(Parser *p, Val (*f)(Parser *)) {
  if (++p->depth > MAX_DEPTH)
    cannot(p);
  Val v = f(p);
  p->depth--;
  return v;
}

static Val unary(Parser *p) {
  return nested(p, unary_at);
}

static Val conditional(Parser *p) {
  return nested(p, conditional_at);
}

static Val unary_at(Parser *p) {
  PPTok t = p->cur;
  if (at(p, "+") || at(p, "-") || at(p, "~") || at(p, "!")) {
    advance(p);
    Val v = unary(p);
    switch (*t.s) {
    case '-':
      return (Val){-v.v, v.uns};
    case '~':
      return (Val){~v.v, v.uns};
    case '!':
      return (Val){v.v == 0, false};
    default:
      return v;
    }
  }
  if (at(p, "(")) {
    advance(p);
    Val v = comma(p);
    expect(p, ")");
    return v;
  }
  Val v = {0, false};
  if (t.kind == K_NUMBER)
    v = integer(p, &t);
  else if (t.kind == K_CHAR)
    v = character(p, &t);
  else if (t.kind == K_IDENT && pp_is(&t, "defined"))
    v.v = p->x->defined(p->x->ctx);
  else if (t.kind != K_IDENT)
    cannot(p); /* (an identifier left by the expansion is 0) */
  advance(p);
  return v;
}

static Val binary(Parser *p, int min) {
  Val l = unary(p);
  for (int prec; (prec = precedence(p)) >= min;) {
    PPTok op = p->cur;
    advance(p);
    if (prec <= 2) { /* || and &&: the right operand is evaluated only if it decides */
      bool decided = prec == 1 ? l.v != 0 : l.v == 0;
      p->skip += decided;
      Val r = binary(p, prec + 1);
      p->skip -= decided;
      l = (Val){prec == 1 ? (l.v || r.v) : (l.v && r.v), false};
    } else {
      l = apply(p, &op, l, binary(p, prec + 1));
    }
  }
  return l;
}

static Val conditional_at(Parser *p) {
  Val c = binary(p, 1);
  if (!at(p, "?"))
    return c;
  advance(p);
  bool taken = c.v != 0;
  p->skip += !taken;
  Val a = comma(p);
  p->skip -= !taken;
  expect(p, ":");
  p->skip += taken;
  Val b = conditional(p);
  p->skip -= taken;
  Val r = taken ? a : b;
  r.uns = a.uns || b.uns;
  return r;
}

static Val comma(Parser *p) {
  Val v = conditional(p);
  while (at(p, ",")) {
    advance(p);
    v = conditional(p);
  }
  return v;
}

/* }================================================================== */

bool ppif_eval(PPExpr *x) {
  Parser p = {.x = x};
  advance(&p);
  Val v = comma(&p);
  if (p.cur.kind != K_EOD)
    cannot(&p);
  return v.v != 0;
}
