/* stackful.c: instances whose body runs on a stack of its own.
 *
 * The stackful backend leaves a coroutine's body an ordinary C function; what
 * it needs from the runtime is a stack for each instance and a way to switch
 * onto it and back. An instance is a struct coro header (so coro_next,
 * coro_done and coro_free work unchanged) followed by the bookkeeping below
 * and then the arguments the generated code stores for the body:
 *
 *   coro_next(c)  -> c->resume = stackful_resume: switch from the consumer to the body
 *   body: CORO_STACKFUL_YIELD -> coro_stackful_suspend: switch back to the consumer
 *   entry function returns -> stackful_main marks the instance done, switches back for good
 *
 * On x86_64, once the first resume has mapped the stack, coro_next and the
 * yield switch inline instead (coro/gen.h), with no call into this file; the
 * contexts they save and resume are the two in struct stackful below.
 *
 * Stacks are taken lazily at the first resume (coro_set_stack_size may still
 * change the size before it), as slots of shared mappings (slabs), and given
 * back when the instance is freed, or kept by its thread for the next: a
 * new instance takes a kept stack at its creation, and the instance freed
 * with it is kept whole, so that the next instance is made in its memory
 * (Kept instances). A stack the kernel refuses makes that
 * resume answer false (coro_error), not abort. Below each stack lies a guard
 * page: an overflow faults there, and a SIGSEGV handler on an alternate
 * signal stack names the instance and its stack size instead of letting the
 * program die silently. An instance may instead run on its thread's shared
 * stack, its frames copied out while another runs there (Shared stacks).
 *
 * Tools: under AddressSanitizer and ThreadSanitizer every switch is
 * announced with their fiber annotations, and under valgrind every stack is
 * registered, so that all three follow the switches without false reports.
 */
#define _GNU_SOURCE   /* dladdr; MAP_STACK, MAP_NORESERVE */

#include "coro_internal.h"
#include "coro_thread.h"
#include "ctx.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define STACKFUL_HAVE_DLADDR 1
#endif
#if __has_include(<valgrind/valgrind.h>) && __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#define STACKFUL_VALGRIND 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define STACKFUL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACKFUL_ASAN 1
#endif
#endif
#ifdef STACKFUL_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define STACKFUL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STACKFUL_TSAN 1
#endif
#endif
#ifdef STACKFUL_TSAN
#include <sanitizer/tsan_interface.h>
/* TSan's fiber and the stack are switched apart, and an instrumented
   function entered before the first and left after it would be entered on
   one fiber's shadow stack and left on another's (Tools, below): what runs
   between the two is inlined into the function that switches, whatever the
   optimisation. */
#define SWITCH_INLINE __attribute__((always_inline)) inline
#else
#define SWITCH_INLINE inline
#endif

#define STACKFUL_DEFAULT_STACK (256 * 1024)   /* bytes of stack for an instance, unless told otherwise */
#define STACKFUL_ALTSTACK (64 * 1024)         /* the signal stack the overflow report runs on */

/* An instance of the stackful backend. coro_t * points at its start (as_coro). */
struct stackful {
  struct coro_stackful_head head; /* first: what coro_next, coro_done and coro_free see, and the
                                  task header (coro/gen.h) */
  struct coro_ctx ctx;         /* the body's registers while it is not running */
  struct coro_ctx caller;      /* the resumer's registers while the body runs (right after ctx: coro/gen.h) */
  void (*entry)(coro_t *c);    /* the generated entry function: unpacks the args, runs the body */
  struct stackful *next_mapped;/* the next instance of this thread with a stack mapped (the overflow report's list) */
  struct stackful *prev_mapped;/* and the one before */
  char *map;                   /* its slot: guard page, then the stack; NULL until the first resume */
  struct slab *slab;           /* the mapping the slot is in */
  size_t map_size;             /* the slot's bytes: guard page + stack */
  int stack_errno;             /* why the last try to get a stack failed (coro_error), or 0 */
  size_t stack_size;           /* usable bytes of stack, a whole number of pages */
  size_t args_offset;          /* where the arguments begin, from the start of the instance */
  bool own_fpenv;              /* keeps its own FP environment: every switch is coro_ctx_switch_fpenv */
  bool shared;                 /* runs on its thread's shared stack (coro_set_shared_stack) */
  bool shared_default;         /* shared by the thread's default, not by coro_set_shared_stack (Shared stacks) */
  bool on_stack;               /* shared: its frames are on the shared stack now (the gdb extension reads it) */
  char *copy;                  /* shared: its frames while another instance has the stack */
  size_t copy_size;            /* their bytes (the buffer is that big); 0: on the stack, or not started */
  void *await_slot;            /* shared: where the awaitable it waits on is kept (coro_stackful_await_slot) */
  size_t await_cap;            /* the slot's bytes */
  unsigned long maker;         /* the thread that made it (its tls_thread): only that one keeps it */
  size_t bytes;                /* the bytes of its memory (bookkeeping and arguments) and their alignment, */
  size_t align;                /*   for the next instance that takes it with its stack (Kept instances) */
#ifdef STACKFUL_VALGRIND
  unsigned vg_stack_id;        /* valgrind's id for the registered stack */
#endif
#ifdef STACKFUL_ASAN
  void *asan_fake_stack;       /* ASan's fake stack of the body while it is suspended */
  const void *asan_caller_bottom;  /* the resumer's stack, where the body switches back to */
  size_t asan_caller_size;
  char *asan_low;              /* about the body's stack pointer when it last switched out */
#endif
#ifdef STACKFUL_TSAN
  void *tsan_fiber;            /* ThreadSanitizer's fiber of the body: from its first resume to its end */
  void *tsan_caller;           /* the fiber that resumed it last, where it switches back to */
  char tsan_sync;              /* what every switch of it releases and acquires (Tools, below) */
#endif
};

/* The instances of this thread that have a stack mapped, for the overflow
   report: kept when a stack is mapped or unmapped, never on the resume path.
   initial-exec: safe to read in a signal handler. */
static _Thread_local struct stackful *tls_mapped __attribute__((tls_model("initial-exec")));
static _Thread_local size_t tls_default_stack;   /* coro_default_stack_size; 0: STACKFUL_DEFAULT_STACK */
static _Thread_local char tls_altstack_checked;  /* this thread has a signal stack (ours or its own) */
/* The shared-stack instance whose frames are on this thread's shared stack (Shared stacks, below). */
static _Thread_local struct stackful *tls_shared_owner __attribute__((tls_model("initial-exec")));

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
  static int decided;   /* 0: not yet; 1 compare; -1 load always */
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
static bool shared_by_default(void);

/* coro/gen.h's inline switch keeps the body's context right after the header
   and the resumer's right after that. It is offered only where it is libcoro's
   own switch: the x86_64 assembly, without ASan or TSan, whose fiber
   annotations must surround every switch. */
#if defined(__x86_64__) && defined(__LP64__) && !defined(CORO_SWITCH_UCONTEXT) && !defined(STACKFUL_ASAN) && \
    !defined(STACKFUL_TSAN)
#define STACKFUL_INLINE_SWITCH 1
_Static_assert(offsetof(struct stackful, ctx) == sizeof(struct coro_stackful_head),
               "coro/gen.h: the body's context right after the header");
_Static_assert(offsetof(struct stackful, caller) == offsetof(struct stackful, ctx) + sizeof(struct coro_ctx),
               "coro/gen.h: the resumer's context right after the body's");
#endif

/* A stack whose body ended keeps its start routine, stackful_main, parked
   there: switched out for good by the body's instance, it can be resumed by
   the next instance that takes the stack, and runs that one's body without
   a new context (Running the body, below). Not with the ucontext switch (a
   context is a whole ucontext_t there) nor under AddressSanitizer (each body
   starts on a new fiber of its own, announced from the trampoline). Under
   ThreadSanitizer the TSan fiber that ran the body stays with the parked
   context, for the next body (Tools, below). */
#if !defined(CORO_SWITCH_UCONTEXT) && !defined(STACKFUL_ASAN)
#define STACKFUL_PARK 1
#endif

/* The page size, asked of the system once (creating an instance needs it,
   and sysconf is a call into libc each time). */
