/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbie_bench's host-side state and its VM setup, shared with
 * selfbench/fidelity_tlbie (the same VM under the barest host loop).  What
 * host and guest share is tb.h; what only tlbie_bench's files share,
 * tlbie_bench/tb_bench.h.
 */
#ifndef TB_HOST_H
#define TB_HOST_H

#include <stdbool.h>

#include "stats.h"
#include "tb.h"

struct tb_opts {
	uint32_t vcpus;			/* -v */
	uint32_t seconds;		/* -t */
	uint32_t pages;			/* --pages */
	enum tb_flush flush;		/* --flush */
	bool shared;			/* --shared */
	bool profile;			/* --profile */
	const char *alternate;		/* --alternate MODULE.PARAM */
	const char *json_path;
	int cpus[KMP_MAX_VCPUS + 1];
	int nr_cpus;
};

/* tlbie_bench/alternate.c: --alternate, a boolean host switch flipped every second. */
struct tb_alternate {
	const char *name;		/* "kvm_hv.tlbie_lock"; NULL: off */
	char path[160];			/* its /sys/module file */
	uint32_t phases;		/* -t: one per second */
	uint32_t done;			/* phases measured */
	double *rate;			/* each phase's forks per second */
	struct stats_snapshot acc[2];	/* VM stat deltas summed, per setting */
};
struct tb {
	struct tb_opts o;
	struct tb_alternate alt;	/* --alternate */
	struct kvm_vm *vm;
	struct tb_guest_args *ga;	/* host view of the guest's tb_args */
};

/* tlbie_bench/setup.c: the VM, frames, and each vCPU's page tables (tb_arch.setup where set). */
void tb_setup(struct tb *t);

#endif
