/* preprocessor.c: macros and directives used the ways real code uses them.
 *
 * Object-like and function-like macros, # and ##, variadic macros (__VA_ARGS__,
 * GNU ##__VA_ARGS__, __VA_OPT__), macros that expand to declarations, typedefs and
 * whole function definitions at file scope (with and without a trailing semicolon),
 * to statements, case labels, loop headers, braces and attributes inside functions,
 * X-macros, a self-referential macro, a function-like macro name used without
 * parentheses, a computed #include, #if / #elif / #else / #endif with code in every
 * branch (also splitting one declaration and one expression), #ifdef / #ifndef /
 * defined, #if 0 around text that is not C, __has_include, #undef and redefinition,
 * #pragma and _Pragma, #line, the null directive, predefined macros, directives
 * inside function bodies, multi-line macros and invocations spanning lines.
 */
#define STDIO_HEADER <stdio.h>
#include STDIO_HEADER
#include <string.h>
#include <stddef.h>

#
# define SPACED_DIRECTIVE 1
  #  define INDENTED_DIRECTIVE 2     // a comment after a directive
#define /* a comment inside */ COMMENTED_DIRECTIVE 3

#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define VERSION_MAJOR 4
#define VERSION_MINOR 2
#define VERSION XSTR(VERSION_MAJOR) "." XSTR(VERSION_MINOR)

/* macros that expand to declarations and definitions at file scope */
#define DECLARE_COUNTER(name) static int name##_count = 0
#define DEFINE_GETTER(type, name)                       \
    static type get_##name(void)                        \
    {                                                   \
        return name;                                    \
    }
#define DECLARE_VEC(T)                                  \
    typedef struct {                                    \
        T *items;                                       \
        size_t len;                                     \
    } vec_##T;                                          \
    static T vec_##T##_sum(vec_##T v)                   \
    {                                                   \
        T s = 0;                                        \
        for (size_t i = 0; i < v.len; i++)              \
            s += v.items[i];                            \
        return s;                                       \
    }
#define INT_TYPE int
#define PTR_TO(T) T *
#define API static __attribute__((unused))
#define EMPTY

DECLARE_COUNTER(calls);
DECLARE_COUNTER(errors);
static int answer = 42;
DEFINE_GETTER(int, answer)
DECLARE_VEC(int)
DECLARE_VEC(double)
EMPTY
API INT_TYPE api_fn(PTR_TO(INT_TYPE) p) { return *p + 1; }

/* X-macros */
#define COLORS(X) \
    X(red, 0xFF0000) \
    X(green, 0x00FF00) \
    X(blue, 0x0000FF)
#define AS_ENUM(name, value) COLOR_##name,
#define AS_NAME(name, value) #name,
#define AS_VALUE(name, value) [COLOR_##name] = value,
enum color { COLORS(AS_ENUM) COLOR_COUNT };
static const char *const color_names[] = {COLORS(AS_NAME)};
static const unsigned color_values[] = {COLORS(AS_VALUE)};

/* variadic macros */
#define LOG(fmt, ...) printf("[log] " fmt "\n", __VA_ARGS__)
#define LOG0(fmt, ...) printf("[log0] " fmt "\n", ##__VA_ARGS__)
#define LOG_OPT(fmt, ...) printf("[opt] " fmt "\n" __VA_OPT__(,) __VA_ARGS__)
#define COUNT_ARGS(...) COUNT_ARGS_(__VA_ARGS__, 5, 4, 3, 2, 1, 0)
#define COUNT_ARGS_(a, b, c, d, e, n, ...) n
#define FIRST(first, ...) first

/* statement-like macros */
#define SWAP(a, b) do { __typeof__(a) _tmp = (a); (a) = (b); (b) = _tmp; } while (0)
#define FOR_RANGE(i, lo, hi) for (int i = (lo); i < (hi); i++)
#define CASE_RETURN(n, s) case n: return s;
#define BEGIN {
#define END }
#define UNUSED __attribute__((unused))
#define SQUARE(x) ((x) * (x))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define PRAGMA_BEGIN _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wsign-compare\"")
#define PRAGMA_END _Pragma("GCC diagnostic pop")

/* a self-referential macro: the inner `depth` is the variable */
static int depth = 1;
#define depth (depth + 10)

/* a function-like macro that shadows a function of the same name */
static int twice(int x) { return 2 * x; }
#define twice(x) (100 + (x))

/* conditional compilation with code in every branch */
#define LEVEL 2
#if LEVEL == 1
static const char *level_name = "one";
#elif LEVEL == 2 && defined(SPACED_DIRECTIVE) && !defined NOT_DEFINED
static const char *level_name = "two";
#else
static const char *level_name = "other";
#endif

#ifdef __clang__
static const char *compiler_family = "clang";
#elif defined(__GNUC__)
static const char *compiler_family = "gcc";
#else
#error "unknown compiler"
#endif

#ifndef FEATURE_X
#define FEATURE_X 0
#endif