static size_t page_size(void) {
  static size_t page;
  size_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);
  if (__builtin_expect(p == 0, 0)) {
    p = (size_t)sysconf(_SC_PAGESIZE);
    __atomic_store_n(&page, p, __ATOMIC_RELAXED);
  }
  return p;
}

/* bytes rounded up to whole pages; 0 for 0 and for sizes that overflow. */
static size_t stack_round(size_t bytes) {
  size_t page = page_size();
  if (bytes == 0 || bytes > SIZE_MAX - page)
    return 0;
  return (bytes + page - 1) / page * page;
}

static coro_t *as_coro(struct stackful *s) {
  return &s->head.task.base;
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

/* The body's fiber goes, once nothing will run on it: not the current one. */
static void tsan_fiber_end(struct stackful *s) {
  if (s->tsan_fiber) {
    __tsan_destroy_fiber(s->tsan_fiber);
    s->tsan_fiber = NULL;
  }
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
   (stack_unmap, stackful_ready, coro_stackful_release). */
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

static inline void tsan_fiber_end(struct stackful *s) {
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
  (void)final;
  tsan_switch(s, s->tsan_caller);
#else
  (void)s, (void)final;
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

static void tool_stack_mapped(struct stackful *s) {
#ifdef STACKFUL_VALGRIND
  s->vg_stack_id = VALGRIND_STACK_REGISTER(s->map + s->map_size - s->stack_size, s->map + s->map_size);
#else
  (void)s;
#endif
}

/* Before munmap: a body that never finished leaves ASan poison (the redzones
   of its frames) on the stack, and ASan keeps it after munmap, to be wrongly
   reported on whatever is mapped there next. Only frames that have not
   returned are poisoned, and they all lie above the stack pointer of the
   last switch out: unpoisoning just that part keeps ASan from touching the
   shadow of the whole stack (1/8 of its size) for every instance. */
static void tool_stack_unmapping(struct stackful *s) {
#ifdef STACKFUL_VALGRIND
  VALGRIND_STACK_DEREGISTER(s->vg_stack_id);
#endif
#ifdef STACKFUL_ASAN
  char *lo = s->map + s->map_size - s->stack_size, *top = s->map + s->map_size;
  char *from = s->asan_low - page_size();
  if (!s->asan_low || from < lo || from > top)
    from = lo;
  ASAN_UNPOISON_MEMORY_REGION(from, (size_t)(top - from));
#endif
  (void)s;
}

/* }================================================================== */

/* {==================================================================
 * Stack overflow: the guard page and its SIGSEGV handler
 * =================================================================== */

static struct sigaction guard_prev;       /* SIGSEGV's action before ours: other faults go there */
static size_t guard_page;                 /* the page size, read before any fault (sysconf is not signal-safe) */
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

/* Async-signal-safe formatting for the report: no stdio in a handler. */
static char *fmt_str(char *p, char *end, const char *s) {
  while (*s && p < end)
    *p++ = *s++;
  return p;
}

static char *fmt_num(char *p, char *end, uintmax_t v, unsigned base) {
  char digits[32];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (base == 16)
    p = fmt_str(p, end, "0x");
  while (n > 0 && p < end)
    *p++ = digits[--n];
  return p;
}

/* "entry function NAME at MODULE+0xOFF": the name only when dladdr finds a
   symbol that starts exactly at the entry (generated entries are static, so
   usually not), else its address; the module offset is for addr2line. */
static char *fmt_entry(char *p, char *end, void (*entry)(coro_t *)) {
  uintptr_t addr = (uintptr_t)entry;
  p = fmt_str(p, end, "entry function ");
#ifdef STACKFUL_HAVE_DLADDR
  Dl_info di;
  if (dladdr((void *)addr, &di) && di.dli_fname) {
    if (di.dli_sname && (uintptr_t)di.dli_saddr == addr)
      p = fmt_str(p, end, di.dli_sname);
    else
      p = fmt_num(p, end, addr, 16);
    p = fmt_str(p, end, " at ");
    p = fmt_str(p, end, di.dli_fname);
    p = fmt_str(p, end, "+");
    return fmt_num(p, end, addr - (uintptr_t)di.dli_fbase, 16);
  }
#endif
  return fmt_num(p, end, addr, 16);
}

/* One write(2) of the whole message, so that it arrives in one piece. */
static void guard_report(const struct stackful *s, const void *fault) {
  char buf[1024], *p = buf, *end = buf + sizeof buf - 1;
  p = fmt_str(p, end, "coro: stack overflow in coroutine instance ");
  p = fmt_num(p, end, (uintptr_t)s, 16);
  p = fmt_str(p, end, " (");
  p = fmt_entry(p, end, s->entry);
  p = fmt_str(p, end, "): its stack of ");
  p = fmt_num(p, end, s->stack_size, 10);
  p = fmt_str(p, end, " bytes is used up (fault at ");
  p = fmt_num(p, end, (uintptr_t)fault, 16);
  p = fmt_str(p, end, ", in the guard page below it). "
                      "Give it more with coro_set_stack_size() or coro_default_stack_size().\n");
  ssize_t unused = write(STDERR_FILENO, buf, (size_t)(p - buf));
  (void)unused;   /* nothing left to do if even stderr fails */
}

/* Hand a fault that is not ours (or after our report) to whoever had SIGSEGV
   before. The default action: reset it and return, so that the faulting
   instruction runs again and the kernel ends the program as usual (a signal
   sent by kill has no instruction to run again: raise it). */
static void guard_chain(int sig, siginfo_t *info, void *uctx) {
  if (guard_prev.sa_flags & SA_SIGINFO) {
    guard_prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
    guard_prev.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);   /* an ignored SIGSEGV from a fault would loop forever: the kernel forces the default too */
  if (info->si_code <= 0)
    raise(sig);
}

/* The handler runs on the alternate signal stack: the faulting stack has no
   room left. A fault in the guard page of an instance of this thread is an
   overflow; only those can be running out of stack here. */
static void guard_handler(int sig, siginfo_t *info, void *uctx) {
  const char *addr = info->si_addr;
  for (const struct stackful *s = tls_mapped; s; s = s->next_mapped) {
    if (s->map && addr >= s->map && addr < s->map + guard_page) {
      guard_report(s, addr);
      break;
    }
  }
  if (tls_shared_owner && tls_shared_owner->map && addr >= tls_shared_owner->map &&
      addr < tls_shared_owner->map + guard_page)
    guard_report(tls_shared_owner, addr);   /* the instance on the shared stack now overflowed it */
  guard_chain(sig, info, uctx);
}

static void guard_altstack_free(void *stack) {
  stack_t now;
  if (sigaltstack(NULL, &now) == 0 && now.ss_sp == stack) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
  }
  munmap(stack, STACKFUL_ALTSTACK);
}

/* Once per process: the handler (sigaction is process-wide). SA_ONSTACK: run
   on the thread's alternate stack; SA_NODEFER is not set, so a fault in the
   handler itself kills the program instead of recursing. */
static void guard_install_handler(void) {
  guard_page = page_size();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = guard_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &guard_prev) != 0)
    coro_fatal("coro_next", "cannot install the stack overflow handler");
}

/* Once per thread (sigaltstack is per-thread), lazily at its first stackful
   start: a signal stack, unless the thread already has one (ASan's, say). */
