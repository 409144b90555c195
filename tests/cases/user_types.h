/* user_types.h: type names from a local header, for user_types.coc. coroc
   finds it beside the .coc (and through -I) and must know every name it
   declares as a type: `my_type_t *x;` is a declaration, not a product. */
#ifndef USER_TYPES_H
#define USER_TYPES_H

typedef struct {
  int id;
  const char *name;
} my_type_t;

typedef int (*my_fn_t)(int);
typedef unsigned long my_count_t;
typedef enum { MY_LOW = 1, MY_HIGH = 9 } my_level_t;

struct my_node {
  int v;
  struct my_node *next;
};
typedef struct my_node my_node_t;

typedef my_type_t my_pair_t[2];

#endif
