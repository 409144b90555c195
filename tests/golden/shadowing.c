/* Locals in nested scopes, one shadowing another: each in the frame has a field of its own. */
#include <stdio.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
/* coroutine pairs (shadowing.coc:4), lowered by coroc into a state machine */
#line 4 "shadowing.coc"
typedef int coro_value_pairs;
/* the frame of pairs: its parameters and locals, kept across suspensions */
struct coro_frame_pairs {
  coro_t coro_base;  /* the runtime's header; must come first */
#line 4
  int n;  /* parameter */
  int i;
  int coro_i_2;
  int sum;
};
CORO_NODISCARD coro_t *pairs(int n);  /* it may call itself */
/* the body of pairs, resumed at resume_point */
#line 4
static bool coro_resume_pairs(coro_t *coro_c, void *coro_out) {
#line 4
  struct coro_frame_pairs *coro_f = (struct coro_frame_pairs *)coro_c;
  (void)coro_f, (void)coro_out;
#line 4
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 4
  case 1: goto coro_resume_1;  /* shadowing.coc:10 */
#line 4
  case 2: goto coro_resume_2;  /* shadowing.coc:12 */
#line 4
  case 3: goto coro_resume_3;  /* shadowing.coc:14 */
  }
#line 4
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  coro_f->i = 100;
  for (coro_f->coro_i_2 = 0; coro_f->coro_i_2 < coro_f->n; coro_f->coro_i_2++) {
    int sum = coro_f->coro_i_2;
    {
      int i = sum * 10;
      /* resume point 1: shadowing.coc:10 */
#line 10
      CORO_YIELD_KEEPING(coro_c, coro_out, 1, coro_value_pairs, (coro_f->sum = sum),
#line 10
            i);
#line 4
    coro_resume_1:; sum = coro_f->sum;  /* back from the frame */
#line 11
    }
    /* resume point 2: shadowing.coc:12 */
#line 12
    CORO_YIELD(coro_c, coro_out, 2, coro_value_pairs,
#line 12
          sum);
  coro_resume_2:;
  }
  /* resume point 3: shadowing.coc:14 */
#line 14
  CORO_YIELD(coro_c, coro_out, 3, coro_value_pairs,
#line 14
        coro_f->i);
coro_resume_3:;
#line 15
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 15
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of pairs's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_pairs[] __attribute__((used)) = {4, 10, 12, 14};
static const char coro_locals_pairs[] __attribute__((used)) = "n | i@5-15 coro_i_2=i@6-13 %sum@7-13";
/* pairs(...) makes an instance and runs nothing yet (lazy start) */
#line 4
coro_t *pairs(int n) {
#line 4
  struct coro_frame_pairs *coro_f = (struct coro_frame_pairs *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_pairs), coro_resume_pairs, CORO_GENERATOR);
#line 4
  coro_f->n = n;
#line 4
  return &coro_f->coro_base;
}
/* pairs(...) in storage the caller gives (CORO_FRAME(pairs)): no allocation */
#line 4
static inline __attribute__((unused)) coro_t *coro_in_pairs(struct coro_frame_pairs *coro_f, int n) {
#line 4
  coro_frame_init(&coro_f->coro_base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_pairs, CORO_GENERATOR);  /* a small frame zeroed whole, else its header */
#line 4
  coro_f->n = n;
#line 4
  return &coro_f->coro_base;
}
/* coro_next below calls pairs's body by name when the instance is one of its own: the compiler may inline it */
#line 4
static inline __attribute__((unused)) bool coro_next_of_pairs(coro_t *coro_g, void *coro_o) {
#line 4
  if (coro_g->resume == coro_resume_pairs) {
#line 4
    return coro_next_open(coro_g) ? coro_resume_pairs(coro_g, coro_o) : coro_next_slow(coro_g, coro_o);
  }
#line 4
  return coro_next(coro_g, coro_o);  /* another's: the one before */
}
/* coro_next(g, &v) with v a coro_value_pairs: only the inline body stores into v, every other way into a copy, so that v may stay in a register */
#line 4
static inline __attribute__((unused)) bool coro_next_to_pairs(coro_t *coro_g, coro_value_pairs *coro_o) {
#line 4
  if (__builtin_expect(coro_g->resume == coro_resume_pairs && coro_next_open(coro_g), 1)) {
#line 4
    return coro_resume_pairs(coro_g, coro_o);
  }
#line 4
  coro_value_pairs coro_v;  /* every other way stores here */
#line 4
  bool coro_r = coro_g->resume == coro_resume_pairs ? coro_next_slow(coro_g, &coro_v) : coro_next(coro_g, &coro_v);  /* another's: the one before */
#line 4
  return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);
}
#define CORO_NEXT_TO_1(out, other) _Generic((out), coro_value_pairs *: coro_next_to_pairs, default: _Generic((out), void *: other, default: coro_next))
/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(pairs): the compiler sees the whole life of an instance in a local */
#line 4
static inline __attribute__((unused)) bool coro_next_in_pairs(struct coro_frame_pairs *coro_f, void *coro_o) {
#line 4
  coro_t *coro_g = &coro_f->coro_base;
#line 4
  return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_pairs(coro_g, coro_o) : coro_next_refused_in(coro_g, "pairs");
}
#line 4
static inline __attribute__((unused)) void coro_free_in_pairs(struct coro_frame_pairs *coro_f) {
#line 4
  coro_free_refused_in(&coro_f->coro_base, "pairs");  /* nothing to give back */
}
#define CORO_NEXT_FRAMES_1 struct coro_frame_pairs *: coro_next_in_pairs,
#define CORO_FREE_FRAMES_1 struct coro_frame_pairs *: coro_free_in_pairs,
#undef coro_next
#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_1 default: CORO_NEXT_TO_1(out, coro_next_of_pairs))(gen, out)  /* from here on */
#undef coro_free
#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_1 default: coro_free_inline)(c)  /* from here on */
#line 15


int main(void) {
  coro_t *g = pairs(2);
  int v;
  while (coro_next(g, &v))
    printf("%d ", v);
  printf("\n");
  coro_free(g);
  return 0;
}
