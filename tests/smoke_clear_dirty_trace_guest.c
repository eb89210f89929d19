// SPDX-License-Identifier: GPL-2.0
/* Guest half of smoke_clear_dirty_trace: write every page once, then stop. */
#include "ucall.h"

void guest_write_pages(uint64_t gva, uint64_t pages, uint64_t page_size)
{
	for (uint64_t i = 0; i < pages; i++)
		*(volatile uint64_t *)(gva + i * page_size) = i + 1;
	GUEST_SYNC(pages);
	GUEST_DONE();
}
