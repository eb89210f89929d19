// SPDX-License-Identifier: GPL-2.0
/* Guest half of smoke_dirty_ring: write a known set of pages per round. */
#include "smoke_dirty_ring.h"
#include "ucall.h"

/*
 * One store per page written, then SYNC(round, pages written); DONE after
 * the last round.  Keep the per-page test (a division by the run-time
 * stride): on kvm_pvm a bare store loop overflows a full ring before the
 * vCPU exits (docs/library.md, "Dirty ring").
 */
void guest_dirty_rounds(uint64_t gva, uint64_t pages, uint64_t stride, uint64_t rounds)
{
	for (uint64_t r = 1; r <= rounds; r++) {
		uint64_t written = 0;

		for (uint64_t i = 0; i < pages; i++) {
			if (!dirty_ring_page_in_round(r, i, stride))
				continue;
			*(volatile uint64_t *)(gva + i * 4096) = dirty_ring_stamp(r, i);
			written++;
		}
		GUEST_SYNC(r, written);
	}
	GUEST_DONE();
}
