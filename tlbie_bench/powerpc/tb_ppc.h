/* SPDX-License-Identifier: GPL-2.0 */
/* tlbie_bench on powerpc: what the guest counts, read by the host after the run. */
#ifndef TB_PPC_H
#define TB_PPC_H

#include <stdint.h>

#include "kvm_util.h"

/*
 * hcalls one vCPU made: each returned H_SUCCESS or the run failed, except
 * the H_ENTERs that found the primary group full (H_PTEG_FULL), counted in
 * h_enter and pteg_full, which went on to the secondary group.
 */
struct tb_ppc_counts {
	uint64_t h_enter;
	uint64_t pteg_full;
	uint64_t h_protect;
	uint64_t h_remove;
	uint64_t h_bulk_remove;
	uint64_t bulk_removed;		/* HPTEs removed by H_BULK_REMOVE */
};

extern struct tb_ppc_counts tb_ppc_counts[KMP_MAX_VCPUS];

#endif
