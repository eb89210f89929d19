// SPDX-License-Identifier: GPL-2.0
/* zap_latency results: the seed's lines, decimal twins, the summary, the record. */
#include <math.h>
#include <stdlib.h>

#include "json.h"
#include "order_stats.h"
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
		snprintf(buf, len, "of %ld live + %ld made during the zap (mmu_shadow_zapped, "
			 "which counts a root the vCPUs held again when they free it; "
			 "mmu_cache_miss)", (long)zap->shadow_live, (long)zap->shadow_made);
	else
		snprintf(buf, len, "(mmu_shadow_zapped; this KVM's mmu_cache_miss does not count "
			 "its live shadow pages)");
	return buf;
}

void zl_print_trace_setup(const struct zl *z)
{
	if (!z->traced) {
		ksft_print_msg("traced zaps: none, so no kernel span or lock breaks: %s\n",
			       z->trace_why);
		return;
	}
	ksft_print_msg("traced zaps: %lu, after the %lu untraced ones, each from the same warm "
		       "state; kernel span: %s%s%s; trace clock %s, raw buffers, %lu ns "
		       "resolution; instance %s\n", (unsigned long)z->o.traced_zaps,
		       (unsigned long)z->o.zaps, z->span_what,
		       z->helper_func[0] ? ", and any task's " : "", z->helper_func,
		       z->trace.clock, (unsigned long)z->trace.clock_res_ns, z->trace.dir);
	if (z->breaks_known) {
		ksft_print_msg("lock breaks: returns of __cond_resched_rwlock_write/_read that "
			       "dropped the lock, in the zap's tasks inside the span; preempt "
			       "model %s (%s): a break is %s\n", z->preempt, z->preempt_source,
			       z->break_means);
		ksft_print_msg("longest stretch without a break: the ioctl task's, from the "
			       "span's entry (taking mmu_lock included) or a break's return to "
			       "the next breaking call's entry or the span's return\n");
		ksft_print_msg("lock-break offers: entries of those helpers, counted as breaks "
			       "are%s\n", z->page_events ? "; pages zapped before the first offer: "
			       "the ioctl task's kvm_mmu_prepare_zap_page events before it, roots "
			       "still in use left out (the batch counts them only when freed)" : "");
	} else {
		ksft_print_msg("lock breaks: not observable here: %s\n", z->breaks_why);
	}
}

/* A traced zap: the post's two lines (exact figures only), then their decimal twin. */
static void print_traced(const struct zl *z, uint64_t k, const struct zl_zap *zap)
{
	uint64_t ioctl_ns = ts_to_ns(zap->ioctl);
	char breaks[160];

	if (!zap->span_seen) {
		ksft_print_msg("traced zap %lu/%lu: ioctl %.3f ms; %s was not seen in the ioctl, so "
			       "no span\n", (unsigned long)k, (unsigned long)z->o.traced_zaps,
			       ms(ioctl_ns), z->span_func);
		return;
	}
	if (z->breaks_known) {
		printf("lock-break: %lu.\n", (unsigned long)zap->lock_breaks);
		int len = snprintf(breaks, sizeof(breaks), "%lu lock break(s) of %lu offer(s) in "
				   "%lu task(s)", (unsigned long)zap->lock_breaks,
				   (unsigned long)zap->offers, (unsigned long)zap->zap_tasks);

		if (zap->stretch_seen)
			len += snprintf(breaks + len, sizeof(breaks) - len, ", the longest stretch "
					"without one %lu ns", (unsigned long)zap->longest_stretch_ns);
		if (zap->first_batch_seen)
			snprintf(breaks + len, sizeof(breaks) - len, ", %lu page(s) zapped before "
				 "the first offer", (unsigned long)zap->first_batch);
	} else {
		snprintf(breaks, sizeof(breaks), "lock breaks not observable here");
	}
	printf("%s: %lx.\n", z->span_func, (unsigned long)zap->span_ns);
	ksft_print_msg("traced zap %lu/%lu: %s: %lu ns (%s); %s; ioctl %.3f ms traced\n",
		       (unsigned long)k, (unsigned long)z->o.traced_zaps, z->span_func,
		       (unsigned long)zap->span_ns, z->span_what, breaks, ms(ioctl_ns));
	if (z->mechanism == MECH_TRACEPOINT)
		ksft_print_msg("  used_pages %lu, %lu page zap events, %lu other tasks' MMU events "
			       "in the span\n", (unsigned long)zap->used_pages,
			       (unsigned long)zap->page_zap_events, (unsigned long)zap->other_events);
	if (zap->trace_lost)
		ksft_print_msg("  the trace buffer lost %lu events: the trace figures are a lower "
			       "bound\n", (unsigned long)zap->trace_lost);
}

