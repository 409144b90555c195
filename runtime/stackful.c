/* stackful.c: instances whose body runs on a stack of its own: making them,
 * and running their bodies.
 *
 * The stackful backend leaves a coroutine's body an ordinary C function; what
 * it needs from the runtime is a stack for each instance and a way to switch
 * onto it and back. An instance is a struct coro header (so coro_next,
 * coro_done and coro_free work unchanged) followed by the bookkeeping of
 * struct stackful (coro_stack.h) and then the arguments the generated code
 * stores for the body:
 *
 *   coro_next(c)  -> c->resume = stackful_resume: switch from the consumer to the body
 *   body: CORO_STACKFUL_YIELD -> coro_stackful_suspend: switch back to the consumer
 *   entry function returns -> stackful_main marks the instance done, switches back for good
 *
 * On x86_64, once the first resume has mapped the stack, coro_next and the
 * yield switch inline instead (coro/switch_x86_64.h), with no call into this
 * file; the contexts they save and resume are the two in struct stackful.
 *
 * Here is the life of an instance: made (coro_stackful_new, or in storage its
 * caller gives), sized and set before its first resume, resumed, suspended
 * and unwound. Its memory is the other files': the stacks are taken lazily
 * at the first resume (coro_set_stack_size may still change the size before
 * it), as slots of shared mappings (stack_slabs.c), and given back when the
 * instance is freed, or kept by its thread for the next: a new instance
 * takes a kept stack at its creation, and the instance freed with it is kept
 * whole, so that the next instance is made in its memory (stack_cache.c,
 * which also frees an instance: coro_stackful_release). A stack the kernel
 * refuses makes that resume answer false (coro_error), not abort. Below
 * each stack lies a guard page: an overflow faults there, and a SIGSEGV
 * handler on an alternate signal stack names the instance and its stack
 * size instead of letting the program die silently (stack_guard.c). An
 * instance may instead run on its thread's shared stack, its frames copied
 * out while another runs there (stack_shared.c).
 *
 * Tools: under AddressSanitizer and ThreadSanitizer every switch is
 * announced with their fiber annotations (here), and under valgrind every
 * stack is registered (stack_cache.c), so that all three follow the
 * switches without false reports.
 */

#include "coro_stack.h"
#include "coro_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STACKFUL_TSAN
/* TSan's fiber and the stack are switched apart, and an instrumented
   function entered before the first and left after it would be entered on
   one fiber's shadow stack and left on another's (Tools, below): what runs
   between the two is inlined into the function that switches, whatever the
   optimisation. */
#define SWITCH_INLINE __attribute__((always_inline)) inline
#else
#define SWITCH_INLINE inline
#endif

/* bytes of stack for an instance, unless told otherwise */
#define STACKFUL_DEFAULT_STACK (256 * 1024)

/* coro_default_stack_size; 0: STACKFUL_DEFAULT_STACK */
static _Thread_local size_t tls_default_stack __attribute__((tls_model("initial-exec")));

/* Whether new instances keep their own FP environment: the build option
   COROC_SAVE_FPENV (runtime/CMakeLists.txt); coro_set_fpenv per instance. */
#ifdef CORO_SAVE_FPENV
#define STACKFUL_DEFAULT_FPENV true
#else
#define STACKFUL_DEFAULT_FPENV false
#endif

/* Which switch an instance that keeps its own FP environment takes on
   x86_64 (runtime/asm/switch_x86_64.S): the one that loads the other
   side's control state only when it differs from ours (true), or the one
   that loads it always (false). Both are right; which is faster depends on
   how the processor forwards stmxcsr's store to the load that reads it
   back: at once on Intel's cores, after the store reaches the cache on
   AMD's (Zen), where loading always is cheaper. By vendor, then, unless
   CORO_FPENV_SWITCH says compare or load (to measure both on one machine).
   Read once per process. Elsewhere there is one switch. */
#if defined(__x86_64__) && !defined(CORO_SWITCH_UCONTEXT)
#include <cpuid.h>
#define CORO_CTX_HAVE_FPENV_LOAD 1
static bool fpenv_compare_decide(void) {
  const char *e = getenv("CORO_FPENV_SWITCH");
  if (e && strcmp(e, "compare") == 0)
    return true;
  if (e && strcmp(e, "load") == 0)
    return false;
  unsigned max, b, c, d;
  if (!__get_cpuid(0, &max, &b, &c, &d))
    return true;
  char vendor[13];
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &c, 4);
  vendor[12] = 0;
  return strcmp(vendor, "AuthenticAMD") != 0 && strcmp(vendor, "HygonGenuine") != 0;
}

static bool fpenv_compare(void) {
  static int decided; /* 0: not yet; 1 compare; -1 load always */
  int v = __atomic_load_n(&decided, __ATOMIC_RELAXED);
  if (__builtin_expect(v == 0, 0)) {
    v = fpenv_compare_decide() ? 1 : -1;
    __atomic_store_n(&decided, v, __ATOMIC_RELAXED);
  }
  return v > 0;
}
#endif

