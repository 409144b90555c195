/* coro/switch_x86_64.h: the stackful switch of x86_64, inline.
 *
 * Not for users: <coro/gen.h> includes it on x86_64 (unless the ucontext
 * switch is asked for), for the coro_next and yield of the generated code
 * and for libcoro's own runtime/stackful.c. Here are the context of a
 * stackful instance and the asm statements that switch between two, in a
 * header of their own: they are the one part of gen.h written for one
 * processor.
 *
 * A stackful context that is not running is its stack pointer: on top of
 * that stack lie the address where it goes on and its frame pointer, pushed
 * by whoever suspended it. To resume one, load rsp, pop the two and jump:
 * a jump, not a ret, because the processor predicts a ret from the return
 * addresses its own calls pushed, and this one was pushed on another stack
 * (docs/abi.md, "The stackful switch"). Everything else it needs is on its
 * own stack, or in registers that the code around the switch saved itself:
 * the switch below is an asm statement that tells the compiler it clobbers
 * every other register, so the compiler spills just what is live across
 * it, and coro_next and yield switch stacks with no call at all. The
 * runtime's assembly (runtime/asm/switch_x86_64.S) saves and resumes
 * contexts in the same shape, so a context saved by either is resumed by
 * either.
 *
 * The floating-point environment (MXCSR, x87 control word) belongs to the
 * thread, as in the stackless backend: the switch leaves it alone. An
 * instance made to keep its own (coro_set_fpenv) is marked
 * CORO_INLINE_SWITCH_FPENV and switched by the second form, which stores the
 * running side's in its context and loads the other side's, as
 * boost.context does. runtime/asm/README.md tells why and what each costs.
 */
#ifndef CORO_SWITCH_X86_64_H
#define CORO_SWITCH_X86_64_H

#ifndef CORO_GEN_H
#error "include <coro.h>, which includes <coro/switch_x86_64.h> through <coro/gen.h>"
#endif

struct coro_ctx {
  uint64_t rsp; /* stack pointer; [rsp] = where it goes on, [rsp + 8] = its rbp */
  /* SSE control (rounding, exception masks, FTZ/DAZ): only when the instance keeps its own */
  uint32_t mxcsr;
  uint16_t fpucw; /* x87 control word (precision, rounding, masks): likewise */
  uint16_t unused;
};
CORO_STATIC_ASSERT(__builtin_offsetof(struct coro_ctx, rsp) == 0x00,
                   "switch_x86_64.S: rsp at 0x00");
CORO_STATIC_ASSERT(__builtin_offsetof(struct coro_ctx, mxcsr) == 0x08,
                   "switch_x86_64.S: mxcsr at 0x08");
CORO_STATIC_ASSERT(__builtin_offsetof(struct coro_ctx, fpucw) == 0x0c,
                   "switch_x86_64.S: fpucw at 0x0c");
CORO_STATIC_ASSERT(sizeof(struct coro_ctx) == 0x10, "switch_x86_64.S: 0x10 bytes in all");

/* Inline only where it can be: GCC or clang (the asm statement), and not
   under AddressSanitizer or ThreadSanitizer, whose fiber annotations must
   surround every switch (the runtime's out-of-line switch has them).
   CORO_NO_INLINE_SWITCH turns it off by hand. Whatever this says, the
   runtime marks an instance as one to switch inline (CORO_INLINE_SWITCH_MARK)
   only when it was built with this switch, so a program and a libcoro built
   differently still agree. */
#if defined(__GNUC__) && !defined(CORO_NO_INLINE_SWITCH) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#if !defined(__has_feature)
#define CORO_INLINE_SWITCH 1
#elif !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define CORO_INLINE_SWITCH 1
#endif
#endif

#ifdef CORO_INLINE_SWITCH
/* The asm text lines up in columns as runtime/asm/switch_x86_64.S does: no formatter. */
/* clang-format off */
/* The switch proper, as text for the asm statements below: save the running
   context in *rdi, resume *rsi. Line by line as coro_ctx_switch in
   runtime/asm/switch_x86_64.S, which comments each one. The running context
   goes on at label 1, which each statement puts right after it. The caller
   has stepped over the red zone (the 128 bytes below rsp where the code
   around may keep data), since the pushes write there. */
