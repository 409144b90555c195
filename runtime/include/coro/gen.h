/* coro/gen.h: what the code that coroc generates needs from the runtime.
 *
 * Not for users: <coro.h> is the API, and it includes this header at its
 * end, so that generated code (and a user's program) keeps writing
 * `#include <coro.h>` only. Here are the layouts of the instance headers
 * (those of the awaitable structs that <coro.h> names are in
 * <coro/awaitables.h>, which this header includes), the macros of a
 * stackless resume function, the stackful interface (with the x86_64
 * inline switch, which <coro/switch_x86_64.h> holds), and coro_next
 * itself, inline. docs/abi.md describes it all; names and layout may
 * change between versions of coroc.
 */
#ifndef CORO_GEN_H
#define CORO_GEN_H

#ifndef CORO_H
#error "include <coro.h>, which includes <coro/gen.h> at its end"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The life cycle of an instance. coro_status_name() gives each a name. */
enum coro_status {
  CORO_CREATED,   /* made by name(args); the body has not started (lazy start) */
  CORO_SUSPENDED, /* stopped at a yield; resumable */
  CORO_RUNNING,   /* its body is executing now */
  CORO_DONE       /* its body returned; never runs again */
};

/* The largest resume point number of a stackless body (coroc refuses more
   yields and awaits in one coroutine), and the resume_point of a stackful
   instance whose switch may be inlined: above every stackless one. The
   other marks: the same, for an instance that keeps its own floating-point
   environment (coro_set_fpenv), switched by the switch that loads it only
   when it differs, or always (the runtime picks by processor). */
#define CORO_MAX_RESUME_POINTS 0x7fff
#define CORO_INLINE_SWITCH_MARK 0x8000
#define CORO_INLINE_SWITCH_FPENV 0x8001
#define CORO_INLINE_SWITCH_FPENV_LOAD 0x8002

/* What kind of instance a header belongs to (struct coro's `kind`): made
   by a generator (`yield EXPR`: consumed by coro_next, never awaited) or a
   task, by either backend. */
enum coro_kind {
  CORO_GENERATOR = 1, /* consumed by coro_next */
  CORO_TASK = 2,      /* run by the scheduler or awaited; its header is a struct coro_task */
  CORO_STACKFUL = 4,  /* the stackful backend's (runtime/stackful.c): a struct coro_task too */
  CORO_CLEANUP = 8,   /* its body has cleanups (__attribute__((cleanup))) that coro_free runs when
                         it frees the instance suspended: coro_cleanup_suspended */
  /* Not kinds: how a task stands with cancellation (runtime/cancel.c), kept
     in this byte so that the task header does not grow for it. */
  CORO_CANCELLED = 16,   /* coro_cancel asked it to stop: its waits end with -ECANCELED */
  CORO_DEADLINE = 32,    /* it has a deadline (coro_deadline), which coro_free drops */
  CORO_SHARED_STACK = 64 /* stackful, on its thread's shared stack (coro_set_shared_stack, or by
                            default): what it awaits is kept off that stack (CORO_STACKFUL_AWAIT) */
};                       /* GENERATOR | TASK: an async generator (it yields and awaits), whose
                            task header's `result` points to its struct coro_agen */

/* Where an instance's memory comes from (struct coro's `home`): what
   coro_free gives it back to. */
enum coro_home {
  CORO_HOME_NONE,  /* not the runtime's: a relay inside an awaitable */
  CORO_HOME_SLAB,  /* a slot of one of its thread's slabs (runtime/registry.c) */
  CORO_HOME_MALLOC /* malloc or the thread's allocator, with a struct coro_live in front
                      (runtime/registry.c) */
};

/* The header every instance starts with: 16 bytes, what a generator needs
   and nothing more. A stackless generator's frame is this header and the
   fields coroc keeps; a task's header is the larger struct coro_task below,
   which begins with this one. The resume path reads the gate (resume_point
   and status), calls through `resume`: one load, one test, one indirect
   call, no allocation, no copying. */
struct coro {
  bool (*resume)(coro_t *c, void *out); /* run the body from where it stopped to its next suspension
                                   (true; a generator's value went to *out) or its end (false) */
  unsigned short
      resume_point;      /* stackless: the numbered point where resume continues; 0 = start
                            (at most CORO_MAX_RESUME_POINTS). Stackful: CORO_INLINE_SWITCH_MARK
                            or an _FPENV mark once coro_next and yield may switch inline, else 0 */
  unsigned short status; /* enum coro_status. Two shorts side by side: a suspension's two
                            stores (resume point, status) merge into one, and coro_next
                            tests both with one load */
  unsigned char kind;    /* enum coro_kind: generator or task, which backend */
  unsigned char home;    /* enum coro_home: where its memory came from */
  unsigned char spawned; /* a task handed to coro_spawn: the scheduler frees it at its end */
  unsigned char ready;   /* a task in its scheduler's ready queue (coro_ready, once) */
};

/* A task's header: what the scheduler and await need besides. Generators
   do not pay for it. */
