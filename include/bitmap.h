/* SPDX-License-Identifier: GPL-2.0 */
/* Bitmaps of 64-bit words, as KVM's dirty log and the suite's own page sets use them. */
#ifndef KMP_BITMAP_H
#define KMP_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

/* A zeroed bitmap of `bits` bits, in 64-bit words as KVM uses them. */
uint64_t *bitmap_alloc(uint64_t bits);
static inline bool bitmap_test(const uint64_t *map, uint64_t bit)
{
	return map[bit / 64] >> (bit % 64) & 1;
}
static inline void bitmap_set(uint64_t *map, uint64_t bit)
{
	map[bit / 64] |= 1ULL << (bit % 64);
}
/* The bits set among the first `bits`. */
uint64_t bitmap_weight(const uint64_t *map, uint64_t bits);
void bitmap_zero(uint64_t *map, uint64_t bits);

#endif
