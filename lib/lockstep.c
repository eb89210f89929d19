// SPDX-License-Identifier: GPL-2.0
/* Spin-then-sleep waiting for lockstep vCPUs and the host (include/lockstep.h). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "kvm_util.h"		/* <arch>/processor.h: cpu_relax() */
#include "lockstep.h"
#include "report.h"

/*
 * With a CPU each, a waiter that spins costs nobody anything, and sees the
 * release at once: spin up to a second (a long clear step or -l delays
 * then sleep).  Sharing CPUs, a spinner holds the CPU a woken thread needs
 * until the scheduler preempts it: make bench measured 20 us of spinning
 * and 200 us of sched_yield() raise the skew from 0.18 to 1 ms (-v 2 on 2
 * CPUs), so there the waiter sleeps at once.
 */
#define OWN_CPU_SPIN_NS		1000000000ULL

void lockstep_wait_init(struct lockstep_wait *w, unsigned int threads)
{
	const char *env = getenv("KMP_LOCKSTEP_WAIT");
	cpu_set_t set;
	int cpus = 1;

	if (env && strcmp(env, "block") && strcmp(env, "auto"))
		usage_error("KMP_LOCKSTEP_WAIT='%s': must be auto or block", env);
	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = CPU_COUNT(&set);
	if (env && !strcmp(env, "block"))
		*w = (struct lockstep_wait){ 0, "block (KMP_LOCKSTEP_WAIT)" };
	else if (threads <= (unsigned int)cpus)
		*w = (struct lockstep_wait){ OWN_CPU_SPIN_NS, "spin, then block after 1 s" };
	else
		*w = (struct lockstep_wait){ 0, "block: more threads than CPUs" };
}

bool lockstep_spin(const struct lockstep_wait *w, bool (*done)(void *), void *arg)
{
	struct timespec start;
	uint64_t spins = 0;

	if (!w->spin_ns)
		return done(arg);
	start = ts_now();
	while (!done(arg)) {
		/* A clock read costs more than a check: one per 64. */
		if (!(++spins & 63) && ts_to_ns(ts_elapsed(start)) >= w->spin_ns)
			return false;
		cpu_relax();
	}
	return true;
}