struct coro_task {
  coro_t base; /* first: a task is a coro_t too */
  /* a task being awaited: the task awaiting it, resumed directly when it ends */
  struct coro_task *parent;
  /* set as a task suspends to await a child: the child to start now */
  struct coro_task *awaiting;
  void *result; /* where its return value is kept; NULL for void */
  struct coro_task
      *next_ready;                   /* the scheduler's ready queue (intrusive, FIFO); while it is
                                        suspended to await a child, that child (coro_cancel follows it) */
  struct coro_awaitable *waiting_on; /* what it waits for, from its suspension until woken
                                   (debuggers, and coro_cancel, which calls it off) */
};

/* The start of every stackful instance (runtime/stackful.c's struct
   stackful goes on from here): a task header whatever the coroutine, since
   its stack dwarfs it, and where the body's yields copy their value, which
   the stackless backend passes to its resume function instead. On x86_64
   the two saved contexts of the inline switch (coro/switch_x86_64.h) come
   right after. */
struct coro_stackful_head {
  struct coro_task task;
  void *out; /* where the yield being made copies its value; NULL: drop it */
  /* where its arguments begin, from the start of the instance: read here,
     inline, by the code that stores them and the entry that reads them */
  size_t args_offset;
};

/* The task header of an instance made by a task (CORO_TASK). */
static inline struct coro_task *coro_as_task(coro_t *c) {
  return (struct coro_task *)c;
}

/* The layouts of the awaitable structs and of the toolkit's objects. */
#include "awaitables.h"

/* {==================================================================
 * Live instances (runtime/registry.c)
 *
 * The runtime knows every live instance, for coroc's gdb extension
 * (docs/debugging.md): the small ones are slots of their thread's slabs,
 * the others (large or over-aligned frames, and every frame when the
 * runtime uses plain malloc) have this record right in front of their
 * header, in a list of their thread's. Instances are created and freed on
 * the same thread.
 * =================================================================== */
struct coro_live {
  /* this thread's malloc'ed instances: a ring through its registry */
  struct coro_live *next, *prev;
  size_t bytes;  /* the allocation's, this record included */
  size_t offset; /* from the start of the allocation to the instance */
  void (*free)(void *p, size_t bytes, void *ctx); /* the allocator's that made it; NULL: free(3) */
  void *ctx;                                      /* its context */
};

/* A task suspends on aw (CORO_AWAIT_SUSPEND, CORO_STACKFUL_AWAIT); coro_ready forgets it. */
static inline void coro_waits_for(coro_t *c, struct coro_awaitable *aw) {
  coro_as_task(c)->waiting_on = aw;
}

/* }================================================================== */

/* {==================================================================
 * The inline stackful switch (x86_64): <coro/switch_x86_64.h>
 *
 * A stackful context that is not running is its stack pointer, with where
 * it goes on and its frame pointer on top of that stack; coro_next and
 * yield switch to it with an asm statement, inline, with no call at all.
 * That header has the context (struct coro_ctx), CORO_INLINE_SWITCH where
 * the compiler can inline the switch, and the asm statements. Elsewhere
 * (aarch64, the ucontext switch) a context is the runtime's alone
 * (runtime/ctx.h) and every switch is a call into libcoro.
 * =================================================================== */
#ifdef __cplusplus
#define CORO_STATIC_ASSERT(what, why) static_assert(what, why)
#else
#define CORO_STATIC_ASSERT(what, why) _Static_assert(what, why)
#endif

/* coroc writes CORO_GENERATED_FOR(N) after the #include it adds: C made by
   another coroc stops the compiler here. N goes up when coroc's output and
   this header change together (docs/abi.md, "The version of the generated C"). */
#define CORO_GENERATED_VERSION 4
#define CORO_GENERATED_FOR(n)                       \
  CORO_STATIC_ASSERT((n) == CORO_GENERATED_VERSION, \
                     "C made by another coroc than this <coro.h>'s: run coroc on the .coc again")

#if defined(__x86_64__) && defined(__LP64__) && !defined(CORO_SWITCH_UCONTEXT)
#include "switch_x86_64.h"
/* Where the resumer's context is, in bytes from the start of a stackful
   instance: right after the head come the body's context, then its. */
#define CORO_STACKFUL_RESUMER_AT (sizeof(struct coro_stackful_head) + sizeof(struct coro_ctx))
#endif

/* }================================================================== */

/* The trace of a run (runtime/trace.c; docs/debugging.md, "Tracing a run"):
   0, or CORO_TRACE_ON while one is recorded. Nothing runs inside a body for
   it: every resume's caller records it (coro_next, the scheduler, the await
   of a child inside its parent), the run's end read from the instance's
   state once the resume returns. coro_next adds it to the status it tests
   anyway, so that while a trace is recorded every resume fails the test and
   goes to coro_next_slow, which records it; with no trace, the add is all a
   resume pays. */
#define CORO_TRACE_ON ((unsigned)CORO_RUNNING << 16)
extern unsigned coro_trace_active;

/* coro_next of an instance that did not pass the test: a refusal (running,
   or done), or a resume recorded in the trace. */
bool coro_next_slow(coro_t *gen, void *out);

/* coro_next, inline: the resume path is one check and one indirect call,
   as lean as calling a hand-written state machine; for a
   stackful instance, the stack switch itself, right here. What is not the
   common case (a finished or running instance) is out of line. */
