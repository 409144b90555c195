/* statements.c: every statement form.
 *
 * Compound statements with declarations mixed among statements, null statements,
 * expression statements, if / else chains and a dangling else, switch with
 * fallthrough (comment and attribute forms), default in the middle, nested switches,
 * a switch without braces, case labels inside nested blocks (Duff's device), while,
 * do / while (with continue), for with and without a declaration, for(;;), empty
 * loop bodies, nested break and continue, goto forwards and backwards, labels in
 * odd places, return with and without a value.
 */
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wdangling-else"

static int classify(int n)
{
    int score = 0;
    switch (n) {
    case 0:
        score += 1;
        /* fall through */
    case 1:
        score += 10;
        __attribute__((fallthrough));
    case 2: {
        int inner = n * 100;
        score += inner;
        break;
    }
    default:
        score = -1;
        break;
    case 3:
    case 4:
        score = 34;
        break;
    case 5 + 1:
        return 6;
    }
    return score;
}

static int decl_before_case(int n)
{
    switch (n) {
        int shared;                 /* in scope in every case, never initialised by the jump */
    case 1:
        shared = 10;
        return shared + 1;
    case 2:
        shared = 20;
        return shared + 2;
    }
    return 0;
}

static const char *day_kind(int d)
{
    switch (d)
        case 0: case 6: return "weekend";
    return "weekday";
}

static int nested_switch(int a, int b)
{
    switch (a) {
    case 1:
        switch (b) {
        case 1: return 11;
        case 2: break;
        default: return 10;
        }
        return 12;
    case 2:
        return 20;
    }
    return 0;
}

/* Duff's device: case labels inside a do/while inside the switch */
static void duff_copy(char *to, const char *from, int count)
{
    int n = (count + 7) / 8;
    switch (count % 8) {
    case 0: do { *to++ = *from++;
    /* fall through */
    case 7:      *to++ = *from++;
    /* fall through */
    case 6:      *to++ = *from++;
    /* fall through */
    case 5:      *to++ = *from++;
    /* fall through */
    case 4:      *to++ = *from++;
    /* fall through */
    case 3:      *to++ = *from++;
    /* fall through */
    case 2:      *to++ = *from++;
    /* fall through */
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

static int dangling(int a, int b)
{
    if (a)
        if (b)
            return 1;
        else                    /* belongs to the inner if */
            return 2;
    return 3;
}

static int find_pair(int target, int *oi, int *oj)
{
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            if (j < i) continue;
            if (i * j == target) {
                *oi = i;
                *oj = j;
                goto found;
            }
        }
    }
    return 0;
found:
    return 1;
}

static int goto_loop(int n)
{
    int total = 0;
again:
    total += n;
    if (--n > 0) goto again;
    {
        goto inner;
        total = -1000;              /* skipped */
    inner:
        total *= 2;
    }
    return total;
}

static void nothing(void) { return; }

int main(void)
{
    /* compound statements and mixed declarations */
    int total = 0;
    ;                               /* null statement */
    {
        int a = 1;
        total += a;
        int b = 2;                  /* declaration after a statement */
        total += b;
        {
            int a = 10;             /* shadows the outer a */
            total += a;
        }
        total += a;
    }
    printf("blocks %d\n", total);

    /* if / else chains */
    for (int i = -1; i <= 2; i++) {
        if (i < 0) printf("neg ");
        else if (i == 0) printf("zero ");
        else if (i == 1) { printf("one "); }
        else printf("many ");
    }
    printf("\n");
    printf("dangling %d %d %d\n", dangling(1, 1), dangling(1, 0), dangling(0, 1));

    /* switch */
    for (int i = 0; i <= 7; i++) printf("%d ", classify(i));
    printf("\n");
    printf("decl before case %d %d %d\n", decl_before_case(1), decl_before_case(2), decl_before_case(3));
    printf("days %s %s %s\n", day_kind(0), day_kind(3), day_kind(6));
    printf("nested switch %d %d %d %d %d\n", nested_switch(1, 1), nested_switch(1, 2), nested_switch(1, 3),
           nested_switch(2, 0), nested_switch(3, 0));
    char src[] = "0123456789abcdefghij", dst[sizeof src] = {0};
    duff_copy(dst, src, 19);
    printf("duff %s\n", dst);

    /* while, do/while, for */
    int n = 0, steps = 0;
    while (n < 5) n += 2;
    do steps++; while (steps < 3);
    int k = 0, odd = 0;
    do {
        k++;
        if (k % 2 == 0) continue;   /* continue in do/while jumps to the condition */
        odd++;
    } while (k < 9);
    printf("loops %d %d %d %d\n", n, steps, k, odd);
    int fsum = 0, i;
    for (i = 0; i < 4; i++) fsum += i;
    for (int j = 0, m = 10; j < m; j += 2, m--) fsum += j;
    for (;;) {
        if (++fsum > 30) break;
    }
    for (i = 0; i < 3;)
        i++;
    printf("for %d %d\n", fsum, i);
    const char *s = "hello world";
    const char *e = s;
    while (*e && *e != ' ')
        e++;
    printf("empty body %td\n", e - s);

    /* nested break and continue */
    int hits = 0;
    for (int a = 0; a < 5; a++) {
        if (a == 1) continue;
        int b = 0;
        while (1) {
            if (b > a) break;
            switch (b) {
            case 2:
                b++;
                continue;           /* continues the while, not a switch */
            case 4:
                break;              /* leaves the switch only */
            default:
                hits++;
            }
            b++;
        }
        if (a == 3) break;
    }
    printf("nested %d\n", hits);

    /* goto */
    int pi = -1, pj = -1;
    int found = find_pair(24, &pi, &pj);
    printf("find %d %d %d\n", found, pi, pj);
    printf("goto_loop %d\n", goto_loop(4));

    /* labels on every kind of statement */
    int lab = 0;
    goto l1;
l0: lab += 100;
    goto l3;
l1: { lab += 1; }
l2: if (lab < 3) { lab++; goto l2; }
    goto l0;
l3: ;
    printf("labels %d\n", lab);

    /* expression statements of various kinds */
    int x = 1;
    x++;
    ++x;
    x = x * 3, x += 1;
    (void)x;
    nothing();
    printf("expr stmts %d\n", x);
    if (strlen(s) > 5 && x) printf("short circuit ok\n");
    return x == 10 ? 0 : 1;
}

#pragma GCC diagnostic pop
