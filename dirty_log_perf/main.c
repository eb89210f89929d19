// SPDX-License-Identifier: GPL-2.0
/*
 * dirty_log_perf: how long KVM takes to get and clear the dirty log while
 * vCPUs dirty guest memory, in the format of the kernel's
 * dirty_log_perf_test (as in the review of Vipin Sharma's "KVM: x86/mmu:
 * Atomically clear SPTE dirty state in the clear-dirty-log flow", 2023, by
 * David Matlack) and of Vipin Sharma's "KVM: arm64: Split huge pages during
 * clear-dirty-log under MMU read lock" (2023: -k, -l, -j).
 *
 * Phases: create, populate, enable logging, iterations (dirty, get, clear),
 * disable logging.  Every timed region wraps only the KVM ioctls (or the
 * vCPUs' work), never the suite's own bookkeeping.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "timed.h"
#include "dirty_log.h"
#include "bench_main.h"
#include "dlp.h"
#include "host_state.h"
#include "report.h"

static struct dlp dlp;

/* Add the VM stat deltas since *before to a phase's running total. */
static void phase_add(struct dlp *d, enum dlp_phase p, struct stats_snapshot *before)
{
	struct stats_snapshot after;

	stats_snapshot(&d->vm_stats, &after);
	if (!d->phase_stats[p].values)
		stats_snapshot_zero(&d->vm_stats, &d->phase_stats[p]);
	stats_delta_add(&d->phase_stats[p], before, &after);
	stats_snapshot_free(before);
	stats_snapshot_free(&after);
}

static void print_params(const struct dlp *d)
{
	const struct dlp_opts *o = &d->o;
	char size[80];

	ksft_print_msg("vCPUs: %u, memory per vCPU: %s, backing: %s, memslots: %u\n",
		       o->ms.nr_vcpus, memstress_memory_text(&o->ms, size, sizeof(size)),
		       backing_src_name(o->ms.src), o->ms.slots);
	if (o->ms.mode != guest_mode_default())
		ksft_print_msg("guest mode: %d (%s)\n", o->ms.mode, guest_mode_name(o->ms.mode));
	ksft_print_msg("writes: %u%%, access: %s, seed: %u, vCPUs: %s\n", o->ms.write_percent,
		       o->ms.random_access ? "random" : "in order", o->ms.random_seed,
		       o->ms.nonstop ? "nonstop (-j)" : "lockstep");
	if (o->ring_entries)
		ksft_print_msg("log: dirty ring, %u entries per vCPU (%s)\n", o->ring_entries,
			       dirty_ring_cap_name(d->ms->vm));
	else
		ksft_print_msg("log: bitmap, manual protect: %s, clear chunk: %s, delay: %lu ms\n",
			       d->manual_caps ? (d->manual_caps & KVM_DIRTY_LOG_INITIALLY_SET ?
					       "on, initially set" : "on") : "off",
			       o->clear_chunk ? size_format(o->clear_chunk, size, sizeof(size)) :
			       "whole slot", (unsigned long)o->clear_delay_ms);
	/* Said only where it is not the guest's 4K page, so 4K hosts print what they did. */
	if (d->log_page_size != SZ_4K)
		ksft_print_msg("dirty log: one bit per %s host page (%lu guest pages): dirty and "
			       "verified page counts are of %s pages\n",
			       size_format(d->log_page_size, size, sizeof(size)),
			       (unsigned long)(d->log_page_size / SZ_4K), size);
	if (o->eager_split)
		ksft_print_msg("eager split: %s chunks (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE)\n",
			       o->eager_split_chunk ? size_format(o->eager_split_chunk, size,
								  sizeof(size)) : "off, 0");
}

/*
 * Dirty logging on or off: the memslots' flags are set first (untimed), then
 * set_logging() issues KVM_SET_USER_MEMORY_REGION for each, and nothing
 * else, between the caller's clock reads (docs/perf.md).
 */
static void logging_flags(struct dlp *d, bool on)
{
	for (uint32_t i = 0; i < d->o.ms.slots; i++)
		vm_mem_region(d->ms->vm, memstress_slot(d->ms, i))->kr.flags =
			on ? KVM_MEM_LOG_DIRTY_PAGES : 0;
}