bool coro_next_refused(coro_t *gen);

/* Set the resume point and the status. Where coro_next reads the two as one
   word (the gate, below), they are stored as one word too: a load that finds
   only part of itself in the last store, or parts in two stores, waits for
   the stores to reach the cache (a dozen cycles or more on every resume),
   and a compiler merges the two stores only when it sees both values. */
static inline void coro_set_state(coro_t *c, unsigned resume_point, enum coro_status status) {
#ifdef CORO_INLINE_SWITCH
  uint32_t gate = resume_point | (uint32_t)status << 16; /* x86_64 is little-endian */
  __builtin_memcpy((char *)c + __builtin_offsetof(struct coro, resume_point), &gate, sizeof gate);
#else
  c->resume_point = (unsigned short)resume_point;
  c->status = (unsigned short)status;
#endif
}

#ifdef CORO_INLINE_SWITCH

/* The gate, as coro_set_state stores it and coro_next reads it: one load. */
static inline uint32_t coro_gate(const coro_t *c) {
  uint32_t gate;
  __builtin_memcpy(&gate, (const char *)c + __builtin_offsetof(struct coro, resume_point),
                   sizeof gate);
  return gate;
}

/* coro_next of an instance that keeps its own FP environment (marked
   CORO_INLINE_SWITCH_FPENV or _FPENV_LOAD): the switch, out of line
   (runtime/stackful.c). Its copies of the inline switch, longer than the
   plain one, made coro_next_gated too large for GCC to inline into every
   coro_next, which then cost every stackful instance a call. */
bool coro_next_fpenv(coro_t *gen);

/* coro_next of an instance that did not pass the gate (below): a refusal,
   or a stackful instance to switch to, right here. The common case is one
   test of the gate (with the trace's flag, as coro_next_open reads it): the
   inline mark, and a status of CORO_CREATED or CORO_SUSPENDED. */
static inline bool coro_next_gated(coro_t *gen, void *out) {
  uint32_t gate = coro_gate(gen) + coro_trace_active;
  struct coro_stackful_head *head = (struct coro_stackful_head *)gen;
  struct coro_ctx *body = (struct coro_ctx *)(head + 1);
  if (__builtin_expect((gate | (uint32_t)CORO_SUSPENDED << 16) ==
                           (CORO_INLINE_SWITCH_MARK | (uint32_t)CORO_SUSPENDED << 16),
                       1)) {
    head->out = out; /* the body writes its yield there */
    coro_set_state(gen, CORO_INLINE_SWITCH_MARK, CORO_RUNNING);
    CORO_SWITCH_INLINE_NEXT(body + 1, body, CORO_SWITCH_ASM, gen, CORO_STACKFUL_RESUMER_AT);
  } else if (gate >> 16 >= CORO_RUNNING) { /* (a trace: every status) */
    return coro_next_slow(gen, out);
  } else { /* CORO_INLINE_SWITCH_FPENV or _FPENV_LOAD */
    head->out = out;
    return coro_next_fpenv(gen);
  }
  gate = coro_gate(gen);          /* as the yield stored it: one word (coro_set_state) */
  return gate >> 16 != CORO_DONE; /* suspended again, or finished */
}

CORO_STATIC_ASSERT(__builtin_offsetof(struct coro, status) ==
                       __builtin_offsetof(struct coro, resume_point) + 2,
                   "coro_next reads resume_point and status as one 32-bit gate");
#endif

/* May coro_next call gen's resume function right away: gen is not running,
   not done, not a stackful instance to switch to here, and no trace is
   recorded? The test of every resume, which the generated coro_next_of_NAME
   makes too. With the inline switch, the gate: resume_point in the low
   half, status in the high half (x86_64 is little-endian), read as the one
   word that a stackless suspension stores; it lets through an instance
   whose status is below CORO_RUNNING and which has no
   CORO_INLINE_SWITCH_MARK. One load and one test, what stackless instances
   pay without the inline switch too; the trace's flag, added to the status
   (CORO_TRACE_ON), makes every status fail it. */
static inline bool coro_next_open(const coro_t *gen) CORO_NOEXCEPT {
#ifdef CORO_INLINE_SWITCH
  uint32_t gate = coro_gate(gen) + coro_trace_active;
  return !(gate & (~(uint32_t)CORO_SUSPENDED << 16 | CORO_INLINE_SWITCH_MARK));
#else
  return gen->status + (coro_trace_active >> 16) < CORO_RUNNING;
#endif
}

static inline bool coro_next(coro_t *gen, void *out) CORO_NOEXCEPT {
  if (__builtin_expect(!coro_next_open(gen), 0))
#ifdef CORO_INLINE_SWITCH
    return coro_next_gated(gen, out); /* a stackful switch, right here; or the slow way */
#else
    return coro_next_slow(gen, out);
#endif
  return gen->resume(gen, out); /* it marks itself running; out in a register, the answer in one */
}

/* coro_free of a stackless instance in storage its caller gave (made by
   coro_in_NAME: home CORO_HOME_NONE) with no cleanups (CORO_CLEANUP) is a
   test, not a call: the compiler then sees an instance's whole life. Every
   other goes to the library's, which `&coro_free` and `(coro_free)(c)` name. */
