/* emit.c: printing the output.
 *
 * The user's text outside coroutines is copied byte for byte. Each coroutine
 * prototype becomes the prototype of its creation function, and each
 * coroutine definition becomes, in its place:
 *
 *   typedef int coro_value_fib;                  the type it yields
 *   struct coro_frame_fib {                      its parameters and locals
 *     coro_t coro_base;
 *     int n;
 *     int a;
 *   };
 *   static void coro_resume_fib(coro_t *coro_c)  the body as a state machine:
 *   {                                            a switch jumps to where the
 *     ...                                        last yield left off
 *   }
 *   coro_t *fib(int n)                           creation: allocate, store
 *   { ... }                                      the arguments, run nothing
 *
 * Statements are printed one per line, indented, each preceded by a #line
 * directive when the compiler would otherwise count a different .coc line,
 * so that compiler messages and gdb point into the .coc.
 */
#define _GNU_SOURCE
#include "coroc.h"
#include "parser.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* {==================================================================
 * Lines and #line
 * =================================================================== */

/* `#line N "file.coc"`, or just `#line N` once the file name is set. */
static void line_directive(Emitter *e, int line) {
  if (e->named)
    fprintf(e->out, "#line %d\n", line);
  else
    fprintf(e->out, "#line %d \"%s\"\n", line, e->src->name);
  e->named = true;
}

enum { MAX_INDENT = 40 };

/* Print one line of output that stands for `line` of the .coc (0: a line of
   coroc's own that stands for nothing in particular). */
void emit_put(Emitter *e, int line, const char *fmt, ...) {
  if (line > 0 && line != e->mapped && e->opt->line_directives)
    line_directive(e, line);
  if (line > 0)
    e->mapped = line;
  /* deeper than MAX_INDENT levels the text stops moving right: readable for
     any real body, and linear in size for a machine-made one nested 10^5 deep */
  fprintf(e->out, "%*s", (e->indent < MAX_INDENT ? e->indent : MAX_INDENT) * 2, "");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(e->out, fmt, ap);
  va_end(ap);
  fputc('\n', e->out);
  if (e->mapped)
    e->mapped++;
}

int emit_line_of(Emitter *e, const Node *n) {
  return e->toks->v[n->first].line;
}

/* }================================================================== */

/* {==================================================================
 * Printing token ranges, with the renames of lower.c
 * =================================================================== */

/* How a range of tokens is printed. */
typedef struct {
  const Token *name;       /* a declarator's name token ... */
  const char *name_text;   /* ... is printed as this ("" for nothing) */
  const Node *omit;        /* a node whose tokens are left out */
  const Node *sized;       /* an ND_ARRAY printed with ... */
  const char *size;        /* ... this size between its brackets */
  bool collapse;           /* print hoisted struct/union/enum definitions as `struct NAME` */
  bool raw;                /* print names as written (the creation function's parameters) */
  const Node *unconst;     /* an ND_POINTER whose own `const` (after its last '*') is left out */
  const Node *literal;     /* the compound literal being printed inside its CORO_LITERAL */
} Style;

/* What a token stands for in the output. */
static const char *token_text(Emitter *e, const Token *t) {
  if (e->co && t->kind == TK_IDENT && (strcmp(t->text, "__func__") == 0 ||
                                       strcmp(t->text, "__FUNCTION__") == 0))
    return format("\"%s\"", e->co->name);  /* the coroutine's name, not coro_resume_NAME */
  Sym *s = token_sym(t);
  if (s && s->owner && s->field) {
    if (s->kind == SYM_OBJECT)
      return format("coro_f->%s", s->field);
    return s->field;
  }
  return t->text;
}

/* #if, #ifdef, #ifndef, #elif, #else, #endif */
static bool is_conditional_directive(const Token *t) {
  const char *q = strchr(t->text, '#') + 1;
  q += strspn(q, " \t");
  return strncmp(q, "if", 2) == 0 || strncmp(q, "el", 2) == 0 || strncmp(q, "endif", 5) == 0;
}

static const char *tagged_name(const Node *tagged) {
  Sym *s = token_sym(tagged->tok);
  if (s && s->field && s->owner)
    return s->field;
  return tagged->name;
}

static void print_range(FILE *out, Emitter *e, int first, int last, const Style *st);

/* Is token i a `const` that qualifies the pointer itself (`int *const p`)? */
static bool is_top_const(Emitter *e, const Node *pointer, int i) {
  if (i < pointer->first || i > pointer->last)
    return false;
  const Token *t = &e->toks->v[i];
  if (t->kind != TK_IDENT || (strcmp(t->text, "const") && strcmp(t->text, "__const") &&
                              strcmp(t->text, "__const__")))
    return false;
  for (int j = i + 1; j <= pointer->last; j++)
    if (e->toks->v[j].code == '*')
      return false;
  return true;
}

/* `struct coro_gen_node` for a hoisted definition; the keyword is its first token. */
static bool print_collapsed(FILE *out, Emitter *e, const Node *tagged) {
  const char *name = tagged_name(tagged);
  if (!name)
    return false;
  fprintf(out, "%s %s", e->toks->v[tagged->first].text, name);
  return true;
}

/* The widest lowered range that starts at token i and ends by `last`: the
   entries are chained by the token they start at, so printing a token asks
   only about its own (usually none). */
static int best_repl(Emitter *e, int i, int last) {
  int best = -1;
  if (!e->repl_at)
    return -1;
  for (int k = e->repl_at[i]; k >= 0; k = e->repl[k].next)
    if (e->repl[k].last <= last && (best < 0 || e->repl[k].last > e->repl[best].last))
      best = k;
  return best;
}

static const char *replacement(Emitter *e, int i, int last) {
  int k = best_repl(e, i, last);
  return k < 0 ? NULL : e->repl[k].text;
}

static int repl_end(Emitter *e, int i, int last) {
  return e->repl[best_repl(e, i, last)].last;
}

/* Forget the entries from `keep` on, newest first (they were chained so). */
static void drop_repl(Emitter *e, int keep) {
  while (e->nrepl > keep) {
    e->nrepl--;
    e->repl_at[e->repl[e->nrepl].first] = e->repl[e->nrepl].next;
  }
}

