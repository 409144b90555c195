/* trace.c: recording the trace of a run (coro_trace.h; docs/debugging.md,
 * "Tracing a run"): CORO_TRACE=FILE, coro_trace_start and coro_trace_stop.
 *
 * Each thread appends 32-byte records to chunks of its own: no lock, no
 * system call, one clock read per event (the processor's time-stamp
 * counter where it is constant and goes on in every state, converted to
 * CLOCK_MONOTONIC nanoseconds when the file is written; elsewhere
 * CLOCK_MONOTONIC itself, through the vDSO). A full chunk takes a new one,
 * a megabyte mapped with its pages present, once per CORO_TRACE_CHUNK
 * (32,766) records: the one system call, off the common path, and the
 * next trace of the thread takes the chunks of the last one again. A cap (CORO_TRACE_MAX
 * events a thread) bounds a long run: past it, a thread's new events are
 * counted and dropped, and the file says how many and from when.
 *
 * In the runtime's lowest layer beside fatal.c and thread.c: every layer
 * records through it, and it calls nothing of the runtime but the thread's
 * end (thread.c). The file, and when it is written, are trace_write.c's,
 * which calls this one.
 */
#define _GNU_SOURCE
#include "coro_trace.h"
#include "coro_thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TRACE_TSC 1
#endif

unsigned coro_trace_active; /* 0, or CORO_TRACE_ON (coro/gen.h) */
_Thread_local const char *coro_trace_source __attribute__((tls_model("initial-exec")));
/* stackful.c: the entry function of a stackful instance (its coroutine), set at its first use */
const void *(*coro_trace_entry_of)(coro_t *c);

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER; /* the list, start and stop */
static struct coro_trace_thread *threads;                        /* every thread's, newest first */
static int nthreads;
static unsigned long session; /* 1 for the first trace, 2 for the next... */
static uint64_t cap = CORO_TRACE_DEFAULT_CAP;
static uint64_t start_ticks, start_ns;
static bool use_tsc;
static double ns_per_tick = 1;
/* (initial-exec, as registry.c's: in libcoro's -fPIC code a thread-local is
   otherwise a call to __tls_get_addr on every record) */
static _Thread_local struct coro_trace_thread *self __attribute__((tls_model("initial-exec")));

/* {==================================================================
 * The clock
 * =================================================================== */

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

uint64_t coro_trace_now(void) {
#ifdef TRACE_TSC
  if (__builtin_expect(use_tsc, 1))
    return __rdtsc();
#endif
  return monotonic_ns();
}

/* Does the time-stamp counter tick at one rate, in every power state, on
   every processor (what Linux itself takes it for as a clock source)? */
static bool tsc_usable(void) {
#ifdef TRACE_TSC
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return false;
  char line[4096];
  bool constant = false, nonstop = false;
  while (fgets(line, sizeof line, f) && !(constant && nonstop))
    if (strncmp(line, "flags", 5) == 0) {
      constant = strstr(line, " constant_tsc") != NULL;
      nonstop = strstr(line, " nonstop_tsc") != NULL;
      break;
    }
  fclose(f);
  return constant && nonstop;
#else
  return false;
#endif
}

/* The rate of the counter, from the two ends of the trace (at least a
   millisecond apart, for a rate good to a part in 10^5). */
static uint64_t calibrate(void) {
  uint64_t now = monotonic_ns();
  if (!use_tsc)
    return now;
  while (now - start_ns < 1000000) {
    struct timespec ms = {0, 1000000 - (long)(now - start_ns)};
    nanosleep(&ms, NULL);
    now = monotonic_ns();
  }
  uint64_t ticks = coro_trace_now();
  ns_per_tick = ticks > start_ticks ? (double)(now - start_ns) / (double)(ticks - start_ticks) : 1;
  return now;
}

uint64_t coro_trace_ns(uint64_t ticks) {
  if (!use_tsc)
    return ticks;
  if (ticks < start_ticks) /* (a processor's counter a little behind the one that started) */
    return start_ns;
  return start_ns + (uint64_t)((double)(ticks - start_ticks) * ns_per_tick);
}

/* }================================================================== */

/* {==================================================================
 * Recording
 * =================================================================== */

static void thread_end(void *arg);
static void chunk_free(struct coro_trace_chunk *c);

/* This thread's first record of this trace: its records (again, after an
   earlier trace: the chunks of that one go). */
