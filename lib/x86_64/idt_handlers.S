/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest exception stubs, one per vector 0-31, X86_IDT_STUB_SIZE bytes apart.
 * Guest code is not meant to take exceptions; when it does, the gate
 * switches to the vCPU's IST1 stack (so a bad RSP still reports), the stub
 * completes a uniform frame (struct x86_exception_frame) and the vCPU exits
 * to the host through X86_EXC_PIO_PORT, which fails the test with the
 * frame.  No general register is changed, so the host's dump shows them as
 * they were at the fault.  The stubs never return to the faulting code.
 */
#include "processor.h"

	.section .text.x86_guest_idt_stubs, "ax"
	.balign X86_IDT_STUB_SIZE
	.globl x86_guest_idt_stubs
x86_guest_idt_stubs:
	.irp vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, \
		  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	/* .org pads with INT3 and stops the build if a stub outgrows its slot. */
	.org x86_guest_idt_stubs + \vec * X86_IDT_STUB_SIZE, 0xcc
	/* Where the CPU pushes no error code, a 0 takes its place. */
	.if !((X86_EXC_ERROR_CODE_MASK >> \vec) & 1)
	pushq	$0
	.endif
	pushq	$\vec
	jmp	x86_guest_exception
	.endr
	.org x86_guest_idt_stubs + X86_NR_EXCEPTIONS * X86_IDT_STUB_SIZE, 0xcc

/* Add CR2 below the vector, keeping RAX, then report until the host gives up. */
x86_guest_exception:
	pushq	%rax
	movq	%cr2, %rax
	xchgq	%rax, (%rsp)
1:	outb	%al, $X86_EXC_PIO_PORT
	jmp	1b

	.section .note.GNU-stack, "", @progbits
