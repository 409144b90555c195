/* function_pointers.c: functions as values.
 *
 * Pointers to functions as variables, parameters, struct members (a vtable), array
 * elements and return values; signal()-style declarations written without a typedef;
 * calls through f(), (*f)(), (**f)() and (&f)(); comparison of function pointers;
 * casts through void (*)(void); variadic functions with stdarg.h (va_start, va_arg,
 * va_copy, va_end, passing a va_list on); qsort and bsearch callbacks; recursion through
 * a pointer; a state machine whose states are functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

typedef int (*binop)(int, int);
typedef void (*handler)(int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int divide(int a, int b) { return b ? a / b : 0; }

static int last_signal;
static void on_a(int s) { last_signal = s * 10; }
static void on_b(int s) { last_signal = s * 100; }

/* the shape of signal(2), spelled out */
static void (*current)(int) = on_a;
static void (*set_handler(int sig, void (*h)(int)))(int)
{
    void (*old)(int) = current;
    current = h;
    current(sig);
    return old;
}

/* the same with a typedef */
static handler set_handler2(handler h)
{
    handler old = current;
    current = h;
    return old;
}

/* a vtable */
struct shape_ops {
    const char *name;
    double (*area)(const void *self);
    void (*scale)(void *self, int k);
};
struct square { const struct shape_ops *ops; double side; };
struct rectangle { const struct shape_ops *ops; double w, h; };

static double square_area(const void *self) { const struct square *s = self; return s->side * s->side; }
static void square_scale(void *self, int k) { struct square *s = self; s->side *= k; }
static double rect_area(const void *self) { const struct rectangle *r = self; return r->w * r->h; }
static void rect_scale(void *self, int k) { struct rectangle *r = self; r->w *= k; r->h *= k; }

static const struct shape_ops square_ops = {"square", square_area, square_scale};
static const struct shape_ops rect_ops = {.name = "rectangle", .scale = rect_scale, .area = rect_area};

/* variadic functions */
static int sum_ints(int count, ...)
{
    va_list ap;
    int total = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++) total += va_arg(ap, int);
    va_end(ap);
    return total;
}

static double mixed(const char *fmt, ...)
{
    va_list ap, again;
    double total = 0;
    va_start(ap, fmt);
    va_copy(again, ap);
    for (const char *p = fmt; *p; p++) {
        switch (*p) {
        case 'i': total += va_arg(ap, int); break;
        case 'd': total += va_arg(ap, double); break;
        case 'l': total += (double)va_arg(ap, long long); break;
        case 's': total += (double)strlen(va_arg(ap, const char *)); break;
        case 'p': total += *va_arg(ap, int *); break;
        case 'f': total += va_arg(ap, int (*)(int, int))(2, 3); break;
        }
    }
    if (*fmt == 'i') total += 1000 * va_arg(again, int);   /* the copy starts over */
    va_end(again);
    va_end(ap);
    return total;
}

static int vformat(char *buf, size_t n, const char *fmt, va_list ap) { return vsnprintf(buf, n, fmt, ap); }
static int format(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int format(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vformat(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

/* callbacks */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static int cmp_desc(const void *a, const void *b) { return cmp_int(b, a); }
static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void for_each(int *a, int n, void (*fn)(int *, void *), void *ctx)
{
    for (int i = 0; i < n; i++) fn(&a[i], ctx);
}
static void accumulate(int *x, void *ctx) { *(int *)ctx += *x; }
static void square_in_place(int *x, void *ctx) { (void)ctx; *x *= *x; }

/* recursion through a pointer */
static long fact(int n);
static long (*fact_ptr)(int) = fact;
static long fact(int n) { return n <= 1 ? 1 : n * fact_ptr(n - 1); }

/* a state machine whose states are functions returning the next state */
struct state;
typedef struct state (*state_fn)(int *acc);
struct state { state_fn next; };
static struct state st_double(int *acc);
static struct state st_inc(int *acc) { *acc += 1; return (struct state){*acc < 20 ? st_double : NULL}; }
static struct state st_double(int *acc) { *acc *= 2; return (struct state){st_inc}; }

/* pointers to pointers to functions, and arrays of them */
static binop ops[] = {add, sub, mul, divide};
static binop *op_ptr = &ops[2];
static int (**op_ptr2)(int, int) = &ops[1];
static int (*(*ops_ptr)[4])(int, int) = &ops;

int main(void)
{
    printf("table");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) printf(" %d", ops[i](12, 4));
    printf("\n");
    printf("call forms %d %d %d %d %d\n", (*op_ptr)(3, 4), (**op_ptr)(3, 4), (*op_ptr2)(9, 4),
           (*ops_ptr)[3](9, 3), (&add)(1, 1));
    printf("compare %d %d %d\n", ops[0] == add, ops[1] != add, *op_ptr == mul);

    void (*old)(int) = set_handler(2, on_b);
    printf("signal style %d %d", last_signal, old == on_a);
    handler prev = set_handler2(on_a);
    prev(3);
    printf(" %d %d\n", last_signal, prev == on_b);

    /* a cast through the generic function pointer type and back */
    void (*generic)(void) = (void (*)(void))add;
    binop back = (binop)generic;
    printf("cast back %d\n", back(20, 22));

    struct square sq = {&square_ops, 3};
    struct rectangle rc = {&rect_ops, 2, 5};
    void *shapes[] = {&sq, &rc};
    for (int i = 0; i < 2; i++) {
        const struct shape_ops *ops_i = *(const struct shape_ops **)shapes[i];
        ops_i->scale(shapes[i], 2);
        printf("%s %.1f\n", ops_i->name, ops_i->area(shapes[i]));
    }

    printf("varargs %d %d %.2f\n", sum_ints(4, 1, 2, 3, 4), sum_ints(0), mixed("idls", 1, 2.5, 3LL, "four"));
    int seven = 7;
    printf("varargs ptrs %.1f\n", mixed("pf", &seven, add));
    char buf[64];
    int len = format(buf, sizeof buf, "%s-%03d-%c", "fmt", 7, 'z');
    printf("format %d %s\n", len, buf);

    int nums[] = {5, 3, 9, 1, 7, 2};
    int n = (int)(sizeof nums / sizeof nums[0]);
    qsort(nums, (size_t)n, sizeof nums[0], cmp_int);
    printf("sorted");
    for (int i = 0; i < n; i++) printf(" %d", nums[i]);
    int key = 7;
    int *hit = bsearch(&key, nums, (size_t)n, sizeof nums[0], cmp_int);
    printf(" found at %td\n", hit ? hit - nums : -1);
    qsort(nums, (size_t)n, sizeof nums[0], cmp_desc);
    printf("desc %d %d\n", nums[0], nums[n - 1]);
    const char *names[] = {"pear", "apple", "fig", "banana"};
    qsort(names, 4, sizeof names[0], cmp_str);
    printf("names %s %s %s %s\n", names[0], names[1], names[2], names[3]);

    int total = 0;
    for_each(nums, n, square_in_place, NULL);
    for_each(nums, n, accumulate, &total);
    printf("for_each %d\n", total);

    printf("fact %ld\n", fact(10));

    int acc = 1, steps = 0;
    for (struct state s = {st_inc}; s.next; s = s.next(&acc)) steps++;
    printf("state machine %d %d\n", acc, steps);
    return 0;
}