void zl_print_zap(const struct zl *z, uint64_t i, const struct zl_zap *zap)
{
	uint64_t ioctl_ns = ts_to_ns(zap->ioctl);
	unsigned long n = i + 1, of = z->o.zaps;
	char page[16], live[256];

	if (zl_zap_is_traced(z, i)) {
		print_traced(z, i - z->o.zaps + 1, zap);
		return;
	}
	if (z->shadow_pages)
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; MMU pages zapped: %ld %s, %ld mappings "
			       "dropped (4K %ld, 2M %ld, 1G %ld: pages_4k/2m/1g)\n",
			       n, of, ms(ioctl_ns),
			       (long)zap->shadow_zapped, live_text(z, zap, live, sizeof(live)),
			       (long)zap->pages_dropped, (long)zap->dropped[0], (long)zap->dropped[1],
			       (long)zap->dropped[2]);
	else if (z->mapping_stats)
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; mappings dropped: %ld of %ld (4K %ld of %ld, "
			       "2M %ld of %ld, 1G %ld of %ld: pages_4k/2m/1g); MMU pages zapped: not "
			       "counted (no KVM stat counts the TDP MMU's page-table pages)\n",
			       n, of, ms(ioctl_ns), (long)zap->pages_dropped,
			       (long)(zap->mapped[0] + zap->mapped[1] + zap->mapped[2]),
			       (long)zap->dropped[0], (long)zap->mapped[0], (long)zap->dropped[1],
			       (long)zap->mapped[1], (long)zap->dropped[2], (long)zap->mapped[2]);
	else
		ksft_print_msg("zap %lu/%lu: ioctl %.3f ms; MMU pages zapped: not counted (this "
			       "host's KVM has no mmu_shadow_zapped or pages_4k/2m/1g stats)\n",
			       n, of, ms(ioctl_ns));
	if (z->slot_only)
		ksft_print_msg("  unmapped: the %s slot's %lu pages (%s each) KVM had mapped, by its "
			       "dirty log of the %lu 4K pages the guest wrote before the trigger\n",
			       "2M", (unsigned long)zap->slot_mapped,
			       size_format(z->slot_log_page, page, sizeof(page)),
			       (unsigned long)zap->slot_written);
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

/* What a figure's getter returns for a zap that could not measure it. */
#define UNMEASURED UINT64_MAX

/* The zaps a figure comes from: the untraced ones, or the traced ones that saw the span. */
static bool zap_counts(const struct zl *z, uint64_t i, bool traced)
{
	return zl_zap_is_traced(z, i) == traced && (!traced || z->zaps[i].span_seen);
}

/* One figure's values over its zaps into v (nr_done + 1 slots); returns how many. */
static uint64_t values(const struct zl *z, uint64_t (*get)(const struct zl_zap *), bool traced,
		       uint64_t *v)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < z->nr_done; i++) {
		uint64_t x = zap_counts(z, i, traced) ? get(&z->zaps[i]) : UNMEASURED;

		if (x != UNMEASURED)
			v[n++] = x;
	}
	return n;
}

/* Median, min and max of one figure over its zaps; returns how many. */
static uint64_t summary(const struct zl *z, uint64_t (*get)(const struct zl_zap *), bool traced,
			uint64_t out[3])
{
	uint64_t *v = calloc(z->nr_done + 1, sizeof(uint64_t)), n;

	TEST_ASSERT(v, "out of memory");
	n = values(z, get, traced, v);
	u64_sort(v, n);
	out[0] = u64_percentile(v, n, 50);
	out[1] = v[0];
	out[2] = v[n ? n - 1 : 0];
	free(v);
	return n;
}

static uint64_t get_ioctl(const struct zl_zap *zap) { return ts_to_ns(zap->ioctl); }
static uint64_t get_span(const struct zl_zap *zap) { return zap->span_ns; }
static uint64_t get_breaks(const struct zl_zap *zap) { return zap->lock_breaks; }
static uint64_t get_stretch(const struct zl_zap *zap)
{
	return zap->stretch_seen ? zap->longest_stretch_ns : UNMEASURED;
}
static uint64_t get_offers(const struct zl_zap *zap) { return zap->offers; }
static uint64_t get_first_batch(const struct zl_zap *zap)
{
	return zap->first_batch_seen ? zap->first_batch : UNMEASURED;
}
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
	NEEDS_BREAKS = 16,	/* lock breaks observable (kretprobes): else not measured */
	TRACED = 32,		/* from the traced zaps (else the untraced ones) */
};

