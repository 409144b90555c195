/* ctx.h: the saved registers of a stackful context, and the switch between two.
 *
 * A context is what a suspended stack needs to go on: its stack pointer, the
 * address to continue at, and the registers the ABI says a called function
 * must give back unchanged (callee-saved). Caller-saved registers need no
 * slot: a switch is an ordinary call to coro_ctx_switch, so the compiler has
 * already saved whatever of them it still needs before calling it.
 *
 * Field order equals the offsets that runtime/asm/switch_<arch>.S uses; the
 * _Static_asserts below (x86_64: in <coro.h>, whose inline switch uses the
 * same struct) pin them, so changing one side without the other does not
 * compile. runtime/asm/README.md draws the initial frame of a new
 * context and the alignment rules.
 *
 * Two implementations sit behind this header, chosen when libcoro is built
 * (CMake option COROC_SWITCH): the assembly switch (default, x86_64 and
 * aarch64) and a portable one on ucontext (CORO_SWITCH_UCONTEXT defined:
 * runtime/asm/switch_ucontext.c), which costs a signal-mask system call per
 * switch.
 *
 * Names: these are global symbols of a static library linked into user
 * programs, so they carry the coro_ prefix like everything else the runtime
 * exports (docs/runtime.md, "What <coro.h> declares"); ctx is the layer.
 */
#ifndef CORO_CTX_H
#define CORO_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The start routine of a new context: runs on the new stack with `arg`; it
   must never return (there is nothing to return to; the trampoline traps). */
typedef void coro_ctx_fn(void *arg);

#if defined(CORO_SWITCH_UCONTEXT)
/* {==================================================================
 * ucontext: the portable switch
 * =================================================================== */
#include <ucontext.h>

struct coro_ctx {
  ucontext_t uc;   /* everything swapcontext saves: registers, FP environment, signal mask */
  coro_ctx_fn *fn; /* start routine, read once by the ucontext entry */
  void *arg;       /* its argument: makecontext passes only ints, so it goes through here */
  int thread_fenv; /* first entered by coro_ctx_switch: starts in the thread's FP environment */
};

#define CORO_CTX_SWITCH_NAME "ucontext"

/* }================================================================== */
#elif defined(__x86_64__)
/* {==================================================================
 * x86_64, System V ABI (runtime/asm/switch_x86_64.S)
 * =================================================================== */

/* struct coro_ctx is in <coro.h>: its inline switch saves and resumes
   contexts of the same shape (rsp; on that stack where it goes on and rbp)
   as the assembly here, so that either resumes what the other saved. The
   other callee-saved registers are not in it: coro_ctx_switch pushes them on
   the stack it leaves, and the inline switch lets the compiler save what it
   needs. */
#include <coro.h>

#define CORO_CTX_SWITCH_NAME "asm-x86_64"

/* The first switch into a new context "returns" into this (xv6's forkret):
   it pops the start routine's argument and the routine, and calls it. */
void coro_ctx_trampoline(void);

/* A new context: empty stack [stack, stack+size). What a switch pops (the
   trampoline as where it goes on, rbp = 0 to end frame-pointer walks), then
   what the trampoline pops. Its FP control, used only by
   coro_ctx_switch_fpenv, is the caller's now: the first resumer's, since
   the runtime makes the context at the first resume (the body computes as
   its resumer does, like a called function). */