static void set_logging(struct dlp *d)
{
	for (uint32_t i = 0; i < d->o.ms.slots; i++) {
		struct mem_region *r = &d->ms->vm->regions[memstress_slot(d->ms, i)];

		TEST_ASSERT(!__vm_ioctl(d->ms->vm, KVM_SET_USER_MEMORY_REGION, &r->kr),
			    "KVM_SET_USER_MEMORY_REGION (memslot %u, flags 0x%x) failed: errno %d (%s)",
			    r->kr.slot, r->kr.flags, errno, strerror(errno));
	}
}

static void run_iteration(struct dlp *d, uint64_t i)
{
	struct dlp_iteration *it = &d->iters[i - 1];
	struct stats_snapshot snap;
	struct timed t;
	/* Every page is written every pass: the log must match exactly. */
	bool exact = !d->o.ms.nonstop && d->o.ms.write_percent == 100 && !d->o.ms.random_access;

	/* Rings served from here on count for this iteration (not for populate's). */
	d->ring_mid_harvest = d->ring_mid_reset = (struct timespec){};
	if (!d->o.ms.nonstop) {
		stats_snapshot(&d->vm_stats, &snap);
		timed_start(&t, d->ms->vm);
		memstress_next_iteration(d->ms);
		memstress_wait_iteration(d->ms);
		/* Full rings served meanwhile are harvest and reset time, not dirty time. */
		it->dirty = timed_stop_as(&t, "dirty_memory_time",
					  ts_sub(ts_elapsed(t.start), ts_add(d->ring_mid_harvest,
									    d->ring_mid_reset)));
		memstress_lockstep_skew(d->ms, &it->release_skew, &it->completion_skew);
		phase_add(d, PH_DIRTY, &snap);
		printf("Iteration %lu dirty memory time: " TS_FMT "\n", (unsigned long)i,
		       TS_ARGS(it->dirty));
	} else if (d->o.verify) {
		/*
		 * Nonstop (-j, as in the clear-dirty-log series): the host runs
		 * its iterations back to back and never waits for the vCPUs,
		 * which run passes meanwhile; what they wrote so far is noted
		 * before the log is fetched.
		 */
		verify_snapshot_written(d, i);
	}

	stats_snapshot(&d->vm_stats, &snap);
	it->get = TIMED_AS(d->o.ring_entries ? "harvest_dirty_ring_time" : "get_dirty_log_time",
			   NULL, ts_add(collect_get(d), d->ring_mid_harvest));
	phase_add(d, PH_GET, &snap);
	printf("Iteration %lu %s time: " TS_FMT "\n", (unsigned long)i, collect_get_name(d),
	       TS_ARGS(it->get));
	it->dirty_pages = collect_dirty_pages(d);
	if (d->o.verify)
		verify_iteration(d, i, exact);

	if (collect_has_clear(d)) {
		uint64_t tables0 = 0, tables;
		/* Exact only once the per-CPU deltas are folded in (root). */
		bool tables_known = i == 1 && !host_vmstat_refresh() &&
				    !host_meminfo_read("SecPageTables", &tables0);

		stats_snapshot(&d->vm_stats, &snap);
		timed_start(&t, NULL);
		it->clear = ts_add(collect_clear(d), d->ring_mid_reset);
		/* Two figures of one region: the ioctls', and the step's wall time less -l's sleeps. */
		it->clear_wall = timed_stop_as(&t, "clear_step_wall_time",
					       ts_sub(ts_elapsed(t.start), d->clear_delays_now));
		timed_stop_as(&t, d->o.ring_entries ? "reset_dirty_rings_time" :
			      "clear_dirty_log_time", it->clear);
		phase_add(d, PH_CLEAR, &snap);
		it->touched_during_clear = d->touched_during_clear_now;
		d->touched_during_clear += it->touched_during_clear;
		printf("Iteration %lu %s time: " TS_FMT "\n", (unsigned long)i,
		       collect_clear_name(d), TS_ARGS(it->clear));
		if (tables_known && !host_vmstat_refresh() &&
		    !host_meminfo_read("SecPageTables", &tables)) {
			d->first_clear_tables_known = true;
			d->first_clear_tables = ((int64_t)tables - (int64_t)tables0) / getpagesize();
			printf("Iteration 1 %s: %+" PRId64 " page-table pages (host-wide SecPageTables)\n",
			       collect_clear_name(d), d->first_clear_tables);
		}
	}
	if (d->copies)
		verify_copy_logged(d);
	d->iterations_done = i;
	/* Nonstop: pages written from now on belong to the next iteration. */
	if (d->o.ms.nonstop)
		memstress_set_iteration(d->ms, i + 1);
}

