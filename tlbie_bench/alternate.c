// SPDX-License-Identifier: GPL-2.0
/*
 * --alternate MODULE.PARAM: one run measures a boolean KVM module parameter
 * both ways, within one boot.  The run's seconds are phases in pairs, one
 * with the parameter 0 and one with it 1, the order alternating from pair
 * to pair (0 1, 1 0, 0 1, ...), so that a drift of the host's speed falls
 * on both settings alike.  Where a host's clock cannot be compared across
 * boots (the emulated POWER host), this is the figure that can show a
 * switch's effect, e.g. patches/seed-001-tlbie-lock.patch's lock.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_state.h"
#include "json.h"
#include "record.h"
#include "tb_bench.h"
#include "test_util.h"

void tb_alternate_check(struct tb_alternate *a, uint32_t seconds)
{
	char module[64], param[64], value[16] = "";
	struct stat st;
	FILE *f;

	if (strspn(a->name, "abcdefghijklmnopqrstuvwxyz0123456789_.") != strlen(a->name) ||
	    sscanf(a->name, "%63[a-z0-9_].%63[a-z0-9_]", module, param) != 2 ||
	    strlen(module) + 1 + strlen(param) != strlen(a->name))
		usage_error("--alternate '%s': must be MODULE.PARAMETER, e.g. kvm_hv.tlbie_lock",
			    a->name);
	if (seconds < 4 || seconds % 2)
		usage_error("-t '%u': with --alternate, an even number of seconds from 4 (pairs "
			    "of 1 s phases)", seconds);
	snprintf(a->path, sizeof(a->path), "/sys/module/%s/parameters/%s", module, param);
	f = fopen(a->path, "r");
	if (!f)
		test_skip("--alternate %s: this kernel has no such module parameter (%s: %s)",
			  a->name, a->path, strerror(errno));
	if (!fgets(value, sizeof(value), f))
		value[0] = 0;
	fclose(f);
	/* The kernel prints a bool parameter as Y or N; an int reading 0 is no switch. */
	if (strcmp(value, "Y\n") && strcmp(value, "N\n"))
		usage_error("--alternate %s: not a boolean parameter (it reads '%.*s', not Y or N)",
			    a->name, (int)strcspn(value, "\n"), value);
	if (stat(a->path, &st) == 0 && !(st.st_mode & S_IWUSR))
		usage_error("--alternate %s: read-only (mode %03o): the kernel takes it at load "
			    "time only", a->name, st.st_mode & 0777);
	if (geteuid() != 0)
		test_skip("--alternate %s: needs root, to write %s", a->name, a->path);
	a->phases = seconds;
}

/* Phase p's setting: pairs 0 1, 1 0, 0 1, ... */
int tb_alternate_setting(uint32_t phase)
{
	return (phase & 1) ^ ((phase >> 1) & 1);
}

void tb_alternate_begin(struct tb_alternate *a, const struct kvm_stats *vm)
{
	a->rate = calloc(a->phases, sizeof(*a->rate));
	TEST_ASSERT(a->rate, "out of memory");
	for (int s = 0; s < 2; s++)
		stats_snapshot_zero(vm, &a->acc[s]);
	tb_alternate_set(a, 0);
}

void tb_alternate_set(struct tb_alternate *a, uint32_t phase)
{
	int ret = host_state_write(a->path, tb_alternate_setting(phase) ? "1" : "0");

	TEST_ASSERT(ret == 0, "--alternate %s: cannot write %s: %s", a->name, a->path,
		    strerror(-ret));
}

void tb_alternate_phase_done(struct tb_alternate *a, uint32_t phase, uint64_t forks,
			     double seconds, const struct stats_snapshot *before,
			     const struct stats_snapshot *after)
{
	a->rate[phase] = seconds > 0 ? forks / seconds : 0;
	stats_delta_add(&a->acc[tb_alternate_setting(phase)], before, after);
	a->done = phase + 1;
}