static void print_range(FILE *out, Emitter *e, int first, int last, const Style *st) {
  bool started = false;
  for (int i = first; i <= last; i++) {
    const Token *t = &e->toks->v[i];
    if (t->dead || t->kind == TK_DIRECTIVE)
      continue;
    if (st && st->name && t == st->name && !*st->name_text)
      continue;  /* an abstract declarator: the name and its space go */
    if (st && st->unconst && is_top_const(e, st->unconst, i))
      continue;
    if (started && (t->space || t->bol))
      fputc(' ', out);
    started = true;
    if (st && st->omit && i == st->omit->first) {
      i = st->omit->last;
      continue;
    }
    if (st && st->sized && i == st->sized->first) {
      fprintf(out, "[%s]", st->size);
      i = st->sized->last;
      continue;
    }
    if (st && st->name && t == st->name) {
      fputs(st->name_text, out);
      continue;
    }
    const char *repl = replacement(e, i, last);
    if (repl && !(st && st->raw)) {  /* an await, or an && around one, already lowered */
      int end = repl_end(e, i, last);
      fputs(repl, out);
      i = end;
      continue;
    }
    Node *lit = token_literal(t), *hoisted = token_hoisted(t);
    if (lit && e->co && !(st && st->raw) && !(st && st->literal == lit)) {
      fprintf(out, "CORO_LITERAL(coro_f->%s, ", lit->name);
      print_range(out, e, lit->first, lit->last, &(Style){.collapse = true, .literal = lit});
      fputc(')', out);
      i = lit->last;
      continue;
    }
    if (hoisted && st && st->collapse && print_collapsed(out, e, hoisted)) {
      i = hoisted->last;
      continue;
    }
    if (hoisted && !token_sym(hoisted->tok) && hoisted->name) {
      /* an anonymous hoisted type gets its generated tag after the keyword */
      fprintf(out, "%s %s", t->text, hoisted->name);
      continue;
    }
    fputs(st && st->raw ? t->text : token_text(e, t), out);
  }
}

/* print_range into a new string */
static char *range_str(Emitter *e, int first, int last, const Style *st) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  print_range(f, e, first, last, st);
  fclose(f);
  return buf;
}

static char *node_str(Emitter *e, const Node *n) {
  return range_str(e, n->first, n->last, &(Style){.collapse = true});
}

/* }================================================================== */

/* {==================================================================
 * Types of frame fields
 * =================================================================== */

/* The specifiers of a field: no storage class, no `coroutine`, and no
   top-level const (the frame is written by assignment); a hoisted struct
   is named, not defined again. */
static char *specs_str(Emitter *e, const Node *specs, bool drop_const) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  bool first = true;
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if (i > 0 && k->first == specs->kids.v[i - 1]->first)
      continue;  /* the words of one macro (`u8` for `unsigned char`) stand at one token */
    int drop = SP_TYPEDEF | SP_EXTERN | SP_STATIC | SP_AUTO | SP_REGISTER | SP_THREAD | SP_COROUTINE;
    if (k->kind == ND_EXPR && (k->flags & drop))
      continue;
    if (drop_const && k->kind == ND_EXPR && k->flags == SP_CONST)
      continue;
    if (!first)
      fputc(' ', f);
    first = false;
    print_range(f, e, k->first, k->last, &(Style){.collapse = true});
  }
  fclose(f);
  return buf;
}

/* Could the specifiers name a struct, union or array type (a tag, or a
   typedef name we do not look through)? Then `{1, 2, 3, 4}` may fill
   elements several values at a time. */
static bool has_aggregate_type(const Node *specs) {
  for (int i = 0; i < specs->kids.n; i++) {
    Node *k = specs->kids.v[i];
    if ((k->kind == ND_TAGGED && strcmp(k->tok->text, "enum") != 0) || k->kind == ND_IDENT ||
        k->kind == ND_SIZEOF)
      return true;
  }
  return false;
}

/* The size of `T a[] = init;`: counted from the initializer. */
static const char *array_size_from(Emitter *e, const Node *init, bool elements_are_scalars) {
  if (!init)
    return NULL;
  if (init->kind != ND_INIT_LIST) {  /* char s[] = "text", wchar_t w[] = L"text" */
    char *lit = node_str(e, init);
    return format("sizeof %s / sizeof %s[0]", lit, lit);
  }
  for (int i = 0; i < init->kids.n; i++)
    if (init->kids.v[i]->d)
      error_tok(&e->toks->v[init->first], "an array in a coroutine with designated initializers "
                "needs an explicit size");
  for (int i = 0; i < init->kids.n && !elements_are_scalars; i++)
    if (init->kids.v[i]->kind != ND_INIT_LIST)
      error_tok(&e->toks->v[init->first], "an array of arrays or structs in a coroutine whose "
                "initializer leaves out inner braces needs an explicit size");
  if (init->kids.n == 1 && init->kids.v[0]->kind == ND_EXPR && init->kids.v[0]->flags == OP_STRING) {
    char *lit = node_str(e, init->kids.v[0]);
    return format("sizeof %s / sizeof %s[0]", lit, lit);
  }
  return format("%d", init->kids.n);
}

/* The declaration of a field: `int coro_x_2[4]`, or with name "" the type
   name `int[4]`. Array parameters are pointers. */
static char *field_decl(Emitter *e, const Node *specs, const Node *declarator, const Node *init,
                        const char *name, bool is_param) {
  const Node *outer = declarator->kids.n ? declarator->kids.v[0] : NULL;
  bool has_pointer = is_param && outer && outer->kind != ND_POINTER;  /* a decayed array */
  for (int i = 0; i < declarator->kids.n; i++)
    has_pointer |= declarator->kids.v[i]->kind == ND_POINTER;
  /* the frame is written by assignment, so its fields are not const
     themselves: the specifiers' const goes when nothing is derived from it
     by a pointer, and the outermost pointer's own const goes */
  Style st = {.name = declarator->tok, .name_text = name, .collapse = true,
              .unconst = outer && outer->kind == ND_POINTER ? outer : NULL};
  if (is_param && outer && outer->kind == ND_ARRAY) {
    st.name_text = format("(*%s)", name);
    st.omit = outer;
  } else if (is_param && outer && outer->kind == ND_FUNC) {
    st.name_text = format("(*%s)", name);
  } else if (outer && outer->kind == ND_ARRAY && !outer->a && init) {
    st.sized = outer;
    /* the element type: what the derivations after the array make of the specifiers */
    bool scalar = declarator->kids.n > 1 ? declarator->kids.v[1]->kind == ND_POINTER
                                         : !has_aggregate_type(specs);
    st.size = array_size_from(e, init, scalar);
  }
  char *type = specs_str(e, specs, !has_pointer);
  char *decl = range_str(e, declarator->first, declarator->last, &st);
  if (*decl == '\0')
    return type;
  return format("%s %s", type, decl);
}

/* Is the declared type an array, looking through typedef names
   (`my_pair_t pair = {...}` where my_pair_t is an array type)? */