static bool stackful_resume(coro_t *c, void *out);
static void stackful_detach(struct stackful *s);
static inline bool shared_by_default(void);
#ifndef CORO_SWITCH_UCONTEXT
/* The thread's default, coro_default_shared_stack: 0 not said (the
   process's, from the environment, holds), 1 shared, -1 not. */
static _Thread_local signed char tls_default_shared __attribute__((tls_model("initial-exec")));
/* The process's default: CORO_SHARED_STACK in the environment, read once
   (shared_by_environment): 0 not read yet; 1 shared; -1 not. */
static int shared_by_env;
#endif
#ifdef STACKFUL_KEEP
/* Not shared by default, as known already: no call (CORO_SHARED_STACK not
   read yet says no, and shared_by_default reads it). */
static inline bool unshared_known(void) {
#ifndef CORO_SWITCH_UCONTEXT
  return tls_default_shared < 0 ||
         (tls_default_shared == 0 && __atomic_load_n(&shared_by_env, __ATOMIC_RELAXED) < 0);
#else
  return true; /* (no shared stacks in this build) */
#endif
}
#endif

/* coro/gen.h's inline switch keeps the body's context right after the header
   and the resumer's right after that. It is offered only where it is libcoro's
   own switch: the x86_64 assembly, without ASan or TSan, whose fiber
   annotations must surround every switch. */
#if defined(__x86_64__) && defined(__LP64__) && !defined(CORO_SWITCH_UCONTEXT) && \
    !defined(STACKFUL_ASAN) && !defined(STACKFUL_TSAN)
#define STACKFUL_INLINE_SWITCH 1
_Static_assert(offsetof(struct stackful, ctx) == sizeof(struct coro_stackful_head),
               "coro/gen.h: the body's context right after the header");
_Static_assert(offsetof(struct stackful, caller) ==
                   offsetof(struct stackful, ctx) + sizeof(struct coro_ctx),
               "coro/gen.h: the resumer's context right after the body's");
#endif

/* bytes rounded up to whole pages; 0 for 0 and for sizes that overflow. */
static size_t stack_round(size_t bytes) {
  size_t page = page_size();
  if (bytes == 0 || bytes > SIZE_MAX - page)
    return 0;
  return (bytes + page - 1) / page * page;
}

static struct stackful *as_stackful(coro_t *c) {
  return (c && c->resume == stackful_resume) ? (struct stackful *)c : NULL;
}

/* {==================================================================
 * Tools: AddressSanitizer and ThreadSanitizer fibers, valgrind stacks
 * =================================================================== */

/* ASan keeps one idea of "the current stack" per thread; these tell it about
   each switch so that it neither reports the jump as an overflow nor keeps
   stale poison. Into the body: announce the body's stack; back on the
   resumer's stack after the body suspended or ended: done. (Used only under
   ASan: elsewhere the resume path ends in the switch itself.) */
#ifdef STACKFUL_ASAN
static void tool_switch_in(struct stackful *s, void **fake_save) {
  __sanitizer_start_switch_fiber(fake_save, s->map + s->map_size - s->stack_size, s->stack_size);
}

static void tool_switched_back(void *fake_save) {
  __sanitizer_finish_switch_fiber(fake_save, NULL, NULL);
}
#endif

/* ThreadSanitizer keeps, per thread, a vector clock and a shadow call stack
   (the functions entered and not yet left, for the stacks of its reports).
   A body on a stack of its own enters functions that it leaves only after
   switches, or never when its instance is freed unfinished: told nothing,
   TSan gives the body's accesses to its resumer, with stacks of calls that
   never happened, and after some tens of thousands of instances freed
   unfinished the shadow stack overflows (gcc's runtime faults, clang's
   hangs in its fault handler). So each body runs as a TSan fiber, with a
   shadow stack and a clock of its own: made at its first resume, on the
   thread that runs it; made TSan's current fiber right before every switch
   into the body, and the resumer's (__tsan_get_current_fiber at the resume:
   the thread's own, or the fiber of a body that resumes this one) right
   before every switch out; destroyed once nothing can run on it again.

   Every switch carries happens-before, both ways. A switch passes the
   thread from the resumer to the body and back, as a call and its return
   do: what one side did before it happens before what the other does after
   it, and the runtime relies on that (the arguments the body unpacks, the
   value a yield writes through `out`, the status the resumer reads, a
   shared stack's frames that the resumer copies). Without the edges TSan
   would take the fibers of one thread for threads that run at once, and
   report all of that. The edges order nothing between threads: an instance
   is resumed on one thread (docs/runtime.md, "Threads"); were one moved, the
   thread resuming it would have to synchronise with the one before, as for
   any data it hands over, and the fiber carries the body's own past across.
   The edge goes through a byte of the instance (tsan_sync), released and
   acquired around a switch told no_sync. The default, flags 0, would
   synchronise through the address of TSan's record of the fiber, which TSan
   frees with the fiber and may give to a later fiber, of any thread, with
   the clock released there still attached: a new coroutine on thread B
   could inherit thread A's past, and a race between them go unreported.
   The instance's memory is the runtime's, reused on its own thread, or
   handed to another through a lock or free(), which order (or forget)
   everything anyway. */
