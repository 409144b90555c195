/* stackful_cases.c: the stackful runtime (runtime/stackful.c, stack_*.c) through the
 * interface that coroc's generated code uses, without the transformer.
 *
 * Each generator below is written in the shape coroc --backend=stackful
 * emits: an args struct, a body function that yields with
 * CORO_STACKFUL_YIELD, an entry function that unpacks the args, and a
 * constructor that makes the instance and stores the args.
 *
 *   stackful_cases all [N]        every in-process case; N interleaved generators (default 10000)
 *   stackful_cases overflow KIND  print "instance ADDR", then overflow its stack; must die
 *                                 with the guard-page message. KIND: default | set | thread-default | nested
 *   stackful_cases misuse         coro_stackful_suspend outside any coroutine: must stop with a message
 *   stackful_cases lives N        N short-lived generators after a warm-up: prints the mappings
 *                                 and page faults they added (none expected)
 *   stackful_cases threads N      N threads one after another, each making and freeing a few
 *                                 generators: prints the mappings they added (none expected)
 *   stackful_cases elsewhere      a generator freed on another thread: must stop with a message
 *
 * A failed check prints "FILE:LINE: check failed: EXPR" and exits 1.
 */
#define _GNU_SOURCE   /* fesetround's friends are C99; this is for nothing else */

#include <coro.h>

