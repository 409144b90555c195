/* declarators.c: every declarator form C11 has.
 *
 * Pointers with qualifiers, arrays (sized, unsized, multi-dimensional, static/qualified
 * array parameters, variable-length and [*]), functions, pointers to functions,
 * functions returning pointers to functions, arrays of pointers to functions returning
 * pointers to arrays, parenthesised declarators, several declarators in one declaration,
 * block-scope function declarations, and abstract declarators in casts, sizeof,
 * _Alignof, _Generic associations and parameter lists.
 */
#include <stdio.h>
#include <stddef.h>

/* file-scope objects with assorted declarators */
int scalar = 1, *ptr_to_scalar = &scalar, array3[3] = {1, 2, 3}, (paren_scalar) = 4;
int ((double_paren)) = 5;
int *array_of_ptrs[2] = {&scalar, &paren_scalar};
int (*ptr_to_array)[3] = &array3;
int matrix[2][3] = {{1, 2, 3}, {4, 5, 6}};
int (*row_ptr)[3] = matrix;
const int *volatile ptr_volatile = &scalar;
int *const const_ptr = &double_paren;
int *const *volatile ptr_ptr = &const_ptr;
const int *const const_ptr_to_const = &scalar;
int const *const *const ptr_ptr_const = &const_ptr_to_const;
extern int unsized[];
int unsized[] = {10, 20, 30, 40};
int tentative;
int tentative;

/* one typedef declaring several kinds of type at once */
typedef int I, *IP, IA[3], (*IFP)(void), IF(int);

/* functions with every kind of parameter declarator */
static int add(int a, int b) { return a + b; }
static int sub(int, int);
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

/* a function returning a pointer to a function (int, int) -> int */
static int (*pick(int which))(int, int)
{
    return which == 0 ? add : which == 1 ? sub : mul;
}

/* a pointer to such a function: pointer to function returning pointer to function */
static int (*(*picker)(int))(int, int) = pick;

/* a function returning a pointer to an array of 3 ints */
static int (*get_row(int i))[3] { return &matrix[i]; }

/* array of 2 pointers to functions returning pointer to array of 3 int */
static int (*(*row_getters[2])(int))[3] = {get_row, get_row};

/* function returning pointer to function returning pointer to char */
static char *greeting(void) { return "hello"; }
static char *(*get_greeter(void))(void) { return greeting; }

/* array parameters: static, qualifiers, multi-dimensional, VLA */
static int sum_static(const int a[static 3]) { return a[0] + a[1] + a[2]; }
static int sum_const(int n, int a[const]) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
static int first_restrict(int a[restrict 1]) { return a[0]; }
static int sum_matrix(int rows, int m[][3]) {
    int s = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < 3; c++) s += m[r][c];
    return s;
}
int never_defined_vla(int n, int m[*][*]);            /* [*] only in prototypes */
static int trace_vla(int n, int m[n][n]);
static int trace_vla(int n, int m[n][n]) {
    int t = 0;
    for (int i = 0; i < n; i++) t += m[i][i];
    return t;
}
static int apply(int (*f)(int, int), int x, int y) { return f(x, y); }
static int apply2(int f(int, int), int x, int y) { return f(x, y); }   /* function parameter adjusts to pointer */
static int call_noargs(int (*)(void));                 /* abstract declarator parameter */
static int forty_two(void) { return 42; }
static int call_noargs(int (*g)(void)) { return g(); }
static size_t count_chars(const char *restrict s, char const *const restrict t) {
    size_t n = 0;
    const char *u = t;
    while (*s++) n++;
    while (*u++) n++;
    return n;
}

/* pointer to pointer to pointer */
static int deref3(int ***ppp) { return ***ppp; }
static int reg_param(register int r, register const int c) { return r * c; }
IF square_it;
int square_it(int v) { return v * v; }

/* an old-style empty parameter list and a (void) list */
static int no_proto();
static int no_proto() { return 7; }

