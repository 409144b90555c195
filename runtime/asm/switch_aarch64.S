/* void coro_ctx_switch(struct coro_ctx *from, struct coro_ctx *to);
 * void coro_ctx_switch_fpenv(struct coro_ctx *from, struct coro_ctx *to);
 *
 * Save the callee-saved state of the running context in *from, load *to's,
 * and continue where *to last called this function (or at its trampoline).
 *
 * aarch64, AAPCS64. from arrives in x0, to in x1. Offsets are those of
 * struct coro_ctx in runtime/ctx.h (pinned there by _Static_assert); the
 * table of what is saved and why is in runtime/asm/README.md.
 *
 * Only callee-saved state is saved: to the C code around it this is an
 * ordinary call, so the compiler has already spilled every caller-saved
 * register it still needs (x0-x18, the upper halves of v8-v15, v0-v7, v16-v31).
 * x9-x11 below are caller-saved scratch registers: free to use.
 */
        .text                                   // code section

/* void coro_ctx_switch_fpenv(struct coro_ctx *from, struct coro_ctx *to);
 *
 * coro_ctx_switch, keeping each side's FP control: the FP environment is the
 * thread's unless an instance keeps its own (coro_set_fpenv); then both
 * sides of its switches come through here. Store our FPCR in *from, load
 * *to's (stored by its own switch out, or by coro_ctx_init), then switch.
 */
        .globl  coro_ctx_switch_fpenv           // called from stackful.c
        .hidden coro_ctx_switch_fpenv           // internal to libcoro: no PLT detour when built into a shared object
        .type   coro_ctx_switch_fpenv, %function // so debuggers and profilers show its name
        .p2align 4                              // start on a 16-byte line
coro_ctx_switch_fpenv:                          // x0 = from, x1 = to
        .cfi_startproc                          // unwind info, for debuggers
        mrs     x10, fpcr                       // the FP control in force now (rounding, FZ, DN)...
        str     x10, [x0, #168]                 // ...is from's
        ldr     x11, [x1, #168]                 // to's FP control
        cmp     x10, x11                        // differs from ours? (often not)
        b.eq    coro_ctx_switch                 // no: the switch proper
        msr     fpcr, x11                       // yes: only then pay for msr fpcr, which synchronizes the FP unit
        b       coro_ctx_switch                 // and the switch proper
        .cfi_endproc                            // end of the unwind info
        .size   coro_ctx_switch_fpenv, .-coro_ctx_switch_fpenv // its size, for symbolizers

        .globl  coro_ctx_switch                 // called from stackful.c
        .hidden coro_ctx_switch                 // internal to libcoro: no PLT detour when built into a shared object
        .type   coro_ctx_switch, %function      // so debuggers and profilers show its name
        .p2align 4                              // start on a 16-byte line: it is on every resume's path
coro_ctx_switch:                                // x0 = from, x1 = to
        .cfi_startproc                          // unwind info up to the stack swap, for debuggers
        mov     x9, sp                          // sp cannot be stored directly (register 31 means xzr in str)
        stp     x19, x20, [x0, #0]              // callee-saved
        stp     x21, x22, [x0, #16]             // callee-saved
        stp     x23, x24, [x0, #32]             // callee-saved
        stp     x25, x26, [x0, #48]             // callee-saved
        stp     x27, x28, [x0, #64]             // callee-saved
        stp     x29, x30, [x0, #80]             // frame pointer; x30 = our return address: where from goes on
        str     x9, [x0, #96]                   // from->sp: which stack from runs on
        stp     d8, d9, [x0, #104]              // low halves of v8-v15 are callee-saved
        stp     d10, d11, [x0, #120]            // callee-saved (low halves)
        stp     d12, d13, [x0, #136]            // callee-saved (low halves)
        stp     d14, d15, [x0, #152]            // callee-saved (low halves)
                                                // (FPCR is not touched: the FP environment is the thread's)
        ldp     x19, x20, [x1, #0]              // restore to's callee-saved registers
        ldp     x21, x22, [x1, #16]             // callee-saved
        ldp     x23, x24, [x1, #32]             // callee-saved
        ldp     x25, x26, [x1, #48]             // callee-saved
        ldp     x27, x28, [x1, #64]             // callee-saved
        ldp     x29, x30, [x1, #80]             // to's frame pointer (0 in a new context) and where it goes on
        ldr     x9, [x1, #96]                   // to's stack pointer...
        mov     sp, x9                          // ...from here on we run on its stack
        ldp     d8, d9, [x1, #104]              // callee-saved (low halves of v8-v15)
        ldp     d10, d11, [x1, #120]            // callee-saved
        ldp     d12, d13, [x1, #136]            // callee-saved
        ldp     d14, d15, [x1, #152]            // callee-saved
        br      x30                             // continue to: br, not ret, since we return into another context than
                                                // our caller's; ret would use (and spoil) the return-address predictor
        .cfi_endproc                            // end of the unwind info
        .size   coro_ctx_switch, .-coro_ctx_switch // its size, for symbolizers

/* void coro_ctx_trampoline(void);   -- never called: a new context's x30
 *
 * The first switch into a context made by coro_ctx_init branches here with
 * sp = top of the new stack (16-byte aligned), x19 = arg, x20 = fn; call
 * fn(arg), which must never return.
 */
        .globl  coro_ctx_trampoline             // coro_ctx_init (ctx.h, inline in stackful.c) takes its address
        .hidden coro_ctx_trampoline             // internal to libcoro
        .type   coro_ctx_trampoline, %function  // so debuggers and profilers show its name
        .p2align 4                              // 16-byte line
coro_ctx_trampoline:                            // sp = top of the new stack, x19 = arg, x20 = fn
        .cfi_startproc                          // unwind info, so that gdb can show this frame
        .cfi_undefined x30                      // the outermost frame of this stack: unwinders and gdb's bt stop here
        mov     x0, x19                         // first argument: arg
        blr     x20                             // fn(arg); sp is 16-aligned, as AAPCS64 requires at all times
        brk     #0x3e8                          // fn returned, but there is nothing to return to: trap (SIGTRAP) at once
        .cfi_endproc                            // end of the unwind info
        .size   coro_ctx_trampoline, .-coro_ctx_trampoline // its size, for symbolizers

        .section .note.GNU-stack,"",%progbits   // this code needs no executable stack
