// SPDX-License-Identifier: GPL-2.0
/*
 * bigvm: a large, sparsely touched guest.  One anonymous memslot of -s
 * bytes (MAP_NORESERVE, as every anonymous backing here) at the test gpa,
 * mapped with -m guest pages (2M by default), one vCPU that writes one page
 * every --stride bytes, then the VM torn down; the host checks each written
 * word.  Setup, touch and teardown are timed; peak RSS and the kernel's
 * vmalloc growth (KVM's per-memslot arrays) are reported.
 *
 *	bigvm [-s SIZE] [--stride SIZE] [-m 4K|2M]
 *
 * Prints one JSON object.
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "fid.h"
#include "memstress.h"
#include "parse.h"

/* A /proc/meminfo field in bytes, or 0. */
static uint64_t meminfo(const char *key)
{
	char line[256];
	uint64_t v = 0;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 10) * 1024;
	if (f)
		fclose(f);
	return v;
}

static uint64_t rss_now(void)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			v = strtoull(line + 6, NULL, 10) * 1024;
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "stride", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size = 64ULL << 30, stride = 64ULL << 20, map = SZ_2M, gpa, t0, t1, t2, t3;
	uint64_t vmalloc0, vmalloc1, rss_touched, touched;
	struct mem_region *slot;
	struct fid_pool pool;
	struct kvm_vcpu *vcpu;
	struct rusage ru;
	struct kvm_vm *vm;
	int opt;

	while ((opt = getopt_long(argc, argv, "s:m:", longopts, NULL)) != -1) {
		switch (opt) {
		case 's': size = parse_size_opt("-s", optarg); break;
		case 'S': stride = parse_size_opt("--stride", optarg); break;
		case 'm':
			map = parse_size_opt("-m", optarg);
			if (map != SZ_4K && map != SZ_2M)
				usage_error("-m '%s': 4K or 2M", optarg);
			break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
	size = ALIGN_UP(size, SZ_2M);
	if (stride < SZ_4K || stride % SZ_4K)
		usage_error("--stride: a multiple of 4K");

	vmalloc0 = meminfo("VmallocUsed");
	t0 = fid_now_ns();
	/* Slot 0 holds the page tables: sized for what -m needs, not for 4K pages. */
	vm = vm_create(1, map == SZ_4K ? size / SZ_4K : size / SZ_2M);
	gpa = arch_test_mem_gpa(vm);
	slot = vm_mem_add(vm, SRC_ANONYMOUS, gpa, MEMSTRESS_FIRST_SLOT, size, 0);
	virt_map(vm, gpa, gpa, size, map);
	vcpu = vm_vcpu_add(vm, 0, fid_stride_guest);
	vcpu_args_set(vcpu, 3, gpa, size, stride);
	fid_pool_start(&pool, vm, NULL, 0);
	t1 = fid_now_ns();
	vmalloc1 = meminfo("VmallocUsed");

	fid_pool_pass(&pool);
	t2 = fid_now_ns();
	touched = DIV_ROUND_UP(size, stride);
	for (uint64_t off = 0; off < size; off += stride)
		TEST_ASSERT(*(uint64_t *)((char *)slot->backing.hva + off) == gpa + off,
			    "gpa 0x%lx: the guest's write is not in host memory",
			    (unsigned long)(gpa + off));
	rss_touched = rss_now();
	fid_pool_stop(&pool);
	t3 = fid_now_ns();
	vm_free(vm);
	t3 = fid_now_ns() - t3;
	getrusage(RUSAGE_SELF, &ru);

	fid_json_begin("bigvm");
	fid_json_num("guest_bytes", size);
	fid_json_num("stride", stride);
	fid_json_num("map_size", map);
	fid_json_num("pages_touched", touched);
	fid_json_num("setup_time", (t1 - t0) / 1e9);
	fid_json_num("touch_time", (t2 - t1) / 1e9);
	fid_json_num("teardown_time", t3 / 1e9);
	fid_json_num("rss_after_touch", rss_touched);
	fid_json_num("peak_rss", ru.ru_maxrss * 1024.0);
	fid_json_num("kernel_vmalloc_growth", (double)vmalloc1 - (double)vmalloc0);
	fid_json_end();
	return 0;
}
