#include <stdio.h>
#include <coro.h>

#include <coro.h>  /* added by coroc: the runtime of the coroutines below */
CORO_GENERATED_FOR(4);  /* with another coroc's <coro.h>: an error here */
#line 4 "tasks_chain.coc"
typedef int coro_value_child;
#line 4
CORO_NODISCARD coro_t *child(int x);
#line 4


/* coroutine leaf (tasks_chain.coc:6), lowered by coroc into a state machine */
#line 6
typedef int coro_value_leaf;
/* the frame of leaf: its parameters and locals, kept across suspensions */
struct coro_frame_leaf {
  struct coro_task coro_base;  /* the runtime's header of a task; must come first */
#line 6
  int x;  /* parameter */
  coro_value_leaf coro_result;  /* what it returns, to the task awaiting it */
};
CORO_NODISCARD coro_t *leaf(int x);  /* it may call itself */
/* the body of leaf, resumed at resume_point */
#line 6
static bool coro_resume_leaf(coro_t *coro_c, void *coro_out) {
#line 6
  struct coro_frame_leaf *coro_f = (struct coro_frame_leaf *)coro_c;
  (void)coro_f, (void)coro_out;
#line 6
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 6
  case 1: goto coro_resume_1;  /* tasks_chain.coc:7 */
  }
#line 6
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  /* resume point 1: tasks_chain.coc:7 */
#line 7
  CORO_YIELD_TASK(coro_c, 1);
coro_resume_1:;
#line 8
  coro_f->coro_result = coro_f->x * 2;
#line 8
  CORO_FINISH(coro_c);
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 9
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of leaf's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_leaf[] __attribute__((used)) = {6, 7};
static const char coro_locals_leaf[] __attribute__((used)) = "x";
/* leaf(...) makes an instance and runs nothing yet (lazy start) */
#line 6
coro_t *leaf(int x) {
#line 6
  struct coro_frame_leaf *coro_f = (struct coro_frame_leaf *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_leaf), coro_resume_leaf, CORO_TASK);
#line 6
  coro_f->x = x;
#line 6
  coro_f->coro_base.result = &coro_f->coro_result;
#line 6
  return &coro_f->coro_base.base;
}
/* leaf(...) in storage the caller gives (CORO_FRAME(leaf)): no allocation */
#line 6
static inline __attribute__((unused)) coro_t *coro_in_leaf(struct coro_frame_leaf *coro_f, int x) {
#line 6
  coro_frame_init(&coro_f->coro_base.base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_leaf, CORO_TASK);  /* a small frame zeroed whole, else its header */
#line 6
  coro_f->x = x;
#line 6
  return &coro_f->coro_base.base;
}
/* leaf(...) inside the frame of a task awaiting it, where a child has ended or nothing was yet */
#line 6
enum { coro_kind_leaf = CORO_TASK };  /* its kind, for coro_start_child */
#line 6
static inline coro_t *coro_inside_leaf(struct coro_frame_leaf *coro_f, int x) {
#line 6
  coro_f->x = x;
#line 6
  return &coro_f->coro_base.base;
}
#line 9


/* coroutine child (tasks_chain.coc:11), lowered by coroc into a state machine */
#line 11
typedef int coro_value_child;
/* the frame of child: its parameters and locals, kept across suspensions */
struct coro_frame_child {
  struct coro_task coro_base;  /* the runtime's header of a task; must come first */
#line 11
  int x;  /* parameter */
  int a;
  coro_value_child coro_result;  /* what it returns, to the task awaiting it */
  union {  /* the frames of the tasks it awaits, one at a time */
#line 12
    struct coro_frame_leaf coro_in_1;
    struct coro_frame_leaf coro_in_2;
#line 15
    struct coro_frame_leaf coro_in_3;
  } coro_children;
  int coro_cond_1;  /* an && or || around an await */
};
CORO_NODISCARD coro_t *child(int x);  /* it may call itself */
/* the body of child, resumed at resume_point */
#line 11
static bool coro_resume_child(coro_t *coro_c, void *coro_out) {
#line 11
  struct coro_frame_child *coro_f = (struct coro_frame_child *)coro_c;
  (void)coro_f, (void)coro_out;
#line 11
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 11
  case 1: goto coro_resume_1;  /* tasks_chain.coc:12 */
#line 11
  case 2: goto coro_resume_2;  /* tasks_chain.coc:13 */
#line 11
  case 3: goto coro_resume_3;  /* tasks_chain.coc:15 */
  }
