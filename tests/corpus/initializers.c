/* initializers.c: initializer lists, designators and compound literals.
 *
 * Scalars in braces, nested braces, trailing commas, string initializers for char
 * arrays (with and without braces, exact fit without the NUL), designated
 * initializers (.member, [index], chained .a.b[2].c, mixed with positional ones),
 * GNU array ranges [lo ... hi], designators with constant expressions and enum
 * constants, unions, GNU empty braces {}, compound literals at file and block scope
 * (as lvalues, with designators, of array, struct and scalar type), static locals
 * with address constants.
 */
#include <stdio.h>
#include <string.h>

enum { LO = 2, HI = 5, N = 8 };

struct point { int x, y; };
struct rect { struct point tl, br; const char *name; };
struct poly { int n; struct point pts[4]; int tags[3]; };
union num { int i; double d; unsigned char bytes[8]; };
struct with_union { int kind; union num val; };

/* file scope */
static int scalar_braced = {17};
static int plain[] = {1, 2, 3,};
static int sized[6] = {1, 2};
static int designated[N] = {[1] = 10, [N - 1] = 70, [3] = 30, 40};
static int ranged[10] = {[0 ... 2] = 1, [LO + 2 ... HI + 2] = 5, [9] = 9};
static char str1[] = "hello";
static char str2[5] = "world";              /* exactly fits, no terminating NUL */
static char str3[] = {"braced"};
static char str4[10] = {'c', 'h', 'a', 'r', 's'};
static const char *words[] = {"alpha", "beta", [4] = "epsilon", [2] = "gamma"};
static struct point origin = {0, 0};
static struct point p_desig = {.y = 5, .x = 3};
static struct rect r_nested = {.tl = {.x = 1, .y = 2}, .br.x = 7, .br.y = 8, .name = "box"};
static struct rect r_positional = {{1, 2}, {3, 4}, "pos"};
static struct poly poly = {.n = 3, .pts = {[0] = {0, 0}, [2].x = 5, [2].y = 6, [1] = {.y = 9}},
                           .tags[1] = 11};
static struct poly polys[2] = {[1].pts[3].y = 99, [0].n = 1};
static union num u_first = {42};
static union num u_desig = {.d = 2.5};
static struct with_union wu = {.kind = 1, .val.bytes = {[0] = 0xAB}};
static struct point pts_arr[] = {{1, 1}, [3] = {3, 3}, {4, 4}};
static int matrix[3][3] = {[0] = {1, 2, 3}, [2] = {[2] = 9}, [1][1] = 5};
static int *file_compound = (int[]){100, 200, 300};
static struct point *file_cpt = &(struct point){.x = -1, .y = -2};
static int empty_gnu[3] = {};
static struct point empty_struct = {};
static int *addr_const = &plain[2];
static const char *str_ptr = &"pointer"[3];

static int sum(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}

static int area(struct rect r) { return (r.br.x - r.tl.x) * (r.br.y - r.tl.y); }

static int counter(void) {
    static int calls = 0;
    static int *pcalls = &calls;
    return ++*pcalls;
}

int main(void)
{
    printf("scalar %d\n", scalar_braced);
    printf("plain %zu %d\n", sizeof plain / sizeof *plain, sum(plain, 3));
    printf("sized %d %d %d\n", sized[0], sized[1], sized[5]);
    for (int i = 0; i < N; i++) printf("%d%c", designated[i], i == N - 1 ? '\n' : ' ');
    for (int i = 0; i < 10; i++) printf("%d%c", ranged[i], i == 9 ? '\n' : ' ');
    printf("strings %s %zu %.5s %zu %s %s %zu\n", str1, sizeof str1, str2, sizeof str2, str3, str4, sizeof str4);
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) printf("[%u]=%s ", i, words[i] ? words[i] : "(null)");
    printf("\n");
    printf("points %d %d %d %d\n", origin.x, origin.y, p_desig.x, p_desig.y);
    printf("rects %d %d %d %d %s %s area %d\n", r_nested.tl.x, r_nested.tl.y, r_nested.br.x, r_nested.br.y,
           r_nested.name, r_positional.name, area(r_positional));
    printf("poly %d (%d,%d) (%d,%d) (%d,%d) tags %d %d %d\n", poly.n, poly.pts[0].x, poly.pts[0].y,
           poly.pts[1].x, poly.pts[1].y, poly.pts[2].x, poly.pts[2].y, poly.tags[0], poly.tags[1], poly.tags[2]);
    printf("polys %d %d %d\n", polys[0].n, polys[1].n, polys[1].pts[3].y);
    printf("unions %d %.2f %d %#x\n", u_first.i, u_desig.d, wu.kind, wu.val.bytes[0]);
    printf("pts_arr %zu %d %d %d\n", sizeof pts_arr / sizeof pts_arr[0], pts_arr[3].x, pts_arr[4].y, pts_arr[2].x);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) printf("%d%s", matrix[i][j], j == 2 ? "\n" : ",");
    printf("file compound %d %d %d\n", file_compound[1], file_cpt->x, file_cpt->y);
    printf("gnu empty %d %d %d\n", empty_gnu[0] + empty_gnu[2], empty_struct.x, empty_struct.y);
    printf("addr const %d %s\n", *addr_const, str_ptr);

    /* block scope */
    int a = {5}, b = a * 2, c[] = {a, b, a + b};
    struct point lp = {.x = a, .y = b};
    struct point lq = lp;
    struct rect lr = {.br = lq, .tl = {c[0], c[1]}};
    int la[5] = {[4] = 4, [1 ... 3] = a};
    char lbuf[16] = "local";
    char ltail[8] = {[6] = 'z'};
    double dd[] = {1.5, [3] = 3.5};
    printf("locals %d %d %d %d %d\n", a, b, c[2], lp.x + lp.y, lr.br.y);
    printf("la %d %d %d %d %d\n", la[0], la[1], la[2], la[3], la[4]);
    printf("lbuf %s %zu %d %c %zu\n", lbuf, strlen(lbuf), lbuf[15], ltail[6], sizeof dd / sizeof dd[0]);

    /* compound literals as values, lvalues, pointers and arguments */
    int *cl = (int[]){3, 1, 4, 1, 5};
    (int[2]){0, 0}[0] = 3;                                /* assigning to a compound literal is legal */
    struct point *cp = &(struct point){.y = 8};
    cp->x = 6;
    printf("compound %d %d %d %d\n", sum(cl, 5), cp->x, cp->y, (struct point){1, 2}.y);
    printf("compound arg %d %d\n", sum((int[]){1, 2, 3, 4}, 4), area((struct rect){.br = {2, 3}}));
    printf("compound const %s %d\n", (const char *[]){"x", "y", "z"}[2], (const int){7});
    printf("compound nested %d\n", ((struct poly){.pts[1] = {.x = 12}}).pts[1].x);
    struct point arr2[2];
    arr2[0] = (struct point){.x = 1, .y = 2};
    arr2[1] = (struct point){arr2[0].y, arr2[0].x};
    printf("assign from compound %d %d\n", arr2[1].x, arr2[1].y);
    for (int i = 0; i < 3; i++) {
        int *fresh = (int[]){i, i * i};           /* a new object on each iteration */
        printf("loop %d %d\n", fresh[0], fresh[1]);
    }
    counter();
    counter();
    printf("counter %d\n", counter());
    return 0;
}
