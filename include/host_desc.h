/* SPDX-License-Identifier: GPL-2.0 */
/* What host a result was measured on: printed as "# " lines and put in JSON. */
#ifndef KMP_HOST_DESC_H
#define KMP_HOST_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json;

/* The MMU that builds guest mappings: each asserts its own invariants. */
enum host_mmu {
	HOST_MMU_NONE,		/* no KVM */
	HOST_MMU_TDP,		/* x86 TDP MMU over EPT/NPT (tdp_mmu=Y) */
	HOST_MMU_LEGACY_TDP,	/* x86 legacy MMU over EPT/NPT: direct shadow pages */
	HOST_MMU_SHADOW,	/* x86 shadow paging (ept=0 / npt=0) */
	HOST_MMU_PVM,		/* kvm_pvm: shadow paging; it emulates every guest instruction */
	HOST_MMU_STAGE2,	/* arm64 */
	HOST_MMU_HPT,		/* powerpc kvm-hv, hash page table */
	HOST_MMU_RADIX,		/* powerpc kvm-hv, radix */
	HOST_MMU_PR,		/* powerpc kvm-pr */
};

/* kvm (~35) plus a vendor module (kvm_intel has ~30) must fit. */
#define HOST_DESC_MAX_PARAMS 128

struct host_desc {
	char kernel[256];		/* uname -r and -v */
	char machine[32];		/* uname -m */
	char cpu_model[128];
	int cpus, cores, numa_nodes;	/* hwloc */
	uint64_t mem_total_bytes;
	char kvm_module[32];		/* kvm_intel, kvm_amd, kvm_pvm, ... ("none" if not found) */
	char cpu_mmu[32];		/* powerpc's /proc/cpuinfo "MMU" ("Radix", "Hash") */
	enum host_mmu mmu_kind;
	char mmu[64];			/* "tdp_mmu", "legacy tdp", "shadow paging", "stage-2", ... */
	char emulated[1024];		/* how the host itself is emulated (QEMU TCG), or "" */
	int nr_params;
	struct {
		char name[64];		/* "kvm.tdp_mmu", "kvm_intel.ept" */
		char value[64];
	} params[HOST_DESC_MAX_PARAMS];
};

/* Fill from uname, /proc, /sys/module and hwloc. Never fails: unknown stays "". */
void host_desc_read(struct host_desc *d);

/* The MMU of a described host: its KVM module, machine and parameters. */
enum host_mmu host_mmu_classify(const struct host_desc *d);
/* This host's MMU (host_desc_read() once, then remembered). */
enum host_mmu host_mmu(void);
/* Its name in messages: "tdp_mmu", "shadow paging", "kvm_pvm shadow", ... */
const char *host_mmu_name(void);

/*
 * How an MMU's behaviour shows in figures and stats, where MMUs differ in
 * ways that are not a matter of timing: benchmarks and tests ask this
 * instead of naming an MMU (lib/host_desc.c's table, by enum host_mmu).
 */
struct host_mmu_traits {
	/* The leaf-mapping stats (pages_4k, ...) follow the guest's accesses. */
	bool maps_guest_accesses;
	/* mmu_cache_miss counts the shadow pages it keeps, so their live count is known. */
	bool shadow_count_live;
	/* A write that fills the dirty ring exits before it retires: its retry logs the page again. */
	bool ring_full_relogs;
	/* Its ring-full exit can come past KVM's reserve, overfilling a small ring. */
	bool ring_can_overfill;
};
const struct host_mmu_traits *host_mmu_traits(void);

/* "# " lines through ksft_print_msg(): kernel, CPU, cores, NUMA, memory, KVM. */
void host_desc_print(const struct host_desc *d);

/* Whether the running kernel's release (uname -r) is major.minor or later. */
bool host_kernel_at_least(int major, int minor);

/*
 * The kernel's live preemption model ("none", "voluntary", "full", "lazy",
 * "rt"), or what can be told of it ("none or voluntary", "unknown"), into
 * model; *source names where it was read.
 */
void host_preempt_model(char *model, size_t len, const char **source);

/* A "host" object in a JSON record. */
void host_desc_json(const struct host_desc *d, struct json *j);

#endif
