/* typedef_scopes.c: typedef names and ordinary identifiers hiding each other.
 *
 * A parser of C must know, at every point, whether an identifier names a type.
 * This file redeclares typedef names as variables, parameters, enum constants and
 * functions pointers in inner scopes (and the reverse), uses `T T = ...;`, a typedef
 * name as a label, a struct tag and a member name, `(T)` as a cast where T is a type
 * and as a parenthesised expression where it is a variable, `(T)(x)` as a cast and as
 * a call, typedefs of function and array types, typedef redefinition (C11) and
 * prototype-scope shadowing (`int (*cb)(T T), T v`).
 */
#include <stdio.h>
#include <stddef.h>

typedef int T;
typedef int T;                      /* C11: a typedef may be redefined to the same type */
typedef T *TP;
typedef T A3[3];                    /* typedef of an array type */
typedef T F(T);                     /* typedef of a function type */
typedef F *FP;
typedef struct T { T T; TP p; } S;  /* struct tag T, member T of type T */
typedef unsigned size;              /* a typedef named like a common word */

int U = 40;                         /* a variable that a block later hides with a typedef */

F triple;                           /* declares the function int triple(int) */
int triple(int x) { return 3 * x; }
static FP fp_table[2] = {triple, triple};

static int param_named_T(int T) { return T * 2; }             /* the parameter hides the typedef */
static int param_of_type_T(T x, TP px) { return x + *px; }
static int abstract_param(T);                                   /* unnamed parameter of type T */
static int abstract_param(T v) { return v - 1; }
static int fn_param(int (T));                                   /* int (T) is a function taking a T */
static int fn_param(int (*f)(T)) { return f(5); }
static int with_cb(int (*cb)(T T), T v) { return cb(v) + (T)1; } /* T T in the nested prototype only */
static int both_orders(T y, int T) { return y * 10 + T; }

static int shadowing(void)
{
    int r = 0;
    T a = 1;                        /* T is a type */
    r += (T) + 1;                   /* a cast of +1 */
    r += a;
    {
        int T = 10;                 /* T is now a variable */
        r += (T) + 1;               /* a parenthesised expression: 11 */
        r += T * 2;                 /* multiplication, not a pointer declaration */
        r += sizeof T;              /* sizeof an expression */
        {
            typedef char T;         /* and a type again */
            T c = 'a';
            r += sizeof(T) + (c == 'a');
        }
        r += T;                     /* the int variable is visible again */
    }
    {
        T T = 5;                    /* type T, then variable T */
        r += T;
        r += sizeof(T);             /* sizeof the variable (int) */
    }
    {
        enum { T = 7, V };          /* an enum constant hides the typedef */
        r += T + V;
    }
    {
        int (*T)(int) = triple;     /* a function pointer called T */
        r += (T)(4);                /* a call, not a cast */
    }
    r += (T)(4.9);                  /* a cast */
    for (int T = 0; T < 3; T++)     /* a for declaration hides the typedef for the loop */
        r += T;
    T after = 100;                  /* T is a type again */
    r += after;
    return r;
}

static int typedef_hides_variable(void)
{
    int r = U;                      /* the file-scope variable */
    {
        typedef long U;             /* U is a type in this block */
        U big = 3;
        r += (int)big + (int)sizeof(U);
    }
    U += 2;                         /* a variable again */
    return r + U;
}

static int label_named_T(void)
{
    int n = 0;
    goto T;
    n = 1000;
T:                                  /* labels have their own name space */
    n++;
    if (n < 3) goto T;
    return n;
}

static int members_named_T(void)
{
    T v = 6;
    S s = {.T = 4, .p = &v};
    struct T t2 = {2, NULL};
    S *ps = &s;
    return s.T + ps->T + *ps->p + t2.T + (int)offsetof(S, T);
}

static int typedef_arrays(void)
{
    A3 a = {1, 2, 3};
    A3 *pa = &a;
    A3 m[2] = {{1, 1, 1}, {2, 2, 2}};
    return (int)(sizeof(A3) / sizeof(T)) + (*pa)[2] + m[1][0];
}

static int declarations_with_parens(void)
{
    T (x) = 3;                      /* parenthesised declarator */
    T (*px) = &x;
    T (*(pf))(T) = triple;
    F *direct = triple;
    return *px + pf(x) + direct(1) + fp_table[1](2);
}

static int local_typedef_in_generic(void)
{
    typedef double D;
    D d = 1.5;
    return _Generic(d, D: 1, int: 2, default: 3) + _Generic((T)d, T: 10, default: 20);
}

int main(void)
{
    T v = 2;
    size n = 7;
    printf("shadowing %d\n", shadowing());
    printf("hides variable %d\n", typedef_hides_variable());
    printf("label %d\n", label_named_T());
    printf("members %d\n", members_named_T());
    printf("arrays %d\n", typedef_arrays());
    printf("parens %d\n", declarations_with_parens());
    printf("generic %d\n", local_typedef_in_generic());
    printf("params %d %d %d %d %d %d\n", param_named_T(21), param_of_type_T(v, &v), abstract_param(v),
           fn_param(triple), with_cb(triple, 3), both_orders(4, 2));
    printf("size %u\n", n);
    {
        int size = 3;               /* a variable hides the typedef named size */
        printf("size var %d\n", size * 2);
    }
    size m = n + 1u;
    printf("size type %u\n", m);
    return 0;
}
