// SPDX-License-Identifier: GPL-2.0
/*
 * tlbie_bench: the host-side invalidation work caused by guest page-table
 * churn (the fork benchmark of Nicholas Piggin's "KVM: PPC: Book3S HV:
 * lockless tlbie for HPT hcalls", 2018, with guest code of its own).  Every
 * vCPU runs fork-style cycles for -t seconds; the throughput is forks per
 * second, and every remap is verified against stale translations.
 */
#include <stdlib.h>
#include <unistd.h>

#include "timed.h"
#include "bench_main.h"
#include "host_desc.h"
#include "json.h"
#include "record.h"
#include "report.h"
#include "stats.h"
#include "tb_bench.h"
#include "ucall.h"
#include "vcpu_thread.h"
#include "watchdog.h"

static struct tb tb;

/* Results. */
static struct timespec elapsed;
static uint64_t *forks, *remaps;
/* Each vCPU's forks' own span, in guest clock ticks (first fork begun to last one done). */
static uint64_t *span_ticks, clock_hz;
/* powerpc calls its exits "sum_exits" (and has none of the others). */
static const char *const vcpu_stat_names[] = { "exits", "invlpg", "tlb_flush", "pf_taken",
					       "pf_fixed", "pf_emulate", "insn_emulation",
					       "sum_exits" };
static int64_t vcpu_stat_deltas[ARRAY_SIZE(vcpu_stat_names)];
/* Which of them this host's KVM has (arm64 has no invlpg or pf_* stats). */
static bool vcpu_stat_present[ARRAY_SIZE(vcpu_stat_names)];
static struct kvm_stats vm_stats;
static struct stats_snapshot vm_before, vm_after;
static struct stats_mappings mappings;	/* at the end of the run */
static struct tb_profile profile;	/* --profile */

/*
 * x86 over EPT/NPT: the guest's INVLPG and CR3 writes do not exit, so KVM's
 * invlpg stat stays 0 by construction.  It is left out rather than shown
 * as a measured 0 (print_results says why).
 */
static bool invlpg_never_exits(void)
{
	return host_mmu() == HOST_MMU_TDP || host_mmu() == HOST_MMU_LEGACY_TDP;
}

/* Sum of a per-vCPU count (forks, remaps) over the vCPUs; 0 before the run. */
static uint64_t sum_of(const uint64_t *per_vcpu)
{
	uint64_t sum = 0;

	for (uint32_t v = 0; per_vcpu && v < tb.o.vcpus; v++)
		sum += per_vcpu[v];
	return sum;
}

/* vCPU v's forks per second over its forks' own span. */
static double vcpu_rate(uint32_t v)
{
	return span_ticks && span_ticks[v] ? (double)forks[v] * clock_hz / span_ticks[v] : 0;
}

/* Forks per second over all vCPUs: the sum of their rates, each over its own span. */
static double total_rate(void)
{
	double sum = 0;

	for (uint32_t v = 0; forks && v < tb.o.vcpus; v++)
		sum += vcpu_rate(v);
	return sum;
}

static int write_record(const struct host_desc *host, int argc, char **argv, const char *status,
			const char *reason)
{
	int ret;
	struct json j;
	double *rates;

	if (!tb.o.json_path)
		return 0;
	record_begin(&j, "tlbie_bench", argc, argv, host);
	json_object_begin(&j, "params");
	json_u64(&j, "vcpus", tb.o.vcpus);
	json_u64(&j, "seconds", tb.o.seconds);
	json_u64(&j, "pages", tb.o.pages);
	json_string(&j, "flush", tb_flush_name(tb.o.flush));
	json_bool(&j, "shared", tb.o.shared);
	json_string(&j, "alternate", tb.o.alternate);
	json_object_end(&j);
	if (tb.alt.rate)
		tb_alternate_json_summary(&tb.alt, &j);
	stats_mappings_json(&j, &mappings);
	tb_profile_json(&profile, &j);
	json_object_begin(&j, "figures");
	rates = calloc(tb.o.vcpus, sizeof(double));
	TEST_ASSERT(rates, "out of memory");
	for (uint32_t v = 0; forks && v < tb.o.vcpus; v++)
		rates[v] = vcpu_rate(v);
	record_figure(&j, "throughput", "forks/s", total_rate(), rates, forks ? tb.o.vcpus : 0);
	for (uint32_t v = 0; forks && v < tb.o.vcpus; v++)
		rates[v] = forks[v];
	record_figure(&j, "forks", "forks", sum_of(forks), rates, forks ? tb.o.vcpus : 0);
	for (uint32_t v = 0; forks && v < tb.o.vcpus; v++)
		rates[v] = remaps[v];
	record_figure(&j, "verified_remaps", "remaps", sum_of(remaps), rates,
		      forks ? tb.o.vcpus : 0);
	record_figure(&j, "run_time", "s", ts_to_sec(elapsed), NULL, 0);
	for (size_t i = 0; i < ARRAY_SIZE(vcpu_stat_names); i++)
		if (vcpu_stat_present[i])
			record_figure(&j, vcpu_stat_names[i], "events", vcpu_stat_deltas[i],
				      NULL, 0);
	if (tb_arch.figures)
		tb_arch.figures(&tb, &j);
	if (tb.alt.rate)
		tb_alternate_json(&tb.alt, &j);
	free(rates);
	json_object_end(&j);
	if (vm_after.values) {
		json_object_begin(&j, "phases");
		record_phase_stats(&j, "run", &vm_stats, &vm_before, &vm_after);
		if (tb.alt.rate)
			tb_alternate_json_phases(&tb.alt, &vm_stats, &j);
		json_object_end(&j);
	}
	ret = record_end(&j, status, reason, tb.o.json_path);
	json_free(&j);
	return ret;
}

