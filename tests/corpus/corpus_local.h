/* corpus_local.h: a user header for realistic_program.c.
 * Its typedef names are used in positions where only a parser that has read this
 * header can tell a declaration from an expression (`token_t * tok = ...;`).
 */
#pragma once
#ifndef CORPUS_LOCAL_H
#define CORPUS_LOCAL_H

#include <stddef.h>

typedef enum { TOK_NUM, TOK_IDENT, TOK_OP, TOK_LPAREN, TOK_RPAREN, TOK_END, TOK_ERROR } token_kind;

typedef struct token {
    token_kind kind;
    double num;
    char text[32];
    char op;
} token_t;

typedef struct lexer {
    const char *src;
    size_t pos;
    token_t cur;
} lexer_t;

typedef struct entry entry_t;
struct entry {
    char *key;
    double value;
    entry_t *next;
};

typedef struct table {
    entry_t **buckets;
    size_t nbuckets;
    size_t count;
} table_t;

typedef double (*builtin_fn)(double);

#define TABLE_INITIAL_BUCKETS 8
#define CORPUS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
