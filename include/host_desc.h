/* SPDX-License-Identifier: GPL-2.0 */
/* What host a result was measured on: printed as "# " lines and put in JSON. */
#ifndef KMP_HOST_DESC_H
#define KMP_HOST_DESC_H

#include <stdint.h>

struct json;

/* kvm (~35) plus a vendor module (kvm_intel has ~30) must fit. */
#define HOST_DESC_MAX_PARAMS 128

struct host_desc {
	char kernel[256];		/* uname -r and -v */
	char machine[32];		/* uname -m */
	char cpu_model[128];
	int cpus, cores, numa_nodes;	/* hwloc */
	uint64_t mem_total_bytes;
	char kvm_module[32];		/* kvm_intel, kvm_amd, kvm_pvm, ... ("none" if not found) */
	char mmu[64];			/* "tdp_mmu", "legacy tdp", "shadow paging", "stage-2", ... */
	char emulated[192];		/* how the host itself is emulated (QEMU TCG), or "" */
	int nr_params;
	struct {
		char name[64];		/* "kvm.tdp_mmu", "kvm_intel.ept" */
		char value[64];
	} params[HOST_DESC_MAX_PARAMS];
};

/* Fill from uname, /proc, /sys/module and hwloc. Never fails: unknown stays "". */
void host_desc_read(struct host_desc *d);

/* "# " lines through ksft_print_msg(): kernel, CPU, cores, NUMA, memory, KVM. */
void host_desc_print(const struct host_desc *d);

/* A "host" object in a JSON record. */
void host_desc_json(const struct host_desc *d, struct json *j);

#endif
