/* The context switch for x86_64 (System V ABI), and the entry of a new context.
 *
 * A suspended context is five things (struct coro_ctx in <coro.h>, offsets
 * pinned there by _Static_assert): its stack pointer, the address it goes on
 * at, its frame pointer and its FP control (MXCSR, x87 control word). To
 * resume one: make its FP control current, load rsp and rbp, jump to rip.
 * Everything else a context needs is on its own stack or already spilled by
 * the compiler, which is what lets coro.h inline the switch into coro_next
 * and into yield (runtime/asm/README.md tells the whole story):
 *
 *   coro.h's inline switch   an asm statement that tells the compiler every
 *                            other register is clobbered, so the compiler
 *                            itself saves whatever it still needs; it saves
 *                            the five and resumes the other side.
 *   coro_ctx_switch (here)   the same for C code that calls it: as a called
 *                            function it must give rbx, r12-r15 back, so it
 *                            pushes them on its own stack before saving the
 *                            five, and pops them where it goes on.
 *
 * Both kinds of saved context resume the same way, so either side may
 * suspend with either one.
 */
        .text                                   # code section

/* void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);
 *
 * Save the running context in *from, resume *to; returns when something
 * resumes *from. from arrives in %rdi, to in %rsi. Only callee-saved state
 * needs saving: to its caller this is an ordinary call, so the compiler has
 * already spilled every caller-saved register it still needs (rax, rcx, rdx,
 * rsi, rdi, r8-r11, all vector registers).
 */
        .globl  coro_ctx_switch                 # called from stackful.c
        .hidden coro_ctx_switch                 # internal to libcoro: no PLT/GOT detour when built into a shared object
        .type   coro_ctx_switch, @function      # so debuggers and profilers show its name
        .p2align 4                              # start on a 16-byte line
coro_ctx_switch:                                # rdi = from, rsi = to; our return address is on top of the stack
        .cfi_startproc                          # unwind info, for debuggers
        pushq   %rbx                            # callee-saved registers the context itself does not hold:
        .cfi_adjust_cfa_offset 8                #   onto our own stack, where they wait until we go on
        pushq   %r12                            #   (rbp is in the context: coro.h's inline switch must
        .cfi_adjust_cfa_offset 8                #   save it too, since it may be the frame pointer,
        pushq   %r13                            #   which an asm statement cannot declare clobbered)
        .cfi_adjust_cfa_offset 8
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        leaq    1f(%rip), %rax                  # where from goes on: label 1 below, which pops them again
        movq    %rsp, 0x00(%rdi)                # from->rsp: our stack, with the five pushes on it
        movq    %rax, 0x08(%rdi)                # from->rip
        movq    %rbp, 0x10(%rdi)                # from->rbp: callee-saved (the frame pointer when one is used)
        stmxcsr 0x18(%rdi)                      # from->mxcsr: storing is cheap, so always
        fnstcw  0x1c(%rdi)                      # from->fpucw: likewise (fn: no wait for pending x87 exceptions)
        movl    0x18(%rdi), %eax                # the MXCSR in force now (read back at the size it was stored: forwards)
        xorl    0x18(%rsi), %eax                # the bits in which to's differs...
        testl   $~0x3f, %eax                    # ...among the control bits (6-15); bits 0-5 are sticky exception flags,
                                                # which the ABI does not preserve across calls: a flag raised on one side
                                                # (any inexact division) must not force a reload on every later switch
        jne     2f                              # only then pay for the loads: an ldmxcsr or fldcw that changes the value is slow
        movzwl  0x1c(%rdi), %eax                # the x87 control word in force now
        cmpw    0x1c(%rsi), %ax                 # does to's differ?
        jne     2f                              # likewise: reload only on a difference
        movq    0x00(%rsi), %rsp                # to's stack: from here on we run on it
        movq    0x10(%rsi), %rbp                # to's frame pointer (0 in a new context: ends frame-pointer walks)
        jmpq    *0x08(%rsi)                     # continue to: a jump, since to goes on where it stopped, not
                                                # where a call returns to (a ret here would always mispredict)
2:      ldmxcsr 0x18(%rsi)                      # to's SSE rounding, exception masks, FTZ/DAZ
        fldcw   0x1c(%rsi)                      # to's x87 precision, rounding and masks
        movq    0x00(%rsi), %rsp                # to's stack
        movq    0x10(%rsi), %rbp                # to's frame pointer
        jmpq    *0x08(%rsi)                     # continue to, as above

1:      popq    %r15                            # resumed: back on our stack, whoever resumed us; give our caller
        .cfi_adjust_cfa_offset -8               #   back the callee-saved registers we pushed
        popq    %r14
        .cfi_adjust_cfa_offset -8
        popq    %r13
        .cfi_adjust_cfa_offset -8
        popq    %r12
        .cfi_adjust_cfa_offset -8
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        retq                                    # and return to our caller. A ret, predicted right when the
                                                # other side kept its calls and returns balanced while we were
                                                # away, as the inline switch (no call) and the body do: the
                                                # return-stack predictor still holds our call's return address
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_switch, .-coro_ctx_switch # its size, for symbolizers

/* void coro_ctx_trampoline(void);   -- never called: a new context's rip
 *
 * The first resume of a context made by coro_ctx_init jumps here with the
 * start routine's argument and the routine itself on top of the new stack
 * (coro_ctx_init put them there); call fn(arg), which must never return.
 */
        .globl  coro_ctx_trampoline             # coro_ctx_init (ctx.h, inline in stackful.c) takes its address
        .hidden coro_ctx_trampoline             # internal to libcoro
        .type   coro_ctx_trampoline, @function  # so debuggers and profilers show its name
        .p2align 4                              # 16-byte line
coro_ctx_trampoline:                            # rsp = top of the new stack - 16: arg, then fn
        .cfi_startproc                          # unwind info, so that gdb can show this frame
        .cfi_undefined %rip                     # the outermost frame of this stack: unwinders and gdb's bt stop here
        popq    %rdi                            # first argument: arg
        popq    %rax                            # the start routine; rsp is now the top of the stack, 16-aligned
        callq   *%rax                           # fn(arg): enters with rsp+8 16-aligned, as the ABI says
        ud2                                     # fn returned, but there is nothing to return to: trap (SIGILL) at once
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_trampoline, .-coro_ctx_trampoline # its size, for symbolizers

        .section .note.GNU-stack,"",@progbits   # this code needs no executable stack
