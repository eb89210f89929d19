// SPDX-License-Identifier: GPL-2.0
/*
 * fidelity_dirty_log: dirty_log_perf's kernel work with the barest host
 * loop.  The same VM (vm_create sized as memstress does, one anonymous
 * memslot at the test gpa, 4K guest mappings, manual protect with
 * initially-set where offered), the same sequence (populate, enable
 * logging, per iteration: every vCPU writes every page of its region, then
 * KVM_GET_DIRTY_LOG, then KVM_CLEAR_DIRTY_LOG in -k chunks, then disable),
 * each step timed around the raw ioctl() calls alone.
 *
 *	fidelity_dirty_log -v N -b SIZE -i N [-k SIZE] [-c LIST] [--minimal-guest] [--accounted]
 *
 * The vCPUs run the suite's guest workload (memstress_guest_code, in order,
 * 100% writes), so the guest's work is the same and only the host loop
 * differs.  --minimal-guest runs a one-store-per-page guest instead
 * (bench_guest.c), to show what the guest workload itself costs.
 * --accounted puts a second clock-read pair inside each KVM_GET_DIRTY_LOG
 * timing, where KMP_ACCOUNT puts one in the suite, and reports the time
 * between the pairs (get_rest_time): what the suite's accounting calls its
 * own time, for a loop that does nothing but time the ioctl.  Prints one
 * JSON object.
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "dirty_log.h"
#include "fid.h"
#include "memstress.h"
#include "parse.h"

static double sec(uint64_t ns)
{
	return ns / 1e9;
}

static uint64_t set_flags(struct kvm_vm *vm, struct kvm_userspace_memory_region *kr,
			  uint32_t flags)
{
	uint64_t t0;
	int ret;

	kr->flags = flags;
	t0 = fid_now_ns();
	ret = ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, kr);
	t0 = fid_now_ns() - t0;
	TEST_ASSERT(!ret, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	return t0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minimal-guest", no_argument, NULL, 'M' },
		{ "accounted", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t vcpu_bytes = 64ULL << 20, chunk = 0, iterations = 3, total, pages, gpa, manual;
	uint32_t nr_vcpus = 1;
	bool ms_guest = true, accounted = false;
	int cpus[KMP_MAX_VCPUS], nr_cpus = 0, opt;
	struct kvm_userspace_memory_region kr;
	double *dirty, *get, *get_rest, *clear, *dirty_pages, populate, enable, disable;
	struct fid_pool pool;
	struct kvm_vm *vm;
	uint64_t *bitmap;

	while ((opt = getopt_long(argc, argv, "v:b:i:k:c:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': nr_vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS); break;
		case 'b': vcpu_bytes = parse_size_opt("-b", optarg); break;
		case 'i': iterations = parse_u64_opt("-i", optarg, 1, 1000); break;
		case 'k': chunk = parse_size_opt("-k", optarg); break;
		case 'c': nr_cpus = fid_parse_cpus(optarg, cpus, KMP_MAX_VCPUS); break;
		case 'M': ms_guest = false; break;
		case 'A': accounted = true; break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
	vcpu_bytes = ALIGN_UP(vcpu_bytes, SZ_4K);
	total = vcpu_bytes * nr_vcpus;
	pages = total / SZ_4K;
	chunk = chunk ? chunk / SZ_4K : pages;
	if (chunk > pages)
		chunk = pages;

	vm = vm_create(nr_vcpus, pages);
	gpa = arch_test_mem_gpa(vm);
	vm_mem_add(vm, SRC_ANONYMOUS, gpa, MEMSTRESS_FIRST_SLOT, total, 0);
	virt_map(vm, gpa, gpa, total, SZ_4K);
	kr = vm_mem_region(vm, MEMSTRESS_FIRST_SLOT)->kr;
	manual = kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) &
		 (KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE | KVM_DIRTY_LOG_INITIALLY_SET);
	TEST_ASSERT(manual, "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 is not offered");
	vm_enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, manual);
	fid_vcpus_add(vm, nr_vcpus, gpa, vcpu_bytes, ms_guest, MEMSTRESS_CHECK_NONE);
	bitmap = bitmap_alloc(pages);
	dirty = calloc(iterations, sizeof(double));
	get = calloc(iterations, sizeof(double));
	get_rest = calloc(iterations, sizeof(double));
	clear = calloc(iterations, sizeof(double));
	dirty_pages = calloc(iterations, sizeof(double));
	TEST_ASSERT(dirty && get && get_rest && clear && dirty_pages, "out of memory");

	fid_pool_start(&pool, vm, nr_cpus ? cpus : NULL, nr_cpus);
	populate = sec(fid_pool_pass(&pool));
	enable = sec(set_flags(vm, &kr, KVM_MEM_LOG_DIRTY_PAGES));
	for (uint64_t it = 0; it < iterations; it++) {
		struct kvm_dirty_log log = { .slot = MEMSTRESS_FIRST_SLOT, .dirty_bitmap = bitmap };
		uint64_t t0;
		int ret = 0;

		if (ms_guest)
			guest_global(vm, memstress_args)->iteration = it + 1;
		dirty[it] = sec(fid_pool_pass(&pool));

		t0 = fid_now_ns();
		if (accounted) {
			/* As account_ioctl() does inside the suite's timing. */
			uint64_t t1 = fid_now_ns(), inner;

			ret = ioctl(vm->fd, KVM_GET_DIRTY_LOG, &log);
			inner = fid_now_ns() - t1;
			get[it] = sec(fid_now_ns() - t0);
			get_rest[it] = get[it] - sec(inner);
		} else {
			ret = ioctl(vm->fd, KVM_GET_DIRTY_LOG, &log);
			get[it] = sec(fid_now_ns() - t0);
		}
		TEST_ASSERT(!ret, "KVM_GET_DIRTY_LOG: %s", strerror(errno));
		dirty_pages[it] = bitmap_weight(bitmap, pages);
		TEST_ASSERT(dirty_pages[it] == pages, "iteration %lu: %.0f of %lu pages dirty",
			    (unsigned long)it + 1, dirty_pages[it], (unsigned long)pages);

		t0 = fid_now_ns();
		for (uint64_t first = 0; first < pages && !ret; first += chunk) {
			struct kvm_clear_dirty_log cl = {
				.slot = MEMSTRESS_FIRST_SLOT,
				.first_page = first,
				.num_pages = pages - first < chunk ? pages - first : chunk,
				.dirty_bitmap = bitmap + first / 64,
			};

			ret = ioctl(vm->fd, KVM_CLEAR_DIRTY_LOG, &cl);
		}
		clear[it] = sec(fid_now_ns() - t0);
		TEST_ASSERT(!ret, "KVM_CLEAR_DIRTY_LOG: %s", strerror(errno));
	}
	disable = sec(set_flags(vm, &kr, 0));
	fid_pool_stop(&pool);

	fid_json_begin("fidelity_dirty_log");
	fid_json_num("vcpus", nr_vcpus);
	fid_json_num("vcpu_bytes", vcpu_bytes);
	fid_json_num("clear_chunk_pages", chunk);
	fid_json_num("memstress_guest", ms_guest);
	fid_json_num("accounted", accounted);
	fid_json_num("populate_time", populate);
	fid_json_num("enable_dirty_logging_time", enable);
	fid_json_num("disable_dirty_logging_time", disable);
	fid_json_array("dirty_memory_time", dirty, iterations);
	fid_json_array("get_dirty_log_time", get, iterations);
	if (accounted)
		fid_json_array("get_rest_time", get_rest, iterations);
	fid_json_array("clear_dirty_log_time", clear, iterations);
	fid_json_array("dirty_pages", dirty_pages, iterations);
	fid_json_end();
	vm_free(vm);
	return 0;
}
