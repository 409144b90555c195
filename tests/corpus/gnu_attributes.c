/* gnu_attributes.c: __attribute__ in every position GNU C allows it.
 *
 * Before and between declaration specifiers, after a declarator, between a declarator
 * and its initializer, after a function's parameter list in a prototype, before a
 * function definition and between its return type and name, on parameters (before
 * and after), on struct/union/enum types (after the keyword and after the closing
 * brace), on members and enumerators, on typedefs, after a pointer star, on labels, as
 * a statement (fallthrough), on local variables, function pointers and arrays; the
 * __attribute spelling, __name__ spellings of attribute names, several attributes in one
 * list, attributes with arguments (strings, numbers, identifiers), empty attribute lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdarg.h>

__attribute__((unused)) static int before_specifiers;
static __attribute__((unused)) int between_specifiers;
static int after_declarator __attribute__((unused));
static int before_initializer __attribute__((aligned(16))) = 16;
static int multiple __attribute__((unused, aligned(8))) = 8;
static int spelled __attribute__((__unused__, __aligned__(32)));
static int two_lists __attribute__((unused)) __attribute__((aligned(4)));
static int empty_list __attribute__(()) = 1;
static int short_spelling __attribute((unused)) = 2;
int __attribute__((aligned(64))) between_type_and_name = 64;

/* prototypes with attributes after the parameter list */
static int pure_square(int x) __attribute__((const));
static void fail(const char *why) __attribute__((noreturn, cold));
static int logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void *make(size_t n) __attribute__((malloc, alloc_size(1), warn_unused_result));
__attribute__((nonnull(1))) static size_t len(const char *s);

static int pure_square(int x) { return x * x; }
static void fail(const char *why) { fprintf(stderr, "%s\n", why); exit(3); }
static char logbuf[128];
static int logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(logbuf, sizeof logbuf, fmt, ap);
    va_end(ap);
    return n;
}
static void *make(size_t n) { return calloc(1, n); }
static size_t len(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

/* definitions with attributes before the function and after the return type */
__attribute__((noinline)) static int not_inlined(int x) { return x + 1; }
static inline __attribute__((always_inline)) int always(int x) { return x * 2; }
static int __attribute__((noinline, used)) in_the_middle(int x) { return x - 1; }
__attribute__((unused)) static int never_called(void) { return 0; }
__attribute__((deprecated("use something else"), unused)) static inline int old_api(void) { return 0; }
static int __attribute__((warn_unused_result)) must_use(void) { return 9; }

/* parameters */
static int params(int used, int unused_after __attribute__((unused)),
                  __attribute__((unused)) int unused_before, int *__attribute__((unused)) p)
{
    return used + (p != NULL);
}

/* types */
struct __attribute__((packed)) packed_after_keyword { char c; int i; };
struct packed_after_brace { char c; int i; } __attribute__((packed));
struct member_attrs {
    char c;
    int aligned_member __attribute__((aligned(16)));
    short packed_member __attribute__((packed));
    int __attribute__((aligned(8))) before_name;
};
union __attribute__((aligned(32))) aligned_union { int i; char c; };
enum __attribute__((packed)) small_enum { SMALL_A, SMALL_B = 200 };
enum with_deprecated {
    ENUM_NEW = 1,
    ENUM_OLD __attribute__((deprecated)) = 2,
    ENUM_LAST
};
typedef int aligned_int __attribute__((aligned(16)));
typedef int __attribute__((vector_size(8))) v2si;
typedef struct { short s; } __attribute__((aligned(8))) aligned_struct_t;
__attribute__((unused)) typedef long unused_typedef;

/* function pointers and arrays */
static int (*fp_attr)(int) __attribute__((unused)) = not_inlined;
static int table[4] __attribute__((aligned(32))) = {1, 2, 3, 4};

static int switch_with_fallthrough(int n)
{
    int r = 0;
    switch (n) {
    case 0:
        r += 1;
        __attribute__((fallthrough));
    case 1:
        r += 10;
        __attribute__ ((__fallthrough__));
    default:
        r += 100;
    }
    return r;
}

static int labels(int n)
{
    int r = 0;
unused_label: __attribute__((unused));
    r += n;
    if (r < 5) goto used_label;
    return r;
used_label: __attribute__((__unused__));
    r *= 10;
    return r;
}

int main(void)
{
    int local __attribute__((unused));
    __attribute__((unused)) int local2;
    int local_init __attribute__((aligned(32))) = 5;
    static int static_local __attribute__((used)) = 6;
    int *__attribute__((unused)) star_attr;
    char buf[8] __attribute__((aligned(16))) = "buf";
    void (*local_fp)(const char *) __attribute__((unused)) = fail;
    aligned_int ai = 7;
    aligned_struct_t as = {3};
    v2si vec = {1, 2};
    char *mem = make(4);

    printf("globals %d %d %d %d %d %d\n", before_initializer, multiple, spelled, empty_list, short_spelling,
           between_type_and_name);
    printf("aligned %d %d %d\n", (int)((size_t)&before_initializer % 16), (int)((size_t)&between_type_and_name % 64),
           (int)((size_t)table % 32));
    printf("functions %d %d %d %d %d\n", pure_square(7), not_inlined(1), always(4), in_the_middle(10), must_use());
    printf("logf %d %s\n", logf_("%s=%d", "x", 42), logbuf);
    printf("len %zu mem %d\n", len("attributes"), mem[3]);
    free(mem);
    printf("params %d\n", params(5, 0, 0, NULL));
    printf("sizes %zu %zu %zu %zu %zu %zu\n", sizeof(struct packed_after_keyword), sizeof(struct packed_after_brace),
           sizeof(struct member_attrs), _Alignof(union aligned_union), sizeof(enum small_enum),
           _Alignof(aligned_struct_t));
    printf("offsets %zu %zu %zu\n", offsetof(struct member_attrs, aligned_member),
           offsetof(struct member_attrs, packed_member), offsetof(struct member_attrs, before_name));
    printf("enum %d %d\n", ENUM_NEW, ENUM_LAST);
    printf("locals %d %d %s %d %d %d %d %zu\n", local_init, static_local, buf, ai, as.s, vec[0], vec[1],
           _Alignof(aligned_int));
    printf("fallthrough %d %d %d\n", switch_with_fallthrough(0), switch_with_fallthrough(1),
           switch_with_fallthrough(2));
    printf("labels %d %d\n", labels(2), labels(7));
    if (fp_attr(1) != 2) fail("fp_attr");
    return 0;
}