#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHECK(expr)                                                                \
  do {                                                                             \
    if (!(expr)) {                                                                 \
      fflush(stdout);                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);     \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* A frame of about 1 KiB that the compiler must keep: a recursion of depth d
   uses about d KiB of stack. */
__attribute__((noinline)) static long deep_sum(int depth) {
  volatile char pad[1000];
  memset((char *)pad, depth & 0x7f, sizeof pad);
  long below = depth > 0 ? deep_sum(depth - 1) : 0;
  return below + pad[depth % 1000] + pad[999 - depth % 1000];
}

static long deep_sum_expected(int depth) {
  long s = 0;
  for (int d = 0; d <= depth; d++)
    s += 2 * (d & 0x7f);
  return s;
}

/* {==================================================================
 * Generators in the generated-code shape
 * =================================================================== */

/* coroutine long counter(long start, long count, long step) */
typedef long coro_value_counter;
struct coro_args_counter { long start, count, step; };
static void coro_body_counter(coro_t *coro_c, long start, long count, long step) {
  for (long i = 0; i < count; i++)
    CORO_STACKFUL_YIELD(coro_c, coro_value_counter, start + i * step);
}
static void coro_entry_counter(coro_t *coro_c) {
  struct coro_args_counter *coro_a = coro_stackful_args(coro_c);
  coro_body_counter(coro_c, coro_a->start, coro_a->count, coro_a->step);
}
static coro_t *counter(long start, long count, long step) {
  coro_t *coro_c = coro_stackful_new(coro_entry_counter, sizeof(struct coro_args_counter),
                                     _Alignof(struct coro_args_counter), CORO_GENERATOR);
  struct coro_args_counter *coro_a = coro_stackful_args(coro_c);
  coro_a->start = start;
  coro_a->count = count;
  coro_a->step = step;
  return coro_c;
}

/* coroutine long deep(int depth, int times): recursion, yielding from the bottom */
typedef long coro_value_deep;
struct coro_args_deep { int depth, times; };
static void deep_yield_at_bottom(coro_t *coro_c, int depth) {
  volatile char pad[1000];
  memset((char *)pad, 1, sizeof pad);
  if (depth > 0)
    deep_yield_at_bottom(coro_c, depth - 1);
  else
    CORO_STACKFUL_YIELD(coro_c, coro_value_deep, -1);   /* suspended with the whole recursion on the stack */
  CHECK(pad[0] == 1 && pad[999] == 1);
}
static void coro_body_deep(coro_t *coro_c, int depth, int times) {
  for (int i = 0; i < times; i++) {
    CORO_STACKFUL_YIELD(coro_c, coro_value_deep, deep_sum(depth));
    deep_yield_at_bottom(coro_c, depth);
  }
}
static void coro_entry_deep(coro_t *coro_c) {
  struct coro_args_deep *coro_a = coro_stackful_args(coro_c);
  coro_body_deep(coro_c, coro_a->depth, coro_a->times);
}
static coro_t *deep(int depth, int times) {
  coro_t *coro_c = coro_stackful_new(coro_entry_deep, sizeof(struct coro_args_deep),
                                     _Alignof(struct coro_args_deep), CORO_GENERATOR);
  struct coro_args_deep *coro_a = coro_stackful_args(coro_c);
  coro_a->depth = depth;
  coro_a->times = times;
  return coro_c;
}

/* coroutine long squares(coro_t *src): a stackful generator consuming another */
typedef long coro_value_squares;
struct coro_args_squares { coro_t *src; };
static void coro_body_squares(coro_t *coro_c, coro_t *src) {
  long v;
  while (coro_next(src, &v))
    CORO_STACKFUL_YIELD(coro_c, coro_value_squares, v * v);
}
static void coro_entry_squares(coro_t *coro_c) {
  struct coro_args_squares *coro_a = coro_stackful_args(coro_c);
  coro_body_squares(coro_c, coro_a->src);
}
static coro_t *squares(coro_t *src) {
  coro_t *coro_c = coro_stackful_new(coro_entry_squares, sizeof(struct coro_args_squares),
                                     _Alignof(struct coro_args_squares), CORO_GENERATOR);
  ((struct coro_args_squares *)coro_stackful_args(coro_c))->src = src;
  return coro_c;
}

/* coroutine int rounding(void): the rounding mode it finds at each resume;
   then it rounds upward until the next one */
typedef int coro_value_rounding;
struct coro_args_rounding { char coro_unused; };
static void coro_body_rounding(coro_t *coro_c) {
  for (int i = 0; i < 3; i++) {   /* (the mode only: valgrind does not round SSE arithmetic by it) */
    int seen = fegetround();
    fesetround(FE_UPWARD);
    CORO_STACKFUL_YIELD(coro_c, coro_value_rounding, seen);
  }
  fesetround(FE_TONEAREST);
}
static void coro_entry_rounding(coro_t *coro_c) {
  coro_body_rounding(coro_c);
}
static coro_t *rounding(void) {
  return coro_stackful_new(coro_entry_rounding, sizeof(struct coro_args_rounding),
                           _Alignof(struct coro_args_rounding), CORO_GENERATOR);
}

/* coroutine struct pair aligned(char tag, long n): over-aligned args and locals, struct values */
struct pair { double x; long double y; };
typedef struct pair coro_value_aligned;
struct coro_args_aligned { _Alignas(64) char tag; long n; };   /* more than malloc's alignment */
static void coro_body_aligned(coro_t *coro_c, char tag, long n) {
  _Alignas(64) char local = tag;              /* an over-aligned local on the coroutine's stack */
  CHECK((uintptr_t)&local % 64 == 0);
  for (long i = 0; i < n; i++)
    CORO_STACKFUL_YIELD(coro_c, coro_value_aligned, (struct pair){i * 0.5, (long double)i * local});
}
static void coro_entry_aligned(coro_t *coro_c) {
  struct coro_args_aligned *coro_a = coro_stackful_args(coro_c);
  coro_body_aligned(coro_c, coro_a->tag, coro_a->n);
}
static coro_t *aligned(char tag, long n) {
  coro_t *coro_c = coro_stackful_new(coro_entry_aligned, sizeof(struct coro_args_aligned),
                                     _Alignof(struct coro_args_aligned), CORO_GENERATOR);
  struct coro_args_aligned *coro_a = coro_stackful_args(coro_c);
  coro_a->tag = tag;
  coro_a->n = n;
  return coro_c;
}

/* coroutine long churn(long seed, int n): many values live across every
   yield, in registers if the compiler can. On x86_64 the yield and coro_next
   switch inline (coro.h), and the compiler saves only what the asm says it
   clobbers: a register missing from that list would come back from the
   other side changed. Each side keeps integers, doubles, a long double (x87)
   and a vector, and the other side churns through the same kinds. */
typedef long coro_value_churn;
typedef int churn_vec __attribute__((vector_size(16)));
struct coro_args_churn { long seed; int n; };
#define CHURN_VALUES(s, i)                                                               \
  long a0 = (s) + (i), a1 = (s) * 3 + (i), a2 = (s) ^ 0x55, a3 = (s) - 7 * (i),           \
       a4 = (s) << 2, a5 = (s) + 11, a6 = (s) * (i), a7 = ~(s), a8 = (s) + 2 * (i);         \
  double d0 = (double)(s) / 3, d1 = (double)(i) * 0.25, d2 = (double)(s) + 0.5,            \
         d3 = (double)(i) - 1.75, d4 = (double)(s) * (double)(i), d5 = 1.0 / ((s) + 1);    \
  long double x0 = (long double)(s) / 7 + (i);                                             \
  churn_vec v0 = {(int)(s), (int)(i), (int)(s) + 1, (int)(i) * 2}
#define CHURN_SUM() \
  (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + (long)(d0 + d1 + d2 + d3 + d4 + d5) + (long)x0 + \
   v0[0] + v0[1] + v0[2] + v0[3])
static long churn_expected(long s, long i) {
  volatile long vs = s, vi = i;   /* computed apart from the coroutine, the same way */
  CHURN_VALUES(vs, vi);
  return CHURN_SUM();
}
static void coro_body_churn(coro_t *coro_c, long seed, int n) {
  for (long i = 0; i < n; i++) {
    CHURN_VALUES(seed, i);
    long before = CHURN_SUM();
    CORO_STACKFUL_YIELD(coro_c, coro_value_churn, before);
    CHECK(CHURN_SUM() == before);   /* all of them as they were before the yield */
  }
}
static void coro_entry_churn(coro_t *coro_c) {
  struct coro_args_churn *coro_a = coro_stackful_args(coro_c);
  coro_body_churn(coro_c, coro_a->seed, coro_a->n);
}
static coro_t *churn(long seed, int n) {
  coro_t *coro_c = coro_stackful_new(coro_entry_churn, sizeof(struct coro_args_churn),
                                     _Alignof(struct coro_args_churn), CORO_GENERATOR);
  struct coro_args_churn *coro_a = coro_stackful_args(coro_c);
  coro_a->seed = seed;
  coro_a->n = n;
  return coro_c;
}

/* A hand-written stackless generator (the other backend's shape), to mix the two. */
struct evens_frame { struct coro coro; long i, n; };
static bool evens_resume(coro_t *c, void *out) {
  struct evens_frame *f = (struct evens_frame *)c;
  switch (coro_enter(c)) {
  case 1:
    goto coro_resume_1;
  }
  for (f->i = 0; f->i < f->n; f->i++) {
    CORO_YIELD(c, out, 1, long, 2 * f->i);
  coro_resume_1:;
  }
  CORO_FINISH(c);
}
static coro_t *evens(long n) {
  coro_t *c = coro_frame_new(sizeof(struct evens_frame), _Alignof(struct evens_frame), evens_resume, CORO_GENERATOR);
  ((struct evens_frame *)c)->n = n;
  return c;
}

/* coroutine long *where(int depth): yields the frame address at the bottom
   of a recursion of depth frames, to see which stack it runs on (a frame
   address, not a local's: under AddressSanitizer locals may live elsewhere) */
typedef long *coro_value_where;
struct coro_args_where { int depth; };
static void where_deep(coro_t *coro_c, int depth) {
  volatile char pad[128];
  pad[0] = (char)depth;
  if (depth > 0) {
    where_deep(coro_c, depth - 1);
  } else {
    CORO_STACKFUL_YIELD(coro_c, coro_value_where, (long *)__builtin_frame_address(0));
  }
  CHECK(pad[0] == (char)depth);
}
static void coro_entry_where(coro_t *coro_c) {
  where_deep(coro_c, ((struct coro_args_where *)coro_stackful_args(coro_c))->depth);
}
static coro_t *where(int depth) {
  coro_t *coro_c = coro_stackful_new(coro_entry_where, sizeof(struct coro_args_where),
                                     _Alignof(struct coro_args_where), CORO_GENERATOR);
  ((struct coro_args_where *)coro_stackful_args(coro_c))->depth = depth;
  return coro_c;
}

/* }================================================================== */

/* {==================================================================
 * The cases
 * =================================================================== */

static void case_basic(void) {
  coro_t *g = counter(10, 3, 5);
  CHECK(!coro_done(g));
  long v = 0;
  CHECK(coro_next(g, &v) && v == 10);
  CHECK(coro_next(g, NULL));                  /* out == NULL drops the value */
  CHECK(coro_next(g, &v) && v == 20);
  CHECK(!coro_done(g));                       /* suspended at its last value: not done yet */
  CHECK(!coro_next(g, &v) && v == 20);        /* the end leaves *out alone */
  CHECK(coro_done(g));
  CHECK(!coro_next(g, &v) && !coro_next(g, &v));
  coro_free(g);
  coro_free(NULL);
  printf("ok basic\n");
}

/* N generators alive at once, resumed round-robin: each keeps its own stack. */
static void case_interleaved(int n) {
  enum { K = 5 };
  coro_t **gens = malloc(sizeof *gens * (size_t)n);
  CHECK(gens);
  for (int i = 0; i < n; i++)
    gens[i] = counter(i, K, n);
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < n; i++) {
      long v = -1;
      CHECK(coro_next(gens[i], &v));
      CHECK(v == i + (long)k * n);
    }
  }
  for (int i = 0; i < n; i++) {
    CHECK(!coro_next(gens[i], NULL));
    CHECK(coro_done(gens[i]));
    coro_free(gens[i]);
  }
  free(gens);
  printf("ok interleaved %d\n", n);
}

