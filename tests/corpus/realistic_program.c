/* realistic_program.c: an ordinary C program, written the way C programs are written.
 *
 * A lexer, a recursive-descent parser that evaluates arithmetic with variables and
 * built-in functions, and a chained hash table; it uses a user header found beside
 * this file (its typedef names start declarations such as `token_t * tok = ...;`),
 * error handling with goto cleanup, dynamic arrays grown with realloc, static helper
 * functions, function-pointer tables, and output through a FILE *.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>
#include "corpus_local.h"

struct parser {
    lexer_t lex;
    table_t *vars;
    int error;
    char message[64];
};

static const struct {
    const char *name;
    builtin_fn fn;
} builtins[] = {
    {"sqrt", sqrt},
    {"abs", fabs},
    {"floor", floor},
};

/* ---- hash table ---- */

static unsigned long hash(const char *s)
{
    unsigned long h = 5381;
    int c;
    while ((c = (unsigned char)*s++))
        h = ((h << 5) + h) + (unsigned long)c;
    return h;
}

static table_t *table_new(void)
{
    table_t *t = malloc(sizeof *t);
    if (!t) return NULL;
    t->nbuckets = TABLE_INITIAL_BUCKETS;
    t->count = 0;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    if (!t->buckets) {
        free(t);
        return NULL;
    }
    return t;
}

static entry_t *table_find(const table_t *t, const char *key)
{
    entry_t * e = t->buckets[hash(key) % t->nbuckets];
    for (; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

static void table_grow(table_t *t)
{
    size_t n = t->nbuckets * 2;
    entry_t **nb = calloc(n, sizeof *nb);
    if (!nb) return;
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry_t *e = t->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            size_t b = hash(e->key) % n;
            e->next = nb[b];
            nb[b] = e;
        }
    }
    free(t->buckets);
    t->buckets = nb;
    t->nbuckets = n;
}

static int table_set(table_t *t, const char *key, double value)
{
    entry_t *e = table_find(t, key);
    if (e) {
        e->value = value;
        return 0;
    }
    if (t->count + 1 > t->nbuckets * 3 / 4) table_grow(t);
    e = malloc(sizeof *e);
    if (!e) return -1;
    e->key = strdup(key);
    if (!e->key) goto fail_entry;
    e->value = value;
    size_t b = hash(key) % t->nbuckets;
    e->next = t->buckets[b];
    t->buckets[b] = e;
    t->count++;
    return 0;
fail_entry:
    free(e);
    return -1;
}

static void table_free(table_t *t)
{
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry_t *e = t->buckets[i];
        while (e) {
            entry_t *next = e->next;
            free(e->key);
            free(e);
            e = next;
        }
    }
    free(t->buckets);
    free(t);
}

/* ---- lexer ---- */

static void next_token(lexer_t *lx)
{
    token_t * tok = &lx->cur;
    const char *s = lx->src;
    while (isspace((unsigned char)s[lx->pos])) lx->pos++;
    char c = s[lx->pos];
    memset(tok, 0, sizeof *tok);
    if (c == '\0') {
        tok->kind = TOK_END;
    } else if (isdigit((unsigned char)c) || c == '.') {
        char *end;
        tok->kind = TOK_NUM;
        tok->num = strtod(s + lx->pos, &end);
        lx->pos = (size_t)(end - s);
    } else if (isalpha((unsigned char)c) || c == '_') {
        size_t n = 0;
        tok->kind = TOK_IDENT;
        while ((isalnum((unsigned char)s[lx->pos]) || s[lx->pos] == '_') && n < sizeof tok->text - 1)
            tok->text[n++] = s[lx->pos++];
    } else if (strchr("+-*/^=%", c)) {
        tok->kind = TOK_OP;
        tok->op = c;
        lx->pos++;
    } else if (c == '(' || c == ')') {
        tok->kind = c == '(' ? TOK_LPAREN : TOK_RPAREN;
        lx->pos++;
    } else {
        tok->kind = TOK_ERROR;
        tok->op = c;
        lx->pos++;
    }
}

/* ---- parser ---- */

static double expr(struct parser *p);

static void fail(struct parser *p, const char *what)
{
    if (!p->error) snprintf(p->message, sizeof p->message, "%s at %zu", what, p->lex.pos);
    p->error = 1;
}

