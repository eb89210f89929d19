// SPDX-License-Identifier: GPL-2.0
/*
 * The vCPUs over the host's iteration loop: their KVM stats (exits, faults
 * where the arch counts them) summed, and where their threads' time went:
 * in the guest, in the host (KVM's exits and faults), or off a CPU.  With
 * -j this tells a vCPU held off by mmu_lock or stuck in faults from one
 * that was not scheduled.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "dlp.h"
#include "json.h"
#include "record.h"
#include "report.h"

static void read_all(struct dlp *d, struct stats_snapshot *snaps, struct thread_cputime *times)
{
	for (uint32_t v = 0; v < d->o.ms.nr_vcpus; v++) {
		struct kvm_vcpu *vcpu = d->ms->vm->vcpus[v];

		stats_snapshot(&d->vcpu_stats[v], &snaps[v]);
		thread_cputime_read(vcpu->thread, vcpu->tid, &times[v]);
	}
}

void loop_vcpus_open(struct dlp *d)
{
	uint32_t n = d->o.ms.nr_vcpus;

	d->vcpu_stats = calloc(n, sizeof(*d->vcpu_stats));
	d->vcpu_stats_before = calloc(n, sizeof(*d->vcpu_stats_before));
	d->vcpu_times_before = calloc(n, sizeof(*d->vcpu_times_before));
	TEST_ASSERT(d->vcpu_stats && d->vcpu_stats_before && d->vcpu_times_before,
		    "out of memory");
	for (uint32_t v = 0; v < n; v++)
		stats_open_vcpu(&d->vcpu_stats[v], d->ms->vm->vcpus[v]);
}

/* The window starts before the first reads and ends after the last: the times fit in it. */
void loop_vcpus_begin(struct dlp *d)
{
	d->vcpus_window_start = ts_now();
	read_all(d, d->vcpu_stats_before, d->vcpu_times_before);
}

void loop_vcpus_end(struct dlp *d)
{
	uint32_t n = d->o.ms.nr_vcpus;
	struct stats_snapshot *after = calloc(n, sizeof(*after));
	struct thread_cputime *times = calloc(n, sizeof(*times));

	TEST_ASSERT(after && times, "out of memory");
	read_all(d, after, times);
	d->vcpus_window = ts_elapsed(d->vcpus_window_start);
	stats_snapshot_zero(&d->vcpu_stats[0], &d->loop_vcpu_stats);
	for (uint32_t v = 0; v < n; v++) {
		stats_delta_add(&d->loop_vcpu_stats, &d->vcpu_stats_before[v], &after[v]);
		thread_cputime_add(&d->loop_vcpu_times, &d->vcpu_times_before[v], &times[v]);
		stats_snapshot_free(&after[v]);
		stats_snapshot_free(&d->vcpu_stats_before[v]);
	}
	free(after);
	free(times);
	d->loop_vcpus_known = true;
}

void loop_vcpus_print(const struct dlp *d)
{
	double window = ts_to_sec(d->vcpus_window) * d->o.ms.nr_vcpus;
	double cpu = d->loop_vcpu_times.cpu_ns / 1e9, guest = d->loop_vcpu_times.guest_ns / 1e9;
	char exits[48] = "not counted by this KVM";
	uint64_t v;

	if (!d->loop_vcpus_known)
		return;
	/* x86 and arm64 count every exit as "exits"; POWER has no such stat. */
	if (stats_snapshot_value(&d->vcpu_stats[0], &d->loop_vcpu_stats, "exits", &v))
		snprintf(exits, sizeof(exits), "%" PRIu64, v);
	ksft_print_msg("vCPU threads over the host's loop and the reads around it (%.3f s x %u "
		       "vCPUs): on a CPU %.3f s, in the guest about %.2f s (tick-sampled), off a "
		       "CPU %.3f s; exits: %s\n", ts_to_sec(d->vcpus_window), d->o.ms.nr_vcpus,
		       cpu, guest, window > cpu ? window - cpu : 0, exits);
	if (d->o.print_stats) {
		struct stats_snapshot zero;

		stats_snapshot_zero(&d->vcpu_stats[0], &zero);
		stats_delta_print_section(&d->vcpu_stats[0], &zero, &d->loop_vcpu_stats,
					  "KVM vCPU stats (summed), " LOOP_VCPUS_PHASE);
		stats_snapshot_free(&zero);
	}
}

void loop_vcpus_figures(struct json *j, const struct dlp *d)
{
	if (!d->loop_vcpus_known)
		return;
	record_figure(j, "vcpu_window_time", "s", ts_to_sec(d->vcpus_window), NULL, 0);
	record_figure(j, "vcpu_cpu_time", "s", d->loop_vcpu_times.cpu_ns / 1e9, NULL, 0);
	record_figure(j, "vcpu_guest_time", "s", d->loop_vcpu_times.guest_ns / 1e9, NULL, 0);
}

void loop_vcpus_phase(struct json *j, const struct dlp *d)
{
	struct stats_snapshot zero;

	if (!d->loop_vcpus_known)
		return;
	stats_snapshot_zero(&d->vcpu_stats[0], &zero);
	record_phase_stats(j, LOOP_VCPUS_PHASE, &d->vcpu_stats[0], &zero, &d->loop_vcpu_stats);
	stats_snapshot_free(&zero);
}

void loop_vcpus_teardown(struct dlp *d)
{
	if (d->vcpu_stats)
		for (uint32_t v = 0; v < d->o.ms.nr_vcpus; v++)
			stats_close(&d->vcpu_stats[v]);
	free(d->vcpu_stats);
	free(d->vcpu_stats_before);
	free(d->vcpu_times_before);
	stats_snapshot_free(&d->loop_vcpu_stats);
	d->vcpu_stats = NULL;
}
