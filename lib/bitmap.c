// SPDX-License-Identifier: GPL-2.0
/* Bitmaps of 64-bit words (include/bitmap.h). */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "kvm_util.h"

uint64_t *bitmap_alloc(uint64_t bits)
{
	uint64_t *map = calloc(DIV_ROUND_UP(bits, 64), sizeof(uint64_t));

	TEST_ASSERT(map, "out of memory for a %lu-bit bitmap", (unsigned long)bits);
	return map;
}

uint64_t bitmap_weight(const uint64_t *map, uint64_t bits)
{
	uint64_t n = 0, words = bits / 64;

	for (uint64_t i = 0; i < words; i++)
		n += __builtin_popcountll(map[i]);
	if (bits % 64)
		n += __builtin_popcountll(map[words] & ((1ULL << (bits % 64)) - 1));
	return n;
}

void bitmap_zero(uint64_t *map, uint64_t bits)
{
	memset(map, 0, DIV_ROUND_UP(bits, 64) * sizeof(uint64_t));
}
