/* frame_main.c: a frame loop (examples/hosts/frame_host.c) drives coroc.
     frame_main fizzbuzz|echo|limits [--coro-run]
       a workload (workloads.h), its host part (limits_from_host) done
       between two frames, or under coro_run for comparison
     frame_main budget
       frame_tasks.coc's tasks for FRAMES frames, then coro_cancel_all and
       frames until they have ended, with each coro_run_ready call watched
       (linked with -Wl,--wrap=coro_run_ready: the adapter's calls come here
       first). What must hold, and what it prints for tests/test_hosts.py:
       - the tasks that ran in a call (each notes it after every await and
         yield) are as many as the turns the call says it ran: no task got
         two turns in one call ("twice"), and no turn went uncounted
         ("ran"); and ping and pong, which wake each other, never run in the
         same call ("pair"): a call runs only the tasks ready as it starts;
       - no call started after the frame's budget was spent, by the
         adapter's own clock ("late"): the rule the adapter keeps, which no
         load can break. (The thread's CPU time in a frame is printed too,
         "cpu_over" frames over twice the budget, but not asserted: on a
         virtual machine whose host takes the processor away mid-call, that
         time is counted to the thread as CPU time, and one full-suite run
         on a busy 2-processor machine saw a frame at 4 ms where its tasks
         ran for microseconds.)
       - every kind of task made progress. */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "frame_host.h"
#include "workloads.h"

enum { BUDGET_US = 2000, FRAME_MS = 1, FRAMES = 60 };
enum { SLEEPER_1, SLEEPER_3, READER, PING, PONG, YIELDER_A, YIELDER_B, NTASKS };

coro_t *frame_sleeper(int id, unsigned ms);
coro_t *frame_reader(int id, int fd);
coro_t *frame_ping(int id, struct coro_chan *to, struct coro_chan *from);
coro_t *frame_pong(int id, struct coro_chan *from, struct coro_chan *to);
coro_t *frame_yielder(int id);

long frame_progress[8];
static unsigned long call_serial, turns_this_call, last_call[NTASKS];
static long twice, pair, ran_wrong, max_turns;
static int checking_pair;

long __real_coro_run_ready(unsigned long *ran);
long __wrap_coro_run_ready(unsigned long *ran) {
  call_serial++;
  turns_this_call = 0;
  unsigned long r = 0;
  long left = __real_coro_run_ready(&r);
  if (ran)
    *ran = r;
  twice += r > turns_this_call ? (long)(r - turns_this_call) : 0; /* a task resumed twice */
  ran_wrong += r < turns_this_call;                                 /* a turn not counted */
  if ((long)r > max_turns)
    max_turns = (long)r;
  if (checking_pair && last_call[PING] == call_serial && last_call[PONG] == call_serial)
    pair++;
  return left;
}

/* Called by a task after each of its awaits and yields: the same turn when
   the await completed without suspending, so it counts the tasks that ran in
   this call, which must be how many turns the call says it ran. */
void frame_turn(int id) {
  if (last_call[id] != call_serial)
    turns_this_call++;
  last_call[id] = call_serial;
}

static long cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

static struct coroc_frame coroc = {.budget_us = BUDGET_US};
static long cpu_over, late, frames_over_wall;

/* One frame: wait FRAME_MS in poll() (the loop's own descriptors: none),
   then coroc's share, its CPU time measured. */
static long frame(void) {
  poll(NULL, 0, FRAME_MS);
  long before = cpu_us();
  long left = coroc_frame_run(&coroc);
  cpu_over += cpu_us() - before > 2 * BUDGET_US;
  late += coroc.calls > 0 && coroc.last_start_us > BUDGET_US;
  frames_over_wall += coroc.used_us > BUDGET_US;
  return left;
}

static int budget(void) {
  int p[2];
  if (pipe(p) < 0)
    return 1;
  struct coro_chan *to = CORO_CHAN_NEW(long, 0), *from = CORO_CHAN_NEW(long, 0);
  coro_spawn(frame_sleeper(SLEEPER_1, 1));
  coro_spawn(frame_sleeper(SLEEPER_3, 3));
  coro_spawn(frame_reader(READER, p[0]));
  coro_spawn(frame_ping(PING, to, from));
  coro_spawn(frame_pong(PONG, to, from));
  coro_spawn(frame_yielder(YIELDER_A));
  coro_spawn(frame_yielder(YIELDER_B));
  for (int i = 0; i < FRAMES; i++) {
    if (write(p[1], "x", 1) != 1) /* the loop's own doing: a byte a frame */
      return 1;
    frame();
    checking_pair = 1; /* (in the first call both were ready at once) */
  }
  checking_pair = 0; /* (cancelled, both are woken at once) */
  long cancelled = coro_cancel_all();
  int end_frames = 0;
  while (frame() != 0)
    end_frames++;
  coro_chan_free(to);
  coro_chan_free(from);
  close(p[0]);
  close(p[1]);
  printf("budget: twice %ld, pair %ld, ran %ld, late %ld\n", twice, pair, ran_wrong, late);
  printf("budget: cancelled %ld, ended within %d frames\n", cancelled, end_frames + 1);
  printf("budget: progress sleeper_1 %ld sleeper_3 %ld reader %ld ping %ld pong %ld yielders %ld %ld\n",
         frame_progress[SLEEPER_1], frame_progress[SLEEPER_3], frame_progress[READER],
         frame_progress[PING], frame_progress[PONG], frame_progress[YIELDER_A],
         frame_progress[YIELDER_B]);
  printf("budget: (for information) %lu calls in %lu frames, at most %ld turns a call, "
         "%ld frames over budget by the wall clock, cpu_over %ld\n",
         call_serial, coroc.frames, max_turns, frames_over_wall, cpu_over);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2)
    return 2;
  if (!strcmp(argv[1], "budget"))
    return budget();
  if (workload_by_coro_run(argc, argv))
    return 0;
  if (workload_spawn(argv[1], 0) < 0)
    return 1;
  for (int n = 0; frame() != 0; n++)
    if (n == 3 && !strcmp(argv[1], "limits"))
      limits_from_host(); /* between two frames */
  workload_end(argv[1]);
  return 0;
}
