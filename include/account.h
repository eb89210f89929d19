/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness accounting for `make bench` (docs/perf.md): how much of each timed
 * region is the suite's own time, outside the KVM ioctls and vCPU execution
 * it measures.  Off unless the environment has KMP_ACCOUNT=FILE; then
 *  - every KVM ioctl made through the library is timed (this thread's total),
 *    and KVM_RUN per vCPU (vcpu->run_ns);
 *  - each timed region of a benchmark (include/timed.h, which calls
 *    account_begin() and account_end()) books the duration it reports;
 *  - at exit the totals per region go to FILE as one JSON object.
 * With KMP_START_NS=<CLOCK_MONOTONIC ns before exec> the time until the
 * first vCPU threads are ready to enter the guest is recorded too.
 * Off, each hook is one predictable branch.
 */
#ifndef KMP_ACCOUNT_H
#define KMP_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

struct kvm_vm;

extern bool account_on;
/* This thread's time inside KVM ioctls (KVM_RUN included), when account_on. */
extern __thread uint64_t account_thread_ioctl_ns;
/* When the last vCPU region began (vcpu->run_first_ns is the first entry after it). */
extern volatile uint64_t account_region_start_ns;

static inline uint64_t account_clock_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * ioctl(), timed into this thread's total when accounting is on: the raw
 * tier of the ioctl wrappers (__vm_ioctl() and kin in kvm_util.h).  Inline,
 * so in a timed region that wraps one ioctl no wrapper code runs between
 * the caller's clock reads.
 */
static inline int account_ioctl(int fd, unsigned long cmd, void *arg)
{
	uint64_t t0;
	int ret;

	if (!account_on)
		return ioctl(fd, cmd, arg);
	t0 = account_clock_ns();
	ret = ioctl(fd, cmd, arg);
	account_thread_ioctl_ns += account_clock_ns() - t0;
	return ret;
}

/* A region in progress. */
struct account_mark {
	struct kvm_vm *vm;	/* vCPU region: its vCPUs' KVM_RUN; NULL: this thread's ioctls */
	uint64_t ioctl_ns;
	uint64_t *run_ns;	/* per vCPU at begin (vCPUs added later start at 0) */
	uint32_t nr_vcpus;
	uint64_t start_ns;
};

/*
 * Before the region's first clock read.  vm: the region measures vCPU
 * execution (its kernel time is the busiest vCPU's KVM_RUN time); NULL: it
 * measures ioctls made by this thread.
 */
void account_begin(struct account_mark *m, struct kvm_vm *vm);
/* After the region: `measured` is the duration the benchmark reports for it. */
void account_end(struct account_mark *m, const char *region, struct timespec measured);
/* vcpu_threads_start(): the vCPU threads of vm are released (startup time). */
void account_threads_ready(struct kvm_vm *vm);

#endif
