/* Locals in nested scopes, one shadowing another: each gets its own field. */
#include <stdio.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
/* coroutine pairs (shadowing.coc:4), lowered by coroc into a state machine */
#line 4 "shadowing.coc"
typedef int coro_value_pairs;
/* the frame of pairs: its parameters and locals, kept across suspensions */
struct coro_frame_pairs {
  coro_t coro_base;  /* the runtime's header; must come first */
  int n;  /* shadowing.coc:4, parameter */
  int i;  /* shadowing.coc:5 */
  int coro_i_2;  /* shadowing.coc:6 */
  int sum;  /* shadowing.coc:7 */
  int coro_i_3;  /* shadowing.coc:9 */
};
/* the body of pairs, resumed at resume_point */
static void coro_resume_pairs(coro_t *coro_c)
{
  struct coro_frame_pairs *coro_f = (struct coro_frame_pairs *)coro_c;
  (void)coro_f;
  switch (coro_c->resume_point) {
  case 0: break;
  case 1: goto coro_resume_1;  /* shadowing.coc:10 */
  case 2: goto coro_resume_2;  /* shadowing.coc:12 */
  case 3: goto coro_resume_3;  /* shadowing.coc:14 */
  }
#line 5 "shadowing.coc"
  coro_f->i = 100;
  for (coro_f->coro_i_2 = 0; coro_f->coro_i_2 < coro_f->n; coro_f->coro_i_2++) {
    coro_f->sum = coro_f->coro_i_2;
    {
      coro_f->coro_i_3 = coro_f->sum * 10;
      /* resume point 1: shadowing.coc:10 */
#line 10 "shadowing.coc"
      CORO_YIELD(coro_c, 1, coro_value_pairs, coro_f->coro_i_3);
    coro_resume_1:;
    }
    /* resume point 2: shadowing.coc:12 */
#line 12 "shadowing.coc"
    CORO_YIELD(coro_c, 2, coro_value_pairs, coro_f->sum);
  coro_resume_2:;
  }
  /* resume point 3: shadowing.coc:14 */
#line 14 "shadowing.coc"
  CORO_YIELD(coro_c, 3, coro_value_pairs, coro_f->i);
coro_resume_3:;
#line 15 "shadowing.coc"
  CORO_FINISH(coro_c);
}
/* pairs(...) makes an instance and runs nothing yet (lazy start) */
#line 4 "shadowing.coc"
coro_t *pairs(int n)
{
  struct coro_frame_pairs *coro_f = (struct coro_frame_pairs *)coro_frame_new(
      sizeof(struct coro_frame_pairs), _Alignof(struct coro_frame_pairs), coro_resume_pairs);
  coro_f->n = n;
  return &coro_f->coro_base;
}
#line 15 "shadowing.coc"


int main(void) {
  coro_t *g = pairs(2);
  int v;
  while (coro_next(g, &v))
    printf("%d ", v);
  printf("\n");
  coro_free(g);
  return 0;
}
