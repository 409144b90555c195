/* typeof_generic_builtins.c: the operators of C11 and GNU C that take type names.
 *
 * typeof / __typeof__ / __typeof of expressions and of type names in every place a
 * type can stand: declaration specifiers (with qualifiers and storage classes around
 * them), struct members, parameters and return types, casts, sizeof, _Alignof,
 * compound literals, _Generic associations, typedefs, nested typeof, typeof of a
 * function, an array, a statement expression; __auto_type for objects of every kind;
 * _Generic with every kind of type name (qualified, pointer, array pointer, function
 * pointer, struct, union, enum, typedef, typeof) and default anywhere; __builtin_offsetof
 * and offsetof with nested members, array indexes and expression indexes (and gcc's
 * `->` in a member designator); __builtin_types_compatible_p; __builtin_choose_expr;
 * __builtin_va_arg and va_arg with pointer, struct and function pointer types;
 * __builtin_convertvector; and (gcc only) __builtin_has_attribute.
 */
#include <stdio.h>
#include <stddef.h>
#include <stdarg.h>
#include <string.h>

struct point { int x, y; };
union number { int i; double d; };
enum color { RED, GREEN, BLUE };
typedef struct point point_t;

struct inner { char tag; int vals[4]; struct point pts[3]; };
struct outer { double d; struct inner in[2]; union { long l; struct point p; } u; };

static int counter = 10;
static typeof(counter) same_as_counter = 20;
static __typeof__(int) *int_ptr = &counter;
static const __typeof(counter) const_copy = 30;
static typeof(int[3]) three = { 1, 2, 3 };
static typeof(typeof(int) *) ptr_of_typeof = &same_as_counter;
static typeof(struct point) origin = { 0, 0 };
typedef typeof(origin) typeof_point;
static typeof(int (*)(int)) fn_ptr_typeof;

static int twice(int v) { return 2 * v; }
static typeof(twice) thrice;
static int thrice(int v) { return 3 * v; }
static typeof(twice) *pick_fn(int which) { return which ? thrice : twice; }

struct with_typeof {
    typeof(counter) a;
    __typeof__(char[4]) name;
    typeof(struct point) *link;
    typeof(twice) *op;
};

static typeof(counter) sum_typeof(typeof(counter) a, __typeof__(a) b) { return a + b; }

#define KIND(x) _Generic((x),                                       \
    default: "other",                                               \
    int: "int",                                                     \
    const char *: "const char *",                                   \
    char *: "char *",                                               \
    int (*)[3]: "int (*)[3]",                                       \
    int (*)(int): "int (*)(int)",                                   \
    struct point: "struct point",                                   \
    union number: "union number",                                   \
    enum color *: "enum color *",                                   \
    typeof(origin) *: "struct point *",                             \
    unsigned long long: "unsigned long long",                       \
    double: "double")

static int sum_va(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int s = 0;
    for (int i = 0; i < n; i++) {
        int *p = va_arg(ap, int *);
        struct point pt = __builtin_va_arg(ap, struct point);
        int (*f)(int) = va_arg(ap, int (*)(int));
        s += *p + pt.x * pt.y + f(i);
    }
    va_end(ap);
    return s;
}

typedef int v4si __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));

int main(void)
{
    printf("typeof %d %d %d %d %d %d %zu\n", same_as_counter, *int_ptr, const_copy, three[2], *ptr_of_typeof,
           origin.x, sizeof(typeof_point));
    fn_ptr_typeof = twice;
    printf("typeof fns %d %d %d %d\n", fn_ptr_typeof(4), thrice(4), pick_fn(1)(5), pick_fn(0)(5));
    struct with_typeof w = { 1, "abc", &origin, twice };
    printf("members %d %s %d %d %d\n", w.a, w.name, w.link->y, w.op(w.a), sum_typeof(2, 3));

    __auto_type a = 5;
    __auto_type b = 2.5;
    __auto_type p = &three[1];
    __auto_type s = "str";
    __auto_type pt = (struct point){ 3, 4 };
    __auto_type fp = twice;
    const __auto_type c = a + 1;
    static __auto_type st = 7;
    printf("auto %s %s %s %s %s %s %d %d\n", KIND(a), KIND(b), KIND(*p), KIND(s), KIND(pt), KIND(fp), c, st);

    typeof(a) t1 = (typeof(a))b;
    typeof(p) t2 = (typeof(int *))p + 1;
    typeof(({ a + 1; })) t3 = sizeof(typeof(a)) + _Alignof(typeof(b));
    typeof(typeof(a)[2]) t4 = { 8, 9 };
    typeof(&t4) t5 = &t4;
    typeof(origin) *t6 = &(typeof(origin)){ 6, 7 };
    printf("typeof exprs %d %d %d %d %d %d\n", t1, *t2, t3, t4[1], (*t5)[0], t6->y);

    char buf[4];
    union number n = { 1 };
    enum color col = BLUE;
    int (*arr_ptr)[3] = &three;
    printf("generic %s %s %s %s %s %s %s %s %s\n", KIND(buf), KIND((const char *)buf), KIND(arr_ptr),
           KIND(&twice), KIND(n), KIND(&col), KIND(&origin), KIND(1ULL), KIND(1.0f));
    printf("generic types %d %d\n",
           _Generic((point_t *)0, struct point *: 1, default: 0),
           _Generic(&three, typeof(int[3]) *: 2, int *: 3, default: 0));

    printf("offsetof %zu %zu %zu %zu %zu\n", offsetof(struct outer, in[1].vals[2]),
           __builtin_offsetof(struct outer, in[0].pts[2].y), __builtin_offsetof(struct outer, u.p.y),
           offsetof(struct inner, pts[1]), __builtin_offsetof(struct outer, in[a - 4].tag));
#ifndef __clang__
    printf("offsetof arrow %zu %zu\n", __builtin_offsetof(struct outer, in->pts[1].x),
           __builtin_offsetof(struct outer, in[1].pts->y));
#else
    printf("offsetof arrow %zu %zu\n", offsetof(struct outer, in[0].pts[1].x), offsetof(struct outer, in[1].pts[0].y));
#endif

    printf("compatible %d %d %d %d %d %d\n", __builtin_types_compatible_p(int, typeof(a)),
           __builtin_types_compatible_p(int[3], typeof(three)),
           __builtin_types_compatible_p(int[], int[3]),
           __builtin_types_compatible_p(const int, int),
           __builtin_types_compatible_p(struct point, point_t),
           __builtin_types_compatible_p(int (*)(int), typeof(&twice)));
    printf("choose %d %s\n", __builtin_choose_expr(sizeof(int) == 4, 40, 80.0),
           __builtin_choose_expr(__builtin_types_compatible_p(typeof(b), double), "double", 0));

    struct point q1 = { 1, 2 }, q2 = { 3, 4 };
    int one = 1, two = 2;
    printf("va %d\n", sum_va(2, &one, q1, twice, &two, q2, thrice));

    v4si vi = { 1, 2, 3, 4 };
    v4sf vf = __builtin_convertvector(vi, v4sf);
    v4sf vf2 = __builtin_convertvector(vi * 2, typeof(vf));
    printf("convert %.1f %.1f\n", (double)vf[3], (double)vf2[1]);
#ifndef __clang__
    printf("has_attribute %d %d %d\n", __builtin_has_attribute(twice, noinline),
           __builtin_has_attribute(struct point, aligned), __builtin_has_attribute(v4si, vector_size));
#else
    printf("has_attribute %d %d %d\n", 0, 0, 1);
#endif
    return 0;
}