static void guard_install(void) {
  if (__builtin_expect(tls_altstack_checked, 1))
    return;   /* (set only after the pthread_once below) */
  pthread_once(&guard_once, guard_install_handler);
  tls_altstack_checked = 1;
  stack_t now;
  if (sigaltstack(NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE))
    return;
  void *mem = mmap(NULL, STACKFUL_ALTSTACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return;   /* no report on overflow, but everything else works */
  stack_t ss = {.ss_sp = mem, .ss_size = STACKFUL_ALTSTACK, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(mem, STACKFUL_ALTSTACK);
    return;
  }
  coro_thread_holds(CORO_THREAD_ALTSTACK, guard_altstack_free, mem);  /* freed when the thread exits */
}

/* }================================================================== */

/* {==================================================================
 * Stacks
 * =================================================================== */

/* Stacks are carved from slabs: one mapping holds up to SLAB_SLOTS slots of
 * one size, each a guard page and then the stack above it (stacks grow
 * down). The kernel limits how many mappings a process has
 * (vm.max_map_count, 65,530 by default), and a guard page made with
 * mprotect splits a mapping in two: a mapping and a guard of its own per
 * stack stopped a program near 32,000 instances. Linux 6.13 and later make
 * guard pages inside a mapping without splitting it (madvise
 * MADV_GUARD_INSTALL): a slab is then one mapping whatever its slots, and
 * 100,000 instances take some 1,600 of them. Older kernels get mprotect,
 * two mappings per stack as before.
 *
 * MAP_NORESERVE: untouched stack pages cost nothing, so thousands of
 * instances with 256 KiB each fit as long as they use little of it. A freed
 * slot gives its pages back (MADV_DONTNEED) and goes back to its slab; a
 * slab whose slots are all free is unmapped. A few freed slots per thread
 * are kept as they are instead, touched pages and all, for the next
 * instance: an `await child()` in a stackful task makes and ends a
 * coroutine each time, and a stack whose pages are still there costs
 * nothing to reuse.
 *
 * Slabs are shared by the threads (an instance may be freed by another
 * thread than the one that started it), under one lock, taken at an
 * instance's first resume and when it is freed, never on a switch. */

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102   /* <linux/mman.h> of Linux 6.13; older headers lack it */
#endif

#define SLAB_SLOTS 64                    /* slots per slab, at most */
#define SLAB_BYTES ((size_t)32 << 20)    /* ...and at most about this much address space, unless one slot is more */

struct slab {
  struct slab *next, *prev;   /* in the list of slabs with a free slot (slab_partial) */
  char *base;                 /* the mapping */
  size_t slot_size;           /* guard page + stack */
  unsigned slots;             /* how many the mapping holds */
  unsigned fresh;             /* slots [fresh, slots) were never handed out */
  unsigned nfree;             /* freed slots, their indexes in free_slots[0 .. nfree) */
  unsigned used;              /* slots handed out now */
  bool listed;                /* in slab_partial */
  unsigned short free_slots[SLAB_SLOTS];
};

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slab *slab_partial;       /* slabs with a slot to hand out */
static int slab_guard_madvise = -1;     /* MADV_GUARD_INSTALL works here: 1, 0, or -1 not known yet */

static void slab_list(struct slab *b) {
  b->prev = NULL;
  b->next = slab_partial;
  if (slab_partial)
    slab_partial->prev = b;
  slab_partial = b;
  b->listed = true;
}

static void slab_unlist(struct slab *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    slab_partial = b->next;
  if (b->next)
    b->next->prev = b->prev;
  b->listed = false;
}

/* Whether madvise(MADV_GUARD_INSTALL) makes guard pages here, tried once on
   a page of its own: a kernel before 6.13 refuses the advice (EINVAL), and
   an emulator such as qemu-user may take it and do nothing. The page is
   then read by the kernel (written to a pipe): a guard page makes that
   fail with EFAULT, where an ordinary page is read. */
static int guard_madvise_works(void) {
  size_t page = page_size();
  char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return 0;
  int works = 0, fds[2];
  if (madvise(p, page, MADV_GUARD_INSTALL) == 0 && pipe(fds) == 0) {
    works = write(fds[1], p, 1) < 0 && errno == EFAULT;
    close(fds[0]);
    close(fds[1]);
  }
  munmap(p, page);
  return works;
}

/* Make slot i's guard page (the lock held). 0, or the errno of the failure.
   The first SLAB_MPROTECT_GUARDS guard pages of the process are made with
   mprotect all the same, one mapping each: a debugger's core dump (gdb's
   gcore) reads a mapping in large pieces and gives up on a piece that holds
   a guard of madvise's kind, so the stacks of a program with few of them
   stay in its core files; beyond that many, the mappings are saved. */
#define SLAB_MPROTECT_GUARDS 8192
static unsigned slab_mprotect_guards;   /* guard pages made with mprotect so far */

static int slab_guard(struct slab *b, unsigned i) {
  char *guard = b->base + (size_t)i * b->slot_size;
  if (slab_mprotect_guards >= SLAB_MPROTECT_GUARDS) {
    if (slab_guard_madvise < 0)
      slab_guard_madvise = guard_madvise_works();
    if (slab_guard_madvise && madvise(guard, page_size(), MADV_GUARD_INSTALL) == 0)
      return 0;
  }
  if (mprotect(guard, page_size(), PROT_NONE) != 0)   /* one more mapping */
    return errno;
  slab_mprotect_guards++;
  return 0;
}

/* A new slab for slots of slot_size bytes; NULL with errno set when the
   kernel refuses the mapping. */
static struct slab *slab_new(size_t slot_size) {
  size_t n = SLAB_BYTES / slot_size;
  unsigned slots = n < 1 ? 1 : n > SLAB_SLOTS ? SLAB_SLOTS : (unsigned)n;
  struct slab *b = calloc(1, sizeof *b);
  if (!b) {
    errno = ENOMEM;
    return NULL;
  }
  b->base = mmap(NULL, slots * slot_size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (b->base == MAP_FAILED) {
    int err = errno;
    free(b);
    errno = err;
    return NULL;
  }
  b->slot_size = slot_size;
  b->slots = slots;
  return b;
}

/* A slot of slot_size bytes (guard page first): its address, or NULL with
   errno set (ENOMEM: out of memory, or out of mappings). */
static char *slot_take(size_t slot_size, struct slab **owner) {
  pthread_mutex_lock(&slab_lock);
  struct slab *b = slab_partial;
  while (b && b->slot_size != slot_size)
    b = b->next;
  bool made = false;
  if (!b) {
    b = slab_new(slot_size);
    if (!b) {
      int err = errno;
      pthread_mutex_unlock(&slab_lock);
      errno = err;
      return NULL;
    }
    made = true;
  }
  unsigned i;
  if (b->nfree > 0) {
    i = b->free_slots[--b->nfree];           /* its guard is still there */
  } else {
    i = b->fresh;
    int err = slab_guard(b, i);
    if (err) {                               /* out of mappings (mprotect splits one) */
      if (made) {
        munmap(b->base, (size_t)b->slots * b->slot_size);
        free(b);
      }
      pthread_mutex_unlock(&slab_lock);
      errno = err;
      return NULL;
    }
    b->fresh++;
  }
  b->used++;
  if (made && b->fresh < b->slots)
    slab_list(b);
  else if (!made && b->nfree == 0 && b->fresh == b->slots)
    slab_unlist(b);
  pthread_mutex_unlock(&slab_lock);
  *owner = b;
  return b->base + (size_t)i * b->slot_size;
}

/* Give a slot back to its slab, its stack's pages to the kernel. */
static void slot_give(struct slab *b, char *slot) {
  madvise(slot + page_size(), b->slot_size - page_size(), MADV_DONTNEED);
  pthread_mutex_lock(&slab_lock);
  b->free_slots[b->nfree++] = (unsigned short)((size_t)(slot - b->base) / b->slot_size);
  b->used--;
  if (b->used == 0) {          /* all its slots free: unmap it */
    if (b->listed)
      slab_unlist(b);
    munmap(b->base, (size_t)b->slots * b->slot_size);
    free(b);
  } else if (!b->listed) {
    slab_list(b);
  }
  pthread_mutex_unlock(&slab_lock);
}

/* The top STACK_MAILBOX bytes of every stack are not the body's: the word
   there names the instance a parked stackful_main is to run next. */
#define STACK_MAILBOX 16

static struct stackful **stack_mailbox(char *map, size_t map_size) {
  return (struct stackful **)(map + map_size) - 1;
}

/* A parked context handed from the instance that ended to the next one. On
   x86_64 the saved stack pointer is all that a switch of the thread's FP
   environment reads, and it is copied alone: a 16-byte copy of a context
   whose rsp the switch just stored with an 8-byte store would wait for that
   store to reach the cache (the store cannot be forwarded to a wider load),
   a tenth of a short life. */
#ifdef STACKFUL_PARK
static inline void ctx_hand_over(struct coro_ctx *to, const struct coro_ctx *from) {
#if defined(__x86_64__)
  to->rsp = from->rsp;
#else
  *to = *from;
#endif
}
#endif

/* Freed slots kept by this thread with their pages, for the next instance. */
#define STACK_CACHE 16
static _Thread_local struct {
  char *map;            /* a slot: guard page, then the stack */
  struct slab *slab;    /* its slab */
  size_t size;          /* the slot's bytes (its slab's slot_size) */
#ifdef STACKFUL_PARK
  bool parked;          /* stackful_main waits on it, its context in `worker` */
  struct coro_ctx worker;
#ifdef STACKFUL_TSAN
  void *tsan_fiber;     /* parked: the TSan fiber that goes with `worker` (Tools) */
#endif
#endif
} stack_cache[STACK_CACHE];
static _Thread_local int stack_cached;

/* Instances kept whole with their stacks, for the next instance of the
   thread (Kept instances, below): at most STACK_CACHE stacks in all, kept
   bare or with their instance. Not under AddressSanitizer (whose instances
   are each a malloc of their own anyway), nor where instances keep their
   own FP environment by default. */
#if !defined(STACKFUL_ASAN) && !defined(CORO_SAVE_FPENV)
#define STACKFUL_KEEP 1
#endif
#ifdef STACKFUL_KEEP
static _Thread_local struct stackful *tls_kept[STACK_CACHE];
static _Thread_local int tls_kept_n;
#endif
static _Thread_local bool tls_keep_off;   /* the thread has an allocator (coro_set_allocator): keep none */
/* This thread's number among those that made stackful instances (from 1,
   never used again: a thread that ended and a new one are told apart),
   given at its first; 0 until then. */
static _Thread_local unsigned long tls_thread;
static unsigned long threads_numbered;

#ifdef STACKFUL_KEEP
static void stack_unmap(struct stackful *s);
static void kept_drop(int i);
#endif

/* A cached stack of map_size bytes for s (its slot and slab set), the
   newest first; with a parked stackful_main, its context is copied to
   *worker and the answer is 2; 1 without; 0: none of that size. */
static int stack_from_cache(struct stackful *s, size_t map_size, struct coro_ctx *worker) {
  for (int i = stack_cached - 1; i >= 0; i--)
    if (stack_cache[i].size == map_size) {
      int got = 1;
      s->map = stack_cache[i].map;
      s->slab = stack_cache[i].slab;
      s->map_size = map_size;
#ifdef STACKFUL_PARK
      if (stack_cache[i].parked && worker) {
        ctx_hand_over(worker, &stack_cache[i].worker);
        got = 2;
      }
#ifdef STACKFUL_TSAN
      s->tsan_fiber = stack_cache[i].tsan_fiber;   /* with the context, or to be dropped with it: */
      if (got != 2)
        tsan_fiber_end(s);
#endif
#else
      (void)worker;
#endif
      stack_cache[i] = stack_cache[--stack_cached];
      tool_stack_mapped(s);
      return got;
    }
#ifdef STACKFUL_KEEP
  /* a stack kept with an instance that does not fit this one: the stack
     without the instance */
  for (int i = tls_kept_n - 1; i >= 0; i--)
    if (tls_kept[i]->map_size == map_size) {
      kept_drop(i);
      return stack_from_cache(s, map_size, worker);
    }
#endif
  return 0;
}

static void mapped_add(struct stackful *s) {
  s->prev_mapped = NULL;
  s->next_mapped = tls_mapped;
  if (tls_mapped)
    tls_mapped->prev_mapped = s;
  tls_mapped = s;
}

static void mapped_remove(struct stackful *s) {
  if (s->prev_mapped)
    s->prev_mapped->next_mapped = s->next_mapped;
  else
    tls_mapped = s->next_mapped;
  if (s->next_mapped)
    s->next_mapped->prev_mapped = s->prev_mapped;
}

/* The instance's stack. False, with s->stack_errno set, when the kernel
   refuses it: nothing has changed then. */
static bool stack_map(struct stackful *s) {
  size_t map_size = s->stack_size + page_size();
  if (stack_from_cache(s, map_size, NULL)) {
    mapped_add(s);
    return true;
  }
  struct slab *b;
  char *slot = slot_take(map_size, &b);
  if (!slot) {
    s->stack_errno = errno ? errno : ENOMEM;
    return false;
  }
  s->map = slot;
  s->slab = b;
  s->map_size = map_size;
  s->stack_errno = 0;
  tool_stack_mapped(s);
  mapped_add(s);
  return true;
}

static void stack_unmap(struct stackful *s) {
  mapped_remove(s);
  tool_stack_unmapping(s);
  if (stack_cached < STACK_CACHE) {
    stack_cache[stack_cached].map = s->map;
    stack_cache[stack_cached].size = s->map_size;
    stack_cache[stack_cached].slab = s->slab;
#ifdef STACKFUL_PARK
    /* a body that ended left stackful_main parked, its context in s->ctx */
    stack_cache[stack_cached].parked = as_coro(s)->status == CORO_DONE;
    ctx_hand_over(&stack_cache[stack_cached].worker, &s->ctx);
#ifdef STACKFUL_TSAN
    stack_cache[stack_cached].tsan_fiber = stack_cache[stack_cached].parked ? s->tsan_fiber : NULL;
    if (stack_cache[stack_cached].parked)
      s->tsan_fiber = NULL;
#endif
#endif
    stack_cached++;
  } else {
    slot_give(s->slab, s->map);
  }
  tsan_fiber_end(s);   /* (a body that did not end: its calls are never left) */
  s->map = NULL;
}

/* }================================================================== */

/* {==================================================================
 * Shared stacks
 *
 * An instance made with coro_set_shared_stack runs on its thread's shared
 * stack (one guarded slot of SHARED_STACK bytes, taken at the first such
 * start, kept until the thread ends). Only one instance's frames are on it
 * at a time, the owner's; the others keep theirs in a buffer of exactly
 * the size they used. Copies are made lazily, when an instance that is not
 * the owner is resumed: the owner's used part, from its saved stack pointer
 * to the top, is copied out, and the resumed one's copied back to the same
 * place, so every address on its stack is what it was. An instance resumed
 * again with nobody in between costs no copy at all.
 *
 * The known hazard: a pointer into a suspended instance's stack (the
 * address of a local handed to its consumer) points into the shared stack,
 * where another instance's frames may be by the time it is used.
 *
 *     the shared stack                       the instances' buffers
 *    +-----------------+ top
 *    | B's frames      |  <- B runs (owner)   A: [ A's frames, 412 bytes ]
 *    |                 |                      C: [ C's frames, 380 bytes ]
 *    |   (unused)      |
 *    +-----------------+
 *    | guard page      |
 *
 * A shared-stack instance cannot resume another (the copy would overwrite
 * the frames of the code doing it): coroutines that nest keep stacks of
 * their own.
 * =================================================================== */

#define SHARED_STACK (1024 * 1024)   /* bytes of the shared stack: one per thread, so it can be roomy */

/* The stale-pointer check of debug builds (libcoro compiled without NDEBUG;
   not under AddressSanitizer, which poisons the frames itself, nor under
   valgrind, whose memcheck sees the place as below a stack pointer): what is
   below the suspended owner's frames and held the frames of an instance
   copied out since is filled with SHARED_POISON whenever a shared-stack
   instance switches back, and must still hold it when the next one is
   resumed. Nothing may write there in between but a pointer into the
   frames of a suspended instance. */
#if !defined(NDEBUG) && !defined(STACKFUL_ASAN)
#define STACKFUL_SHARED_CHECK 1
#define SHARED_POISON 0xa5              /* the byte the vacated part holds */
#define SHARED_VACATED 16               /* the instances copied out last that the check names */
#endif

static _Thread_local struct {
  char *map;              /* its slot (guard page, then the stack), NULL until first needed */
  struct slab *slab;      /* the slab of that slot (kept for the thread's life) */
  struct coro_stack_stats stats;   /* coro_shared_stack_stats */
#ifdef STACKFUL_SHARED_CHECK
  struct {
    const struct stackful *s;     /* an instance copied out (NULL: entry free) */
    char *sp;                     /* where its frames began on the shared stack */
  } vacated[SHARED_VACATED];      /* the last ones copied out, still out; the newest at [last] */
  unsigned last;
  char *poison_lo, *poison_hi;    /* [lo, hi) holds SHARED_POISON, or lo == hi */
#endif
} tls_shared;

/* Where the saved stack pointer of a suspended context is. */
static char *ctx_sp(const struct coro_ctx *ctx) {
#if defined(CORO_SWITCH_UCONTEXT)
  coro_fatal("coro_next", "no shared stacks with the ucontext switch (context %p)", (const void *)ctx);
  /* never reached: coro_set_shared_stack refuses in this build */
#elif defined(__x86_64__)
  return (char *)(uintptr_t)ctx->rsp;
#else
  return (char *)(uintptr_t)ctx->sp;
#endif
}

/* A copy that AddressSanitizer does not check: a stack holds the redzones
   of its frames, which are poisoned while they are live. */
#ifdef STACKFUL_ASAN
__attribute__((no_sanitize_address)) static void stack_copy(char *dst, const char *src, size_t n) {
  for (size_t i = 0; i < n; i++)
    ((volatile char *)dst)[i] = src[i];
}
#else
/* (Under ThreadSanitizer: the resumer's reads and writes, checked, and
   ordered after the body's own by the switch. A write into a suspended
   instance's frames from another thread that did not synchronise with the
   body is reported, here or at the write, as the race it is.) */
#define stack_copy memcpy
#endif

#ifdef STACKFUL_SHARED_CHECK
/* {------------------------------------------------------------------
 * The stale-pointer check (debug builds)
 * ------------------------------------------------------------------- */

/* o's frames left the shared stack from sp up: remember where, for the
   check and its message. */
static void shared_vacated_add(const struct stackful *o, char *sp) {
  unsigned i = (tls_shared.last + 1) % SHARED_VACATED;
  tls_shared.vacated[i].s = o;
  tls_shared.vacated[i].sp = sp;
  tls_shared.last = i;
}

/* o is back on the shared stack, or freed: its old place is no one's hazard. */
static void shared_vacated_forget(const struct stackful *o) {
  for (unsigned i = 0; i < SHARED_VACATED; i++)
    if (tls_shared.vacated[i].s == o)
      tls_shared.vacated[i].s = NULL;
}

/* The shared-stack instance copied out last whose frames were at p. */
static const struct stackful *shared_vacated_at(const char *p) {
  for (unsigned k = 0; k < SHARED_VACATED; k++) {
    unsigned i = (tls_shared.last + SHARED_VACATED - k) % SHARED_VACATED;
    if (tls_shared.vacated[i].s && tls_shared.vacated[i].sp <= p)
      return tls_shared.vacated[i].s;
  }
  return NULL;
}

/* A shared-stack instance just switched back (suspended, or ended: then
   sp is the top): fill with SHARED_POISON what lies below sp and held the
   frames of an instance that is copied out now. */
static void shared_poison(char *sp) {
#ifdef STACKFUL_VALGRIND
  if (RUNNING_ON_VALGRIND)
    return;   /* memcheck reports such accesses itself (the place is below a stack pointer) */
#endif
  char *lo = sp;
  for (unsigned i = 0; i < SHARED_VACATED; i++)
    if (tls_shared.vacated[i].s && tls_shared.vacated[i].sp < lo)
      lo = tls_shared.vacated[i].sp;
  memset(lo, SHARED_POISON, (size_t)(sp - lo));
  tls_shared.poison_lo = lo;
  tls_shared.poison_hi = sp;
}

/* Before a shared-stack instance is resumed: the poisoned part must be as
   it was left. A byte that is not was written since the last switch back,
   by code that no frame there belongs to: through a stale pointer. */
static void shared_check_poison(void) {
  const unsigned char *p = (const unsigned char *)tls_shared.poison_lo;
  const unsigned char *end = (const unsigned char *)tls_shared.poison_hi;
  uint64_t word, pattern = 0x0101010101010101u * SHARED_POISON;
  for (; p + 8 <= end; p += 8) {
    memcpy(&word, p, 8);
    if (word != pattern)
      break;
  }
  for (; p < end && *p == SHARED_POISON; p++) {
  }
  if (p == end)
    return;
  const struct stackful *o = shared_vacated_at((const char *)p);
  char *top = tls_shared.map + SHARED_STACK + page_size();
  coro_fatal("coro_next", "a write through a stale pointer into the shared stack, at %p (%zu bytes below its "
             "top): the frames of shared-stack instance %p were there until they were copied out, and the "
             "write came after that. A pointer into a shared-stack instance's stack is good only while that "
             "instance is on the shared stack: yield values, not addresses of its locals", (const void *)p,
             (size_t)(top - (const char *)p), (const void *)o);
}

/* }------------------------------------------------------------------ */
#endif

/* Copy the owner's frames out of the shared stack. */
static void shared_evict(struct stackful *o) {
  char *top = o->map + o->map_size, *sp = ctx_sp(&o->ctx);
  size_t used = (size_t)(top - sp);
  if (used != o->copy_size) {
    char *buf = realloc(o->copy, used);
    if (!buf)
      coro_fatal("coro_next", "out of memory for the %zu bytes of stack of shared-stack instance %p", used,
                 (void *)o);
    o->copy = buf;
  }
  stack_copy(o->copy, sp, used);
  o->copy_size = used;
  o->on_stack = false;
#ifdef STACKFUL_SHARED_CHECK
  shared_vacated_add(o, sp);
#endif
  tls_shared.stats.copies_out++;
  tls_shared.stats.bytes_out += used;
#ifdef STACKFUL_ASAN
  /* What can be detected of the hazard: the frames just copied out are
     poisoned as a whole, so that a pointer into them (a local of the
     suspended instance, handed out) is reported when used, until the next
     owner's frames cover the place (shared_unpoison). */
  ASAN_POISON_MEMORY_REGION(sp, used);
#endif
  tls_shared_owner = NULL;
}

#ifdef STACKFUL_ASAN
/* The part of the shared stack the instance entering it now (its frames
   `used` bytes from the top) may use: unpoisoned. A function's prologue
   sets the shadow of its frame's redzones only, taking the rest of the
   frame to be clean, so the poison of frames copied out must be gone
   wherever the new owner's frames go: its own part, and the
   SHARED_ASAN_ROOM bytes below it, where the calls it makes go deeper
   than it was when it last switched out (a fresh instance: from the top).
   A pointer into what a deeper instance left below that is still reported. */
#define SHARED_ASAN_ROOM (16 * 1024)
static void shared_unpoison(char *top, size_t used) {
  char *low = tls_shared.map + page_size();
  char *from = (size_t)(top - low) > used + SHARED_ASAN_ROOM ? top - used - SHARED_ASAN_ROOM : low;
  ASAN_UNPOISON_MEMORY_REGION(from, (size_t)(top - from));
}
#endif

/* Whether the code calling this runs on this thread's shared stack. */
static bool on_shared_stack(void) {
  char *here = __builtin_frame_address(0);
  return tls_shared.map && here >= tls_shared.map && here < tls_shared.map + SHARED_STACK + page_size();
}

/* Refuse to copy over the stack we run on. */
static void shared_check_caller(void) {
  if (on_shared_stack())
    coro_fatal("coro_next", "a shared-stack instance cannot resume another shared-stack instance "
               "(give one of them a stack of its own: coro_set_shared_stack(c, false))");
}

/* Make s the owner of the shared stack, its frames back in place. */
static void shared_enter(struct stackful *s) {
  shared_check_caller();
  if (tls_shared_owner)
    shared_evict(tls_shared_owner);
  if (s->copy_size) {
    char *top = s->map + s->map_size;
#ifdef STACKFUL_VALGRIND
    VALGRIND_MAKE_MEM_UNDEFINED(top - s->copy_size, s->copy_size);   /* below that stack's last sp: ours again */
#endif
#ifdef STACKFUL_ASAN
    shared_unpoison(top, s->copy_size);   /* its frames' redzones are not restored */
#endif
    stack_copy(top - s->copy_size, s->copy, s->copy_size);
    tls_shared.stats.copies_in++;
    tls_shared.stats.bytes_in += s->copy_size;
  }
  s->on_stack = true;
  tls_shared_owner = s;
#ifdef STACKFUL_SHARED_CHECK
  shared_vacated_forget(s);
#endif
}

/* The first resume of a shared-stack instance: the thread's shared stack
   (taken now if this is its first), its owner's frames copied out. */
static bool shared_start(struct stackful *s) {
  size_t map_size = SHARED_STACK + page_size();
  if (!tls_shared.map) {
    char *slot = slot_take(map_size, &tls_shared.slab);
    if (!slot) {
      s->stack_errno = errno ? errno : ENOMEM;
      return false;
    }
    tls_shared.map = slot;
#ifdef STACKFUL_VALGRIND
    VALGRIND_STACK_REGISTER(slot + page_size(), slot + map_size);   /* for the thread's life */
#endif
  }
  shared_check_caller();
#ifdef STACKFUL_SHARED_CHECK
  /* Checked here, before stackful_start writes the entry frame 32 bytes
     below the top (coro_ctx_init): that write is the new owner's own, yet
     the place may be poisoned, when the last instance to switch back ended
     (its frames gone, the poison reaches the top) while another was copied
     out. So nothing is left to check at this resume (stackful_resume). */
  shared_check_poison();
  tls_shared.poison_lo = tls_shared.poison_hi;
#endif
  if (tls_shared_owner)
    shared_evict(tls_shared_owner);
#ifdef STACKFUL_ASAN
  /* coro_ctx_init writes the first frame at the top; the body's frames go
     below it */
  shared_unpoison(tls_shared.map + map_size, 0);
#endif
  s->map = tls_shared.map;
  s->map_size = map_size;
  s->stack_size = SHARED_STACK;
  s->stack_errno = 0;
  s->copy_size = 0;
  s->on_stack = true;
  tls_shared_owner = s;
  return true;
}

bool coro_set_shared_stack(coro_t *c, bool shared) {
  struct stackful *s = as_stackful(c);
#ifdef CORO_SWITCH_UCONTEXT
  if (shared)
    return false;   /* a ucontext's saved stack pointer is not ours to read */
#endif
  if (!s || as_coro(s)->status != CORO_CREATED)
    return false;
  if (shared)
    stackful_detach(s);   /* the stack it took at its creation goes back to the cache */
  s->shared = shared;
  if (shared)
    c->kind |= CORO_SHARED_STACK;   /* its awaits keep the awaitable in its slot (coro/gen.h) */
  else
    c->kind &= (unsigned char)~CORO_SHARED_STACK;
  s->shared_default = false;   /* said for this one: kept even when nested */
  return true;
}

/* The awaitable of an await of a shared-stack task, copied to the task's
   slot (made or grown now: the task's previous await is over, so nothing
   points into the slot). What the event sources link and write to while
   the task is suspended is then here, not on the shared stack. */
void *coro_stackful_await_slot(coro_t *c, const void *aw, size_t size) {
  struct stackful *s = (struct stackful *)c;
  if (size > s->await_cap) {
    size_t cap = size < 64 ? 64 : size;   /* most awaitables fit in 64 bytes: one allocation */
    void *slot = realloc(s->await_slot, cap);
    if (!slot)
      coro_fatal("await", "out of memory for the %zu-byte awaitable of shared-stack instance %p", size,
                 (void *)c);
    s->await_slot = slot;
    s->await_cap = cap;
  }
  return memcpy(s->await_slot, aw, size);
}

/* Where the byte at p of a suspended shared-stack instance's stack is now:
   in its buffer, when its frames are copied out, else at p. */
void *coro_stackful_locate(coro_t *c, void *p) {
  struct stackful *s = as_stackful(c);
  if (!p || !s || !s->shared || s->on_stack || !s->copy_size)
    return p;
  char *top = s->map + s->map_size, *low = top - s->copy_size;
  if ((char *)p < low || (char *)p >= top)
    return p;   /* not on its stack */
  return s->copy + ((char *)p - low);
}


/* The thread's default, coro_default_shared_stack: 0 not said (the
   process's, from the environment, holds), 1 shared, -1 not. */
#ifndef CORO_SWITCH_UCONTEXT
static _Thread_local signed char tls_default_shared;

void coro_default_shared_stack(bool shared) {
  tls_default_shared = shared ? 1 : -1;
}

/* The process's default: CORO_SHARED_STACK in the environment, read once
   (unset, empty or 0: not shared; anything else: shared). */
static bool shared_by_environment(void) {
  static int cached;   /* 0: not read yet; 1 shared; -1 not */
  int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (__builtin_expect(v == 0, 0)) {
    const char *e = getenv("CORO_SHARED_STACK");
    v = e && *e && strcmp(e, "0") != 0 ? 1 : -1;
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
  }
  return v > 0;
}

static bool shared_by_default(void) {
  if (__builtin_expect(tls_default_shared != 0, 0))
    return tls_default_shared > 0;
  return shared_by_environment();
}
#else
void coro_default_shared_stack(bool shared) {
  (void)shared;   /* no shared stacks in this build: every instance keeps a stack of its own */
}

static bool shared_by_default(void) {
  return false;
}
#endif

void coro_shared_stack_stats(struct coro_stack_stats *stats) {
  *stats = tls_shared.stats;
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
static SWITCH_INLINE void stackful_switch(struct stackful *s, struct coro_ctx *from, struct coro_ctx *to) {
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
    CORO_SWITCH_INLINE_CALL(body + 1, body, CORO_SWITCH_FPENV_ASM);
  } else {
    coro_set_state(gen, CORO_INLINE_SWITCH_FPENV_LOAD, CORO_RUNNING);
    CORO_SWITCH_INLINE_CALL(body + 1, body, CORO_SWITCH_FPENV_LOAD_ASM);
  }
  return gen->status != CORO_DONE;   /* suspended again, or finished */
}
#else
/* This libcoro marks no instance for the inline switch (ucontext): a
   program compiled for it calls this only with a header of another build. */
bool coro_next_fpenv(coro_t *gen) {
  coro_fatal("coro_next", "instance %p is marked for an inline switch that this libcoro (built "
             "with CORO_SWITCH_UCONTEXT) does not make", (void *)gen);
}
#endif

/* After the body's end, it parks: resumed again, it is by the next instance
   that took the stack (stackful_attach), named in the stack's mailbox, and
   it runs that one's body, with no new context: the first resume of an
   instance on a reused stack is a switch like any other. */
static void stackful_main(void *arg) {
  struct stackful *s = arg;
  struct stackful **mailbox = stack_mailbox(s->map, s->map_size);
  (void)mailbox;   /* (read only where stacks are parked) */
  for (;;) {
    tool_switched_in(s, 1);
    s->entry(as_coro(s));
    as_coro(s)->status = CORO_DONE;            /* coro_next answers false: no more values */
    tool_switch_out(s, 1);
#if defined(STACKFUL_INLINE_SWITCH) && defined(CORO_INLINE_SWITCH)
    /* as a yield switches (coro/gen.h): what lives across it is saved by the
       compiler, not the five registers coro_ctx_switch keeps for a caller */
    if (!s->own_fpenv)
      CORO_SWITCH_INLINE(&s->ctx, &s->caller, CORO_SWITCH_ASM);
    else if (!fpenv_compare())
      CORO_SWITCH_INLINE(&s->ctx, &s->caller, CORO_SWITCH_FPENV_LOAD_ASM);
    else
      CORO_SWITCH_INLINE(&s->ctx, &s->caller, CORO_SWITCH_FPENV_ASM);
#else
    stackful_switch(s, &s->ctx, &s->caller);
#endif
#ifdef STACKFUL_PARK
    s = *mailbox;                              /* (s, the instance that ended, may be gone) */
    *mailbox = NULL;
    if (s)
      continue;
#endif
    coro_fatal("coro_next", "instance %p was resumed after its body returned", (void *)s);
  }
}

/* What coro_error says of an instance that could not get its stack: the
   limit it ran into and what to change. Into buf. */
static const char *stack_error_text(const struct stackful *s, char *buf, size_t size) {
  long max_maps = -1;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &max_maps) != 1)
      max_maps = -1;
    fclose(f);
  }
  char limit[64] = "";
  if (max_maps >= 0)
    snprintf(limit, sizeof limit, " (%ld here)", max_maps);
  snprintf(buf, size,
           "cannot map a stack of %zu bytes for coroutine instance %p: %s. The limit is the memory the kernel "
           "will commit, or the number of mappings a process may have, vm.max_map_count%s. Free finished "
           "instances, give stacks less room (coro_set_stack_size, coro_default_stack_size), or raise the "
           "limit (sysctl vm.max_map_count=N)",
           s->stack_size, (const void *)s, strerror(s->stack_errno), limit);
  return buf;
}

