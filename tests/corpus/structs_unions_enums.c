/* structs_unions_enums.c: struct, union and enum specifiers in all their forms.
 *
 * Tagged and untagged types, forward declarations and incomplete types, self-
 * referential and mutually recursive structs, C11 anonymous struct and union members
 * (nested), bit-fields (signed, unsigned, _Bool, enum-typed, unnamed, zero-width),
 * flexible array members, GNU zero-length arrays, struct tags hidden in inner scopes,
 * types declared inside sizeof, casts and for, struct assignment / argument / return,
 * unions for type punning, enums with explicit, negative, repeated and expression
 * values and a trailing comma, enum constants as array sizes and case labels, and
 * one name used as a tag, a typedef, a member, a variable and a label.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

struct incomplete;                          /* forward declaration */
struct incomplete *make_incomplete(void);   /* pointers to an incomplete type are fine */

struct list { int value; struct list *next; };
struct tree_a;                               /* mutual recursion */
struct tree_b { struct tree_a *a; int depth; };
struct tree_a { struct tree_b *b; int depth; };

typedef struct node node;                   /* typedef before the struct is complete */
struct node { node *left, *right; int key; };

enum color { RED, GREEN = 5, BLUE, ALPHA = GREEN + BLUE * 2, };
enum sign { MINUS = -1, ZERO, PLUS };
enum dup { A1 = 1, A2 = 1, A3 };             /* repeated values are allowed */
enum { ANON_CONST = 3, ARRAY_LEN = ANON_CONST * 4 };
static int sized_by_enum[ARRAY_LEN];

struct flags {
    unsigned ready : 1;
    unsigned mode : 3;
    signed delta : 4;
    _Bool on : 1;
    enum sign s : 2;
    unsigned : 0;                           /* zero width: next field starts a new unit */
    unsigned after : 5;
    int : 3;                                /* unnamed padding */
    unsigned last : 2;
};

struct shape {
    int kind;
    union {                                 /* anonymous union member */
        struct { int w, h; };               /* anonymous struct inside it */
        struct { int radius; };
        int raw[2];
    };
    struct { int x, y; } origin;            /* untagged struct type of a named member */
};

struct message {
    size_t len;
    char text[];                            /* flexible array member */
};

struct gnu_zero {
    int n;
    int data[0];                            /* GNU zero-length array */
};

union pun {
    uint32_t word;
    uint8_t bytes[4];
    float f;
};

struct point { int x, y; };

static struct point add_points(struct point a, struct point b)
{
    struct point r = {a.x + b.x, a.y + b.y};
    return r;
}

static int area(const struct shape *s)
{
    switch (s->kind) {
    case 0: return s->w * s->h;
    case 1: return 3 * s->radius * s->radius;
    default: return -1;
    }
}

static const char *color_name(enum color c)
{
    switch (c) {
    case RED: return "red";
    case GREEN: return "green";
    case BLUE: return "blue";
    case ALPHA: return "alpha";
    }
    return "?";
}

static struct message *make_message(const char *s)
{
    size_t n = strlen(s);
    struct message *m = malloc(sizeof *m + n + 1);
    m->len = n;
    memcpy(m->text, s, n + 1);
    return m;
}

static int list_sum(const struct list *l)
{
    int s = 0;
    for (; l; l = l->next) s += l->value;
    return s;
}

static void insert(node **root, node *n)
{
    while (*root) root = n->key < (*root)->key ? &(*root)->left : &(*root)->right;
    *root = n;
}

static void inorder(const node *n)
{
    if (!n) return;
    inorder(n->left);
    printf("%d ", n->key);
    inorder(n->right);
}

