/* SPDX-License-Identifier: GPL-2.0 */
/* One host thread per vCPU, pinned on request, released together. */
#ifndef KMP_VCPU_THREAD_H
#define KMP_VCPU_THREAD_H

struct kvm_vm;
struct kvm_vcpu;

typedef void (*vcpu_thread_fn)(struct kvm_vcpu *vcpu, void *arg);

/*
 * Start fn(vcpu, arg) on a thread per vCPU of vm.  With cpus (from -c),
 * vCPU i is pinned to cpus[i]; an extra last entry pins the calling (main)
 * thread.  Threads wait on a start barrier; this returns once every thread
 * is pinned and released.
 */
void vcpu_threads_start(struct kvm_vm *vm, vcpu_thread_fn fn, void *arg,
			const int *cpus, int nr_cpus);
/* Wait for every vCPU thread to return. */
void vcpu_threads_join(struct kvm_vm *vm);

#endif
