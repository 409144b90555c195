/* unsigned long regs_probe(uint64_t seed, struct coro_ctx *from, struct coro_ctx *to,
 *                          void (*sw)(struct coro_ctx *from, struct coro_ctx *to));
 *
 * Fill every callee-saved register and the FP control state with patterns made
 * from seed, call sw(from, to) directly (no C code in between that could save
 * and restore a register itself and so hide a switch that loses it), and
 * return a bit mask of what did not come back unchanged (0: all survived).
 *
 *   bit 0-5  rbx, rbp, r12, r13, r14, r15   (pattern: seed + 1 ... seed + 6)
 *   bit 6    MXCSR control bits             (rounding mode = seed & 3, FTZ = seed bit 2)
 *   bit 7    x87 control word               (rounding control = seed & 3, precision = 53 bits if seed bit 3)
 *
 * The caller's own callee-saved registers and FP control are restored before
 * returning, as the ABI requires of any function.
 */
        .text
        .globl  regs_probe
        .type   regs_probe, @function
regs_probe:
        pushq   %rbx                            # ours to restore: callee-saved for our caller
        pushq   %rbp
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15                            # return address + 6 pushes = 56 bytes: rsp = 8 mod 16
        subq    $40, %rsp                       # locals; 96 bytes in all: rsp = 0 mod 16 at the call below
        movq    %rdi, 0(%rsp)                   # the seed, to check against after the switch
        stmxcsr 8(%rsp)                         # the caller's MXCSR and x87 control word, restored at the end
        fnstcw  12(%rsp)

        movl    8(%rsp), %eax                   # MXCSR pattern: the caller's with rounding (bits 13-14) and FTZ (15) from seed
        andl    $~0xe000, %eax                  # clear RC and FTZ
        movl    %edi, %r8d
        andl    $7, %r8d                        # seed bits 0-2
        shll    $13, %r8d                       # to bits 13-15
        orl     %r8d, %eax
        movl    %eax, 16(%rsp)                  # the MXCSR to set and expect
        movzwl  12(%rsp), %eax                  # x87 CW pattern: rounding (bits 10-11) from seed, precision (8-9) 53/64 bits
        andl    $~0x0f00, %eax                  # clear RC and PC
        movl    %edi, %r8d
        andl    $3, %r8d
        shll    $10, %r8d                       # rounding control
        orl     %r8d, %eax
        movl    $0x300, %r8d                    # 64-bit precision...
        testl   $8, %edi
        movl    $0x200, %r9d                    # ...or 53-bit when seed bit 3 is set
        cmovnel %r9d, %r8d
        orl     %r8d, %eax
        movw    %ax, 20(%rsp)                   # the x87 CW to set and expect
        ldmxcsr 16(%rsp)                        # set both
        fldcw   20(%rsp)

        movq    %rcx, %rax                      # sw: in a caller-saved register, free at the call
        movq    %rsi, %rdi                      # sw's from
        movq    %rdx, %rsi                      # sw's to
        movq    0(%rsp), %rdx                   # seed
        leaq    1(%rdx), %rbx                   # the patterns: rbx = seed+1, ..., r15 = seed+6
        leaq    2(%rdx), %rbp
        leaq    3(%rdx), %r12
        leaq    4(%rdx), %r13
        leaq    5(%rdx), %r14
        leaq    6(%rdx), %r15
        callq   *%rax                           # the switch under test; comes back when the other side switches back

        xorl    %eax, %eax                      # the mask of registers that changed
        movq    0(%rsp), %rdx                   # seed
        leaq    1(%rdx), %rcx
        cmpq    %rcx, %rbx
        setne   %cl
        movzbl  %cl, %ecx
        orl     %ecx, %eax                      # bit 0: rbx
        leaq    2(%rdx), %rcx
        cmpq    %rcx, %rbp
        setne   %cl
        movzbl  %cl, %ecx
        shll    $1, %ecx
        orl     %ecx, %eax                      # bit 1: rbp
        leaq    3(%rdx), %rcx
        cmpq    %rcx, %r12
        setne   %cl
        movzbl  %cl, %ecx
        shll    $2, %ecx
        orl     %ecx, %eax                      # bit 2: r12
        leaq    4(%rdx), %rcx
        cmpq    %rcx, %r13
        setne   %cl
        movzbl  %cl, %ecx
        shll    $3, %ecx
        orl     %ecx, %eax                      # bit 3: r13
        leaq    5(%rdx), %rcx
        cmpq    %rcx, %r14
        setne   %cl
        movzbl  %cl, %ecx
        shll    $4, %ecx
        orl     %ecx, %eax                      # bit 4: r14
        leaq    6(%rdx), %rcx
        cmpq    %rcx, %r15
        setne   %cl
        movzbl  %cl, %ecx
        shll    $5, %ecx
        orl     %ecx, %eax                      # bit 5: r15
        stmxcsr 24(%rsp)                        # MXCSR now
        movl    24(%rsp), %ecx
        xorl    16(%rsp), %ecx                  # differences from the pattern...
        andl    $~0x3f, %ecx                    # ...in the control bits (0-5 are sticky status flags, not state to keep)
        setne   %cl
        movzbl  %cl, %ecx
        shll    $6, %ecx
        orl     %ecx, %eax                      # bit 6: MXCSR
        fnstcw  28(%rsp)                        # x87 control word now
        movzwl  28(%rsp), %ecx
        cmpw    20(%rsp), %cx
        setne   %cl
        movzbl  %cl, %ecx
        shll    $7, %ecx
        orl     %ecx, %eax                      # bit 7: x87 control word

        ldmxcsr 8(%rsp)                         # give the caller back its FP control
        fldcw   12(%rsp)
        addq    $40, %rsp
        popq    %r15                            # and its callee-saved registers
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbp
        popq    %rbx
        ret
        .size   regs_probe, .-regs_probe

        .section .note.GNU-stack,"",@progbits   # no executable stack
