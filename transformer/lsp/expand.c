/* expand.c: a document's body, macro-expanded in the server's own process.
 *
 * At each change the server needs what `cc -E -dD` prints for the body (the
 * text after the last #include: preamble.c). Running cc for it cost half of
 * a change's time, nearly all of it cc starting and reading the headers'
 * 2,000 macros again. So the macros are read once, when the preamble is
 * made (expand_table, ppmacros.c), and the body is expanded here: the same
 * tokens on the same lines, linemarkers where gcc puts them, the body's own
 * #define and #undef lines printed as -dD prints them.
 *
 * The model is gcc's (libcpp's macro.c and c-ppoutput.c), not only the
 * standard's (C11 6.10.3), because coroc reads the output line by line: a
 * macro's expansion stands on the line of its name; a token after padding
 * or whitespace whose line differs from the one being printed starts its
 * own line; a token spelled in a system header's macro is set off by
 * linemarkers; GNU's `, ## __VA_ARGS__` drops its comma when the arguments
 * are left out. What this file does not do as gcc does, it refuses
 * (expand_text answers NULL) and the preprocessor runs as before:
 * __VA_OPT__, __COUNTER__, __DATE__, __TIME__, __TIMESTAMP__, _Pragma, the
 * __has_ operators, #include, #line, #ident, #assert, #error, #elifdef,
 * the pragmas the preprocessor acts on, a directive among a macro's
 * arguments, __LINE__ where gcc's answer depends on more than its line,
 * and every error gcc reports (a bad directive or #if, an unterminated
 * call or group, a paste that makes no token): coroc's own run says those.
 */
#define _GNU_SOURCE
#include "lsp.h"
#include "pp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body's own definitions, under the table's; and how deep calls may
   nest in each other's arguments before the expander leaves the body to
   the preprocessor. */
enum { OVERLAY_SIZE = 64, MAX_CONTEXTS = 2048 };

/* A list of tokens being read: a macro's expansion (m), an argument being
   expanded, a pasted token, padding. */
typedef struct {
  PPTok *v;
  int n, at;
  Macro *m;
} Ctx;

typedef struct {
  bool outer_skip; /* the group around it is skipped */
  bool taken;      /* one of its groups was taken */
  bool seen_else;
} Cond;

/* One expansion of a body. */
typedef struct {
  MacroTable *table;
  Macro *overlay[OVERLAY_SIZE]; /* the body's own #define and #undef */
  PPArena arena;
  jmp_buf fail;
  PPLexer lex;
  Ctx *ctx;
  int nctx, ctx_cap;
  PPTok backup; /* a token of the text read ahead and given back */
  bool backed;
  int prevent;      /* macros are not expanded (their arguments being collected, defined X) */
  int parsing_args; /* 1: looking for a call's (, 2: reading its arguments */
  bool in_directive;
  int invocation_line; /* the line of the macro call being expanded from the text */
  Cond *conds;
  int nconds, conds_cap;
  bool skipping;
  /* the output, as c-ppoutput.c's `print` */
  FILE *out;
  int src_line;
  bool printed, prev_sys, avoid_paste, has_prev;
  int source; /* the whiteness of what gcc calls print.source: -2 none, 0, 1 */
  PPTok prev;
} Expander;

static _Noreturn void cannot(Expander *e) {
  longjmp(e->fail, 1);
}

static PPTok next(Expander *e);
static void directive(Expander *e, const PPTok *hash);
static void line_change(Expander *e, const PPTok *t);

/* {==================================================================
 * Macros: the table's, under the body's own
 * =================================================================== */

static Macro *lookup(Expander *e, const PPTok *t) {
  unsigned h = hash_of(t->s, t->len);
  for (Macro *m = e->overlay[h % OVERLAY_SIZE]; m; m = m->next)
    if (named(m, t, h))
      return m->gone ? NULL : m;
  return table_find(e->table, t, h);
}

typedef enum { SP_NONE, SP_LINE, SP_FILE, SP_BASE_FILE, SP_LEVEL, SP_DEFINED, SP_UNKNOWN } Special;

