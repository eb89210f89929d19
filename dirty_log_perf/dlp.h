/* SPDX-License-Identifier: GPL-2.0 */
/* dirty_log_perf: shared state of the benchmark's files. */
#ifndef DLP_H
#define DLP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "dirty_ring.h"
#include "memstress.h"
#include "stats.h"
#include "thread_cputime.h"

struct dlp_opts {
	struct memstress_params ms;	/* -v -b -s -x -o -w -a -r -j -c */
	uint64_t iterations;		/* -i */
	bool manual_protect;		/* cleared by -g */
	bool run_while_disabling;	/* -e */
	uint64_t clear_chunk;		/* -k, bytes; 0: whole slot */
	uint64_t clear_delay_ms;	/* -l */
	uint32_t ring_entries;		/* --ring; 0: bitmap log */
	bool eager_split;		/* --eager-split given */
	uint64_t eager_split_chunk;	/* ...its chunk size, bytes (0: splitting off) */
	bool verify;			/* --verify */
	bool age;			/* --age */
	bool print_stats;		/* --stats */
	const char *json_path;		/* --json */
	int cpus[KMP_MAX_VCPUS + 1];
};

/* Phases whose KVM stat deltas are recorded. */
enum dlp_phase {
	PH_POPULATE,
	PH_ENABLE,
	PH_DIRTY,	/* summed over iterations */
	PH_GET,
	PH_CLEAR,
	PH_DISABLE,
	NR_PHASES,
};

struct dlp_iteration {
	struct timespec dirty, get, clear;
	/* Wall time of the whole clear step less -l delays: clear + the suite's own work. */
	struct timespec clear_wall;
	/* Lockstep wake-up skew inside `dirty`: release to the last vCPU, last pass to the host. */
	struct timespec release_skew, completion_skew;
	uint64_t dirty_pages;		/* dirty-log pages reported dirty by the log */
	uint64_t touched_during_clear;	/* guest heartbeat pages while clearing */
};

struct dlp {
	struct dlp_opts o;
	struct memstress *ms;
	/*
	 * The log's unit: KVM's dirty log has a bit per host page
	 * (dirty_log_page_size()), which holds log_page_size / 4K of the
	 * guest's pages.  Bitmaps, dirty counts and --verify work in these.
	 */
	uint64_t log_page_size;
	uint64_t pages_per_slot;	/* dirty-log pages */
	uint32_t manual_caps;		/* KVM_DIRTY_LOG_* flags enabled, 0 with -g */

	/* Bitmap log: one per slot; also the ring's collected pages. */
	uint64_t **bitmaps;
	/* --verify: dirty-log pages seen stamped with the iteration before collecting. */
	uint64_t **written;
	/* --verify -j (bitmap): each slot as the logs so far copied it (verify.c). */
	char **copies;

	/* Dirty ring. */
	struct dirty_ring *rings;
	struct dirty_ring_counts ring_counts;
	uint64_t ring_full_exits;
	uint64_t ring_invalid_entries;
	uint64_t ring_bitmap_pages;		/* from the bitmap beside the ring (arm64) */
	uint64_t ring_empty_rounds;		/* full exits served with nothing to harvest */
	volatile uint64_t ring_generation;	/* bumped after each reset */
	volatile uint32_t ring_full_waiting;
	pthread_mutex_t ring_lock;		/* full vCPUs sleep on ring_reset until a reset */
	pthread_cond_t ring_reset;
	/*
	 * This iteration's harvests and resets of full rings while the vCPUs
	 * ran: they count as harvest and reset time, not as dirty time.
	 */
	struct timespec ring_mid_harvest, ring_mid_reset;

	/* Measurements. */
	struct timespec populate, enable, disable;
	struct timespec loop;		/* the host's whole iteration loop */
	uint64_t loop_host_waits;	/* times the loop waited for the vCPUs (-j: none) */
	struct dlp_iteration *iters;
	uint64_t iterations_done;
	/*
	 * Pages the vCPUs touched: lockstep, their pass reports after
	 * populate; -j, their live counts over exactly the host's loop.
	 */
	uint64_t reads, writes;
	uint64_t touched_during_clear;
	uint64_t touched_during_clear_now;	/* this iteration's, set by collect_clear() */
	struct timespec clear_delays_now;	/* this iteration's -l sleeps */
	/*
	 * Page-table pages the host gained in iteration 1's clear step
	 * (/proc/meminfo SecPageTables, host-wide): the eager split's tables,
	 * which show that it ran.  Known only where the kernel counts them
	 * (6.0+) and, as root, the per-CPU counts can be folded in first.
	 */
	bool first_clear_tables_known;
	int64_t first_clear_tables;
	uint64_t age_passes, age_pages;		/* --age: passes over guest memory, pages marked */
	uint64_t verify_failures;
	uint64_t verify_lost;			/* written (dirty-log) pages missing from the log */