/* ~100 KiB of recursion on the default 256 KiB stack, also suspended at the bottom of it. */
static void case_deep_recursion(void) {
  coro_t *g = deep(100, 3);
  long v;
  for (int i = 0; i < 3; i++) {
    CHECK(coro_next(g, &v) && v == deep_sum_expected(100));
    CHECK(coro_next(g, &v) && v == -1);
  }
  CHECK(!coro_next(g, &v));
  coro_free(g);
  printf("ok deep recursion\n");
}

/* A stackful generator resumed from inside another, and a generator whose
   resumer changes between main and another coroutine. */
static void case_nested(void) {
  coro_t *sq = squares(counter(1, 4, 1));
  long v, want[] = {1, 4, 9, 16};
  for (int i = 0; i < 4; i++)
    CHECK(coro_next(sq, &v) && v == want[i]);
  CHECK(!coro_next(sq, &v));
  coro_free(((struct coro_args_squares *)coro_stackful_args(sq))->src);
  coro_free(sq);

  coro_t *src = counter(0, 6, 1);
  coro_t *outer = squares(src);
  CHECK(coro_next(src, &v) && v == 0);        /* main resumes src... */
  CHECK(coro_next(outer, &v) && v == 1);      /* ...then outer does */
  CHECK(coro_next(src, &v) && v == 2);
  CHECK(coro_next(outer, &v) && v == 9);
  coro_free(outer);                           /* unfinished, suspended inside its own coro_next(src) */
  CHECK(coro_next(src, &v) && v == 4);        /* src is intact */
  coro_free(src);

  coro_t *mix = squares(evens(3));            /* stackful consuming stackless */
  long want2[] = {0, 4, 16};
  for (int i = 0; i < 3; i++)
    CHECK(coro_next(mix, &v) && v == want2[i]);
  CHECK(!coro_next(mix, &v));
  coro_free(((struct coro_args_squares *)coro_stackful_args(mix))->src);
  coro_free(mix);
  printf("ok nested\n");
}

/* The mappings of this process, to see that stacks are given back. */
static int count_mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return -1;
  int n = 0, ch;
  while ((ch = fgetc(f)) != EOF)
    n += ch == '\n';
  fclose(f);
  return n;
}

static void case_free(void) {
  int before = count_mappings();
  for (int round = 0; round < 200; round++) {
    coro_t *never = counter(0, 5, 1);         /* never started: no stack yet */
    coro_free(never);
    coro_t *once = counter(0, 5, 1);          /* suspended at its first yield */
    CHECK(coro_next(once, NULL));
    coro_free(once);
    coro_t *bottom = deep(50, 2);             /* suspended 50 KiB deep */
    CHECK(coro_next(bottom, NULL) && coro_next(bottom, NULL));
    coro_free(bottom);
    coro_t *done = counter(0, 1, 1);          /* finished: stack already gone */
    CHECK(coro_next(done, NULL) && !coro_next(done, NULL));
    coro_free(done);
  }
  int after = count_mappings();
  if (before >= 0)
    CHECK(after <= before + 2);               /* 800 stacks mapped, all given back */
  printf("ok free\n");
}

