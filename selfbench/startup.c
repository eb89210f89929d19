// SPDX-License-Identifier: GPL-2.0
/*
 * startup: how long from process start until vCPUs are ready to enter the
 * guest.
 *
 *	startup exec PROGRAM [ARGS...]
 *		sets KMP_START_NS to CLOCK_MONOTONIC now and execs PROGRAM, so a
 *		benchmark run with KMP_ACCOUNT=FILE records in FILE the time from
 *		this exec to its first vcpu_threads_start() (lib/account.c);
 *	startup [-v N] [-b SIZE]
 *		the library alone: vm_create, -b bytes per vCPU of test memory
 *		added and mapped with 4K guest pages as memstress does (none by
 *		default), N (8) vm_vcpu_add and vcpu_threads_start, timed from
 *		KMP_START_NS (or from main() when
 *		unset) and per step, after host_desc_read() as every benchmark
 *		does first (timed on its own); the vCPUs then run a guest that
 *		returns a SYNC, to show they were really ready.  Prints JSON.
 */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "fid.h"
#include "host_desc.h"
#include "memstress.h"
#include "parse.h"
#include "ucall.h"
#include "vcpu_thread.h"

static pthread_barrier_t ready;

static void vcpu_fn(struct kvm_vcpu *vcpu, void *arg)
{
	struct ucall uc;

	pthread_barrier_wait(&ready);
	TEST_ASSERT(vcpu_run_ucall(vcpu, &uc) == UCALL_SYNC, "vCPU %u: no SYNC", vcpu->id);
}

int main(int argc, char **argv)
{
	uint64_t t_main = fid_now_ns(), start, t_desc, t_vm, t_mem, t_vcpus, t_ready, bytes = 0;
	struct host_desc host;
	const char *env = getenv("KMP_START_NS");
	uint32_t nr = 8;
	struct kvm_vm *vm;
	char buf[32];
	int opt;

	if (argc > 2 && !strcmp(argv[1], "exec")) {
		snprintf(buf, sizeof(buf), "%lu", (unsigned long)fid_now_ns());
		setenv("KMP_START_NS", buf, 1);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	while ((opt = getopt(argc, argv, "v:b:")) != -1) {
		if (opt == 'v')
			nr = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS);
		else if (opt == 'b')
			bytes = ALIGN_UP(parse_size_opt("-b", optarg), SZ_4K);
		else
			usage_error("usage: startup [-v N] [-b SIZE] | startup exec PROGRAM [ARGS...]");
	}
	start = env ? strtoull(env, NULL, 10) : t_main;

	host_desc_read(&host);
	t_desc = fid_now_ns();
	vm = vm_create(nr, bytes * nr / SZ_4K);
	t_vm = fid_now_ns();
	if (bytes) {
		uint64_t gpa = arch_test_mem_gpa(vm);

		vm_mem_add(vm, SRC_ANONYMOUS, gpa, MEMSTRESS_FIRST_SLOT, bytes * nr, 0);
		virt_map(vm, gpa, gpa, bytes * nr, SZ_4K);
	}
	t_mem = fid_now_ns();
	for (uint32_t i = 0; i < nr; i++) {
		struct kvm_vcpu *vcpu = vm_vcpu_add(vm, i, fid_stride_guest);

		vcpu_args_set(vcpu, 3, (uint64_t)vm->vaddr_next, 0ULL, 4096ULL);
	}
	t_vcpus = fid_now_ns();
	pthread_barrier_init(&ready, NULL, nr + 1);
	vcpu_threads_start(vm, vcpu_fn, NULL, NULL, 0);
	t_ready = fid_now_ns();
	pthread_barrier_wait(&ready);
	vcpu_threads_join(vm);

	fid_json_begin("startup");
	fid_json_num("vcpus", nr);
	fid_json_num("vcpu_bytes", bytes);
	fid_json_num("from_exec", env != NULL);
	fid_json_num("startup_time", (t_ready - start) / 1e9);
	fid_json_num("exec_to_main", (t_main - start) / 1e9);
	fid_json_num("host_desc_read", (t_desc - t_main) / 1e9);
	fid_json_num("vm_create", (t_vm - t_desc) / 1e9);
	fid_json_num("memory_map", (t_mem - t_vm) / 1e9);
	fid_json_num("vcpus_add", (t_vcpus - t_mem) / 1e9);
	fid_json_num("threads_start", (t_ready - t_vcpus) / 1e9);
	fid_json_end();
	vm_free(vm);
	return 0;
}
