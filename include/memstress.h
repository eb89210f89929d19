/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared guest workload (docs/library.md, "memstress").  Each vCPU
 * walks its region (or all walk one shared region), in order or at random,
 * reading or writing each page, and reports every pass with a SYNC
 * carrying its counts.
 * Lockstep: the host releases iteration N and every vCPU does one pass.
 * Nonstop: after the populate pass, vCPUs run passes until stopped.
 */
#ifndef KMP_MEMSTRESS_H
#define KMP_MEMSTRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backing.h"
#include "lockstep.h"
#include "kvm_util.h"

#define MEMSTRESS_SYNC_PASS 0x5a55	/* first SYNC argument of a pass report */
#define MEMSTRESS_FIRST_SLOT 1

enum { MEMSTRESS_CHECK_NONE, MEMSTRESS_CHECK_ZERO, MEMSTRESS_CHECK_PATTERN,
       MEMSTRESS_CHECK_CONSTANT };

/* ---- shared with the guest (lives in guest memory) ---- */
struct memstress_vcpu_args {
	uint64_t gva;			/* first page of this vCPU's region */
	uint64_t pages;			/* guest pages in it */
	volatile uint64_t touched;	/* the guest's own live count of pages touched */
	volatile uint64_t touched_read;	/* ...of them, read and not written (counted first) */
	/* Progress stamps (memstress_enable_stamps): guest_clock() every stamp_every pages. */
	uint64_t stamp_ring;		/* gva of stamp_len u64s */
	volatile uint64_t stamp_idx;	/* stamps written so far (ring index = idx % len) */
};

struct memstress_guest_args {
	uint64_t page_size;
	uint32_t write_percent;
	uint32_t random_seed;
	uint32_t random_access;
	volatile uint64_t iteration;	/* stamped into every page written */
	/*
	 * Check each page's first and last word before touching it:
	 * MEMSTRESS_CHECK_ZERO or _PATTERN (page_pattern_word of the gpa).
	 */
	volatile uint32_t check_content;
	uint64_t stamp_every;		/* 0: no progress stamps */
	uint64_t stamp_len;		/* ring entries, a power of two */
	volatile uint32_t stop;		/* ends the current pass early */
	/*
	 * memstress_touch_extra(): vCPU 0 writes every page of a region outside
	 * the test memory once, before its next pass.
	 */
	uint64_t extra_gva, extra_pages;
	volatile uint64_t extra_req;	/* host: the request to serve */
	volatile uint64_t extra_done;	/* guest: the request served last */
	volatile uint64_t extra_written; /* guest: pages it wrote for it */
	struct memstress_vcpu_args vcpu_args[KMP_MAX_VCPUS];
};

extern struct memstress_guest_args memstress_args;
void memstress_guest_code(uint32_t vcpu_idx);

/* ---- host ---- */
struct memstress_params {
	enum guest_mode mode;		/* -m */
	uint32_t nr_vcpus;		/* -v */
	uint64_t vcpu_bytes;		/* -b: per vCPU (-o: the vCPUs share -v x -b) */
	const char *vcpu_bytes_text;	/* -b as typed, for error messages (or NULL) */
	enum backing_src_type src;	/* -s */
	uint32_t slots;			/* -x: test memory split across this many memslots */
	bool shared;			/* -o: every vCPU walks the whole region */
	uint32_t write_percent;		/* -w */
	bool random_access;		/* -a */
	uint32_t random_seed;		/* -r */
	bool nonstop;			/* -j */
	uint64_t guest_map_size;	/* guest page-table mappings: 4K (default) or 2M */
	uint64_t test_gpa;		/* -p: where test memory starts; 0: the arch's place */
	uint32_t slot_flags;		/* KVM_MEM_* for the test slots */
	const int *cpus;		/* -c */
	int nr_cpus;
	unsigned int watchdog_sec;	/* 0: WATCHDOG_DEFAULT_SEC or KMP_WATCHDOG_SEC */
	/* Optional: called after the VM and test memslots exist, before any vCPU. */
	void (*setup_vm)(struct kvm_vm *vm, void *arg);
	void *setup_arg;
};