static bool is_array_type(const Node *specs, const Node *declarator, int depth) {
  if (declarator && declarator->kids.n)
    return declarator->kids.v[0]->kind == ND_ARRAY;
  for (int i = 0; specs && i < specs->kids.n && depth < 32; i++) {
    Node *k = specs->kids.v[i];
    Sym *s = k->kind == ND_IDENT ? k->sym : NULL;
    if (s && s->kind == SYM_TYPEDEF && s->decl && s->decl->kind == ND_INIT_DECL)
      return is_array_type(s->decl->c, s->decl->a, depth + 1);
  }
  return false;
}

/* }================================================================== */

/* What emit_stackful.c needs of the above. */
char *emit_field_decl(Emitter *e, const Node *specs, const Node *declarator, const char *name) {
  return field_decl(e, specs, declarator, NULL, name, true);
}

char *emit_range(Emitter *e, int first, int last, bool raw) {
  return range_str(e, first, last, &(Style){.raw = raw, .collapse = !raw});
}

void emit_indent(Emitter *e, int delta) {
  e->indent += delta;
}

/* The next output line is .coc line `line`: say so if the compiler would not know. */
void emit_sync(Emitter *e, int line) {
  if (e->opt->line_directives && line != e->mapped)
    line_directive(e, line);
  e->mapped = line;
}

void emit_resync(Emitter *e, int line) {
  e->mapped = line;
}

/* {==================================================================
 * await inside expressions
 * =================================================================== */

static void push_repl(Emitter *e, const Node *n, const char *text) {
  if (e->nrepl == e->caprepl) {
    e->caprepl = e->caprepl ? e->caprepl * 2 : 16;
    e->repl = xrealloc(e->repl, sizeof e->repl[0] * e->caprepl);
  }
  if (!e->repl_at) {
    e->repl_at = xcalloc(e->toks->n + 1, sizeof(int));
    for (int i = 0; i <= e->toks->n; i++)
      e->repl_at[i] = -1;
  }
  e->repl[e->nrepl].first = n->first;
  e->repl[e->nrepl].last = n->last;
  e->repl[e->nrepl].text = text;
  e->repl[e->nrepl].next = e->repl_at[n->first];
  e->repl_at[n->first] = e->nrepl++;
}

static char *lower_await_expr(Emitter *e, Node *n);
static char *lower_select(Emitter *e, Node *n);
static void close_blocks(Emitter *e, int to);

/* The outermost awaits of n (an await inside another's operand is part of it). */
static bool awaits_pre(Node *n, void *ctx) {
  if (!has_await(n))
    return false;
  if (n->kind == ND_AWAIT) {
    list_push(ctx, n);
    return false;
  }
  return true;
}

static void collect_awaits(Node *n, NodeList *out) {
  visit(n, awaits_pre, NULL, out);
}

/* Does the coroutine `f` (a symbol) return a value? */
static bool task_has_value(const Sym *f) {
  return !((f->specs & SP_VOID) && f->decl && f->decl->a->kids.n == 1);
}

/* `await X`: evaluate X, keep the awaitable in the frame, suspend until it
   is ready; its value is then the awaitable's result (an operation) or the
   child task's return value, and the child is freed.

     coro_f->coro_aw_3 = coro_read(fd, buf, len);
     while (!CORO_READY(coro_f->coro_aw_3)) {
       CORO_AWAIT_SUSPEND(coro_c, 3, coro_f->coro_aw_3);
     coro_resume_3:;
     }
     ... coro_f->coro_aw_3.result ...                                      */
static char *lower_await(Emitter *e, Node *n) {
  int open = e->open_blocks;
  char *operand = lower_await_expr(e, n->a);
  int line = emit_line_of(e, n), k = n->resume_point;
  emit_put(e, 0, "/* resume point %d: %s:%d */", k, e->src->name, line);
  emit_put(e, line, "coro_f->coro_aw_%d = %s;", k, operand);
  close_blocks(e, open);
  if (!n->name) {
    emit_put(e, line, "while (!CORO_READY(coro_f->coro_aw_%d)) {", k);
    e->indent++;
    emit_put(e, line, "CORO_AWAIT_SUSPEND(coro_c, %d, coro_f->coro_aw_%d);", k, k);
    e->indent--;
    emit_put(e, 0, "coro_resume_%d:;", k);
    emit_put(e, 0, "}");
    return format("coro_f->coro_aw_%d.result", k);
  }
  emit_put(e, line, "CORO_AWAIT_TASK(coro_c, %d, coro_f->coro_aw_%d);", k, k);
  e->indent--;
  emit_put(e, 0, "coro_resume_%d:;", k);
  e->indent++;
  bool is_void = !task_has_value(n->sym);
  if (!is_void)
    emit_put(e, line, "coro_f->coro_tmp_%d = *(coro_value_%s *)coro_f->coro_aw_%d->result;", k,
             n->name, k);
  emit_put(e, line, "coro_free(coro_f->coro_aw_%d);", k);
  return is_void ? "(void)0" : format("coro_f->coro_tmp_%d", k);
}

/* `A && B` with an await in B: B runs only when A holds, as C says.
     coro_f->coro_cond_1 = (A) != 0;
     if (coro_f->coro_cond_1) { ...B's awaits...; coro_f->coro_cond_1 = (B) != 0; }  */
static char *lower_logical(Emitter *e, Node *n, bool is_and) {
  int open = e->open_blocks;
  char *left = lower_await_expr(e, n->a);
  int k = n->resume_point, line = emit_line_of(e, n);  /* lower.c numbered the conds */
  emit_put(e, line, "coro_f->coro_cond_%d = (%s) != 0;", k, left);
  close_blocks(e, open);
  emit_put(e, line, "if (%scoro_f->coro_cond_%d) {", is_and ? "" : "!", k);
  e->indent++;
  char *right = lower_await_expr(e, n->b);
  emit_put(e, line, "coro_f->coro_cond_%d = (%s) != 0;", k, right);
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "}");
  return format("coro_f->coro_cond_%d", k);
}

/* The value an await will have, as lower_await will name it. */
static const char *await_value(const Node *n) {
  if (!n->name)
    return format("coro_f->coro_aw_%d.result", n->resume_point);
  return task_has_value(n->sym) ? format("coro_f->coro_tmp_%d", n->resume_point) : "(void)0";
}

/* n printed with each await in it standing for its value: a C expression of
   the type n will have, for __typeof__. */
static char *typed_text(Emitter *e, Node *n) {
  NodeList awaits = {0};
  collect_awaits(n, &awaits);
  int saved = e->nrepl;
  for (int i = 0; i < awaits.n; i++)
    push_repl(e, awaits.v[i], await_value(awaits.v[i]));
  char *text = node_str(e, n);
  drop_repl(e, saved);
  return text;
}