static void case_stack_size(void) {
  coro_t *g = deep(600, 1);                   /* ~600 KiB: needs more than the default */
  CHECK(coro_set_stack_size(g, 1024 * 1024));
  CHECK(coro_set_stack_size(g, 1024 * 1024 + 1));   /* rounded up to pages; still before the start */
  CHECK(!coro_set_stack_size(g, 0));
  long v;
  CHECK(coro_next(g, &v) && v == deep_sum_expected(600));
  CHECK(!coro_set_stack_size(g, 64 * 1024));  /* started */
  CHECK(coro_next(g, &v) && v == -1);
  CHECK(!coro_next(g, &v));
  CHECK(!coro_set_stack_size(g, 64 * 1024));  /* done */
  coro_free(g);

  coro_t *stackless = evens(2);
  CHECK(!coro_set_stack_size(stackless, 1024 * 1024));
  CHECK(coro_next(stackless, &v) && v == 0);
  coro_free(stackless);
  CHECK(!coro_set_stack_size(NULL, 4096));

  coro_default_stack_size(1024 * 1024);       /* from now on, in this thread */
  g = deep(600, 1);
  coro_default_stack_size(0);                 /* back to 256 KiB: g keeps its 1 MiB */
  CHECK(coro_next(g, &v) && v == deep_sum_expected(600));
  coro_free(g);
  printf("ok stack size\n");
}

/* The FP environment is the thread's by default: each side sees the mode
   the other left; an instance given its own (coro_set_fpenv) keeps it, and
   the consumer keeps its own. */
static void case_fp_control(void) {
  static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_TOWARDZERO};
  CHECK(fegetround() == FE_TONEAREST);
  coro_t *g = rounding();
  int seen = -1;
  for (int i = 0; i < 3; i++) {
    fesetround(modes[i]);                     /* the thread's mode... */
    CHECK(coro_next(g, &seen));
    CHECK(seen == modes[i]);                  /* ...is the body's when it goes on */
    CHECK(fegetround() == FE_UPWARD);         /* and the body's change is ours */
  }
  fesetround(FE_TONEAREST);
  CHECK(!coro_next(g, &seen));
  coro_free(g);

  g = rounding();
  CHECK(coro_set_fpenv(g, true));
  for (int i = 0; i < 3; i++) {
    fesetround(modes[i]);                     /* ours changes; its must not */
    CHECK(coro_next(g, &seen));
    CHECK(seen == (i == 0 ? modes[0] : FE_UPWARD));   /* it starts with its first resumer's, then keeps its own */
    CHECK(fegetround() == modes[i]);          /* and we keep ours */
  }
  CHECK(!coro_set_fpenv(g, false));           /* started: too late */
  fesetround(FE_TONEAREST);
  volatile double one = 1.0, three = 3.0;
  CHECK(one / three == 0.3333333333333333);
  CHECK(!coro_next(g, &seen));
  coro_free(g);
  printf("ok fp control\n");
}

/* Values live across coro_next on the consumer's side too, and two
   generators so that their contexts alternate. */
static void case_live_values(void) {
  enum { N = 1000 };
  coro_t *g = churn(1234567, N), *h = churn(-42, N);
  for (long i = 0; i < N; i++) {
    CHURN_VALUES(i * 31, i);
    long before = CHURN_SUM(), vg = 0, vh = 0;
    CHECK(coro_next(g, &vg) && coro_next(h, &vh));
    CHECK(CHURN_SUM() == before);
    CHECK(vg == churn_expected(1234567, i) && vh == churn_expected(-42, i));
  }
  CHECK(!coro_next(g, NULL) && !coro_next(h, NULL));
  coro_free(g);
  coro_free(h);
  printf("ok live values\n");
}

static void case_alignment(void) {
  coro_t *g = aligned(3, 4);
  CHECK((uintptr_t)coro_stackful_args(g) % 64 == 0);
  struct pair p;
  for (long i = 0; i < 4; i++)
    CHECK(coro_next(g, &p) && p.x == i * 0.5 && p.y == (long double)i * 3);
  CHECK(!coro_next(g, &p));
  coro_free(g);
  printf("ok alignment\n");
}

/* }================================================================== */

/* {==================================================================
 * Cases that must end the program
 * =================================================================== */

/* Non-static so that dladdr can name it in the report (tests link with -rdynamic). */
void coro_entry_overflow(coro_t *coro_c);
void coro_entry_overflow(coro_t *coro_c) {
  CORO_STACKFUL_YIELD(coro_c, long *, (long *)__builtin_frame_address(0));   /* (where its stack is: "reused") */
  printf("depth %ld\n", deep_sum(1 << 30));   /* never ends: runs into the guard page */
}

static coro_t *overflow(void) {
  return coro_stackful_new(coro_entry_overflow, 0, 1, CORO_GENERATOR);
}

static int run_overflow(const char *kind) {
  coro_t *g;
  if (strcmp(kind, "default") == 0) {
    g = overflow();
  } else if (strcmp(kind, "set") == 0) {
    g = overflow();
    CHECK(coro_set_stack_size(g, 64 * 1024));
  } else if (strcmp(kind, "thread-default") == 0) {
    coro_default_stack_size(128 * 1024);
    g = overflow();
  } else if (strcmp(kind, "reused") == 0) {  /* on a stack another instance used and gave back */
    long *first = NULL, *mine = NULL;
    coro_t *before = where(2);
    CHECK(coro_next(before, &first) && !coro_next(before, &first));
    coro_free(before);
    g = overflow();
    CHECK(coro_next(g, &mine));
    /* the same stack: its frame a few frames from the other's (another
       stack's would be a whole stack and guard page away) */
    CHECK(labs((long)((char *)mine - (char *)first)) < 16 * 1024);
    printf("instance %p\n", (void *)g);
    fflush(stdout);
    coro_next(g, NULL);
    printf("still alive after the overflow\n");
    return 0;
  } else if (strcmp(kind, "nested") == 0) {
    g = overflow();                           /* resumed from inside another stackful generator */
    coro_t *outer = squares(g);
    CHECK(coro_next(outer, NULL));            /* g started: it yielded 0 through outer */
    printf("instance %p\n", (void *)g);
    fflush(stdout);
    coro_next(outer, NULL);
    return 0;
  } else {
    fprintf(stderr, "unknown overflow kind %s\n", kind);
    return 2;
  }
  CHECK(coro_next(g, NULL));
  printf("instance %p\n", (void *)g);
  fflush(stdout);
  coro_next(g, NULL);
  printf("still alive after the overflow\n");
  return 0;
}

