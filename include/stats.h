/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM binary statistics (KVM_GET_STATS_FD) of a VM or a vCPU: descriptors
 * read once, values by name, and snapshots whose difference is a phase's delta.
 */
#ifndef KMP_STATS_H
#define KMP_STATS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/kvm.h>

struct kvm_vm;
struct kvm_vcpu;
struct json;

struct kvm_stats {
	int fd;
	struct kvm_stats_header hdr;
	char id[64];				/* KVM_STATS_NAME_SIZE in newer UAPI */
	struct kvm_stats_desc *descs;	/* hdr.num_desc entries of desc_size bytes */
	size_t desc_size;
	size_t nr_values;		/* u64 values in the data block */
};

/* One read of every value in the data block. */
struct stats_snapshot {
	uint64_t *values;
	size_t nr_values;
};

void stats_open_vm(struct kvm_stats *st, struct kvm_vm *vm);
void stats_open_vcpu(struct kvm_stats *st, struct kvm_vcpu *vcpu);
void stats_close(struct kvm_stats *st);

struct kvm_stats_desc *stats_desc(const struct kvm_stats *st, size_t i);
/* The descriptor with this name, or NULL. */
struct kvm_stats_desc *stats_find(const struct kvm_stats *st, const char *name);
/* First value of a stat by name; fails the test if it does not exist. */
uint64_t stats_read(const struct kvm_stats *st, const char *name);
/* Same, but returns false (and leaves *val) if the stat does not exist. */
bool stats_try_read(const struct kvm_stats *st, const char *name, uint64_t *val);

void stats_snapshot(const struct kvm_stats *st, struct stats_snapshot *snap);
void stats_snapshot_free(struct stats_snapshot *snap);
/* One value of a snapshot by name: false if this KVM has no such stat. */
bool stats_snapshot_value(const struct kvm_stats *st, const struct stats_snapshot *snap,
			  const char *name, uint64_t *val);
/* An all-zero snapshot: a baseline, or an accumulator for stats_delta_add(). */
void stats_snapshot_zero(const struct kvm_stats *st, struct stats_snapshot *snap);
/* acc += after - before, value by value (phases that recur, summed). */
void stats_delta_add(struct stats_snapshot *acc, const struct stats_snapshot *before,
		     const struct stats_snapshot *after);
/* after - before of one stat's first value (0 if absent). */
int64_t stats_delta(const struct kvm_stats *st, const struct stats_snapshot *before,
		    const struct stats_snapshot *after, const char *name);
/*
 * Write {name: delta} for every scalar (cumulative, instant, peak) stat,
 * zeros included, as a JSON object under key.
 */
void stats_delta_json(const struct kvm_stats *st, const struct stats_snapshot *before,
		      const struct stats_snapshot *after, struct json *j, const char *key);
/* Print "# name: delta" lines for the stats that changed. */
void stats_delta_print(const struct kvm_stats *st, const struct stats_snapshot *before,
		       const struct stats_snapshot *after, const char *prefix);
/*
 * "# heading:" and then "#   name: delta" for each stat that changed; with
 * none, one line: "# heading: none changed", or "...: none on this host"
 * when there are no stats to read.
 */
void stats_delta_print_section(const struct kvm_stats *st, const struct stats_snapshot *before,
			       const struct stats_snapshot *after, const char *heading);

/*
 * The leaf mappings KVM holds for the VM, per size (x86: pages_4k/2m/1g),
 * at one point of a run ("after populate"): shows when THP made guest
 * memory 2M-mapped.  Where they are not counted, why.
 */
struct stats_mappings {
	char when[48];
	bool counted;
	uint64_t n[3];			/* 4K, 2M, 1G */
	const char *why;		/* when !counted */
};
void stats_mappings_read(const struct kvm_stats *st, struct stats_mappings *m, const char *when);
/* "# guest memory mapped by KVM after populate: 4K N, 2M N, 1G N (pages_4k/2m/1g)" */
void stats_mappings_print(const struct stats_mappings *m);
/* "mappings": {"when", "pages_4k", "pages_2m", "pages_1g", "not_counted"} (nothing if unread). */
void stats_mappings_json(struct json *j, const struct stats_mappings *m);

#endif