/* `C ? await A : B`: only the arm C picks runs, as C says. Its value is kept
   in a local of a block around the statement; it is used by the statement
   before any other suspension (lower_await_expr orders the operands so), so
   it need not be in the frame.
     {
       __typeof__(C ? A : B) coro_sel_1;
       if (C) { ...A's awaits...; coro_sel_1 = A; } else { coro_sel_1 = B; }
       ...the statement, with coro_sel_1...
     }                                                                  */
static char *lower_select(Emitter *e, Node *n) {
  int line = emit_line_of(e, n), k = ++e->nselects;
  char *cond = lower_await_expr(e, n->a);
  if (n->discarded) {  /* its value is dropped (it may be void): just the arms */
    emit_put(e, line, "if (%s) {", cond);
    e->indent++;
    int open = e->open_blocks;
    char *arm = n->b ? lower_await_expr(e, n->b) : cond;
    if (n->b && n->b->kind != ND_AWAIT)
      emit_put(e, line, "(void)(%s);", arm);
    close_blocks(e, open);
    e->indent--;
    emit_put(e, 0, "} else {");
    e->indent++;
    arm = lower_await_expr(e, n->c);
    if (n->c->kind != ND_AWAIT)
      emit_put(e, line, "(void)(%s);", arm);
    close_blocks(e, open);
    e->indent--;
    emit_put(e, 0, "}");
    return "(void)0";
  }
  char *type = format("__typeof__(%s ? %s : %s)", cond, n->b ? typed_text(e, n->b) : cond,
                      typed_text(e, n->c));
  emit_put(e, 0, "{");
  e->indent++;
  e->open_blocks++;
  emit_put(e, line, "%s coro_sel_%d;", type, k);
  emit_put(e, line, "if (%s) {", cond);
  e->indent++;
  int open = e->open_blocks;
  emit_put(e, line, "coro_sel_%d = %s;", k, n->b ? lower_await_expr(e, n->b) : cond);
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "} else {");
  e->indent++;
  emit_put(e, line, "coro_sel_%d = %s;", k, lower_await_expr(e, n->c));
  close_blocks(e, open);
  e->indent--;
  emit_put(e, 0, "}");
  return format("coro_sel_%d", k);
}

/* Close the blocks that lower_select opened, down to `to` left open. */
static void close_blocks(Emitter *e, int to) {
  while (e->open_blocks > to) {
    e->open_blocks--;
    e->indent--;
    emit_put(e, 0, "}");
  }
}

/* An operator whose operands C leaves unsequenced, with awaits below it:
   the parts that order awaits (collect_sequenced) are lowered in turn, and
   one holding a `?:` that awaits goes last, so that its value (a local of
   the block lower_select opens) is used before any other suspension. The
   operators between are looked through, not recursed into: a chain of a
   million `+` costs no C stack. */
static void lower_unsequenced(Emitter *e, Node *n) {
  NodeList parts = {0};
  collect_sequenced(n, &parts);
  Node *select = NULL;
  for (int i = 0; i < parts.n; i++)
    if (!has_awaiting_select(parts.v[i]))
      lower_await_expr(e, parts.v[i]);
  for (int i = 0; i < parts.n; i++)
    if (has_awaiting_select(parts.v[i])) {
      if (select)
        error_tok(&e->toks->v[parts.v[i]->first], "two operands that each hold a '?:' with "
                  "'await' in one expression: put one in a variable first");
      select = parts.v[i];
    }
  if (select)
    lower_await_expr(e, select);
  xfree(parts.v);
}

/* Print the statements that evaluate the awaits in n, in an order C allows,
   and return the C text of n's value. Operands around an await that C
   leaves unsequenced are evaluated after it; &&, || and the comma keep
   their order; the arms of ?: are not supported yet. */
static char *lower_await_expr(Emitter *e, Node *n) {
  if (!has_await(n))
    return node_str(e, n);
  char *text = NULL;
  if (n->kind == ND_AWAIT) {
    text = lower_await(e, n);
  } else if (n->kind == ND_EXPR && (n->flags == T_ANDAND || n->flags == T_OROR) && has_await(n->b)) {
    text = lower_logical(e, n, n->flags == T_ANDAND);
  } else if (n->kind == ND_EXPR && n->flags == ',') {  /* left, then right, as C says */
    int open = e->open_blocks;
    char *left = lower_await_expr(e, n->a);
    if (n->a->kind != ND_AWAIT)  /* an await's own statements are all it needs */
      emit_put(e, emit_line_of(e, n), "(void)(%s);", left);
    close_blocks(e, open);
    text = format("(%s)", lower_await_expr(e, n->b));
  } else if (n->kind == ND_EXPR && n->flags == '?' && (has_await(n->b) || has_await(n->c))) {
    text = lower_select(e, n);
  } else {
    lower_unsequenced(e, n);
    return node_str(e, n);
  }
  push_repl(e, n, text);
  return text;
}

/* }================================================================== */

/* {==================================================================
 * Statements of a coroutine body
 * =================================================================== */

static void emit_stmt(Emitter *e, Node *n);

/* The frame field that a name in a macro body defined at token `at` means:
   the latest local of that name declared before it. */
static const char *local_field(Emitter *e, const char *name, size_t len, int at) {
  const char *field = NULL;
  for (int i = 0; i < e->co->locals.n; i++) {
    Sym *s = e->co->locals.v[i]->sym;
    if (strlen(s->name) == len && strncmp(s->name, name, len) == 0 &&
        (s->tok - e->toks->v) < at)
      field = s->field;
  }
  return field;
}

