/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where another thread of this process spent its time (a vCPU thread, read
 * by the host's main thread): on a CPU at all, exactly (the thread's CPU
 * clock), and of that how much in the guest, as the kernel's tick sampling
 * accounts it (/proc/self/task/TID/stat's guest_time).  Whatever a window
 * holds beyond the CPU time the thread spent waiting for a CPU or asleep.
 */
#ifndef KMP_THREAD_CPUTIME_H
#define KMP_THREAD_CPUTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct thread_cputime {
	uint64_t cpu_ns;	/* exact: CLOCK_THREAD_CPUTIME_ID */
	uint64_t guest_ns;	/* tick-sampled, in USER_HZ steps */
};

/* One reading; fails the test if the thread has gone. */
void thread_cputime_read(pthread_t thread, pid_t tid, struct thread_cputime *t);
/* acc += after - before */
void thread_cputime_add(struct thread_cputime *acc, const struct thread_cputime *before,
			const struct thread_cputime *after);
/* The step of guest_ns: the tick-sampled figures are good to one per reading. */
uint64_t thread_cputime_guest_step_ns(void);

#endif
