/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SMOKE_DIRTY_RING_H
#define SMOKE_DIRTY_RING_H
#include <stdbool.h>
#include <stdint.h>

/*
 * Whether the guest writes page i in round r (r >= 1).  Round 1: every
 * stride-th page.  Round r > 1: the pages one further along, plus every
 * (r * stride)-th page, so some of the previous round's pages are written
 * again and others are not.  With stride 1, round 1 writes every page.
 */
static inline bool dirty_ring_page_in_round(uint64_t r, uint64_t i, uint64_t stride)
{
	if (r == 1)
		return i % stride == 0;
	return i % stride == (r - 1) % stride || i % (r * stride) == 0;
}

/* What the guest stores in the first word of a page it writes in round r. */
static inline uint64_t dirty_ring_stamp(uint64_t r, uint64_t i)
{
	return (r << 48) | i;
}

void guest_dirty_rounds(uint64_t gva, uint64_t pages, uint64_t stride, uint64_t rounds);

#endif