#line 11
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  /* resume point 1: tasks_chain.coc:12, the child's frame inside this one */
#line 12
  coro_inside_leaf(&coro_f->coro_children.coro_in_1, coro_f->x);
#line 12
  if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_1.coro_base.base, coro_resume_leaf, coro_kind_leaf)) {
#line 12
    CORO_SUSPEND(coro_c, 1);  /* it waits for something: so does this task */
  coro_resume_1:;
#line 12
  }
#line 12
  coro_f->a = coro_f->coro_children.coro_in_1.coro_result + 1;
  coro_f->coro_cond_1 = (coro_f->a > 3) != 0;
#line 13
  if (coro_f->coro_cond_1) {
    /* resume point 2: tasks_chain.coc:13, the child's frame inside this one */
#line 13
    coro_inside_leaf(&coro_f->coro_children.coro_in_2, coro_f->a);
#line 13
    if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_2.coro_base.base, coro_resume_leaf, coro_kind_leaf)) {
#line 13
      CORO_SUSPEND(coro_c, 2);  /* it waits for something: so does this task */
    coro_resume_2:;
#line 13
    }
#line 13
    coro_f->coro_cond_1 = (coro_f->coro_children.coro_in_2.coro_result > 10) != 0;
  }
#line 13
  if (coro_f->coro_cond_1)
    coro_f->a += 100;
  for (;;) {
    /* resume point 3: tasks_chain.coc:15, the child's frame inside this one */
#line 15
    coro_inside_leaf(&coro_f->coro_children.coro_in_3, coro_f->a);
#line 15
    if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_3.coro_base.base, coro_resume_leaf, coro_kind_leaf)) {
#line 15
      CORO_SUSPEND(coro_c, 3);  /* it waits for something: so does this task */
    coro_resume_3:;
#line 15
    }
#line 15
    if (!(coro_f->coro_children.coro_in_3.coro_result < 1000)) break;
    coro_f->a *= 3;
  }
#line 17
  coro_f->coro_result = coro_f->a;
#line 17
  CORO_FINISH(coro_c);
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 18
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of child's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_child[] __attribute__((used)) = {11, 12, 13, 15};
static const char coro_locals_child[] __attribute__((used)) = "x | a@12-18";
/* child(...) makes an instance and runs nothing yet (lazy start) */
#line 11
coro_t *child(int x) {
#line 11
  struct coro_frame_child *coro_f = (struct coro_frame_child *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_child), coro_resume_child, CORO_TASK);
#line 11
  coro_children_home(&coro_f->coro_children, &coro_f->coro_base.base);  /* every child made inside it names it as its parent */
#line 11
  coro_f->x = x;
#line 11
  coro_f->coro_base.result = &coro_f->coro_result;
#line 11
  return &coro_f->coro_base.base;
}
/* child(...) in storage the caller gives (CORO_FRAME(child)): no allocation */
#line 11
static inline __attribute__((unused)) coro_t *coro_in_child(struct coro_frame_child *coro_f, int x) {
#line 11
  coro_frame_init(&coro_f->coro_base.base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_child, CORO_TASK);  /* a small frame zeroed whole, else its header */
#line 11
  coro_children_init(&coro_f->coro_children, &coro_f->coro_base.base);  /* its children start from a zeroed header that names it as their parent */
#line 11
  coro_f->x = x;
#line 11
  return &coro_f->coro_base.base;
}
/* child(...) inside the frame of a task awaiting it, where a child has ended or nothing was yet */
#line 11
enum { coro_kind_child = CORO_TASK };  /* its kind, for coro_start_child */
#line 11
static inline coro_t *coro_inside_child(struct coro_frame_child *coro_f, int x) {
#line 11
  coro_children_init(&coro_f->coro_children, &coro_f->coro_base.base);  /* its children start from a zeroed header that names it as their parent */
#line 11
  coro_f->x = x;
#line 11
  return &coro_f->coro_base.base;
}
#line 18