/* }================================================================== */

/* Shared-stack instances: deep recursion suspended at its bottom (about
   100 KiB of frames copied out and back, their values checked), many
   generators interleaved with it, a shared-stack generator consuming one
   with a stack of its own, and the counters of what was copied. */
static __attribute__((unused)) void case_shared_stack(int n) {   /* (not in the ucontext build) */
  struct coro_stack_stats before, after;
  coro_shared_stack_stats(&before);
  coro_t *a = deep(100, 3), *b = deep(50, 3);
  CHECK(coro_set_shared_stack(a, true) && coro_set_shared_stack(b, true));
  coro_t **g = malloc(sizeof *g * (size_t)n);
  CHECK(g);
  for (int i = 0; i < n; i++) {
    g[i] = counter(i, 3, n);
    CHECK(coro_set_shared_stack(g[i], true));
  }
  coro_t *sq = squares(counter(1, 3, 1));   /* its source keeps a stack of its own */
  CHECK(coro_set_shared_stack(sq, true));
  long va = 0, vb = 0, v = 0;
  for (int r = 0; r < 3; r++) {
    CHECK(coro_next(a, &va) && va == deep_sum_expected(100));
    CHECK(coro_next(b, &vb) && vb == deep_sum_expected(50));
    for (int i = 0; i < n; i++) {
      CHECK(coro_next(g[i], &v));
      CHECK(v == i + (long)r * n);
    }
    CHECK(coro_next(sq, &v) && v == (long)(r + 1) * (r + 1));
    CHECK(coro_next(a, &va) && va == -1);   /* a suspended at the bottom of 100 frames of 1000 bytes */
    CHECK(coro_next(b, &vb) && vb == -1);   /* and b at the bottom of 50: a's are copied out */
  }
  CHECK(!coro_set_shared_stack(a, false));  /* started: too late */
  CHECK(!coro_next(a, &va) && !coro_next(b, &vb) && !coro_next(sq, &v));
  for (int i = 0; i < n; i++) {
    CHECK(!coro_next(g[i], NULL));
    coro_free(g[i]);
  }
  coro_free(a);
  coro_free(b);
  coro_free(sq);
  free(g);
  coro_shared_stack_stats(&after);
  CHECK(after.copies_out - before.copies_out >= 3 * (unsigned long long)n);
  CHECK(after.bytes_out - before.bytes_out >= 3 * 100 * 1000ull);   /* a's recursion, three times */
  CHECK(after.copies_in - before.copies_in >= 3 * (unsigned long long)n);
  printf("ok shared stack %d\n", n);
}

/* Two counters resumed in turn to their end, then freed: how many times
   their frames were copied out of the shared stack meanwhile (0 unless
   both run on it). */
static unsigned long long copies_alternating(coro_t *x, coro_t *y) {
  struct coro_stack_stats before, after;
  coro_shared_stack_stats(&before);
  long v = -1;
  for (long i = 0; i < 3; i++) {
    CHECK(coro_next(x, &v) && v == i);
    CHECK(coro_next(y, &v) && v == 10 + i);
  }
  CHECK(!coro_next(x, &v) && !coro_next(y, &v));
  coro_free(x);
  coro_free(y);
  coro_shared_stack_stats(&after);
  return after.copies_out - before.copies_out;
}

/* The thread's default (coro_default_shared_stack): instances made while
   it is on run on the shared stack with no coro_set_shared_stack, except
   one that says otherwise and one first resumed from inside a shared-stack
   instance, which gets a stack of its own instead of stopping the program
   (an explicit coro_set_shared_stack(c, true) would). Instances made
   before or after keep stacks of their own. */
static __attribute__((unused)) void case_shared_default(void) {   /* (not in the ucontext build) */
  coro_t *before = counter(0, 3, 1);           /* made before: a stack of its own */
  coro_default_shared_stack(true);
  CHECK(copies_alternating(counter(0, 3, 1), counter(10, 3, 1)) >= 4);   /* both shared */
  coro_t *mine = counter(10, 3, 1);
  CHECK(coro_set_shared_stack(mine, false));   /* this one not */
  CHECK(copies_alternating(counter(0, 3, 1), mine) == 0);
  CHECK(copies_alternating(before, counter(10, 3, 1)) == 0);
  /* nested: a shared generator consuming another made under the default */
  coro_t *sq = squares(counter(1, 3, 1));
  long v = 0;
  for (long r = 1; r <= 3; r++)
    CHECK(coro_next(sq, &v) && v == r * r);
  CHECK(!coro_next(sq, &v));
  coro_free(sq);
  /* many at once, interleaved */
  enum { N = 200 };
  coro_t *g[N];
  for (int i = 0; i < N; i++)
    g[i] = counter(i, 2, N);
  struct coro_stack_stats st0, st1;
  coro_shared_stack_stats(&st0);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < N; i++)
      CHECK(coro_next(g[i], &v) && v == i + (long)r * N);
  coro_shared_stack_stats(&st1);
  CHECK(st1.copies_out - st0.copies_out >= 2 * N - 1);
  for (int i = 0; i < N; i++)
    coro_free(g[i]);
  coro_default_shared_stack(false);
  CHECK(copies_alternating(counter(0, 3, 1), counter(10, 3, 1)) == 0);   /* stacks of their own again */
  printf("ok shared default\n");
}

