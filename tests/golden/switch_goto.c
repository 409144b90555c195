/* A yield inside the user's own switch, and a goto across yields: the
   dispatch jumps to labels, so both still work. */
#include <stdio.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
/* coroutine tokens (switch_goto.coc:5), lowered by coroc into a state machine */
#line 5 "switch_goto.coc"
typedef int coro_value_tokens;
/* the frame of tokens: its parameters and locals, kept across suspensions */
struct coro_frame_tokens {
  coro_t coro_base;  /* the runtime's header; must come first */
#line 5
  const char *s;  /* parameter */
  int count;
};
CORO_NODISCARD coro_t *tokens(const char *s);  /* it may call itself */
/* the body of tokens, resumed at resume_point */
#line 5
static bool coro_resume_tokens(coro_t *coro_c, void *coro_out) {
#line 5
  struct coro_frame_tokens *coro_f = (struct coro_frame_tokens *)coro_c;
  (void)coro_f, (void)coro_out;
#line 5
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 5
  case 1: goto coro_resume_1;  /* switch_goto.coc:16 */
  }
#line 5
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  int count = 0;
again:
  switch (*coro_f->s) {
  case '\0':
    CORO_FINISH(coro_c);
  case ' ':
    coro_f->s++;
    goto again;
  default:
    count++;
    /* resume point 1: switch_goto.coc:16 */
#line 16
    CORO_YIELD_KEEPING(coro_c, coro_out, 1, coro_value_tokens, (coro_f->count = count),
#line 16
          *coro_f->s++);
#line 5
  coro_resume_1:; count = coro_f->count;  /* back from the frame */
#line 17
    break;
  }
  if (count < 10)
    goto again;
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 21
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of tokens's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_tokens[] __attribute__((used)) = {5, 16};
static const char coro_locals_tokens[] __attribute__((used)) = "s | %count@6-21";
/* tokens(...) makes an instance and runs nothing yet (lazy start) */
#line 5
coro_t *tokens(const char *s) {
#line 5
  struct coro_frame_tokens *coro_f = (struct coro_frame_tokens *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_tokens), coro_resume_tokens, CORO_GENERATOR);
#line 5
  coro_f->s = s;
#line 5
  return &coro_f->coro_base;
}
/* tokens(...) in storage the caller gives (CORO_FRAME(tokens)): no allocation */
#line 5
static inline __attribute__((unused)) coro_t *coro_in_tokens(struct coro_frame_tokens *coro_f, const char *s) {
#line 5
  coro_frame_init(&coro_f->coro_base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_tokens, CORO_GENERATOR);  /* a small frame zeroed whole, else its header */
#line 5
  coro_f->s = s;
#line 5
  return &coro_f->coro_base;
}
/* coro_next below calls tokens's body by name when the instance is one of its own: the compiler may inline it */
#line 5
static inline __attribute__((unused)) bool coro_next_of_tokens(coro_t *coro_g, void *coro_o) {
#line 5
  if (coro_g->resume == coro_resume_tokens) {
#line 5
    return coro_next_open(coro_g) ? coro_resume_tokens(coro_g, coro_o) : coro_next_slow(coro_g, coro_o);
  }
#line 5
  return coro_next(coro_g, coro_o);  /* another's: the one before */
}
/* coro_next(g, &v) with v a coro_value_tokens: only the inline body stores into v, every other way into a copy, so that v may stay in a register */
#line 5
static inline __attribute__((unused)) bool coro_next_to_tokens(coro_t *coro_g, coro_value_tokens *coro_o) {
#line 5
  if (__builtin_expect(coro_g->resume == coro_resume_tokens && coro_next_open(coro_g), 1)) {
#line 5
    return coro_resume_tokens(coro_g, coro_o);
  }
#line 5
  coro_value_tokens coro_v;  /* every other way stores here */
#line 5
  bool coro_r = coro_g->resume == coro_resume_tokens ? coro_next_slow(coro_g, &coro_v) : coro_next(coro_g, &coro_v);  /* another's: the one before */
#line 5
  return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);
}
#define CORO_NEXT_TO_1(out, other) _Generic((out), coro_value_tokens *: coro_next_to_tokens, default: _Generic((out), void *: other, default: coro_next))
/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(tokens): the compiler sees the whole life of an instance in a local */
#line 5
static inline __attribute__((unused)) bool coro_next_in_tokens(struct coro_frame_tokens *coro_f, void *coro_o) {
#line 5
  coro_t *coro_g = &coro_f->coro_base;
#line 5
  return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_tokens(coro_g, coro_o) : coro_next_refused_in(coro_g, "tokens");
}
#line 5
static inline __attribute__((unused)) void coro_free_in_tokens(struct coro_frame_tokens *coro_f) {
#line 5
  coro_free_refused_in(&coro_f->coro_base, "tokens");  /* nothing to give back */
}
#define CORO_NEXT_FRAMES_1 struct coro_frame_tokens *: coro_next_in_tokens,
#define CORO_FREE_FRAMES_1 struct coro_frame_tokens *: coro_free_in_tokens,
#undef coro_next
#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_1 default: CORO_NEXT_TO_1(out, coro_next_of_tokens))(gen, out)  /* from here on */
#undef coro_free
#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_1 default: coro_free_inline)(c)  /* from here on */
#line 21


int main(void) {
  coro_t *t = tokens("a b  c");
  char c;
  int n = 0;
  while (coro_next(t, &n) && (c = (char)n))
    putchar(c);
  putchar('\n');
  coro_free(t);
  return 0;
}