#ifdef STACKFUL_TSAN
/* TSan's current fiber becomes `to`, the edge passing through s. */
static SWITCH_INLINE void tsan_switch(struct stackful *s, void *to) {
  __tsan_release(&s->tsan_sync);
  __tsan_switch_to_fiber(to, __tsan_switch_to_fiber_no_sync);
  __tsan_acquire(&s->tsan_sync);
}

/* A fiber, named for the reports: "thread T5 'coroutine'". (Not after the
   instance: the fiber may run the next body on the stack too.) */
static void *tsan_fiber_new(void) {
  void *fiber = __tsan_create_fiber(0);
  __tsan_set_fiber_name(fiber, "coroutine");
  return fiber;
}

/* Right before the switch into the body. */
static SWITCH_INLINE void tsan_switch_in(struct stackful *s) {
  s->tsan_caller = __tsan_get_current_fiber();
  if (!s->tsan_fiber)
    s->tsan_fiber = tsan_fiber_new();
  tsan_switch(s, s->tsan_fiber);
}

/* Back in the resumer: a body that ended has left its fiber for good,
   unless its context is parked (STACKFUL_PARK): the next body that takes
   the stack goes on in that context (stackful_main's loop), and on that
   fiber, whose shadow stack holds just stackful_main then. A fiber made
   costs gcc's TSan runtime nearly a millisecond (it maps and clears its
   record): bodies that end make about one per stack. The fiber's clock
   carries the bodies it ran before, all of this thread, which happen
   before the next anyway. A body that did not end leaves calls on its
   fiber's shadow stack for good: that fiber goes with its context
   (coro_stack_unmap, stackful_ready, coro_stackful_release; tsan_fiber_end
   is in coro_stack.h). */
static void tsan_switched_back(struct stackful *s) {
#ifdef STACKFUL_PARK
  if (!s->shared)
    return;
#endif
  if (as_coro(s)->status == CORO_DONE)
    tsan_fiber_end(s);
}
#else
/* (Unused under ASan, whose resume announces its switch its own way.) */
static inline __attribute__((unused)) void tsan_switch_in(struct stackful *s) {
  (void)s;
}

static inline __attribute__((unused)) void tsan_switched_back(struct stackful *s) {
  (void)s;
}

#endif

/* Out of the body to its resumer. `final`: the body ended, so ASan may drop
   its fake stack (NULL save slot). */
static SWITCH_INLINE void tool_switch_out(struct stackful *s, int final) {
#if defined(STACKFUL_ASAN)
  s->asan_low = __builtin_frame_address(0);
  __sanitizer_start_switch_fiber(final ? NULL : &s->asan_fake_stack, s->asan_caller_bottom,
                                 s->asan_caller_size);
#elif defined(STACKFUL_TSAN)
  (void) final;
  tsan_switch(s, s->tsan_caller);
#else
  (void)s, (void) final;
#endif
}

/* In the body again (`first`: for the first time, with no fake stack yet):
   learn the resumer's stack, which may differ each time. */
static void tool_switched_in(struct stackful *s, int first) {
#ifdef STACKFUL_ASAN
  __sanitizer_finish_switch_fiber(first ? NULL : s->asan_fake_stack, &s->asan_caller_bottom,
                                  &s->asan_caller_size);
#else
  (void)s, (void)first;
#endif
}

/* }================================================================== */

/* {==================================================================
 * Running the body
 * =================================================================== */

/* The common path of a round trip is not here. On x86_64, coro_next and
 * yield switch stacks inline (coro/gen.h), once the first resume has mapped the
 * stack and marked the instance (CORO_INLINE_SWITCH_MARK in resume_point,
 * which this file sets nowhere else); what comes through here is the first resume,
 * tasks resumed by the scheduler, other processors, the ucontext build, and
 * ASan and TSan builds, whose fiber annotations must surround each switch. The path
 * keeps no thread-local bookkeeping either way: the overflow report finds
 * the instance in the list of mapped stacks instead.
 */

/* The start routine of every stackful context (the trampoline calls it on the
   fresh stack): run the body, mark the instance done, and leave for good. Its
   stack stays mapped until coro_free: it cannot unmap the stack it runs on. */
/* The switch of an instance: both sides of every switch into and out of it
   keep the FP environment the same way (runtime/ctx.h). */
static SWITCH_INLINE void stackful_switch(struct stackful *s, struct coro_ctx *from,
                                          struct coro_ctx *to) {
  if (!s->own_fpenv)
    coro_ctx_switch(from, to);
#ifdef CORO_CTX_HAVE_FPENV_LOAD
  else if (!fpenv_compare())
    coro_ctx_switch_fpenv_load(from, to);
#endif
  else
    coro_ctx_switch_fpenv(from, to);
}

#ifdef CORO_INLINE_SWITCH
/* coro_next's switch into an instance marked CORO_INLINE_SWITCH_FPENV or
   _FPENV_LOAD (coro/gen.h, coro_next_gated, which has stored out). */