/* coroutine long leak(void): hands out the address of one of its locals */
typedef long *coro_value_leak;
struct coro_args_leak { char coro_unused; };
static void leak_deep(coro_t *coro_c, int depth) {   /* so that its local lies below what a shallow body uses,
                                                         and below the 16 KiB under it that ASan unpoisons */
  volatile char pad[256];
  pad[0] = (char)depth;
  if (depth > 0) {
    leak_deep(coro_c, depth - 1);
  } else {
    long local = 42;
    CORO_STACKFUL_YIELD(coro_c, coro_value_leak, &local);
    CORO_STACKFUL_YIELD(coro_c, coro_value_leak, &local);
  }
  CHECK(pad[0] == (char)depth);
}
static void coro_body_leak(coro_t *coro_c) {
  leak_deep(coro_c, 96);
}
static void coro_entry_leak(coro_t *coro_c) {
  coro_body_leak(coro_c);
}
static coro_t *leak(void) {
  return coro_stackful_new(coro_entry_leak, sizeof(struct coro_args_leak), _Alignof(struct coro_args_leak), CORO_GENERATOR);
}

/* The hazard of shared stacks: a pointer into a suspended instance's stack,
   used after another instance was resumed. Under AddressSanitizer the read
   is reported (the frames copied out are poisoned); elsewhere it reads
   whatever is there. */
static void run_shared_dangling(void) {
  coro_t *a = leak(), *b = counter(0, 1, 1);
  CHECK(coro_set_shared_stack(a, true) && coro_set_shared_stack(b, true));
  long *p = NULL, v = 0;
  CHECK(coro_next(a, &p) && *p == 42);   /* a is the owner: its stack is there */
  CHECK(coro_next(b, &v));               /* a's frames copied out; b's in their place */
  printf("read through the pointer: %ld\n", *(volatile long *)p);
  fflush(stdout);
  coro_free(a);
  coro_free(b);
}

/* The same, and a write through the stale pointer: libcoro built without
   NDEBUG (and without ASan) has filled the place with its poison byte
   (0xa5), which the read shows, and stops at the next resume with a
   message naming a, whose frames were there. */
static void run_shared_stale_write(void) {
  coro_t *a = leak(), *b = counter(0, 3, 1);
  CHECK(coro_set_shared_stack(a, true) && coro_set_shared_stack(b, true));
  long *p = NULL, v = 0;
  CHECK(coro_next(a, &p) && *p == 42);   /* a is the owner: its stack is there */
  CHECK(coro_next(b, &v) && v == 0);     /* a's frames copied out; b's in their place */
  printf("instance %p\n", (void *)a);
  printf("read through the pointer: %lx\n", *(volatile unsigned long *)p);
  fflush(stdout);
  *(volatile long *)p = 7;               /* the write the check catches */
  CHECK(coro_next(b, &v) && v == 1);     /* (not reached with the check) */
  printf("resumed after the write\n");
  coro_free(a);
  coro_free(b);
}

/* Running out of stacks is reported, not fatal: with the address space
   limited (RLIMIT_AS) to a little more than the process has, instances are
   started until the kernel refuses a stack. That coro_next answers false
   with errno ENOMEM, the instance is still as made, coro_error names the
   limit, and once others are freed the same instance starts. */
static void case_stack_limit(void) {
  enum { MAX = 4096 };
  coro_t **gens = calloc(MAX, sizeof *gens);
  CHECK(gens);
  struct rlimit old, low;
  CHECK(getrlimit(RLIMIT_AS, &old) == 0);
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  CHECK(f && fscanf(f, "%ld", &pages) == 1);
  fclose(f);
  low = old;
  low.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)96 << 20);
  CHECK(setrlimit(RLIMIT_AS, &low) == 0);
  coro_default_stack_size(1 << 20);   /* 96 MiB: a hundred stacks at most */
  int n = 0, failed = -1;
  for (; n < MAX; n++) {
    gens[n] = counter(n, 2, 1);
    long v = -1;
    errno = 0;
    if (!coro_next(gens[n], &v)) {
      failed = n;
      break;
    }
    CHECK(v == n);
  }
  CHECK(failed > 0 && failed < MAX);
  CHECK(errno == ENOMEM);
  CHECK(!coro_done(gens[failed]));
  const char *why = coro_error(gens[failed]);
  CHECK(why && strstr(why, "1048576 bytes") && strstr(why, "vm.max_map_count") &&
        strstr(why, "coro_default_stack_size"));
  CHECK(coro_error(gens[0]) == NULL);   /* (a started instance has no such error) */
  for (int i = 0; i < failed; i++) {    /* room again */
    coro_free(gens[i]);
    gens[i] = NULL;
  }
  long v = -1;
  CHECK(coro_next(gens[failed], &v) && v == failed);   /* the same instance starts now */
  CHECK(coro_error(gens[failed]) == NULL);
  coro_free(gens[failed]);
  CHECK(setrlimit(RLIMIT_AS, &old) == 0);
  coro_default_stack_size(0);
  free(gens);
  printf("ok stack limit (refused after %d)\n", failed);
}

/* Short-lived generators one after another, each on the stack the one
   before gave back (the thread's cache of stacks, which a new instance
   takes at its creation): n lives of a generator of three values run to its
   end, with ones freed before their start or half-way among them, and the
   settings a new instance may still take before its start (stack size, FP
   environment, the shared stack), each honoured on a stack taken at the
   creation. */