static bool is_ident_char(char c) {
  return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

/* The macro a #define or #undef directive names, and whether it defines. */
static const char *directive_macro(const Token *t, bool *define) {
  const char *p = strchr(t->text, '#') + 1;
  p += strspn(p, " \t");
  *define = strncmp(p, "define", 6) == 0;
  if (!*define && strncmp(p, "undef", 5) != 0)
    return NULL;
  p += *define ? 6 : 5;
  p += strspn(p, " \t");
  size_t n = 0;
  while (is_ident_char(p[n]))
    n++;
  return n ? xstrndup(p, n) : NULL;
}

/* A #define inside a coroutine body may name its locals (`#define SUM (a + b)`):
   those now live in the frame, so its body says coro_f->a. Strings,
   members (.a, ->a) and the macro's own parameters are left alone. */
static char *rewrite_define(Emitter *e, const char *directive, int at) {
  const char *text = directive + strspn(directive, " \t");
  const char *p = strchr(text, '#') + 1;
  p += strspn(p, " \t");
  if (strncmp(p, "define", 6) != 0 || !e->co)
    return (char *)text;
  p += 6;
  p += strspn(p, " \t");
  while (is_ident_char(*p))
    p++;
  const char *params = *p == '(' ? p : NULL;
  const char *params_end = params ? strchr(params, ')') : NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = xmemstream(&buf, &len);
  fwrite(text, 1, p - text, f);
  char prev = ' ';
  while (*p) {
    if (*p == '"' || *p == '\'') {
      const char *q = p + 1;
      while (*q && *q != *p)
        q += (*q == '\\' && q[1]) ? 2 : 1;
      q += *q ? 1 : 0;
      fwrite(p, 1, q - p, f);
      p = q;
      continue;
    }
    if (!is_ident_char(*p) || (*p >= '0' && *p <= '9')) {
      if (*p != ' ' && *p != '\t')
        prev = *p;
      fputc(*p++, f);
      continue;
    }
    const char *w = p;
    while (is_ident_char(*p))
      p++;
    size_t n = p - w;
    bool member = prev == '.' || prev == '>';
    bool param = false;
    if (params && w > params_end)
      for (const char *q = params + 1; q < params_end;) {
        const char *a = q;
        while (is_ident_char(*q))
          q++;
        if ((size_t)(q - a) == n && strncmp(a, w, n) == 0)
          param = true;
        q += q == a ? 1 : 0;
      }
    const char *field = member || param || w < (params_end ? params_end : w) ? NULL
                                                                           : local_field(e, w, n, at);
    if (field)
      fprintf(f, "coro_f->%s", field);
    else
      fwrite(w, 1, n, f);
    prev = 'a';
  }
  fclose(f);
  return buf;
}

static char *directive_text(Emitter *e, const Token *t) {
  return rewrite_define(e, t->text, t - e->toks->v);
}

/* Macros defined before the coroutine that name its locals (`#define CUR
   text[pos]` above `coroutine int scan(const char *text)`) are redefined
   for its body, and given back their own definitions after it. */
static void redefine_macros(Emitter *e, Coroutine *co, bool restore) {
  for (int i = 0; i < co->nmacros; i++) {
    const char *def = co->macros[i] + strspn(co->macros[i], " \t");
    const char *body = rewrite_define(e, def, co->last);
    if (strcmp(body, def) == 0)
      continue;
    bool define;
    Token fake = {.text = def};
    const char *name = directive_macro(&fake, &define);
    fprintf(e->out, "#undef %s\n%s\n", name, restore ? def : body);
    e->mapped = 0;
  }
}

/* Is this directive a #define or #undef the preprocessor kept? */
static bool is_kept_directive(Emitter *e, const Token *t) {
  return t->kind == TK_DIRECTIVE && !is_conditional_directive(t) && !is_line_directive(t->text) &&
         e->src->directive_live[t->line];
}

/* Token i is the body's first directive about its macro, and defines it. */
static bool is_first_define(Emitter *e, Coroutine *co, int i) {
  bool define;
  const char *name = is_kept_directive(e, &e->toks->v[i]) ? directive_macro(&e->toks->v[i], &define) : NULL;
  if (!name || !define)
    return false;
  for (int j = co->first; j < i; j++) {
    bool d;
    const char *other = is_kept_directive(e, &e->toks->v[j]) ? directive_macro(&e->toks->v[j], &d) : NULL;
    if (other && strcmp(other, name) == 0)
      return false;
  }
  return true;
}

/* Preprocessor lines kept inside a body: #define, #undef, #pragma... (the
   #if family was already decided by the preprocessor). */
static void emit_directives(Emitter *e, int from, int to) {
  for (int i = from; i < to && i < e->toks->n; i++) {
    Token *t = &e->toks->v[i];
    if (!is_kept_directive(e, t))
      continue;
    const char *text = directive_text(e, t);
    if (e->opt->line_directives && e->mapped != t->line)
      line_directive(e, t->line);
    fprintf(e->out, "%s\n", text);
    e->mapped = t->line + 1;
    for (const char *p = text; *p; p++)
      e->mapped += *p == '\n';
  }
}

/* `int a = 1, b[2] = {3, 4};` in a body: the objects live in the frame, so
   only the initializations remain, where the declaration stood. */
static char *init_str(Emitter *e, Node *specs, Node *init_decl) {
  Node *d = init_decl->a;
  Sym *s = init_decl->sym;
  const char *lhs = format("coro_f->%s", s->field);
  if (is_array_type(specs, d, 0)) {
    char *type = field_decl(e, specs, d, init_decl->b, "", false);
    const char *lit = init_decl->b->kind == ND_INIT_LIST ? node_str(e, init_decl->b)
                                                          : format("{%s}", node_str(e, init_decl->b));
    return format("memcpy(%s, (%s)%s, sizeof %s)", lhs, type, lit, lhs);
  }
  if (init_decl->b->kind == ND_INIT_LIST)
    return format("%s = (%s)%s", lhs, field_decl(e, specs, d, NULL, "", false),
                  node_str(e, init_decl->b));
  return format("%s = %s", lhs, node_str(e, init_decl->b));
}

/* The initializations of a declaration joined by `sep`; NULL if none. */
static char *decl_inits(Emitter *e, Node *decl, const char *sep) {
  char *all = NULL;
  for (int i = 0; i < decl->kids.n; i++) {
    Node *id = decl->kids.v[i];
    if (!id->b || !id->sym || id->sym->owner != e->co || id->sym->kind != SYM_OBJECT)
      continue;
    char *one = init_str(e, decl->a, id);
    all = all ? format("%s%s%s", all, sep, one) : one;
  }
  return all;
}

static bool stays_in_place(Emitter *e, Node *decl) {
  for (int i = 0; i < decl->kids.n; i++) {
    Sym *s = decl->kids.v[i]->sym;
    if (s && (!s->owner || s->owner != e->co))
      return true;  /* static, extern, a function declaration */
  }
  return false;
}

/* `int x = 5, y = await f(x);`: each declarator in turn, its awaits just
   before its own initialization (x must be set before f(x) runs). */
static void emit_awaiting_decl(Emitter *e, Node *decl) {
  for (int i = 0; i < decl->kids.n; i++) {
    Node *id = decl->kids.v[i];
    if (!id->b || !id->sym || id->sym->owner != e->co || id->sym->kind != SYM_OBJECT)
      continue;
    int open = e->open_blocks;
    if (has_await(id->b))
      lower_await_expr(e, id->b);
    emit_put(e, emit_line_of(e, id), "%s;", init_str(e, decl->a, id));
    close_blocks(e, open);
  }
}

static void emit_decl(Emitter *e, Node *decl) {
  if (decl->a->flags & SP_TYPEDEF)
    return;  /* hoisted */
  if (has_await(decl) && !stays_in_place(e, decl)) {
    emit_awaiting_decl(e, decl);
    return;
  }
  for (int i = 0; i < decl->kids.n; i++)
    if (has_await(decl->kids.v[i]->b))
      lower_await_expr(e, decl->kids.v[i]->b);
  if (stays_in_place(e, decl)) {
    emit_put(e, emit_line_of(e, decl), "%s", node_str(e, decl));
    return;
  }
  char *inits = decl_inits(e, decl, "; ");
  if (inits)
    emit_put(e, emit_line_of(e, decl), "%s;", inits);
}

static void emit_yield(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  if (!n->a) {  /* `yield;` in a task: every other ready task gets a turn */
    emit_put(e, 0, "/* resume point %d: %s:%d */", n->resume_point, e->src->name, line);
    emit_put(e, line, "CORO_YIELD_TASK(coro_c, %d);", n->resume_point);
    e->indent--;
    emit_put(e, 0, "coro_resume_%d:;", n->resume_point);
    e->indent++;
    return;
  }
  emit_put(e, 0, "/* resume point %d: %s:%d */", n->resume_point, e->src->name, line);
  emit_put(e, line, "CORO_YIELD(coro_c, coro_out, %d, coro_value_%s, %s);", n->resume_point,
           e->co->name, node_str(e, n->a));
  e->indent--;
  emit_put(e, 0, "coro_resume_%d:;", n->resume_point);
  e->indent++;
}

/* The items of a block, with the directives kept between them. */
static void emit_items(Emitter *e, Node *block) {
  int prev = block->first + 1;
  for (int i = 0; i < block->kids.n; i++) {
    emit_directives(e, prev, block->kids.v[i]->first);
    emit_stmt(e, block->kids.v[i]);
    prev = block->kids.v[i]->last + 1;
  }
  emit_directives(e, prev, block->last);
}

/* The body of if/while/for/do/switch: a block, or one statement indented.
   A statement that prints as several gets braces of its own. */
static void emit_substmt(Emitter *e, int line, const char *header, Node *body) {
  /* a statement that lowers to several (a yield, an await, a task's return)
     gets braces of its own */
  bool several = body->kind != ND_BLOCK &&
                 (body->kind == ND_YIELD || body->kind == ND_RETURN || has_await(body));
  if (body->kind == ND_BLOCK || several) {
    emit_put(e, line, "%s%s{", header, *header ? " " : "");
    e->indent++;
    if (body->kind == ND_BLOCK) {
      emit_items(e, body);
    } else {
      emit_stmt(e, body);
    }
    e->indent--;
    emit_put(e, 0, "}");
    return;
  }
  emit_put(e, line, "%s", header);
  e->indent++;
  emit_stmt(e, body);
  e->indent--;
}

/* A loop body: `continue` in it is the loop's own again. */
static void emit_loop_body(Emitter *e, int line, const char *header, Node *body) {
  const char *saved = e->continue_label;
  e->continue_label = NULL;
  emit_substmt(e, line, header, body);
  e->continue_label = saved;
}

static void emit_for(Emitter *e, Node *n) {
  char *init = "";
  if (n->d->kind == ND_DECL) {
    char *inits = decl_inits(e, n->d, ", ");
    init = inits ? inits : "";
  } else if (n->d->a) {
    init = node_str(e, n->d->a);
  }
  char *header = format("for (%s;%s%s;%s%s)", init, n->a ? " " : "", n->a ? node_str(e, n->a) : "",
                  n->c ? " " : "", n->c ? node_str(e, n->c) : "");
  emit_loop_body(e, emit_line_of(e, n), header, n->b);
}

/* A loop whose condition (or step) awaits: the condition becomes
   statements at the top (or, for do-while, the bottom) of an endless loop.
     while (C) S   ->  for (;;) { ...C's awaits...; if (!(C)) break; S }
     do S while (C) -> for (;;) { S coro_cont_N:; ...; if (!(C)) break; }
   `continue` must still reach the condition and the step: where they come
   after the body, it becomes `goto coro_cont_N`. With `init_done`, a for
   loop's init (which awaits) was printed before the loop by the caller. */
static void emit_awaiting_loop(Emitter *e, Node *n, Node *cond, Node *step, bool cond_last,
                               bool init_done) {
  int line = emit_line_of(e, n);
  char *init = "";
  if (init_done) {
    ;
  } else if (n->kind == ND_FOR && n->d->kind == ND_DECL) {
    char *inits = decl_inits(e, n->d, ", ");
    init = inits ? inits : "";
  } else if (n->kind == ND_FOR && n->d->a) {
    init = node_str(e, n->d->a);
  }
  bool after = cond_last || has_await(step);
  char *plain_step = step && !has_await(step) ? node_str(e, step) : "";
  emit_put(e, line, "for (%s;;%s%s) {", init, *plain_step ? " " : "", plain_step);
  e->indent++;
  int open = e->open_blocks;
  if (cond && !cond_last) {
    emit_put(e, line, "if (!(%s)) break;", lower_await_expr(e, cond));
    close_blocks(e, open);
  }
  const char *saved = e->continue_label;
  bool saved_used = e->continue_used;
  e->continue_label = after ? format("coro_cont_%d", n->first) : NULL;
  e->continue_used = false;
  if (n->b->kind == ND_BLOCK)
    emit_items(e, n->b);
  else
    emit_stmt(e, n->b);
  bool used = e->continue_used;
  e->continue_label = saved;
  e->continue_used = saved_used;
  if (after && used) {
    e->indent--;
    emit_put(e, 0, "coro_cont_%d:;", n->first);
    e->indent++;
  }
  if (cond && cond_last) {
    emit_put(e, line, "if (!(%s)) break;", lower_await_expr(e, cond));
    close_blocks(e, open);
  }
  if (step && has_await(step)) {
    emit_put(e, line, "%s;", lower_await_expr(e, step));
    close_blocks(e, open);
  }
  e->indent--;
  emit_put(e, 0, "}");
}

static void emit_return(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  if (n->a) {
    char *value = lower_await_expr(e, n->a);
    if (e->co->returns_void)
      emit_put(e, line, "(void)(%s);", value);
    else
      emit_put(e, line, "coro_f->coro_result = %s;", value);
  }
  emit_put(e, line, "CORO_FINISH(coro_c);");
}

static void emit_stmt_kind(Emitter *e, Node *n);

/* A "fallthrough" comment before a case label tells the compiler that the
   fall into it is meant; comments are not kept otherwise, so this one is. */
static void keep_fallthrough_comment(Emitter *e, Node *label) {
  if (label->first == 0)
    return;
  const Token *prev = &e->toks->v[label->first - 1], *t = &e->toks->v[label->first];
  for (size_t i = token_end(prev); i + 4 <= t->offset; i++)
    if (strncasecmp(e->src->text + i, "fall", 4) == 0) {
      emit_put(e, 0, "/* fallthrough */");
      return;
    }
}

/* A statement; blocks that its `?:` awaits opened close after it. */
static void emit_stmt(Emitter *e, Node *n) {
  int open = e->open_blocks;
  emit_stmt_kind(e, n);
  close_blocks(e, open);
}

static void emit_stmt_kind(Emitter *e, Node *n) {
  int line = emit_line_of(e, n);
  drop_repl(e, 0);
  switch (n->kind) {
  case ND_BLOCK:
    emit_substmt(e, line, "", n);
    return;
  case ND_DECL:
    emit_decl(e, n);
    return;
  case ND_EXPR_STMT:
    if (has_await(n->a)) {
      char *value = lower_await_expr(e, n->a);
      if (n->a->kind == ND_AWAIT || (n->a->kind == ND_EXPR && n->a->flags == '?'))
        return;  /* `await op(...);` alone: nothing is left to do */
      if (n->a->kind == ND_EXPR && n->a->flags == ',')
        emit_put(e, line, "(void)%s;", value);  /* the value of a comma's right side, dropped */
      else
        emit_put(e, line, "%s;", value);
      return;
    }
    emit_put(e, line, "%s", node_str(e, n));
    return;
  case ND_CONTINUE:
    if (e->continue_label) {
      emit_put(e, line, "goto %s;", e->continue_label);
      e->continue_used = true;
      return;
    }
    emit_put(e, line, "%s", node_str(e, n));
    return;
  case ND_GOTO:
  case ND_BREAK:
  case ND_ASM_STMT:
  case ND_LABEL_DECL:
  case ND_STATIC_ASSERT:
    emit_put(e, line, "%s", node_str(e, n));
    return;
  case ND_IF:
    emit_substmt(e, line, format("if (%s)", lower_await_expr(e, n->a)), n->b);
    if (n->c) {
      int else_line = n->c->first > 0 ? e->toks->v[n->c->first - 1].line : line;
      emit_substmt(e, else_line, "else", n->c);
    }
    return;
  case ND_SWITCH:
    emit_substmt(e, line, format("switch (%s)", lower_await_expr(e, n->a)), n->b);
    return;
  case ND_WHILE:
    if (has_await(n->a)) {
      emit_awaiting_loop(e, n, n->a, NULL, false, false);
      return;
    }
    emit_loop_body(e, line, format("while (%s)", node_str(e, n->a)), n->b);
    return;
  case ND_DO:
    if (has_await(n->a)) {
      emit_awaiting_loop(e, n, n->a, NULL, true, false);
      return;
    }
    emit_loop_body(e, line, "do", n->b);
    emit_put(e, e->toks->v[n->last].line, "while (%s);", node_str(e, n->a));
    return;
  case ND_FOR:
    if (has_await(n->a) || has_await(n->c) || (n->d->kind == ND_DECL && has_await(n->d)) ||
        (n->d->kind == ND_EXPR_STMT && has_await(n->d->a))) {
      /* an init that awaits is printed before the loop (the tree stays as it is:
         the printer may run twice) */
      bool init_done = true;
      if (n->d->kind == ND_DECL && has_await(n->d))
        emit_awaiting_decl(e, n->d);
      else if (n->d->kind == ND_EXPR_STMT && has_await(n->d->a))
        emit_put(e, line, "%s;", lower_await_expr(e, n->d->a));
      else
        init_done = false;
      emit_awaiting_loop(e, n, n->a, n->c, false, init_done);
      return;
    }
    emit_for(e, n);
    return;
  case ND_RETURN:
    emit_return(e, n);
    return;
  case ND_YIELD:
    emit_yield(e, n);
    return;
  case ND_LABEL:
    e->indent--;
    emit_put(e, line, "%s:", n->tok->text);
    e->indent++;
    emit_stmt(e, n->b);
    return;
  case ND_CASE:
    e->indent--;
    keep_fallthrough_comment(e, n);
    if (n->c)
      emit_put(e, line, "case %s ... %s:", node_str(e, n->a), node_str(e, n->c));
    else
      emit_put(e, line, "case %s:", node_str(e, n->a));
    e->indent++;
    emit_stmt(e, n->b);
    return;
  case ND_DEFAULT:
    e->indent--;
    keep_fallthrough_comment(e, n);
    emit_put(e, line, "default:");
    e->indent++;
    emit_stmt(e, n->b);
    return;
  default:
    internal_error("unexpected statement kind %d", n->kind);
  }
}

/* }================================================================== */

/* {==================================================================
 * A coroutine's pieces
 * =================================================================== */

/* `int n` of `coroutine int fib(int n)` -> the creation function's header. */
char *emit_creation_header(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  return format("%scoro_t *%s%s", co->is_static ? "static " : "", co->name,
                range_str(e, f->first, f->last, &(Style){.raw = true}));
}

/* `typedef int coro_value_fib;`: the declared type without the function part. */
void emit_value_type(Emitter *e, Coroutine *co) {
  Node *d = co->declarator;
  Style st = {.name = d->tok, .name_text = format("coro_value_%s", co->name),
              .omit = d->kids.v[0], .collapse = true};
  emit_put(e, emit_line_of(e, co->decl), "typedef %s %s;", specs_str(e, co->specs, false),
           range_str(e, d->first, d->last, &st));
}

static void emit_hoisted_types(Emitter *e, Coroutine *co) {
  for (int i = 0; i < co->types.n; i++) {
    Node *t = co->types.v[i];
    if (t->kind == ND_TAGGED)
      emit_put(e, emit_line_of(e, t), "%s;", range_str(e, t->first, t->last, NULL));
    else
      emit_put(e, emit_line_of(e, t), "%s", node_str(e, t));
  }
}

/* `__typeof__(int[3]) coro_lit_1;`: a kept compound literal's field. */
static void emit_literal_field(Emitter *e, Node *lit) {
  Node *type = lit->a;
  Node init = {.kind = ND_INIT_LIST, .first = lit->first, .last = lit->last, .kids = lit->kids};
  char *t = type->b ? field_decl(e, type->a, type->b, &init, "", false) : specs_str(e, type->a, false);
  emit_put(e, emit_line_of(e, lit), "__typeof__(%s) %s;", t, lit->name);
}

static void emit_frame(Emitter *e, Coroutine *co) {
  emit_put(e, 0, "/* the frame of %s: its parameters and locals, kept across suspensions */",
           co->name);
  emit_put(e, 0, "struct coro_frame_%s {", co->name);
  e->indent++;
  emit_put(e, 0, "coro_t coro_base;  /* the runtime's header; must come first */");
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    Node *specs = n->kind == ND_PARAM ? n->a : n->c;
    Node *d = n->kind == ND_PARAM ? n->b : n->a;
    char *decl = field_decl(e, specs, d, n->kind == ND_PARAM ? NULL : n->b, n->sym->field,
                            n->kind == ND_PARAM);
    if (n->kind == ND_INIT_DECL) {  /* `int x __attribute__((aligned(16)))`: the attribute too */
      int end = n->b ? n->b->first - 2 : n->last;
      if (end > d->last)
        decl = format("%s %s", decl, range_str(e, d->last + 1, end, &(Style){.collapse = true}));
    }
    emit_put(e, emit_line_of(e, n), "%s;%s", decl, n->kind == ND_PARAM ? "  /* parameter */" : "");
  }
  for (int i = 0; i < co->literals.n; i++)
    emit_literal_field(e, co->literals.v[i]);
  if (!co->is_generator && !co->returns_void)
    emit_put(e, 0, "coro_value_%s coro_result;  /* what it returns, to the task awaiting it */", co->name);
  for (int i = 0; i < co->awaits.n; i++) {
    Node *n = co->awaits.v[i];
    int k = n->resume_point;
    if (!n->name) {
      emit_put(e, emit_line_of(e, n), "%s coro_aw_%d;  /* awaited */", n->type, k);
      continue;
    }
    emit_put(e, emit_line_of(e, n), "coro_t *coro_aw_%d;  /* the task awaited */", k);
    if (task_has_value(n->sym))
      emit_put(e, 0, "coro_value_%s coro_tmp_%d;  /* and its value */", n->name, k);
  }
  for (int k = 1; k <= co->nconds; k++)
    emit_put(e, 0, "int coro_cond_%d;  /* an && or || around an await */", k);
  e->indent--;
  emit_put(e, 0, "};");
}