static const struct {
	const char *name, *unit;
	uint64_t (*get)(const struct zl_zap *);
	unsigned int needs;
} figures[] = {
	{ "ioctl_latency", "ns", get_ioctl, 0 },
	{ "kernel_zap_span", "ns", get_span, NEEDS_TRACE | TRACED },
	{ "lock_breaks", "breaks", get_breaks, NEEDS_TRACE | NEEDS_BREAKS | TRACED },
	{ "longest_stretch", "ns", get_stretch, NEEDS_TRACE | NEEDS_BREAKS | TRACED },
	{ "lock_break_offers", "offers", get_offers, NEEDS_TRACE | NEEDS_BREAKS | TRACED },
	{ "pages_before_first_offer", "pages", get_first_batch,
	  NEEDS_TRACE | NEEDS_BREAKS | NEEDS_SHADOW | TRACED },
	{ "ioctl_latency_traced", "ns", get_ioctl, NEEDS_TRACE | TRACED },
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
	       (!(n & NEEDS_MAPPINGS) || z->mapping_stats);
}

/* Whether this run could measure figure f. */
static bool figure_measured(const struct zl *z, size_t f)
{
	unsigned int n = figures[f].needs;

	return figure_applies(z, f) && (!(n & NEEDS_TRACE) || z->traced) &&
	       (!(n & NEEDS_BREAKS) || z->breaks_known);
}

void zl_print_summary(const struct zl *z)
{
	uint64_t s[3];

	if (!z->nr_done)
		return;
	for (size_t f = 0; f < ARRAY_SIZE(figures); f++) {
		bool traced = figures[f].needs & TRACED;
		uint64_t n;

		if (!figure_measured(z, f))
			continue;
		n = summary(z, figures[f].get, traced, s);
		if (!n)
			continue;
		ksft_print_msg("%s over %lu %s zaps: median %lu, min %lu, max %lu %s\n",
			       figures[f].name, (unsigned long)n, traced ? "traced" : "untraced",
			       (unsigned long)s[0], (unsigned long)s[1], (unsigned long)s[2],
			       figures[f].unit);
	}
}

static void write_params(struct json *j, const struct zl *z)
{
	json_object_begin(j, "params");
	json_u64(j, "vcpus", z->o.ms.nr_vcpus);
	json_u64(j, "vcpu_bytes", z->o.ms.vcpu_bytes);
	json_u64(j, "bytes", z->o.total_bytes);
	json_string(j, "backing_src", backing_src_name(z->o.ms.src));
	json_u64(j, "zaps", z->o.zaps);
	json_u64(j, "traced_zaps", z->o.traced_zaps);
	json_string(j, "trigger", z->o.trigger == TRIGGER_DELETE ? "delete" : "move");
	json_string(j, "zap_all", z->o.zap_all == ZAP_ALL_OFF ? "off" :
			       z->o.zap_all == ZAP_ALL_ON ? "on" : "default");
	json_string(j, "mmu", z->mmu);
	if (z->slot_only)
		json_bool(j, "slot_populated", true);
	json_bool(j, "traced", z->traced);
	json_string(j, "trace_unavailable", z->traced ? NULL : z->trace_why);
	json_object_end(j);
}

/*
 * The record's "trace": how the traced zaps measured, so that a reader knows
 * what the figures are.
 */
static void write_trace(struct json *j, const struct zl *z)
{
	json_object_begin(j, "trace");
	json_string(j, "mechanism", z->mechanism == MECH_KPROBE ? "kprobe" :
				    z->mechanism == MECH_TRACEPOINT ? "tracepoint" : "none");
	json_string(j, "span_function", z->traced ? z->span_func : NULL);
	json_string(j, "span", z->traced ? z->span_what : NULL);
	json_string(j, "worker_function", z->helper_func[0] ? z->helper_func : NULL);
	json_string(j, "clock", z->traced ? z->trace.clock : NULL);
	json_u64(j, "clock_resolution_ns", z->traced ? z->trace.clock_res_ns : 0);
	json_bool(j, "lock_breaks_observable", z->breaks_known);
	json_string(j, "lock_breaks_unavailable", z->breaks_known ? NULL : z->breaks_why);
	json_string(j, "preempt_model", z->preempt);
	json_string(j, "preempt_model_source", z->preempt_source);
	json_string(j, "lock_break_means", z->break_means);
	json_object_end(j);
}

