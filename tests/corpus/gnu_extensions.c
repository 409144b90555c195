/* gnu_extensions.c: the GNU C extensions that real code uses (gcc and clang both).
 *
 * Statement expressions ({ ... }) and macros built on them, typeof / __typeof__ /
 * __typeof, __auto_type, __extension__, __label__ local labels, computed goto (&&label,
 * goto *p, label tables), case ranges, x ?: y, __int128, _Complex with __real__ /
 * __imag__ and imaginary constants, vector types, __builtin_offsetof, __builtin_va_arg
 * and friends, __builtin_expect / _constant_p / _types_compatible_p / _choose_expr /
 * overflow builtins / bit builtins, inline assembly (basic, extended with outputs,
 * inputs, clobbers and symbolic names, asm goto, asm labels on declarations), alternate
 * keywords (__const__, __volatile__, __inline__, __restrict__, __signed__, __alignof__),
 * __thread, cleanup and constructor/destructor attributes, zero-length arrays.
 */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define swap(x, y) do { typeof(x) _t = (x); (x) = (y); (y) = _t; } while (0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + \
    __builtin_choose_expr(__builtin_types_compatible_p(typeof(a), typeof(&(a)[0])), (void)0, 0))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

struct hdr { char tag; int len; double payload[2]; };

/* an asm label: the C name external_name refers to the symbol renamed_symbol */
extern int external_name __asm__("renamed_symbol");
int external_name = 77;

/* file-scope basic asm (a GAS comment) and a file-scope __extension__ declaration */
__asm__("# file-scope asm statement");
__extension__ typedef long long ext_ll;
__extension__ static const ext_ll ext_big = 1LL << 50;

static __thread int per_thread = 5;
static __inline int alt_inline(int *__restrict p, const int *__restrict q) { return *p + *q; }
static __const int alt_const = 2;
static __volatile int alt_volatile = 3;
static __signed int alt_signed = -4;
static __complex__ double alt_complex;
static __inline__ int inline_fn(int *__restrict__ p) { return *p + 1; }
static __const__ int const_val = 3;
static __volatile__ int volatile_val = 4;
static __signed__ char signed_char = -5;

static int order_log[8];
static int order_len;
__attribute__((constructor)) static void before_main(void) { order_log[order_len++] = 1; }

static void release(int *p) { order_log[order_len++] = *p; }

static int cleanup_demo(void)
{
    int __attribute__((cleanup(release))) a = 10;
    {
        int b __attribute__((cleanup(release))) = 20;
        (void)b;
    }
    return a;
}

static int stmt_expr_demo(int n)
{
    int x = ({ int y = n * 2; y + 1; });
    int z = ({ int acc = 0; for (int i = 0; i < n; i++) acc += i; acc; });
    int w = __extension__ ({ 5; });
    ({ (void)0; });                         /* a statement expression as a statement */
    return x + z + w + max(n, 3) + max(2.5, 1.0) * 2;
}

static const char *range_name(int c)
{
    switch (c) {
    case '0' ... '9': return "digit";
    case 'a' ... 'z':
    case 'A' ... 'Z': return "letter";
    case 0 ... 31: return "control";
    default: return "other";
    }
}

/* computed goto: an interpreter whose dispatch table holds label addresses */
static int interpret(const unsigned char *code)
{
    static void *const table[] = {&&op_halt, &&op_inc, &&op_dbl, &&op_dec};
    int acc = 0;
    const unsigned char *ip = code;
    goto *table[*ip++];
op_inc:
    acc++;
    goto *table[*ip++];
op_dbl:
    acc *= 2;
    goto *table[*ip++];
op_dec:
    acc--;
    goto *table[*ip++];
op_halt:
    return acc;
}

/* local labels: each expansion of the macro gets its own `done` */
#define FIND(arr, n, key) ({                          \
    __label__ done;                                   \
    int _idx = -1;                                    \
    for (int _i = 0; _i < (n); _i++)                  \
        if ((arr)[_i] == (key)) { _idx = _i; goto done; } \
done:                                                 \
    _idx;                                             \
})

static int local_labels(void)
{
    int a[] = {4, 8, 15, 16, 23, 42};
    return FIND(a, 6, 15) * 10 + FIND(a, 6, 42) + FIND(a, 6, 99);
}

static void print_u128(unsigned __int128 v)
{
    char buf[64], *p = buf + sizeof buf;
    *--p = 0;
    do { *--p = (char)('0' + (int)(v % 10)); v /= 10; } while (v);
    printf("%s", p);
}

static int sum_va(int n, ...)
{
    __builtin_va_list ap;
    __builtin_va_start(ap, n);
    int s = 0;
    while (n--) s += __builtin_va_arg(ap, int);
    __builtin_va_end(ap);
    return s;
}

static int asm_add(int a, int b)
{
    int out;
    __asm__ ("movl %1, %0\n\taddl %2, %0" : "=&r"(out) : "r"(a), "r"(b) : "cc");
    return out;
}

