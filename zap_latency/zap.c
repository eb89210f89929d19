// SPDX-License-Identifier: GPL-2.0
/*
 * One zap, measured: wait until the vCPUs' mappings are warm, note the
 * guest's progress, trigger the zap (delete or move a small memslot) and
 * time the ioctl (tracing armed around it only for a traced zap), read the
 * stat deltas and the trace, turn the guest's
 * progress stamps into stall figures, and time the refault.
 */
#include <stdlib.h>
#include <unistd.h>

#include "timed.h"
#include "dirty_log.h"
#include "order_stats.h"
#include "report.h"
#include "zl.h"

#define WARM_SAMPLE_MS 50
#define WARM_STABLE_SAMPLES 5
#define WARM_MAX_MS 30000
#define RATE_WINDOW_MS 100
#define REFAULT_SAMPLE_MS 2
#define REFAULT_MAX_MS 10000

static const char *const mapped_stats[] = { "pages_4k", "pages_2m", "pages_1g" };

/* Live MMU pages: leaf mappings, plus shadow pages ever created (mmu_cache_miss). */
static uint64_t mmu_size(struct zl *z)
{
	uint64_t sum = 0, v;

	for (size_t i = 0; i < ARRAY_SIZE(mapped_stats); i++)
		if (stats_try_read(&z->vm_stats, mapped_stats[i], &v))
			sum += v;
	if (stats_try_read(&z->vm_stats, "mmu_cache_miss", &v))
		sum += v;
	return sum;
}

void zl_wait_warm(struct zl *z)
{
	struct timespec start = ts_now();
	uint64_t last = mmu_size(z);
	int stable = 0;

	while (stable < WARM_STABLE_SAMPLES && ts_to_ns(ts_elapsed(start)) / 1000000 < WARM_MAX_MS) {
		uint64_t now;

		usleep(WARM_SAMPLE_MS * 1000);
		now = mmu_size(z);
		stable = now == last ? stable + 1 : 0;
		last = now;
	}
	z->warm_ms = ts_to_ns(ts_elapsed(start)) / 1000000;
}

/* Pages the vCPUs touch per ms, over the last window. */
static double touch_rate(struct zl *z, unsigned int window_ms)
{
	uint64_t before = memstress_touched_live(z->ms);
	struct timespec start = ts_now();

	usleep(window_ms * 1000);
	return (double)(memstress_touched_live(z->ms) - before) /
	       (ts_to_ns(ts_elapsed(start)) / 1e6);
}

/*
 * Gaps between consecutive progress stamps of every vCPU with stamp index
 * in [from[v], to[v]), as ns.
 */
static void stamp_gaps(struct zl *z, const uint64_t *from, const uint64_t *to,
		       struct zl_gaps *g)
{
	uint64_t len = z->ms->gargs->stamp_len, n = 0, cap = 0, *gaps = NULL;

	for (uint32_t v = 0; v < z->o.ms.nr_vcpus; v++) {
		const volatile uint64_t *ring = memstress_stamps(z->ms, v);
		uint64_t lo = from[v];

		/* Stamps older than the ring holds are gone. */
		if (to[v] > len && lo < to[v] - len)
			lo = to[v] - len;
		for (uint64_t i = lo + 1; i < to[v]; i++) {
			uint64_t a = ring[(i - 1) & (len - 1)], b = ring[i & (len - 1)];

			if (n == cap) {
				uint64_t *grown;

				cap = cap ? cap * 2 : 4096;
				grown = realloc(gaps, cap * sizeof(*gaps));
				TEST_ASSERT(grown, "out of memory");
				gaps = grown;
			}
			gaps[n++] = b > a ? (b - a) * 1000000000ULL / z->clock_hz : 0;
		}
	}
	*g = (struct zl_gaps){ .n = n };
	if (n) {
		u64_sort(gaps, n);
		g->p50 = u64_percentile(gaps, n, 50);
		g->p99 = u64_percentile(gaps, n, 99);
		g->max = gaps[n - 1];
	}
	free(gaps);
}

static void stamp_indexes(struct zl *z, uint64_t *idx)
{
	for (uint32_t v = 0; v < z->o.ms.nr_vcpus; v++)
		idx[v] = z->ms->gargs->vcpu_args[v].stamp_idx;
}

static void trigger(struct zl *z)
{
	if (z->o.trigger == TRIGGER_DELETE)
		vm_mem_region_delete(z->ms->vm, z->extra_slot);
	else
		vm_mem_region_move(z->ms->vm, z->extra_slot, z->extra_moved_gpa);
}

static void untrigger(struct zl *z)
{
	if (z->o.trigger == TRIGGER_DELETE)
		vm_mem_region_readd(z->ms->vm, z->extra_slot);
	else
		vm_mem_region_move(z->ms->vm, z->extra_slot, z->extra_gpa);
}

