/* callbacks.c: two shoppers add up prices that arrive later, written in the
   event-driven style: a loop of events, and a callback for each answer. */
#include <stdio.h>

/* The event loop: a first-in, first-out queue of callbacks to call. */
struct event {
  void (*fn)(void *arg, int value);
  void *arg;
  int value;
};
static struct event queue[16];
static int head, tail;

static void post(void (*fn)(void *, int), void *arg, int value) {
  queue[tail++ % 16] = (struct event){fn, arg, value};
}

static void run(void) {
  while (head != tail) {
    struct event e = queue[head++ % 16];
    e.fn(e.arg, e.value);
  }
}

/* Asks for the price of an item. The answer does not come back here: the
   loop hands it to fn later, on a turn of its own. */
static void price(int item, void (*fn)(void *, int), void *arg) {
  post(fn, arg, item * 10);
}

/* What a shopper must remember between two callbacks. */
struct shopper {
  const char *name;
  int item, last;  /* the item asked for, the last one to ask for */
  int total;
};

static void got_price(void *arg, int p);

static void ask_next(struct shopper *s) {
  if (s->item <= s->last)
    price(s->item, got_price, s);    /* ... and return: got_price goes on */
  else
    printf("%s: total %d\n", s->name, s->total);
}

static void got_price(void *arg, int p) {
  struct shopper *s = arg;
  printf("%s: item %d costs %d\n", s->name, s->item, p);
  s->total += p;
  s->item++;
  ask_next(s);
}

int main(void) {
  struct shopper ann = {"ann", 1, 3, 0}, bob = {"bob", 4, 5, 0};
  ask_next(&ann);
  ask_next(&bob);
  run();
  return 0;
}