bool coro_next_fpenv(coro_t *gen) {
  struct coro_ctx *body = (struct coro_ctx *)((struct coro_stackful_head *)gen + 1);
  if (gen->resume_point == CORO_INLINE_SWITCH_FPENV) {
    coro_set_state(gen, CORO_INLINE_SWITCH_FPENV, CORO_RUNNING);
    CORO_SWITCH_INLINE_NEXT(body + 1, body, CORO_SWITCH_FPENV_ASM, gen, CORO_STACKFUL_RESUMER_AT);
  } else {
    coro_set_state(gen, CORO_INLINE_SWITCH_FPENV_LOAD, CORO_RUNNING);
    CORO_SWITCH_INLINE_NEXT(body + 1, body, CORO_SWITCH_FPENV_LOAD_ASM, gen,
                            CORO_STACKFUL_RESUMER_AT);
  }
  return gen->status != CORO_DONE; /* suspended again, or finished */
}
#else
/* This libcoro marks no instance for the inline switch (ucontext): a
   program compiled for it calls this only with a header of another build. */
bool coro_next_fpenv(coro_t *gen) {
  coro_fatal("coro_next",
             "instance %p is marked for an inline switch that this libcoro (built "
             "with CORO_SWITCH_UCONTEXT) does not make",
             (void *)gen);
}
#endif

/* The top STACK_MAILBOX bytes of every stack are not the body's: the word
   there names the instance a parked stackful_main is to run next, when it
   is another than the one it ran (NULL: that one, kept whole). Used only
   where the switch is a call (STACKFUL_MAILBOX: ThreadSanitizer's build):
   after the inline switch, rsi names it. */
#define STACK_MAILBOX 16
#if defined(STACKFUL_PARK) && !(defined(STACKFUL_INLINE_SWITCH) && defined(CORO_INLINE_SWITCH))
#define STACKFUL_MAILBOX 1
#endif

#ifdef STACKFUL_MAILBOX
static struct stackful **stack_mailbox(char *map, size_t map_size) {
  return (struct stackful **)(map + map_size) - 1;
}
#endif

/* After the body's end, it parks: resumed again, it is by the next instance
   that took the stack (stackful_attach, named in the stack's mailbox, or
   kept_reuse, the same memory), and it runs that one's body, with no new
   context: the first resume of an instance on a reused stack is a switch
   like any other. */
static void stackful_main(void *arg) {
  struct stackful *s = arg;
#ifdef STACKFUL_MAILBOX
  struct stackful **mailbox = stack_mailbox(s->map, s->map_size);
#endif
  for (;;) {
    tool_switched_in(s, 1);
    s->entry(as_coro(s));
    /* coro_next answers false: no more values (one word, as a yield stores
       it, so that coro_next's load of it is forwarded from this store; the
       empty asm hides that the resume point is the one there, else the
       compiler stores the status alone, two bytes that a load of four
       cannot be forwarded from: it waits for the store to reach the cache) */
    unsigned resume_point = as_coro(s)->resume_point;
    __asm__("" : "+r"(resume_point));
    coro_set_state(as_coro(s), resume_point, CORO_DONE);
    tool_switch_out(s, 1);
#if defined(STACKFUL_INLINE_SWITCH) && defined(CORO_INLINE_SWITCH)
    /* as a yield switches (coro/gen.h): what lives across it is saved by the
       compiler, not the five registers coro_ctx_switch keeps for a caller */
    struct coro_ctx *arrived;
    if (!s->own_fpenv)
      CORO_SWITCH_INLINE_ARRIVE(&s->ctx, &s->caller, CORO_SWITCH_ASM, arrived);
    else if (!fpenv_compare())
      CORO_SWITCH_INLINE_ARRIVE(&s->ctx, &s->caller, CORO_SWITCH_FPENV_LOAD_ASM, arrived);
    else
      CORO_SWITCH_INLINE_ARRIVE(&s->ctx, &s->caller, CORO_SWITCH_FPENV_ASM, arrived);
#ifdef STACKFUL_PARK
    /* resumed by the instance that has the stack now, whose context the
       switch that resumed it left in rsi (coro/switch_x86_64.h): the next
       one that took the stack (s, the one that ended, may be gone; its
       mailbox names it too), or s itself, kept whole and made new
       (kept_reuse) */
    s = (struct stackful *)((char *)arrived - offsetof(struct stackful, ctx));
#endif
#else
    stackful_switch(s, &s->ctx, &s->caller);
#ifdef STACKFUL_MAILBOX
    /* another instance took the stack (s, the one that ended, may be
       gone), or none: then s itself, kept whole with its stack and made
       new (kept_reuse) */
    struct stackful *next = *mailbox;
    if (next) {
      *mailbox = NULL;
      s = next;
    }
#endif
#endif
#ifdef STACKFUL_PARK
    /* (nothing resumes an instance but coro_next and the scheduler, both
       marking it running) */
    if (as_coro(s)->status == CORO_RUNNING)
      continue;
#endif
    coro_fatal("coro_next", "instance %p was resumed after its body returned", (void *)s);
  }
}

/* The body's context on its stack, just mapped or taken from the cache:
   the next resume starts the body. */