static void vcpu_thread(struct kvm_vcpu *vcpu, void *arg)
{
	struct ucall uc;

	for (;;) {
		switch (vcpu_run_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			forks[vcpu->id] = uc.args[0];
			remaps[vcpu->id] = uc.args[1];
			span_ticks[vcpu->id] = uc.args[3] - uc.args[2];
			break;
		case UCALL_DONE:
			return;
		}
	}
}

/* Sum of one stat over every vCPU. */
static uint64_t vcpus_stat(struct kvm_stats *st, const char *name)
{
	uint64_t sum = 0, v;

	for (uint32_t i = 0; i < tb.o.vcpus; i++)
		if (stats_try_read(&st[i], name, &v))
			sum += v;
	return sum;
}

/* Forks completed so far by every vCPU, read live from the guest. */
static uint64_t forks_so_far(void)
{
	uint64_t sum = 0;

	for (uint32_t v = 0; v < tb.o.vcpus; v++)
		sum += tb.ga->vcpu[v].cycles;
	return sum;
}

/* Each second: the forks so far; with --alternate, its phase, then the next setting. */
static void run_seconds(void)
{
	/* --alternate: each second's forks, time and VM stats */
	struct timespec phase_start;
	struct stats_snapshot phase_before;
	uint64_t phase_forks = 0;

	phase_start = ts_now();
	stats_snapshot(&vm_stats, &phase_before);
	for (uint32_t s = 1; s <= tb.o.seconds; s++) {
		uint64_t sum;

		sleep(1);
		sum = forks_so_far();
		ksft_print_msg("%us: %lu forks so far\n", s, (unsigned long)sum);
		if (tb.alt.name) {
			struct stats_snapshot phase_after;

			stats_snapshot(&vm_stats, &phase_after);
			tb_alternate_phase_done(&tb.alt, s - 1, sum - phase_forks,
						ts_to_sec(ts_elapsed(phase_start)), &phase_before,
						&phase_after);
			stats_snapshot_free(&phase_after);
			if (s == tb.o.seconds)
				continue;
			/*
			 * The flip is in no phase: each is measured from after its
			 * setting was written to before the next one is.
			 */
			tb_alternate_set(&tb.alt, s);
			phase_start = ts_now();
			phase_forks = forks_so_far();
			stats_snapshot_free(&phase_before);
			stats_snapshot(&vm_stats, &phase_before);
		}
	}
	stats_snapshot_free(&phase_before);
}

static void run(void)
{
	struct kvm_stats *vst = calloc(tb.o.vcpus, sizeof(*vst));
	uint64_t before[ARRAY_SIZE(vcpu_stat_names)];
	int profiler = -1;
	struct timed t;

	TEST_ASSERT(vst, "out of memory");
	forks = calloc(tb.o.vcpus, sizeof(*forks));
	remaps = calloc(tb.o.vcpus, sizeof(*remaps));
	span_ticks = calloc(tb.o.vcpus, sizeof(*span_ticks));
	TEST_ASSERT(forks && remaps && span_ticks, "out of memory");
	clock_hz = arch_guest_clock_hz(tb.vm->vcpus[0]);
	stats_open_vm(&vm_stats, tb.vm);
	for (uint32_t v = 0; v < tb.o.vcpus; v++)
		stats_open_vcpu(&vst[v], tb.vm->vcpus[v]);
	for (size_t i = 0; i < ARRAY_SIZE(vcpu_stat_names); i++) {
		before[i] = vcpus_stat(vst, vcpu_stat_names[i]);
		vcpu_stat_present[i] = stats_find(&vst[0], vcpu_stat_names[i]) != NULL &&
				       !(invlpg_never_exits() && !strcmp(vcpu_stat_names[i], "invlpg"));
	}
	stats_snapshot(&vm_stats, &vm_before);
	if (tb.alt.name)
		tb_alternate_begin(&tb.alt, &vm_stats);
	if (tb.o.profile) {
		profiler = tb_profile_start(&profile);
		if (profiler < 0)
			ksft_print_msg("profile unavailable: %s\n", profile.unavailable);
	}

	watchdog_start(tb.vm, watchdog_timeout_from_env(WATCHDOG_DEFAULT_SEC));
	timed_start(&t, tb.vm);
	vcpu_threads_start(tb.vm, vcpu_thread, NULL, tb.o.nr_cpus ? tb.o.cpus : NULL,
			   tb.o.nr_cpus);
	run_seconds();
	tb.ga->stop = 1;
	vcpu_threads_join(tb.vm);
	elapsed = timed_stop(&t, "run_time");
	watchdog_stop();
	if (tb.alt.name)
		tb_alternate_end(&tb.alt);
	if (profiler > 0)
		tb_profile_stop_and_print(&profile, profiler);

	stats_snapshot(&vm_stats, &vm_after);
	stats_mappings_read(&vm_stats, &mappings, "at the end of the run");
	for (size_t i = 0; i < ARRAY_SIZE(vcpu_stat_names); i++)
		vcpu_stat_deltas[i] = vcpus_stat(vst, vcpu_stat_names[i]) - before[i];
	for (uint32_t v = 0; v < tb.o.vcpus; v++)
		stats_close(&vst[v]);
	free(vst);
}