/* The record's "figures": each one's median over its zaps, and each zap's value. */
static void write_figures(struct json *j, const struct zl *z)
{
	json_object_begin(j, "figures");
	for (size_t f = 0; f < ARRAY_SIZE(figures); f++) {
		uint64_t *u = calloc(z->nr_done + 1, sizeof(uint64_t)), s[3] = {}, n;
		double *v = calloc(z->nr_done + 1, sizeof(double));
		bool traced = figures[f].needs & TRACED;

		TEST_ASSERT(u && v, "out of memory");
		if (!figure_applies(z, f)) {
			free(u);
			free(v);
			continue;
		}
		if (!figure_measured(z, f)) {
			record_figure(j, figures[f].name, figures[f].unit, NAN, NULL, 0);
			free(u);
			free(v);
			continue;
		}
		n = values(z, figures[f].get, traced, u);
		for (uint64_t i = 0; i < n; i++)
			v[i] = u[i];
		if (n)
			summary(z, figures[f].get, traced, s);
		/* value: the median over its zaps; values: each zap's, in order. */
		record_figure(j, figures[f].name, figures[f].unit, n ? s[0] : NAN, v, n);
		free(u);
		free(v);
	}
	record_figure(j, "warm_up_time", "ms", z->warm_ms, NULL, 0);
	json_object_end(j);
}

/* One zap, an element of the record's "zaps". */
static void write_zap(struct json *j, const struct zl *z, const struct zl_zap *zap)
{
	json_object_begin(j, NULL);
	json_u64(j, "ioctl_ns", ts_to_ns(zap->ioctl));
	if (z->shadow_pages) {
		json_i64(j, "mmu_shadow_zapped", zap->shadow_zapped);
		if (z->shadow_live_known) {
			json_i64(j, "shadow_pages_live", zap->shadow_live);
			json_i64(j, "shadow_pages_made", zap->shadow_made);
		}
	}
	if (z->mapping_stats) {
		json_i64(j, "mappings_dropped", zap->pages_dropped);
		json_i64(j, "mappings_dropped_4k", zap->dropped[0]);
		json_i64(j, "mappings_dropped_2m", zap->dropped[1]);
		json_i64(j, "mappings_dropped_1g", zap->dropped[2]);
		json_i64(j, "mappings_before", zap->mapped[0] + zap->mapped[1] + zap->mapped[2]);
	}
	if (z->slot_only) {
		json_u64(j, "slot_pages_written", zap->slot_written);
		json_u64(j, "slot_pages_mapped", zap->slot_mapped);
		json_u64(j, "slot_page_bytes", z->slot_log_page);
	}
	json_bool(j, "traced", zap->traced);
	if (zap->traced) {
		json_bool(j, "span_seen", zap->span_seen);
		json_u64(j, "kernel_zap_span_ns", zap->span_ns);
		if (z->breaks_known) {
			json_u64(j, "lock_breaks", zap->lock_breaks);
			json_u64(j, "zap_tasks", zap->zap_tasks);
			json_u64(j, "lock_break_offers", zap->offers);
			if (zap->stretch_seen)
				json_u64(j, "longest_stretch_ns", zap->longest_stretch_ns);
			if (zap->first_batch_seen)
				json_u64(j, "pages_before_first_offer", zap->first_batch);
		}
		if (z->mechanism == MECH_TRACEPOINT) {
			json_u64(j, "used_pages", zap->used_pages);
			json_u64(j, "page_zap_events", zap->page_zap_events);
		}
		json_u64(j, "trace_events_lost", zap->trace_lost);
	}
	json_u64(j, "stall_during_p50_ns", zap->during.p50);
	json_u64(j, "stall_during_p99_ns", zap->during.p99);
	json_u64(j, "stall_during_max_ns", zap->during.max);
	json_u64(j, "stall_outside_p50_ns", zap->outside.p50);
	json_u64(j, "stall_outside_p99_ns", zap->outside.p99);
	json_u64(j, "stall_outside_max_ns", zap->outside.max);
	json_u64(j, "refault_ns", ts_to_ns(zap->refault));
	json_bool(j, "refault_done", zap->refault_done);
	json_object_end(j);
}

int zl_write_json(const struct zl *z, const struct host_desc *host, int argc, char **argv,
		  const char *status, const char *reason)
{
	int ret;
	struct json j;

	if (!z->o.json_path)
		return 0;
	record_begin(&j, "zap_latency", argc, argv, host);
	write_params(&j, z);
	write_trace(&j, z);
	stats_mappings_json(&j, &z->mappings);
	write_figures(&j, z);
	json_array_begin(&j, "zaps");
	for (uint64_t i = 0; i < z->nr_done; i++)
		write_zap(&j, z, &z->zaps[i]);
	json_array_end(&j);
	ret = record_end(&j, status, reason, z->o.json_path);
	json_free(&j);
	return ret;
}