static inline void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size, coro_ctx_fn *fn,
                                 void *arg) {
  uint64_t top = ((uint64_t)(uintptr_t)stack + size) & ~(uint64_t)15;
  uint64_t *start = (uint64_t *)(uintptr_t)(top - 32);
  start[0] = (uint64_t)(uintptr_t)coro_ctx_trampoline; /* popped, then jumped to */
  start[1] = 0;                                        /* popped into rbp */
  start[2] = (uint64_t)(uintptr_t)arg;                 /* popped by the trampoline */
  /* after these, rsp = top: 16-aligned for the call */
  start[3] = (uint64_t)(uintptr_t)fn;
  *ctx = (struct coro_ctx){.rsp = top - 32};
  __asm__ volatile("stmxcsr %0" : "=m"(ctx->mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(ctx->fpucw));
}

/* The same for a context that only coro_ctx_switch will switch (the
   thread's FP environment): its FP control is left zero, unread. Reading
   the x87 control word (fnstcw) is slow enough to be a tenth of a
   short-lived generator's life. */
#define CORO_CTX_HAVE_INIT_THREAD_FP 1
static inline void coro_ctx_init_thread_fp(struct coro_ctx *ctx, void *stack, size_t size,
                                           coro_ctx_fn *fn, void *arg) {
  uint64_t top = ((uint64_t)(uintptr_t)stack + size) & ~(uint64_t)15;
  uint64_t *start = (uint64_t *)(uintptr_t)(top - 32);
  start[0] = (uint64_t)(uintptr_t)coro_ctx_trampoline;
  start[1] = 0;
  start[2] = (uint64_t)(uintptr_t)arg;
  start[3] = (uint64_t)(uintptr_t)fn;
  *ctx = (struct coro_ctx){.rsp = top - 32};
}

/* }================================================================== */
#elif defined(__aarch64__)
/* {==================================================================
 * aarch64, AAPCS64 (runtime/asm/switch_aarch64.S)
 * =================================================================== */
struct coro_ctx {
  uint64_t x19; /* callee-saved; holds the start routine's argument in a new context */
  uint64_t x20; /* callee-saved; holds the start routine in a new context */
  uint64_t x21; /* callee-saved */
  uint64_t x22; /* callee-saved */
  uint64_t x23; /* callee-saved */
  uint64_t x24; /* callee-saved */
  uint64_t x25; /* callee-saved */
  uint64_t x26; /* callee-saved */
  uint64_t x27; /* callee-saved */
  uint64_t x28; /* callee-saved */
  /* frame pointer, callee-saved; 0 in a new context: ends frame-record walks */
  uint64_t x29;
  /* link register: where this context goes on (its call's return address, or the trampoline) */
  uint64_t x30;
  uint64_t sp; /* stack pointer: which stack this context runs on */
  uint64_t d8; /* low 64 bits of v8-v15 are callee-saved (the upper halves are not) */
  uint64_t d9;
  uint64_t d10;
  uint64_t d11;
  uint64_t d12;
  uint64_t d13;
  uint64_t d14;
  uint64_t d15;
  /* FP control (rounding, FZ, DN, trap enables): only when the instance keeps its own */
  uint64_t fpcr;
};

_Static_assert(offsetof(struct coro_ctx, x19) == 0, "switch_aarch64.S: x19 at 0");
_Static_assert(offsetof(struct coro_ctx, x21) == 16, "switch_aarch64.S: x21 at 16");
_Static_assert(offsetof(struct coro_ctx, x23) == 32, "switch_aarch64.S: x23 at 32");
_Static_assert(offsetof(struct coro_ctx, x25) == 48, "switch_aarch64.S: x25 at 48");
_Static_assert(offsetof(struct coro_ctx, x27) == 64, "switch_aarch64.S: x27 at 64");
_Static_assert(offsetof(struct coro_ctx, x29) == 80, "switch_aarch64.S: x29 at 80");
_Static_assert(offsetof(struct coro_ctx, x30) == 88, "switch_aarch64.S: x30 at 88");
_Static_assert(offsetof(struct coro_ctx, sp) == 96, "switch_aarch64.S: sp at 96");
_Static_assert(offsetof(struct coro_ctx, d8) == 104, "switch_aarch64.S: d8 at 104");
_Static_assert(offsetof(struct coro_ctx, d10) == 120, "switch_aarch64.S: d10 at 120");
_Static_assert(offsetof(struct coro_ctx, d12) == 136, "switch_aarch64.S: d12 at 136");
_Static_assert(offsetof(struct coro_ctx, d14) == 152, "switch_aarch64.S: d14 at 152");
_Static_assert(offsetof(struct coro_ctx, fpcr) == 168, "switch_aarch64.S: fpcr at 168");
_Static_assert(sizeof(struct coro_ctx) == 176, "switch_aarch64.S: 176 bytes in all");

#define CORO_CTX_SWITCH_NAME "asm-aarch64"

/* The first switch into a new context "returns" into this (xv6's forkret):
   it calls x20's start routine with x19 as its argument. */
void coro_ctx_trampoline(void);

/* A new context: empty stack [stack, stack+size), FP control as the caller's
   now: the first resumer's, since the runtime makes the context at the first
   resume (the body computes as its resumer does, like a called function). */
static inline void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size, coro_ctx_fn *fn,
                                 void *arg) {
  uint64_t top = ((uint64_t)(uintptr_t)stack + size) & ~(uint64_t)15;
  *ctx = (struct coro_ctx){
      .x19 = (uint64_t)(uintptr_t)arg,
      .x20 = (uint64_t)(uintptr_t)fn,
      .x30 = (uint64_t)(uintptr_t)coro_ctx_trampoline,
      .sp = top, /* AAPCS64: sp is 16-aligned at all times */
  };
  __asm__ volatile("mrs %0, fpcr" : "=r"(ctx->fpcr));
}

/* }================================================================== */
#else
#error "no assembly context switch for this processor: build libcoro with -DCOROC_SWITCH=ucontext"
#endif

#if defined(CORO_SWITCH_UCONTEXT)
/* A new context that will run fn(arg) on the empty stack [stack, stack+size). */
void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size, coro_ctx_fn *fn, void *arg);
#endif

/* Elsewhere a context of the thread's FP environment is made as any other. */
#ifndef CORO_CTX_HAVE_INIT_THREAD_FP
#define coro_ctx_init_thread_fp coro_ctx_init
#endif

/* Save the running context in *from and continue the one in *to. Returns when
   something switches back to *from. from and to must differ; *to must be a
   context saved by an earlier switch or made by coro_ctx_init. */
void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);

/* The same, and each side keeps its own FP control (x86_64: MXCSR and x87
   control word; aarch64: FPCR; ucontext: the whole FP environment): the
   running side's is stored in *from and *to's loaded. coro_ctx_switch leaves
   the FP environment alone: it is the thread's. Both sides of a context
   must switch with the same one. */
void coro_ctx_switch_fpenv(struct coro_ctx *from, struct coro_ctx *to);

#if defined(__x86_64__) && !defined(CORO_SWITCH_UCONTEXT)
/* x86_64: the same, and interchangeable with it, but loading *to's control
   words always instead of only when they differ from ours (faster on AMD
   Zen: runtime/asm/switch_x86_64.S). */
void coro_ctx_switch_fpenv_load(struct coro_ctx *from, struct coro_ctx *to);
#endif

#endif /* CORO_CTX_H */