static void case_lives(int n) {
  for (int i = 0; i < n; i++) {
    coro_t *g = counter(i, 3, 2);
    long v = -1;
    int k = 0;
    while (coro_next(g, &v)) {
      CHECK(v == i + 2L * k);
      k++;
    }
    CHECK(k == 3 && coro_done(g));
    coro_free(g);
    if (i % 7 == 0)
      coro_free(counter(0, 1, 1));            /* never started */
    if (i % 11 == 0) {
      coro_t *half = counter(5, 3, 1);        /* freed suspended */
      CHECK(coro_next(half, &v) && v == 5);
      coro_free(half);
    }
  }
  /* two in a row land on the same stack: the second's frame where the first's was */
  coro_t *a = where(4);
  long *pa = NULL, *pb = NULL;
  CHECK(coro_next(a, &pa) && pa);
  CHECK(!coro_next(a, &pa));
  coro_free(a);
  coro_t *b = where(4);
  CHECK(coro_next(b, &pb));
  CHECK(pb == pa);
  CHECK(!coro_next(b, &pb));
  coro_free(b);
  /* settings before the start, on an instance that took a cached stack */
  coro_t *g = deep(600, 1);                   /* ~600 KiB: more than the cached 256 KiB stacks */
  CHECK(coro_set_stack_size(g, 1024 * 1024));
  long v;
  CHECK(coro_next(g, &v) && v == deep_sum_expected(600));
  coro_free(g);
  g = counter(3, 2, 1);
  CHECK(coro_set_stack_size(g, 256 * 1024));  /* the size it has: it keeps its stack */
  CHECK(coro_next(g, &v) && v == 3 && coro_next(g, &v) && v == 4 && !coro_next(g, &v));
  coro_free(g);
  fesetround(FE_DOWNWARD);
  g = rounding();
  CHECK(coro_set_fpenv(g, true));             /* its environment: the one of its first resume */
  fesetround(FE_TOWARDZERO);
  int seen = -1;
  CHECK(coro_next(g, &seen) && seen == FE_TOWARDZERO);
  CHECK(fegetround() == FE_TOWARDZERO);       /* the body's FE_UPWARD stayed its own */
  coro_free(g);
  fesetround(FE_TONEAREST);
#ifndef CORO_SWITCH_UCONTEXT
  g = counter(8, 2, 1);
  CHECK(coro_set_shared_stack(g, true));
  CHECK(coro_next(g, &v) && v == 8 && coro_next(g, &v) && v == 9 && !coro_next(g, &v));
  coro_free(g);
#endif
  printf("ok lives %d\n", n);
}

/* Instances kept whole with their stacks (runtime/stack_cache.c, "Kept
   instances"): a freed instance and its stack become the next instance of
   the thread, whatever its coroutine, when they are big enough. Each new
   one still starts from its own arguments, zeroed where its maker set
   none, and yields its own values; once the thread has an allocator, every
   instance comes from it, none from what was kept. */
static long allocs_made;
static void *count_alloc(size_t bytes, size_t align, void *ctx) {
  (void)ctx;
  allocs_made++;
  return aligned_alloc(align, (bytes + align - 1) / align * align);
}
static void count_free(void *p, size_t bytes, void *ctx) {
  (void)bytes, (void)ctx;
  free(p);
}

static void case_kept(void) {
  long v;
  for (int i = 0; i < 50; i++) {
    /* one that ended, then others of larger, fewer and over-aligned arguments */
    coro_t *g = counter(i, 3, 1);
    while (coro_next(g, &v))
      ;
    coro_free(g);
    g = aligned('k', 2);
    CHECK((uintptr_t)coro_stackful_args(g) % 64 == 0);
    struct pair p;
    CHECK(coro_next(g, &p) && p.x == 0 && coro_next(g, &p) && p.x == 0.5);
    coro_free(g);   /* freed suspended */
    g = counter(i, 1, 1);
    coro_free(g);   /* never started */
    g = deep(2, 1);
    CHECK(coro_next(g, &v) && v == deep_sum_expected(2));
    coro_free(g);
    g = squares(counter(i, 2, 1));   /* one inside another: two kept at once */
    CHECK(coro_next(g, &v) && v == (long)i * i && coro_next(g, &v) && v == (long)(i + 1) * (i + 1));
    CHECK(!coro_next(g, &v));
    coro_free(((struct coro_args_squares *)coro_stackful_args(g))->src);
    coro_free(g);
  }
  /* the arguments of a new instance read as zeros, whatever the one before held */
  coro_t *g = counter(7, 7, 7);
  CHECK(coro_next(g, &v) && v == 7);
  coro_free(g);
  g = coro_stackful_new(coro_entry_counter, sizeof(struct coro_args_counter), _Alignof(struct coro_args_counter),
                        CORO_GENERATOR);
  struct coro_args_counter *a = coro_stackful_args(g);
  CHECK(a->start == 0 && a->count == 0 && a->step == 0);
  CHECK(g->status == CORO_CREATED && !coro_done(g));
  CHECK(!coro_next(g, &v) && coro_done(g));   /* count 0: no values */
  coro_free(g);
  /* an allocator set: every instance from it, although some were kept */
  allocs_made = 0;
  coro_set_allocator(&(struct coro_allocator){count_alloc, count_free, NULL});
  for (int i = 0; i < 5; i++) {
    g = counter(i, 2, 1);
    CHECK(coro_next(g, &v) && v == i && coro_next(g, &v) && v == i + 1 && !coro_next(g, &v));
    coro_free(g);
  }
  coro_set_allocator(NULL);
  CHECK(allocs_made == 5);
  printf("ok kept\n");
}

/* Threads that each make, run and free a few generators and end: what they
   kept (instances with their stacks) goes back at their end, so that n of
   them one after another add no mapping (printed: "threads: mappings +M";
   test_runtime.py checks it is 0 where the mappings are the process's own). */