/* coroutine top (tasks_chain.coc:20), lowered by coroc into a state machine */
#line 20
typedef void coro_value_top;
/* the frame of top: its parameters and locals, kept across suspensions */
struct coro_frame_top {
  struct coro_task coro_base;  /* the runtime's header of a task; must come first */
  union {  /* the frames of the tasks it awaits, one at a time */
#line 21
    struct coro_frame_child coro_in_1;
    struct coro_frame_child coro_in_2;
  } coro_children;
};
CORO_NODISCARD coro_t *top(void);  /* it may call itself */
/* the body of top, resumed at resume_point */
#line 20
static bool coro_resume_top(coro_t *coro_c, void *coro_out) {
#line 20
  struct coro_frame_top *coro_f = (struct coro_frame_top *)coro_c;
  (void)coro_f, (void)coro_out;
#line 20
  switch (coro_enter(coro_c)) {  /* running now; 0: from the start */
#line 20
  case 1: goto coro_resume_1;  /* tasks_chain.coc:21 */
#line 20
  case 2: goto coro_resume_2;  /* tasks_chain.coc:22 */
  }
#line 20
  coro_start: CORO_FIRST_RESUME;  /* only the first resume comes this way */
  /* resume point 1: tasks_chain.coc:21, the child's frame inside this one */
#line 21
  coro_inside_child(&coro_f->coro_children.coro_in_1, 1);
#line 21
  if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_1.coro_base.base, coro_resume_child, coro_kind_child)) {
#line 21
    CORO_SUSPEND(coro_c, 1);  /* it waits for something: so does this task */
  coro_resume_1:;
#line 21
  }
#line 21
  printf("%d\n", coro_f->coro_children.coro_in_1.coro_result);
  /* resume point 2: tasks_chain.coc:22, the child's frame inside this one */
#line 22
  coro_inside_child(&coro_f->coro_children.coro_in_2, 5);
#line 22
  if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_2.coro_base.base, coro_resume_child, coro_kind_child)) {
#line 22
    CORO_SUSPEND(coro_c, 2);  /* it waits for something: so does this task */
  coro_resume_2:;
#line 22
  }
#line 22
  printf("%d\n", coro_f->coro_children.coro_in_2.coro_result);
  coro_end: CORO_BODY_END;  /* reached once: the body returns */
#line 23
  CORO_FINISH(coro_c);
}
/* for debuggers (docs/debugging.md): the .coc lines of top's start and resume points; its parameters | locals, FIELD=NAME where renamed, %NAME in a C local while it runs, @FIRST-LAST the lines of its scope */
static const unsigned short coro_lines_top[] __attribute__((used)) = {20, 21, 22};
static const char coro_locals_top[] __attribute__((used)) = "";
/* top(...) makes an instance and runs nothing yet (lazy start) */
#line 20
coro_t *top(void) {
#line 20
  struct coro_frame_top *coro_f = (struct coro_frame_top *)coro_frame_new(sizeof *coro_f, _Alignof(struct coro_frame_top), coro_resume_top, CORO_TASK);
#line 20
  coro_children_home(&coro_f->coro_children, &coro_f->coro_base.base);  /* every child made inside it names it as its parent */
#line 20
  return &coro_f->coro_base.base;
}
/* top(...) in storage the caller gives (CORO_FRAME(top)): no allocation */
#line 20
static inline __attribute__((unused)) coro_t *coro_in_top(struct coro_frame_top *coro_f) {
#line 20
  coro_frame_init(&coro_f->coro_base.base, sizeof *coro_f <= 64 ? sizeof *coro_f : sizeof coro_f->coro_base, coro_resume_top, CORO_TASK);  /* a small frame zeroed whole, else its header */
#line 20
  coro_children_init(&coro_f->coro_children, &coro_f->coro_base.base);  /* its children start from a zeroed header that names it as their parent */
#line 20
  return &coro_f->coro_base.base;
}
#line 23


int main(void) {
  coro_spawn(top());
  return coro_run();
}
