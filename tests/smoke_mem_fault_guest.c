// SPDX-License-Identifier: GPL-2.0
/* Guest half of smoke_mem_fault: loads and stores on the flagged slot. */
#include "ucall.h"

/* Read one word of the page at gva and send it back. */
void guest_read(uint64_t gva)
{
	GUEST_SYNC(*(volatile uint64_t *)gva);
	GUEST_DONE();
}

/* Read page 0, write page 1, then write page 0: three accesses, in order. */
void guest_read_write(uint64_t gva, uint64_t page_size)
{
	(void)*(volatile uint64_t *)gva;
	*(volatile uint64_t *)(gva + page_size) = 1;
	*(volatile uint64_t *)gva = 2;
	GUEST_DONE();
}
