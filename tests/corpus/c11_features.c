/* c11_features.c: the C11 keywords and the C99 features around them.
 *
 * _Alignas (with a constant and with a type, on objects and members), _Alignof,
 * _Static_assert at file scope, block scope and inside a struct, _Generic (nested,
 * with qualified, pointer, struct and function pointer types, default first), _Noreturn,
 * _Thread_local (static, extern and block-scope static), _Atomic as qualifier and as
 * specifier _Atomic(T) with stdatomic.h operations, the stdalign.h / stdnoreturn.h /
 * stdatomic.h / uchar.h spellings, _Bool, _Complex, inline, restrict, __func__, long
 * long, mixed declarations and code, C99 for declarations, VLAs and sizeof of a VLA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdalign.h>
#include <stdnoreturn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <assert.h>
#include <complex.h>
#include <uchar.h>

_Static_assert(sizeof(int) >= 2, "int is at least 16 bits");
static_assert(_Alignof(char) == 1, "char alignment");

struct aligned_members {
    char c;
    _Alignas(16) int sixteen;
    _Alignas(double) char like_double;
    alignas(32) short thirty_two;
    _Static_assert(1 + 1 == 2, "inside a struct");
};

_Alignas(64) static char cache_line[64];
static alignas(long long) char ll_buf[16];

_Thread_local int tls_counter = 1;
static _Thread_local int tls_static = 2;
extern _Thread_local int tls_extern;
_Thread_local int tls_extern = 3;

_Atomic int atomic_counter = 0;
static _Atomic(long) atomic_total = 10;
static atomic_int via_typedef = 5;
static _Atomic(int *) atomic_ptr;
struct with_atomic { _Atomic unsigned hits; int plain; };

_Noreturn static void finish(int code);
noreturn static void finish2(int code);

static void finish(int code) { exit(code); }
static void finish2(int code) { finish(code); }

static inline int sum_restrict(int n, const int *restrict a, const int *restrict b)
{
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i] + b[i];
    return s;
}

static const char *fn_name(void) { return __func__; }

#define KIND(x) _Generic((x),                   \
    default: "other",                           \
    _Bool: "bool",                              \
    char: "char",                               \
    signed char: "schar",                       \
    unsigned char: "uchar",                     \
    short: "short",                             \
    int: "int",                                 \
    long: "long",                               \
    long long: "llong",                         \
    unsigned long long: "ullong",               \
    float: "float",                             \
    double: "double",                           \
    long double: "ldouble",                     \
    const char *: "const char*",                \
    char *: "char*",                            \
    int *: "int*",                              \
    struct aligned_members: "struct",           \
    double _Complex: "complex",                 \
    void (*)(int): "handler")

static int tls_bump(void)
{
    static _Thread_local int calls;
    return ++calls;
}

int main(void)
{
    _Static_assert(sizeof(long long) >= 8, "block scope");
    printf("alignof %zu %d %zu %d\n", _Alignof(struct aligned_members), alignof(max_align_t) >= 8,
           _Alignof(struct with_atomic), (int)((size_t)ll_buf % alignof(long long)));
    printf("offsets %zu %zu %zu size %zu\n", offsetof(struct aligned_members, sixteen),
           offsetof(struct aligned_members, like_double), offsetof(struct aligned_members, thirty_two),
           sizeof(struct aligned_members));
    _Alignas(32) int local_aligned = 7;
    alignas(16) char local_buf[3] = "ab";
    printf("aligned locals %d %d %s %d\n", local_aligned, (int)((size_t)&local_aligned % 32),
           local_buf, (int)((size_t)cache_line % 64));

    printf("tls %d %d %d", tls_counter++, tls_static, tls_extern);
    tls_bump();
    printf(" %d %d\n", tls_counter, tls_bump());

    atomic_counter++;
    atomic_counter += 5;
    atomic_fetch_add(&atomic_counter, 10);
    long old = atomic_exchange(&atomic_total, 99);
    int expected = 5;
    bool swapped = atomic_compare_exchange_strong(&via_typedef, &expected, 50);
    int target = 8;
    atomic_store(&atomic_ptr, &target);
    struct with_atomic wa = {.plain = 1};
    atomic_init(&wa.hits, 3u);
    wa.hits += 2;
    printf("atomic %d %ld %ld %d %d %d %u\n", atomic_load(&atomic_counter), old, atomic_load(&atomic_total),
           swapped, atomic_load(&via_typedef), *atomic_load(&atomic_ptr), atomic_load(&wa.hits));
    atomic_flag flag = ATOMIC_FLAG_INIT;
    bool was_set = atomic_flag_test_and_set(&flag);
    printf("flag %d %d\n", was_set, atomic_flag_test_and_set(&flag));

    const char *cs = "s";
    char *ms = (char *)"m";
    int iv = 0, *ip = &iv;
    const int civ = 1;
    struct aligned_members am = {0};
    double _Complex z = 1.0 + 2.0 * I;
    void (*h)(int) = finish;
    printf("generic %s %s %s %s %s %s %s %s\n", KIND((_Bool)1), KIND('c'), KIND((signed char)1),
           KIND((unsigned char)1), KIND((short)1), KIND(1), KIND(1L), KIND(1LL));
    printf("generic %s %s %s %s %s %s %s\n", KIND(1ULL), KIND(1.0f), KIND(1.0), KIND(1.0L), KIND(cs), KIND(ms),
           KIND(ip));
    printf("generic %s %s %s %s %s %s\n", KIND(am), KIND(z), KIND(h), KIND(civ), KIND(1u), KIND((void *)0));
    printf("generic nested %d\n", _Generic(_Generic(1, int: 1.0, default: 1), double: 2, default: 3));
    printf("complex %.1f %.1f %.1f\n", creal(z * z), cimag(z * z), cabs(3.0 + 4.0 * I));

    _Bool b = 5;
    bool t = true, f = false;
    printf("bool %d %d %d %zu\n", b, t, f, sizeof(_Bool));
    char16_t c16 = u'\u00e9';
    char32_t c32 = U'\U0001F600';
    printf("uchar %#x %#x %zu %zu\n", (unsigned)c16, (unsigned)c32, sizeof(u"ab") / sizeof(char16_t),
           sizeof(U"abc") / sizeof(char32_t));
    printf("u8 %zu\n", sizeof(u8"\u00e9"));

    int a[3] = {1, 2, 3}, c[3] = {10, 20, 30};
    printf("restrict %d\n", sum_restrict(3, a, c));
    printf("func %s %s\n", fn_name(), __func__);
    long long big = 9223372036854775807LL;
    unsigned long long ubig = 18446744073709551615ULL;
    printf("long long %lld %llu\n", big, ubig);
    for (int n = 1; n <= 3; n++) {
        int vla[n * 2];
        for (int i = 0; i < n * 2; i++) vla[i] = i;
        printf("vla %zu %d\n", sizeof vla, vla[n * 2 - 1]);
    }
    assert(tls_counter == 2);
    if (atomic_counter != 16) finish2(1);
    return 0;
}