/*
 * vm_create_hook: what KVM accepts only while the VM has no memslot (the
 * eager-split chunk size; the ring's bitmap) and no vCPU (the ring).
 */
static void dlp_vm_create(struct kvm_vm *vm)
{
	if (dlp.o.eager_split)
		vm_enable_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, dlp.o.eager_split_chunk);
	collect_vm_create(&dlp, vm);
}

/* The VM, its memslots' dirty log and the run's bookkeeping. */
static void create(struct dlp *d)
{
	if (d->o.manual_protect && !d->o.ring_entries)
		d->manual_caps = kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) &
				 (KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE | KVM_DIRTY_LOG_INITIALLY_SET);
	vm_create_hook = dlp_vm_create;
	d->ms = memstress_create(&d->o.ms);
	vm_create_hook = NULL;
	d->ms->priv = d;
	if (d->manual_caps)
		vm_enable_cap(d->ms->vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, d->manual_caps);
	d->log_page_size = dirty_log_page_size();
	TEST_ASSERT(!(d->ms->slot_size % d->log_page_size),
		    "memslot size %lu is not a multiple of the dirty log's %lu-byte pages",
		    (unsigned long)d->ms->slot_size, (unsigned long)d->log_page_size);
	d->pages_per_slot = d->ms->slot_size / d->log_page_size;
	collect_setup(d);
	stats_open_vm(&d->vm_stats, d->ms->vm);
	d->iters = calloc(d->o.iterations, sizeof(*d->iters));
	TEST_ASSERT(d->iters, "out of memory");
}

/*
 * Dirty logging on: the iterations, with the vCPUs writing as asked.
 * *reads0, *writes0: the passes' counts before the first.
 */
static void run_iterations(struct dlp *d, uint64_t *reads0, uint64_t *writes0)
{
	struct memstress_guest_args *ga = d->ms->gargs;
	uint64_t live_reads0 = 0, live_writes0 = 0;
	struct timespec start;

	ga->write_percent = d->o.ms.write_percent;
	ga->random_access = d->o.ms.random_access;
	memstress_totals(d->ms, reads0, writes0);
	/* -j: the copy kept from the logs (verify.c), taken while the vCPUs are idle. */
	if (d->o.verify && d->o.ms.nonstop && !d->o.ring_entries && !d->o.run_while_disabling)
		verify_copy_begin(d);
	if (d->o.ms.nonstop) {
		memstress_next_iteration(d->ms);	/* iteration 1; vCPUs run free from here */
		memstress_live_counts(d->ms, &live_reads0, &live_writes0);
	}
	loop_vcpus_open(d);
	d->loop_host_waits = d->ms->host_waits;
	age_start(d);
	/* The vCPUs' counters are read outside the timed loop: it times the ioctls alone. */
	loop_vcpus_begin(d);
	start = ts_now();
	for (uint64_t i = 1; i <= d->o.iterations; i++)
		run_iteration(d, i);
	d->loop = ts_elapsed(start);
	loop_vcpus_end(d);
	age_stop(d);
	d->loop_host_waits = d->ms->host_waits - d->loop_host_waits;
	/* -j: what the vCPUs did while the host ran exactly its iteration loop. */
	if (d->o.ms.nonstop) {
		memstress_live_counts(d->ms, &d->reads, &d->writes);
		d->reads -= live_reads0;
		d->writes -= live_writes0;
	}
}

/* --print-stats: each phase's KVM stats. */
static void print_phase_stats(struct dlp *d)
{
	struct stats_snapshot zero;

	stats_snapshot_zero(&d->vm_stats, &zero);
	for (int p = 0; p < NR_PHASES; p++) {
		char heading[64];

		if (!d->phase_stats[p].values)
			continue;
		snprintf(heading, sizeof(heading), "KVM stats, %s", dlp_phase_names[p]);
		stats_delta_print_section(&d->vm_stats, &zero, &d->phase_stats[p], heading);
	}
	stats_snapshot_free(&zero);
}

