// SPDX-License-Identifier: GPL-2.0
/* arm64 guest ucall: store the struct's gva to the doorbell page (an MMIO exit). */
#include "processor.h"
#include "ucall.h"

void ucall_arch_do(struct ucall *uc)
{
	/*
	 * One plain 64-bit STR with no writeback: the only kind of access whose
	 * syndrome lets KVM hand the data to userspace.  The struct lives in
	 * Normal memory: the host reads it once the exit arrives.
	 */
	__asm__ __volatile__("str %0, [%1]"
			     : : "r"(uc), "r"(UCALL_MMIO_GVA) : "memory");
}