/* gcc's built-in macros that are no #define: what each is here. */
static Special special(const PPTok *t) {
  static const struct {
    const char *name;
    Special sp;
  } names[] = {{"__LINE__", SP_LINE},
               {"__FILE__", SP_FILE},
               {"__FILE_NAME__", SP_FILE},
               {"__BASE_FILE__", SP_BASE_FILE},
               {"__INCLUDE_LEVEL__", SP_LEVEL},
               {"__COUNTER__", SP_DEFINED},
               {"__DATE__", SP_DEFINED},
               {"__TIME__", SP_DEFINED},
               {"__TIMESTAMP__", SP_DEFINED},
               {"_Pragma", SP_UNKNOWN},
               {"__has_include", SP_UNKNOWN},
               {"__has_include_next", SP_UNKNOWN},
               {"__has_attribute", SP_UNKNOWN},
               {"__has_cpp_attribute", SP_UNKNOWN},
               {"__has_c_attribute", SP_UNKNOWN},
               {"__has_builtin", SP_UNKNOWN},
               {"__VA_OPT__", SP_UNKNOWN},
               {"defined", SP_UNKNOWN}};
  if (t->kind != K_IDENT || (t->s[0] != '_' && t->s[0] != 'd'))
    return SP_NONE;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (pp_is(t, names[i].name))
      return names[i].sp;
  return SP_NONE;
}

static bool is_defined(Expander *e, const PPTok *t) {
  Special sp = special(t);
  if (sp == SP_UNKNOWN)
    cannot(e);
  return sp != SP_NONE || lookup(e, t);
}

static void overlay_add(Expander *e, Macro *m) {
  unsigned h = m->hash % OVERLAY_SIZE;
  m->next = e->overlay[h];
  e->overlay[h] = m;
}

/* }================================================================== */

/* {==================================================================
 * The token lists being read
 * =================================================================== */

static void push_ctx(Expander *e, PPTok *v, int n, Macro *m) {
  if (e->nctx >= MAX_CONTEXTS)
    cannot(e); /* (each level is a few frames of C stack: the server's own) */
  if (e->nctx == e->ctx_cap) {
    e->ctx_cap = e->ctx_cap ? 2 * e->ctx_cap : 32;
    e->ctx = realloc(e->ctx, e->ctx_cap * sizeof *e->ctx);
    if (!e->ctx)
      abort();
  }
  e->ctx[e->nctx++] = (Ctx){v, n, 0, m};
  if (m)
    m->active++;
}

static void pop_ctx(Expander *e) {
  Ctx *c = &e->ctx[--e->nctx];
  if (c->m)
    c->m->active--;
}

static PPTok *one(Expander *e, PPTok t) {
  PPTok *v = pp_alloc(&e->arena, sizeof *v);
  *v = t;
  return v;
}

static PPTok padding(int source) {
  return (PPTok){.kind = K_PAD, .arg = (short)source};
}

/* Give the token just read back. */
static void backup(Expander *e, PPTok t) {
  if (e->nctx == 0) {
    e->backup = t;
    e->backed = true;
  } else {
    e->ctx[e->nctx - 1].at--;
  }
}

/* }================================================================== */

/* {==================================================================
 * Expanding a macro
 * =================================================================== */

typedef struct {
  PPTok *raw; /* as written (padding inside kept) */
  int nraw;
  bool omitted; /* a variadic argument left out: `, ## __VA_ARGS__` drops the comma */
  bool expanded, stringified;
  PPTok *exp;
  int nexp;
  PPTok str;
} Arg;

