/* The smallest generator: a countdown. */
#include <stdio.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
/* coroutine countdown (countdown.coc:4), lowered by coroc into a state machine */
#line 4 "countdown.coc"
typedef int coro_value_countdown;
/* the frame of countdown: its parameters and locals, kept across suspensions */
struct coro_frame_countdown {
  coro_t coro_base;  /* the runtime's header; must come first */
  int from;  /* countdown.coc:4, parameter */
};
/* the body of countdown, resumed at resume_point */
static void coro_resume_countdown(coro_t *coro_c)
{
  struct coro_frame_countdown *coro_f = (struct coro_frame_countdown *)coro_c;
  (void)coro_f;
  switch (coro_c->resume_point) {
  case 0: break;
  case 1: goto coro_resume_1;  /* countdown.coc:6 */
  }
#line 5 "countdown.coc"
  while (coro_f->from > 0) {
    /* resume point 1: countdown.coc:6 */
#line 6 "countdown.coc"
    CORO_YIELD(coro_c, 1, coro_value_countdown, coro_f->from--);
  coro_resume_1:;
  }
#line 7 "countdown.coc"
  CORO_FINISH(coro_c);
}
/* countdown(...) makes an instance and runs nothing yet (lazy start) */
#line 4 "countdown.coc"
coro_t *countdown(int from)
{
  struct coro_frame_countdown *coro_f = (struct coro_frame_countdown *)coro_frame_new(
      sizeof(struct coro_frame_countdown), _Alignof(struct coro_frame_countdown), coro_resume_countdown);
  coro_f->from = from;
  return &coro_f->coro_base;
}
#line 7 "countdown.coc"


int main(void) {
  coro_t *c = countdown(3);
  int v;
  while (coro_next(c, &v))
    printf("%d\n", v);
  coro_free(c);
  return 0;
}