/* The body's context on its stack, just mapped or taken from the cache:
   the next resume starts the body. */
static void stackful_ready(struct stackful *s) {
  char *stack = s->map + s->map_size - s->stack_size;
  *stack_mailbox(s->map, s->map_size) = NULL;
  tsan_fiber_end(s);   /* (a kept instance's, from a body that did not end: a new context needs a new fiber) */
  if (s->own_fpenv)
    coro_ctx_init(&s->ctx, stack, s->stack_size - STACK_MAILBOX, stackful_main, s);
  else
    coro_ctx_init_thread_fp(&s->ctx, stack, s->stack_size - STACK_MAILBOX, stackful_main, s);
#ifdef STACKFUL_INLINE_SWITCH
  /* its stack is there: coro_next and yield may switch inline, the first
     resume too (into the trampoline); resume point and status in one store,
     as coro_next reads them */
  coro_set_state(as_coro(s), !s->own_fpenv  ? CORO_INLINE_SWITCH_MARK
                             : fpenv_compare() ? CORO_INLINE_SWITCH_FPENV
                                               : CORO_INLINE_SWITCH_FPENV_LOAD,
                 (enum coro_status)as_coro(s)->status);
#endif
}

/* A new instance takes a stack of its size from its thread's cache of
   stacks (Stacks, above) at once, when there is one, and is made ready to
   start: then its first resume is a switch like any other (inline on
   x86_64), and nothing of its life makes a system call or touches a page
   that was not touched before. Only instances that keep the thread's FP
   environment: one that keeps its own takes the environment of its first
   resume, so it gets its context then. A setting that changes which stack
   it needs before its first resume gives the stack back (stackful_detach). */