int main(void)
{
    int x = 3, *px = &x, **ppx = &px, ***pppx = &ppx;
    int arr[4] = {1, 2, 3, 4}, (*parr)[4] = &arr, *aptr[2] = {&arr[0], &arr[3]};
    int local_fn(int);      /* block-scope function declaration */
    int (y) = 9;
    int (*fp)(int, int) = add, (*fps[3])(int, int) = {add, sub, mul};
    int (**pfp)(int, int) = &fps[2];
    char *(*(*gg)(void))(void) = get_greeter;

    printf("scalars %d %d %d %d %d\n", scalar, *ptr_to_scalar, paren_scalar, double_paren, y);
    printf("array_of_ptrs %d %d\n", *array_of_ptrs[0], *array_of_ptrs[1]);
    printf("ptr_to_array %d %d\n", (*ptr_to_array)[1], ptr_to_array[0][2]);
    printf("row_ptr %d %d\n", row_ptr[1][1], (*(row_ptr + 1))[2]);
    printf("qualified %d %d %d %d\n", *ptr_volatile, *const_ptr, **ptr_ptr, **ptr_ptr_const);
    printf("unsized %zu %d tentative %d\n", sizeof unsized / sizeof unsized[0], unsized[3], tentative);
    printf("pick %d %d %d\n", pick(0)(6, 3), pick(1)(6, 3), (*pick(2))(6, 3));
    printf("picker %d\n", picker(2)(7, 6));
    printf("get_row %d %d\n", (*get_row(1))[0], (*row_getters[0](0))[2] + (*row_getters[1](1))[2]);
    printf("greeter %s\n", get_greeter()());
    printf("gg %s\n", (*gg)()());
    printf("array params %d %d %d %d\n", sum_static(arr), sum_const(4, arr), first_restrict(arr + 2),
           sum_matrix(2, matrix));
    {
        int n = 3;
        int vla[n][n];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) vla[i][j] = i * n + j;
        printf("vla trace %d sizeof %zu\n", trace_vla(n, vla), sizeof vla);
    }
    printf("apply %d %d %d\n", apply(fp, 2, 5), apply2(mul, 2, 5), apply(*pfp, 3, 3));
    printf("fps %d %d %d\n", fps[0](1, 1), (*fps[1])(1, 1), (**fps[2])(2, 2));
    printf("call_noargs %d no_proto %d\n", call_noargs(forty_two), no_proto());
    printf("count %zu\n", count_chars("abc", "de"));
    printf("deref %d %d %d %d\n", deref3(pppx), **ppx, *aptr[1], (*parr)[2]);
    printf("local_fn %d\n", local_fn(5));
    {
        extern int scalar;                 /* block-scope extern */
        I i = 2;
        IP ip = &i;
        IA ia = {1, 2, 3};
        IFP ifp = forty_two;
        printf("typedefs %d %d %d %d %d %d\n", scalar + i, *ip, ia[2], ifp(), square_it(4), reg_param(3, 4));
    }

    /* abstract declarators: casts, sizeof, _Alignof, compound literal types, _Generic */
    printf("sizeof int* %zu\n", sizeof(int *));
    printf("sizeof int*[3] %zu\n", sizeof(int *[3]));
    printf("sizeof int(*)[3] %zu\n", sizeof(int (*)[3]));
    printf("sizeof int[2][5] %zu\n", sizeof(int[2][5]));
    printf("sizeof int(*)(void) %zu\n", sizeof(int (*)(void)));
    printf("sizeof int(*[4])(int) %zu\n", sizeof(int (*[4])(int)));
    printf("sizeof int(*(*)(int))(int,int) %zu\n", sizeof(int (*(*)(int))(int, int)));
    printf("sizeof char(*(*[3])(void))[5] %zu\n", sizeof(char (*(*[3])(void))[5]));
    printf("sizeof const volatile int *const %zu\n", sizeof(const volatile int *const));
    printf("alignof double[4] %zu\n", _Alignof(double[4]));
    printf("alignof char(*)[7] %zu\n", _Alignof(char (*)[7]));
    {
        void *vp = arr;
        int (*cast_arr)[4] = (int (*)[4])vp;
        int (*cast_fn)(int, int) = (int (*)(int, int))fps[2];
        int (*(*cast_picker)(int))(int, int) = (int (*(*)(int))(int, int))picker;
        printf("casts %d %d %d\n", (*cast_arr)[3], cast_fn(4, 4), cast_picker(0)(1, 2));
        printf("generic %d %d %d %d\n",
               _Generic(parr, int (*)[4]: 1, default: 0),
               _Generic(fp, int (*)(int, int): 2, default: 0),
               _Generic(picker, int (*(*)(int))(int, int): 3, default: 0),
               _Generic(aptr, int **: 4, int *(*)[2]: 5, default: 0));
        printf("compound %d %zu\n", (int *[2]){&x, &y}[1][0], sizeof (int (*[3])(int, int)){add, sub, mul});
        printf("offset %td\n", &arr[3] - (int *)arr);
    }
    return 0;
}

int local_fn(int v) { return v * v; }
