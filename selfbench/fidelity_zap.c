// SPDX-License-Identifier: GPL-2.0
/*
 * fidelity_zap: zap_latency's kernel work with the barest host loop.  The
 * same VM (memstress_create with zap_latency's parameters: -b per vCPU,
 * random nonstop writes, progress stamps every 4 pages, a 2M extra memslot
 * above the test memory), the vCPUs running the same guest code, populated
 * in order and then touching memory at random; every `--settle` ms the
 * extra memslot is deleted, timed around the raw ioctl() alone, and added
 * back.
 *
 *	fidelity_zap -v N -b PER_VCPU -i N [-c LIST] [--settle MS]
 *
 * Prints one JSON object (ioctl_latency: ns per zap).
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fid.h"
#include "memstress.h"
#include "parse.h"

#define STAMP_EVERY_PAGES 4
#define STAMP_RING (1ULL << 16)
#define EXTRA_SLOT_BYTES SZ_2M

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "settle", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t zaps = 5, settle_ms = 350, extra_gpa;
	int cpus[KMP_MAX_VCPUS], nr_cpus = 0, opt;
	struct kvm_userspace_memory_region kr, del;
	struct memstress_params p;
	struct fid_pool pool;
	struct memstress *ms;
	uint32_t extra_slot;
	double *lat;

	memstress_params_init(&p);
	p.nr_vcpus = 4;
	p.vcpu_bytes = 256ULL << 20;	/* zap_latency's default */
	while ((opt = getopt_long(argc, argv, "v:b:i:c:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': p.nr_vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS); break;
		case 'b': p.vcpu_bytes = parse_size_opt("-b", optarg); break;
		case 'i': zaps = parse_u64_opt("-i", optarg, 1, 1000); break;
		case 'c': nr_cpus = fid_parse_cpus(optarg, cpus, KMP_MAX_VCPUS); break;
		case 'S': settle_ms = parse_u64_opt("--settle", optarg, 0, 60000); break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
	p.nonstop = true;
	p.random_access = false;	/* populate in order first, as zap_latency */
	ms = memstress_create(&p);
	extra_slot = memstress_slot(ms, p.slots);
	extra_gpa = ALIGN_UP(ms->gpa + ms->size, SZ_1G);
	vm_mem_add(ms->vm, SRC_ANONYMOUS, extra_gpa, extra_slot, EXTRA_SLOT_BYTES, 0);
	kr = vm_mem_region(ms->vm, extra_slot)->kr;
	del = kr;
	del.memory_size = 0;
	memstress_enable_stamps(ms, STAMP_EVERY_PAGES, STAMP_RING);
	lat = calloc(zaps, sizeof(double));
	TEST_ASSERT(lat, "out of memory");

	fid_pool_start(&pool, ms->vm, nr_cpus ? cpus : NULL, nr_cpus);
	fid_pool_pass(&pool);			/* populate */
	ms->gargs->random_access = 1;
	ms->gargs->iteration = 1;
	fid_pool_go_free(&pool);
	for (uint64_t i = 0; i < zaps; i++) {
		uint64_t t0;
		int ret;

		usleep(settle_ms * 1000);
		t0 = fid_now_ns();
		ret = ioctl(ms->vm->fd, KVM_SET_USER_MEMORY_REGION, &del);
		lat[i] = fid_now_ns() - t0;
		TEST_ASSERT(!ret, "deleting memslot %u: %s", extra_slot, strerror(errno));
		TEST_ASSERT(!ioctl(ms->vm->fd, KVM_SET_USER_MEMORY_REGION, &kr),
			    "re-adding memslot %u: %s", extra_slot, strerror(errno));
	}
	fid_pool_end_free(&pool);
	ms->gargs->stop = 1;
	fid_pool_wait(&pool);
	fid_pool_stop(&pool);

	fid_json_begin("fidelity_zap");
	fid_json_num("vcpus", p.nr_vcpus);
	fid_json_num("bytes", (double)p.vcpu_bytes * p.nr_vcpus);
	fid_json_num("settle_ms", settle_ms);
	fid_json_array("ioctl_latency", lat, zaps);
	fid_json_end();
	memstress_destroy(ms);
	return 0;
}
