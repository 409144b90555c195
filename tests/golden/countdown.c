/* The smallest generator: a countdown. */
#include <stdio.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
/* coroutine countdown (countdown.coc:4), lowered by coroc into a state machine */
#line 4 "countdown.coc"
typedef int coro_value_countdown;
/* the frame of countdown: its parameters and locals, kept across suspensions */
struct coro_frame_countdown {
  coro_t coro_base;  /* the runtime's header; must come first */
#line 4
  int from;  /* parameter */
};
CORO_NODISCARD coro_t *countdown(int from);  /* it may call itself */
/* the body of countdown, resumed at resume_point */
#line 4
static bool coro_resume_countdown(coro_t *coro_c, void *coro_out) {
#line 4
  struct coro_frame_countdown *coro_f = (struct coro_frame_countdown *)coro_c;
  (void)coro_f, (void)coro_out;
#line 4
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 4
  case 1: goto coro_resume_1;  /* countdown.coc:6 */
  }
#line 4
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  while (coro_f->from > 0) {
    /* resume point 1: countdown.coc:6 */
#line 6
    CORO_YIELD(coro_c, coro_out, 1, coro_value_countdown,
#line 6
          coro_f->from--);
  coro_resume_1:;
  }
#line 7
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 7
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of countdown's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_countdown[] __attribute__((used)) = {4, 6};
static const char coro_locals_countdown[] __attribute__((used)) = "from";
/* countdown(...) makes an instance and runs nothing yet (lazy start) */
#line 4
coro_t *countdown(int from) {
#line 4
  struct coro_frame_countdown *coro_f = (struct coro_frame_countdown *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_countdown), coro_resume_countdown, CORO_GENERATOR);
#line 4
  coro_f->from = from;
#line 4
  return &coro_f->coro_base;
}
/* countdown(...) in storage the caller gives (CORO_FRAME(countdown)): no allocation */
#line 4
static inline __attribute__((unused)) coro_t *coro_in_countdown(struct coro_frame_countdown *coro_f, int from) {
#line 4
  coro_frame_init(&coro_f->coro_base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_countdown, CORO_GENERATOR);  /* a small frame zeroed whole, else its header */
#line 4
  coro_f->from = from;
#line 4
  return &coro_f->coro_base;
}
/* coro_next below calls countdown's body by name when the instance is one of its own: the compiler may inline it */
#line 4
static inline __attribute__((unused)) bool coro_next_of_countdown(coro_t *coro_g, void *coro_o) {
#line 4
  if (coro_g->resume == coro_resume_countdown) {
#line 4
    return coro_next_open(coro_g) ? coro_resume_countdown(coro_g, coro_o) : coro_next_slow(coro_g, coro_o);
  }
#line 4
  return coro_next(coro_g, coro_o);  /* another's: the one before */
}
/* coro_next(g, &v) with v a coro_value_countdown: only the inline body stores into v, every other way into a copy, so that v may stay in a register */
#line 4
static inline __attribute__((unused)) bool coro_next_to_countdown(coro_t *coro_g, coro_value_countdown *coro_o) {
#line 4
  if (__builtin_expect(coro_g->resume == coro_resume_countdown && coro_next_open(coro_g), 1)) {
#line 4
    return coro_resume_countdown(coro_g, coro_o);
  }
#line 4
  coro_value_countdown coro_v;  /* every other way stores here */
#line 4
  bool coro_r = coro_g->resume == coro_resume_countdown ? coro_next_slow(coro_g, &coro_v) : coro_next(coro_g, &coro_v);  /* another's: the one before */
#line 4
  return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);
}
#define CORO_NEXT_TO_1(out, other) _Generic((out), coro_value_countdown *: coro_next_to_countdown, default: _Generic((out), void *: other, default: coro_next))
/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(countdown): the compiler sees the whole life of an instance in a local */
#line 4
static inline __attribute__((unused)) bool coro_next_in_countdown(struct coro_frame_countdown *coro_f, void *coro_o) {
#line 4
  coro_t *coro_g = &coro_f->coro_base;
#line 4
  return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_countdown(coro_g, coro_o) : coro_next_refused_in(coro_g, "countdown");
}
#line 4
static inline __attribute__((unused)) void coro_free_in_countdown(struct coro_frame_countdown *coro_f) {
#line 4
  coro_free_refused_in(&coro_f->coro_base, "countdown");  /* nothing to give back */
}
#define CORO_NEXT_FRAMES_1 struct coro_frame_countdown *: coro_next_in_countdown,
#define CORO_FREE_FRAMES_1 struct coro_frame_countdown *: coro_free_in_countdown,
#undef coro_next
#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_1 default: CORO_NEXT_TO_1(out, coro_next_of_countdown))(gen, out)  /* from here on */
#undef coro_free
#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_1 default: coro_free_inline)(c)  /* from here on */
#line 7


int main(void) {
  coro_t *c = countdown(3);
  int v;
  while (coro_next(c, &v))
    printf("%d\n", v);
  coro_free(c);
  return 0;
}
