// SPDX-License-Identifier: GPL-2.0
/* A thread's CPU time and its guest share (include/thread_cputime.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "thread_cputime.h"

uint64_t thread_cputime_guest_step_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return 1000000000ULL / (hz > 0 ? hz : 100);
}

/* guest_time, field 43 of proc_pid_stat(5), in USER_HZ ticks. */
static uint64_t guest_ticks(pid_t tid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	TEST_ASSERT(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and parentheses: count from its end. */
	p = strrchr(buf, ')');
	TEST_ASSERT(p, "%s: no command name in \"%s\"", path, buf);
	p++;
	for (int field = 3; field <= 43; field++) {
		p += strspn(p, " ");
		if (field == 43)
			break;
		p += strcspn(p, " ");
	}
	TEST_ASSERT(sscanf(p, "%llu", &ticks) == 1, "%s: no guest_time field", path);
	return ticks;
}

void thread_cputime_read(pthread_t thread, pid_t tid, struct thread_cputime *t)
{
	struct timespec ts;
	clockid_t clock;
	int ret;

	ret = pthread_getcpuclockid(thread, &clock);
	TEST_ASSERT(!ret, "pthread_getcpuclockid: %s", strerror(ret));
	TEST_ASSERT(!clock_gettime(clock, &ts), "a thread's CPU clock: %s", strerror(errno));
	t->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	t->guest_ns = guest_ticks(tid) * thread_cputime_guest_step_ns();
}

void thread_cputime_add(struct thread_cputime *acc, const struct thread_cputime *before,
			const struct thread_cputime *after)
{
	acc->cpu_ns += after->cpu_ns - before->cpu_ns;
	acc->guest_ns += after->guest_ns - before->guest_ns;
}