static __attribute__((noinline, cold)) struct coro_trace_thread *thread_start(void) {
  struct coro_trace_thread *t = self;
  if (!t) {
    t = calloc(1, sizeof *t);
    if (!t)
      return NULL;
    t->tid = (long)syscall(SYS_gettid);
    pthread_mutex_lock(&threads_lock);
    t->number = ++nthreads;
    t->next = threads;
    __atomic_store_n(&threads, t, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&threads_lock);
    coro_thread_holds(CORO_THREAD_TRACE, thread_end, t);
    self = t;
  }
  for (struct coro_trace_chunk *c = t->head, *next; c; c = next) {
    next = c->next; /* (kept for this trace: their pages are present already) */
    c->next = t->spare;
    t->spare = c;
  }
  t->head = t->tail = NULL;
  t->kept = t->dropped = t->drop_ts = 0;
  __atomic_store_n(&t->session, __atomic_load_n(&session, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
  return t;
}

/* A chunk of room for n records. Mapped with its pages made present at
   once: a page fault for every 128 records, taken one at a time in the
   middle of the run, cost more than the records themselves. A chunk of an
   earlier trace of the thread is taken first. */
static struct coro_trace_chunk *chunk_new(struct coro_trace_thread *t, unsigned n) {
  struct coro_trace_chunk *kept = t->spare;
  if (kept) {
    t->spare = kept->next;
    unsigned room = (unsigned)((kept->bytes - sizeof *kept) / sizeof(struct coro_trace_rec));
    kept->next = NULL;
    kept->n = 0;
    kept->cap = n < room ? n : room;
    return kept;
  }
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t bytes = (sizeof(struct coro_trace_chunk) + n * sizeof(struct coro_trace_rec) + page - 1) /
                 page * page;
  void *p =
      mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  struct coro_trace_chunk *c = p;
  c->next = NULL;
  c->n = 0;
  c->cap = n;
  c->bytes = bytes;
  return c;
}

static void chunk_free(struct coro_trace_chunk *c) {
  munmap(c, c->bytes);
}

/* Where the next record goes, past a full chunk: a new one, or NULL once
   the cap is reached (the event is counted as dropped). */
static __attribute__((noinline, cold)) struct coro_trace_rec *slot_slow(unsigned k) {
  struct coro_trace_thread *t = self;
  if (!t || t->session != __atomic_load_n(&session, __ATOMIC_RELAXED))
    t = thread_start();
  if (!t)
    return NULL;
  if (t->tail && t->tail->n + k <= t->tail->cap)
    return &t->tail->rec[t->tail->n];
  uint64_t room = t->kept < cap ? cap - t->kept : 0;
  struct coro_trace_chunk *c = NULL;
  if (room >= k)
    c = chunk_new(t, room < CORO_TRACE_CHUNK ? (unsigned)room : CORO_TRACE_CHUNK);
  if (!c) {
    if (!t->dropped++)
      t->drop_ts = coro_trace_now();
    return NULL;
  }
  t->kept += c->cap;
  if (t->tail)
    __atomic_store_n(&t->tail->next, c, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&t->head, c, __ATOMIC_RELEASE);
  t->tail = c;
  return &c->rec[0];
}

/* Where this thread's next k records go, in one chunk (NULL: dropped);
   filled, then counted by commit (release), so that a writer on another
   thread reads only whole records. */
static inline struct coro_trace_rec *slot(unsigned k, enum coro_trace_type type, const coro_t *c,
                                          uintptr_t a, unsigned sub) {
  struct coro_trace_thread *t = self;
  struct coro_trace_rec *r;
  if (__builtin_expect(t && t->tail && t->tail->n + k <= t->tail->cap && t->session == session, 1))
    r = &t->tail->rec[t->tail->n];
  else if (!(r = slot_slow(k)))
    return NULL;
  r->ts = coro_trace_now();
  r->inst = c;
  r->a = a;
  r->type = (uint8_t)type;
  r->kind = c ? c->kind : 0;
  r->status = c ? (uint8_t)c->status : 0;
  r->sub = (uint8_t)sub;
  r->point = c ? c->resume_point : 0;
  r->spare = 0;
  return r;
}

static inline void commit(unsigned k) {
  struct coro_trace_chunk *ch = self->tail;
  __atomic_store_n(&ch->n, ch->n + k, __ATOMIC_RELEASE);
}

static inline void put(enum coro_trace_type type, const coro_t *c, uintptr_t a, unsigned sub) {
  if (slot(1, type, c, a, sub))
    commit(1);
}

static const void *code_of(coro_t *c) {
  const void *(*entry_of)(coro_t *) = __atomic_load_n(&coro_trace_entry_of, __ATOMIC_RELAXED);
  if ((c->kind & CORO_STACKFUL) && entry_of)
    return entry_of(c);
  return (const void *)c->resume;
}

void coro_trace_begin(coro_t *c) {
  put(CORO_TR_BEGIN, c, (uintptr_t)code_of(c), 0);
}

void coro_trace_end(coro_t *c) {
  put(CORO_TR_END, c, 0, 0);
}

/* A resume, recorded around it: its run's end, a suspension or the body's,
   is read from c's state when it comes back (nothing is recorded inside a
   body). */
bool coro_trace_resume(coro_t *c, void *out) {
  coro_trace_begin(c);
  bool more = c->resume(c, out);
  coro_trace_end(c);
  return more;
}

void coro_trace_create(coro_t *c) {
  if (coro_trace_active)
    put(CORO_TR_CREATE, c, (uintptr_t)code_of(c), 0);
}

/* The runtime's awaitables whose kind needs more than the word after their
   struct coro_awaitable (futures.c, chan.c put their ops in this section):
   only theirs are read further, since a program's own may be no longer. */
extern const char __start_coro_trace_wide[] __attribute__((weak));
extern const char __stop_coro_trace_wide[] __attribute__((weak));

void coro_trace_wait(coro_t *c, enum coro_trace_wait sub, const void *what) {
  uintptr_t ops = 0, w0 = (uintptr_t)what;
  const uintptr_t *words = NULL;
  if (sub == CORO_TW_AWAITABLE && what) {
    const struct coro_awaitable *aw = what;
    ops = (uintptr_t)aw->ops;
    words = (const uintptr_t *)(aw + 1);
    w0 = words[0];
  }
  struct coro_trace_rec *r = slot(2, CORO_TR_WAIT, c, ops, sub);
  if (!r)
    return;
  struct coro_trace_rec *more = r + 1; /* b, c, d and a byte (coro_trace.h) */
  *more = (struct coro_trace_rec){.ts = w0, .type = CORO_TR_MORE};
  const char *o = (const char *)ops;
  if (words && o >= __start_coro_trace_wide && o < __stop_coro_trace_wide) {
    more->inst = (const void *)words[1];
    more->a = words[2];
    more->status = *(const uint8_t *)(words + 3);
  }
  commit(2);
}

void coro_trace_wake(coro_t *woken, coro_t *waker) {
  if (waker)
    put(CORO_TR_WAKE, woken, (uintptr_t)waker, 0);
  else
    put(CORO_TR_WAKE, woken, (uintptr_t)coro_trace_source, 1); /* (a source's name) */
}

unsigned coro_trace_unpack(const struct coro_trace_chunk *ch, unsigned i,
                           struct coro_trace_event *ev) {
  const struct coro_trace_rec *r = &ch->rec[i];
  *ev = (struct coro_trace_event){.ts = r->ts,
                                  .inst = r->inst,
                                  .a = r->a,
                                  .type = r->type,
                                  .kind = r->kind,
                                  .status = r->status,
                                  .sub = r->sub,
                                  .point = r->point};
  if (r->type == CORO_TR_WAKE && r->sub == 1) {
    ev->b = ev->a; /* the source's name; no waker */
    ev->a = 0;
    ev->sub = 0;
  }
  if (r->type != CORO_TR_WAIT || i + 1 >= ch->n || r[1].type != CORO_TR_MORE)
    return 1;
  ev->b = (uintptr_t)r[1].ts;
  ev->c = (uintptr_t)r[1].inst;
  ev->d = r[1].a;
  ev->status = r[1].status;
  return 2;
}

void coro_trace_cancel(coro_t *c, coro_t *by) {
  put(CORO_TR_CANCEL, c, (uintptr_t)by, 0);
}

void coro_trace_free(coro_t *c) {
  put(CORO_TR_FREE, c, 0, 0);
}

/* The thread ends (thread.c, last of its parts): its records stay, for the
   file, until the next trace starts. */
static void thread_end(void *arg) {
  struct coro_trace_thread *t = arg;
  if (coro_trace_active && t->session == session)
    put(CORO_TR_THREAD_END, NULL, 0, 0);
  __atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
  self = NULL;
}

/* }================================================================== */

/* {==================================================================
 * Starting and stopping: the file
 * =================================================================== */

struct coro_trace_thread *coro_trace_threads_lock(void) {
  pthread_mutex_lock(&threads_lock);
  return threads;
}

void coro_trace_threads_unlock(void) {
  pthread_mutex_unlock(&threads_lock);
}

unsigned long coro_trace_session(void) {
  return session;
}

uint64_t coro_trace_cap(void) {
  return cap;
}

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

static void clock_choose(void) {
  use_tsc = tsc_usable();
}

/* A trace begins: each thread's records from now on are of it. The records
   of the threads that ended go with the last trace; a live thread drops its
   own at its first record of this one. */
void coro_trace_open(uint64_t max_events) {
  pthread_once(&clock_once, clock_choose);
  pthread_mutex_lock(&threads_lock);
  for (struct coro_trace_thread **tp = &threads; *tp;) {
    struct coro_trace_thread *t = *tp;
    if (!__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) {
      tp = &t->next;
      continue;
    }
    *tp = t->next;
    for (struct coro_trace_chunk *c = t->head, *next; c; c = next) {
      next = c->next;
      chunk_free(c);
    }
    for (struct coro_trace_chunk *c = t->spare, *next; c; c = next) {
      next = c->next;
      chunk_free(c);
    }
    free(t);
  }
  cap = max_events;
  start_ns = monotonic_ns();
  start_ticks = coro_trace_now();
  __atomic_store_n(&session, session + 1, __ATOMIC_RELEASE);
  __atomic_store_n(&coro_trace_active, CORO_TRACE_ON, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&threads_lock);
}

/* It ends: no more records. Its two ends on CLOCK_MONOTONIC, ns. */
void coro_trace_close(uint64_t *from_ns, uint64_t *to_ns) {
  __atomic_store_n(&coro_trace_active, 0, __ATOMIC_RELEASE);
  *to_ns = calibrate();
  *from_ns = start_ns;
}

/* }================================================================== */