void tb_alternate_end(struct tb_alternate *a)
{
	host_state_restore_path(a->path);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Exact two-sided sign test: k of n pairs on the rarer side.  The binomial
 * terms in logs, so that no count of pairs overflows.
 */
static double sign_test_p(uint32_t k, uint32_t n)
{
	double sum = 0;

	for (uint32_t i = 0; i <= k; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * M_LN2);
	return 2 * sum < 1 ? 2 * sum : 1;
}

/* Each setting's phase rates (values[s][i]) and each pair's ratio 1/0. */
static uint32_t split(const struct tb_alternate *a, double *v0, double *v1, double *ratio)
{
	uint32_t pairs = a->done / 2;

	for (uint32_t p = 0; p < pairs; p++) {
		uint32_t first = 2 * p, second = first + 1;
		double r0 = a->rate[tb_alternate_setting(first) ? second : first];
		double r1 = a->rate[tb_alternate_setting(first) ? first : second];

		v0[p] = r0;
		v1[p] = r1;
		ratio[p] = r0 > 0 ? r1 / r0 : 0;
	}
	return pairs;
}

void tb_alternate_summary(const struct tb_alternate *a, struct tb_alternate_summary *s)
{
	double *v0 = calloc(a->phases, sizeof(double)), *v1 = calloc(a->phases, sizeof(double));
	double *r = calloc(a->phases, sizeof(double));
	uint32_t lower = 0, higher = 0;

	TEST_ASSERT(v0 && v1 && r, "out of memory");
	memset(s, 0, sizeof(*s));
	s->pairs = split(a, v0, v1, r);
	for (uint32_t p = 0; p < s->pairs; p++) {
		lower += r[p] < 1;
		higher += r[p] > 1;
	}
	s->lower = lower;
	s->higher = higher;
	if (s->pairs) {
		s->rate[0] = median(v0, s->pairs);
		s->rate[1] = median(v1, s->pairs);
		s->ratio = median(r, s->pairs);
		s->ratio_lo = r[0];
		s->ratio_hi = r[s->pairs - 1];
		/* Ties (equal rates) carry no sign: left out, as the test does. */
		s->p = sign_test_p(lower < higher ? lower : higher, lower + higher);
	}
	free(v0);
	free(v1);
	free(r);
}

void tb_alternate_print(const struct tb_alternate *a, const struct kvm_stats *vm)
{
	struct tb_alternate_summary s;
	struct stats_snapshot zero;
	char heading[160];

	tb_alternate_summary(a, &s);
	ksft_print_msg("--alternate %s: %u pairs of 1 s phases, 0 and 1 in turn, the order "
		       "alternating by pair (host clock, one boot)\n", a->name, s.pairs);
	if (!s.pairs)
		return;
	for (int v = 0; v < 2; v++)
		ksft_print_msg("%s=%d: %.1f forks/s, the median of %u phases\n", a->name, v,
			       s.rate[v], s.pairs);
	printf("%s 1/0 throughput: x%.3f (median of %u pair ratios, %.3f-%.3f; lower with 1 in "
	       "%u of %u pairs, sign test p = %.3g)\n", a->name, s.ratio, s.pairs, s.ratio_lo,
	       s.ratio_hi, s.lower, s.pairs, s.p);
	stats_snapshot_zero(vm, &zero);
	for (int v = 0; v < 2; v++) {
		snprintf(heading, sizeof(heading), "VM stats over the phases with %s=%d", a->name, v);
		stats_delta_print_section(vm, &zero, &a->acc[v], heading);
	}
	stats_snapshot_free(&zero);
}

void tb_alternate_json(const struct tb_alternate *a, struct json *j)
{
	struct tb_alternate_summary s;
	double *v[2] = { calloc(a->phases, sizeof(double)), calloc(a->phases, sizeof(double)) };
	double *r = calloc(a->phases, sizeof(double));
	char name[32];

	TEST_ASSERT(v[0] && v[1] && r, "out of memory");
	tb_alternate_summary(a, &s);
	split(a, v[0], v[1], r);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "throughput_alternate_%d", i);
		record_figure(j, name, "forks/s", s.rate[i], v[i], s.pairs);
	}
	record_figure(j, "alternate_ratio", "ratio", s.ratio, r, s.pairs);
	free(v[0]);
	free(v[1]);
	free(r);
}

/* The record's "alternate" object: the switch, the pairs and the sign test. */
void tb_alternate_json_summary(const struct tb_alternate *a, struct json *j)
{
	struct tb_alternate_summary s;

	tb_alternate_summary(a, &s);
	json_object_begin(j, "alternate");
	json_string(j, "param", a->name);
	json_u64(j, "pairs", s.pairs);
	json_u64(j, "lower_with_1", s.lower);
	json_u64(j, "higher_with_1", s.higher);
	json_double(j, "sign_test_p", s.pairs ? s.p : 1);
	json_object_end(j);
}

/* Inside the record's "phases": each setting's VM stat deltas, summed. */
void tb_alternate_json_phases(const struct tb_alternate *a, const struct kvm_stats *vm,
			      struct json *j)
{
	struct stats_snapshot zero;

	stats_snapshot_zero(vm, &zero);
	record_phase_stats(j, "alternate_0", vm, &zero, &a->acc[0]);
	record_phase_stats(j, "alternate_1", vm, &zero, &a->acc[1]);
	stats_snapshot_free(&zero);
}