#define CORO_SWITCH_ASM CORO_SWITCH_ASM_COLD("")

/* The same, with COLD placed after the jump that resumes the other side,
   where nothing falls into it: the rare path of the next form. */
#define CORO_SWITCH_ASM_COLD(COLD)                                                     \
  CORO_SWITCH_VZEROUPPER                                                               \
  "movq    0x00(%%rsi), %%rdx\n\t" /* to's stack pointer, before from's is stored */    \
  "pushq   %%rbp\n\t"              /* from's frame pointer */                          \
  "leaq    1f(%%rip), %%rax\n\t"   /* from goes on at label 1... */                    \
  "pushq   %%rax\n\t"              /* ...which its resumer pops */                     \
  "movq    %%rsp, 0x00(%%rdi)\n\t" /* from->rsp */                                     \
  "movq    %%rdx, %%rsp\n\t"       /* to's stack */                                    \
  "popq    %%rax\n\t"              /* where to goes on */                              \
  "popq    %%rbp\n\t"              /* to's frame pointer */                            \
  "jmpq    *%%rax\n"               /* go on in to: a jump, never a ret */              \
  COLD                                                                                 \
  "1:\n\t"                                                                             \
  CORO_SWITCH_ENDBR

/* The same, keeping each side's FP control: from's stored; to's made the one
   in force, loading only what differs from from's (the loads are the slow
   part; the common case, both sides in one environment, loads nothing).
   Line by line as coro_ctx_switch_fpenv in runtime/asm/switch_x86_64.S,
   the loads out of the way after the jump. For an instance marked
   CORO_INLINE_SWITCH_FPENV. */
#define CORO_SWITCH_FPENV_ASM                                                          \
  "stmxcsr 0x08(%%rdi)\n\t"        /* from->mxcsr */                                   \
  "fnstcw  0x0c(%%rdi)\n\t"        /* from->fpucw */                                   \
  "movl    0x08(%%rdi), %%eax\n\t" /* MXCSR bits that differ */                        \
  "xorl    0x08(%%rsi), %%eax\n\t"                                                     \
  "movzwl  0x0c(%%rdi), %%ecx\n\t" /* x87 control bits that differ */                  \
  "xorw    0x0c(%%rsi), %%cx\n\t"                                                      \
  "orl     %%eax, %%ecx\n\t"                                                           \
  "jnz     2f\n"                   /* any: load them (below, out of the way) */        \
  "3:\n\t"                                                                             \
  CORO_SWITCH_ASM_COLD(                                                                \
  "2:\n\t"                                                                             \
  "testl   %%eax, %%eax\n\t"       /* MXCSR differs: */                                \
  "jz      4f\n\t"                                                                     \
  "ldmxcsr 0x08(%%rsi)\n"                                                              \
  "4:\n\t"                                                                             \
  "movzwl  0x0c(%%rdi), %%ecx\n\t" /* x87 control differs: */                          \
  "cmpw    0x0c(%%rsi), %%cx\n\t"                                                      \
  "je      3b\n\t"                                                                     \
  "fldcw   0x0c(%%rsi)\n\t"                                                            \
  "jmp     3b\n")

/* The same, loading always, as boost.context does: faster on AMD Zen, where
   the read-back above waits for stmxcsr's store to reach the cache. For an
   instance marked CORO_INLINE_SWITCH_FPENV_LOAD (coro_ctx_switch_fpenv_load
   out of line). */
#define CORO_SWITCH_FPENV_LOAD_ASM                                                     \
  "stmxcsr 0x08(%%rdi)\n\t"        /* from->mxcsr */                                   \
  "fnstcw  0x0c(%%rdi)\n\t"        /* from->fpucw */                                   \
  "ldmxcsr 0x08(%%rsi)\n\t"        /* to's SSE control */                              \
  "fldcw   0x0c(%%rsi)\n\t"        /* to's x87 control */                              \
  CORO_SWITCH_ASM

/* Code built for AVX leaves the upper halves of the vector registers clean
   at every call (a vzeroupper), so that code using the older SSE encodings
   does not pay for merging them; the switch does what a call would, since
   it clobbers all vector registers anyway. */
#ifdef __AVX__
#define CORO_SWITCH_VZEROUPPER "vzeroupper\n\t"
#else
#define CORO_SWITCH_VZEROUPPER
#endif