/* The arguments of a call of m, its `(` read; NULL is never returned. */
static Arg *collect_args(Expander *e, const Macro *m) {
  int max = m->nparams > 0 ? m->nparams : 1, argc = 0, depth = 0;
  Arg *args = pp_alloc(&e->arena, (max + 1) * sizeof *args);
  memset(args, 0, (max + 1) * sizeof *args);
  for (bool more = true; more;) {
    if (++argc > max)
      cannot(e); /* too many arguments */
    Toks ts = {0};
    for (;;) {
      PPTok t = next(e);
      if (t.kind == K_PAD && ts.n == 0)
        continue; /* (leading padding dropped) */
      if (pp_is(&t, "(") && t.kind == K_PUNCT) {
        /* Each call nested in an argument copies and expands the argument
           around it again: 5,000 of them took seconds of copying before the
           contexts ran out. Parentheses nested deeper than the contexts may
           go leave the body to the preprocessor as soon as they are read. */
        if (++depth > MAX_CONTEXTS)
          cannot(e);
      } else if (pp_is(&t, ")") && t.kind == K_PUNCT && depth-- == 0) {
        more = false;
        break;
      } else if (pp_is(&t, ",") && t.kind == K_PUNCT && depth == 0 &&
                 !(m->variadic && argc == m->nparams))
        break;
      else if (t.kind == K_EOF || t.kind == K_EOD)
        cannot(e); /* an unterminated call */
      push_tok(&ts, &e->arena, t);
    }
    while (ts.n > 0 && ts.v[ts.n - 1].kind == K_PAD)
      ts.n--;
    args[argc - 1].raw = ts.v;
    args[argc - 1].nraw = ts.n;
  }
  if (argc == 1 && m->nparams == 0 && args[0].nraw == 0)
    argc = 0;
  if (argc < m->nparams && !(argc + 1 == m->nparams && m->variadic))
    cannot(e); /* too few */
  if (m->variadic &&
      (argc < m->nparams || (argc == 1 && args[0].nraw == 0 && !table_strict(e->table))))
    args[m->nparams - 1].omitted = true;
  return args;
}

/* An argument with its macros expanded, as C says before it replaces its
   parameter. */
static void expand_arg(Expander *e, Arg *a) {
  PPTok *v = pp_alloc(&e->arena, (a->nraw + 1) * sizeof *v);
  if (a->nraw)
    memcpy(v, a->raw, a->nraw * sizeof *v);
  v[a->nraw] = (PPTok){.kind = K_EOF};
  push_ctx(e, v, a->nraw + 1, NULL);
  Toks ts = {0};
  for (PPTok t; (t = next(e)).kind != K_EOF;)
    push_tok(&ts, &e->arena, t);
  pop_ctx(e);
  a->exp = ts.v;
  a->nexp = ts.n;
  a->expanded = true;
}

/* #x: the argument as a string literal (gcc's stringify_arg, its spaces). */
static PPTok stringify(Expander *e, const Arg *a) {
  size_t cap = 3;
  for (int i = 0; i < a->nraw; i++)
    cap += 2 * (size_t)a->raw[i].len + 1;
  char *s = pp_alloc(&e->arena, cap), *d = s;
  *d++ = '"';
  int source = -2, backslashes = 0;
  for (int i = 0; i < a->nraw; i++) {
    const PPTok *t = &a->raw[i];
    if (t->kind == K_PAD) {
      if (source == -2 || (source == 0 && t->arg == -1))
        source = t->arg == -1 ? -2 : t->arg;
      continue;
    }
    if (d - 1 != s) {
      if (source == -2)
        source = t->flags & F_WHITE ? 1 : 0;
      if (source == 1)
        *d++ = ' ';
    }
    source = -2;
    bool escape = t->kind == K_STRING || t->kind == K_CHAR;
    for (int j = 0; j < t->len; j++) {
      if (escape && (t->s[j] == '"' || t->s[j] == '\\'))
        *d++ = '\\';
      *d++ = t->s[j];
    }
    backslashes = t->kind == K_OTHER && t->s[0] == '\\' ? backslashes + 1 : 0;
  }
  if (backslashes & 1)
    d--; /* (gcc drops a final lone backslash) */
  *d++ = '"';
  return (PPTok){.s = s, .len = (int)(d - s), .kind = K_STRING};
}

/* The expansion of a function-like macro: its body, its parameters
   replaced (gcc's replace_args: the padding, the ## flags, GNU's comma). */