static void stackful_ready(struct stackful *s) {
  char *stack = s->map + s->map_size - s->stack_size;
#ifdef STACKFUL_MAILBOX
  *stack_mailbox(s->map, s->map_size) = NULL;
#endif
  /* (a kept instance's, from a body that did not end: a new context needs a new fiber) */
  tsan_fiber_end(s);
  if (s->own_fpenv)
    coro_ctx_init(&s->ctx, stack, s->stack_size - STACK_MAILBOX, stackful_main, s);
  else
    coro_ctx_init_thread_fp(&s->ctx, stack, s->stack_size - STACK_MAILBOX, stackful_main, s);
#ifdef STACKFUL_INLINE_SWITCH
  /* its stack is there: coro_next and yield may switch inline, the first
     resume too (into the trampoline); resume point and status in one store,
     as coro_next reads them */
  coro_set_state(as_coro(s),
                 !s->own_fpenv     ? CORO_INLINE_SWITCH_MARK
                 : fpenv_compare() ? CORO_INLINE_SWITCH_FPENV
                                   : CORO_INLINE_SWITCH_FPENV_LOAD,
                 (enum coro_status)as_coro(s)->status);
#endif
}

/* A new instance takes a stack of its size from its thread's cache of
   stacks (stack_cache.c) at once, when there is one, and is made ready to
   start: then its first resume is a switch like any other (inline on
   x86_64), and nothing of its life makes a system call or touches a page
   that was not touched before. Only instances that keep the thread's FP
   environment: one that keeps its own takes the environment of its first
   resume, so it gets its context then. A setting that changes which stack
   it needs before its first resume gives the stack back (stackful_detach). */
static void stackful_attach(struct stackful *s) {
  int got;
  if (s->own_fpenv || s->shared || coro_stack_cached == 0 ||
      !(got = coro_stack_from_cache(s, s->stack_size + page_size(), &s->ctx)))
    return;
  guard_install(); /* (a stack in this thread's cache may come from an instance of another) */
  mapped_add(s);
  if (got == 1) {
    stackful_ready(s);
    return;
  }
  /* stackful_main is parked on it (its context now ours): it runs this body next */
#ifdef STACKFUL_MAILBOX
  *stack_mailbox(s->map, s->map_size) = s;
#endif
#ifdef STACKFUL_INLINE_SWITCH
  /* one store of both halves of the gate coro_next reads as one word */
  coro_set_state(as_coro(s), CORO_INLINE_SWITCH_MARK, CORO_CREATED);
#endif
}

/* Back to the cache with the stack an instance not started yet took at its
   creation, the instance as it was made (lazy start). */
static void stackful_detach(struct stackful *s) {
  if (!s->map || s->shared)
    return;
  stack_hold_end();
  coro_stack_unmap(s);
  as_coro(s)->resume_point = 0;
}

/* The first resume maps the stack and makes the body's context; false when
   there is no stack to be had. */
static bool stackful_start(struct stackful *s) {
  guard_install();
  if (s->shared && s->shared_default && on_shared_stack()) {
    /* nested in a shared-stack instance: a stack of its own (stack_shared.c) */
    s->shared = false;
    as_coro(s)->kind &= (unsigned char)~CORO_SHARED_STACK;
  }
  if (s->shared) {
    if (!coro_stack_shared_start(s))
      return false;
    coro_ctx_init(&s->ctx, s->map + s->map_size - s->stack_size, s->stack_size, stackful_main, s);
    return true; /* never marked: every switch goes through stackful_resume, which copies */
  }
  if (!coro_stack_map(s))
    return false;
  stackful_ready(s);
  return true;
}

/* The uncommon cases of a resume, out of the way of the common one: a
   refusal, and the first resume, which maps the stack. Without a stack the
   instance stays as it was made (a later resume tries again) and the answer
   is false, with errno and coro_error saying why; the first time in the
   process, the reason goes to stderr too, for programs that do not ask. */
static __attribute__((noinline, cold)) bool stackful_resume_slow(struct stackful *s, void *out) {
  static int told; /* the message went to stderr once */
  if (as_coro(s)->status == CORO_DONE)
    coro_fatal("stackful_resume", "instance %p is done: it cannot be resumed", (void *)s);
  if (!stackful_start(s)) {
    as_coro(s)->status = CORO_CREATED; /* (the scheduler marked it running) */
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) {
      char buf[640];
      fprintf(stderr, "coro: coro_next: %s\n", coro_stack_error_text(s, buf, sizeof buf));
    }
    errno = s->stack_errno;
    return false;
  }
  return stackful_resume(as_coro(s), out);
}

/* c->resume: coro_next or the scheduler has checked that the instance may
   be resumed (the scheduler has also marked it running). The switch returns
   when the body suspends or ends, whichever switch it uses to come back. */
static bool stackful_resume(coro_t *c, void *out) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(as_coro(s)->status == CORO_DONE || !s->map, 0))
    return stackful_resume_slow(s, out);
#ifdef STACKFUL_SHARED_CHECK
  if (s->shared && !on_shared_stack()) /* (from there: the nesting is refused below) */
    coro_stack_shared_check();