static void emit_resume(Emitter *e, Coroutine *co) {
  Node *body = co->def->c;
  emit_put(e, 0, "/* the body of %s, resumed at resume_point */", co->name);
  /* the lines that make code are pinned to the definition's line: a
     debugger entering the function shows the coroutine's header, and a
     breakpoint on a line of the body finds only the body's code */
  int at = emit_line_of(e, co->decl);
  emit_put(e, at, "static bool coro_resume_%s(coro_t *coro_c, void *coro_out) {", co->name);
  e->indent++;
  emit_put(e, at, "struct coro_frame_%s *coro_f = (struct coro_frame_%s *)coro_c;", co->name,
           co->name);
  emit_put(e, 0, "(void)coro_f, (void)coro_out;");
  emit_put(e, at, "switch (coro_enter(coro_c)) {  /* running now; 0: from the start */");
  for (int i = 1; i <= co->nresume; i++)
    emit_put(e, at, "case %d: goto coro_resume_%d;  /* %s:%d */", i, i, e->src->name,
             co->resume_lines[i]);
  emit_put(e, 0, "}");
  /* the start of the body is run once, every other resume jumps past it:
     saying so lets the compiler lay the resume paths out straight */
  emit_put(e, at, "coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */");
  emit_items(e, body);
  emit_put(e, e->toks->v[body->last].line, "CORO_FINISH(coro_c);");
  e->indent--;
  emit_put(e, 0, "}");
}

