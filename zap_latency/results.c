// SPDX-License-Identifier: GPL-2.0
/* zap_latency results: the seed's lines, decimal twins, the summary, the record. */
#include <math.h>
#include <stdlib.h>

#include "host_desc.h"
#include "json.h"
#include "record.h"
#include "report.h"
#include "zl.h"

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static double us(uint64_t ns)
{
	return ns / 1e3;
}

/* "of N live (...)": shadow pages before the zap, where the stats tell. */
static const char *live_text(const struct zl *z, const struct zl_zap *zap, char *buf, size_t len)
{
	if (z->shadow_live_known)
		snprintf(buf, len, "of %ld live + %ld made during the zap (mmu_shadow_zapped; "
			 "mmu_cache_miss)", (long)zap->shadow_live, (long)zap->shadow_made);
	else
		snprintf(buf, len, "(mmu_shadow_zapped; this KVM's mmu_cache_miss does not count "
			 "its live shadow pages)");
	return buf;
}

void zl_print_zap(const struct zl *z, uint64_t i, const struct zl_zap *zap)
{
	uint64_t ioctl_ns = ts_to_ns(zap->ioctl);
	char page[16], live[128];

	/* The seed's form: its printk lines, latency in hex ns. */
	if (zap->traced) {
		if (!z->tdp)
			printf("lock-break: %lu.\n", (unsigned long)zap->lock_breaks);
		printf("%s: %lx.\n", z->zap_event, (unsigned long)zap->window_ns);
	}
	if (z->shadow_pages)
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; MMU pages zapped: %ld %s, %ld mappings "
			       "dropped (4K %ld, 2M %ld, 1G %ld: pages_4k/2m/1g)\n",
			       (unsigned long)i, (unsigned long)z->o.zaps, ms(ioctl_ns),
			       (long)zap->shadow_zapped, live_text(z, zap, live, sizeof(live)),
			       (long)zap->pages_dropped, (long)zap->dropped[0], (long)zap->dropped[1],
			       (long)zap->dropped[2]);
	else if (z->mapping_stats)
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; mappings dropped: %ld of %ld (4K %ld of %ld, "
			       "2M %ld of %ld, 1G %ld of %ld: pages_4k/2m/1g); MMU pages zapped: not "
			       "counted (no KVM stat counts the TDP MMU's page-table pages)\n",
			       (unsigned long)i, (unsigned long)z->o.zaps, ms(ioctl_ns),
			       (long)zap->pages_dropped,
			       (long)(zap->mapped[0] + zap->mapped[1] + zap->mapped[2]),
			       (long)zap->dropped[0], (long)zap->mapped[0], (long)zap->dropped[1],
			       (long)zap->mapped[1], (long)zap->dropped[2], (long)zap->mapped[2]);
	else
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; MMU pages zapped: not counted (this "
			       "host's KVM has no mmu_shadow_zapped or pages_4k/2m/1g stats)\n",
			       (unsigned long)i, (unsigned long)z->o.zaps, ms(ioctl_ns));
	if (z->slot_only)
		ksft_print_msg("  unmapped: the %s slot's %lu pages (%s each) KVM had mapped, by its "
			       "dirty log of the %lu 4K pages the guest wrote before the trigger\n",
			       "2M", (unsigned long)zap->slot_mapped,
			       size_format(z->slot_log_page, page, sizeof(page)),
			       (unsigned long)zap->slot_written);
	if (zap->traced && z->tdp)
		ksft_print_msg("  kernel zap window %.3f ms (0x%lx ns), lock breaks: not counted "
			       "(the TDP MMU zaps invalidated roots with mmu_lock held for read, as "
			       "vCPU faults hold it: interleaved events are not lock drops), %lu SPTE "
			       "changes by the zapping task, %lu vCPU MMU events in the window\n",
			       ms(zap->window_ns), (unsigned long)zap->window_ns,
			       (unsigned long)zap->prepare_zaps, (unsigned long)zap->other_events);
	else if (zap->traced)
		ksft_print_msg("  kernel zap window %.3f ms (0x%lx ns), %lu lock break(s) observed "
			       "(a lower bound), used_pages %lu, %lu page zap events, %lu vCPU "
			       "MMU events in the window\n", ms(zap->window_ns),
			       (unsigned long)zap->window_ns, (unsigned long)zap->lock_breaks,
			       (unsigned long)zap->used_pages, (unsigned long)zap->prepare_zaps,
			       (unsigned long)zap->other_events);
	else
		ksft_print_msg("  trace figures unavailable: %s\n", z->trace_why);
	if (zap->trace_lost)
		ksft_print_msg("  the trace buffer lost %lu events: the trace figures are a lower "
			       "bound\n", (unsigned long)zap->trace_lost);
	ksft_print_msg("  guest stall during the zap: p50 %.1f us, p99 %.1f us, max %.1f us "
		       "(%lu gaps); outside: p50 %.1f us, p99 %.1f us, max %.1f us (%lu gaps)\n",
		       us(zap->during.p50), us(zap->during.p99), us(zap->during.max),
		       (unsigned long)zap->during.n, us(zap->outside.p50), us(zap->outside.p99),
		       us(zap->outside.max), (unsigned long)zap->outside.n);
	if (zap->refault_done)
		ksft_print_msg("  refault: %.3f ms until the vCPUs were back to 90%% of their rate\n",
			       ms(ts_to_ns(zap->refault)));
	else
		ksft_print_msg("  refault: not back to 90%% of the warm rate after %.0f ms\n",
			       ms(ts_to_ns(zap->refault)));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of one field over the zaps done. */
