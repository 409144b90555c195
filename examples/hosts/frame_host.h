/* frame_host.h: coroc's tasks in a frame loop (a game's, an audio
 * callback's) that gives them at most a budget of each frame. Copy this
 * header and frame_host.c into your program; docs/hosts.md explains them.
 *
 *   struct coroc_frame f = {.budget_us = 2000};
 *   for (;;) {                       (your loop: wait for the frame, draw, ...)
 *     ...
 *     coroc_frame_run(&f);           (coroc's share of the frame)
 *   }
 */
#ifndef COROC_FRAME_HOST_H
#define COROC_FRAME_HOST_H

struct coroc_frame {
  long budget_us; /* yours: the most time coroc may take of a frame, in microseconds */
  /* What the last coroc_frame_run did: */
  unsigned calls;        /* coro_run_ready calls made */
  unsigned long ran;     /* task turns they ran */
  long used_us;          /* the time they took */
  long longest_call_us;  /* the longest of them */
  long last_start_us;    /* when the last of them started, from the frame's start */
  long left;             /* tasks left after the last call (-1: none made yet) */
  unsigned long frames;  /* coroc_frame_run calls so far */
};

/* Run coroc's ready tasks for at most f->budget_us: one coro_run_ready at a
   time, each only while the time used so far and the longest call of this
   frame still fit in the budget, and only while there is work. Returns the
   tasks left (f->left); 0 once every task spawned has ended. */
long coroc_frame_run(struct coroc_frame *f);

#endif
