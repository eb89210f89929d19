// SPDX-License-Identifier: GPL-2.0
/* vCPU threads: created, pinned, then released together by a barrier. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "account.h"
#include "kvm_util.h"
#include "topology.h"
#include "vcpu_thread.h"

struct vcpu_thread_args {
	struct kvm_vcpu *vcpu;
	vcpu_thread_fn fn;
	void *arg;
	int cpu;
	pthread_barrier_t *barrier;
};

static void *vcpu_thread_main(void *p)
{
	struct vcpu_thread_args a = *(struct vcpu_thread_args *)p;

	free(p);
	a.vcpu->tid = gettid();
	if (a.cpu >= 0)
		topology_pin_thread(pthread_self(), a.cpu);
	pthread_barrier_wait(a.barrier);
	a.fn(a.vcpu, a.arg);
	a.vcpu->state = VCPU_IDLE;
	return NULL;
}

void vcpu_threads_start(struct kvm_vm *vm, vcpu_thread_fn fn, void *arg,
			const int *cpus, int nr_cpus)
{
	static pthread_barrier_t barrier;
	uint32_t n = vm->nr_vcpus;

	TEST_ASSERT(!cpus || nr_cpus <= (int)n + 1,
		    "%d CPUs to pin to, but only %u vCPUs (+1 main thread)", nr_cpus, n);
	pthread_barrier_init(&barrier, NULL, n + 1);
	for (uint32_t i = 0; i < n; i++) {
		struct vcpu_thread_args *a = malloc(sizeof(*a));
		int ret;

		TEST_ASSERT(a, "out of memory");
		*a = (struct vcpu_thread_args){
			.vcpu = vm->vcpus[i], .fn = fn, .arg = arg, .barrier = &barrier,
			.cpu = cpus && (int)i < nr_cpus ? cpus[i] : -1,
		};
		ret = pthread_create(&vm->vcpus[i]->thread, NULL, vcpu_thread_main, a);
		TEST_ASSERT(ret == 0, "pthread_create for vCPU %u: %s", i, strerror(ret));
		vm->vcpus[i]->has_thread = true;
	}
	if (cpus && nr_cpus == (int)n + 1)
		topology_pin_thread(pthread_self(), cpus[n]);
	pthread_barrier_wait(&barrier);
	account_threads_ready(vm);
}

void vcpu_threads_join(struct kvm_vm *vm)
{
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = vm->vcpus[i];

		if (vcpu->has_thread) {
			pthread_join(vcpu->thread, NULL);
			vcpu->has_thread = false;
		}
	}
}
