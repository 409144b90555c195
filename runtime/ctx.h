/* ctx.h: the saved registers of a stackful context, and the switch between two.
 *
 * A context is what a suspended stack needs to go on: its stack pointer, the
 * address to continue at, and the registers the ABI says a called function
 * must give back unchanged (callee-saved). Caller-saved registers need no
 * slot: a switch is an ordinary call to coro_ctx_switch, so the compiler has
 * already saved whatever of them it still needs before calling it.
 *
 * Field order equals the offsets that runtime/asm/switch_<arch>.S uses; the
 * _Static_asserts below pin them, so changing one side without the other
 * does not compile. runtime/asm/README.md draws the initial frame of a new
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
 * exports (CONTRACT §1); ctx is the layer.
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
  ucontext_t uc;       /* everything swapcontext saves: registers, FP environment, signal mask */
  coro_ctx_fn *fn;     /* start routine, read once by the ucontext entry */
  void *arg;           /* its argument: makecontext passes only ints, so it goes through here */
  int ret;             /* what coro_ctx_switch returns when this context goes on */
};

#define CORO_CTX_SWITCH_NAME "ucontext"

/* }================================================================== */
#elif defined(__x86_64__)
/* {==================================================================
 * x86_64, System V ABI (runtime/asm/switch_x86_64.S)
 * =================================================================== */
struct coro_ctx {
  uint64_t rsp;        /* stack pointer: which stack this context runs on (as before the call to the switch) */
  uint64_t rip;        /* where it goes on: the return address of its call to the switch, or the trampoline */
  uint64_t rbx;        /* callee-saved; holds the start routine's argument in a new context */
  uint64_t rbp;        /* callee-saved (the frame pointer when one is used); 0 in a new context: ends frame-pointer walks */
  uint64_t r12;        /* callee-saved; holds the start routine in a new context */
  uint64_t r13;        /* callee-saved */
  uint64_t r14;        /* callee-saved */
  uint64_t r15;        /* callee-saved */
  uint32_t mxcsr;      /* SSE control/status: its control bits (rounding, exception masks, FTZ/DAZ) are callee-saved; its status flags are not */
  uint16_t fpucw;      /* x87 control word (precision, rounding, masks): callee-saved */
  uint16_t ret;        /* what coro_ctx_switch returns when this context goes on (set by the side switching to it) */
};

_Static_assert(offsetof(struct coro_ctx, rsp) == 0x00, "switch_x86_64.S: rsp at 0x00");
_Static_assert(offsetof(struct coro_ctx, rip) == 0x08, "switch_x86_64.S: rip at 0x08");
_Static_assert(offsetof(struct coro_ctx, rbx) == 0x10, "switch_x86_64.S: rbx at 0x10");
_Static_assert(offsetof(struct coro_ctx, rbp) == 0x18, "switch_x86_64.S: rbp at 0x18");
_Static_assert(offsetof(struct coro_ctx, r12) == 0x20, "switch_x86_64.S: r12 at 0x20");
_Static_assert(offsetof(struct coro_ctx, r13) == 0x28, "switch_x86_64.S: r13 at 0x28");
_Static_assert(offsetof(struct coro_ctx, r14) == 0x30, "switch_x86_64.S: r14 at 0x30");
_Static_assert(offsetof(struct coro_ctx, r15) == 0x38, "switch_x86_64.S: r15 at 0x38");
_Static_assert(offsetof(struct coro_ctx, mxcsr) == 0x40, "switch_x86_64.S: mxcsr at 0x40");
_Static_assert(offsetof(struct coro_ctx, fpucw) == 0x44, "switch_x86_64.S: fpucw at 0x44");
_Static_assert(offsetof(struct coro_ctx, ret) == 0x46, "switch_x86_64.S: ret at 0x46");
_Static_assert(sizeof(struct coro_ctx) == 0x48, "switch_x86_64.S: 0x48 bytes in all");

