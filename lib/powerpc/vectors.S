/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest code that is not C: the exception handlers, which the host copies
 * to guest real addresses 0x100-0x17ff (interrupts arrive in real mode,
 * through KVM's VRMA), and the return address of every guest entry
 * function.
 */
#include "processor.h"

/*
 * One handler per 0x20 bytes, so every architected vector lands on one: it
 * saves r3-r6 in SPRG0-3 and makes the KMP_H_EXCEPTION hcall with r4 the
 * vector, r5/r6 the interrupt's SRR0/SRR1 (`sc` overwrites SRR0/1 itself).
 * The host fails the test with them and DAR/DSISR; it never resumes.  The
 * blob is copied as a whole, so the relative branches stay right.
 */
	.section .rodata.kmp_ppc_vectors, "a"
	.balign PPC_VECTOR_SIZE
	.globl ppc_guest_vectors
ppc_guest_vectors:
	.set vec, PPC_VECTORS_START
	.rept (PPC_VECTORS_END - PPC_VECTORS_START) / PPC_VECTOR_SIZE
	mtspr	272, 3
	mtspr	273, 4
	li	4, vec
	b	vector_common
	nop
	nop
	nop
	nop
	.set vec, vec + PPC_VECTOR_SIZE
	.endr
vector_common:
	mtspr	274, 5
	mtspr	275, 6
	mfsrr0	5
	mfsrr1	6
	li	3, 0
	ori	3, 3, KMP_H_EXCEPTION
	sc	1
	b	.
	.globl ppc_guest_vectors_end
ppc_guest_vectors_end:

/*
 * A guest entry function returns here (LR): enter guest_code_returned()
 * at its global entry point, which derives the TOC from r12.
 */
	.text
	.globl ppc_guest_return
	.type ppc_guest_return, @function
ppc_guest_return:
	lis	12, guest_code_returned@highest
	ori	12, 12, guest_code_returned@higher
	rldicr	12, 12, 32, 31
	oris	12, 12, guest_code_returned@h
	ori	12, 12, guest_code_returned@l
	mtctr	12
	bctr
	.size ppc_guest_return, . - ppc_guest_return

	.section .note.GNU-stack, "", @progbits
