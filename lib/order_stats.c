// SPDX-License-Identifier: GPL-2.0
/*
 * Sorting and ranks of u64 samples: include/order_stats.h.
 */
#include <stdlib.h>

#include "order_stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void u64_sort(uint64_t *v, uint64_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t u64_percentile(const uint64_t *sorted, uint64_t n, unsigned int p)
{
	uint64_t rank = n * p / 100;

	if (!n)
		return 0;
	return sorted[rank < n ? rank : n - 1];
}
