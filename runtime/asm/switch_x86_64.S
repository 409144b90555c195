/* The context switch for x86_64 (System V ABI), and the entry of a new context.
 *
 * A suspended context is its stack pointer (struct coro_ctx in <coro.h>,
 * offsets pinned there by _Static_assert). On top of that stack lie the two
 * things every context needs to go on, pushed when it was suspended:
 *
 *      [rsp + 0]   where it goes on
 *      [rsp + 8]   its frame pointer (rbp)
 *
 * To resume one: load rsp, pop the two, jump. Everything else a context
 * needs is below them on its own stack or already spilled by the compiler,
 * which is what lets coro/gen.h inline the switch into coro_next and into yield
 * (runtime/asm/README.md tells the whole story):
 *
 *   gen.h's inline switch    an asm statement that tells the compiler every
 *                            other register is clobbered, so the compiler
 *                            itself saves whatever it still needs; it pushes
 *                            the two and resumes the other side.
 *   coro_ctx_switch (here)   the same for C code that calls it: as a called
 *                            function it must give rbx, r12-r15 back, so it
 *                            pushes them on its own stack first, and pops
 *                            them where it goes on.
 *
 * Both kinds of saved context resume the same way, so either side may
 * suspend with either one.
 *
 * No ret anywhere on the way: a ret is predicted from the return-stack
 * buffer, which holds the return addresses of the calls this core made,
 * whichever stack they were on. The address a switch goes on at was pushed
 * on the other stack, by a call the buffer saw long ago or never: a ret
 * there mispredicts on every switch (about 10 ns on AMD Zen, less on Intel,
 * whose ret falls back to the indirect-branch predictor). A pop and an
 * indirect jump are predicted by the branch target buffer from where the
 * jump is, which does not change.
 *
 * The floating-point environment (MXCSR, x87 control word) is the thread's,
 * so coro_ctx_switch leaves it alone; coro_ctx_switch_fpenv, for instances
 * that keep their own (coro_set_fpenv), exchanges the control state first
 * (and coro_ctx_switch_fpenv_load, which always loads, for AMD).
 */
        .text                                   # code section

/* void coro_ctx_switch_fpenv(struct coro_ctx *from, struct coro_ctx *to);
 * void coro_ctx_switch_fpenv_load(struct coro_ctx *from, struct coro_ctx *to);
 *
 * coro_ctx_switch, keeping each side's FP control: store ours (MXCSR, x87
 * control word) in *from, make *to's (stored by its own switch out, or by
 * coro_ctx_init) the one in force, then switch. Both sides of such a switch
 * must use one of these (or coro/gen.h's CORO_SWITCH_FPENV_ASM or
 * CORO_SWITCH_FPENV_LOAD_ASM, which do the same inline): the other switch
 * never writes the two fields. The two are interchangeable; which is faster
 * depends on the processor, and the runtime picks one (stackful.c,
 * fpenv_compare):
 *
 *   _fpenv       loads only what differs. The stores are cheap, the loads
 *                are not (ldmxcsr and fldcw are microcoded and partly
 *                serializing): reading back what was just stored and
 *                comparing it with to's costs a few cycles where the
 *                store forwards to the load (Intel), and saves both loads
 *                in the common case, both sides in one environment.
 *   _fpenv_load  loads both, always, as boost.context does. On AMD Zen
 *                the read-back cannot be forwarded from stmxcsr's store
 *                and waits for it to reach the cache (measured: 16.4 ns
 *                a round trip against 10.4 for loading always, on a
 *                Zen 4), while loading an unchanged value is cheap there.
 */
        .globl  coro_ctx_switch_fpenv           # called from stackful.c
        .hidden coro_ctx_switch_fpenv           # internal to libcoro: no PLT/GOT detour when built into a shared object
        .type   coro_ctx_switch_fpenv, @function # so debuggers and profilers show its name
        .p2align 4                              # start on a 16-byte line
coro_ctx_switch_fpenv:                          # rdi = from, rsi = to
        .cfi_startproc                          # unwind info, for debuggers
        stmxcsr 0x08(%rdi)                      # from->mxcsr: our SSE rounding, exception masks and flags, FTZ/DAZ
        fnstcw  0x0c(%rdi)                      # from->fpucw: our x87 precision, rounding, masks (fn: no wait)
        movl    0x08(%rdi), %eax                # read back at the size stored (so the store can forward)...
        xorl    0x08(%rsi), %eax                # ...the bits where to's MXCSR differs
        movzwl  0x0c(%rdi), %ecx                # our x87 control word
        xorw    0x0c(%rsi), %cx                 # the bits where to's differs
        orl     %eax, %ecx                      # any difference at all?
        jnz     2f                              # yes (rare): load what differs, below
        jmp     coro_ctx_switch                 # no: nothing to load; the switch proper (direct jump, always predicted)
2:      testl   %eax, %eax                      # to's MXCSR differs?
        jz      3f
        ldmxcsr 0x08(%rsi)                      # to's SSE control, in force from here on
3:      movzwl  0x0c(%rdi), %ecx                # to's x87 control word differs?
        cmpw    0x0c(%rsi), %cx
        je      coro_ctx_switch                 # no: the switch proper
        fldcw   0x0c(%rsi)                      # to's x87 control
        jmp     coro_ctx_switch                 # the switch proper
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_switch_fpenv, .-coro_ctx_switch_fpenv # its size, for symbolizers

        .globl  coro_ctx_switch_fpenv_load      # called from stackful.c
        .hidden coro_ctx_switch_fpenv_load      # internal to libcoro
        .type   coro_ctx_switch_fpenv_load, @function # so debuggers and profilers show its name
        .p2align 4                              # start on a 16-byte line