static inline void coro_free_inline(coro_t *c) CORO_NOEXCEPT {
  if (c && c->home == CORO_HOME_NONE && !(c->kind & (CORO_STACKFUL | CORO_CLEANUP)) &&
      c->status != CORO_RUNNING)
    return;
  (coro_free)(c);
}
#define coro_free(c) coro_free_inline(c)

/* coro_next and coro_free of a generator's frame itself, in the file that
   defines it (coroc's coro_next_in_NAME and coro_free_in_NAME; docs/abi.md,
   "The frame itself"): their refusals name the generator and not the
   instance, since a call given the frame's address would keep the compiler
   from holding the instance in registers. A done one answers false; a
   running one stops the program, as coro_next_refused and coro_free do. */
__attribute__((noreturn, cold)) void coro_refused_in(const char *what, const char *generator);
static inline bool coro_next_refused_in(const coro_t *c, const char *generator) CORO_NOEXCEPT {
  if (c->status != CORO_DONE)
    coro_refused_in("coro_next", generator);
  return false;
}
static inline void coro_free_refused_in(const coro_t *c, const char *generator) CORO_NOEXCEPT {
  if (__builtin_expect(c->status == CORO_RUNNING, 0))
    coro_refused_in("coro_free", generator);
}

/* The end of coroc's coro_next_to_NAME, which resumed through `copy`
   (docs/abi.md, "The consumer's variable"): the value to *out, or after a
   false *out as it was, copied onto itself: written on every path. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized" /* that copy */