#if 0
This is not C at all { ( [ and it must be skipped, as the compiler skips it.
#error never reached
#endif

#if __has_include(<stdint.h>)
#include <stdint.h>
#define HAVE_STDINT 1
#else
#define HAVE_STDINT 0
#endif

#if defined(__has_attribute) && __has_attribute(noinline) && __has_builtin(__builtin_expect)
#define HAS_CHECKS 1
#else
#define HAS_CHECKS 0
#endif

#if 'A' == 65 && (3 * 4 > 10) && (-1 < 0) && (0x10 >> 2) == 4 && defined STR
#define ARITH_OK 1
#else
#define ARITH_OK 0
#endif

static unsigned long
#if FEATURE_X
feature_on
#else
feature_off
#endif
(void) { return FEATURE_X ? 1ul : 2ul; }

static const char *classify(int n)
BEGIN
    switch (n) {
        CASE_RETURN(0, "zero")
        CASE_RETURN(1, "one")
        CASE_RETURN(2, "two")
    }
    return "many";
END

#undef MIN
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

#pragma pack(push, 1)
struct packed_by_pragma { char c; int i; };
#pragma pack(pop)

int main(void)
{
    calls_count++;
    errors_count += 2;
    printf("version %s %s %d\n", VERSION, STR(a + b), XCAT(VERSION_, MAJOR));
    printf("directives %d %d %d\n", SPACED_DIRECTIVE, INDENTED_DIRECTIVE, COMMENTED_DIRECTIVE);
    printf("stringify [%s] [%s] [%s]\n", STR("quoted\n" 'c'), STR(  spaced   out  ), XSTR(__LINE__ x));
    printf("paste %d %d %d\n", CAT(1, 2), CAT(0x, 1F), XCAT(calls, _count));
    printf("generated %d %d %d\n", get_answer(), calls_count, errors_count);
    int ints[] = {1, 2, 3};
    double dbls[] = {0.5, 1.5};
    vec_int vi = {ints, 3};
    vec_double vd = {dbls, 2};
    INT_TYPE x = 5;
    PTR_TO(INT_TYPE) px = &x;
    printf("vec %d %.1f api %d\n", vec_int_sum(vi), vec_double_sum(vd), api_fn(px));
    for (int i = 0; i < COLOR_COUNT; i++) printf("%s=%06X ", color_names[i], color_values[i]);
    printf("\n");
    LOG("%d + %d = %d", 1, 2, 3);
    LOG0("no arguments");
    LOG0("one argument %d", 1);
    LOG_OPT("opt none");
    LOG_OPT("opt %s", "some");
    printf("count %d %d %d first %d\n", COUNT_ARGS(a), COUNT_ARGS(a, b, c), COUNT_ARGS(f(1, 2), (3, 4)),
           FIRST(7, 8, 9));
    int a = 1, b = 2;
    SWAP(a, b);
    if (a > b)
        SWAP(a, b);                 /* safe as the body of an unbraced if */
    else
        a = -a;
    printf("swap %d %d\n", a, b);
    int total = 0;
    FOR_RANGE(i, 0, 5) total += SQUARE(i + 1);
    FOR_RANGE(j, 0, 3) {
        UNUSED int unused_in_loop;
        total += MIN(j, 1);
    }
    printf("loops %d\n", total);
    printf("classify %s %s %s\n", classify(0), classify(2), classify(9));
    printf("self reference %d\n", depth);
    printf("shadowing macro %d %d\n", twice(1), (twice)(1));
    printf("conditionals %s %lu %d %d %d %s\n", level_name, feature_off(), HAVE_STDINT, ARITH_OK, HAS_CHECKS,
           strlen(compiler_family) > 0 ? "known" : "unknown");

    /* directives inside a function, splitting an expression */
    int mode =
#if LEVEL > 1
        20
#else
        10
#endif
        + 1;
#define LOCAL_MACRO(v) ((v) * 3)
    printf("mode %d %d\n", mode, LOCAL_MACRO(mode));
#undef LOCAL_MACRO
#ifdef LOCAL_MACRO
    printf("should not print\n");
#endif

    PRAGMA_BEGIN
    if (mode < sizeof ints) mode++;     /* a signed / unsigned comparison */
    PRAGMA_END
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
    if (mode > sizeof dbls) mode--;
#pragma GCC diagnostic pop
    printf("pragmas %d\n", mode);

    printf("predefined %d %ld %d\n", __STDC__, __STDC_VERSION__, __STDC_HOSTED__);
    int c0 = __COUNTER__, c1 = __COUNTER__;
    printf("counter %d\n", c1 - c0);
    printf("line %d\n", __LINE__);
#line 1000
    printf("line %d\n", __LINE__);
    printf("multi-line call %d\n",
           MIN(
               40,
               41
           ) + SQUARE(
               2
           ));
    printf("packed %zu\n", sizeof(struct packed_by_pragma));
    return 0;
}
