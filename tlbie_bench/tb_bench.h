/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbie_bench: what its own files share (options, the arch table,
 * --alternate, --profile), on top of the host-side state (tb_host.h).
 */
#ifndef TB_BENCH_H
#define TB_BENCH_H

#include <stdbool.h>

#include "tb_host.h"

/* alternate.c: what tb_alternate_summary() reads from the phases. */
struct tb_alternate_summary {
	uint32_t pairs, lower, higher;	/* pairs; of them, 1 slower / faster than 0 */
	double rate[2];			/* each setting's median phase rate */
	double ratio, ratio_lo, ratio_hi;	/* pair ratios 1/0: median, range */
	double p;			/* exact two-sided sign test */
};
/* options.c */
void tb_parse_options(struct tb_opts *o, int argc, char **argv);
const char *tb_flush_name(enum tb_flush f);

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

/* alternate.c.  At option time: a bad name or -t is a usage error, a missing parameter a skip. */
void tb_alternate_check(struct tb_alternate *a, uint32_t seconds);
int tb_alternate_setting(uint32_t phase);
/* Before the vCPUs start: phase 0's setting. */
void tb_alternate_begin(struct tb_alternate *a, const struct kvm_stats *vm);
void tb_alternate_set(struct tb_alternate *a, uint32_t phase);
void tb_alternate_phase_done(struct tb_alternate *a, uint32_t phase, uint64_t forks,
			     double seconds, const struct stats_snapshot *before,
			     const struct stats_snapshot *after);
/* The parameter back as it was. */
void tb_alternate_end(struct tb_alternate *a);
void tb_alternate_summary(const struct tb_alternate *a, struct tb_alternate_summary *s);
void tb_alternate_print(const struct tb_alternate *a, const struct kvm_stats *vm);
/* Inside "figures": each setting's phase rates and the pair ratios. */
void tb_alternate_json(const struct tb_alternate *a, struct json *j);
void tb_alternate_json_summary(const struct tb_alternate *a, struct json *j);
void tb_alternate_json_phases(const struct tb_alternate *a, const struct kvm_stats *vm,
			      struct json *j);

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
