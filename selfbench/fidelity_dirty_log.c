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

/*
 * The command line (see the comment at the top).  main() rounds vcpu_bytes
 * up to 4K and turns chunk into pages, as the JSON reports them.
 */
struct opts {
	uint64_t vcpu_bytes, chunk, iterations;
	uint32_t nr_vcpus;
	bool ms_guest, accounted;
	int cpus[KMP_MAX_VCPUS], nr_cpus;
};

/* Seconds, each step's; per iteration in the arrays, and that iteration's dirty pages. */
struct timings {
	double *dirty, *get, *get_rest, *clear, *dirty_pages;
	double populate, enable, disable;
};

static void parse_options(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minimal-guest", no_argument, NULL, 'M' },
		{ "accounted", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*o = (struct opts){ .vcpu_bytes = 64ULL << 20, .iterations = 3, .nr_vcpus = 1,
			    .ms_guest = true };
	while ((opt = getopt_long(argc, argv, "v:b:i:k:c:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': o->nr_vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS); break;
		case 'b': o->vcpu_bytes = parse_size_opt("-b", optarg); break;
		case 'i': o->iterations = parse_u64_opt("-i", optarg, 1, 1000); break;
		case 'k': o->chunk = parse_size_opt("-k", optarg); break;
		case 'c': o->nr_cpus = fid_parse_cpus(optarg, o->cpus, KMP_MAX_VCPUS); break;
		case 'M': o->ms_guest = false; break;
		case 'A': o->accounted = true; break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
}

/* dirty_log_perf's VM: one anonymous memslot at the test gpa, 4K mappings, manual protect. */
static struct kvm_vm *create_vm(const struct opts *o, uint64_t total, uint64_t pages,
				struct kvm_userspace_memory_region *kr)
{
	uint64_t gpa, manual;
	struct kvm_vm *vm;

	vm = vm_create(o->nr_vcpus, pages);
	gpa = arch_test_mem_gpa(vm);
	vm_mem_add(vm, SRC_ANONYMOUS, gpa, MEMSTRESS_FIRST_SLOT, total, 0);
	virt_map(vm, gpa, gpa, total, SZ_4K);
	*kr = vm_mem_region(vm, MEMSTRESS_FIRST_SLOT)->kr;
	manual = kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) &
		 (KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE | KVM_DIRTY_LOG_INITIALLY_SET);
	TEST_ASSERT(manual, "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 is not offered");
	vm_enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, manual);
	fid_vcpus_add(vm, o->nr_vcpus, gpa, o->vcpu_bytes, o->ms_guest, MEMSTRESS_CHECK_NONE);
	return vm;
}

static void timings_alloc(struct timings *t, uint64_t iterations)
{
	t->dirty = calloc(iterations, sizeof(double));
	t->get = calloc(iterations, sizeof(double));
	t->get_rest = calloc(iterations, sizeof(double));
	t->clear = calloc(iterations, sizeof(double));
	t->dirty_pages = calloc(iterations, sizeof(double));
	TEST_ASSERT(t->dirty && t->get && t->get_rest && t->clear && t->dirty_pages,
		    "out of memory");
}

/* KVM_GET_DIRTY_LOG's time into *get; with --accounted, the time around its inner pair too. */
static void get_dirty_log(struct kvm_vm *vm, struct kvm_dirty_log *log, bool accounted,
			  double *get, double *get_rest)
{
	uint64_t t0;
	int ret;

	t0 = fid_now_ns();
	if (accounted) {
		/* As account_ioctl() does inside the suite's timing. */
		uint64_t t1 = fid_now_ns(), inner;

		ret = ioctl(vm->fd, KVM_GET_DIRTY_LOG, log);
		inner = fid_now_ns() - t1;
		*get = sec(fid_now_ns() - t0);
		*get_rest = *get - sec(inner);
	} else {
		ret = ioctl(vm->fd, KVM_GET_DIRTY_LOG, log);
		*get = sec(fid_now_ns() - t0);
	}
	TEST_ASSERT(!ret, "KVM_GET_DIRTY_LOG: %s", strerror(errno));
}

/* KVM_CLEAR_DIRTY_LOG over the slot in chunks of `chunk` pages: the seconds it took. */
static double clear_dirty_log(struct kvm_vm *vm, uint64_t *bitmap, uint64_t pages, uint64_t chunk)
{
	uint64_t t0;
	double clear;
	int ret = 0;

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
	clear = sec(fid_now_ns() - t0);
	TEST_ASSERT(!ret, "KVM_CLEAR_DIRTY_LOG: %s", strerror(errno));
	return clear;
}

static void print_json(const struct opts *o, const struct timings *t)
{
	fid_json_begin("fidelity_dirty_log");
	fid_json_num("vcpus", o->nr_vcpus);
	fid_json_num("vcpu_bytes", o->vcpu_bytes);
	fid_json_num("clear_chunk_pages", o->chunk);
	fid_json_num("memstress_guest", o->ms_guest);
	fid_json_num("accounted", o->accounted);
	fid_json_num("populate_time", t->populate);
	fid_json_num("enable_dirty_logging_time", t->enable);
	fid_json_num("disable_dirty_logging_time", t->disable);
	fid_json_array("dirty_memory_time", t->dirty, o->iterations);
	fid_json_array("get_dirty_log_time", t->get, o->iterations);
	if (o->accounted)
		fid_json_array("get_rest_time", t->get_rest, o->iterations);
	fid_json_array("clear_dirty_log_time", t->clear, o->iterations);
	fid_json_array("dirty_pages", t->dirty_pages, o->iterations);
	fid_json_end();
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region kr;
	struct fid_pool pool;
	struct kvm_vm *vm;
	struct timings t;
	struct opts o;
	uint64_t *bitmap, total, pages;

	parse_options(&o, argc, argv);
	o.vcpu_bytes = ALIGN_UP(o.vcpu_bytes, SZ_4K);
	total = o.vcpu_bytes * o.nr_vcpus;
	pages = total / SZ_4K;
	o.chunk = o.chunk ? o.chunk / SZ_4K : pages;
	if (o.chunk > pages)
		o.chunk = pages;

	vm = create_vm(&o, total, pages, &kr);
	bitmap = bitmap_alloc(pages);
	timings_alloc(&t, o.iterations);

	fid_pool_start(&pool, vm, o.nr_cpus ? o.cpus : NULL, o.nr_cpus);
	t.populate = sec(fid_pool_pass(&pool));
	t.enable = sec(set_flags(vm, &kr, KVM_MEM_LOG_DIRTY_PAGES));
	for (uint64_t it = 0; it < o.iterations; it++) {
		struct kvm_dirty_log log = { .slot = MEMSTRESS_FIRST_SLOT, .dirty_bitmap = bitmap };

		if (o.ms_guest)
			guest_global(vm, memstress_args)->iteration = it + 1;
		t.dirty[it] = sec(fid_pool_pass(&pool));
		get_dirty_log(vm, &log, o.accounted, &t.get[it], &t.get_rest[it]);
		t.dirty_pages[it] = bitmap_weight(bitmap, pages);
		TEST_ASSERT(t.dirty_pages[it] == pages, "iteration %lu: %.0f of %lu pages dirty",
			    (unsigned long)it + 1, t.dirty_pages[it], (unsigned long)pages);
		t.clear[it] = clear_dirty_log(vm, bitmap, pages, o.chunk);
	}
	t.disable = sec(set_flags(vm, &kr, 0));
	fid_pool_stop(&pool);

	print_json(&o, &t);
	vm_free(vm);
	return 0;
}