struct memstress_vcpu_stats {
	uint64_t passes;
	uint64_t reads, writes;
	uint64_t last_iteration;	/* iteration of the last completed pass */
	uint64_t partial_passes;	/* passes cut short by stop */
	struct timespec last_pass_end;	/* when the last complete pass was reported */
	struct timespec resumed;	/* lockstep: when it saw the last release */
};

struct memstress {
	struct kvm_vm *vm;
	struct memstress_params p;
	struct memstress_guest_args *gargs;	/* host view of the guest's args */
	uint64_t gpa, size;			/* all test memory */
	uint64_t slot_size;
	uint64_t pages_per_vcpu;
	struct timespec start_time;		/* vCPUs released by memstress_start() */
	struct memstress_vcpu_stats *stats;	/* per vCPU, updated by its thread */
	/* Optional: called in the vCPU thread after each pass report. */
	void (*on_pass)(struct memstress *ms, uint32_t vcpu, uint64_t iteration,
			uint64_t reads, uint64_t writes);
	/*
	 * Optional: called in the vCPU thread for an exit that is not a ucall
	 * (e.g. KVM_EXIT_DIRTY_RING_FULL, or KVM_EXIT_MEMORY_FAULT from an
	 * EFAULT KVM_RUN).  Return true when handled; the vCPU then re-enters
	 * the guest.  Unhandled exits fail the test.
	 */
	bool (*on_exit)(struct memstress *ms, struct kvm_vcpu *vcpu);
	/* Optional: called about every millisecond while the host waits for vCPUs. */
	void (*on_wait)(struct memstress *ms);
	void *priv;

	/*
	 * Lockstep: the host releases an iteration, the vCPUs count their
	 * passes.  Both sides spin on these atomics first (ms->wait), and sleep
	 * on the condvars only when that runs out; changes a sleeper waits for
	 * are made under the lock.
	 */
	pthread_mutex_t lock;
	pthread_cond_t release, completed;
	struct lockstep_wait wait;
	uint64_t iteration;		/* host's current iteration */
	uint32_t nr_completed;		/* vCPUs done with `iteration` */
	bool host_waiting;		/* the host sleeps on `completed` */
	bool free_running;		/* nonstop, after the first release */
	struct timespec release_time;	/* of the last iteration */
	struct timespec completion_seen; /* when the host saw the last wait end */
	uint64_t host_waits;		/* memstress_wait_*() calls: the host waited for vCPUs */
	volatile bool stop;
	bool started;
};

/* The test memory's layout, copied out of a memstress for the record ("layout"). */
struct memstress_layout {
	uint64_t gpa, bytes;		/* all test memory */
	uint32_t slots, nr_vcpus;
	struct {
		uint64_t gpa, pages;	/* where vCPU i starts, and the pages it walks */
	} *vcpu;			/* NULL: none taken */
};
struct json;
void memstress_layout_get(const struct memstress *ms, struct memstress_layout *l);
/* "layout": gpa, bytes, slots, page_bytes, vcpu_gpa[], vcpu_pages[]; nothing if none taken. */
void memstress_layout_json(struct json *j, const struct memstress_layout *l);
void memstress_layout_free(struct memstress_layout *l);

/* Fill defaults: the arch's guest mode, 1 vCPU, 1G, anonymous, 1 slot, 100% writes, seed 1, 4K. */
void memstress_params_init(struct memstress_params *p);
/*
 * The shared options -b -m -o -s -v, as upstream: true when opt was one of
 * them (and p is updated); bad values are one-line usage errors.
 */