static double primary(struct parser *p)
{
    token_t tok = p->lex.cur;
    switch (tok.kind) {
    case TOK_NUM:
        next_token(&p->lex);
        return tok.num;
    case TOK_IDENT: {
        next_token(&p->lex);
        if (p->lex.cur.kind == TOK_LPAREN) {
            for (size_t i = 0; i < CORPUS_ARRAY_LEN(builtins); i++) {
                if (strcmp(builtins[i].name, tok.text) == 0) {
                    next_token(&p->lex);
                    double arg = expr(p);
                    if (p->lex.cur.kind != TOK_RPAREN) fail(p, "expected )");
                    next_token(&p->lex);
                    return builtins[i].fn(arg);
                }
            }
            fail(p, "unknown function");
            return 0;
        }
        entry_t *e = table_find(p->vars, tok.text);
        if (!e) {
            fail(p, "undefined variable");
            return 0;
        }
        return e->value;
    }
    case TOK_LPAREN: {
        next_token(&p->lex);
        double v = expr(p);
        if (p->lex.cur.kind != TOK_RPAREN) fail(p, "expected )");
        next_token(&p->lex);
        return v;
    }
    case TOK_OP:
        if (tok.op == '-') {
            next_token(&p->lex);
            return -primary(p);
        }
        /* fall through */
    default:
        fail(p, "unexpected token");
        return 0;
    }
}

static double power(struct parser *p)
{
    double base = primary(p);
    if (p->lex.cur.kind == TOK_OP && p->lex.cur.op == '^') {
        next_token(&p->lex);
        return pow(base, power(p));        /* right associative */
    }
    return base;
}

static double term(struct parser *p)
{
    double v = power(p);
    while (p->lex.cur.kind == TOK_OP && strchr("*/%", p->lex.cur.op)) {
        char op = p->lex.cur.op;
        next_token(&p->lex);
        double r = power(p);
        if (op == '*') v *= r;
        else if (op == '/') v = r != 0 ? v / r : (fail(p, "division by zero"), 0);
        else v = fmod(v, r);
    }
    return v;
}

static double expr(struct parser *p)
{
    double v = term(p);
    while (p->lex.cur.kind == TOK_OP && (p->lex.cur.op == '+' || p->lex.cur.op == '-')) {
        char op = p->lex.cur.op;
        next_token(&p->lex);
        double r = term(p);
        v = op == '+' ? v + r : v - r;
    }
    return v;
}

/* a statement is `name = expr` or `expr` */
static int run_line(table_t *vars, const char *line, FILE *out)
{
    struct parser p = {.lex = {.src = line}, .vars = vars};
    char target[32] = "";
    next_token(&p.lex);
    lexer_t saved = p.lex;
    if (p.lex.cur.kind == TOK_IDENT) {
        strcpy(target, p.lex.cur.text);
        next_token(&p.lex);
        if (!(p.lex.cur.kind == TOK_OP && p.lex.cur.op == '=')) {
            p.lex = saved;
            target[0] = '\0';
        } else {
            next_token(&p.lex);
        }
    }
    double v = expr(&p);
    if (!p.error && p.lex.cur.kind != TOK_END) fail(&p, "trailing input");
    if (p.error) {
        fprintf(out, "error: %s\n", p.message);
        return -1;
    }
    if (target[0]) {
        table_set(vars, target, v);
        fprintf(out, "%s = %g\n", target, v);
    } else {
        fprintf(out, "%g\n", v);
    }
    return 0;
}

int main(int argc, char *argv[])
{
    (void)argv;
    static const char *const program[] = {
        "x = 3",
        "y = x * 4 + 2",
        "y / (x - 1)",
        "2 ^ 3 ^ 2",
        "-x + -(-y)",
        "sqrt(y + 2) * abs(0 - 2)",
        "17 % 5 + floor(2.7)",
        "z = 1 / 0",
        "undefined + 1",
        "3 $ 4",
        "(1 + 2",
    };
    table_t *vars = table_new();
    if (!vars || argc < 1) return 1;
    int errors = 0;
    char **history = NULL;
    size_t nhist = 0;
    for (size_t i = 0; i < CORPUS_ARRAY_LEN(program); i++) {
        if (run_line(vars, program[i], stdout) != 0) errors++;
        char **grown = realloc(history, (nhist + 1) * sizeof *history);
        if (!grown) goto cleanup;
        history = grown;
        history[nhist++] = strdup(program[i]);
    }
    for (int k = 0; k < 40; k++) {                       /* make the table grow */
        char name[16];
        snprintf(name, sizeof name, "v%d", k);
        table_set(vars, name, k * 0.5);
    }
    entry_t *v39 = table_find(vars, "v39");
    printf("errors %d, %zu lines kept, %zu variables in %zu buckets, v39 = %g\n", errors, nhist, vars->count,
           vars->nbuckets, v39 ? v39->value : -1.0);
cleanup:
    for (size_t i = 0; i < nhist; i++) free(history[i]);
    free(history);
    table_free(vars);
    return 0;
}