static void summary(const struct zl *z, uint64_t (*get)(const struct zl_zap *), uint64_t out[3])
{
	uint64_t *v = calloc(z->nr_done + 1, sizeof(uint64_t));

	TEST_ASSERT(v, "out of memory");
	for (uint64_t i = 0; i < z->nr_done; i++)
		v[i] = get(&z->zaps[i]);
	qsort(v, z->nr_done, sizeof(uint64_t), cmp_u64);
	out[0] = v[z->nr_done / 2];
	out[1] = v[0];
	out[2] = v[z->nr_done ? z->nr_done - 1 : 0];
	free(v);
}

static uint64_t get_ioctl(const struct zl_zap *zap) { return ts_to_ns(zap->ioctl); }
static uint64_t get_window(const struct zl_zap *zap) { return zap->window_ns; }
static uint64_t get_breaks(const struct zl_zap *zap) { return zap->lock_breaks; }
static uint64_t get_zapped(const struct zl_zap *zap) { return zap->shadow_zapped; }
static uint64_t get_dropped(const struct zl_zap *zap) { return zap->pages_dropped; }
static uint64_t get_stall(const struct zl_zap *zap) { return zap->during.max; }
static uint64_t get_refault(const struct zl_zap *zap) { return ts_to_ns(zap->refault); }
static uint64_t get_slot_mapped(const struct zl_zap *zap) { return zap->slot_mapped; }

/* What a figure needs of the host or the run. */
enum {
	NEEDS_TRACE = 1,	/* the trace: without it, recorded as not measured */
	NEEDS_SHADOW = 2,	/* an MMU with shadow pages (not the TDP MMU): else left out */
	NEEDS_MAPPINGS = 4,	/* pages_4k/2m/1g stats: else left out */
	NEEDS_SLOT_ONLY = 8,	/* a slot-only zap: else left out */
	NEEDS_LOCK = 16,	/* a write-locked zap (not the TDP MMU's): else left out */
};

static const struct {
	const char *name, *unit;
	uint64_t (*get)(const struct zl_zap *);
	unsigned int needs;
} figures[] = {
	{ "ioctl_latency", "ns", get_ioctl, 0 },
	{ "kernel_zap_window", "ns", get_window, NEEDS_TRACE },
	{ "lock_breaks", "breaks", get_breaks, NEEDS_TRACE | NEEDS_LOCK },
	{ "mmu_shadow_zapped", "pages", get_zapped, NEEDS_SHADOW },
	{ "mappings_dropped", "mappings", get_dropped, NEEDS_MAPPINGS },
	{ "slot_pages_mapped", "pages", get_slot_mapped, NEEDS_SLOT_ONLY },
	{ "guest_stall_max", "ns", get_stall, 0 },
	{ "refault_time", "ns", get_refault, 0 },
};

/* Whether figure f means anything for this run's host. */
static bool figure_applies(const struct zl *z, size_t f)
{
	unsigned int n = figures[f].needs;

	return (!(n & NEEDS_SLOT_ONLY) || z->slot_only) && (!(n & NEEDS_SHADOW) || z->shadow_pages) &&
	       (!(n & NEEDS_MAPPINGS) || z->mapping_stats) && (!(n & NEEDS_LOCK) || !z->tdp);
}

/* Whether this run could measure figure f. */
static bool figure_measured(const struct zl *z, size_t f)
{
	return figure_applies(z, f) && (!(figures[f].needs & NEEDS_TRACE) || z->traced);
}

void zl_print_summary(const struct zl *z)
{
	uint64_t s[3];

	if (!z->nr_done)
		return;
	for (size_t f = 0; f < ARRAY_SIZE(figures); f++) {
		if (!figure_measured(z, f))
			continue;
		summary(z, figures[f].get, s);
		ksft_print_msg("%s over %lu zaps: median %lu, min %lu, max %lu %s\n",
			       figures[f].name, (unsigned long)z->nr_done, (unsigned long)s[0],
			       (unsigned long)s[1], (unsigned long)s[2], figures[f].unit);
	}
}