static void replace_args(Expander *e, const Macro *m, Arg *args, Toks *out) {
  for (int i = 0; i < m->nbody; i++) {
    const PPTok *src = &m->body[i];
    if (!(src->flags & F_PARAM)) {
      push_tok(out, &e->arena, *src);
      continue;
    }
    Arg *a = &args[src->arg];
    bool after_paste = i > 0 && (m->body[i - 1].flags & F_PASTE);
    const PPTok *from;
    int count;
    int paste_flag = -1; /* (an index: pushing may move the tokens) */
    if (src->flags & F_STR) {
      if (!a->stringified) {
        a->str = stringify(e, a);
        a->stringified = true;
      }
      from = &a->str;
      count = 1;
    } else if ((src->flags & F_PASTE) || after_paste) {
      from = a->raw;
      count = a->nraw;
      if (after_paste && out->n > 0) {
        PPTok *last = &out->v[out->n - 1];
        if (last->kind == K_PUNCT && pp_is(last, ",") && m->variadic &&
            src->arg == m->nparams - 1) {
          if (a->omitted)
            out->n--; /* GNU: `, ## __VA_ARGS__` with no arguments loses its comma */
          else
            paste_flag = out->n - 1;
        } else if (count == 0) {
          paste_flag = out->n - 1; /* an empty right operand: the left one's ## goes */
        }
      }
    } else {
      if (!a->expanded)
        expand_arg(e, a);
      from = a->exp;
      count = a->nexp;
    }
    if (!e->in_directive && i > 0 && !after_paste)
      push_tok(out, &e->arena, padding(src->flags & F_WHITE ? 1 : 0));
    if (count) {
      for (int j = 0; j < count; j++)
        push_tok(out, &e->arena, from[j]);
      if (src->flags & F_PASTE)
        paste_flag = out->n - 1;
    }
    if (!e->in_directive && !(src->flags & F_PASTE))
      push_tok(out, &e->arena, padding(-1));
    if (paste_flag >= 0)
      out->v[paste_flag].flags = (out->v[paste_flag].flags & ~F_PASTE) | (src->flags & F_PASTE);
  }
}

/* A call of m at `name`: its expansion pushed (1), or not a call (0: a
   function-like macro's name without `(`). */
static int enter_macro(Expander *e, Macro *m, const PPTok *name) {
  if (m->bad)
    cannot(e);
  if (e->nctx == 0 && !e->parsing_args)
    e->invocation_line = name->line;
  Arg *args = NULL;
  if (m->func) {
    e->prevent++;
    e->parsing_args = 1;
    PPTok pad = {0}, t;
    bool padded = false;
    while ((t = next(e)).kind == K_PAD) /* (the one kept: gcc's funlike_invocation_p's) */
      if (!padded || pad.arg == -1 || (pad.arg == 0 && t.arg == -1)) {
        pad = t;
        padded = true;
      }
    if (t.kind == K_PUNCT && pp_is(&t, "(")) {
      e->parsing_args = 2;
      args = collect_args(e, m);
    } else {
      backup(e, t);
      if (padded)
        push_ctx(e, one(e, pad), 1, NULL);
    }
    e->parsing_args = 0;
    e->prevent--;
    if (!args)
      return 0;
  }
  Toks out = {0};
  if (m->func && m->nparams > 0) {
    replace_args(e, m, args, &out);
  } else {
    out.v = pp_alloc(&e->arena, (m->nbody + 1) * sizeof *out.v);
    memcpy(out.v, m->body, m->nbody * sizeof *out.v);
    out.n = m->nbody;
  }
  for (int i = 0; i < out.n; i++)
    out.v[i].line = name->line; /* (gcc: the expansion point's line) */
  push_ctx(e, out.v, out.n, m);
  return 1;
}

/* a ## b: the token their spellings make, or an error. */
static PPTok paste(Expander *e, const PPTok *a, const PPTok *b) {
  char *s = pp_alloc(&e->arena, a->len + b->len + 2);
  memcpy(s, a->s, a->len);
  int n = a->len;
  if (pp_is(a, "/") && a->kind == K_PUNCT && !pp_is(b, "="))
    s[n++] = ' '; /* (gcc: no comment made by ##) */
  memcpy(s + n, b->s, b->len);
  n += b->len;
  PPLexer l;
  pplex_init(&l, s, n, a->line, &e->fail);
  PPTok t = pplex(&l, true);
  if (l.p != l.end || t.flags & F_WHITE)
    cannot(e); /* not one token */
  t.line = a->line;
  t.flags = a->flags & (F_WHITE | F_SYS | F_BUILTIN);
  return t;
}