static void run(struct dlp *d)
{
	struct memstress_guest_args *ga;
	struct stats_snapshot snap;
	uint64_t reads0, writes0, reads, writes, live_reads, live_writes;

	create(d);
	ga = d->ms->gargs;
	print_params(d);

	/* Populate with in-order writes, so no later fault is a CoW of the zero page. */
	ga->write_percent = 100;
	ga->random_access = 0;
	stats_snapshot(&d->vm_stats, &snap);
	d->populate = TIMED("populate_time", d->ms->vm, memstress_start(d->ms);
			    memstress_wait_iteration(d->ms));
	phase_add(d, PH_POPULATE, &snap);
	printf("Populate memory time: " TS_FMT "\n", TS_ARGS(d->populate));
	stats_mappings_read(&d->vm_stats, &d->mappings, "after populate");
	stats_mappings_print(&d->mappings);

	stats_snapshot(&d->vm_stats, &snap);
	logging_flags(d, true);
	d->enable = TIMED("enable_dirty_logging_time", NULL, set_logging(d));
	phase_add(d, PH_ENABLE, &snap);
	printf("Enabling dirty logging time: " TS_FMT "\n\n", TS_ARGS(d->enable));

	run_iterations(d, &reads0, &writes0);

	if (d->o.run_while_disabling)
		memstress_run_free(d->ms);
	else if (d->o.ms.nonstop)
		memstress_stop(d->ms);
	if (d->copies)
		verify_copy_end(d);
	stats_snapshot(&d->vm_stats, &snap);
	logging_flags(d, false);
	d->disable = TIMED("disable_dirty_logging_time", NULL, set_logging(d));
	phase_add(d, PH_DISABLE, &snap);
	printf("Disabling dirty logging time: " TS_FMT "\n", TS_ARGS(d->disable));
	memstress_stop(d->ms);

	memstress_totals(d->ms, &reads, &writes);
	/* Pass reports and the guest's own live counters must agree once stopped. */
	memstress_live_counts(d->ms, &live_reads, &live_writes);
	TEST_ASSERT(reads == live_reads && writes == live_writes,
		    "vCPUs reported %lu reads and %lu writes but counted %lu and %lu themselves",
		    (unsigned long)reads, (unsigned long)writes, (unsigned long)live_reads,
		    (unsigned long)live_writes);
	/* Lockstep: every pass from the first iteration to the end (populate excluded). */
	if (!d->o.ms.nonstop) {
		d->reads = reads - reads0;
		d->writes = writes - writes0;
	}
	results_print_totals(d);
	loop_vcpus_print(d);
	if (d->o.print_stats)
		print_phase_stats(d);
}

static void parse(int argc, char **argv)
{
	dlp_parse_options(&dlp.o, argc, argv);
}

static void print_iterations(const struct host_desc *host)
{
	printf("Test iterations: %lu\n", (unsigned long)dlp.o.iterations);
}

static void run_dlp(const struct host_desc *host)
{
	run(&dlp);
}

static const char *verdict(void)
{
	static char why[64];

	if (!dlp.verify_failures)
		return NULL;
	snprintf(why, sizeof(why), "--verify found %lu wrong page(s)",
		 (unsigned long)dlp.verify_failures);
	return why;
}

static int write_record(const struct host_desc *host, int argc, char **argv, const char *status,
			const char *reason)
{
	return results_write_json(&dlp, host, argc, argv, status, reason);
}

static void teardown(void)
{
	age_teardown();
	collect_teardown(&dlp);
	loop_vcpus_teardown(&dlp);
	stats_close(&dlp.vm_stats);
	memstress_destroy(dlp.ms);
}

int main(int argc, char **argv)
{
	static const struct bench b = {
		.name = "dirty_log_perf", .parse = parse, .print_params = print_iterations,
		.run = run_dlp, .verdict = verdict, .write_record = write_record,
		.teardown = teardown,
	};

	bench_main(&b, argc, argv);
}
