/* coro_trace.h: the trace of a run, as the runtime's files record it
 * (trace.c) and as the file is written from the records (trace_write.c).
 * docs/debugging.md, "Tracing a run".
 *
 * Each thread appends fixed-size records to chunks of its own, with no
 * lock and no system call; trace_write.c reads every thread's chunks when
 * the trace stops, at exit or on a fatal error, and turns them into Chrome
 * trace-event JSON. Every hook below is called only while
 * coro_trace_active is set (the callers test it), and they are in the
 * lowest layer, so that any file may call them.
 */
#ifndef CORO_TRACE_H
#define CORO_TRACE_H

#include "coro_internal.h"

#include <stdint.h>

enum coro_trace_type {
  CORO_TR_CREATE,     /* an instance made: a = its code (resume or stackful entry) */
  CORO_TR_BEGIN,      /* it runs from resume point `point`: a = its code */
  CORO_TR_END,        /* it stopped running: `status`, `point` where it resumes next */
  CORO_TR_WAIT,       /* a task suspends on something: `sub`, and a..d (below) */
  CORO_TR_WAKE,       /* inst woken by a = the running task (or NULL: b = the source's name) */
  CORO_TR_CANCEL,     /* coro_cancel(inst), asked by a = the running task (or NULL) */
  CORO_TR_FREE,       /* coro_free(inst) */
  CORO_TR_THREAD_END, /* the thread ends */
  CORO_TR_MORE,       /* the rest of the record before it (a wait's words): see coro_trace_rec */
};

/* What a CORO_TR_WAIT waits for. */
enum coro_trace_wait {
  CORO_TW_AWAITABLE, /* a = its ops, b = the word after its struct coro_awaitable (an fd, the
                        ms of a sleep, a channel, an object...); for the runtime's awaitables
                        whose kind needs more (wait_all/any, timeout, select), c and d the
                        two words after it, and `status` the byte after those */
  CORO_TW_YIELD,     /* `yield;`: its turn comes again */
  CORO_TW_CHILD,     /* await of a child task: b = the child */
};

/* One event, as the file is written from it (coro_trace_unpack). */
struct coro_trace_event {
  uint64_t ts; /* the clock's ticks (trace.c: coro_trace_ns converts) */
  const void *inst;
  uintptr_t a, b, c, d;
  uint8_t type;   /* enum coro_trace_type */
  uint8_t kind;   /* the instance's kind (enum coro_kind) */
  uint8_t status; /* CORO_TR_END: its status */
  uint8_t sub;    /* CORO_TR_WAIT: enum coro_trace_wait */
  uint16_t point; /* BEGIN, END: its resume point */
};

/* One event as recorded: 32 bytes, half a cache line, what a run's begin
   and end need (an event's cost is mostly its memory and its clock). The
   rare event with more to say takes a second record right after it, in
   the same chunk: a wait on an awaitable (CORO_TR_MORE: b, c, d in ts,
   inst and a, and the byte after them in status). A wake-up has its waker
   in a, or, with sub 1, the name of the source that woke it. */
struct coro_trace_rec {
  uint64_t ts;
  const void *inst;
  uintptr_t a;
  uint8_t type, kind, status, sub;
  uint16_t point;
  uint16_t spare;
};

/* Records to a chunk: a chunk is a megabyte (its header takes two records' room). */
enum { CORO_TRACE_CHUNK = (1 << 20) / 32 - 2 };

struct coro_trace_chunk {
  struct coro_trace_chunk *next; /* the thread's next one (set with release) */
  unsigned n;                    /* records filled (stored with release, after the record) */
  unsigned cap;                  /* room: CORO_TRACE_CHUNK, less in the last chunk the cap allows */
  size_t bytes;                  /* its mapping's */
  char pad[40];
  struct coro_trace_rec rec[];
};

/* trace.c, for trace_write.c: the event at record i of chunk c into *ev;
   the records it takes (1, or 2 with its CORO_TR_MORE). */
unsigned coro_trace_unpack(const struct coro_trace_chunk *c, unsigned i,
                           struct coro_trace_event *ev);

/* A thread's records, in the list of every thread's (kept when it ends). */
struct coro_trace_thread {
  struct coro_trace_thread *next;
  struct coro_trace_chunk *head, *tail;
  struct coro_trace_chunk *spare; /* an earlier trace's, their pages present: taken first */
  unsigned long session;          /* the trace these are of (coro_trace_start counts them) */
  uint64_t kept;                  /* records kept */
  uint64_t dropped;               /* records that the cap dropped, and the clock at the first */
  uint64_t drop_ts;
  long tid;   /* its kernel thread id */
  int ended;  /* the thread ended: its records stay until the next trace starts */
  int number; /* 1 for the first thread that recorded, 2 for the next... */
};

/* On the ops of the runtime's awaitables whose kind a trace reads further
   (coro_trace_wait): they go in a section of their own, whose bounds the
   linker gives. */
#define CORO_TRACE_WIDE __attribute__((section("coro_trace_wide"), used))

/* stackful.c: the entry function (its coroutine) of stackful instance c. */
extern const void *(*coro_trace_entry_of)(coro_t *c);

/* Hooks: record one event of this thread. */
void coro_trace_begin(coro_t *c); /* c runs (from its resume point) */
void coro_trace_end(coro_t *c);   /* it stopped: suspended, or done */
/* c->resume(c, out), between its begin and its end: what the callers of a
   resume call instead while a trace is recorded (coro_next_slow, the
   scheduler, an async generator's step). */
bool coro_trace_resume(coro_t *c, void *out);
void coro_trace_create(coro_t *c);
void coro_trace_wait(coro_t *c, enum coro_trace_wait sub, const void *what);
void coro_trace_wake(coro_t *woken, coro_t *waker);
void coro_trace_cancel(coro_t *c, coro_t *by);
void coro_trace_free(coro_t *c);

/* The name of what this thread runs when no task does (a source's, while the
   scheduler hands it an event or lets it fire; NULL: the program's own code):
   a wake-up from outside every task names it. */
extern _Thread_local const char *coro_trace_source __attribute__((tls_model("initial-exec")));

/* trace_write.c: the first use of the runtime on a thread: read CORO_TRACE
   (once a process). */
void coro_trace_env(void);

/* The events a thread keeps when CORO_TRACE_MAX does not say (32 MB). */
enum { CORO_TRACE_DEFAULT_CAP = 1000000 };

/* trace.c, for trace_write.c: a trace begins (at most max_events kept a
   thread) and ends (its two ends on CLOCK_MONOTONIC, ns); the list of
   threads (under its lock), the trace's session and cap, and the clock's
   ticks as CLOCK_MONOTONIC ns. */
void coro_trace_open(uint64_t max_events);
void coro_trace_close(uint64_t *from_ns, uint64_t *to_ns);
struct coro_trace_thread *coro_trace_threads_lock(void);
void coro_trace_threads_unlock(void);
unsigned long coro_trace_session(void);
uint64_t coro_trace_cap(void);
uint64_t coro_trace_now(void);
uint64_t coro_trace_ns(uint64_t ticks);

#endif