/* The token at the top context's `at - 1` has F_PASTE: the token of all
   the operands, in a context of its own. */
static void paste_all(Expander *e, PPTok lhs) {
  Ctx *c = &e->ctx[e->nctx - 1];
  PPTok acc = lhs;
  for (;;) {
    if (c->at == c->n)
      cannot(e);
    PPTok rhs = c->v[c->at++];
    if (rhs.kind == K_PAD) {
      if (rhs.arg != -1)
        cannot(e);
      break;
    }
    acc = paste(e, &acc, &rhs);
    if (!(rhs.flags & F_PASTE))
      break;
  }
  push_ctx(e, one(e, acc), 1, NULL);
}

/* __LINE__ and its kind: the token, in a context of its own. */
static void builtin(Expander *e, Special sp, const PPTok *t) {
  char buf[32];
  const char *text = buf;
  PPTok r = {.line = t->line, .kind = K_STRING, .flags = F_BUILTIN};
  switch (sp) {
  case SP_LINE:
    if (e->nctx > 0 && t->line != e->invocation_line)
      cannot(e); /* gcc's answer then depends on which macro began the expansion */
    snprintf(buf, sizeof buf, "%d", t->line);
    r.kind = K_NUMBER;
    break;
  case SP_FILE:
    text = "\"<stdin>\"";
    break;
  case SP_BASE_FILE:
    text = "\"\"";
    break;
  case SP_LEVEL:
    text = "0";
    r.kind = K_NUMBER;
    break;
  default:
    cannot(e);
  }
  r.len = (int)strlen(text);
  r.s = memcpy(pp_alloc(&e->arena, r.len), text, r.len);
  push_ctx(e, one(e, r), 1, NULL);
}

/* The next token, macros expanded (gcc's cpp_get_token): padding says
   where an expansion began or ended. */
static PPTok next(Expander *e) {
  for (;;) {
    PPTok t, *slot = NULL;
    if (e->nctx == 0) {
      if (e->backed) {
        t = e->backup;
        e->backed = false;
      } else {
        e->lex.args_white = e->parsing_args == 2;
        t = pplex(&e->lex, e->in_directive);
      }
      if (t.kind == K_PUNCT && (t.flags & F_BOL) && pp_is(&t, "#") && !e->in_directive) {
        if (e->parsing_args == 1)
          return t; /* (not the call's `(`: given back, then read as a directive) */
        if (e->parsing_args == 2)
          cannot(e); /* a directive among a macro's arguments */
        directive(e, &t);
        continue;
      }
      if ((t.flags & F_BOL) && !e->parsing_args && !e->in_directive && t.kind != K_EOF)
        line_change(e, &t);
    } else {
      Ctx *c = &e->ctx[e->nctx - 1];
      if (c->at == c->n) {
        pop_ctx(e);
        if (e->in_directive)
          continue;
        return padding(-1);
      }
      slot = &c->v[c->at++];
      t = *slot;
      if (t.flags & F_PASTE) {
        paste_all(e, t);
        if (e->in_directive)
          continue;
        return padding(t.flags & F_WHITE ? 1 : 0);
      }
    }
    if (t.kind != K_IDENT || (t.flags & F_NOEXP))
      return t;
    Macro *m = lookup(e, &t);
    if (m && m->active) {
      t.flags |= F_NOEXP; /* (painted blue: never expanded, wherever it goes) */
      if (slot)
        slot->flags |= F_NOEXP;
      return t;
    }
    if (e->prevent)
      return t;
    if (m) {
      if (!enter_macro(e, m, &t))
        return t;
    } else {
      Special sp = special(&t);
      if (sp == SP_NONE || sp == SP_UNKNOWN) {
        if (sp == SP_UNKNOWN && !pp_is(&t, "defined"))
          cannot(e);
        return t;
      }
      builtin(e, sp, &t);
    }
    if (!e->in_directive)
      return padding(t.flags & F_WHITE ? 1 : 0);
  }
}

/* }================================================================== */

/* {==================================================================
 * The output, as c-ppoutput.c prints it
 * =================================================================== */

