/* Types declared inside a coroutine move to file scope, renamed; arrays and
   structs are initialized where their declarations stood. */
#include <stdio.h>

struct point { int x, y; };

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
/* coroutine walk (local_types.coc:7), lowered by coroc into a state machine */
#line 7 "local_types.coc"
typedef int coro_value_walk;
struct coro_walk_point { long x, y; };
enum coro_walk_dir { coro_walk_LEFT = -1, coro_walk_RIGHT = 1 };
typedef struct coro_walk_point coro_walk_point_t;
/* the frame of walk: its parameters and locals, kept across suspensions */
struct coro_frame_walk {
  coro_t coro_base;  /* the runtime's header; must come first */
#line 8
  struct coro_walk_point p;
  enum coro_walk_dir d;
#line 11
  coro_walk_point_t path[2];
  char name[8];
  int i;
};
CORO_NODISCARD coro_t *walk(void);  /* it may call itself */
/* the body of walk, resumed at resume_point */
#line 7
static bool coro_resume_walk(coro_t *coro_c, void *coro_out) {
#line 7
  struct coro_frame_walk *coro_f = (struct coro_frame_walk *)coro_c;
  (void)coro_f, (void)coro_out;
#line 7
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 7
  case 1: goto coro_resume_1;  /* local_types.coc:15 */
#line 7
  case 2: goto coro_resume_2;  /* local_types.coc:17 */
  }
#line 7
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  coro_f->p = (struct coro_walk_point){1, 2};
  enum coro_walk_dir d = coro_walk_RIGHT;
#line 11
  __builtin_memcpy(coro_f->path, (coro_walk_point_t [2]){{0, 0}, {3, 4}}, sizeof coro_f->path);
  __builtin_memcpy(coro_f->name, (char [8]){"walk"}, sizeof coro_f->name);
  for (int i = 0; i < 2; i++) {
    coro_f->p.x += coro_f->path[i].x * d;
    /* resume point 1: local_types.coc:15 */
#line 15
    CORO_YIELD_KEEPING(coro_c, coro_out, 1, coro_value_walk, (coro_f->d = d, coro_f->i = i),
#line 15
          (int)coro_f->p.x);
#line 7
  coro_resume_1:; d = coro_f->d; i = coro_f->i;  /* back from the frame */
#line 16
  }
  /* resume point 2: local_types.coc:17 */
#line 17
  CORO_YIELD(coro_c, coro_out, 2, coro_value_walk,
#line 17
        (int)sizeof(struct coro_walk_point) + coro_f->name[0]);
coro_resume_2:;
#line 18
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 18
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of walk's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_walk[] __attribute__((used)) = {7, 15, 17};
static const char coro_locals_walk[] __attribute__((used)) = "| p@8-18 %d@9-18 path@11-18 name@12-18 %i@13-16";
/* walk(...) makes an instance and runs nothing yet (lazy start) */
#line 7
coro_t *walk(void) {
#line 7
  struct coro_frame_walk *coro_f = (struct coro_frame_walk *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_walk), coro_resume_walk, CORO_GENERATOR);
#line 7
  return &coro_f->coro_base;
}
/* walk(...) in storage the caller gives (CORO_FRAME(walk)): no allocation */
#line 7
static inline __attribute__((unused)) coro_t *coro_in_walk(struct coro_frame_walk *coro_f) {
#line 7
  coro_frame_init(&coro_f->coro_base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_walk, CORO_GENERATOR);  /* a small frame zeroed whole, else its header */
#line 7
  return &coro_f->coro_base;
}
/* coro_next below calls walk's body by name when the instance is one of its own: the compiler may inline it */
#line 7
static inline __attribute__((unused)) bool coro_next_of_walk(coro_t *coro_g, void *coro_o) {
#line 7
  if (coro_g->resume == coro_resume_walk) {
#line 7
    return coro_next_open(coro_g) ? coro_resume_walk(coro_g, coro_o) : coro_next_slow(coro_g, coro_o);
  }
#line 7
  return coro_next(coro_g, coro_o);  /* another's: the one before */
}
/* coro_next(g, &v) with v a coro_value_walk: only the inline body stores into v, every other way into a copy, so that v may stay in a register */
#line 7
static inline __attribute__((unused)) bool coro_next_to_walk(coro_t *coro_g, coro_value_walk *coro_o) {
#line 7
  if (__builtin_expect(coro_g->resume == coro_resume_walk && coro_next_open(coro_g), 1)) {
#line 7
    return coro_resume_walk(coro_g, coro_o);
  }
#line 7
  coro_value_walk coro_v;  /* every other way stores here */
#line 7
  bool coro_r = coro_g->resume == coro_resume_walk ? coro_next_slow(coro_g, &coro_v) : coro_next(coro_g, &coro_v);  /* another's: the one before */
#line 7
  return coro_next_copied(coro_r, coro_o, &coro_v, sizeof coro_v);
}
#define CORO_NEXT_TO_1(out, other) _Generic((out), coro_value_walk *: coro_next_to_walk, default: _Generic((out), void *: other, default: coro_next))
/* coro_next(&frame, &v) and coro_free(&frame) of a CORO_FRAME(walk): the compiler sees the whole life of an instance in a local */
#line 7
static inline __attribute__((unused)) bool coro_next_in_walk(struct coro_frame_walk *coro_f, void *coro_o) {
#line 7
  coro_t *coro_g = &coro_f->coro_base;
#line 7
  return __builtin_expect(coro_g->status < CORO_RUNNING, 1) ? coro_resume_walk(coro_g, coro_o) : coro_next_refused_in(coro_g, "walk");
}
#line 7
static inline __attribute__((unused)) void coro_free_in_walk(struct coro_frame_walk *coro_f) {
#line 7
  coro_free_refused_in(&coro_f->coro_base, "walk");  /* nothing to give back */
}
#define CORO_NEXT_FRAMES_1 struct coro_frame_walk *: coro_next_in_walk,
#define CORO_FREE_FRAMES_1 struct coro_frame_walk *: coro_free_in_walk,
#undef coro_next
#define coro_next(gen, out) _Generic((gen), CORO_NEXT_FRAMES_1 default: CORO_NEXT_TO_1(out, coro_next_of_walk))(gen, out)  /* from here on */
#undef coro_free
#define coro_free(c) _Generic((c), CORO_FREE_FRAMES_1 default: coro_free_inline)(c)  /* from here on */
#line 18


int main(void) {
  coro_t *w = walk();
  int v;
  while (coro_next(w, &v))
    printf("%d\n", v);
  coro_free(w);
  return 0;
}
