// SPDX-License-Identifier: GPL-2.0
/*
 * Harness accounting (include/account.h): per timed region, the duration a
 * benchmark reports and the part of it spent inside KVM, summed over the
 * region's occurrences and written to $KMP_ACCOUNT at exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "kvm_util.h"
#include "parse.h"

#define ACCOUNT_MAX_REGIONS 32

bool account_on;
__thread uint64_t account_thread_ioctl_ns;
volatile uint64_t account_region_start_ns;

static const char *account_path;
static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;

static struct account_region {
	char name[48];
	uint64_t count;
	uint64_t measured_ns;	/* what the benchmark reported */
	uint64_t kernel_ns;	/* of which inside KVM */
	/*
	 * vCPU regions, the busiest vCPU: from the region's start to its first
	 * KVM_RUN, and from its last exit to the region's end.
	 */
	uint64_t release_ns, completion_ns;
	double worst_share;	/* the largest (measured - kernel) / measured of one occurrence */
} regions[ACCOUNT_MAX_REGIONS];
static int nr_regions;

static uint64_t startup_ns;
static uint64_t start_ns;	/* KMP_START_NS: when selfbench/startup exec'd us */
static uint32_t startup_vcpus;
static bool startup_done, startup_wanted;

static void account_write(void)
{
	FILE *f = fopen(account_path, "w");

	if (!f) {
		perror(account_path);
		return;
	}
	pthread_mutex_lock(&account_lock);
	fprintf(f, "{\"regions\": {");
	for (int i = 0; i < nr_regions; i++)
		fprintf(f, "%s\n  \"%s\": {\"count\": %lu, \"measured_ns\": %lu, \"kernel_ns\": %lu, "
			"\"release_ns\": %lu, \"completion_ns\": %lu, \"worst_share\": %.9f}",
			i ? "," : "", regions[i].name, (unsigned long)regions[i].count,
			(unsigned long)regions[i].measured_ns, (unsigned long)regions[i].kernel_ns,
			(unsigned long)regions[i].release_ns, (unsigned long)regions[i].completion_ns,
			regions[i].worst_share);
	fprintf(f, "\n},\n");
	if (startup_done)
		fprintf(f, "\"startup_ns\": %lu, \"startup_vcpus\": %u\n}\n",
			(unsigned long)startup_ns, startup_vcpus);
	else
		fprintf(f, "\"startup_ns\": null, \"startup_vcpus\": null\n}\n");
	pthread_mutex_unlock(&account_lock);
	fclose(f);
}

static void __attribute__((constructor)) account_init(void)
{
	const char *path = getenv("KMP_ACCOUNT"), *start = getenv("KMP_START_NS");

	if (!path || !*path)
		return;
	/* A CLOCK_MONOTONIC time in ns, from before this process started. */
	if (start) {
		start_ns = parse_u64_opt("KMP_START_NS", start, 1, account_clock_ns());
		startup_wanted = true;
	}
	account_path = path;
	account_on = true;
	atexit(account_write);
}

void account_begin(struct account_mark *m, struct kvm_vm *vm)
{
	memset(m, 0, sizeof(*m));
	if (!account_on)
		return;
	m->vm = vm;
	m->ioctl_ns = account_thread_ioctl_ns;
	if (!vm)
		return;
	m->nr_vcpus = vm->nr_vcpus;
	m->start_ns = account_region_start_ns = account_clock_ns();
	m->run_ns = calloc(vm->nr_vcpus + 1, sizeof(*m->run_ns));
	TEST_ASSERT(m->run_ns, "out of memory");
	for (uint32_t i = 0; i < vm->nr_vcpus; i++)
		m->run_ns[i] = __atomic_load_n(&vm->vcpus[i]->run_ns, __ATOMIC_RELAXED);
}

void account_end(struct account_mark *m, const char *region, struct timespec measured)
{
	uint64_t kernel = 0, meas = (uint64_t)measured.tv_sec * 1000000000ULL + measured.tv_nsec;
	uint64_t release = 0, completion = 0, end = account_clock_ns();
	struct account_region *r = NULL;

	if (!account_on)
		return;
	if (m->vm) {
		/* The critical path: the vCPU that spent the most time in KVM_RUN. */
		for (uint32_t i = 0; i < m->vm->nr_vcpus; i++) {
			uint64_t run = __atomic_load_n(&m->vm->vcpus[i]->run_ns, __ATOMIC_RELAXED) -
				       (i < m->nr_vcpus ? m->run_ns[i] : 0);

			if (run > kernel) {
				struct kvm_vcpu *v = m->vm->vcpus[i];

				kernel = run;
				release = v->run_first_ns >= m->start_ns ? v->run_first_ns - m->start_ns : 0;
				completion = v->run_exit_ns <= end ? end - v->run_exit_ns : 0;
			}
		}
		free(m->run_ns);
		m->run_ns = NULL;
	} else {
		kernel = account_thread_ioctl_ns - m->ioctl_ns;
	}

	pthread_mutex_lock(&account_lock);
	for (int i = 0; i < nr_regions; i++)
		if (!strcmp(regions[i].name, region))
			r = &regions[i];
	if (!r && nr_regions < ACCOUNT_MAX_REGIONS) {
		r = &regions[nr_regions++];
		snprintf(r->name, sizeof(r->name), "%s", region);
	}
	if (r) {
		r->count++;
		r->measured_ns += meas;
		r->kernel_ns += kernel;
		r->release_ns += release;
		r->completion_ns += completion;
		if (meas && meas > kernel && (double)(meas - kernel) / meas > r->worst_share)
			r->worst_share = (double)(meas - kernel) / meas;
	}
	pthread_mutex_unlock(&account_lock);
}

void account_threads_ready(struct kvm_vm *vm)
{
	if (!account_on || startup_done || !startup_wanted)
		return;
	startup_ns = account_clock_ns() - start_ns;
	startup_vcpus = vm->nr_vcpus;
	startup_done = true;
}
