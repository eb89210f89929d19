// SPDX-License-Identifier: GPL-2.0
/* Progress watchdog for vCPU threads: report stuck vCPUs and fail, never hang. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "kvm_util.h"
#include "watchdog.h"

#define WATCHDOG_KICK_SIGNAL SIGUSR1

static struct {
	struct kvm_vm *vm;
	unsigned int timeout;
	pthread_t thread;
	bool running;
	volatile bool fired;
	volatile int dumped;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

unsigned int watchdog_timeout_from_env(unsigned int def)
{
	const char *v = getenv("KMP_WATCHDOG_SEC");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 10);
	if (*end || n == 0 || n > 86400)
		usage_error("KMP_WATCHDOG_SEC='%s': must be between 1 and 86400 seconds", v);
	return n;
}

/* Only interrupts KVM_RUN (no SA_RESTART); the work happens in the vCPU thread. */
static void kick_handler(int sig)
{
}

/* Runs in a kicked vCPU thread when KVM_RUN returned EINTR. */
static void watchdog_on_eintr(struct kvm_vcpu *vcpu)
{
	if (!wd.fired)
		return;
	fprintf(stderr, "watchdog: vCPU %u made no progress (state: in guest):\n", vcpu->id);
	vcpu_dump(stderr, vcpu, "  ");
	__atomic_add_fetch(&wd.dumped, 1, __ATOMIC_SEQ_CST);
	for (;;)	/* the watchdog thread ends the test */
		pause();
}

static uint64_t progress_of(struct kvm_vcpu *vcpu)
{
	return vcpu->progress + (vcpu->heartbeat ? *vcpu->heartbeat : 0);
}

static void fire(uint64_t *last, int *stuck_ids, int nr_stuck)
{
	struct kvm_vm *vm = wd.vm;

	wd.fired = true;
	fflush(stdout);
	fprintf(stderr, "watchdog: no vCPU made progress for %u s; %d vCPU(s) stuck in the guest\n",
		wd.timeout, nr_stuck);
	for (int i = 0; i < nr_stuck; i++) {
		struct kvm_vcpu *vcpu = vm->vcpus[stuck_ids[i]];

		vcpu->run->immediate_exit = 1;
		if (vcpu->has_thread)
			pthread_kill(vcpu->thread, WATCHDOG_KICK_SIGNAL);
	}
	/* Give the kicked threads a moment to print their registers. */
	for (int t = 0; t < 50 && wd.dumped < nr_stuck; t++)
		usleep(100 * 1000);
	TEST_FAIL("watchdog: %d vCPU(s) made no progress for %u s (KMP_WATCHDOG_SEC to change)",
		  nr_stuck, wd.timeout);
}

static void *watchdog_main(void *arg)
{
	struct kvm_vm *vm = wd.vm;
	uint64_t *last = calloc(vm->nr_vcpus, sizeof(*last));
	int *stuck = calloc(vm->nr_vcpus, sizeof(*stuck));
	unsigned int idle = 0;

	TEST_ASSERT(last && stuck, "out of memory");
	for (uint32_t i = 0; i < vm->nr_vcpus; i++)
		last[i] = progress_of(vm->vcpus[i]);

	pthread_mutex_lock(&wd.lock);
	while (!wd.stop) {
		struct timespec ts;
		bool moved = false;
		int nr_stuck = 0;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&wd.cond, &wd.lock, &ts);
		if (wd.stop)
			break;
		for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
			struct kvm_vcpu *vcpu = vm->vcpus[i];
			uint64_t p = progress_of(vcpu);

			if (p != last[i])
				moved = true;
			else if (vcpu->state == VCPU_IN_GUEST)
				stuck[nr_stuck++] = i;
			last[i] = p;
		}
		/* Nobody in the guest (host busy on purpose) or somebody moved: fine. */
		idle = moved || !nr_stuck ? 0 : idle + 1;
		if (idle >= wd.timeout) {
			pthread_mutex_unlock(&wd.lock);
			fire(last, stuck, nr_stuck);
		}
	}
	pthread_mutex_unlock(&wd.lock);
	free(last);
	free(stuck);
	return NULL;
}

void watchdog_start(struct kvm_vm *vm, unsigned int timeout_sec)
{
	struct sigaction sa = { .sa_handler = kick_handler };
	int ret;

	TEST_ASSERT(!wd.running, "watchdog already running");
	sigemptyset(&sa.sa_mask);
	sigaction(WATCHDOG_KICK_SIGNAL, &sa, NULL);
	wd.vm = vm;
	wd.timeout = timeout_sec;
	wd.stop = false;
	wd.fired = false;
	wd.dumped = 0;
	vcpu_eintr_hook = watchdog_on_eintr;
	ret = pthread_create(&wd.thread, NULL, watchdog_main, NULL);
	TEST_ASSERT(ret == 0, "pthread_create (watchdog): %s", strerror(ret));
	wd.running = true;
}

void watchdog_stop(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	wd.running = false;
	vcpu_eintr_hook = NULL;
}