#endif
static inline bool coro_next_copied(bool more, void *out, void *copy, size_t size) CORO_NOEXCEPT {
  if (out) {
    if (!more)
      __builtin_memcpy(copy, out, size);
    __builtin_memcpy(out, copy, size);
  }
  return more;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Allocate a zeroed frame of `size` bytes aligned to `align` whose first
   member is a struct coro (a struct coro_task when kind is CORO_TASK), and
   set it up to run `resume` when first resumed. Aborts with a message when
   memory runs out: a coroutine call has no way to report failure to its
   caller. */
coro_t *coro_frame_new(size_t size, size_t align, bool (*resume)(coro_t *c, void *out),
                       enum coro_kind kind);

/* The header of an instance being made: `resume`, then resume point 0,
   CORO_CREATED, kind, home and nothing spawned or ready, the second word
   written by one 8-byte store. coro_next's first gate (a 4-byte load of
   that word) then finds the whole of itself in one store and takes it from
   there; after a store of each field apart, the load waits for them to
   reach the cache (coro_set_state). */
static inline void coro_header_set(coro_t *c, bool (*resume)(coro_t *c, void *out),
                                   enum coro_kind kind, enum coro_home home) {
  c->resume = resume;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t word = (uint64_t)CORO_CREATED << 16 | (uint64_t)(unsigned char)kind << 32 |
                  (uint64_t)(unsigned char)home << 40;
  __builtin_memcpy(&c->resume_point, &word, sizeof word);
#else
  c->resume_point = 0;
  c->status = CORO_CREATED;
  c->kind = (unsigned char)kind;
  c->home = (unsigned char)home;
  c->spawned = 0;
  c->ready = 0;
#endif
}
CORO_STATIC_ASSERT(__builtin_offsetof(struct coro, status) == 10 &&
                       __builtin_offsetof(struct coro, kind) == 12 &&
                       __builtin_offsetof(struct coro, home) == 13 &&
                       __builtin_offsetof(struct coro, ready) == 15 && sizeof(struct coro) == 16,
                   "coro_header_set stores resume point to ready as one 8-byte word");

/* The same in storage the caller gives, `size` bytes aligned for the frame:
   a child's frame inside its awaiting parent's (coroc's `coro_in_NAME`).
   coro_free of it gives nothing back (home CORO_HOME_NONE). */
static inline void coro_frame_init(coro_t *c, size_t size, bool (*resume)(coro_t *c, void *out),
                                   enum coro_kind kind) {
  __builtin_memset(c, 0, size);
  coro_header_set(c, resume, kind, CORO_HOME_NONE);
}

/* A task's frame inside its awaiting parent's, made again for the parent's
   next await (coro_start_child, after coroc's coro_inside_NAME has put the
   arguments in). No memset: the storage is either
   as the parent's creation zeroed it, or as the last child made there left
   it when it ended, and an ended child leaves its header as a new one needs
   it but for these four fields. The runtime keeps that true: the
   scheduler clears `awaiting` when it starts the awaited child,
   `next_ready` and `ready` when it takes a task off the ready queue (a
   task that awaited a child may have left that child's address in
   `next_ready`, which is read only while a task is suspended for a
   child, and set at that suspension: coro_cancel), and
   `waiting_on` when a task is woken; `result` is never set for a child
   inside its parent (the parent reads coro_result), `home` and `spawned`
   stay 0, and `parent` is set once, by the parent's creation (below). */
static inline void coro_frame_again(coro_t *c, bool (*resume)(coro_t *c, void *out),
                                    enum coro_kind kind) {
  coro_header_set(c, resume, kind, CORO_HOME_NONE); /* (what the child before left in kind goes) */
}

/* The parent of every child made inside a task's frame (coroc's
   coro_children, whose members all begin with the header) is that task:
   written once when the task is made, not at every await. _home: in a frame
   coro_frame_new zeroed; _init: in storage that may hold anything. */
static inline void coro_children_home(void *children, coro_t *parent) {
  ((struct coro_task *)children)->parent = coro_as_task(parent);
}
static inline void coro_children_init(void *children, coro_t *parent) {
  __builtin_memset(children, 0, sizeof(struct coro_task));
  coro_children_home(children, parent);
}

/* Cleanups (docs/language.md, "Cleanup when an instance ends early"). A
   stackless instance of a body with locals declared
   __attribute__((cleanup(fn))), or with a child inside its frame that has
   some (kind CORO_CLEANUP), has, right after its header, the function that
   calls the cleanups of the locals in scope at its current resume point,
   innermost first; coro_free calls it on a suspended instance (and marks it
   done). A stackful one is resumed instead, told to unwind
   (coro_stackful_unwinding): its suspension returns from the body, and the
   compiler runs the cleanups. */
struct coro_cleanup_slot {
  void (*run)(coro_t *c);
};
static inline struct coro_cleanup_slot *coro_cleanup_slot(coro_t *c) {
  return (struct coro_cleanup_slot *)((char *)c + ((c->kind & CORO_TASK) ? sizeof(struct coro_task)
                                                                         : sizeof(struct coro)));
}

/* The name of a status, for messages. */
const char *coro_status_name(int status);

/* The tiny vocabulary of a stackless resume function (protothreads-style).
 * A resume point is a number; its label is coro_resume_N. The dispatch switch
 * at the top of the resume function jumps to it with goto, which also works
 * when the yield stands inside the user's own switch or nested loops. */

/* `yield EXPR;` in a generator of T: EXPR is evaluated once, converted to
   T and stored where coro_next asked; then suspend at resume point n. One
   line of output, so that a debugger shows the yield's line for all of it. */
#define CORO_YIELD(c, out, n, T, ...) /* ... is EXPR, which may hold commas */ \
  do {                                                                         \
    T coro_value_ = (__VA_ARGS__);                                             \
    if (out)                                                                   \
      *(T *)(out) = coro_value_;                                               \
    CORO_SUSPEND(c, n);                                                        \
  } while (0)

/* What a resume function does first: mark the instance running, so that a
   generator that tries to resume itself is refused, and hand its resume
   point to the dispatch switch. When the body reaches its next suspension
   with no call on the way, the compiler drops the store, since the
   suspension's store overwrites it. (It reads the resume point alone, not
   the whole gate as coro_next does: where the whole life of an instance is
   in view, GCC then follows each resume to its resume point, and dropped
   that when the dispatch took the resume point out of the gate: 2.8 to 3.9
   ns a life in caller storage, benchmark part 9.) */
static inline unsigned coro_enter(coro_t *c) {
  c->status = CORO_RUNNING;
  return c->resume_point;
}

/* The label after a resume function's dispatch switch, where the body
   starts: only the first resume comes this way, every later one jumps past
   it to its resume point. GCC takes `cold` on a label to mean just that and
   lays the resume paths out as the straight line, the way a hand-written
   state machine is laid out (docs/benchmarks.md); clang has no cold labels. */
#if defined(__GNUC__) && !defined(__clang__)
#define CORO_FIRST_RESUME __attribute__((cold, unused))
#else
#define CORO_FIRST_RESUME __attribute__((unused))
#endif

/* The label before the body's end (its last CORO_FINISH), reached once in
   an instance's life: cold for the same reason, so that a loop around a
   yield is laid out as the straight line, as a hand-written machine is, and
   the way out of the loop is the jump (without it GCC made every resume of
   `for (...; i < to; ...) yield i;` jump over the end: 1.3x slower). */
#define CORO_BODY_END CORO_FIRST_RESUME

/* CORO_YIELD, when some locals are kept in C locals of the resume function
   (docs/abi.md, "Locals in C locals between suspensions"): KEEP, their
   stores to the frame (`(coro_f->i = i)`), comes after EXPR is evaluated
   (`yield i++;` keeps the i after the increment) and before the suspension;
   one statement, so a debugger's breakpoint on the yield's line stops once. */
#define CORO_YIELD_KEEPING(c, out, n, T, KEEP, ...) /* ... is EXPR */ \
  do {                                                                \
    T coro_value_ = (__VA_ARGS__);                                    \
    if (out)                                                          \
      *(T *)(out) = coro_value_;                                      \
    (void)KEEP;                                                       \
    CORO_SUSPEND(c, n);                                               \
  } while (0)

/* Suspend at resume point n: the next resume continues at label coro_resume_n. */
#define CORO_SUSPEND(c, n)                    \
  do {                                        \
    coro_set_state((c), (n), CORO_SUSPENDED); \
    return true;                              \
  } while (0)

/* A compound literal whose storage must outlive a suspension (an array, or
   one whose address is taken): it lives in the frame field `field`, filled
   from the literal each time the expression is evaluated, as C says. */
#define CORO_LITERAL(field, ...) \
  (*(__typeof__(field) *)__builtin_memcpy(&(field), &(__VA_ARGS__), sizeof(field)))

/* The body returned: the instance is done for good. */
#define CORO_FINISH(c)       \
  do {                       \
    (c)->status = CORO_DONE; \
    return false;            \
  } while (0)

/* The stackful backend (runtime/stackful.c). An instance is a struct
 * coro_stackful_head, the runtime's bookkeeping and the arguments, which the
 * generated code stores through coro_stackful_args. The body is an ordinary
 * function, started through `entry` on the instance's own stack at the first
 * coro_next; when entry returns, the instance is done (docs/abi.md, "The
 * stackful interface", shows the code that uses these). */

/* A new stackful instance, not started (lazy start; its stack is mapped at the
   first resume), with room for args_size bytes of arguments aligned to
   args_align. Aborts with a message when memory runs out. */
coro_t *coro_stackful_new(void (*entry)(coro_t *c), size_t args_size, size_t args_align,
                          enum coro_kind kind);

/* The same in storage the caller gives (coroc's coro_in_NAME for
   CORO_FRAME(NAME)): `bytes` at `storage`, aligned to 16, of which the
   runtime's bookkeeping takes at most CORO_STACKFUL_BYTES (checked: a
   libcoro built with the ucontext switch needs more, and says so) and the
   arguments the rest. coro_free releases the stack and gives nothing back. */
enum { CORO_STACKFUL_BYTES = 768 };
struct coro_stackful_storage {
  unsigned char bytes[CORO_STACKFUL_BYTES];
} __attribute__((aligned(16)));
coro_t *coro_stackful_init(void *storage, size_t bytes, void (*entry)(coro_t *c), size_t args_size,
                           size_t args_align, enum coro_kind kind);

/* The instance's argument area: args_size bytes aligned to args_align, zeroed
   at creation, owned (and freed) by the instance. Inline: a short generator
   made and run to its end in a loop asks twice a life; the library's
   function of the name (`(coro_stackful_args)(c)`) is the same. */
void *(coro_stackful_args)(coro_t *c);
static inline void *coro_stackful_args_inline(coro_t *c) CORO_NOEXCEPT {
  return (char *)c + ((struct coro_stackful_head *)c)->args_offset;
}
#define coro_stackful_args(c) coro_stackful_args_inline(c)

/* From inside c's body: switch back to whoever resumed c; returns when c is
   resumed again. Aborts with a message if c is not the coroutine running on
   this thread. */
void coro_stackful_suspend(coro_t *c);

/* The same, with the switch inline where it can be (coro/switch_x86_64.h),
   returning c (made again from the register where the switch that resumed
   it left its context: the yields assign it back, `(c) = ...`). Always
   inlined where the compiler optimizes: with its three switches it
   is near the size past which GCC stops inlining a function on its own,
   and a yield that calls it pays a call and keeps the body's values in
   memory around it (one more line in the switch's text once tipped it, in
   a body at -O2). Without optimization nothing is inlined, and a debugger
   shows the yield as a frame of its own. */
#ifdef __OPTIMIZE__
#define CORO_YIELD_INLINE __attribute__((always_inline))
#else
#define CORO_YIELD_INLINE
#endif
static inline CORO_YIELD_INLINE coro_t *coro_stackful_yield(coro_t *c) {
#ifdef CORO_INLINE_SWITCH
  /* body: the body's context; body + 1: the resumer's */
  struct coro_ctx *body = (struct coro_ctx *)((struct coro_stackful_head *)c + 1), *arrived;
  if (__builtin_expect(c->resume_point == CORO_INLINE_SWITCH_MARK && c->status == CORO_RUNNING,
                       1)) {
    coro_set_state(c, CORO_INLINE_SWITCH_MARK, CORO_SUSPENDED);
    CORO_SWITCH_INLINE_ARRIVE(body, body + 1, CORO_SWITCH_ASM, arrived);
  } else if (c->resume_point == CORO_INLINE_SWITCH_FPENV && c->status == CORO_RUNNING) {
    coro_set_state(c, CORO_INLINE_SWITCH_FPENV, CORO_SUSPENDED);
    CORO_SWITCH_INLINE_ARRIVE(body, body + 1, CORO_SWITCH_FPENV_ASM, arrived);
  } else if (c->resume_point == CORO_INLINE_SWITCH_FPENV_LOAD && c->status == CORO_RUNNING) {
    coro_set_state(c, CORO_INLINE_SWITCH_FPENV_LOAD, CORO_SUSPENDED);
    CORO_SWITCH_INLINE_ARRIVE(body, body + 1, CORO_SWITCH_FPENV_LOAD_ASM, arrived);
  } else {
    coro_stackful_suspend(c);
    return c;
  }
  /* c again, made from the body's context, where its resumer switched to
     (coro/switch_x86_64.h): the body keeps it in a register from one yield
     to the next, not in its stack frame */
  return (coro_t *)((struct coro_stackful_head *)arrived - 1);
#else
  coro_stackful_suspend(c);
  return c;
#endif
}

/* coro_free of a suspended stackful instance whose body has cleanups
   (CORO_CLEANUP) resumes it with this as `out`: each suspension of such a
   body then returns from it (CORO_STACKFUL_RESUMED), and the compiler runs
   the cleanups of every scope it leaves, as for any return. */
extern char coro_unwind_mark;
#define CORO_UNWIND_OUT ((void *)&coro_unwind_mark)
static inline bool coro_stackful_unwinding(coro_t *c) {
  return ((struct coro_stackful_head *)c)->out == CORO_UNWIND_OUT;
}

/* What a stackful body does right after each suspension: nothing, unless
   its coroutine runs cleanups, whose generated code defines it, around the
   body, as `if (coro_stackful_unwinding(c)) return ...;`. */
#define CORO_STACKFUL_RESUMED(c) ((void)0)

/* `await child(...)` of a child on this stack (its body called inline), in
   a body with cleanups: after the call, unwind too if the child did. */
#define CORO_STACKFUL_INLINE(c, ...)                      \
  __extension__({                                         \
    __typeof__(__VA_ARGS__) coro_inline_ = (__VA_ARGS__); \
    CORO_STACKFUL_RESUMED(c);                             \
    coro_inline_;                                         \
  })
#define CORO_STACKFUL_INLINE_VOID(c, ...) \
  __extension__({                         \
    (__VA_ARGS__);                        \
    CORO_STACKFUL_RESUMED(c);             \
  })

/* `yield EXPR;` in a stackful generator of T: EXPR is evaluated once,
   converted to T and stored where coro_next asked; then suspend. */
#define CORO_STACKFUL_YIELD(c, T, ...) /* ... is EXPR, which may hold commas */ \
  do {                                                                          \
    T coro_value_ = (__VA_ARGS__);                                              \
    void *coro_out_ = ((struct coro_stackful_head *)(c))->out;                  \
    if (coro_out_)                                                              \
      *(T *)coro_out_ = coro_value_;                                            \
    (c) = coro_stackful_yield(c);                                               \
    CORO_STACKFUL_RESUMED(c);                                                   \
  } while (0)

/* `x = yield v;` in either backend: what coro_send(gen, in, out) sends, for
   the one instance it resumes; taken (and cleared) right after that
   instance resumes, before anything else runs, so a generator it resumes
   in turn never sees it. CORO_RECEIVE: x gets *in, or zero bytes when
   nothing was sent to it (coro_next). */
struct coro_sent {
  coro_t *to;     /* the instance that coro_send resumes, or NULL */
  const void *in; /* the value it sends */
};
#ifdef __cplusplus
extern thread_local struct coro_sent coro_sent;
#else
extern _Thread_local struct coro_sent coro_sent;
#endif
#define CORO_RECEIVE(c, LVALUE)                                  \
  do {                                                           \
    if (coro_sent.to == (c)) {                                   \
      coro_sent.to = (void *)0;                                  \
      __builtin_memcpy(&(LVALUE), coro_sent.in, sizeof(LVALUE)); \
    } else {                                                     \
      __builtin_memset(&(LVALUE), 0, sizeof(LVALUE));            \
    }                                                            \
  } while (0)

/* Tasks in the stackless backend. */

/* Every suspension of a task passes through coro_task_suspends, which stops
   the program with a message when the task was resumed by coro_next instead
   of the scheduler. coro_yield_task is that, then coro_ready. */
void coro_task_suspends(coro_t *c);
void coro_yield_task(coro_t *c);

/* `yield;`: give every other ready task a turn, then go on. */
#define CORO_YIELD_TASK(c, n) \
  do {                        \
    coro_yield_task(c);       \
    CORO_SUSPEND(c, n);       \
  } while (0)

/* `await child(...)`: suspend at n; the scheduler starts the child at once,
   and resumes this task directly when the child returns. */
void coro_await_task(coro_t *parent, coro_t *child);
#define CORO_AWAIT_TASK(c, n, child) \
  do {                               \
    coro_await_task(c, child);       \
    CORO_SUSPEND(c, n);              \
  } while (0)

/* The task this thread's scheduler is running now (NULL between tasks): a
   task that suspends must be it, or a child it started inline
   (coro_task_suspends). */
#ifdef __cplusplus
extern thread_local coro_t *coro_current_task;
#else
extern _Thread_local coro_t *coro_current_task;
#endif

/* `await child(...)` of a child whose frame is inside the parent's (its
   arguments put there by coroc's coro_inside_NAME): write its header (of
   kind `kind`, to run `resume`) and run it now, as the scheduler would
   have next. True when the child has not ended: the parent suspends too,
   and is resumed when the child ends. Inline, so that the compiler may
   inline the body: a child that returns at once costs what a call does. A
   child that suspended goes on in coro_child_waits (runtime/sched.c).
   Whether the scheduler resumed the parent is checked where something
   suspends (coro_task_suspends), not here.

     coro_inside_child(&coro_f->coro_children.coro_in_3, x);
     if (coro_start_child(coro_c, &coro_f->coro_children.coro_in_3.coro_base.base,
                          coro_resume_child, coro_kind_child)) {
       CORO_SUSPEND(coro_c, 3); coro_resume_3:;
     }                                                                      */
bool coro_child_waits(coro_t *parent, coro_t *child);
/* The same while a trace is recorded: the child's run recorded around it. */
bool coro_start_child_traced(coro_t *parent, coro_t *child, bool (*resume)(coro_t *c, void *out));
static inline bool coro_start_child(coro_t *parent, coro_t *child,
                                    bool (*resume)(coro_t *c, void *out), int kind) {
  /* (child's parent link is parent already: coro_children_home; its
     arguments are in its frame: coroc's coro_inside_NAME) */
  if (__builtin_expect(coro_trace_active, 0)) {
    coro_frame_again(child, resume, (enum coro_kind)kind);
    return coro_start_child_traced(parent, child, resume);
  }
  /* After the test: with the body inline, the compiler sees the header's
     word and the end's status stored into it on one path, and stores the
     word once (two stores, one inside the other: a fifth of an await). */
  coro_frame_again(child, resume, (enum coro_kind)kind);
  return resume(child, (void *)0) && coro_child_waits(parent, child);
}

/* `await op(...)`: while the awaitable aw is not ready, arrange to be woken
   and suspend at n (the caller's loop tries again on resume). */
#define CORO_READY(aw) ((struct coro_awaitable *)&(aw))->ops->ready((struct coro_awaitable *)&(aw))
#define CORO_AWAIT_SUSPEND(c, n, aw)                                                   \
  do {                                                                                 \
    coro_waits_for(c, (struct coro_awaitable *)&(aw));                                 \
    coro_task_suspends(c);                                                             \
    ((struct coro_awaitable *)&(aw))->ops->suspend((struct coro_awaitable *)&(aw), c); \
    CORO_SUSPEND(c, n);                                                                \
  } while (0)

/* Tasks in the stackful backend: the same, as expressions (GNU statement
   expressions), since the body keeps its own C. */
#define CORO_STACKFUL_YIELD_TASK(c) \
  do {                              \
    coro_yield_task(c);             \
    (c) = coro_stackful_yield(c);   \
    CORO_STACKFUL_RESUMED(c);       \
  } while (0)

/* A task on the shared stack (CORO_SHARED_STACK) awaits its awaitable in
   a slot of its instance instead: the event sources link the awaitable
   into their lists and write to it while the task is suspended, when the
   shared stack holds another instance's frames. The slot is the
   instance's, kept for its life and grown to the largest awaitable it
   has waited on; the awaitable is copied there as it was made, before its
   first ready(), which may take pointers to its members. (One slot is
   enough: a task awaits one thing at a time, and an await in the operand
   of another is over before the outer one is made.) */
void *coro_stackful_await_slot(coro_t *c, const void *aw, size_t size);

#define CORO_STACKFUL_AWAIT(c, ...)                                                               \
  __extension__({                                                                                 \
    __typeof__(__VA_ARGS__) coro_aw_ = (__VA_ARGS__);                                             \
    __typeof__(coro_aw_) *coro_ap_ = &coro_aw_;                                                   \
    if (__builtin_expect((c)->kind & CORO_SHARED_STACK, 0))                                       \
      coro_ap_ = (__typeof__(coro_aw_) *)coro_stackful_await_slot(c, &coro_aw_, sizeof coro_aw_); \
    while (!CORO_READY(*coro_ap_)) {                                                              \
      coro_waits_for(c, (struct coro_awaitable *)coro_ap_);                                       \
      coro_task_suspends(c);                                                                      \
      ((struct coro_awaitable *)coro_ap_)->ops->suspend((struct coro_awaitable *)coro_ap_, c);    \
      (c) = coro_stackful_yield(c);                                                               \
      CORO_STACKFUL_RESUMED(c);                                                                   \
    }                                                                                             \
    coro_ap_->result;                                                                             \
  })

/* The await of a child task, which gives up the thread with `wait` until
   the child has ended: coro_stackful_yield here, coro_agen_stackful_wait
   in an async generator (below). */
#define CORO_STACKFUL_AWAIT_TASK_WITH_(c, wait, T, ...)      \
  __extension__({                                            \
    coro_t *coro_child_ = (__VA_ARGS__);                     \
    coro_await_task(c, coro_child_);                         \
    wait(c);                                                 \
    CORO_STACKFUL_RESUMED(c);                                \
    T coro_value_ = *(T *)coro_as_task(coro_child_)->result; \
    coro_free(coro_child_);                                  \
    coro_value_;                                             \
  })

#define CORO_STACKFUL_AWAIT_VOID_TASK_WITH_(c, wait, ...) \
  __extension__({                                         \
    coro_t *coro_child_ = (__VA_ARGS__);                  \
    coro_await_task(c, coro_child_);                      \
    wait(c);                                              \
    CORO_STACKFUL_RESUMED(c);                             \
    coro_free(coro_child_);                               \
  })

#define CORO_STACKFUL_AWAIT_TASK(c, T, ...) \
  CORO_STACKFUL_AWAIT_TASK_WITH_(c, coro_stackful_yield, T, __VA_ARGS__)
#define CORO_STACKFUL_AWAIT_VOID_TASK(c, ...) \
  CORO_STACKFUL_AWAIT_VOID_TASK_WITH_(c, coro_stackful_yield, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

/* Async generators: the last piece, on top of all the above. */
#include "agen.h"

#endif /* CORO_GEN_H */
