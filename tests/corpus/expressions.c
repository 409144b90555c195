/* expressions.c: every C operator, with C's precedence and associativity.
 *
 * Postfix ([] () . -> ++ -- compound literals), unary (++ -- & * + - ~ ! sizeof
 * _Alignof casts), multiplicative, additive, shift, relational, equality, bitwise
 * & ^ |, logical && ||, conditional (nested, right-associative, assignment in the
 * middle operand, GNU x ?: y), all assignment operators (right-associative) and the
 * comma operator; casts versus parenthesised expressions, sizeof expr versus
 * sizeof(type), sizeof of a compound literal, maximal-munch tokens (a+++b, a---b,
 * x-->0), i[a], function designators, _Generic.
 * Parentheses warnings are switched off so that the precedence rules themselves are used.
 */
#include <stdio.h>
#include <stdint.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"

struct pair { int a, b; };
struct node { int v; struct node *next; };

static int twice(int x) { return 2 * x; }
static struct pair make_pair(int a, int b) { return (struct pair){a, b}; }
static int side = 0;
static int bump(int r) { side++; return r; }

int main(void)
{
    int a = 7, b = 3, c = 2, d = 5, r;
    unsigned u = 0xF0u, v = 0x3Cu;

    /* arithmetic precedence and associativity */
    printf("arith %d %d %d %d %d\n", a + b * c, (a + b) * c, a - b - c, a - (b - c), a / b / c);
    printf("mod %d %d %d %d\n", a % b, -a % b, a % -b, a * b % d);
    printf("unary %d %d %d %d %d\n", -a + b, - -a, -(-a), +a, !a + !0);
    printf("bitnot %d %u %d\n", ~a, ~0u >> 28, ~~b);
    printf("shift %d %d %u %d\n", 1 << 2 + 1, (1 << 2) + 1, u >> 2 >> 1, a << b >> c);

    /* relational and equality */
    printf("rel %d %d %d %d %d\n", a < b, a > b, a <= 7, b >= 4, c < b < a);
    printf("eq %d %d %d\n", a == 7, a != 7, a < b == c > d);

    /* bitwise: & binds tighter than ^ tighter than | ; comparisons tighter than & */
    printf("bits %u %u %u %u\n", u & v, u ^ v, u | v, u | v ^ u & v);
    printf("bits2 %d %d\n", a & b == 3, (a & b) == 3);

    /* logical and conditional */
    side = 0;
    r = 0 && bump(1) || bump(1) && 0 || bump(2);
    printf("logic %d side %d\n", r, side);
    printf("logic2 %d %d %d\n", a || b && 0, (a || b) && 0, !a || !b || c);
    printf("cond %d %d %d\n", a > b ? a : b, a < b ? a : b < c ? b : c, (a ? b : c) ? d : 0);
    printf("cond chain %s\n", a == 1 ? "one" : a == 2 ? "two" : a == 7 ? "seven" : "other");
    r = a ? b = 11 : (c = 22);
    printf("cond assign %d %d %d\n", r, b, c);
    b = 3, c = 2;
    printf("gnu ?: %d %d\n", 0 ?: 9, a ?: 9);

    /* assignment operators, all of them, right associative */
    int x = 100, y, z;
    x += 5; x -= 3; x *= 2; x /= 3; x %= 50;
    printf("assign %d", x);
    x <<= 3; x >>= 1; x &= 0x7E; x ^= 0x55; x |= 0x100;
    printf(" %d\n", x);
    x = y = z = 4;
    x += y *= z -= 1;
    printf("chain %d %d %d\n", x, y, z);

    /* comma operator */
    r = (x = 1, y = 2, x + y);
    printf("comma %d %d\n", r, (x++, y++, x * y));
    for (x = 0, y = 10; x < y; x += 3, y -= 3)
        ;
    printf("for comma %d %d\n", x, y);
    printf("comma arg %d\n", twice((x = 5, x + 1)));

    /* increment and decrement, maximal munch */
    x = 5; y = 10;
    r = x+++y;                      /* (x++) + y */
    printf("munch %d %d %d\n", r, x, y);
    r = x---y;                      /* (x--) - y */
    printf("munch %d %d %d\n", r, x, y);
    r = x+ ++y;
    printf("munch %d %d %d\n", r, x, y);
    r = - --x;
    printf("munch %d %d\n", r, x);
    int count = 0;
    x = 4;
    while (x --> 0) count++;        /* the "goes to" operator */
    printf("goes to %d %d\n", count, x);

    /* postfix: subscripts, calls, members, compound literals */
    int arr[5] = {10, 20, 30, 40, 50};
    int *p = arr;
    printf("subscript %d %d %d %d\n", arr[1], 2[arr], *(arr + 3), p[4]);
    r = *p++;
    printf("ptr ops %d %d", r, *p);
    r = *++p;
    printf(" %d", r);
    r = ++*p;
    printf(" %d", r);
    r = (*p)++;
    printf(" %d %d %td\n", r, *p, p - arr);
    struct pair pr = make_pair(3, 4), *pp = &pr;
    printf("members %d %d %d %d\n", pr.a, pp->b, (*pp).a, make_pair(8, 9).b);
    struct node n3 = {3, NULL}, n2 = {2, &n3}, n1 = {1, &n2}, *np = &n1;
    r = np->next->v++ + n3.v;
    printf("chain -> %d %d %d\n", np->next->next->v, (*np->next).v, r);
    printf("compound postfix %d %d\n", (struct pair){5, 6}.b, (int[]){7, 8, 9}[2]);
    printf("calls %d %d %d %d\n", twice(3), (twice)(4), (*twice)(5), (&twice)(6));
    printf("call chain %d\n", twice(twice(twice(1))));

    /* unary & and *, sizeof and _Alignof */
    int *q = &*p, **qq = &q;
    printf("addr %d %d %d\n", *&a, **qq, *q == *p);
    printf("sizeof %zu %zu %zu %zu\n", sizeof a, sizeof(a), sizeof(int), sizeof(double) * 2);
    printf("sizeof expr %zu %zu %zu\n", sizeof arr, sizeof arr / sizeof arr[0], sizeof (arr)[0]);
    printf("sizeof literal %zu %zu %zu\n", sizeof (int[]){1, 2, 3}, sizeof (char){0}, sizeof (struct pair){0, 0});
    printf("sizeof nested %zu %zu\n", sizeof sizeof a, sizeof(sizeof(int)));
    printf("sizeof no eval %zu %d\n", sizeof twice(a), a);
    printf("sizeof ptr %zu %zu %zu\n", sizeof *pp, sizeof pp->a, sizeof &arr);
    printf("sizeof -  %d %d\n", -(int)sizeof(int), (int)-sizeof(char) == -1);
    printf("alignof %zu %zu\n", _Alignof(int), _Alignof(struct pair));

    /* casts vs parenthesised expressions */
    double dv = 3.75;
    printf("casts %d %d %u %d\n", (int)dv, (int)-dv, (unsigned char)-1, (int)(char)0x141);
    printf("casts2 %d %.2f %d\n", (int)dv + 1, (double)7 / 2, (int)(dv * 2));
    printf("cast chain %d %lld\n", (int)(long)(short)-2, (long long)(unsigned)-1);
    printf("paren not cast %d %d\n", (a) - 1, (a) + (b));
    printf("cast ptr %d %p\n", *(int *)(void *)&a, (void *)0);
    (void)dv;
    (void)(a + b);

    /* integer conversions */
    unsigned char uc = 200;
    signed char sc = -3;
    int64_t big = INT64_C(1) << 40;
    printf("conv %d %d %u %d\n", uc + uc, sc * uc, (unsigned)sc, uc > sc);
    printf("wide %lld %d\n", (long long)big, (int)(big >> 38));
    printf("unsigned wrap %u %d\n", 0u - 1u, (int)(0u - 1u > 0u));

    /* _Generic selects on the type of the controlling expression */
#define TYPE_NAME(e) _Generic((e), int: "int", unsigned: "unsigned", long: "long", \
    double: "double", float: "float", char: "char", char *: "char*", default: "other")
    printf("generic %s %s %s %s %s %s %s\n", TYPE_NAME(1), TYPE_NAME(1u), TYPE_NAME(1L), TYPE_NAME(1.0),
           TYPE_NAME(1.0f), TYPE_NAME('a'), TYPE_NAME((char *)"s"));
    printf("generic promo %s %s %s\n", TYPE_NAME(uc + 1), TYPE_NAME((char)1), TYPE_NAME(1 ? 1 : 1.0));
    printf("generic fn %d\n", _Generic(twice, int (*)(int): 1, default: 0));
#undef TYPE_NAME

    /* deeply nested parentheses */
    r = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1 + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1);
    printf("deep %d\n", r);

    /* constant expressions in array sizes and case labels */
    char buf[(3 + 4) * 2 << 1 > 20 ? 8 : 4];
    printf("const expr %zu\n", sizeof buf);
    return 0;
}

#pragma GCC diagnostic pop
