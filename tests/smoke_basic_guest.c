// SPDX-License-Identifier: GPL-2.0
/* Guest code for smoke_basic: plain C run inside the guest. */
#include "smoke_basic.h"
#include "ucall.h"

/* Sum of squares 1..n, sent back through SYNC so the host can check it. */
void guest_compute(uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 1; i <= n; i++)
		sum += i * i;
	GUEST_SYNC(SMOKE_COMPUTE_TAG, sum);
	GUEST_PRINTF("computed %lu for n=%lu\n", sum, n);
	GUEST_DONE();
}

/* Fails a GUEST_ASSERT_EQ with known values on a known line. */
void guest_assert(uint64_t a, uint64_t b)
{
	GUEST_ASSERT_EQ(a, b); /* SMOKE_ASSERT_LINE */
	GUEST_DONE();
}

/* Globals live in the guest's own copy of the binary's data. */
uint64_t guest_counter = 7;

void guest_globals(void)
{
	guest_counter *= 3;
	GUEST_SYNC(guest_counter);
	GUEST_DONE();
}

/* This arch's own guest code (tests/<arch>/smoke_basic_guest.inc). */
#include "smoke_basic_guest.inc"

/* A load from a gva the guest page tables do not map: a guest exception. */
void guest_unmapped_load(uint64_t gva)
{
	(void)*(volatile uint64_t *)gva;
	GUEST_DONE();
}

/* A write of 0xabcd: outside every memslot, an unexpected MMIO exit. */
void guest_mmio_write(uint64_t gva)
{
	*(volatile uint64_t *)gva = 0xabcd;
	GUEST_DONE();
}

/* Returning from the entry function lands in guest_code_returned(). */
void guest_returns(void)
{
}
