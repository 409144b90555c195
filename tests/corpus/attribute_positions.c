/* attribute_positions.c: GNU attributes in every place gcc takes them.
 *
 * __attribute__ and __attribute, with one or several attributes, empty and nested
 * parentheses: before and among the declaration specifiers, after the declarator
 * (objects, functions, members, typedefs), before each declarator of a list but the
 * first, at the start of a parenthesized declarator (`int (__attribute__((x)) *p)`),
 * in abstract declarators of casts, sizeof and prototypes, after a `*` with and
 * between qualifiers, after `struct`/`union`/`enum` and after the closing brace, on
 * enumerators, on parameters (before, after, and in a parenthesized declarator), with
 * an asm label before them, on labels (`lbl: __attribute__((unused));`), on null
 * statements (fallthrough), before a statement after a label, on a block-scope
 * declaration after a label, and (gcc only: clang 14 refuses them in gnu11) the
 * standard [[...]] attributes, with arguments and prefixes, in their C23 places.
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define UNUSED __attribute__((unused))

static int add_one_later(int x);

/* specifiers and declarators */
__attribute__((unused)) static int before_specs;
static __attribute__((unused)) int among_specs;
static int __attribute__((unused)) after_type;
static int after_declarator __attribute__((unused));
static int with_init __attribute__((unused)) = 4, second __attribute__((unused)) = 5;
static int list_head = 1, __attribute__((unused)) list_second = 2, __attribute__((unused)) *list_ptr;
static int __attribute((unused)) old_spelling, __attribute__(()) empty_attr = 6;
static int several __attribute__((unused, aligned(16))) = 7;
static int stacked __attribute__((unused)) __attribute__((aligned(8))) = 8;
static int (__attribute__((unused)) nested_name) = 9;
static int (__attribute__((unused)) *nested_ptr) = &with_init;
static int (__attribute__((unused)) (*nested_fp))(int) = add_one_later;
static int *__attribute__((unused)) after_star;
static int *const __attribute__((unused)) volatile between_quals = &second;
static int *__attribute__((unused)) *__attribute__((unused)) two_levels;
static int asm_then_attr __asm__("corpus_asm_then_attr") __attribute__((unused)) = 10;

/* functions */
__attribute__((noinline)) static int add1(int x) { return x + 1; }
static int add_one_later(int x) { return x + 1; }
static __attribute__((noinline)) int add2(int x) { return x + 2; }
static int __attribute__((noinline)) add3(int x) { return x + 3; }
static int add4(int x) __attribute__((const, noinline));
static int add4(int x) { return x + 4; }
static int (__attribute__((noinline)) add5)(int x) { return x + 5; }
int declared_twice(void) __attribute__((pure)), declared_too(void) __attribute__((pure));
int declared_twice(void) { return 11; }
int declared_too(void) { return 12; }
static void (*__attribute__((unused)) fp_var)(void);
static int (*(__attribute__((unused)) returns_fp)(void))(int) { return add1; }

/* types */
struct __attribute__((packed)) packed_after_kw { char c; int i; };
struct packed_after_brace { char c; int i; } __attribute__((packed));
struct __attribute__((aligned(32))) both;
struct both { char c; } __attribute__((aligned(32)));
union __attribute__((unused)) u_attr { int i; float f; } __attribute__((aligned(8)));
enum __attribute__((packed)) small_enum { SE_A, SE_B __attribute__((unused)), SE_C __attribute__((unused)) = 5 };
struct members {
    int a __attribute__((aligned(8)));
    __attribute__((aligned(16))) char b;
    char __attribute__((aligned(4))) c;
    int bits : 3 __attribute__((unused));
    int (__attribute__((unused)) *mp)[2];
    char tail[] __attribute__((aligned(8)));
};
typedef int aligned_int __attribute__((aligned(8)));
typedef int __attribute__((aligned(16))) aligned_int2;
typedef int (__attribute__((unused)) *fn_t)(int);
typedef int vec4 __attribute__((vector_size(16)));
typedef struct { int x; } __attribute__((aligned(64))) cache_line;

/* parameters */
static int params(int a __attribute__((unused)), __attribute__((unused)) int b, int __attribute__((unused)) c,
                  int (__attribute__((unused)) d), char *__attribute__((unused)) e, int (__attribute__((unused)) *f)[2])
{
    return a + b + c + d + (int)strlen(e) + (*f)[1];
}
int proto_attrs(int __attribute__((unused)), int (__attribute__((unused)) *)(void), int *__attribute__((unused)));

