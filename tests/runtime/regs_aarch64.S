/* uint64_t regs_probe(uint64_t seed, struct coro_ctx *from, struct coro_ctx *to,
 *                     void (*sw)(struct coro_ctx *from, struct coro_ctx *to));
 *
 * Fill every callee-saved register and the FP control state with patterns made
 * from seed, call sw(from, to) directly (no C code in between that could save
 * and restore a register itself and so hide a switch that loses it), and
 * return a bit mask of what did not come back unchanged (0: all survived).
 *
 *   bit 0-9    x19 ... x28   (pattern: seed + 1 ... seed + 10)
 *   bit 10     x29           (seed + 11: the frame pointer too; we address our frame through sp)
 *   bit 11-18  d8 ... d15    (seed + 12 ... seed + 19, as raw bits)
 *   bit 19     FPCR          (rounding mode = seed & 3, FZ = seed bit 2)
 *
 * The caller's own callee-saved registers and FPCR are restored before
 * returning, as the ABI requires of any function.
 */
        .text
        .globl  regs_probe
        .type   regs_probe, %function
regs_probe:
        stp     x29, x30, [sp, #-192]!          // frame: fp, lr, then 176 bytes; sp stays 16-aligned
        stp     x19, x20, [sp, #16]             // ours to restore: callee-saved for our caller
        stp     x21, x22, [sp, #32]
        stp     x23, x24, [sp, #48]
        stp     x25, x26, [sp, #64]
        stp     x27, x28, [sp, #80]
        stp     d8, d9, [sp, #96]               // likewise the low halves of v8-v15
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        mrs     x9, fpcr                        // the caller's FPCR...
        str     x9, [sp, #160]                  // ...restored at the end
        str     x0, [sp, #168]                  // the seed, to check against after the switch
        bic     x10, x9, #(7 << 22)             // FPCR pattern: clear RMode (bits 22-23) and FZ (24)...
        and     x11, x0, #7                     // ...and set them from seed bits 0-2
        orr     x10, x10, x11, lsl #22
        str     x10, [sp, #176]                 // the FPCR to expect
        msr     fpcr, x10                       // set it
        mov     x16, x3                         // sw: in a scratch register (IP0), free at the call
        mov     x9, x0                          // seed
        mov     x0, x1                          // sw's from
        mov     x1, x2                          // sw's to
        add     x19, x9, #1                     // the patterns: x19 = seed+1, ..., x28 = seed+10
        add     x20, x9, #2
        add     x21, x9, #3
        add     x22, x9, #4
        add     x23, x9, #5
        add     x24, x9, #6
        add     x25, x9, #7
        add     x26, x9, #8
        add     x27, x9, #9
        add     x28, x9, #10
        add     x29, x9, #11                    // x29 = seed+11
        add     x10, x9, #12                    // d8 = seed+12, ..., d15 = seed+19
        fmov    d8, x10
        add     x10, x9, #13
        fmov    d9, x10
        add     x10, x9, #14
        fmov    d10, x10
        add     x10, x9, #15
        fmov    d11, x10
        add     x10, x9, #16
        fmov    d12, x10
        add     x10, x9, #17
        fmov    d13, x10
        add     x10, x9, #18
        fmov    d14, x10
        add     x10, x9, #19
        fmov    d15, x10
        blr     x16                             // the switch under test; comes back when the other side switches back
        ldr     x9, [sp, #168]                  // seed
        mov     x0, #0                          // the mask of registers that changed
        add     x10, x9, #1
        cmp     x19, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #0             // bit 0: x19
        add     x10, x9, #2
        cmp     x20, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #1             // bit 1: x20
        add     x10, x9, #3
        cmp     x21, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #2             // bit 2: x21
        add     x10, x9, #4
        cmp     x22, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #3             // bit 3: x22
        add     x10, x9, #5
        cmp     x23, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #4             // bit 4: x23
        add     x10, x9, #6
        cmp     x24, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #5             // bit 5: x24
        add     x10, x9, #7
        cmp     x25, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #6             // bit 6: x25
        add     x10, x9, #8
        cmp     x26, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #7             // bit 7: x26
        add     x10, x9, #9
        cmp     x27, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #8             // bit 8: x27
        add     x10, x9, #10
        cmp     x28, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #9             // bit 9: x28
        add     x10, x9, #11
        cmp     x29, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #10            // bit 10: x29
        fmov    x12, d8
        add     x10, x9, #12
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #11            // bit 11: d8
        fmov    x12, d9
        add     x10, x9, #13
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #12            // bit 12: d9
        fmov    x12, d10
        add     x10, x9, #14
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #13            // bit 13: d10
        fmov    x12, d11
        add     x10, x9, #15
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #14            // bit 14: d11
        fmov    x12, d12
        add     x10, x9, #16
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #15            // bit 15: d12
        fmov    x12, d13
        add     x10, x9, #17
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #16            // bit 16: d13
        fmov    x12, d14
        add     x10, x9, #18
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #17            // bit 17: d14
        fmov    x12, d15
        add     x10, x9, #19
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #18            // bit 18: d15
        mrs     x12, fpcr                       // FPCR now
        ldr     x10, [sp, #176]
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #19            // bit 19: FPCR
        ldr     x9, [sp, #160]                  // give the caller back its FPCR...
        msr     fpcr, x9
        ldp     x19, x20, [sp, #16]             // ...and its callee-saved registers
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        ldp     x29, x30, [sp], #192            // its frame pointer and our return address
        ret
        .size   regs_probe, .-regs_probe

        .section .note.GNU-stack,"",%progbits   // no executable stack
