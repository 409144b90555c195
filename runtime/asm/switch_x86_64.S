/* void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);
 *
 * Save the callee-saved state of the running context in *from, load *to's,
 * and continue where *to last called this function (or at its trampoline).
 *
 * x86_64, System V ABI. from arrives in %rdi, to in %rsi. Offsets are those
 * of struct coro_ctx in runtime/ctx.h (pinned there by _Static_assert); the
 * table of what is saved and why is in runtime/asm/README.md.
 *
 * Only callee-saved state is saved: to the C code around it this is an
 * ordinary call, so the compiler has already spilled every caller-saved
 * register it still needs (rax, rcx, rdx, rsi, rdi, r8-r11, all xmm).
 */
        .text                                   # code section
        .globl  coro_ctx_switch                 # called from stackful.c
        .hidden coro_ctx_switch                 # internal to libcoro: no PLT/GOT detour when built into a shared object
        .type   coro_ctx_switch, @function      # so debuggers and profilers show its name
        .p2align 4                              # start on a 16-byte line: it is on every resume's path
coro_ctx_switch:                                # rdi = from, rsi = to
        .cfi_startproc                          # unwind info up to the stack swap, for debuggers
        popq    %rdx                            # take our return address off the stack: we leave with jmp, not ret (see below)
        .cfi_adjust_cfa_offset -8               # the return address is no longer on the stack...
        .cfi_register %rip, %rdx                # ...it is in rdx
        movq    %rsp, 0x00(%rdi)                # from->rsp: the caller's stack pointer as it was before its call
        movq    %rdx, 0x08(%rdi)                # from->rip: where from goes on when switched back to
        movq    %rbx, 0x10(%rdi)                # callee-saved
        movq    %rbp, 0x18(%rdi)                # callee-saved (frame pointer)
        movq    %r12, 0x20(%rdi)                # callee-saved
        movq    %r13, 0x28(%rdi)                # callee-saved
        movq    %r14, 0x30(%rdi)                # callee-saved
        movq    %r15, 0x38(%rdi)                # callee-saved
        stmxcsr 0x40(%rdi)                      # from->mxcsr: storing is cheap, so always
        fnstcw  0x44(%rdi)                      # from->fpucw: likewise (fn: no wait for pending x87 exceptions)

        movq    0x00(%rsi), %rsp                # to's stack: from here on we run on it
        movq    0x10(%rsi), %rbx                # restore to's callee-saved registers
        movq    0x18(%rsi), %rbp                # (rbp = 0 in a new context: stops frame-pointer unwinding)
        movq    0x20(%rsi), %r12                # callee-saved (the start routine in a new context)
        movq    0x28(%rsi), %r13                # callee-saved
        movq    0x30(%rsi), %r14                # callee-saved
        movq    0x38(%rsi), %r15                # callee-saved
        movl    0x40(%rdi), %eax                # the mxcsr in force now (read back at the size it was stored: forwards)
        xorl    0x40(%rsi), %eax                # the bits in which to's differs...
        testl   $~0x3f, %eax                    # ...among the control bits (6-15); bits 0-5 are sticky exception flags,
                                                # which the ABI does not preserve across calls: a flag raised on one side
                                                # (any inexact division) must not force a reload on every later switch
        jne     1f                              # only then pay for the loads: ldmxcsr/fldcw that change the value stall
        movzwl  0x44(%rdi), %eax                # the x87 control word in force now
        cmpw    0x44(%rsi), %ax                 # does to's differ?
        jne     1f                              # likewise: reload only on a difference
        movzwl  0x46(%rsi), %eax                # the value the switch returns in to: to->ret
        jmpq    *0x08(%rsi)                     # continue to: an indirect jump, not ret, because we return into another
                                                # context than our caller's; ret would pop the return-stack predictor's
                                                # entry for our call and mispredict on every switch
1:      ldmxcsr 0x40(%rsi)                      # to's SSE rounding, exception masks, FTZ/DAZ
        fldcw   0x44(%rsi)                      # to's x87 precision, rounding and masks
        movzwl  0x46(%rsi), %eax                # the value the switch returns in to: to->ret
        jmpq    *0x08(%rsi)                     # continue to, as above
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_switch, .-coro_ctx_switch # its size, for symbolizers

/* void coro_ctx_trampoline(void);   -- never called: a new context's rip
 *
 * The first switch into a context made by coro_ctx_init jumps here with
 * rsp = top of the new stack (16-byte aligned), rbx = arg, r12 = fn; call
 * fn(arg), which must never return.
 */
        .globl  coro_ctx_trampoline             # coro_ctx_init (ctx.h, inline in stackful.c) takes its address
        .hidden coro_ctx_trampoline             # internal to libcoro
        .type   coro_ctx_trampoline, @function  # so debuggers and profilers show its name
        .p2align 4                              # 16-byte line
coro_ctx_trampoline:                            # rsp = top of the new stack, rbx = arg, r12 = fn
        .cfi_startproc                          # unwind info, so that gdb can show this frame
        .cfi_undefined %rip                     # the outermost frame of this stack: unwinders and gdb's bt stop here
        movq    %rbx, %rdi                      # first argument: arg
        callq   *%r12                           # fn(arg); rsp is 16-aligned here, so fn starts with rsp+8 aligned, as the ABI says
        ud2                                     # fn returned, but there is nothing to return to: trap (SIGILL) at once
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_trampoline, .-coro_ctx_trampoline # its size, for symbolizers

        .section .note.GNU-stack,"",@progbits   # this code needs no executable stack
