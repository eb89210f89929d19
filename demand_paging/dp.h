/* SPDX-License-Identifier: GPL-2.0 */
/* demand_paging: shared state of the benchmark's files. */
#ifndef DP_H
#define DP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "memstress.h"
#include "page_source.h"
#include "stats.h"
#include "uffd.h"

#define DP_MAX_SWEEP 32

struct dp_opts {
	struct memstress_params ms;	/* -v -b -s -o -c */
	enum uffd_mode mode;		/* -u */
	bool one_uffd;			/* -a */
	unsigned int delay_us;		/* -d */
	int readers;			/* -r, per uffd; 0: as many as the run's vCPUs (-r vcpus) */
	bool mem_fault_exits;		/* -w */
	struct page_source src;		/* --source */
	bool source_set;
	bool ignored_uffd_opts;		/* -a, -d or -r given without -u: ignored, as upstream */
	uint32_t sweep[DP_MAX_SWEEP];	/* --sweep-vcpus */
	int nr_sweep;
	unsigned int repeat;		/* --repeat */
	const char *json_path;
	int cpus[KMP_MAX_VCPUS + 1];
};

/* One run's results. */
struct dp_result {
	uint32_t vcpus;
	bool mem_fault_exits;
	struct timespec total;		/* Total guest execution time */
	double vcpu_rate;		/* pages/s per vCPU, upstream's figure */
	double overall_rate;		/* pages/s */
	uint64_t pages;			/* pages touched, all vCPUs */
	struct uffd_fault_stats faults;	/* summed over uffds and readers */
	uint64_t reader_faults;		/* of those, the readers' (a vCPU waited in the uffd) */
	uint64_t mem_fault_exits_seen;	/* KVM_EXIT_MEMORY_FAULT handled */
	uint64_t mem_fault_eexist;	/* ...of which already resolved */
	uint64_t p50_ns, p99_ns;	/* reader latency per fault */
	uint64_t exit_p50_ns, exit_p99_ns; /* -w: the vCPU thread's, per memory-fault exit */
	struct stats_mappings mappings;	/* once every page was paged in */
	struct memstress_layout layout;	/* the run's test memory and vCPU regions */
};

/* options.c */
void dp_parse_options(struct dp_opts *o, int argc, char **argv);

/* Reader threads per uffd for a run of nr_vcpus (-r N, or -r vcpus). */
static inline int dp_readers(const struct dp_opts *o, uint32_t nr_vcpus)
{
	return o->readers ? o->readers : (int)nr_vcpus;
}

/* mem_fault.c: -w, KVM_EXIT_MEMORY_FAULT handled in the vCPU thread. */
/* NULL when this kernel offers memory-fault exits for uffd memory; else why not. */
const char *mem_fault_unsupported_reason(const struct dp_opts *o);
struct dp_run;
bool mem_fault_on_exit(struct memstress *ms, struct kvm_vcpu *vcpu);
/* Sets the seed-002 flag on every test memslot: 0, or the first -errno. */
int mem_fault_enable(struct memstress *ms);
extern const char mem_fault_mechanism[];

/* paging.c */
struct dp_run {
	const struct dp_opts *o;
	struct memstress *ms;
	struct uffd_region *regions;
	int nr_regions;
	bool mem_fault_exits;
	uint64_t mem_fault_exits_seen, mem_fault_eexist;
	struct uffd_fault_stats vcpu_stats[KMP_MAX_VCPUS];	/* -w resolutions */
};
/* Run one configuration with nr_vcpus (and -w on or off); fills *res. */
void dp_run_once(const struct dp_opts *o, uint32_t nr_vcpus, bool mem_fault_exits,
		 struct dp_result *res);
struct uffd_region *dp_region_of(struct dp_run *run, uint64_t hva);

/* results.c */
void dp_print_result(const struct dp_opts *o, const struct dp_result *r);
void dp_print_sweep_table(const struct dp_opts *o, const struct dp_result *res, int nr,
			  const char *w_reason);
struct host_desc;
int dp_write_json(const struct dp_opts *o, const struct dp_result *res, int nr,
		   const char *w_reason, const struct host_desc *host, int argc, char **argv,
		   const char *status, const char *reason);

#endif