int zl_write_json(const struct zl *z, int argc, char **argv, const char *status,
		   const char *reason)
{
	int ret;
	struct host_desc host;
	struct json j;

	if (!z->o.json_path)
		return 0;
	host_desc_read(&host);
	record_begin(&j, "zap_latency", argc, argv, &host);
	json_object_begin(&j, "params");
	json_u64(&j, "vcpus", z->o.ms.nr_vcpus);
	json_u64(&j, "bytes", z->o.total_bytes);
	json_string(&j, "backing_src", backing_src_name(z->o.ms.src));
	json_u64(&j, "zaps", z->o.zaps);
	json_string(&j, "trigger", z->o.trigger == TRIGGER_DELETE ? "delete" : "move");
	json_string(&j, "zap_all", z->o.zap_all == ZAP_ALL_OFF ? "off" :
			       z->o.zap_all == ZAP_ALL_ON ? "on" : "default");
	json_string(&j, "mmu", z->mmu);
	if (z->slot_only)
		json_bool(&j, "slot_populated", true);
	json_bool(&j, "traced", z->traced);
	json_string(&j, "trace_unavailable", z->traced ? NULL : z->trace_why);
	json_object_end(&j);

	stats_mappings_json(&j, &z->mappings);
	json_object_begin(&j, "figures");
	for (size_t f = 0; f < ARRAY_SIZE(figures); f++) {
		double *v = calloc(z->nr_done + 1, sizeof(double));
		uint64_t s[3] = {};

		TEST_ASSERT(v, "out of memory");
		if (!figure_applies(z, f)) {
			free(v);
			continue;
		}
		if (!figure_measured(z, f)) {
			record_figure(&j, figures[f].name, figures[f].unit, NAN, NULL, 0);
			free(v);
			continue;
		}
		for (uint64_t i = 0; i < z->nr_done; i++)
			v[i] = figures[f].get(&z->zaps[i]);
		if (z->nr_done)
			summary(z, figures[f].get, s);
		/* value: the median over the zaps; values: each zap's. */
		record_figure(&j, figures[f].name, figures[f].unit, z->nr_done ? s[0] : NAN, v,
			      z->nr_done);
		free(v);
	}
	record_figure(&j, "warm_up_time", "ms", z->warm_ms, NULL, 0);
	json_object_end(&j);

	json_array_begin(&j, "zaps");
	for (uint64_t i = 0; i < z->nr_done; i++) {
		const struct zl_zap *zap = &z->zaps[i];

		json_object_begin(&j, NULL);
		json_u64(&j, "ioctl_ns", ts_to_ns(zap->ioctl));
		if (z->shadow_pages) {
			json_i64(&j, "mmu_shadow_zapped", zap->shadow_zapped);
			if (z->shadow_live_known) {
				json_i64(&j, "shadow_pages_live", zap->shadow_live);
				json_i64(&j, "shadow_pages_made", zap->shadow_made);
			}
		}
		if (z->mapping_stats) {
			json_i64(&j, "mappings_dropped", zap->pages_dropped);
			json_i64(&j, "mappings_dropped_4k", zap->dropped[0]);
			json_i64(&j, "mappings_dropped_2m", zap->dropped[1]);
			json_i64(&j, "mappings_dropped_1g", zap->dropped[2]);
			json_i64(&j, "mappings_before", zap->mapped[0] + zap->mapped[1] + zap->mapped[2]);
		}
		if (z->slot_only) {
			json_u64(&j, "slot_pages_written", zap->slot_written);
			json_u64(&j, "slot_pages_mapped", zap->slot_mapped);
			json_u64(&j, "slot_page_bytes", z->slot_log_page);
		}
		json_bool(&j, "traced", zap->traced);
		json_u64(&j, "kernel_zap_window_ns", zap->window_ns);
		json_u64(&j, "used_pages", zap->used_pages);
		json_u64(&j, "page_zap_events", zap->prepare_zaps);
		if (!z->tdp)
			json_u64(&j, "lock_breaks_observed", zap->lock_breaks);
		json_u64(&j, "trace_events_lost", zap->trace_lost);
		json_u64(&j, "stall_during_p50_ns", zap->during.p50);
		json_u64(&j, "stall_during_p99_ns", zap->during.p99);
		json_u64(&j, "stall_during_max_ns", zap->during.max);
		json_u64(&j, "stall_outside_p50_ns", zap->outside.p50);
		json_u64(&j, "stall_outside_p99_ns", zap->outside.p99);
		json_u64(&j, "stall_outside_max_ns", zap->outside.max);
		json_u64(&j, "refault_ns", ts_to_ns(zap->refault));
		json_bool(&j, "refault_done", zap->refault_done);
		json_object_end(&j);
	}
	json_array_end(&j);
	ret = record_end(&j, status, reason, z->o.json_path);
	json_free(&j);
	return ret;
}