#endif
  if (s->shared && coro_stack_shared_owner != s)
    shared_enter(s);
  c->status = CORO_RUNNING;
  s->head.out = out; /* the body, on its own stack, writes its yields there */
#ifdef STACKFUL_ASAN
  void *fake_save;
  tool_switch_in(s, &fake_save);
  stackful_switch(s, &s->caller, &s->ctx);
  tool_switched_back(fake_save);
#else
  tsan_switch_in(s);
  stackful_switch(s, &s->caller, &s->ctx);
  tsan_switched_back(s);
#endif
  if (s->shared && as_coro(s)->status == CORO_DONE)
    coro_stack_shared_owner = NULL; /* nothing of it left to keep */
#ifdef STACKFUL_SHARED_CHECK
  if (s->shared)
    coro_stack_shared_poison(as_coro(s)->status == CORO_DONE ? s->map + s->map_size
                                                             : ctx_sp(&s->ctx));
#endif
  return as_coro(s)->status != CORO_DONE; /* suspended again (a value, or a turn), or finished */
}

void coro_stackful_suspend(coro_t *c) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(as_coro(s)->status != CORO_RUNNING || !s->map, 0))
    coro_fatal("coro_stackful_suspend", "instance %p is not a running coroutine", (void *)c);
  as_coro(s)->status = CORO_SUSPENDED; /* coro_next answers true: a value (or a turn) */
  tool_switch_out(s, 0);
  stackful_switch(s, &s->ctx, &s->caller);
  tool_switched_in(s, 0);
}

/* coro_free of a suspended instance whose body has cleanups: resumed once
   more, told to unwind (CORO_UNWIND_OUT), its suspension returns from the
   body, which runs the cleanups of every scope it leaves, and it ends.
   The mark's address is the message: no value a body is sent can be it. */
char coro_unwind_mark;

void coro_stackful_unwind(coro_t *c) {
  stackful_resume(c, CORO_UNWIND_OUT);
  if (c->status != CORO_DONE)
    coro_fatal("coro_free", "instance %p suspended again while it was unwound to run its cleanups",
               (void *)c);
}

/* }================================================================== */

/* {==================================================================
 * Creating and sizing
 *
 * An instance is made in memory of the registry's (coro_frame_new), in
 * storage its caller gives (coro_stackful_init), or in the memory of an
 * instance of its thread kept whole with its stack (stack_cache.c, "Kept
 * instances"). It is freed by coro_free, through coro_stackful_release
 * (stack_cache.c).
 * =================================================================== */

#ifdef STACKFUL_KEEP
_Static_assert(sizeof(struct stackful) % 8 == 0,
               "kept_reuse: the arguments start past a whole word");

/* A kept instance made new: what coro_frame_new and stackful_setup would
   have left in it, but for what it has already (its stack, its place on
   the list of mapped stacks, its context) and what no one reads before it
   is set (the resumer's context). First its header, entry and arguments. */
static inline void kept_fill(struct stackful *s, void (*entry)(coro_t *c), size_t offset,
                             size_t size, enum coro_kind kind) {
  s->head = (struct coro_stackful_head){.args_offset = offset};
  coro_header_set(as_coro(s), stackful_resume, kind | CORO_STACKFUL, CORO_HOME_SLAB);
  s->entry = entry;
  /* The arguments read as zeros: whole words, from the one they start in
     (past the bookkeeping, whose size is a whole number of words) to the
     end of the last (inside the slot, a whole number of words too); a few
     stores, as a rule, not a call. */
  char *from = (char *)s + offset / 8 * 8, *to = (char *)s + (size + 7) / 8 * 8;
  static const uint64_t zero;
  switch ((size_t)(to - from) / 8) {
  case 4:
    memcpy(from + 24, &zero, 8);
    /* fall through */
  case 3:
    memcpy(from + 16, &zero, 8);
    /* fall through */
  case 2:
    memcpy(from + 8, &zero, 8);
    /* fall through */
  case 1:
    memcpy(from, &zero, 8);
    /* fall through */
  case 0:
    break;
  default:
    memset(from, 0, (size_t)(to - from));
  }
}

#ifdef STACKFUL_PARK
/* Then its next resume: by stackful_main parked on its stack, when its
   last body ended (it runs this body next: the same memory, so its mailbox
   stays empty), else by a new context. */
static inline void kept_parked_take(struct stackful *s) {
  (void)s;
#ifdef STACKFUL_INLINE_SWITCH
  coro_set_state(as_coro(s), CORO_INLINE_SWITCH_MARK, CORO_CREATED);
#endif
}
#endif

static __attribute__((noinline)) coro_t *kept_reuse(struct stackful *s, void (*entry)(coro_t *c),
                                                    size_t offset, size_t size,
                                                    enum coro_kind kind) {
  bool parked = as_coro(s)->status == CORO_DONE; /* (its status at its end) */
  kept_fill(s, entry, offset, size, kind);
  guard_install(); /* (the thread that first resumed it may have been another) */
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_create(as_coro(s));
#ifdef STACKFUL_PARK
  if (parked) {
    kept_parked_take(s);
    return as_coro(s);
  }
#endif
  (void)parked;
  stackful_ready(s);
  return as_coro(s);
}
#endif

