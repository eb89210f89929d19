// SPDX-License-Identifier: GPL-2.0
/* Guest half of smoke_backing: write a pattern, then check the host's. */
#include "smoke_backing.h"
#include "ucall.h"

void guest_write_then_check(uint64_t gva, uint64_t size)
{
	for (uint64_t off = 0; off < size; off += 4096) {
		*(volatile uint64_t *)(gva + off) = backing_pattern(1, off);
		*(volatile uint64_t *)(gva + off + 4088) = ~backing_pattern(1, off);
	}
	GUEST_SYNC(1);
	/* The host has written seed 2 through its own mapping (the alias, if any). */
	for (uint64_t off = 0; off < size; off += 4096)
		GUEST_ASSERT_EQ(*(volatile uint64_t *)(gva + off), backing_pattern(2, off));
	GUEST_SYNC(2);
	GUEST_DONE();
}
