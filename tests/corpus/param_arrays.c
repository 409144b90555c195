/* param_arrays.c: array declarators in parameters, C99 and C11.
 *
 * The qualifiers and `static` that may stand inside the brackets of a parameter's
 * array declarator ([const], [restrict], [volatile], [static 4], [static const 4],
 * [const static 4], [const restrict static 2]), the unspecified-size VLA form [*]
 * and [const *] of prototypes, all of them in named and in abstract (unnamed)
 * parameters of prototypes, in definitions, in multi-dimensional arrays, in
 * pointers to arrays, in function pointer parameters and typedefs, and VLA
 * parameters whose size is an earlier parameter or an expression of several.
 */
#include <stdio.h>
#include <stddef.h>

/* prototypes of the functions defined below, in the same form (gcc's
   -Wvla-parameter wants a prototype and its definition to agree) */
void fill(int n, int a[const n]);
void fill2(int n, int a[restrict n]);
int sum_static(int a[static 4]);
int sum_static_const(const int a[static const 4]);
int sum_const_static(const int a[const static 4]);
int first_of(int n, int a[n]);
int grid_sum(int rows, int cols, int g[rows][cols]);
size_t row_size(int n, int (*row)[n]);
int pick(int n, int m, int a[static restrict n][m]);
void copy_n(int n, int *restrict dst, const int src[restrict n]);
int volatile_first(volatile int a[volatile 2]);
int all_quals(int a[const volatile restrict static 2]);

/* prototypes only, never defined nor called: [*] and its qualified forms */
void star_named(int n, int a[const *]);
void star_restrict(int n, int a[restrict *]);
int star_plain(int n, int a[*]);
int star_grid(int rows, int cols, int g[*][*]);
int star_inner(int rows, int cols, int g[rows][*]);
size_t star_row(int n, int (*row)[*]);
int star_volatile(int n, int a[volatile const *][*]);
void star_abstract(int, int [const *]);
int star_abstract2(int, int, int [*][*]);
size_t star_abstract3(int, int (*)[*]);
int star_abstract4(int, int [restrict *], char (*)[*]);

/* abstract (unnamed) parameters */
int sum_static_a(int [static 4]);
int sum_static_const_a(const int [static const 4]);
void copy_n_a(int, int *restrict, const int [restrict]);
int volatile_first_a(volatile int [volatile 2]);
int all_quals_a(int [const volatile restrict static 2]);
int apply(int (*f)(int, const int [static 1]), int);

/* [*] in function types: the functions below have [n] where these have [*] */
typedef int reducer(int n, const int [static n]);
typedef int (*reducer_ptr)(int, const int [*]);
typedef int grid_fn(int, int, int [*][*]);
typedef size_t (*row_fn)(int, int (*)[*]);

/* definitions */
void fill(int n, int a[const n])
{
    for (int i = 0; i < n; i++)
        a[i] = (i + 1) * (i + 1);
}

void fill2(int n, int a[restrict n])
{
    for (int i = 0; i < n; i++)
        a[i] = n - i;
}

int sum_static(int a[static 4]) { return a[0] + a[1] + a[2] + a[3]; }
int sum_static_const(const int a[static const 4]) { return a[0] * a[3]; }
int sum_const_static(const int a[const static 4]) { return a[1] * a[2]; }
int first_of(int n, int a[n]) { return n > 0 ? a[0] : -1; }

int grid_sum(int rows, int cols, int g[rows][cols])
{
    int s = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            s += g[r][c] * (r + 1);
    return s;
}

static int grid_sum2(int rows, int cols, int g[rows][cols]) { return grid_sum(rows, cols, g) + 1; }
size_t row_size(int n, int (*row)[n]) { return sizeof *row; }
int pick(int n, int m, int a[static restrict n][m]) { return a[n - 1][m - 1]; }

void copy_n(int n, int *restrict dst, const int src[restrict n])
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}

int volatile_first(volatile int a[volatile 2]) { return a[0] + a[1]; }
int all_quals(int a[const volatile restrict static 2]) { return a[0] - a[1]; }

int sum_static_a(int a[static 4]) { return sum_static(a) * 2; }
int sum_static_const_a(const int a[static const 4]) { return sum_static_const(a) + 1; }
void copy_n_a(int n, int *restrict d, const int s[restrict]) { copy_n(n, d, s); }
int volatile_first_a(volatile int a[volatile 2]) { return -volatile_first(a); }
int all_quals_a(int a[const volatile restrict static 2]) { return all_quals(a) * 3; }

static int twice_first(int n, const int a[static 1]) { return 2 * a[0] + n; }
int apply(int (*f)(int, const int [static 1]), int v) { int one[1] = { v }; return f(5, one); }

static int add_all(int n, const int a[static n])
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* an array of pointers to arrays, as a parameter and as a cast */
static int diag(int n, int (*rows[const])[3])
{
    return (*rows[0])[0] + (*rows[1])[n - 1];
}

/* the size of a VLA parameter may be any expression of earlier parameters */
static int last_of_product(int a, int b, int v[a * b + 1]) { return v[a * b]; }

int main(void)
{
    int a[6];
    fill(6, a);
    printf("fill %d %d %d\n", a[0], a[3], a[5]);
    fill2(4, a);
    printf("fill2 %d %d\n", a[0], a[3]);
    int four[4] = {1, 2, 3, 4};
    printf("static %d %d %d %d\n", sum_static(four), sum_static_const(four), sum_const_static(four),
           first_of(4, four));
    int g[2][3] = {{1, 2, 3}, {4, 5, 6}};
    printf("grid %d %d %zu\n", grid_sum(2, 3, g), grid_sum2(2, 3, g), row_size(3, &g[0]));
    printf("pick %d\n", pick(2, 3, g));
    int d[4];
    copy_n(4, d, four);
    printf("copy %d %d\n", d[0], d[3]);
    volatile int v2[2] = {7, 8};
    printf("volatile %d all %d\n", volatile_first(v2), all_quals(d));
    grid_fn *gf = grid_sum;
    row_fn rf = row_size;
    printf("abstract %d %d %d %zu\n", sum_static_a(four), sum_static_const_a(four), gf(2, 3, g),
           rf(3, &g[1]));
    copy_n_a(2, d, (const int[]){ 9, 10 });
    printf("abstract2 %d %d %d %d\n", d[0], d[1], volatile_first_a(v2), all_quals_a(four));
    reducer *red = add_all;
    reducer_ptr red2 = add_all;
    printf("reducers %d %d apply %d\n", red(4, four), red2(2, four), apply(twice_first, 20));
    int r0[3] = {1, 2, 3}, r1[3] = {4, 5, 6};
    int (*rows[2])[3] = { &r0, &r1 };
    printf("diag %d\n", diag(3, rows));
    int seven[7] = {0, 1, 2, 3, 4, 5, 6};
    printf("product %d\n", last_of_product(2, 3, seven));
    return 0;
}