/*
 * Slot-only zaps: the guest writes every page of the trigger slot (the
 * vCPUs stay off it otherwise), so KVM maps them; the slot's dirty log
 * counts the pages KVM mapped writable since the slot was (re)created.
 * Fetching it write-protects them: they stay mapped until the trigger.
 */
static void populate_slot(struct zl *z, struct zl_zap *zap)
{
	zap->slot_written = memstress_touch_extra(z->ms, z->extra_gpa, ZL_SLOT_BYTES / SZ_4K);
	vm_get_dirty_log(z->ms->vm, z->extra_slot, z->slot_bitmap);
	zap->slot_mapped = bitmap_weight(z->slot_bitmap, ZL_SLOT_BYTES / z->slot_log_page);
}

/* What the MMU held right before the trigger: leaf mappings, live shadow pages. */
static void zap_baseline(struct zl *z, const struct stats_snapshot *s0, struct zl_zap *zap)
{
	uint64_t created = 0, zapped = 0, v;

	for (size_t i = 0; i < ARRAY_SIZE(mapped_stats); i++)
		zap->mapped[i] = stats_snapshot_value(&z->vm_stats, s0, mapped_stats[i], &v) ? v : 0;
	stats_snapshot_value(&z->vm_stats, s0, "mmu_cache_miss", &created);
	stats_snapshot_value(&z->vm_stats, s0, "mmu_shadow_zapped", &zapped);
	zap->shadow_live = created - zapped;
}

/* Until the vCPUs touch pages at 90% of their warm rate again (or give up). */
static void time_refault(struct zl *z, struct zl_zap *zap, double warm_rate, struct timespec t1)
{
	while (ts_to_ns(ts_elapsed(t1)) / 1000000 < REFAULT_MAX_MS) {
		if (touch_rate(z, REFAULT_SAMPLE_MS) >= 0.9 * warm_rate) {
			zap->refault = ts_elapsed(t1);
			zap->refault_done = true;
			return;
		}
	}
	zap->refault = ts_elapsed(t1);
}

void zl_measure_zap(struct zl *z, struct zl_zap *zap, bool traced)
{
	uint32_t nr = z->o.ms.nr_vcpus;
	uint64_t *before = calloc(nr, sizeof(uint64_t)), *start = calloc(nr, sizeof(uint64_t));
	uint64_t *end = calloc(nr, sizeof(uint64_t));
	struct stats_snapshot s0, s1;
	struct timed t;
	struct timespec t1;
	double warm_rate;

	TEST_ASSERT(before && start && end, "out of memory");
	if (z->slot_only)
		populate_slot(z, zap);
	zl_wait_warm(z);
	/* The warm rate, and the stall figures outside a zap, over the same window. */
	stamp_indexes(z, before);
	warm_rate = touch_rate(z, RATE_WINDOW_MS);
	stamp_indexes(z, start);
	stamp_gaps(z, before, start, &zap->outside);

	/* Armed only now: the untraced zaps run with no event or probe enabled. */
	if (traced) {
		trace_clear(&z->trace);
		trace_arm(&z->trace, true);
	}
	stats_snapshot(&z->vm_stats, &s0);
	zap_baseline(z, &s0, zap);
	stamp_indexes(z, start);
	timed_start(&t, NULL);
	trigger(z);
	t1 = ts_now();	/* the refault and trace windows start here */
	zap->ioctl = timed_stop_as(&t, traced ? "ioctl_latency_traced" : "ioctl_latency",
				   ts_sub(t1, t.start));
	if (traced)
		trace_arm(&z->trace, false);
	stamp_indexes(z, end);
	stats_snapshot(&z->vm_stats, &s1);

	/*
	 * During: the gaps from the last stamp before the ioctl to the first
	 * one after it.  Wait (briefly) for that first stamp of every vCPU.
	 */
	for (uint32_t v = 0; v < nr; v++) {
		for (int i = 0; i < 1000 && z->ms->gargs->vcpu_args[v].stamp_idx <= end[v]; i++)
			usleep(1000);
		if (z->ms->gargs->vcpu_args[v].stamp_idx > end[v])
			end[v]++;
		if (start[v])
			start[v]--;
	}
	stamp_gaps(z, start, end, &zap->during);
	time_refault(z, zap, warm_rate, t1);
	if (traced)
		zl_trace_analyze(z, zap, t.start, t1);

	zap->shadow_zapped = stats_delta(&z->vm_stats, &s0, &s1, "mmu_shadow_zapped");
	zap->shadow_made = stats_delta(&z->vm_stats, &s0, &s1, "mmu_cache_miss");
	for (size_t i = 0; i < ARRAY_SIZE(mapped_stats); i++) {
		zap->dropped[i] = -stats_delta(&z->vm_stats, &s0, &s1, mapped_stats[i]);
		zap->pages_dropped += zap->dropped[i];
	}
	stats_snapshot_free(&s0);
	stats_snapshot_free(&s1);
	untrigger(z);
	free(before);
	free(start);
	free(end);
}
