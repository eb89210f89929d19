/* SPDX-License-Identifier: GPL-2.0 */
/* tlbie_bench: the host side's state and files. */
#ifndef TB_HOST_H
#define TB_HOST_H

#include <stdbool.h>

#include "tb.h"

struct tb_opts {
	uint32_t vcpus;			/* -v */
	uint32_t seconds;		/* -t */
	uint32_t pages;			/* --pages */
	enum tb_flush flush;		/* --flush */
	bool shared;			/* --shared */
	bool profile;			/* --profile */
	const char *json_path;
	int cpus[KMP_MAX_VCPUS + 1];
	int nr_cpus;
};

struct tb {
	struct tb_opts o;
	struct kvm_vm *vm;
	struct tb_guest_args *ga;	/* host view of the guest's tb_args */
};

/* options.c */
void tb_parse_options(struct tb_opts *o, int argc, char **argv);
const char *tb_flush_name(enum tb_flush f);

/* setup.c: the VM, frames, and each vCPU's page tables (tb_arch.setup where set). */
void tb_setup(struct tb *t);

/*
 * What differs per arch, tlbie_bench/<arch>/arch.c's tb_arch (every arch
 * defines it; a NULL member takes the generic behaviour).
 */
struct json;
struct tb_arch {
	/* What this arch's figures mean, printed with the results (NULL: nothing). */
	const char *note;
	/* -h: what --flush page and full do (NULL: a generic text). */
	const char *flush_help;
	/* The VM and its page tables (NULL: setup.c's per-range tables). */
	void (*setup)(struct tb *t);
	/* Figures only this arch measures: printed (j NULL) or recorded. */
	void (*figures)(const struct tb *t, struct json *j);
};
extern const struct tb_arch tb_arch;

/* profile.c: perf record of the whole host during the run. */
#define TB_PROFILE_TOP 10
struct tb_profile {
	bool asked;			/* --profile */
	char unavailable[160];		/* why there is none, or "" */
	int nr;
	struct {
		double share;		/* percent of the samples */
		char symbol[128];	/* "[k] do_tlbies" */
	} top[TB_PROFILE_TOP];
};
int tb_profile_start(struct tb_profile *p);
/* Stop perf, read its report into p and print it in the seed's layout. */
void tb_profile_stop_and_print(struct tb_profile *p, int pid);
/* The record's "profile" object. */
void tb_profile_json(const struct tb_profile *p, struct json *j);

#endif
