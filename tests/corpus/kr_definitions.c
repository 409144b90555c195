/* kr_definitions.c: old-style (K&R) function definitions in all their forms, and implicit int.
 *
 * Identifier lists with declarations in another order, several names per declaration,
 * pointer, array (adjusted to pointer), function and function pointer parameters,
 * struct, union, enum and typedef'd parameter types, const, volatile and register
 * parameters, a local of the body named like the typedef of a parameter, definitions that
 * return pointers, pointers to arrays and pointers to functions, static and inline
 * ones, attributes before them, asm labels on their declarations, unprototyped
 * declarations (`int f();`) called with arguments, prototypes followed by an old-style
 * definition with promoted types, an empty identifier list, and comments and line
 * breaks between the parts. Implicit int, which gcc and clang still take with a
 * warning (silenced here): static, const, extern, typedef, register and auto without a
 * type, at file and block scope and in a for, on members and bit-fields, on
 * parameters of both kinds of definition, and definitions without any specifier
 * (`main() { ... }`, `twice(x) { ... }`, whose parameter defaults to int too).
 */
#include <stdio.h>
#include <string.h>

typedef int count_t;
typedef struct pair { int a, b; } pair_t;
union val { int i; double d; };
enum op { OP_ADD, OP_MUL };

int order(c, a, b)
    int b;
    char *c;
    long a;
{
    return (int)a * 100 + b * 10 + (int)strlen(c);
}

int several(a, b, c, d) int a, *b, c[], (*d)(int);
{
    return a + *b + c[1] + d(a);
}

static int twice(x) int x; { return 2 * x; }

int typed(p, u, e, n) pair_t p; union val u; enum op e; count_t n;
{
    return e == OP_ADD ? p.a + p.b + u.i + n : p.a * p.b * u.i * n;
}

int qualified(a, b, c) const int a; volatile int b; register int c;
{
    return a - b + c;
}

/* count_t is a typedef outside; in the body, a local takes the name */
int shadow(n) count_t n; { int count_t = n; return count_t + 1; }

char *returns_pointer(s, n) char *s; int n; { return s + n; }

static int table[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
int (*returns_row(i))[3] int i; { return &table[i]; }

int (*returns_fn(which))(int) int which; { return which ? twice : 0; }

static inline int inline_old(a) int a; { return a * a; }

__attribute__((noinline)) int attributed(a) int a; { return a + 7; }

int renamed_old() __asm__("corpus_renamed_old");
int renamed_old(a) int a; { return a - 1; }

int unprototyped();
int unprototyped(a, b) int a; double b; { return a + (int)b; }

int promoted(int, double);
int promoted(c, f) char c; float f; { return c + (int)f; }

int no_params() { return 42; }

int
spread    /* a comment between the name and the list */
(
    first,   /* the first */
    second   /* the second */
)
    int first;    /* declared here */
    int second;
    /* a comment before the body */
{
    return first * second;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-int"
#pragma GCC diagnostic ignored "-Wreturn-type"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmissing-parameter-type"
#endif
static implicit_counter = 5;
const implicit_limit = 10;
static *implicit_pointer = &implicit_counter, implicit_pair[2] = { 1, 2 };
extern implicit_external;
int implicit_external = 7;
typedef *implicit_pointer_t;
struct implicit_members { const a; volatile b : 4, *c; unsigned d; };
static implicit_twice(x) { return 2 * x; }
static implicit_add(a, b) register a; { return a + b; }
static implicit_params(register x, const y) { return x + y; }
tally(n)
{
    register total = 0;
    auto step = 1;
    for (register i = 0; i < n; i += step)
        total += i;
    return total;
}
#pragma GCC diagnostic pop

static void implicit_int(void)
{
    implicit_pointer_t p = &implicit_counter;
    struct implicit_members m = { 1, 2, &implicit_external, 3 };
    printf("implicit %d %d %d %d %d %d %d %d %d\n", implicit_counter, implicit_limit,
           *implicit_pointer + implicit_pair[1], implicit_external, *p, m.a + m.b + *m.c + (int)m.d,
           implicit_twice(4) + implicit_add(1, 2), implicit_params(3, 4), tally(5));
}

int main(argc, argv)
    int argc;
    char **argv;
{
    implicit_int();
    int y = 5, arr[3] = { 7, 8, 9 };
    pair_t p = { 2, 3 };
    union val u = { 4 };
    printf("order %d\n", order("abc", 1L, 2));
    printf("several %d\n", several(1, &y, arr, twice));
    printf("typed %d %d\n", typed(p, u, OP_ADD, 1), typed(p, u, OP_MUL, 2));
    printf("qualified %d shadow %d\n", qualified(10, 3, 1), shadow(41));
    printf("pointer %s row %d fn %d\n", returns_pointer("hello", 2), (*returns_row(1))[2], returns_fn(1)(21));
    printf("inline %d attributed %d renamed %d\n", inline_old(6), attributed(1), renamed_old(100));
    printf("unprototyped %d promoted %d none %d spread %d\n", unprototyped(1, 2.5), promoted('A', 1.5f),
           no_params(), spread(6, 7));
    printf("argc %d %d\n", argc > 0, argv[0] != 0);
    return 0;
}
