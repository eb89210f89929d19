/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest exception vectors (VBAR_EL1).  Guest code is not meant to take
 * exceptions; when it does, the vector stores its own offset to the
 * exception doorbell so the host fails the test with ESR/FAR/ELR instead of
 * the vCPU spinning at an unmapped vector address.  Only x16/x17 (the
 * intra-procedure scratch registers) are overwritten, so the report shows
 * the other registers as they were.
 */
#include "processor.h"

	.section .text.arm64_guest_vectors, "ax"
	.balign 2048
	.global arm64_guest_vectors
arm64_guest_vectors:
	.irp off, 0x000, 0x080, 0x100, 0x180, 0x200, 0x280, 0x300, 0x380, \
		  0x400, 0x480, 0x500, 0x580, 0x600, 0x680, 0x700, 0x780
	.balign 0x80
	mov	x17, #\off
	b	arm64_guest_exception
	.endr

arm64_guest_exception:
	ldr	x16, =(UCALL_MMIO_GVA + UCALL_EXC_OFFSET)
1:	str	x17, [x16]	/* a plain store: KVM reports it as an MMIO exit */
	b	1b
	.ltorg

	.section .note.GNU-stack, "", %progbits