/* Where the arguments start: after the bookkeeping, aligned for them. */
static size_t args_offset(size_t args_align) {
  /* (a power of two: no division) */
  return (sizeof(struct stackful) + args_align - 1) & ~(args_align - 1);
}

/* A trace names a stackful instance by its entry (trace.c). */
static const void *entry_of(coro_t *c) {
  return (const void *)((struct stackful *)c)->entry;
}

/* The thread's first stackful instance. */
static __attribute__((noinline, cold)) void stackful_first(void) {
  coro_stack_thread = __atomic_add_fetch(&coro_stack_threads, 1, __ATOMIC_RELAXED);
  coro_trace_env(); /* (CORO_TRACE, at the runtime's first use: in storage, not from the slabs) */
  __atomic_store_n(&coro_trace_entry_of, entry_of, __ATOMIC_RELAXED);
}

static void stackful_setup(coro_t *c, void (*entry)(coro_t *c), size_t offset, size_t bytes,
                           size_t align) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(!coro_stack_thread, 0))
    stackful_first();
  s->maker = coro_stack_thread;
  s->bytes = bytes;
  s->align = align;
  s->entry = entry;
  s->stack_size = tls_default_stack ? tls_default_stack : STACKFUL_DEFAULT_STACK;
  s->head.args_offset = offset;
  s->own_fpenv = STACKFUL_DEFAULT_FPENV;
  s->shared = s->shared_default = shared_by_default();
  if (s->shared)
    /* its awaits keep the awaitable in its slot, as coro_set_shared_stack's */
    c->kind |= CORO_SHARED_STACK;
  stackful_attach(s); /* a kept stack, if this thread has one of its size */
  if (__builtin_expect(coro_trace_active, 0))
    coro_trace_create(c);
}

/* A new instance in new memory (no kept one fits). */
static __attribute__((noinline)) coro_t *stackful_new_made(void (*entry)(coro_t *c), size_t offset,
                                                           size_t size, size_t align,
                                                           enum coro_kind kind) {
  coro_t *c = coro_frame_new(size, align, stackful_resume, kind | CORO_STACKFUL);
  stackful_setup(c, entry, offset, size, align);
  return c;
}

/* coro_stackful_new but for its common case: a kept instance that fits
   (stack_cache.c, "Kept instances"), or the instance and its arguments in
   one zeroed allocation (coro_frame_new), its stack a kept one taken now or
   mapped at its first resume. */
static __attribute__((noinline)) coro_t *stackful_new_slow(void (*entry)(coro_t *c),
                                                           size_t args_size, size_t args_align,
                                                           enum coro_kind kind) {
  if (args_align == 0)
    args_align = 1;
  if (args_align & (args_align - 1))
    coro_fatal("coro_stackful_new", "the arguments' alignment %zu is not a power of two",
               args_align);
  size_t align = args_align > _Alignof(struct stackful) ? args_align : _Alignof(struct stackful);
  size_t offset = args_offset(args_align);
#ifdef STACKFUL_KEEP
  size_t stack = tls_default_stack ? tls_default_stack : STACKFUL_DEFAULT_STACK;
  for (int i = shared_by_default() ? -1 : coro_stack_kept_n - 1; i >= 0; i--) {
    struct stackful *k = coro_stack_kept[i];
    if (k->stack_size == stack && offset + args_size <= k->bytes && align <= k->align) {
      coro_stack_kept[i] = coro_stack_kept[--coro_stack_kept_n];
      return kept_reuse(k, entry, offset, offset + args_size, kind);
    }
  }
#endif
  return stackful_new_made(entry, offset, offset + args_size, align, kind);
}

/* The common case, with no call and few registers: the instance this
   thread freed last (the warmest) fits, arguments aligned (a power of two
   no larger than the bookkeeping's alignment, so that they start right
   after it), the default stack, not shared. Anything else is
   stackful_new_slow's. */
coro_t *coro_stackful_new(void (*entry)(coro_t *c), size_t args_size, size_t args_align,
                          enum coro_kind kind) {
#ifdef STACKFUL_KEEP
  int n = coro_stack_kept_n;
  if (__builtin_expect(n > 0, 1) && args_align - 1 < _Alignof(struct stackful) &&
      !(args_align & (args_align - 1))) {
    struct stackful *k = coro_stack_kept[n - 1];
    size_t stack = tls_default_stack ? tls_default_stack : STACKFUL_DEFAULT_STACK;
    size_t offset = sizeof(struct stackful); /* args_offset(args_align), for such an alignment */
    if (k->stack_size == stack && offset + args_size <= k->bytes && unshared_known()) {
      coro_stack_kept_n = n - 1;
#ifdef STACKFUL_PARK
      /* its body ended, no trace, the guard known, arguments of a few
         words: kept_reuse, inline, with no call (nor register saved) */
      if (__builtin_expect(as_coro(k)->status == CORO_DONE && coro_stack_guard_checked &&
                               !coro_trace_active && args_size <= 32,
                           1)) {
        kept_fill(k, entry, offset, offset + args_size, kind);
        kept_parked_take(k);
        return as_coro(k);
      }
#endif
      return kept_reuse(k, entry, offset, offset + args_size, kind);
    }
  }
#endif
  return stackful_new_slow(entry, args_size, args_align, kind);
}