static int statements(int x)
{
    int result = 0;
    switch (x) {
    case 1:
        result += 1;
        __attribute__((fallthrough));
    case 2:
        result += 10;
        __attribute__((__fallthrough__));
    default:
        result += 100;
        break;
    }
    goto skip;
skip: __attribute__((unused));
    result += 1000;
again: __attribute__((unused)) __attribute__(()) ;
    if (result < 2000) { result += 1000; goto again; }
    return result;
}

/* casts, sizeof and compound literals with attributes in their type names */
static int type_names(void)
{
    int (*fp)(int) = (int (__attribute__((may_alias)) *)(int)) add1;
    void *vp = (void *)&second;
    int *ip = (int *__attribute__((may_alias)))vp;
    size_t s1 = sizeof(int (__attribute__((may_alias)) *)[3]);
    size_t s2 = sizeof(__attribute__((may_alias)) int);
    size_t s3 = sizeof(struct { int a __attribute__((aligned(16))); });
    return fp(1) + *ip + (int)s1 + (int)s2 + (int)s3;
}

#ifndef __clang__
/* the standard attributes, which gcc takes in gnu11 as in C23 */
[[gnu::unused]] static int std_before;
static int std_after [[gnu::unused]];
static int std_array [[gnu::unused]] [3];
struct [[gnu::packed]] std_packed { char c; int i; };
enum std_enum { STD_A [[deprecated("use STD_B")]], STD_B };
static int *[[gnu::unused]] std_after_star;
[[gnu::noinline, gnu::unused]] static int std_fn([[maybe_unused]] int x, int y [[maybe_unused]]) { return 42; }
[[gnu::aligned(sizeof(int[4]))]] static char std_aligned[4] = "abc";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
int gnu_array_attr(int [__attribute__((unused)) 2], int a[const __attribute__((unused)) static 2]);
#pragma GCC diagnostic pop
static int std_statements(int x)
{
    [[maybe_unused]] int local = x;
    switch (x) {
    case 1:
        x += 1;
        [[fallthrough]];
    case 2:
        x += 10;
        [[gnu::fallthrough]];
    default:
        break;
    }
    [[maybe_unused]] lbl: ;
    return x;
}
#endif

int main(void)
{
    printf("vars %d %d %d %d %d %d %d\n", with_init, second, list_head, list_second, empty_attr, several, stacked);
    printf("nested %d %d %d %d\n", nested_name, *nested_ptr, asm_then_attr, nested_fp(1));
    printf("aligned %d %d\n", (int)((size_t)&several % 16), (int)((size_t)&stacked % 8));
    printf("fns %d %d %d %d %d %d %d %d\n", add1(0), add2(0), add3(0), add4(0), add5(0), declared_twice(),
           declared_too(), returns_fp()(5));
    printf("types %zu %zu %zu %zu %zu\n", sizeof(struct packed_after_kw), sizeof(struct packed_after_brace),
           _Alignof(struct both), _Alignof(union u_attr), sizeof(enum small_enum));
    printf("members %zu %zu %zu\n", offsetof(struct members, b), offsetof(struct members, c), _Alignof(struct members));
    printf("typedefs %zu %zu %zu %zu\n", _Alignof(aligned_int), _Alignof(aligned_int2), sizeof(vec4), _Alignof(cache_line));
    fn_t f = add2;
    int two[2] = {3, 4};
    printf("params %d %d\n", params(1, 2, 3, 4, "five", &two), f(1));
    printf("statements %d %d %d\n", statements(1), statements(2), statements(3));
    printf("type names %d\n", type_names());
    printf("enum %d %d %d\n", SE_A, SE_B, SE_C);
    (void)between_quals;
#ifndef __clang__
    printf("std %d %zu %d %d %d %s\n", std_fn(1, 2), sizeof(struct std_packed), std_statements(1), STD_B,
           (int)sizeof std_array / (int)sizeof std_array[0], std_aligned);
#else
    printf("std %d %zu %d %d %d %s\n", 42, (size_t)5, 12, 1, 3, "abc");
#endif
    return 0;
}
