/* coro_seed.h: schedules a seed decides, and faults on demand (seed.c).
 *
 * A leaf: seed.c calls nothing of the runtime's. The scheduler asks it how
 * to order what happened at once; the event sources ask it whether to show
 * a task what the kernel may legally do now and then (EAGAIN first, a short
 * read, EINTR, a late timer, a slow offloaded call, a reset connection).
 * Without a seed and without faults, each question is one test of a word.
 */
#ifndef CORO_SEED_H
#define CORO_SEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of fault, each on or off with a rate (CORO_SCHED_FAULTS). */
enum coro_fault {
  CORO_FAULT_EAGAIN, /* a read, write or accept says "would block" first: the task waits a turn */
  CORO_FAULT_SHORT,  /* a read or write moves fewer bytes than asked, down to one */
  CORO_FAULT_EINTR,  /* a system call is interrupted: the runtime must try it again */
  CORO_FAULT_LATE,   /* the timers due in a turn fire up to 2 ms late (in their order) */
  CORO_FAULT_SLOW,   /* an offloaded call starts up to 5 ms late on its worker */
  CORO_FAULT_RESET,  /* a read or write of a stream socket finds the connection reset */
  CORO_FAULT_KINDS
};

/* The kinds that are on (a bit each): read on the hot paths, set before
   the first task runs (from CORO_SCHED_FAULTS at load, or coro_sched_faults). */
extern unsigned coro_faults_on;

/* Draw for one chance of fault k on this thread: true, at k's rate. */
bool coro_fault_draw(enum coro_fault k);

/* Should this operation see fault k? False at once when k is off. */
static inline bool coro_fault(enum coro_fault k) {
  return __builtin_expect(coro_faults_on & (1u << k), 0) && coro_fault_draw(k);
}

/* A short length for a read or write of len bytes (len > 0): 1 .. len. */
size_t coro_fault_length(size_t len);

/* How late the timers of this turn fire (ns, at most 2 ms). */
uint64_t coro_fault_late_ns(void);

/* On a worker thread: how long to hold an offloaded call before it runs
   (ns; 0 for none). Drawn from a process-wide sequence, since the workers
   have no schedule of their own. */
uint64_t coro_fault_slow_ns(void);

/* Is this thread's schedule seeded (a seed given, or faults on: seed 0)? */
bool coro_seeded(void);

/* The next draw of this thread's seeded generator. */
uint64_t coro_seed_random(void);

/* " (schedule: CORO_SCHED_SEED=N CORO_SCHED_FAULTS=...)" when this thread's
   schedule is seeded, else "": coro_fatal's last words. */
const char *coro_sched_seed_note(void);

#endif
