/* regs.c: the context switch keeps every callee-saved register of each side,
 * and coro_ctx_switch_fpenv the FP control state of each side too
 * (runtime/ctx.h, runtime/asm/).
 *
 * Two contexts, main and a coroutine on a stack of its own, switch back and
 * forth through regs_probe (regs_<arch>.S), which fills all callee-saved
 * integer and floating-point registers and the FP control (MXCSR and x87
 * control word / FPCR) with patterns of its own seed right before calling
 * coro_ctx_switch, and checks them right after it returns. The two sides use
 * different seeds, so a register the switch forgot arrives with the other
 * side's pattern. The rounding modes sometimes differ and sometimes agree, to
 * take both paths of the conditional FP-control reload. The test runs twice:
 * with coro_ctx_switch, which leaves the FP control to the thread (so the
 * probe's FP bits are expected to change: the other side's pattern is in
 * force, and that is checked too), then with coro_ctx_switch_fpenv, and on
 * x86_64 with coro_ctx_switch_fpenv_load, which loads always.
 *
 *   regs          run the test; prints "OK"
 *   regs return   a start routine that returns: must trap, not run on
 */
#include "ctx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) && !defined(CORO_SWITCH_UCONTEXT)
#define CORO_CTX_SWITCH_FPENV_LOAD_TESTED 1
#endif

uint64_t regs_probe(uint64_t seed, struct coro_ctx *from, struct coro_ctx *to,
                    void (*sw)(struct coro_ctx *from, struct coro_ctx *to));

#define ROUNDS 1000
#define STACK_SIZE (64 * 1024)

static struct coro_ctx main_ctx, co_ctx;
static void (*sw)(struct coro_ctx *from, struct coro_ctx *to);   /* the switch under test */
#if defined(__aarch64__)
#define FP_BITS ((uint64_t)1 << 19)   /* regs_probe's bit for FPCR */
#else
#define FP_BITS ((uint64_t)3 << 6)    /* regs_probe's bits for MXCSR and the x87 control word */
#endif
static uint64_t co_failed;    /* the registers the coroutine's probes saw change */
static int co_rounds;
static int co_misaligned;     /* the start routine began with a misaligned frame */

/* Seeds: distinct high halves for the two sides; bits 0-3 pick rounding, FTZ
   and x87 precision, agreeing with the other side's now and then. */
static uint64_t main_seed(int i) {
  return 0x1111111100000000u + ((uint64_t)i << 8) + (uint64_t)(i & 15);
}

static uint64_t co_seed(int i) {
  return 0x2222222200000000u + ((uint64_t)i << 8) + (uint64_t)((i >> 1) & 15);
}

static void co_main(void *arg) {
  (void)arg;
  /* The trampoline must enter us as a call would: frame 16-byte aligned
     (compiled with -fno-omit-frame-pointer, so this is the frame record). */
  if ((uintptr_t)__builtin_frame_address(0) % 16 != 0)
    co_misaligned = 1;
  for (int i = 0;; i++) {
    co_failed |= regs_probe(co_seed(i), &co_ctx, &main_ctx, sw);
    co_rounds++;
  }
}

static void returning_main(void *arg) {
  (void)arg;   /* returns: the trampoline has nothing to return to */
}

static void *map_stack(void) {
  void *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  return stack;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "return") == 0) {
    coro_ctx_init(&co_ctx, map_stack(), STACK_SIZE, returning_main, NULL);
    fflush(stdout);
    coro_ctx_switch(&main_ctx, &co_ctx);
    printf("the start routine returned and the program went on\n");
    return 0;
  }
  printf("switch: %s\n", CORO_CTX_SWITCH_NAME);
  int failed = 0;
#ifdef CORO_CTX_SWITCH_FPENV_LOAD_TESTED
  enum { SWITCHES = 3 };   /* x86_64: and coro_ctx_switch_fpenv_load, which always loads */
#else
  enum { SWITCHES = 2 };
#endif
  for (int own = 0; own < SWITCHES; own++) {
    sw = own == 0 ? coro_ctx_switch : coro_ctx_switch_fpenv;
#ifdef CORO_CTX_SWITCH_FPENV_LOAD_TESTED
    if (own == 2)
      sw = coro_ctx_switch_fpenv_load;
#endif
    co_failed = 0;
    co_rounds = 0;
    coro_ctx_init(&co_ctx, map_stack(), STACK_SIZE, co_main, NULL);
    uint64_t main_failed = 0;
    for (int i = 0; i < ROUNDS; i++)
      main_failed |= regs_probe(main_seed(i), &main_ctx, &co_ctx, sw);
    const char *name = own == 0 ? "coro_ctx_switch" : own == 1 ? "coro_ctx_switch_fpenv" : "coro_ctx_switch_fpenv_load";
    printf("%s: main: %d switches, lost registers mask %#llx\n", name, ROUNDS,
           (unsigned long long)main_failed);
    printf("%s: coroutine: %d switches back, lost registers mask %#llx\n", name, co_rounds,
           (unsigned long long)co_failed);
    /* The FP control is the thread's with coro_ctx_switch: each side comes
       back to the other's pattern, which differs from its own in most rounds. */
    uint64_t expect_fp = own ? 0 : FP_BITS;
    if ((main_failed & ~FP_BITS) || (co_failed & ~FP_BITS) ||
        (main_failed & FP_BITS) != expect_fp || (co_failed & FP_BITS) != expect_fp ||
        co_rounds != ROUNDS - 1 || co_misaligned) {
      printf("FAILED%s\n", co_misaligned ? " (misaligned start)" : "");
      failed = 1;
    }
  }
  if (failed)
    return 1;
  printf("OK\n");
  return 0;
}
