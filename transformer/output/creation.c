/* creation.c: the pieces of a coroutine's creation that both backends print.
 *
 * The value type (`typedef int coro_value_fib;`), the header of the
 * creation function (`coro_t *fib(int n)`), its parameter list, the kind of
 * its instances, and coro_in_NAME's linkage and declaration: printed alike
 * by emit_stackless.c and emit_stackful.c, by emit_header.c for other
 * files, and by emit.c for a coroutine's prototype. Here so that no
 * backend calls another, nor the driver of printing that calls them.
 */
#define _GNU_SOURCE
#include "output/output.h"

#include <string.h>

/* `int n` of `coroutine int fib(int n)` -> the creation function's header. */
char *emit_creation_header(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  /* a static one that is only ever awaited inline is never called */
  const char *unused = co->is_static && co->awaited_inline ? "__attribute__((unused)) " : "";
  return format("%s%scoro_t *%s%s", unused, co->is_static ? "static " : "", co->name,
                range_str(e, f->first, f->last, &(Style){.raw = true}));
}

/* The kind of its instances (enum coro_kind), as both backends' creation
   functions pass it. */
const char *emit_kind_of(const Coroutine *co) {
  const char *kind = co->is_async       ? "CORO_GENERATOR | CORO_TASK"
                     : co->is_generator ? "CORO_GENERATOR"
                                        : "CORO_TASK";
  return co->runs_cleanups ? format("%s | CORO_CLEANUP", kind) : kind;
}

/* coro_in_NAME is a static inline of the .c, seen by the compiler wherever
   the file uses it; with --header, the header declares it for other files,
   and a coroutine with external linkage gets an external one (emit_header.c
   says why not an inline in the header). */
const char *emit_in_linkage(Emitter *e, Coroutine *co) {
  return e->opt->header && !co->is_static ? "" : "static inline __attribute__((unused)) ";
}

/* An external coro_in_NAME is declared before its definition, as the
   header declares it (so that -Wmissing-prototypes has nothing to say). */
void emit_in_declaration(Emitter *e, Coroutine *co) {
  if (!*emit_in_linkage(e, co)) {
    char *params = emit_param_list(e, co);
    emit_put(e, emit_line_of(e, co->decl),
             "coro_t *coro_in_%s(struct coro_frame_%s *coro_f%s%s);  "
             "/* (in the header too) */",
             co->name, co->name, *params ? ", " : "", params);
  }
}

/* From here to the end of the file, coro_next and coro_free take a
   generator's frame itself too (`coro_next(&frame, &v)`, `coro_free(&frame)`,
   frame a CORO_FRAME(NAME)): by the type of what they are given, they call
   this generator's coro_next_in_NAME and coro_free_in_NAME (each backend
   prints its own, just before), another generator's of the file, or for any
   other type (coro_t * among them) what they called before. Chosen at
   compile time, so that no instance of another generator, nor the trace,
   has a way to this one on the path: the compiler can keep an instance in a
   local in registers (docs/abi.md, "The frame itself"). The lists of types
   grow one macro a generator (CORO_NEXT_FRAMES_N), not one line each. */
void emit_frame_dispatch(Emitter *e, Coroutine *co) {
  int n = ++e->nframes_by_type;
  const char *before_next = n > 1 ? format("CORO_NEXT_FRAMES_%d ", n - 1) : "";
  const char *before_free = n > 1 ? format("CORO_FREE_FRAMES_%d ", n - 1) : "";
  emit_put(e, 0, "#define CORO_NEXT_FRAMES_%d %sstruct coro_frame_%s *: coro_next_in_%s,", n,
           before_next, co->name, co->name);
  emit_put(e, 0, "#define CORO_FREE_FRAMES_%d %sstruct coro_frame_%s *: coro_free_in_%s,", n,
           before_free, co->name, co->name);
  const char *next = e->next_by_name_last ? format("CORO_NEXT_TO_%d(out, coro_next_of_%s)",
                                                   e->nnext_by_name, e->next_by_name_last)
                                          : "coro_next";
  emit_put(e, 0, "#undef coro_next");
  emit_put(e, 0,
           "#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_%d default: %s)(gen, out)"
           "  /* from here on */",
           n, next);
  emit_put(e, 0, "#undef coro_free");
  emit_put(e, 0,
           "#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_%d default: coro_free_inline)(c)"
           "  /* from here on */",
           n);
}

/* "int n, char *s" of `(int n, char *s)`; "" of `(void)` and `()`. */
char *emit_param_list(Emitter *e, Coroutine *co) {
  Node *f = co->declarator->kids.v[0];
  char *text = range_str(e, f->first, f->last, &(Style){.raw = true});
  char *open = strchr(text, '('), *close = strrchr(text, ')');
  if (!open || !close || close < open)
    internal_error("the parameter list of %s: '%s'", co->name, text);
  char *inner = xstrndup(open + 1, (size_t)(close - open - 1));
  char *s = inner;
  while (*s == ' ' || *s == '\t' || *s == '\n')
    s++;
  if (!*s || strcmp(s, "void") == 0)
    return "";
  return inner;
}

/* `typedef int coro_value_fib;`: the declared type without the function part,
   and unqualified, as C takes a return type (`coroutine const int f()`,
   `coroutine char *restrict f()`): the yield stores through the type, and a
   pointer to it goes where a `void *` does. A qualifier written is left out;
   one a typedef gives, or a volatile (which a pointer to the type would
   keep), goes with the type of the value of an lvalue of the type, which C
   leaves unqualified. */
void emit_value_type(Emitter *e, Coroutine *co) {
  Node *d = co->declarator;
  Node *outer = d->kids.n > 1 ? d->kids.v[1] : NULL;
  Style st = {.name = d->tok,
              .name_text = format("coro_value_%s", co->name),
              .omit = d->kids.v[0],
              .collapse = true,
              .unconst = outer && outer->kind == ND_POINTER ? outer : NULL,
              .unqualify = true};
  char *specs = specs_str(e, co->specs, outer ? 0 : SPECS_CONST);
  int q = outer ? 0 : typedef_qualifiers(co->specs, 0);
  if (q || (!outer && (specs_qualifiers(co->specs, e->toks) & (QUAL_VOLATILE | QUAL_RESTRICT))))
    specs = format("__typeof__(((void)0, *(%s *)0))", specs);
  emit_put(e, emit_line_of(e, co->decl), "typedef %s %s;", specs,
           range_str(e, d->first, d->last, &st));
}