/* A linemarker for `line` (gcc's print_line_1). */
static bool print_line(Expander *e, int line, bool sys) {
  if (e->printed)
    fputc('\n', e->out);
  e->printed = false;
  e->src_line = line;
  fprintf(e->out, "# %d \"<stdin>\"%s\n", line, sys ? " 3 4" : "");
  return true;
}

/* To `line`: newlines, or a linemarker when it is behind or 8 lines on
   (gcc's maybe_print_line); whether a linemarker was printed. */
static bool maybe_print_line(Expander *e, int line, bool sys) {
  if (e->printed) {
    fputc('\n', e->out);
    e->src_line++;
    e->printed = false;
  }
  if (line >= e->src_line && line < e->src_line + 8) {
    for (; e->src_line < line; e->src_line++)
      fputc('\n', e->out);
    return false;
  }
  return print_line(e, line, sys);
}

static bool do_line_change(Expander *e, int line, bool sys) {
  bool marker = maybe_print_line(e, line, sys);
  e->has_prev = false;
  e->source = -2;
  e->printed = true;
  return marker;
}

/* The first token of a line of the text, read outside a call's arguments
   (gcc's cb_line_change). */
static void line_change(Expander *e, const PPTok *t) {
  do_line_change(e, t->line, false);
}

/* A directive's own line of output: #define, #undef, #pragma. */
static void print_directive_start(Expander *e, int line) {
  maybe_print_line(e, line, false);
}

static void print_directive_end(Expander *e) {
  fputc('\n', e->out);
  e->printed = false;
  e->src_line++;
}

/* One token read outside directives (gcc's scan_translation_unit). */
static void emit_token(Expander *e, const PPTok *t) {
  if (t->kind == K_PAD) {
    e->avoid_paste = true;
    if (e->source == -2 || (e->source == 0 && t->arg == -1))
      e->source = t->arg == -1 ? -2 : t->arg;
    return;
  }
  bool marker = false, sys = t->flags & F_SYS, space = false;
  if (e->avoid_paste) {
    if (e->source == -2)
      e->source = t->flags & F_WHITE ? 1 : 0;
    if (t->line != e->src_line) {
      marker = do_line_change(e, t->line, sys);
      space = true;
    } else {
      space = e->source == 1 || (e->has_prev && pp_avoid_paste(&e->prev, t)) ||
              (!e->has_prev && pp_is(t, "#"));
    }
  } else if (t->flags & F_WHITE) {
    if (t->line != e->src_line)
      marker = do_line_change(e, t->line, sys);
    space = true;
  }
  if (space)
    fputc(' ', e->out);
  e->avoid_paste = false;
  e->source = -2;
  e->prev = *t;
  e->has_prev = true;
  if (!marker && e->prev_sys != sys && !(t->flags & F_BUILTIN)) {
    do_line_change(e, t->line, sys); /* (a system header's tokens are marked so) */
    e->prev_sys = sys;
  }
  fwrite(t->s, 1, t->len, e->out);
  e->printed = true;
}

/* }================================================================== */

/* {==================================================================
 * Directives
 * =================================================================== */

/* The rest of the directive's line, unread. */
static void rest_of_line(Expander *e) {
  while (pplex(&e->lex, true).kind != K_EOD)
    ;
}

/* What a directive's expansion left: gcc drops it at the line's end. */
static void drop_contexts(Expander *e) {
  while (e->nctx > 0)
    pop_ctx(e);
  if (e->backed && e->backup.kind == K_EOD)
    e->backed = false;
  if (e->backed)
    cannot(e);
}

static PPTok expr_next(void *ctx) {
  return next(ctx);
}

/* defined X, defined(X): read with no expansion. */
static bool expr_defined(void *ctx) {
  Expander *e = ctx;
  e->prevent++;
  PPTok t = next(e);
  bool paren = t.kind == K_PUNCT && pp_is(&t, "(");
  if (paren)
    t = next(e);
  if (t.kind != K_IDENT)
    cannot(e);
  bool d = is_defined(e, &t);
  if (paren) {
    PPTok close = next(e);
    if (!(close.kind == K_PUNCT && pp_is(&close, ")")))
      cannot(e);
  }
  e->prevent--;
  return d;
}

