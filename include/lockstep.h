/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waiting for another thread's progress without futex wake-up skew: spin
 * while every thread has a CPU of its own (as upstream's vCPUs and host
 * do), else sleep at once.
 */
#ifndef KMP_LOCKSTEP_H
#define KMP_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>

struct lockstep_wait {
	uint64_t spin_ns;	/* spin this long before the caller sleeps; 0: sleep at once */
	const char *how;	/* for the output */
};

/*
 * The policy for `threads` threads that wait on each other, from the CPUs
 * this process may run on.  KMP_LOCKSTEP_WAIT=block (make bench's "before")
 * always sleeps at once, as a condvar alone does; auto (the default) is the
 * policy.
 */
void lockstep_wait_init(struct lockstep_wait *w, unsigned int threads);
/* Spin until done(arg): false when the spin budget ran out (then sleep). */
bool lockstep_spin(const struct lockstep_wait *w, bool (*done)(void *), void *arg);

#endif
