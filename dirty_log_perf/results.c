// SPDX-License-Identifier: GPL-2.0
/* dirty_log_perf results: the upstream total lines, and the JSON record. */
#include <math.h>
#include <stdlib.h>

#include "dlp.h"
#include "json.h"
#include "record.h"
#include "report.h"

const char *const dlp_phase_names[NR_PHASES] = {
	[PH_POPULATE] = "populate",
	[PH_ENABLE] = "enable_dirty_logging",
	[PH_DIRTY] = "dirty_memory",
	[PH_GET] = "get_dirty_log",
	[PH_CLEAR] = "clear_dirty_log",
	[PH_DISABLE] = "disable_dirty_logging",
};

static struct timespec sum(const struct dlp *d, size_t offset)
{
	struct timespec t = {};

	for (uint64_t i = 0; i < d->iterations_done; i++)
		t = ts_add(t, *(const struct timespec *)((const char *)&d->iters[i] + offset));
	return t;
}

static void print_total(const struct dlp *d, const char *name, size_t offset)
{
	struct timespec total = sum(d, offset), avg = ts_div(total, d->iterations_done);

	printf("%s over %lu iterations took " TS_FMT ". (Avg " TS_FMT "/iteration)\n", name,
	       (unsigned long)d->iterations_done, TS_ARGS(total), TS_ARGS(avg));
}

/*
 * -j: the vCPUs' work over the host's loop, in passes of their memory.
 * Below one pass the loop ended before they had touched every page once,
 * so the pages they touched mix their start with their steady work: the
 * figure (seed 000's "vCPUs improvement") says little.
 */
#define NONSTOP_MIN_PASSES 1.0

static double nonstop_passes(const struct dlp *d)
{
	return (double)(d->reads + d->writes) / (d->ms->pages_per_vcpu * d->o.ms.nr_vcpus);
}

static bool nonstop_loop_short(const struct dlp *d)
{
	return d->o.ms.nonstop && d->ms && d->iterations_done &&
	       nonstop_passes(d) < NONSTOP_MIN_PASSES;
}

/* Why the pages-touched figure says little, or NULL. */
static const char *nonstop_caveat(const struct dlp *d, char *buf, size_t len)
{
	if (!nonstop_loop_short(d))
		return NULL;
	snprintf(buf, len, "-j: the host's loop of %lu iterations lasted " TS_FMT ", and the "
		 "vCPUs touched %.2f passes of their memory in it, fewer than %.0f",
		 (unsigned long)d->iterations_done, TS_ARGS(d->loop), nonstop_passes(d),
		 NONSTOP_MIN_PASSES);
	return buf;
}

void results_print_totals(const struct dlp *d)
{
	char why[192];

	if (!d->iterations_done)
		return;
	print_total(d, collect_get_total_name(d), offsetof(struct dlp_iteration, get));
	if (collect_has_clear(d))
		print_total(d, collect_clear_total_name(d), offsetof(struct dlp_iteration, clear));
	printf("Total pages touched: %llu (Reads: %llu, Writes: %llu)\n",
	       (unsigned long long)(d->reads + d->writes), (unsigned long long)d->reads,
	       (unsigned long long)d->writes);
	memstress_print_page_units(&d->o.ms);
	if (!d->o.ms.nonstop)
		ksft_print_msg("lockstep wake-up skew, in the dirty memory times: the last vCPU "
			       "resumed " TS_FMT " after each release, the host saw the last pass "
			       TS_FMT " after it ended (averages; waiting: %s)\n",
			       TS_ARGS(ts_div(sum(d, offsetof(struct dlp_iteration, release_skew)),
					      d->iterations_done)),
			       TS_ARGS(ts_div(sum(d, offsetof(struct dlp_iteration, completion_skew)),
					      d->iterations_done)), d->ms->wait.how);
	if (d->o.ms.nonstop) {
		/* The post's vCPU figure: work done while the host looped, not waited for. */
		ksft_print_msg("-j: the vCPUs touched those pages while the host ran its %lu "
			       "iterations back to back, in " TS_FMT " (%.2f passes of their "
			       "memory), never waiting for them\n",
			       (unsigned long)d->iterations_done, TS_ARGS(d->loop),
			       (double)(d->reads + d->writes) /
			       (d->ms->pages_per_vcpu * d->o.ms.nr_vcpus));
		ksft_print_msg("Pages touched by vCPUs while the log was cleared: %lu\n",
			       (unsigned long)d->touched_during_clear);
		if (nonstop_caveat(d, why, sizeof(why)))
			ksft_print_msg("%s: too short for the pages touched (seed 000's \"vCPUs "
				       "improvement\") to say much. Lengthen the loop with more "
				       "iterations (-i) or a delay between clear chunks (-l); more "
				       "memory (-b) lengthens it too, and each pass with it\n", why);
	}
	if (d->o.ring_entries)
		ksft_print_msg("Dirty ring: %lu entries harvested, %lu full exits, %lu invalid "
			       "entries, %lu overfilled rings found\n",
			       (unsigned long)d->ring_counts.harvested,
			       (unsigned long)d->ring_full_exits,
			       (unsigned long)d->ring_invalid_entries,
			       (unsigned long)d->ring_counts.full_walks);
	if (d->o.ring_entries && d->ms && d->ms->vm->dirty_ring_bitmap)
		ksft_print_msg("Dirty ring with the bitmap beside it "
			       "(KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP): %lu pages from the bitmap\n",
			       (unsigned long)d->ring_bitmap_pages);
}