static void emit_creation(Emitter *e, Coroutine *co) {
  int at = emit_line_of(e, co->decl);
  emit_put(e, 0, "/* %s(...) makes an instance and runs nothing yet (lazy start) */", co->name);
  emit_put(e, at, "%s {", emit_creation_header(e, co));
  e->indent++;
  emit_put(e, at, "struct coro_frame_%s *coro_f = (struct coro_frame_%s *)coro_frame_new("
           "sizeof *coro_f, _Alignof(struct coro_frame_%s), coro_resume_%s);",
           co->name, co->name, co->name, co->name);
  for (int i = 0; i < co->locals.n; i++) {
    Node *n = co->locals.v[i];
    if (n->kind == ND_PARAM)
      emit_put(e, at, "coro_f->%s = %s;", n->sym->field, n->sym->name);
  }
  if (!co->is_generator && !co->returns_void)
    emit_put(e, at, "coro_f->coro_base.result = &coro_f->coro_result;");
  if (co->is_generator)
    emit_put(e, at, "coro_f->coro_base.generator = 1;");
  emit_put(e, at, "return &coro_f->coro_base;");
  e->indent--;
  emit_put(e, 0, "}");
}

static void emit_coroutine(Emitter *e, Coroutine *co) {
  e->co = co;
  if (co->is_prototype) {
    emit_value_type(e, co);  /* an await of it reads its value as this type */
    emit_put(e, emit_line_of(e, co->decl), "%s;", emit_creation_header(e, co));
    return;
  }
  if (e->opt->backend == BACKEND_STACKFUL) {
    emit_stackful(e, co);
    return;
  }
  emit_put(e, 0, "/* coroutine %s (%s:%d), lowered by coroc into a state machine */", co->name,
           e->src->name, emit_line_of(e, co->decl));
  emit_value_type(e, co);
  /* macros defined in the body are defined here too: the frame may use them
     (`char buf[CAP];`); defined twice the same way, they are defined once.
     An #undef stays only where it stands, so after the body every macro is
     as the user left it. */
  for (int i = co->first; i <= co->last; i++)
    if (is_first_define(e, co, i))
      emit_directives(e, i, i + 1);
  emit_hoisted_types(e, co);
  emit_frame(e, co);
  emit_put(e, 0, "%s;  /* it may call itself */", emit_creation_header(e, co));
  redefine_macros(e, co, false);
  emit_resume(e, co);
  redefine_macros(e, co, true);
  emit_creation(e, co);
}

