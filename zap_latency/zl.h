/* SPDX-License-Identifier: GPL-2.0 */
/* zap_latency: shared state of the benchmark's files. */
#ifndef ZL_H
#define ZL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "memstress.h"
#include "stats.h"
#include "trace.h"

/* The small memslot the triggers delete or move. */
#define ZL_SLOT_BYTES SZ_2M

enum zl_trigger { TRIGGER_DELETE, TRIGGER_MOVE };
/* How traced zaps time the kernel's span. */
enum zl_mechanism {
	MECH_NONE,
	MECH_KPROBE,		/* kprobe + kretprobe on the zap function */
	MECH_TRACEPOINT,	/* kvmmmu tracepoints: zap-all to the last page zap */
};
enum zl_zap_all { ZAP_ALL_DEFAULT, ZAP_ALL_ON, ZAP_ALL_OFF };

struct zl_opts {
	struct memstress_params ms;	/* -v -b (per vCPU, as upstream) -s -c */
	uint64_t total_bytes;		/* -v x -b */
	uint64_t zaps;			/* -i: untraced zaps */
	uint64_t traced_zaps;		/* --traced: traced zaps after them */
	enum zl_trigger trigger;	/* --trigger */
	enum zl_zap_all zap_all;	/* --zap-all */
	const char *json_path;
	int cpus[KMP_MAX_VCPUS + 1];
};

/* p50/p99/max of a set of gaps, in ns. */
struct zl_gaps {
	uint64_t n, p50, p99, max;
};

struct zl_zap {
	struct timespec ioctl;		/* the trigger ioctl's latency */
	int64_t shadow_zapped;		/* mmu_shadow_zapped delta */
	int64_t shadow_live;		/* shadow pages before: mmu_cache_miss - mmu_shadow_zapped */
	int64_t shadow_made;		/* ...made during the ioctl (running vCPUs): mmu_cache_miss delta */
	int64_t pages_dropped;		/* drop of pages_4k + pages_2m + pages_1g */
	int64_t dropped[3];		/* ...per size: 4K, 2M, 1G leaf mappings */
	int64_t mapped[3];		/* leaf mappings per size right before the trigger */
	/* From the trace (a traced zap only). */
	bool traced;
	bool span_seen;			/* the span's start and end were both traced */
	uint64_t span_ns;		/* the kernel span (z->span_what), ns */
	uint64_t lock_breaks;		/* lock drops counted in the span (z->breaks_known) */
	uint64_t zap_tasks;		/* tasks that zapped in the span: the ioctl's, workers */
	bool stretch_seen;		/* no event lost, every break's entry traced (z->breaks_known) */
	uint64_t longest_stretch_ns;	/* the ioctl task's longest stretch without a break */
	uint64_t offers;		/* lock-break offers (helper entries), counted as breaks are */
	bool first_batch_seen;		/* a shadow MMU's page zaps traced up to the first offer */
	uint64_t first_batch;		/* the ioctl task's page zaps from the span to its first offer */
	uint64_t used_pages;		/* kvm_mmu_zap_all_fast's used_pages (tracepoints) */
	uint64_t page_zap_events;	/* zap events by the zapping task in the span (tracepoints) */
	uint64_t other_events;		/* other tasks' MMU events in the span (tracepoints) */
	uint64_t trace_lost;		/* events the trace buffer lost: figures incomplete */
	/* Guest-observed: gaps between progress stamps. */
	struct zl_gaps during, outside;
	struct timespec refault;	/* until the vCPUs are back to their rate */
	bool refault_done;
	/* Slot-only zaps: the trigger slot's pages before the trigger. */
	uint64_t slot_written;		/* 4K pages the guest wrote to it */
	uint64_t slot_mapped;		/* dirty-log pages KVM mapped for them */
};

struct zl {
	struct zl_opts o;
	struct memstress *ms;
	bool tdp;			/* the host runs the TDP MMU */
	const char *mmu;		/* as host_desc says */
	uint32_t extra_slot;		/* the small slot the triggers use */
	uint64_t extra_gpa, extra_moved_gpa;
	bool slot_only;			/* only the slot is unmapped: it is populated first */
	uint64_t *slot_bitmap;		/* its dirty log */
	uint64_t slot_log_page;		/* dirty_log_page_size(): the host's page */
	uint64_t clock_hz;		/* guest_clock() rate */
	struct kvm_stats vm_stats;
	struct stats_mappings mappings;	/* after populate */
	bool mapping_stats;		/* the VM stats count leaf mappings (x86's pages_4k/2m/1g) */
	bool shadow_pages;		/* ...and shadow pages (mmu_shadow_zapped; not the TDP MMU) */
	bool shadow_live_known;		/* mmu_cache_miss counts every shadow page made (not kvm_pvm) */
	struct trace trace;
	bool traced;			/* the traced zaps have a kernel span */
	char trace_why[384];		/* why not, when !traced */
	enum zl_mechanism mechanism;
	char span_func[64];		/* the post's line name: the function probed, or tracepoint */
	char span_what[192];		/* what the span runs from and to */
	char helper_func[64];		/* a worker's zap function also probed, or "" */
	bool breaks_known;		/* lock drops counted for real (kretprobes) */
	bool page_events;		/* kprobes, and the shadow MMU's page zaps traced beside them */
	char breaks_why[384];		/* why not, when !breaks_known */
	char preempt[32];		/* the kernel's preemption model */
	const char *preempt_source;
	const char *break_means;	/* what makes this kernel drop mmu_lock */
	uint64_t warm_ms;		/* how long warming up took */
	struct zl_zap *zaps;
	uint64_t nr_done;		/* zaps done, untraced ones first */
};

/* Whether zap i is one of the traced ones. */
static inline bool zl_zap_is_traced(const struct zl *z, uint64_t i)
{
	return i >= z->o.zaps;
}

/* options.c */
void zl_parse_options(struct zl_opts *o, int argc, char **argv);
/* Apply --zap-all (KVM_CAP_DISABLE_QUIRKS2) on the VM; usage error if impossible. */
void zl_apply_zap_all(struct zl *z);

/* zap.c */
void zl_wait_warm(struct zl *z);
void zl_measure_zap(struct zl *z, struct zl_zap *zap, bool traced);

/* trace_analysis.c */
void zl_trace_setup(struct zl *z);
void zl_trace_analyze(struct zl *z, struct zl_zap *zap, struct timespec t0, struct timespec t1);

/* results.c */
/* How the traced zaps see into the kernel, or why they cannot. */
void zl_print_trace_setup(const struct zl *z);
/* Zap i (0-based; traced ones after the -i untraced ones). */
void zl_print_zap(const struct zl *z, uint64_t i, const struct zl_zap *zap);
void zl_print_summary(const struct zl *z);
struct host_desc;
int zl_write_json(const struct zl *z, const struct host_desc *host, int argc, char **argv,
		  const char *status, const char *reason);

#endif
