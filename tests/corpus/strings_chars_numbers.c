/* strings_chars_numbers.c: the lexical forms of constants.
 *
 * String literals with every prefix (none, u8, u, U, L) and adjacent-literal
 * concatenation (across lines, comments and directives-free macro boundaries, mixing a
 * prefixed with an unprefixed piece), every simple escape, octal and hex escapes,
 * universal character names, strings that look like comments or contain quotes,
 * a line splice inside a string; character constants with every prefix and escape;
 * integer constants in decimal, octal, hex and GNU binary with every suffix and the
 * types C gives them; floating constants (fraction, exponent, hex floats, suffixes
 * f F l L), GNU imaginary constants; pp-number edge cases like 1.e5 and 0x1p-3.
 */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <uchar.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>

#define TYPE_OF(x) _Generic((x), int: "int", unsigned: "unsigned", long: "long", \
    unsigned long: "ulong", long long: "llong", unsigned long long: "ullong", \
    float: "float", double: "double", long double: "ldouble", default: "other")

static void dump(const char *label, const char *s, size_t n)
{
    printf("%s:", label);
    for (size_t i = 0; i < n; i++) printf(" %02x", (unsigned char)s[i]);
    printf("\n");
}

int main(void)
{
    /* simple escapes */
    const char esc[] = "\a\b\f\n\r\t\v\\\'\"\?";
    dump("escapes", esc, sizeof esc);
    /* octal and hex escapes, with the longest-match rules */
    const char oct[] = "\0\7\12\101\1011\377";
    dump("octal", oct, sizeof oct);
    const char hex[] = "\x41\x7e\xFf\x0" "1";        /* \x0 then a separate "1" */
    dump("hex", hex, sizeof hex);
    /* things that look like comments, quotes and trigraph-free question marks */
    const char *looks = "/* not a comment */ // nor this ' \" ?";
    printf("looks %s %zu\n", looks, strlen(looks));
    printf("quotes %c%c%c %s\n", '"', '\'', '\\', "'");
    /* concatenation */
    const char *cat = "con" "cat"
        "enated" /* a comment between pieces */ "!" // and a line comment
        "";
    printf("concat %s %zu\n", cat, strlen(cat));
    const char *splice = "line \
splice";
    printf("splice [%s]\n", splice);

    /* prefixes */
    const char u8s[] = u8"h\u00e9llo \U0001F600";
    dump("u8", u8s, sizeof u8s);
    const char16_t u16[] = u"h\u00e9\U0001F600";
    printf("u16 %zu", sizeof u16 / sizeof u16[0]);
    for (size_t i = 0; i < sizeof u16 / sizeof u16[0]; i++) printf(" %04x", (unsigned)u16[i]);
    printf("\n");
    const char32_t u32[] = U"h\u00e9\U0001F600";
    printf("u32 %zu", sizeof u32 / sizeof u32[0]);
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++) printf(" %x", (unsigned)u32[i]);
    printf("\n");
    const wchar_t wide[] = L"wide" L" " "string";     /* an unprefixed piece joins a wide one */
    printf("wide %zu %zu %x\n", wcslen(wide), sizeof wide / sizeof wide[0], (unsigned)wide[5]);
    const char16_t mixed[] = u"a" "b" u"c";
    printf("mixed %zu\n", sizeof mixed / sizeof mixed[0]);
    const char raw_utf8[] = "caf\xc3\xa9";
    printf("utf8 %zu %s\n", strlen(raw_utf8), raw_utf8);

    /* character constants */
    printf("chars %d %d %d %d %d %d\n", 'a', '\n', '\0', '\x7f', '\101', '\'');
    printf("char types %zu %zu %zu %zu %zu\n", sizeof 'a', sizeof u'a', sizeof U'a', sizeof L'a', sizeof(char));
    printf("wide chars %x %x %x %x\n", (unsigned)u'\u00e9', (unsigned)U'\U0001F600', (unsigned)L'\xff',
           (unsigned)L'z');
    printf("char arith %d %c %c\n", 'z' - 'a', 'a' + 1, "xyz"[1]);
    printf("signedness %d\n", (char)'\xff' < 0 ? -1 : 1);

    /* integer constants and their types */
    printf("decimal %d %ld %lld %u %lu %llu\n", 42, 42l, 42LL, 42u, 42UL, 42ull);
    printf("suffix order %lu %llu %llu\n", 7LU, 7LLU, 7uLL);
    printf("octal %d %d %o\n", 0777, 010, 8);
    printf("hex %d %X %#x %lx\n", 0xff, 0XABCDEFu, 0x0, 0xDEADBEEFl);
    printf("binary %d %u\n", 0b101010, 0B11111111u);
    printf("types %s %s %s %s %s %s\n", TYPE_OF(2147483647), TYPE_OF(2147483648), TYPE_OF(0x7FFFFFFF),
           TYPE_OF(0x80000000), TYPE_OF(0xFFFFFFFFFFFFFFFF), TYPE_OF(9223372036854775807));
    printf("types %s %s %s %s\n", TYPE_OF(1u), TYPE_OF(1l), TYPE_OF(1ul), TYPE_OF(1ll));
    printf("limits %d %d %u %lld\n", INT_MAX, INT_MIN, UINT_MAX, LLONG_MIN);
    printf("negative %d %lld\n", -2147483647 - 1, -9223372036854775807LL - 1);
    printf("stdint %d %u %lld %llu\n", INT8_MIN, UINT16_MAX, (long long)INT64_C(-5), (unsigned long long)UINT64_C(5));

    /* floating constants */
    printf("floats %g %g %g %g %g %g\n", 1.0, 1., .5, 1e3, 1E-3, 2.5e+2);
    printf("float types %s %s %s %s %s\n", TYPE_OF(1.0f), TYPE_OF(1.0F), TYPE_OF(1.0), TYPE_OF(1.0l), TYPE_OF(1.0L));
    printf("hex floats %g %g %g %g %a\n", 0x1p0, 0x1.8p3, 0x.8p1, 0xAp-2, 0x1.fffffep+127f);
    printf("hex float types %s %s\n", TYPE_OF(0x1p-3f), TYPE_OF(0x1p-3L));
    printf("exp forms %g %g %g\n", 1.e5, 1e+0, 0e0);
    printf("long double %.3Lf %d\n", 1.0L / 3, LDBL_MANT_DIG >= DBL_MANT_DIG);
    printf("float limits %g %g %d\n", (double)FLT_MAX, DBL_EPSILON, FLT_DIG);
    _Complex double im = 2.0i + 1;
    printf("imaginary %.1f %.1f\n", __real__ im, __imag__ im);

    /* sizes of string literals */
    printf("sizes %zu %zu %zu %zu %zu\n", sizeof "", sizeof "abc", sizeof u8"é", sizeof u"é", sizeof L"é");
    return 0;
}
