// SPDX-License-Identifier: GPL-2.0
/*
 * Guest code of make bench's tools: the least a guest can do to produce
 * each benchmark's kernel work (one store per page, nothing counted in
 * guest memory).  Built freestanding (the file name ends in guest.c).
 */
#include "fid.h"
#include "ucall.h"

volatile uint64_t fid_stop;

void fid_write_pass_guest(uint64_t gva, uint64_t pages)
{
	for (uint64_t pass = 1;; pass++) {
		for (uint64_t i = 0; i < pages; i++)
			*(volatile uint64_t *)(gva + i * 4096) = pass;
		GUEST_SYNC(pass);
	}
}

void fid_touch_guest(uint64_t gva, uint64_t pages, uint64_t seed)
{
	uint32_t x = (uint32_t)seed * 2654435761u + 1;

	for (uint64_t i = 0; i < pages; i++)
		*(volatile uint64_t *)(gva + i * 4096) = i;
	GUEST_SYNC(0);
	for (;;) {
		for (int n = 0; n < 64; n++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			*(volatile uint64_t *)(gva + (x % pages) * 4096) = x;
		}
		if (fid_stop)
			break;
	}
	for (;;)
		GUEST_SYNC(1);
}

void fid_stride_guest(uint64_t gva, uint64_t size, uint64_t stride)
{
	uint64_t n = 0;

	for (uint64_t off = 0; off < size; off += stride, n++)
		*(volatile uint64_t *)(gva + off) = gva + off;
	for (;;)
		GUEST_SYNC(n);
}