static void figure_times(struct json *j, const struct dlp *d, const char *name, size_t offset)
{
	double *v = calloc(d->iterations_done + 1, sizeof(double));

	TEST_ASSERT(v, "out of memory");
	for (uint64_t i = 0; i < d->iterations_done; i++)
		v[i] = ts_to_sec(*(const struct timespec *)((const char *)&d->iters[i] + offset));
	record_figure(j, name, "s", ts_to_sec(sum(d, offset)), v, d->iterations_done);
	free(v);
}

static void figure_counts(struct json *j, const struct dlp *d, const char *name, size_t offset)
{
	double *v = calloc(d->iterations_done + 1, sizeof(double));
	uint64_t total = 0;

	TEST_ASSERT(v, "out of memory");
	for (uint64_t i = 0; i < d->iterations_done; i++) {
		v[i] = *(const uint64_t *)((const char *)&d->iters[i] + offset);
		total += v[i];
	}
	/* The value is the iterations' sum, as the times' is. */
	record_figure(j, name, "pages", total, v, d->iterations_done);
	free(v);
}

static void write_params(struct json *j, const struct dlp *d)
{
	const struct dlp_opts *o = &d->o;

	json_object_begin(j, "params");
	json_string(j, "guest_mode", guest_mode_name(o->ms.mode));
	json_u64(j, "vcpus", o->ms.nr_vcpus);
	json_u64(j, "vcpu_bytes", o->ms.vcpu_bytes);
	json_string(j, "backing_src", backing_src_name(o->ms.src));
	json_u64(j, "slots", o->ms.slots);
	json_bool(j, "overlap", o->ms.shared);
	json_u64(j, "write_percent", o->ms.write_percent);
	json_bool(j, "random_access", o->ms.random_access);
	json_u64(j, "random_seed", o->ms.random_seed);
	json_u64(j, "iterations", o->iterations);
	json_bool(j, "nonstop", o->ms.nonstop);
	json_u64(j, "test_gpa", d->ms ? d->ms->gpa : o->ms.test_gpa);
	json_bool(j, "manual_protect", o->manual_protect);
	json_u64(j, "manual_protect_caps", d->manual_caps);
	json_bool(j, "run_while_disabling", o->run_while_disabling);
	json_u64(j, "clear_chunk_bytes", o->clear_chunk);
	json_u64(j, "clear_delay_ms", o->clear_delay_ms);
	json_string(j, "log", o->ring_entries ? "dirty_ring" : "bitmap");
	json_u64(j, "ring_entries", o->ring_entries);
	if (o->eager_split)
		json_u64(j, "eager_split_chunk_bytes", o->eager_split_chunk);
	/* The unit of dirty_pages and verify_lost_pages where it is not 4K (64K-page hosts). */
	if (d->log_page_size && d->log_page_size != SZ_4K)
		json_u64(j, "dirty_log_page_bytes", d->log_page_size);
	json_bool(j, "verify", o->verify);
	json_bool(j, "age", o->age);
	memstress_cpus_json(j, &o->ms);
	json_object_end(j);
}