#define CORO_CTX_SWITCH_NAME "asm-x86_64"

/* The first switch into a new context "returns" into this (xv6's forkret):
   it calls rbx's start routine r12 with rbx as its argument. */
void coro_ctx_trampoline(void);

/* A new context: empty stack [stack, stack+size), FP control as the caller's
   now (a new coroutine computes as its creator does, like a called function). */
static inline void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size,
                                 coro_ctx_fn *fn, void *arg) {
  uint64_t top = ((uint64_t)(uintptr_t)stack + size) & ~(uint64_t)15;
  *ctx = (struct coro_ctx){
    .rsp = top,   /* 16-aligned: the trampoline's call then enters fn as the ABI requires */
    .rip = (uint64_t)(uintptr_t)coro_ctx_trampoline,
    .rbx = (uint64_t)(uintptr_t)arg,
    .r12 = (uint64_t)(uintptr_t)fn,
  };
  __asm__ volatile("stmxcsr %0" : "=m"(ctx->mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(ctx->fpucw));
}

/* }================================================================== */
#elif defined(__aarch64__)
/* {==================================================================
 * aarch64, AAPCS64 (runtime/asm/switch_aarch64.S)
 * =================================================================== */
struct coro_ctx {
  uint64_t x19;        /* callee-saved; holds the start routine's argument in a new context */
  uint64_t x20;        /* callee-saved; holds the start routine in a new context */
  uint64_t x21;        /* callee-saved */
  uint64_t x22;        /* callee-saved */
  uint64_t x23;        /* callee-saved */
  uint64_t x24;        /* callee-saved */
  uint64_t x25;        /* callee-saved */
  uint64_t x26;        /* callee-saved */
  uint64_t x27;        /* callee-saved */
  uint64_t x28;        /* callee-saved */
  uint64_t x29;        /* frame pointer, callee-saved; 0 in a new context: ends frame-record walks */
  uint64_t x30;        /* link register: where this context goes on (its call's return address, or the trampoline) */
  uint64_t sp;         /* stack pointer: which stack this context runs on */
  uint64_t d8;         /* low 64 bits of v8-v15 are callee-saved (the upper halves are not) */
  uint64_t d9;
  uint64_t d10;
  uint64_t d11;
  uint64_t d12;
  uint64_t d13;
  uint64_t d14;
  uint64_t d15;
  uint64_t fpcr;       /* FP control (rounding, FZ, DN, trap enables): callee-saved */
  uint64_t ret;        /* what coro_ctx_switch returns when this context goes on (set by the side switching to it) */
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
_Static_assert(offsetof(struct coro_ctx, ret) == 176, "switch_aarch64.S: ret at 176");
_Static_assert(sizeof(struct coro_ctx) == 184, "switch_aarch64.S: 184 bytes in all");

#define CORO_CTX_SWITCH_NAME "asm-aarch64"

/* The first switch into a new context "returns" into this (xv6's forkret):
   it calls x20's start routine with x19 as its argument. */
void coro_ctx_trampoline(void);

/* A new context: empty stack [stack, stack+size), FP control as the caller's
   now (a new coroutine computes as its creator does, like a called function). */
static inline void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size,
                                 coro_ctx_fn *fn, void *arg) {
  uint64_t top = ((uint64_t)(uintptr_t)stack + size) & ~(uint64_t)15;
  *ctx = (struct coro_ctx){
    .x19 = (uint64_t)(uintptr_t)arg,
    .x20 = (uint64_t)(uintptr_t)fn,
    .x30 = (uint64_t)(uintptr_t)coro_ctx_trampoline,
    .sp = top,   /* AAPCS64: sp is 16-aligned at all times */
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

/* Save the running context in *from and continue the one in *to. Returns when
   something switches back to *from. from and to must differ; *to must be a
   context saved by an earlier switch or made by coro_ctx_init. */
bool coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);

#endif /* CORO_CTX_H */