int main(void)
{
    /* enums */
    printf("enum %d %d %d %d %d %d %d\n", RED, GREEN, BLUE, ALPHA, MINUS, PLUS, A3);
    sized_by_enum[ARRAY_LEN - 1] = BLUE;
    printf("enum array %d %zu %s %s\n", sized_by_enum[11], sizeof sized_by_enum / sizeof sized_by_enum[0],
           color_name(BLUE), color_name(ALPHA));
    enum color c = GREEN;
    c++;
    printf("enum arith %d %s\n", c, color_name(c));

    /* bit-fields */
    struct flags f = {.ready = 1, .mode = 5, .delta = -3, .on = 1, .s = MINUS, .after = 17, .last = 3};
    f.mode += 4;                                /* wraps modulo 8 */
    f.delta--;
    printf("bits %u %u %d %d %d %u %u size %zu\n", f.ready, f.mode, f.delta, f.on, f.s, f.after, f.last,
           sizeof f);

    /* anonymous members */
    struct shape rect = {.kind = 0, .w = 3, .h = 4, .origin = {1, 2}};
    struct shape circ = {.kind = 1, .radius = 2};
    printf("shapes %d %d raw %d %d origin %d\n", area(&rect), area(&circ), rect.raw[0], rect.raw[1],
           rect.origin.x + rect.origin.y);
    printf("offsets %zu %zu %zu\n", offsetof(struct shape, w), offsetof(struct shape, h),
           offsetof(struct shape, origin.y));

    /* flexible array member and zero-length array */
    struct message *m = make_message("flexible");
    printf("message %zu %s %zu\n", m->len, m->text, sizeof(struct message));
    free(m);
    struct gnu_zero *z = malloc(sizeof *z + 3 * sizeof(int));
    z->n = 3;
    for (int i = 0; i < z->n; i++) z->data[i] = i * 11;
    printf("zero-length %d %zu\n", z->data[2], sizeof(struct gnu_zero));
    free(z);

    /* unions */
    union pun p = {.word = 0x01020304u};
    printf("union bytes %d %zu\n", p.bytes[0] + p.bytes[1] + p.bytes[2] + p.bytes[3], sizeof p);
    p.f = 1.0f;
    printf("float bits %#x\n", (unsigned)p.word);

    /* struct values */
    struct point a = {1, 2}, b = {10, 20}, s = add_points(a, b);
    struct point t;
    t = s;
    t.x++;
    printf("struct values %d %d %d %d %d\n", s.x, s.y, t.x, add_points(t, t).y, a.x == 1);

    /* linked structures */
    struct list l3 = {3, NULL}, l2 = {2, &l3}, l1 = {1, &l2};
    printf("list %d\n", list_sum(&l1));
    struct tree_a ta;
    struct tree_b tb = {&ta, 2};
    ta.b = &tb;
    ta.depth = 1;
    printf("mutual %d %d\n", ta.b->a->depth, ta.b->a->b->depth);
    node nodes[6] = {{.key = 50}, {.key = 30}, {.key = 70}, {.key = 20}, {.key = 60}, {.key = 40}};
    node *root = NULL;
    for (int i = 0; i < 6; i++) insert(&root, &nodes[i]);
    printf("tree ");
    inorder(root);
    printf("\n");

    /* types declared in odd places */
    printf("sizeof anon %zu\n", sizeof(struct { char c; int i; }));
    printf("sizeof union %zu\n", sizeof(union { char c[5]; int i; }));
    struct point *pp = &(struct point){7, 8};
    printf("cast to tagged %d\n", ((struct point *)(void *)pp)->y);
    for (struct { int i, sum; } it = {0, 0}; it.i < 4; it.i++) {
        it.sum += it.i;
        if (it.i == 3) printf("for struct %d\n", it.sum);
    }

    /* a tag hidden in an inner scope */
    {
        struct point { double x; };             /* a different struct point */
        struct point q = {2.5};
        printf("inner tag %.1f %zu\n", q.x, sizeof q);
    }
    struct point outer = {3, 4};
    printf("outer tag %d %zu\n", outer.y, sizeof outer);

    /* one name in every name space */
    {
        struct item { int item; } item = {5};
        typedef struct item item_t;
        item_t copy = item;
        goto item;
    item:
        printf("item %d %d\n", item.item, copy.item);
    }

    /* enums declared in a block */
    {
        enum { LOCAL_A = 10, LOCAL_B } e = LOCAL_B;
        int total = 0;
        enum step { X0, X1, X2 };
        for (enum step x = X0; x <= X2; x++) total += x;
        printf("local enum %d %d\n", e, total);
    }
    (void)make_incomplete;
    return 0;
}

struct incomplete { int v; };
struct incomplete *make_incomplete(void)
{
    static struct incomplete inc = {1};
    return &inc;
}