static void stackful_attach(struct stackful *s) {
  int got;
  if (s->own_fpenv || s->shared || stack_cached == 0 ||
      !(got = stack_from_cache(s, s->stack_size + page_size(), &s->ctx)))
    return;
  guard_install();   /* (a stack in this thread's cache may come from an instance of another) */
  mapped_add(s);
  if (got == 1) {
    stackful_ready(s);
    return;
  }
  /* stackful_main is parked on it (its context now ours): it runs this body next */
  *stack_mailbox(s->map, s->map_size) = s;
#ifdef STACKFUL_INLINE_SWITCH
  /* one store of both halves of the gate coro_next reads as one word */
  coro_set_state(as_coro(s), CORO_INLINE_SWITCH_MARK, CORO_CREATED);
#endif
}

/* The first release (or stack given back) on a thread: from now on it may
   keep instances and stacks, which its end gives back. */
static _Thread_local bool tls_end_held;
static void stackful_thread_end(void *unused);

static __attribute__((noinline, cold)) void stackful_hold_end(void) {
  coro_thread_holds(CORO_THREAD_STACKFUL, stackful_thread_end, NULL);
  tls_end_held = true;
}

/* Back to the cache with the stack an instance not started yet took at its
   creation, the instance as it was made (lazy start). */
static void stackful_detach(struct stackful *s) {
  if (!s->map || s->shared)
    return;
  if (__builtin_expect(!tls_end_held, 0))
    stackful_hold_end();
  stack_unmap(s);
  as_coro(s)->resume_point = 0;
}