static bool eval_if(Expander *e) {
  PPExpr x = {.next = expr_next,
              .defined = expr_defined,
              .ctx = e,
              .unsigned_char = table_unsigned_char(e->table),
              .fail = &e->fail};
  bool skipping = e->lex.skipping;
  e->lex.skipping = false;
  bool v = ppif_eval(&x);
  e->lex.skipping = skipping;
  drop_contexts(e);
  return v;
}

static Cond *top_cond(Expander *e) {
  if (e->nconds == 0)
    cannot(e); /* #else, #elif or #endif with no #if */
  return &e->conds[e->nconds - 1];
}

/* #if, #ifdef, #ifndef, #elif, #else, #endif (in a skipped group too):
   false when the name is none of them. */
static bool conditional(Expander *e, const PPTok *name) {
  bool opens = pp_is(name, "if") || pp_is(name, "ifdef") || pp_is(name, "ifndef");
  if (opens) {
    bool v = false;
    if (!e->skipping && pp_is(name, "if")) {
      v = eval_if(e);
    } else if (!e->skipping) {
      PPTok t = pplex(&e->lex, true);
      if (t.kind != K_IDENT)
        cannot(e); /* no macro name */
      v = is_defined(e, &t) == pp_is(name, "ifdef");
    }
    if (e->nconds == e->conds_cap) {
      e->conds_cap = e->conds_cap ? 2 * e->conds_cap : 16;
      e->conds = realloc(e->conds, e->conds_cap * sizeof *e->conds);
      if (!e->conds)
        abort();
    }
    e->conds[e->nconds++] = (Cond){e->skipping, v, false};
    e->skipping = e->skipping || !v;
  } else if (pp_is(name, "elif")) {
    Cond *c = top_cond(e);
    if (c->seen_else)
      cannot(e);
    if (!c->outer_skip && c->taken) {
      e->skipping = true;
    } else if (!c->outer_skip) {
      c->taken = eval_if(e);
      e->skipping = !c->taken;
    }
  } else if (pp_is(name, "else")) {
    Cond *c = top_cond(e);
    if (c->seen_else)
      cannot(e);
    c->seen_else = true;
    e->skipping = c->outer_skip || c->taken;
    c->taken = true;
  } else if (pp_is(name, "endif")) {
    e->skipping = top_cond(e)->outer_skip;
    e->nconds--;
  } else if (pp_is(name, "elifdef") || pp_is(name, "elifndef")) {
    cannot(e);
  } else {
    return false;
  }
  return true;
}

static void do_define(Expander *e, int line) {
  Macro *m = read_define(&e->lex, &e->arena, 0);
  if (!m)
    cannot(e);
  PPTok name = {.s = m->name, .len = m->len, .kind = K_IDENT};
  if (special(&name) != SP_NONE)
    cannot(e); /* (gcc refuses, or warns and redefines a built-in) */
  overlay_add(e, m);
  print_directive_start(e, line);
  print_define(e->out, m);
  print_directive_end(e);
}

static void do_undef(Expander *e, int line) {
  PPTok name = pplex(&e->lex, true);
  if (name.kind != K_IDENT || special(&name) != SP_NONE)
    cannot(e);
  Macro *m = pp_alloc(&e->arena, sizeof *m);
  *m = (Macro){.name = name.s, .len = name.len, .hash = hash_of(name.s, name.len), .gone = true};
  overlay_add(e, m);
  print_directive_start(e, line);
  fprintf(e->out, "#undef %.*s", name.len, name.s);
  print_directive_end(e);
}

/* The pragmas the preprocessor passes on as written (gcc's cb_def_pragma);
   the others it acts on, or expands (pragma message, omp with -fopenmp). */
static bool passed_on(const PPTok *ns, const PPTok *name) {
  static const char *const gcc[] = {"diagnostic",  "optimize",      "push_options",
                                    "pop_options", "reset_options", "visibility",
                                    "target",      "ivdep",         "unroll"};
  if (pp_is(ns, "STDC") || pp_is(ns, "pack") || pp_is(ns, "weak"))
    return true;
  for (size_t i = 0; pp_is(ns, "GCC") && i < sizeof gcc / sizeof *gcc; i++)
    if (pp_is(name, gcc[i]))
      return true;
  return false;
}

