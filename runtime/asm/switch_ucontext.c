/* switch_ucontext.c: the context switch on POSIX ucontext, for processors
 * without an assembly switch in runtime/asm/ and for comparison.
 *
 * Chosen at build time (CMake -DCOROC_SWITCH=ucontext, which defines
 * CORO_SWITCH_UCONTEXT). Same interface as the assembly (runtime/ctx.h), but
 * slower: glibc's swapcontext also saves and restores the signal mask, one
 * rt_sigprocmask system call per switch, and the whole FP environment.
 *
 * That FP environment is the thread's in coroc (runtime/ctx.h), so
 * coro_ctx_switch undoes what swapcontext did to it: the side that leaves
 * puts the environment in force into a thread-local, and the side that
 * goes on (after its swapcontext, or at its start) makes it current again.
 * coro_ctx_switch_fpenv, for instances that keep their own, is swapcontext
 * alone.
 */
#include "ctx.h"

#ifndef CORO_SWITCH_UCONTEXT
#error \
    "switch_ucontext.c is built only with -DCORO_SWITCH_UCONTEXT (CMake: -DCOROC_SWITCH=ucontext)"
#endif

#include "coro_internal.h"

#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>

static _Thread_local fenv_t tls_fenv;  /* the thread's FP environment, across a swapcontext */
static _Thread_local int tls_fenv_set; /* tls_fenv holds one (else: keep what is in force) */

/* makecontext passes only int arguments, so the context's own address goes
   in two halves; the start routine and its argument are read back from it. */
static void ucontext_entry(unsigned hi, unsigned lo) {
  struct coro_ctx *ctx = (struct coro_ctx *)(uintptr_t)(((uint64_t)hi << 32) | lo);
  if (ctx->thread_fenv && tls_fenv_set)
    fesetenv(&tls_fenv); /* the resumer's now, not the one getcontext took at coro_ctx_init */
  ctx->fn(ctx->arg);
  /* Like the assembly trampoline's trap: there is nothing to return to. */
  coro_fatal("coro_ctx_init", "the start routine of context %p returned", (void *)ctx);
}

void coro_ctx_init(struct coro_ctx *ctx, void *stack, size_t size, coro_ctx_fn *fn, void *arg) {
  if (getcontext(&ctx->uc) != 0) /* also takes the caller's FP environment and signal mask */
    coro_fatal("coro_ctx_init", "getcontext failed");
  ctx->uc.uc_stack.ss_sp = stack;
  ctx->uc.uc_stack.ss_size = size;
  ctx->uc.uc_link = NULL; /* returning is an error, caught in ucontext_entry */
  ctx->fn = fn;
  ctx->arg = arg;
  ctx->thread_fenv = 0;
  uint64_t self = (uint64_t)(uintptr_t)ctx;
  makecontext(&ctx->uc, (void (*)(void))ucontext_entry, 2, (unsigned)(self >> 32), (unsigned)self);
}

void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to) {
  fegetenv(&tls_fenv);
  tls_fenv_set = 1;
  to->thread_fenv = 1; /* at its start too, if this is the first switch into it */
  if (swapcontext(&from->uc, &to->uc) != 0)
    coro_fatal("coro_ctx_switch", "swapcontext failed");
  fesetenv(&tls_fenv); /* the environment the side that resumed us left in force */
}

void coro_ctx_switch_fpenv(struct coro_ctx *from, struct coro_ctx *to) {
  if (swapcontext(&from->uc, &to->uc) != 0)
    coro_fatal("coro_ctx_switch_fpenv", "swapcontext failed");
}