coro_ctx_switch_fpenv_load:                     # rdi = from, rsi = to
        .cfi_startproc                          # unwind info, for debuggers
        stmxcsr 0x08(%rdi)                      # from->mxcsr
        fnstcw  0x0c(%rdi)                      # from->fpucw
        ldmxcsr 0x08(%rsi)                      # to's SSE control, in force from here on
        fldcw   0x0c(%rsi)                      # to's x87 control
        jmp     coro_ctx_switch                 # the switch proper: a direct jump, always predicted
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_switch_fpenv_load, .-coro_ctx_switch_fpenv_load # its size, for symbolizers

/* void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);
 *
 * Save the running context in *from, resume *to; returns when something
 * resumes *from. from arrives in %rdi, to in %rsi. Only callee-saved state
 * needs saving: to its caller this is an ordinary call, so the compiler has
 * already spilled every caller-saved register it still needs (rax, rcx, rdx,
 * rsi, rdi, r8-r11, all vector registers).
 */
        .globl  coro_ctx_switch                 # called from stackful.c
        .hidden coro_ctx_switch                 # internal to libcoro
        .type   coro_ctx_switch, @function      # so debuggers and profilers show its name
        .p2align 4                              # start on a 16-byte line
coro_ctx_switch:                                # rdi = from, rsi = to; our return address is on top of the stack
        .cfi_startproc                          # unwind info, for debuggers
        movq    0x00(%rsi), %rdx                # to's stack pointer, read before from's is stored: a
                                                #   load may wait for an older store whose address is
                                                #   not known yet, and rdi may still be on its way
        pushq   %rbx                            # callee-saved registers our caller wants back:
        .cfi_adjust_cfa_offset 8                #   onto our own stack, where they wait until we go on
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        pushq   %rbp                            # the frame pointer: every context keeps it here, the
        .cfi_adjust_cfa_offset 8                #   inline switch too (no asm may clobber rbp)
        leaq    1f(%rip), %rax                  # where from goes on: label 1 below...
        pushq   %rax                            # ...on top of from's stack, for its resumer to pop
        .cfi_adjust_cfa_offset 8
        movq    %rsp, 0x00(%rdi)                # from->rsp: from is saved
        movq    %rdx, %rsp                      # to's stack: from here on we run on it
        popq    %rax                            # where to goes on
        .cfi_adjust_cfa_offset -8
        popq    %rbp                            # to's frame pointer (0 in a new context: ends frame-pointer walks)
        .cfi_adjust_cfa_offset -8
        jmpq    *%rax                           # continue to: a jump, predicted from this place, not a ret

1:                                              # resumed: back on our stack, rbp popped by whoever resumed us
#if defined(__CET__) && (__CET__ & 1)
        endbr64                                 # reached by an indirect jump: marked for indirect-branch tracking
#endif
        popq    %r15                            # give our caller back the callee-saved registers
        .cfi_adjust_cfa_offset -8
        popq    %r14
        .cfi_adjust_cfa_offset -8
        popq    %r13
        .cfi_adjust_cfa_offset -8
        popq    %r12
        .cfi_adjust_cfa_offset -8
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        popq    %rcx                            # our return address (rcx: caller-saved, free)
        .cfi_adjust_cfa_offset -8
        .cfi_register %rip, %rcx                # (for unwinders between here and the jump)
        jmpq    *%rcx                           # back to our caller: not a ret, since the call it would
                                                # match may have been made on the other stack
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_switch, .-coro_ctx_switch # its size, for symbolizers

/* void coro_ctx_trampoline(void);   -- never called: a new context's first "where it goes on"
 *
 * The first resume of a context made by coro_ctx_init pops its address and
 * a zero rbp and jumps here, with the start routine's argument and the
 * routine itself next on the new stack (coro_ctx_init put them there); call
 * fn(arg), which must never return.
 */
        .globl  coro_ctx_trampoline             # coro_ctx_init (ctx.h, inline in stackful.c) takes its address
        .hidden coro_ctx_trampoline             # internal to libcoro
        .type   coro_ctx_trampoline, @function  # so debuggers and profilers show its name
        .p2align 4                              # 16-byte line
coro_ctx_trampoline:                            # rsp = top of the new stack - 16: arg, then fn
        .cfi_startproc                          # unwind info, so that gdb can show this frame
        .cfi_undefined %rip                     # the outermost frame of this stack: unwinders and gdb's bt stop here
#if defined(__CET__) && (__CET__ & 1)
        endbr64                                 # reached by an indirect jump: marked for indirect-branch tracking
#endif
        popq    %rdi                            # first argument: arg
        popq    %rax                            # the start routine; rsp is now the top of the stack, 16-aligned
        callq   *%rax                           # fn(arg): enters with rsp+8 16-aligned, as the ABI says
        ud2                                     # fn returned, but there is nothing to return to: trap (SIGILL) at once
        .cfi_endproc                            # end of the unwind info
        .size   coro_ctx_trampoline, .-coro_ctx_trampoline # its size, for symbolizers

        .section .note.GNU-stack,"",@progbits   # this code needs no executable stack
