/* Locals with a cleanup: called at the exits of their scope, and by
   coro_free of an instance suspended in it (coro_cleanup_words). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void release(char **p) {
  printf("release %s\n", *p);
  free(*p);
}

static void done(int *n) {
  printf("done %d\n", *n);
}

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
/* coroutine words (cleanup.coc:16), lowered by coroc into a state machine */
#line 16 "cleanup.coc"
typedef char *coro_value_words;
/* the frame of words: its parameters and locals, kept across suspensions */
struct coro_frame_words {
  coro_t coro_base;  /* the runtime's header; must come first */
  void (*coro_cleanup)(coro_t *coro_c);  /* right after the header: coro_free runs it (CORO_CLEANUP) */
#line 16
  int n;  /* parameter */
  char *buf;
#line 25
  int scratch;
#line 18
  int i;
  int mark;
};
CORO_NODISCARD coro_t *words(int n);  /* it may call itself */
/* the body of words, resumed at resume_point */
#line 16
static bool coro_resume_words(coro_t *coro_c, void *coro_out) {
#line 16
  struct coro_frame_words *coro_f = (struct coro_frame_words *)coro_c;
  (void)coro_f, (void)coro_out;
#line 16
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 16
  case 1: goto coro_resume_1;  /* cleanup.coc:22 */
#line 16
  case 2: goto coro_resume_2;  /* cleanup.coc:23 */
  }
#line 16
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  coro_f->buf = strdup("buf");
  for (int i = 0; i < coro_f->n; i++) {
    coro_f->mark = i;
    if (i == 2)
      { done(&coro_f->mark); break; }  /* cleanups: leaving their scope */
    /* resume point 1: cleanup.coc:22 */
#line 22
    CORO_YIELD_KEEPING(coro_c, coro_out, 1, coro_value_words, (coro_f->i = i),
#line 22
          coro_f->buf);
#line 16
  coro_resume_1:; i = coro_f->i;  /* back from the frame */
#line 23
    /* resume point 2: cleanup.coc:23 */
#line 23
    CORO_YIELD_KEEPING(coro_c, coro_out, 2, coro_value_words, (coro_f->i = i),
#line 23
          "again");
#line 16
  coro_resume_2:; i = coro_f->i;  /* back from the frame */
#line 24
    done(&coro_f->mark);  /* cleanups: leaving their scope */
  }
#line 25
  coro_f->scratch = -1;
  (void)coro_f->scratch;
  done(&coro_f->scratch); release(&coro_f->buf);  /* cleanups: leaving their scope */
#line 27
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 27
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of words's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_words[] __attribute__((used)) = {16, 22, 23};
static const char coro_locals_words[] __attribute__((used)) = "n | buf@17-27 %i@18-24 mark@19-24 scratch@25-27";
/* coro_free of words suspended: its cleanups in scope where it stopped, innermost first */
#line 16
static void coro_cleanup_words(coro_t *coro_c) {
#line 16
  struct coro_frame_words *coro_f = (struct coro_frame_words *)coro_c;
  (void)coro_f;
#line 16
  switch (coro_c->resume_point) {
#line 16
  case 1:  /* cleanup.coc:22 */
#line 16
    done(&coro_f->mark); release(&coro_f->buf);
    break;
#line 16
  case 2:  /* cleanup.coc:23 */
#line 16
    done(&coro_f->mark); release(&coro_f->buf);
    break;
  }
}
/* words(...) makes an instance and runs nothing yet (lazy start) */
#line 16
coro_t *words(int n) {
#line 16
  struct coro_frame_words *coro_f = (struct coro_frame_words *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_words), coro_resume_words, CORO_GENERATOR | CORO_CLEANUP);
#line 16
  coro_f->coro_cleanup = coro_cleanup_words;
#line 16
  coro_f->n = n;
#line 16
  return &coro_f->coro_base;
}
/* words(...) in storage the caller gives (CORO_FRAME(words)): no allocation */
#line 16
static inline __attribute__((unused)) coro_t *coro_in_words(struct coro_frame_words *coro_f, int n) {
#line 16
  coro_frame_init(&coro_f->coro_base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_words, CORO_GENERATOR | CORO_CLEANUP);  /* a small frame zeroed whole, else its header */
#line 16
  coro_f->coro_cleanup = coro_cleanup_words;
#line 16
  coro_f->n = n;
#line 16
  return &coro_f->coro_base;
}
/* coro_next below calls words's body by name when the instance is one of its own: the compiler may inline it */
#line 16
static inline __attribute__((unused)) bool coro_next_of_words(coro_t *coro_g, void *coro_o) {
#line 16
  if (coro_g->resume == coro_resume_words) {
#line 16
    return coro_next_open(coro_g) ? coro_resume_words(coro_g, coro_o) : coro_next_slow(coro_g, coro_o);
  }
#line 16
  return coro_next(coro_g, coro_o);  /* another's: the one before */
}
/* coro_next(g, &v) with v a coro_value_words: only the inline body stores into v, every other way into a copy, so that v may stay in a register */
#line 16
static inline __attribute__((unused)) bool coro_next_to_words(coro_t *coro_g, coro_value_words *coro_o) {
#line 16
  if (__builtin_expect(coro_g->resume == coro_resume_words && coro_next_open(coro_g), 1)) {
#line 16
    return coro_resume_words(coro_g, coro_o);
  }
#line 16
  coro_value_words coro_v;  /* every other way stores here */
#line 16
  bool coro_r = coro_g->resume == coro_resume_words ? coro_next_slow(coro_g, &coro_v) : coro_next(coro_g, &coro_v);  /* another's: the one before */
#line 16
  return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);
}
#define CORO_NEXT_TO_1(out, other) _Generic((out), coro_value_words *: coro_next_to_words, default: _Generic((out), void *: other, default: coro_next))
/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(words): the compiler sees the whole life of an instance in a local */
#line 16
static inline __attribute__((unused)) bool coro_next_in_words(struct coro_frame_words *coro_f, void *coro_o) {
#line 16
  coro_t *coro_g = &coro_f->coro_base;
#line 16
  return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_words(coro_g, coro_o) : coro_next_refused_in(coro_g, "words");
}
#line 16
static inline __attribute__((unused)) void coro_free_in_words(struct coro_frame_words *coro_f) {
#line 16
  coro_free_inline(&coro_f->coro_base);  /* its cleanups, if suspended */
}
#define CORO_NEXT_FRAMES_1 struct coro_frame_words *: coro_next_in_words,
#define CORO_FREE_FRAMES_1 struct coro_frame_words *: coro_free_in_words,
#undef coro_next
#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_1 default: CORO_NEXT_TO_1(out, coro_next_of_words))(gen, out)  /* from here on */
#undef coro_free
#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_1 default: coro_free_inline)(c)  /* from here on */
#line 27


int main(void) {
  char *w;
  coro_t *c = words(5);
  while (coro_next(c, &w))
    printf("%s\n", w);
  coro_free(c);
  printf("freed early:\n");
  c = words(5);
  coro_next(c, &w);
  coro_free(c);
  return 0;
}