/* The first resume maps the stack and makes the body's context; false when
   there is no stack to be had. */
static bool stackful_start(struct stackful *s) {
  guard_install();
  if (s->shared && s->shared_default && on_shared_stack()) {
    s->shared = false;   /* nested in a shared-stack instance: a stack of its own (Shared stacks) */
    as_coro(s)->kind &= (unsigned char)~CORO_SHARED_STACK;
  }
  if (s->shared) {
    if (!shared_start(s))
      return false;
    coro_ctx_init(&s->ctx, s->map + s->map_size - s->stack_size, s->stack_size, stackful_main, s);
    return true;   /* never marked: every switch goes through stackful_resume, which copies */
  }
  if (!stack_map(s))
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
  static int told;   /* the message went to stderr once */
  if (as_coro(s)->status == CORO_DONE)
    coro_fatal("stackful_resume", "instance %p is done: it cannot be resumed", (void *)s);
  if (!stackful_start(s)) {
    as_coro(s)->status = CORO_CREATED;   /* (the scheduler marked it running) */
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) {
      char buf[640];
      fprintf(stderr, "coro: coro_next: %s\n", stack_error_text(s, buf, sizeof buf));
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
  if (s->shared && !on_shared_stack())   /* (from there: the nesting is refused below) */
    shared_check_poison();
#endif
  if (s->shared && tls_shared_owner != s)
    shared_enter(s);
  c->status = CORO_RUNNING;
  s->head.out = out;  /* the body, on its own stack, writes its yields there */
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
    tls_shared_owner = NULL;           /* nothing of it left to keep */
#ifdef STACKFUL_SHARED_CHECK
  if (s->shared)
    shared_poison(as_coro(s)->status == CORO_DONE ? s->map + s->map_size : ctx_sp(&s->ctx));
#endif
  return as_coro(s)->status != CORO_DONE;  /* suspended again (a value, or a turn), or finished */
}

void coro_stackful_suspend(coro_t *c) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(as_coro(s)->status != CORO_RUNNING || !s->map, 0))
    coro_fatal("coro_stackful_suspend", "instance %p is not a running coroutine", (void *)c);
  as_coro(s)->status = CORO_SUSPENDED;        /* coro_next answers true: a value (or a turn) */
  tool_switch_out(s, 0);
  stackful_switch(s, &s->ctx, &s->caller);
  tool_switched_in(s, 0);
}

