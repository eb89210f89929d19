/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SMOKE_BACKING_H
#define SMOKE_BACKING_H
#include <stdint.h>

/* What the guest writes at the start of each page (and its inverse at the end). */
static inline uint64_t backing_pattern(uint64_t seed, uint64_t offset)
{
	return (seed << 40) ^ (offset * 0x9e3779b97f4a7c15ULL);
}

void guest_write_then_check(uint64_t gva, uint64_t size);

#endif