/*
 * The post's "%.1fK/sec", where that shows the rate (100/s and more);
 * below, three significant digits, so that a slow host does not read 0.0.
 */
static const char *k_per_sec(double rate, char *buf, size_t len)
{
	if (rate >= 100)
		snprintf(buf, len, "%.1fK/sec", rate / 1000);
	else
		snprintf(buf, len, "%.3gK/sec", rate / 1000);
	return buf;
}

static void print_results(void)
{
	char line[512] = "none on this host";
	size_t len = 0;

	char rate[32];

	printf("total throughput: %s\n", k_per_sec(total_rate(), rate, sizeof(rate)));
	for (uint32_t v = 0; v < tb.o.vcpus; v++)
		ksft_print_msg("vCPU %u: %.1f/sec (%lu forks in %.3f s of its own, %lu remaps "
			       "verified)\n", v, vcpu_rate(v), (unsigned long)forks[v],
			       clock_hz ? (double)span_ticks[v] / clock_hz : 0.0,
			       (unsigned long)remaps[v]);
	for (size_t i = 0; i < ARRAY_SIZE(vcpu_stat_names); i++)
		if (vcpu_stat_present[i])
			len += snprintf(line + len, sizeof(line) - len, "%s%s %ld",
					len ? ", " : "", vcpu_stat_names[i],
					(long)vcpu_stat_deltas[i]);
	ksft_print_msg("vCPU stats over the run: %s\n", line);
	if (tb_arch.note)
		ksft_print_msg("%s\n", tb_arch.note);
	if (invlpg_never_exits())
		ksft_print_msg("%s MMU (EPT/NPT): the guest's INVLPG and CR3 writes cause no host exits, "
			       "the hardware walks the guest's tables (no invlpg count; the exits above "
			       "are ucalls and EPT/NPT faults)\n", host_mmu_name());
	if (tb_arch.figures)
		tb_arch.figures(&tb, NULL);
	stats_delta_print_section(&vm_stats, &vm_before, &vm_after, "VM MMU stats over the run");
	if (tb.alt.name)
		tb_alternate_print(&tb.alt, &vm_stats);
	stats_mappings_print(&mappings);
}

static void parse(int argc, char **argv)
{
	tb_parse_options(&tb.o, argc, argv);
	if (tb.o.alternate) {
		tb.alt.name = tb.o.alternate;
		tb_alternate_check(&tb.alt, tb.o.seconds);
	}
}

static void print_params(const struct host_desc *host)
{
	ksft_print_msg("%u vCPU(s) for %u s, %u pages per fork, flush: %s, %s address space%s\n",
		       tb.o.vcpus, tb.o.seconds, tb.o.pages, tb_flush_name(tb.o.flush),
		       tb.o.shared ? "one shared" : "one per vCPU", tb.o.shared ? "" : "s");
	if (tb.o.alternate)
		ksft_print_msg("--alternate %s: flipped every second; the total throughput mixes "
			       "both settings\n", tb.o.alternate);
}

static void setup_and_run(const struct host_desc *host)
{
	tb_setup(&tb);
	run();
	print_results();
	TEST_ASSERT(sum_of(forks) > 0, "no fork completed in %u s", tb.o.seconds);
}

static void teardown(void)
{
	stats_snapshot_free(&vm_before);
	stats_snapshot_free(&vm_after);
	stats_close(&vm_stats);
	vm_free(tb.vm);
}

int main(int argc, char **argv)
{
	static const struct bench b = {
		.name = "tlbie_bench", .parse = parse, .print_params = print_params,
		.run = setup_and_run, .write_record = write_record, .teardown = teardown,
	};

	bench_main(&b, argc, argv);
}