/* }================================================================== */

/* Copy the user's text between coroutines verbatim, and print each
   coroutine in its place. */
void emit(FILE *out, Source *src, Coroutine *cos, const Options *opt) {
  Emitter e = {.out = out, .src = src, .opt = opt, .toks = &src->original, .mapped = 1};
  size_t at = 0;
  bool included = false;
  for (Coroutine *co = cos; co; co = co->next) {
    Token *first = &src->original.v[co->first], *last = &src->original.v[co->last];
    fwrite(src->text + at, 1, first->offset - at, out);
    for (size_t i = at; i < first->offset; i++)
      e.mapped += src->text[i] == '\n';
    if (src->has_line_directives)
      e.mapped = 0, e.named = false;  /* the user's own #line may have moved the count */
    if (first->offset > 0 && src->text[first->offset - 1] != '\n') {
      fputc('\n', out);
      e.mapped = 0;
    }
    if (!included) {
      emit_put(&e, 0, "#include <coro.h>  /* added by coroc: the runtime of the coroutines below */");
      included = true;
    }
    emit_coroutine(&e, co);
    at = token_end(last);
    if (opt->line_directives && at < src->len)
      line_directive(&e, last->line);
    e.mapped = last->line;
  }
  fwrite(src->text + at, 1, src->len - at, out);
}