#if !defined(CORO_SWITCH_UCONTEXT)
_Static_assert(sizeof(struct stackful) <= CORO_STACKFUL_BYTES,
               "coro/gen.h: CORO_STACKFUL_BYTES holds the bookkeeping");
#endif

coro_t *coro_stackful_init(void *storage, size_t bytes, void (*entry)(coro_t *c), size_t args_size,
                           size_t args_align, enum coro_kind kind) {
  if (args_align == 0)
    args_align = 1;
  if (args_align & (args_align - 1))
    coro_fatal("coro_stackful_init", "the arguments' alignment %zu is not a power of two",
               args_align);
  size_t offset = args_offset(args_align);
  if (offset + args_size > bytes || (uintptr_t)storage % _Alignof(struct stackful) ||
      (uintptr_t)storage % args_align)
    coro_fatal("coro_stackful_init",
               "storage of %zu bytes at %p cannot hold a stackful instance "
               "of this libcoro (%zu bytes, aligned to %zu; CORO_STACKFUL_BYTES is %d)",
               bytes, storage, offset + args_size, args_align > 16 ? args_align : (size_t)16,
               CORO_STACKFUL_BYTES);
  coro_t *c = storage;
  coro_frame_init(c, offset + args_size, stackful_resume, kind | CORO_STACKFUL);
  stackful_setup(c, entry, offset, offset + args_size, args_align);
  return c;
}

void *(coro_stackful_args)(coro_t *c) {
  return (char *)c + ((struct stackful *)c)->head.args_offset;
}

bool coro_set_stack_size(coro_t *c, size_t bytes) {
  struct stackful *s = as_stackful(c);
  size_t size = stack_round(bytes);
  if (!s || as_coro(s)->status != CORO_CREATED || size == 0)
    return false;
  if (size != s->stack_size)
    stackful_detach(s); /* the stack it took at its creation is not of that size */
  s->stack_size = size;
  return true;
}

bool coro_set_fpenv(coro_t *c, bool own) {
  struct stackful *s = as_stackful(c);
  if (!s || as_coro(s)->status != CORO_CREATED)
    return false;
  if (own)
    stackful_detach(s); /* its context is made at its first resume, with that environment */
  s->own_fpenv = own;
  return true;
}

const char *coro_error(const coro_t *c) {
  static _Thread_local char buf[640];
  const struct stackful *s = as_stackful((coro_t *)c);
  if (!s || !s->stack_errno || s->map)
    return NULL;
  return coro_stack_error_text(s, buf, sizeof buf);
}

void coro_default_stack_size(size_t bytes) {
  tls_default_stack = stack_round(bytes);
}

/* On the thread's shared stack (stack_shared.c), said for one instance. */
bool coro_set_shared_stack(coro_t *c, bool shared) {
  struct stackful *s = as_stackful(c);
#ifdef CORO_SWITCH_UCONTEXT
  if (shared)
    return false; /* a ucontext's saved stack pointer is not ours to read */
#endif
  if (!s || as_coro(s)->status != CORO_CREATED)
    return false;
  if (shared)
    stackful_detach(s); /* the stack it took at its creation goes back to the cache */
  s->shared = shared;
  if (shared)
    c->kind |= CORO_SHARED_STACK; /* its awaits keep the awaitable in its slot (coro/gen.h) */
  else
    c->kind &= (unsigned char)~CORO_SHARED_STACK;
  s->shared_default = false; /* said for this one: kept even when nested */
  return true;
}

#ifndef CORO_SWITCH_UCONTEXT
void coro_default_shared_stack(bool shared) {
  tls_default_shared = shared ? 1 : -1;
}

/* CORO_SHARED_STACK read (unset, empty or 0: not shared; anything else:
   shared) and its answer kept in shared_by_env. */
static __attribute__((noinline, cold)) int shared_by_environment_read(void) {
  const char *e = getenv("CORO_SHARED_STACK");
  int v = e && *e && strcmp(e, "0") != 0 ? 1 : -1;
  __atomic_store_n(&shared_by_env, v, __ATOMIC_RELAXED);
  return v;
}

/* (inline: every coro_stackful_new asks) */
static inline bool shared_by_environment(void) {
  int v = __atomic_load_n(&shared_by_env, __ATOMIC_RELAXED);
  if (__builtin_expect(v == 0, 0))
    v = shared_by_environment_read();
  return v > 0;
}

static inline bool shared_by_default(void) {
  if (__builtin_expect(tls_default_shared != 0, 0))
    return tls_default_shared > 0;
  return shared_by_environment();
}
#else
void coro_default_shared_stack(bool shared) {
  (void)shared; /* no shared stacks in this build: every instance keeps a stack of its own */
}

static bool shared_by_default(void) {
  return false;
}
#endif

/* }================================================================== */