/* Label 1 is the target of an indirect jump: under indirect-branch tracking
   (-fcf-protection) it must begin with endbr64. */
#if defined(__CET__) && (__CET__ & 1)
#define CORO_SWITCH_ENDBR "endbr64\n\t"
#else
#define CORO_SWITCH_ENDBR
#endif

/* What a call clobbers: every caller-saved register (all vector registers,
   AVX-512's masks, the x87/MMX stack), the flags and memory. */
#ifdef __AVX512F__
#define CORO_CLOBBERS_AVX512                                                          \
  "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",    \
  "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",                      \
  "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7",
#else
#define CORO_CLOBBERS_AVX512
#endif
#define CORO_CLOBBERS_CALL                                                             \
  "rax", "rcx", "rdx", "r8", "r9", "r10", "r11",                                       \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",                      \
  "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",                \
  CORO_CLOBBERS_AVX512                                                                 \
  "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)",                 \
  "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7", "cc", "memory"

/* Every switch, inline or runtime/asm/switch_x86_64.S's, has `from` in rdi
   and `to` in rsi when it jumps, and `to` is where it lands: so the side
   that goes on finds its own context in rsi, and the instance a fixed
   distance before it. A yield and coro_next make the instance again from
   rsi (below), rather than from a register the switch popped, which would
   wait for the stack pointer the switch loaded: on an AMD EPYC of family
   23 that took a generator's round trip from 9.4 to 8.4 ns
   (runtime/asm/README.md). */

/* Inside a stackful body (yield): the asm says it clobbers the callee-saved
   registers too (all but rbp, which the switch pushes), so the compiler
   saves only what is live across the yield, and nothing else is saved.
   `arrived` is then the body's own context, as its resumer left it in rsi. */
#define CORO_SWITCH_INLINE_ARRIVE(from, to, SWITCH, arrived)                            \
  do {                                                                                 \
    struct coro_ctx *rdi_ = (from), *rsi_ = (to);  /* the asm leaves the other side's in them */ \
    __asm__ volatile("leaq    -128(%%rsp), %%rsp\n\t"                                  \
                     SWITCH                                                            \
                     "leaq    128(%%rsp), %%rsp"                                       \
                     : "+D"(rdi_), "+S"(rsi_)                                          \
                     :                                                                 \
                     : "rbx", "r12", "r13", "r14", "r15", CORO_CLOBBERS_CALL);         \
    (arrived) = rsi_;                                                                  \
  } while (0)

/* In the resumer (coro_next), the same switch, shaped like a call: it keeps
   r12-r15 itself, on the resumer's stack, so that the code around it may
   keep its values in them as across any call. (Declaring them clobbered
   here would make every loop that calls coro_next keep its variables in
   memory, stackless instances or not.) The instance `gen` is in rbx, which
   it does not keep: on arrival it makes it again from rsi, the resumer's
   context, `back` bytes into the instance. */
#define CORO_SWITCH_INLINE_NEXT(from, to, SWITCH, gen, back)                            \
  do {                                                                                 \
    struct coro_ctx *rdi_ = (from), *rsi_ = (to);                                      \
    __asm__ volatile("leaq    -128(%%rsp), %%rsp\n\t"                                  \
                     "pushq   %%r12\n\t"                                               \
                     "pushq   %%r13\n\t"                                               \
                     "pushq   %%r14\n\t"                                               \
                     "pushq   %%r15\n\t"                                               \
                     SWITCH                                                            \
                     "leaq    -%c[back_](%%rsi), %%rbx\n\t" /* gen, again */            \
                     "popq    %%r15\n\t"                                               \
                     "popq    %%r14\n\t"                                               \
                     "popq    %%r13\n\t"                                               \
                     "popq    %%r12\n\t"                                               \
                     "leaq    128(%%rsp), %%rsp"                                       \
                     : "+D"(rdi_), "+S"(rsi_)                                          \
                     : "b"(gen), [back_] "i"(back)                                     \
                     : CORO_CLOBBERS_CALL);                                            \
  } while (0)
/* clang-format on */
#endif /* CORO_INLINE_SWITCH */

#endif /* CORO_SWITCH_X86_64_H */
