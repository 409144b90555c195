/* types_and_layouts.c: the arithmetic types of C11 and GNU C, and struct layouts.
 *
 * __int128 in every specifier order, the built-in typedef names __int128_t and
 * __uint128_t, _Complex with every real type and in both orders (and __complex__),
 * __float128, the _FloatN types and, for gcc only, _Float128, _Float32x, __float80,
 * _Decimal64, __builtin_sysv_va_list; __builtin_ms_va_list; the x86 named address
 * spaces __seg_fs and __seg_gs in pointer types; _Alignas with a constant and a type
 * on objects, members, block-scope and static locals; _Atomic as a qualifier, as
 * _Atomic(T) with pointers and structs, in casts and parameters; _Static_assert at
 * file scope, in a struct, in a union, in a block and in a statement expression;
 * empty structs and unions (a GNU extension: size 0), flexible array members (also
 * the last member of a struct inside a union), bit-fields (unnamed, zero-width,
 * _Bool, enum and typedef'd types, signed and unsigned, packed), anonymous structs
 * and unions nested in each other and designated through; GNU's obsolete designators
 * without `=` (`[1] 10`, `[3 ... 4] 20`, `y: 2`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <complex.h>
#include <stdatomic.h>

static __int128 i128 = (__int128)1 << 100;
static unsigned __int128 u128a = ~(unsigned __int128)0;
static __int128 unsigned u128b = 12345;
static signed __int128 s128 = -7;
static const __int128 volatile cv128 = 3;
static __int128_t builtin_i128 = -((__int128_t)1 << 70);
static __uint128_t builtin_u128 = (__uint128_t)1 << 127;
typedef __int128 i128_t;
typedef unsigned __int128 u128_t;

static _Complex double cd = 1.0 + 2.0 * I;
static double _Complex dc = 3.0 - 1.0 * I;
static _Complex float cf = 0.5f;
static float _Complex fc = 1.5f * I;
static long double _Complex ldc = 2.0L;
static _Complex long double cld = 4.0L * I;
static __complex__ double gnu_complex = 5.0;
static _Complex int ci = 3;

static __float128 f128 = 1.5;
static _Float32 f32 = 2.5f;
static _Float64 f64 = 3.5;

static __builtin_ms_va_list ms_list;
static int __seg_fs *fs_pointer;
static int __seg_gs *const gs_pointer = 0;

#ifndef __clang__
static _Float128 float128 = 8.25;
static _Float32x float32x = 9.5;
static _Float64x float64x = 10.75;
static __float80 float80 = 11.5;
static _Decimal64 dec64 = 12.5dd;
static __builtin_sysv_va_list sysv_list;
#endif

_Static_assert(sizeof(__int128) == 16, "__int128 is 16 bytes");

_Alignas(32) static char aligned_buf[8];
static _Alignas(double) char like_double[8];
static char _Alignas(16) mid_aligned[4];
struct aligned_members {
    char c;
    _Alignas(16) char sixteen;
    int _Alignas(8) eight;
    _Static_assert(1, "in a struct");
};

static _Atomic int atomic_plain = 1;
static _Atomic(long) atomic_spec = 2;
static int plain_target = 9;
static _Atomic(int *) atomic_ptr;
struct pair { int a, b; };
static _Atomic(struct pair) atomic_struct;
static int _Atomic *ptr_to_atomic = &atomic_plain;
static int add_atomic(_Atomic(int) *p, _Atomic int v) { return atomic_fetch_add(p, v) + v; }

struct empty {};
union empty_union {};
struct has_empty { int a; struct empty e; int b; };

struct flex { size_t n; int data[]; };
struct flex_hdr { char kind; double items[]; };
union holds_flex { struct { int n; char bytes[]; } s; long align; };

enum small { SMALL_A, SMALL_B, SMALL_C };
typedef unsigned int uint_t;
struct bits {
    unsigned a : 3;
    signed b : 4;
    int : 0;
    unsigned c : 5, : 3, d : 2;
    _Bool flag : 1;
    enum small e : 2;
    uint_t t : 6;
    long long wide : 40;
};
struct __attribute__((packed)) packed_bits { unsigned char lo : 4, hi : 4; unsigned short mid : 12; };

struct nest {
    int tag;
    union {
        struct { int x, y; };
        struct { long lo; union { short s; char ch; }; };
        double d;
    };
    struct { int inner_a; struct { int deep; }; };
};

union anon_u {
    struct { unsigned char b0, b1, b2, b3; };
    unsigned int word;
    _Static_assert(sizeof(unsigned int) == 4, "in a union");
};

#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-designator"
#endif
static int gnu_designated[6] = { [1] 10, [3 ... 4] 20, [5] = 30 };
static struct { int x, y; } gnu_fields = { y: 2, x: 1 };
#ifdef __clang__
#pragma clang diagnostic pop
#endif

static void print_u128(const char *label, unsigned __int128 v)
{
    char digits[64];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    printf("%s ", label);
    while (n)
        putchar(digits[--n]);
    putchar('\n');
}

int main(void)
{
    print_u128("i128", (unsigned __int128)i128);
    print_u128("u128a", u128a);
    print_u128("u128b", u128b);
    printf("s128 %d cv %d\n", (int)s128, (int)cv128);
    print_u128("builtin", (unsigned __int128)-builtin_i128);
    print_u128("builtin u", builtin_u128 >> 100);
    i128_t prod = (i128_t)3000000000LL * 3000000000LL;
    u128_t q = (u128_t)prod / 7;
    print_u128("prod", (unsigned __int128)prod);
    print_u128("q", q);

    printf("complex %.1f %.1f %.1f %.1f %.1f %.1f\n", creal(cd * dc), cimag(cd * dc), (double)crealf(cf),
           (double)cimagf(fc), (double)creall(ldc), (double)cimagl(cld));
    printf("gnu complex %.1f %.1f %d %d\n", __real__ gnu_complex, __imag__ gnu_complex, __real__ ci, __imag__ ci);
    printf("floats %.2f %.2f %.2f\n", (double)f128, (double)f32, (double)f64);
    (void)ms_list;
    printf("address spaces %d %d\n", fs_pointer == 0, gs_pointer == 0);
#ifndef __clang__
    (void)sysv_list;
    printf("gcc floats %.2f %.2f %.2f %.2f %d\n", (double)float128, (double)float32x, (double)float64x,
           (double)float80, (int)dec64);
#else
    printf("gcc floats %.2f %.2f %.2f %.2f %d\n", 8.25, 9.5, 10.75, 11.5, 12);
#endif

    _Alignas(64) char local_buf[4] = "abc";
    static _Alignas(16) int static_local = 5;
    printf("align %d %d %d %d %d %zu %zu\n", (int)((size_t)aligned_buf % 32), (int)((size_t)like_double % _Alignof(double)),
           (int)((size_t)mid_aligned % 16), (int)((size_t)local_buf % 64), (int)((size_t)&static_local % 16),
           offsetof(struct aligned_members, sixteen), offsetof(struct aligned_members, eight));

    atomic_store(&atomic_spec, 40);
    atomic_ptr = &plain_target;
    atomic_struct = (struct pair){ 1, 2 };
    int added = add_atomic(&atomic_plain, 10);
    printf("atomic %d %ld %d %d %d\n", added, (long)atomic_load(&atomic_spec),
           *atomic_ptr, *ptr_to_atomic, (int)sizeof(atomic_struct));
    _Static_assert(sizeof(atomic_plain) == sizeof(int), "in a block");
    int in_expr = ({ _Static_assert(1, "in a statement expression"); 3; });

    struct has_empty he = { 1, {}, 2 };
    printf("empty %zu %zu %zu %d\n", sizeof(struct empty), sizeof(union empty_union), sizeof(struct has_empty),
           he.a + he.b + in_expr);

    struct flex *f = malloc(sizeof *f + 3 * sizeof(int));
    f->n = 3;
    for (size_t i = 0; i < f->n; i++)
        f->data[i] = (int)(i * i);
    printf("flex %zu %d %zu %zu %zu\n", sizeof(struct flex), f->data[2], offsetof(struct flex_hdr, items),
           sizeof(union holds_flex), offsetof(union holds_flex, s.bytes));
    free(f);

    struct bits b = { 5, -3, 17, 2, 1, SMALL_C, 63, -(1LL << 38) };
    b.a += 4;
    printf("bits %u %d %u %u %d %d %u %lld %zu\n", b.a, b.b, b.c, b.d, b.flag, b.e, b.t, (long long)b.wide,
           sizeof(struct bits));
    struct packed_bits pb = { 0xA, 0x5, 0xFFF };
    printf("packed bits %u %u %u %zu\n", pb.lo, pb.hi, pb.mid, sizeof pb);

    struct nest n = { .tag = 1, .x = 2, .y = 3, .inner_a = 4, .deep = 5 };
    printf("anonymous %d %d %d %d %d\n", n.tag, n.x, n.y, n.inner_a, n.deep);
    n.lo = 0;
    n.s = 0x102;
    printf("anonymous2 %d %zu\n", n.s, sizeof n);
    printf("gnu designators %d %d %d %d %d %d\n", gnu_designated[0], gnu_designated[1], gnu_designated[3],
           gnu_designated[4], gnu_designated[5], gnu_fields.x * 10 + gnu_fields.y);
    union anon_u au = { .word = 0 };
    au.b1 = 1;
    printf("union %u\n", au.word);
    return 0;
}