/* }================================================================== */

/* {==================================================================
 * Creating, sizing and releasing
 * =================================================================== */

/* {------------------------------------------------------------------
 * Kept instances
 *
 * An instance freed with its stack mapped keeps both together, a whole
 * instance ready for the next one of its thread: coro_stackful_new takes the
 * newest whose memory and stack are big enough, sets its header, entry and
 * arguments, and is done: no slot of a slab taken and zeroed, no stack
 * looked up, no list of mapped stacks touched (a kept instance stays on
 * it), and, when its body ended, the start routine parked on its stack
 * runs the next body (its mailbox names the instance, the same memory).
 * Only instances of the slabs (home CORO_HOME_SLAB: not in storage their
 * caller gave, not under valgrind or ASan, whose instances are each an
 * allocation of their own, not from an allocator) made by this thread are
 * kept. A kept instance is not live: its resume function is NULL, as a free
 * slot's, so the gdb extension skips it (to the registry it is a slot in
 * use). The thread's allocator, once set, and the thread's end give kept
 * instances back (their stacks to the cache of stacks, or to the slabs at
 * the end).
 * ------------------------------------------------------------------} */

#ifdef STACKFUL_KEEP
/* The kept instance i: its stack to the cache of stacks (there is room:
   kept and bare count together), its memory to the registry. */
static void kept_drop(int i) {
  struct stackful *k = tls_kept[i];
  tls_kept[i] = tls_kept[--tls_kept_n];
  stack_unmap(k);
  coro_instance_free(as_coro(k));
}

#endif

void coro_stackful_keep(bool on) {
  tls_keep_off = !on;
#ifdef STACKFUL_KEEP
  if (!on)
    while (tls_kept_n > 0)
      kept_drop(tls_kept_n - 1);
#endif
}

/* The thread ends (coro_thread.h, before the slabs): what it kept for its
   next instances goes back. */
static void stackful_thread_end(void *unused) {
  (void)unused;
  coro_stackful_keep(false);
  while (stack_cached > 0) {
    stack_cached--;
#if defined(STACKFUL_PARK) && defined(STACKFUL_TSAN)
    if (stack_cache[stack_cached].tsan_fiber)
      __tsan_destroy_fiber(stack_cache[stack_cached].tsan_fiber);
#endif
    slot_give(stack_cache[stack_cached].slab, stack_cache[stack_cached].map);
  }
}

