/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Medians and percentiles of per-event samples (fault latencies, zap
 * figures, stamp gaps): sort once, then read ranks.
 */
#ifndef KMP_ORDER_STATS_H
#define KMP_ORDER_STATS_H

#include <stdint.h>

/* Sorts v[0..n) ascending. */
void u64_sort(uint64_t *v, uint64_t n);

/*
 * The p-th percentile (0 to 100) of sorted[0..n): the sample at rank
 * n * p / 100 (the median is sorted[n / 2]); 0 when n is 0.
 */
uint64_t u64_percentile(const uint64_t *sorted, uint64_t n, unsigned int p);

#endif