static void *thread_lives(void *arg) {
  long v;
  for (int i = 0; i < 3; i++) {
    coro_t *g = counter(i, 3, 1);
    while (coro_next(g, &v))
      ;
    coro_free(g);
  }
  coro_t *g = counter(0, 3, 1);
  CHECK(coro_next(g, &v) && v == 0);
  coro_free(g);   /* freed suspended */
  return arg;
}

/* A stackful instance freed on another thread than its maker's: refused,
   as any instance from the slabs is (runtime/registry.c), not kept by the
   thread that frees it. */
static void *free_it(void *c) {
  coro_free(c);
  return NULL;
}

static void run_free_elsewhere(void) {
  coro_t *g = counter(0, 1, 1);
  long v;
  CHECK(coro_next(g, &v) && !coro_next(g, &v));
  pthread_t t;
  CHECK(pthread_create(&t, NULL, free_it, g) == 0 && pthread_join(t, NULL) == 0);
  printf("freed on another thread\n");
}

static void run_thread_lives(int n) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_lives, NULL) == 0 && pthread_join(t, NULL) == 0);
  int before = count_mappings();
  for (int i = 0; i < n; i++)
    CHECK(pthread_create(&t, NULL, thread_lives, NULL) == 0 && pthread_join(t, NULL) == 0);
  printf("threads: mappings +%d\n", count_mappings() - before);
}

/* The steady state of short-lived generators: after a few, n more make no
   new mapping and touch no new page (printed: "lives: mappings +M faults F";
   test_runtime.py checks both are 0 where page faults are the process's
   own, not an emulator's or a sanitizer's). */
static void run_lives_steady(int n) {
  long sum = 0;
  for (int i = 0; i < 100; i++) {
    coro_t *g = counter(i, 3, 1);
    long v;
    while (coro_next(g, &v))
      sum += v;
    coro_free(g);
  }
  int before = count_mappings();
  struct rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  for (int i = 0; i < n; i++) {
    coro_t *g = counter(i, 3, 1);
    long v;
    while (coro_next(g, &v))
      sum += v;
    coro_free(g);
  }
  getrusage(RUSAGE_SELF, &r1);
  int after = count_mappings();
  CHECK(sum == 3L * 99 * 100 / 2 + 300 + 3L * (n - 1) * n / 2 + 3L * n);
  printf("lives: mappings +%d faults %ld\n", after - before, r1.ru_minflt - r0.ru_minflt);
}

/* n generators alive at once with the default stack size, each started and
   resumed once more in turn: 100,000 need more than vm.max_map_count's
   default 65,530 mappings if every stack and guard page were one. */
static void case_many(int n) {
  coro_t **gens = malloc(sizeof *gens * (size_t)n);
  CHECK(gens);
  for (int i = 0; i < n; i++)
    gens[i] = counter(i, 2, n);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n; i++) {
      long v = -1;
      CHECK(coro_next(gens[i], &v));
      CHECK(v == i + (long)k * n);
    }
  for (int i = 0; i < n; i++)
    coro_free(gens[i]);
  free(gens);
  printf("ok many %d\n", n);
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "all";
  if (strcmp(what, "overflow") == 0 && argc > 2)
    return run_overflow(argv[2]);
  if (strcmp(what, "dangling") == 0) {
    run_shared_dangling();
    return 0;
  }
  if (strcmp(what, "limit") == 0) {
    case_stack_limit();
    return 0;
  }
  if (strcmp(what, "lives") == 0 && argc > 2) {
    run_lives_steady(atoi(argv[2]));
    return 0;
  }
  if (strcmp(what, "elsewhere") == 0) {
    run_free_elsewhere();
    return 0;
  }
  if (strcmp(what, "threads") == 0 && argc > 2) {
    run_thread_lives(atoi(argv[2]));
    return 0;
  }
  if (strcmp(what, "many") == 0 && argc > 2) {
    case_many(atoi(argv[2]));
    return 0;
  }
  if (strcmp(what, "stale-write") == 0) {
    run_shared_stale_write();
    return 0;
  }
  if (strcmp(what, "shared-env") == 0) {     /* CORO_SHARED_STACK in the environment says */
    printf("copies %llu\n", copies_alternating(counter(0, 3, 1), counter(10, 3, 1)));
    return 0;
  }
  if (strcmp(what, "misuse") == 0) {
    coro_t *g = counter(0, 1, 1);
    coro_stackful_suspend(g);
    printf("suspended outside its body\n");
    return 0;
  }
  if (strcmp(what, "all") != 0) {
    fprintf(stderr, "usage: stackful_cases all [N] | overflow KIND | limit | many N | lives N | threads N | elsewhere | dangling | stale-write | shared-env | misuse\n");
    return 2;
  }
  case_basic();
  case_interleaved(argc > 2 ? atoi(argv[2]) : 10000);
  case_deep_recursion();
  case_nested();
  case_free();
  case_stack_size();
  case_fp_control();
  case_live_values();
  case_alignment();
  case_lives(argc > 2 ? atoi(argv[2]) : 10000);
  case_kept();
#ifndef CORO_SWITCH_UCONTEXT
  case_shared_stack(argc > 2 ? atoi(argv[2]) / 10 : 1000);
  case_shared_default();
#else
  coro_t *g = counter(0, 1, 1);
  CHECK(!coro_set_shared_stack(g, true));   /* not offered with ucontext */
  coro_free(g);
  coro_default_shared_stack(true);          /* nor by default */
  CHECK(copies_alternating(counter(0, 3, 1), counter(10, 3, 1)) == 0);
  coro_default_shared_stack(false);
  printf("ok shared stack refused\n");
#endif
  printf("OK\n");
  return 0;
}