	struct kvm_stats vm_stats;
	struct stats_mappings mappings;	/* after populate */
	struct stats_snapshot phase_stats[NR_PHASES];

	/* The vCPUs over the host's iteration loop (loop_vcpus.c). */
	struct kvm_stats *vcpu_stats;			/* per vCPU */
	struct stats_snapshot *vcpu_stats_before;
	struct thread_cputime *vcpu_times_before;
	struct stats_snapshot loop_vcpu_stats;		/* summed over vCPUs */
	struct thread_cputime loop_vcpu_times;		/* summed over vCPUs */
	struct timespec vcpus_window_start;
	struct timespec vcpus_window;			/* the loop and the reads around it */
	bool loop_vcpus_known;
};

extern const char *const dlp_phase_names[NR_PHASES];

/* options.c */
void dlp_parse_options(struct dlp_opts *o, int argc, char **argv);

/* collect.c: the bitmap log or the dirty ring, behind one interface. */
/* vm_create_hook: the ring, enabled before the first memslot and vCPU. */
void collect_vm_create(struct dlp *d, struct kvm_vm *vm);
/* After memstress_create(): bitmaps, ring mappings, vCPU exit handling. */
void collect_setup(struct dlp *d);
void collect_teardown(struct dlp *d);
/* False for the bitmap log without manual protect (-g): GET clears. */
bool collect_has_clear(const struct dlp *d);
/* Timed: fetch what is dirty (KVM_GET_DIRTY_LOG, or harvest the rings). */
struct timespec collect_get(struct dlp *d);
/* Timed: re-protect (KVM_CLEAR_DIRTY_LOG in chunks, or KVM_RESET_DIRTY_RINGS). */
struct timespec collect_clear(struct dlp *d);
/* "get dirty log" / "Get dirty log" style names for the output lines. */
const char *collect_get_name(const struct dlp *d);
const char *collect_get_total_name(const struct dlp *d);
const char *collect_clear_name(const struct dlp *d);
const char *collect_clear_total_name(const struct dlp *d);
uint64_t collect_dirty_pages(const struct dlp *d);

/* age.c: --age, guest memory marked idle (page_idle) while -j's vCPUs run. */
void age_check(const struct dlp_opts *o);
void age_start(struct dlp *d);
void age_stop(struct dlp *d);
void age_teardown(void);

/* verify.c */
/* What the log's pages are called in messages: "" on 4K hosts, else e.g. "64K ". */
const char *dlp_log_page_unit(char *buf, size_t len);
void verify_snapshot_written(struct dlp *d, uint64_t iteration);
void verify_iteration(struct dlp *d, uint64_t iteration, bool exact);
void verify_copy_begin(struct dlp *d);
void verify_copy_logged(struct dlp *d);
void verify_copy_end(struct dlp *d);

/*
 * loop_vcpus.c: opened before the host's loop, read just outside it (so the
 * timed loop is the ioctls alone, and the CPU times lie within a window a
 * few microseconds wider, its own figure).
 */
#define LOOP_VCPUS_PHASE "vcpus_over_iterations"
void loop_vcpus_open(struct dlp *d);
void loop_vcpus_begin(struct dlp *d);
void loop_vcpus_end(struct dlp *d);
/* The line (and with --stats the vCPU stats that moved). */
void loop_vcpus_print(const struct dlp *d);
/* Figures vcpu_window_time, vcpu_cpu_time, vcpu_guest_time; the summed stats as a phase. */
void loop_vcpus_figures(struct json *j, const struct dlp *d);
void loop_vcpus_phase(struct json *j, const struct dlp *d);
void loop_vcpus_teardown(struct dlp *d);

/* results.c */
struct host_desc;
void results_print_totals(const struct dlp *d);
int results_write_json(const struct dlp *d, const struct host_desc *host, int argc, char **argv,
			const char *status, const char *reason);

#endif