#ifdef STACKFUL_KEEP
_Static_assert(sizeof(struct stackful) % 8 == 0, "kept_reuse: the arguments start past a whole word");

/* A kept instance made new: what coro_frame_new and stackful_setup would
   have left in it, but for what it has already (its stack, its place on
   the list of mapped stacks, its context) and what no one reads before it
   is set (the resumer's context). */
static coro_t *kept_reuse(struct stackful *s, void (*entry)(coro_t *c), size_t offset, size_t size,
                          enum coro_kind kind) {
  bool parked = as_coro(s)->status == CORO_DONE;   /* (its status at its end) */
  s->head = (struct coro_stackful_head){.task.base = {.resume = stackful_resume,
                                                      .status = CORO_CREATED,
                                                      .kind = (unsigned char)(kind | CORO_STACKFUL),
                                                      .home = CORO_HOME_SLAB}};
  s->entry = entry;
  s->args_offset = offset;
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
  if (__builtin_expect(!tls_altstack_checked, 0))
    guard_install();   /* (the thread that first resumed it may have been another) */
#ifdef STACKFUL_PARK
  if (parked) {
    /* stackful_main is parked on it: it runs this body next */
    *stack_mailbox(s->map, s->map_size) = s;
#ifdef STACKFUL_INLINE_SWITCH
    coro_set_state(as_coro(s), CORO_INLINE_SWITCH_MARK, CORO_CREATED);
#endif
    return as_coro(s);
  }
#endif
  (void)parked;
  stackful_ready(s);
  return as_coro(s);
}
#endif

/* }------------------------------------------------------------------ */

void coro_stackful_release(coro_t *c) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(!tls_end_held, 0))
    stackful_hold_end();
#ifdef STACKFUL_KEEP
  if (c->home == CORO_HOME_SLAB && s->map && !s->shared && !s->own_fpenv && s->maker == tls_thread &&
      tls_kept_n + stack_cached < STACK_CACHE && !tls_keep_off) {
    c->resume = NULL;   /* not live (the gdb extension skips it); its status says whether it ended */
    tls_kept[tls_kept_n++] = s;
    return;
  }
#endif
  if (s->shared) {
    if (tls_shared_owner == s)
      tls_shared_owner = NULL;   /* its frames on the shared stack are simply dropped */
#ifdef STACKFUL_SHARED_CHECK
    shared_vacated_forget(s);
#endif
    free(s->copy);
    free(s->await_slot);
    tsan_fiber_end(s);
  } else if (s->map) {
    stack_unmap(s);   /* an unfinished body's frames are simply dropped */
  }
  coro_instance_free(c);
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

/* Where the arguments start: after the bookkeeping, aligned for them. */
static size_t args_offset(size_t args_align) {
  return (sizeof(struct stackful) + args_align - 1) & ~(args_align - 1);   /* (a power of two: no division) */
}

static void stackful_setup(coro_t *c, void (*entry)(coro_t *c), size_t offset, size_t bytes, size_t align) {
  struct stackful *s = (struct stackful *)c;
  if (__builtin_expect(!tls_thread, 0))
    tls_thread = __atomic_add_fetch(&threads_numbered, 1, __ATOMIC_RELAXED);
  s->maker = tls_thread;
  s->bytes = bytes;
  s->align = align;
  s->entry = entry;
  s->stack_size = tls_default_stack ? tls_default_stack : STACKFUL_DEFAULT_STACK;
  s->args_offset = offset;
  s->own_fpenv = STACKFUL_DEFAULT_FPENV;
  s->shared = s->shared_default = shared_by_default();
  if (s->shared)
    c->kind |= CORO_SHARED_STACK;   /* its awaits keep the awaitable in its slot, as coro_set_shared_stack's */
  stackful_attach(s);   /* a kept stack, if this thread has one of its size */
}

/* A new instance in new memory (no kept one fits). */
static __attribute__((noinline)) coro_t *stackful_new_made(void (*entry)(coro_t *c), size_t offset, size_t size,
                                                           size_t align, enum coro_kind kind) {
  coro_t *c = coro_frame_new(size, align, stackful_resume, kind | CORO_STACKFUL);
  stackful_setup(c, entry, offset, size, align);
  return c;
}

/* A kept instance made new (Kept instances), or the instance and its
   arguments in one zeroed allocation (coro_frame_new), its stack a kept one
   taken now or mapped at its first resume. */
coro_t *coro_stackful_new(void (*entry)(coro_t *c), size_t args_size, size_t args_align,
                          enum coro_kind kind) {
  if (args_align == 0)
    args_align = 1;
  if (__builtin_expect(args_align & (args_align - 1), 0))
    coro_fatal("coro_stackful_new", "the arguments' alignment %zu is not a power of two", args_align);
  size_t align = args_align > _Alignof(struct stackful) ? args_align : _Alignof(struct stackful);
  size_t offset = args_offset(args_align);
#ifdef STACKFUL_KEEP
  size_t stack = tls_default_stack ? tls_default_stack : STACKFUL_DEFAULT_STACK;
  for (int i = shared_by_default() ? -1 : tls_kept_n - 1; i >= 0; i--) {
    struct stackful *k = tls_kept[i];
    if (k->stack_size == stack && offset + args_size <= k->bytes && align <= k->align) {
      tls_kept[i] = tls_kept[--tls_kept_n];
      return kept_reuse(k, entry, offset, offset + args_size, kind);
    }
  }
#endif
  return stackful_new_made(entry, offset, offset + args_size, align, kind);
}

#if !defined(CORO_SWITCH_UCONTEXT)
_Static_assert(sizeof(struct stackful) <= CORO_STACKFUL_BYTES, "coro/gen.h: CORO_STACKFUL_BYTES holds the bookkeeping");
#endif

coro_t *coro_stackful_init(void *storage, size_t bytes, void (*entry)(coro_t *c), size_t args_size,
                           size_t args_align, enum coro_kind kind) {
  if (args_align == 0)
    args_align = 1;
  if (args_align & (args_align - 1))
    coro_fatal("coro_stackful_init", "the arguments' alignment %zu is not a power of two", args_align);
  size_t offset = args_offset(args_align);
  if (offset + args_size > bytes || (uintptr_t)storage % _Alignof(struct stackful) ||
      (uintptr_t)storage % args_align)
    coro_fatal("coro_stackful_init", "storage of %zu bytes at %p cannot hold a stackful instance "
               "of this libcoro (%zu bytes, aligned to %zu; CORO_STACKFUL_BYTES is %d)", bytes, storage,
               offset + args_size, args_align > 16 ? args_align : (size_t)16, CORO_STACKFUL_BYTES);
  coro_t *c = storage;
  coro_frame_init(c, offset + args_size, stackful_resume, kind | CORO_STACKFUL);
  stackful_setup(c, entry, offset, offset + args_size, args_align);
  return c;
}

void *coro_stackful_args(coro_t *c) {
  return (char *)c + ((struct stackful *)c)->args_offset;
}

bool coro_set_stack_size(coro_t *c, size_t bytes) {
  struct stackful *s = as_stackful(c);
  size_t size = stack_round(bytes);
  if (!s || as_coro(s)->status != CORO_CREATED || size == 0)
    return false;
  if (size != s->stack_size)
    stackful_detach(s);   /* the stack it took at its creation is not of that size */
  s->stack_size = size;
  return true;
}

bool coro_set_fpenv(coro_t *c, bool own) {
  struct stackful *s = as_stackful(c);
  if (!s || as_coro(s)->status != CORO_CREATED)
    return false;
  if (own)
    stackful_detach(s);   /* its context is made at its first resume, with that environment */
  s->own_fpenv = own;
  return true;
}

const char *coro_error(const coro_t *c) {
  static _Thread_local char buf[640];
  const struct stackful *s = as_stackful((coro_t *)c);
  if (!s || !s->stack_errno || s->map)
    return NULL;
  return stack_error_text(s, buf, sizeof buf);
}

void coro_default_stack_size(size_t bytes) {
  tls_default_stack = stack_round(bytes);
}

/* }================================================================== */
