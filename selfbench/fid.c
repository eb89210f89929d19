// SPDX-License-Identifier: GPL-2.0
/* make bench's bare vCPU loop and its JSON output (fid.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "fid.h"
#include "memstress.h"
#include "parse.h"
#include "topology.h"
#include "ucall.h"

struct fid_thread {
	struct fid_pool *p;
	struct kvm_vcpu *vcpu;
	int cpu;
};

static void *fid_vcpu_main(void *arg)
{
	struct fid_thread t = *(struct fid_thread *)arg;
	struct fid_pool *p = t.p;
	int fd = t.vcpu->fd;

	free(arg);
	if (t.cpu >= 0)
		topology_pin_thread(pthread_self(), t.cpu);
	for (;;) {
		int ret;

		pthread_barrier_wait(&p->go);
		if (p->quit)
			return NULL;
		do {
			do
				ret = ioctl(fd, KVM_RUN, NULL);
			while (ret < 0 && errno == EINTR);
			TEST_ASSERT(!ret, "KVM_RUN on vCPU %u: %s", t.vcpu->id, strerror(errno));
			t.vcpu->last_exit_reason = t.vcpu->run->exit_reason;
		} while (p->free_run && ucall_exit(t.vcpu));
		pthread_barrier_wait(&p->done);
	}
}

void fid_pool_start(struct fid_pool *p, struct kvm_vm *vm, const int *cpus, int nr_cpus)
{
	memset(p, 0, sizeof(*p));
	p->vm = vm;
	p->cpus = cpus;
	p->nr_cpus = nr_cpus;
	p->threads = calloc(vm->nr_vcpus, sizeof(*p->threads));
	TEST_ASSERT(p->threads, "out of memory");
	pthread_barrier_init(&p->go, NULL, vm->nr_vcpus + 1);
	pthread_barrier_init(&p->done, NULL, vm->nr_vcpus + 1);
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		struct fid_thread *t = malloc(sizeof(*t));

		TEST_ASSERT(t, "out of memory");
		*t = (struct fid_thread){ .p = p, .vcpu = vm->vcpus[i],
					  .cpu = cpus && (int)i < nr_cpus ? cpus[i] : -1 };
		TEST_ASSERT(!pthread_create(&p->threads[i], NULL, fid_vcpu_main, t),
			    "pthread_create");
	}
}

void fid_pool_go(struct fid_pool *p)
{
	pthread_barrier_wait(&p->go);
}

void fid_pool_wait(struct fid_pool *p)
{
	struct ucall uc;

	pthread_barrier_wait(&p->done);
	for (uint32_t i = 0; i < p->vm->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = p->vm->vcpus[i];

		switch (get_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			break;
		case UCALL_ABORT:
			ucall_report_abort(vcpu, &uc);
		default:
			vcpu_unexpected_exit(vcpu);
		}
	}
}

void fid_pool_go_free(struct fid_pool *p)
{
	p->free_run = true;
	pthread_barrier_wait(&p->go);
}

void fid_pool_end_free(struct fid_pool *p)
{
	p->free_run = false;
}

uint64_t fid_pool_pass(struct fid_pool *p)
{
	uint64_t t0 = fid_now_ns(), t1;

	pthread_barrier_wait(&p->go);
	pthread_barrier_wait(&p->done);
	t1 = fid_now_ns();
	/* Check the exits after the clock stopped. */
	for (uint32_t i = 0; i < p->vm->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = p->vm->vcpus[i];
		struct ucall uc;

		if (get_ucall(vcpu, &uc) != UCALL_SYNC) {
			if (uc.cmd == UCALL_ABORT)
				ucall_report_abort(vcpu, &uc);
			vcpu_unexpected_exit(vcpu);
		}
	}
	return t1 - t0;
}

void fid_pool_stop(struct fid_pool *p)
{
	p->quit = true;
	pthread_barrier_wait(&p->go);
	for (uint32_t i = 0; i < p->vm->nr_vcpus; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
}

uint64_t fid_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

int fid_parse_cpus(const char *list, int *cpus, int max)
{
	char err[128];
	int n = parse_cpu_list(list, cpus, max, err, sizeof(err));

	if (n < 0)
		usage_error("-c '%s': %s", list, err);
	return n;
}

void fid_json_begin(const char *tool)
{
	printf("{\"tool\": \"%s\"", tool);
}

void fid_json_num(const char *key, double v)
{
	printf(", \"%s\": %.9g", key, v);
}

void fid_json_array(const char *key, const double *v, int n)
{
	printf(", \"%s\": [", key);
	for (int i = 0; i < n; i++)
		printf("%s%.9g", i ? ", " : "", v[i]);
	printf("]");
}

void fid_json_end(void)
{
	printf("}\n");
	fflush(stdout);
}

void fid_vcpus_add(struct kvm_vm *vm, uint32_t nr_vcpus, uint64_t gpa, uint64_t vcpu_bytes,
		   bool ms_guest, uint32_t check)
{
	if (ms_guest) {
		memstress_args.page_size = SZ_4K;
		memstress_args.write_percent = 100;
		memstress_args.random_seed = 1;
		memstress_args.check_content = check;
		for (uint32_t i = 0; i < nr_vcpus; i++) {
			memstress_args.vcpu_args[i].gva = gpa + i * vcpu_bytes;
			memstress_args.vcpu_args[i].pages = vcpu_bytes / SZ_4K;
		}
		sync_global_to_guest(vm, memstress_args);
	}
	for (uint32_t i = 0; i < nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = vm_vcpu_add(vm, i, ms_guest ? (void *)memstress_guest_code :
						    (void *)fid_write_pass_guest);

		if (ms_guest)
			vcpu_args_set(vcpu, 1, (uint64_t)i);
		else
			vcpu_args_set(vcpu, 2, gpa + i * vcpu_bytes, vcpu_bytes / SZ_4K);
	}
}
