/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbie_bench: what host and guest share.  Each vCPU runs fork-style cycles
 * on guest page tables it edits itself: a parent table mapping K frames, a
 * child table that maps them read-only (copy-on-write), then remaps each to
 * a fresh frame, then is torn down with per-page or full invalidation.
 */
#ifndef TB_H
#define TB_H

#include <stdint.h>

#include "kvm_util.h"

enum tb_flush { FLUSH_PAGE, FLUSH_FULL, FLUSH_HV };

/* Entries of one last-level table (x86: 512 4K pages per 2M). */
#define TB_PT_ENTRIES 512

struct tb_vcpu_args {
	uint64_t parent_pt;		/* gva where the guest sees its parent table */
	uint64_t child_pt;		/* ...and its child table */
	uint64_t parent_base;		/* gva mapped by entry 0 of the parent table */
	uint64_t child_base;		/* gva mapped by entry 0 of the child table */
	uint32_t first_entry;		/* this vCPU's first entry (--shared: disjoint ones) */
	uint64_t parent_frames;		/* gpa (== gva) of K frames the parent maps */
	uint64_t pool;			/* gpa (== gva) of pool_frames fresh frames */
	uint64_t pool_frames;
	uint64_t vsid;			/* powerpc: VSID of the segment at parent/child_base */
	volatile uint64_t cycles;	/* completed forks: progress, read live */
	volatile uint64_t remaps;	/* verified remaps */
};

struct tb_guest_args {
	uint32_t pages;			/* K, --pages */
	uint32_t flush;			/* enum tb_flush */
	volatile uint32_t stop;
	struct tb_vcpu_args vcpu[KMP_MAX_VCPUS];
};

extern struct tb_guest_args tb_args;
void tb_guest_code(uint32_t vcpu);

/* Frame tags: the frame's gpa in the high bits, a generation in the low 12. */
#define TB_TAG(gpa, gen) ((gpa) | ((gen) & 0xfff))
#define TB_TAG_FRAME(tag) ((uint64_t)(tag) & ~(uint64_t)0xfff)

#endif