bool memstress_parse_opt(struct memstress_params *p, int opt, const char *arg);
/* -b for the parameter lines: "512M", or with -o "512M (-o: all 1G shared by every vCPU)". */
const char *memstress_memory_text(const struct memstress_params *p, char *buf, size_t len);
/* params' "cpus": -c's list as pinned ([] when unpinned). */
void memstress_cpus_json(struct json *j, const struct memstress_params *p);
/* -c LIST: one CPU per vCPU, optionally one more for the main thread. */
void memstress_pin_opt(struct memstress_params *p, const char *list, int *cpus, int max);
/* Limits of -v and -x on this host (KVM's and the suite's). */
uint32_t memstress_max_vcpus(void);
uint32_t memstress_max_slots(void);
/* Check p against the host's limits: one-line usage errors naming the option. */
void memstress_params_check(const struct memstress_params *p);
/* The part of that which needs no /dev/kvm (memory, -b, -w, -p, -x splits, env). */
void memstress_params_check_host(const struct memstress_params *p);
/*
 * Check p (memstress_params_check), create the VM,
 * test memslots, guest mappings and vCPUs.  No guest code has run yet.
 */
struct memstress *memstress_create(const struct memstress_params *p);
/*
 * Before memstress_start(): every vCPU stamps guest_clock() into a ring of
 * `len` entries (a power of two) every `every` pages it touches, so the host
 * can see when a vCPU stalled.  Read them with memstress_stamps().
 */
void memstress_enable_stamps(struct memstress *ms, uint64_t every, uint64_t len);
/* Host view of vCPU v's stamp ring (stamp_len entries). */
const volatile uint64_t *memstress_stamps(struct memstress *ms, uint32_t v);
/* Start vCPU threads (pinned) and the watchdog; vCPUs begin the populate pass (iteration 0). */
void memstress_start(struct memstress *ms);
/* Wait until every vCPU completed the current iteration's pass. */
void memstress_wait_iteration(struct memstress *ms);
/*
 * Nonstop: wait (vCPUs keep running) until every vCPU completed a whole pass
 * stamped with at least `iteration`.
 */
void memstress_wait_pass(struct memstress *ms, uint64_t iteration);
/* Release the next iteration (lockstep: one pass each; nonstop: run free). Returns its number. */
uint64_t memstress_next_iteration(struct memstress *ms);
/*
 * Lockstep, after memstress_wait_iteration(): how long after the release the
 * last vCPU saw it, and how long after the last pass ended the host saw it
 * (the wake-up skew both ways, which the dirty memory time includes).
 */
void memstress_lockstep_skew(struct memstress *ms, struct timespec *release,
			     struct timespec *completion);
/* Let lockstep vCPUs run passes back to back from now on (e.g. upstream's -e). */
void memstress_run_free(struct memstress *ms);
/*
 * Nonstop, after the first release: have vCPU 0 write every page of
 * [gva, gva + pages guest pages) once, between two of its passes, and wait
 * until it has.  The region is one the workload never touches otherwise
 * (zap_latency's trigger slot), mapped in the guest.  Returns the pages the
 * guest wrote.
 */
uint64_t memstress_touch_extra(struct memstress *ms, uint64_t gva, uint64_t pages);
/* Nonstop: change the iteration stamped into pages from now on. */
void memstress_set_iteration(struct memstress *ms, uint64_t iteration);
/* Pages touched right now, from the guest's live counters (mid-pass too). */
uint64_t memstress_touched_live(struct memstress *ms);
/* The same, split into pages read and pages written. */
void memstress_live_counts(struct memstress *ms, uint64_t *reads, uint64_t *writes);
/* Sum of pages touched in completed pass reports over all vCPUs (reads, writes). */
void memstress_totals(struct memstress *ms, uint64_t *reads, uint64_t *writes);
/* Stop vCPUs (ending their passes early), join threads, stop the watchdog. */
void memstress_stop(struct memstress *ms);
void memstress_destroy(struct memstress *ms);

/*
 * The workload counts 4K pages whatever the guest mode's page size; upstream
 * counts guest pages.  Where they differ (arm64's 64K modes), a "#" line
 * next to the figures says so, with the factor.
 */
void memstress_print_page_units(const struct memstress_params *p);

/* Test-memory slot id i (0-based) and its host mapping. */
uint32_t memstress_slot(const struct memstress *ms, uint32_t i);

#endif