static void do_pragma(Expander *e, int line) {
  PPLexer start = e->lex;
  PPTok ns = pplex(&e->lex, true), name = pplex(&e->lex, true);
  if (!passed_on(&ns, &name))
    cannot(e);
  e->lex = start;
  print_directive_start(e, line);
  fputs("#pragma ", e->out);
  bool first = true;
  for (PPTok t; (t = pplex(&e->lex, true)).kind != K_EOD; first = false) {
    if (t.kind == K_IDENT && (lookup(e, &t) || special(&t) != SP_NONE))
      cannot(e); /* (would gcc expand it? it does in some pragmas: not known here) */
    if ((t.flags & F_WHITE) && !first)
      fputc(' ', e->out);
    fwrite(t.s, 1, t.len, e->out);
  }
  print_directive_end(e);
}

/* Lines of a group #if skips, to the directive that ends it. */
static void skip_group(Expander *e) {
  e->lex.skipping = true;
  while (e->skipping) {
    if (e->lex.p >= e->lex.end)
      cannot(e); /* an unterminated #if */
    PPTok t = pplex(&e->lex, true);
    if (t.kind == K_PUNCT && (t.flags & F_BOL) && pp_is(&t, "#")) {
      e->in_directive = true;
      PPTok name = pplex(&e->lex, true);
      if (name.kind == K_IDENT)
        conditional(e, &name);
      e->in_directive = false;
    }
    rest_of_line(e);
    pplex_line_end(&e->lex);
  }
  e->lex.skipping = false;
}

static void directive(Expander *e, const PPTok *hash) {
  e->in_directive = true;
  PPTok name = pplex(&e->lex, true);
  if (name.kind == K_IDENT && !conditional(e, &name)) {
    if (pp_is(&name, "define"))
      do_define(e, hash->line);
    else if (pp_is(&name, "undef"))
      do_undef(e, hash->line);
    else if (pp_is(&name, "pragma"))
      do_pragma(e, hash->line);
    else if (!pp_is(&name, "warning"))
      cannot(e); /* #error, #include, #line, #ident, ..., or no directive */
  } else if (name.kind != K_IDENT && name.kind != K_EOD) {
    cannot(e); /* `# 12`, or no directive */
  }
  rest_of_line(e);
  e->in_directive = false;
  pplex_line_end(&e->lex);
  if (e->skipping)
    skip_group(e);
}

/* }================================================================== */

char *expand_text(MacroTable *t, const char *body, size_t len, int first_line, size_t *out_len) {
  size_t clean_len, *splices;
  int nsplices;
  if (table_strict(t) && memmem(body, len, "??", 2))
    return NULL; /* (the ISO modes read trigraphs) */
  char *clean = pp_clean(body, len, &clean_len, &splices, &nsplices);
  if (!clean)
    return NULL;
  Expander *e = calloc(1, sizeof *e);
  char *text = NULL;
  size_t text_len = 0;
  if (!e)
    abort();
  e->table = t;
  e->out = open_memstream(&text, &text_len);
  if (!e->out)
    abort();
  e->src_line = first_line;
  e->source = -2;
  pplex_init(&e->lex, clean, clean_len, first_line, &e->fail);
  e->lex.splices = splices;
  e->lex.nsplices = nsplices;
  bool ok = false;
  if (!setjmp(e->fail)) {
    for (PPTok tok; (tok = next(e)).kind != K_EOF;)
      emit_token(e, &tok);
    if (e->nconds > 0)
      cannot(e); /* an unterminated #if */
    if (e->printed)
      fputc('\n', e->out);
    ok = true;
  }
  while (e->nctx > 0)
    pop_ctx(e); /* (the table's macros are active no more) */
  fclose(e->out);
  free(e->ctx);
  free(e->conds);
  pp_free_all(&e->arena);
  free(e);
  free(clean);
  free(splices);
  if (!ok) {
    free(text);
    return NULL;
  }
  *out_len = text_len;
  return text;
}