static int asm_named(int x)
{
    __asm__ __volatile__ ("shll $1, %[val]" : [val] "+r"(x) : : "cc");
    asm volatile ("" ::: "memory");
    __asm ("nop");
    return x;
}

static int asm_goto_demo(int v)
{
    asm goto ("testl %0, %0\n\tjz %l[is_zero]" : : "r"(v) : "cc" : is_zero);
    return 1;
is_zero:
    return 0;
}

typedef int v4si __attribute__((vector_size(16)));

int main(void)
{
    printf("constructor ran %d\n", order_log[0]);
    printf("cleanup %d", cleanup_demo());
    printf(" order %d %d %d\n", order_log[1], order_log[2], order_len);

    printf("stmt expr %d\n", stmt_expr_demo(4));
    printf("max %d %.1f %ld\n", max(3, 9), max(-1.5, -2.5), max(7L, 2L));
    int p = 1, q = 2;
    swap(p, q);
    double arr[7];
    printf("swap %d %d size %zu\n", p, q, ARRAY_SIZE(arr));

    typeof(p) tp = 5;
    __typeof__(arr[0]) td = 0.5;
    __typeof(&p) tptr = &tp;
    typeof(int [3]) t3 = {1, 2, 3};
    typeof(typeof(char) *) tcp = "typeof";
    __auto_type inferred = 1.25f;
    __auto_type inferred_ptr = &t3[1];
    printf("typeof %d %.1f %d %d %s %zu %.2f %d\n", tp, td, *tptr, t3[2], tcp, sizeof t3, (double)inferred,
           *inferred_ptr);

    printf("ranges %s %s %s %s %s\n", range_name('7'), range_name('q'), range_name('Q'), range_name('\t'),
           range_name('#'));

    const unsigned char prog[] = {1, 1, 2, 2, 3, 0};   /* ((1+1)*2*2)-1 */
    printf("computed goto %d\n", interpret(prog));
    void *where = &&here;
    goto *where;
here:
    printf("local labels %d\n", local_labels());

    printf("elvis %d %s\n", 0 ?: 6, (char *)0 ?: "fallback");

    unsigned __int128 big = (unsigned __int128)UINT64_MAX * 1000 + 999;
    __int128 neg = -((__int128)1 << 100);
    printf("int128 ");
    print_u128(big);
    printf(" %d %zu\n", neg < 0, sizeof(__int128));

    _Complex double zc = 3.0 + 4.0i;
    double _Complex zd = zc * zc;
    printf("complex %.1f %.1f %.1f %.1f\n", __real__ zc, __imag__ zc, __real__ zd, __imag__ zd);
    __real__ zc = 1.0;
    printf("complex lvalue %.1f %.1f\n", __real__ zc, __imag__ ~zc);

    v4si va = {1, 2, 3, 4}, vb = {10, 20, 30, 40};
    v4si vc = va + vb * 2;
    printf("vector %d %d %d %d %zu\n", vc[0], vc[1], vc[2], vc[3], sizeof vc);

    printf("offsetof %zu %zu %zu\n", __builtin_offsetof(struct hdr, len), offsetof(struct hdr, payload[1]),
           __builtin_offsetof(struct hdr, payload[0]));
    printf("builtin va %d\n", sum_va(3, 10, 20, 30));

    int ovf_res;
    int ovf = __builtin_add_overflow(2147483647, 1, &ovf_res);
    printf("builtins %d %d %d %d %d %d\n", __builtin_popcount(0xF0F0u), __builtin_clz(1u), __builtin_ctz(8u),
           __builtin_constant_p(42), ovf, (int)(likely(p > 0) + unlikely(p < 0)));
    printf("types compatible %d %d\n", __builtin_types_compatible_p(int, int),
           __builtin_types_compatible_p(int, long));
    printf("choose %d %s\n", __builtin_choose_expr(1, 10, "no"), __builtin_choose_expr(0, 10, "yes"));

    printf("asm %d %d %d %d\n", asm_add(20, 22), asm_named(21), asm_goto_demo(0), asm_goto_demo(5));
    printf("asm label %d\n", external_name);

    int restricted = 41;
    printf("alt keywords %d %d %d %d %zu %zu\n", inline_fn(&restricted), const_val, volatile_val, signed_char,
           __alignof__(double), __alignof__(struct hdr));
    per_thread++;
    printf("thread %d\n", per_thread);
    __extension__ long long ext = 1LL << 40;
    printf("extension %lld %lld\n", ext, ext_big >> 40);
    int ai = 40;
    __real__ alt_complex = 1.5;
    __imag alt_complex = 2.5;
    __typeof(ai) tai = 1;
    printf("alt spellings %d %d %d %d %.1f %.1f %zu\n", alt_inline(&ai, &alt_const), alt_volatile, alt_signed, tai,
           __real alt_complex, __imag__ alt_complex, __alignof(ext_ll));
    return 0;
}