/* The record's "figures": the phases' times, each iteration's, and the counts. */
static void write_figures(struct json *j, const struct dlp *d)
{
	json_object_begin(j, "figures");
	record_figure(j, "populate_time", "s", ts_to_sec(d->populate), NULL, 0);
	record_figure(j, "enable_dirty_logging_time", "s", ts_to_sec(d->enable), NULL, 0);
	record_figure(j, "disable_dirty_logging_time", "s", ts_to_sec(d->disable), NULL, 0);
	if (!d->o.ms.nonstop) {
		figure_times(j, d, "dirty_memory_time", offsetof(struct dlp_iteration, dirty));
		figure_times(j, d, "lockstep_release_skew",
			     offsetof(struct dlp_iteration, release_skew));
		figure_times(j, d, "lockstep_completion_skew",
			     offsetof(struct dlp_iteration, completion_skew));
	}
	figure_times(j, d, d->o.ring_entries ? "harvest_dirty_ring_time" : "get_dirty_log_time",
		     offsetof(struct dlp_iteration, get));
	if (collect_has_clear(d)) {
		figure_times(j, d, d->o.ring_entries ? "reset_dirty_rings_time" :
			     "clear_dirty_log_time", offsetof(struct dlp_iteration, clear));
		/* clear_wall - clear = what the suite itself spent in the clear step. */
		figure_times(j, d, "clear_step_wall_time", offsetof(struct dlp_iteration,
								    clear_wall));
	}
	figure_counts(j, d, "dirty_pages", offsetof(struct dlp_iteration, dirty_pages));
	if (d->first_clear_tables_known)
		record_figure(j, "first_clear_page_tables_added", "pages",
			      d->first_clear_tables, NULL, 0);
	record_figure(j, "pages_touched", "pages", d->reads + d->writes, NULL, 0);
	record_figure(j, "pages_read", "pages", d->reads, NULL, 0);
	record_figure(j, "pages_written", "pages", d->writes, NULL, 0);
	record_figure(j, "host_waits_for_vcpus", "waits", d->loop_host_waits, NULL, 0);
	if (d->o.ms.nonstop)
		figure_counts(j, d, "pages_touched_during_clear",
			      offsetof(struct dlp_iteration, touched_during_clear));
	if (d->o.ring_entries) {
		record_figure(j, "ring_full_exits", "exits", d->ring_full_exits, NULL, 0);
		record_figure(j, "ring_invalid_entries", "entries", d->ring_invalid_entries,
			      NULL, 0);
		record_figure(j, "ring_overfilled_walks", "walks", d->ring_counts.full_walks,
			      NULL, 0);
		if (d->ms && d->ms->vm->dirty_ring_bitmap)
			record_figure(j, "ring_bitmap_pages", "pages", d->ring_bitmap_pages,
				      NULL, 0);
	}
	if (d->o.age) {
		record_figure(j, "age_passes", "passes", d->age_passes, NULL, 0);
		record_figure(j, "aged_pages", "pages", d->age_pages, NULL, 0);
	}
	if (d->o.verify)
		record_figure(j, "verify_lost_pages", "pages", d->verify_lost, NULL, 0);
	if (d->o.ms.nonstop && d->ms && d->iterations_done) {
		record_figure(j, "nonstop_loop_time", "s", ts_to_sec(d->loop), NULL, 0);
		record_figure(j, "nonstop_passes", "passes", nonstop_passes(d), NULL, 0);
	}
	loop_vcpus_figures(j, d);
	json_object_end(j);
}

int results_write_json(const struct dlp *d, const struct host_desc *host, int argc, char **argv,
			const char *status, const char *reason)
{
	int ret;
	struct json j;
	char why[192];

	if (!d->o.json_path)
		return 0;
	record_begin(&j, "dirty_log_perf", argc, argv, host);
	write_params(&j, d);
	if (d->ms) {
		struct memstress_layout layout;

		memstress_layout_get(d->ms, &layout);
		memstress_layout_json(&j, &layout);
		memstress_layout_free(&layout);
	}
	stats_mappings_json(&j, &d->mappings);

	write_figures(&j, d);
	if (nonstop_caveat(d, why, sizeof(why))) {
		json_object_begin(&j, "caveats");
		json_string(&j, "pages_touched", why);
		json_object_end(&j);
	}

	if (d->vm_stats.fd > 0) {
		struct stats_snapshot zero;

		stats_snapshot_zero(&d->vm_stats, &zero);
		json_object_begin(&j, "phases");
		for (int p = 0; p < NR_PHASES; p++)
			if (d->phase_stats[p].values)
				record_phase_stats(&j, dlp_phase_names[p], &d->vm_stats, &zero,
						   &d->phase_stats[p]);
		loop_vcpus_phase(&j, d);
		json_object_end(&j);
		stats_snapshot_free(&zero);
	}
	ret = record_end(&j, status, reason, d->o.json_path);
	json_free(&j);
	return ret;
}
