// SPDX-License-Identifier: GPL-2.0
/*
 * fidelity_paging: demand_paging's kernel work (-u MISSING) with the barest
 * host loop.  The same VM (sized as memstress does, one anonymous memslot at
 * the test gpa, 4K guest mappings), one userfaultfd per vCPU region, -r
 * reader threads per uffd that poll, read a fault message and resolve it
 * with UFFDIO_COPY.  Every vCPU writes every page of its region once; the
 * time is from releasing the vCPUs to the last one done, as demand_paging's
 * "Total guest execution time".
 *
 *	fidelity_paging -v N -b SIZE [-r N] [-c LIST] [--pattern | --minimal-guest]
 *
 * The vCPUs run the suite's guest (memstress_guest_code checking each
 * page's content, as demand_paging does).  By default every fault copies
 * one page prefilled with the constant, as demand_paging's default source
 * (and upstream) does; --pattern fills each page with its gpa's pattern on
 * the fault path, as --source pattern does.  So only the host side
 * differs.  --minimal-guest runs a one-store-per-page guest instead.
 * Prints one JSON object.
 */
#include <fcntl.h>
#include <getopt.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fid.h"
#include "memstress.h"
#include "page_source.h"
#include "parse.h"

struct reader {
	int uffd, stop_fd;
	char *base;		/* registered range */
	uint64_t size;
	uint64_t faults;	/* atomic: readers share a uffd */
	pthread_t threads[256];
	int nr_threads;
	bool pattern;
	uint64_t gpa;		/* guest physical address of base */
};

static char page_buf[4096] __attribute__((aligned(4096)));

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = { { .fd = r->uffd, .events = POLLIN },
				 { .fd = r->stop_fd, .events = POLLIN } };
	/* One copy buffer per reader when the content depends on the page. */
	static __thread char buf[4096] __attribute__((aligned(4096)));

	for (;;) {
		struct uffd_msg msg;
		struct uffdio_copy copy;
		uint64_t page;

		TEST_ASSERT(poll(pfd, 2, -1) > 0 || errno == EINTR, "poll: %s", strerror(errno));
		if (pfd[1].revents)
			return NULL;
		if (read(r->uffd, &msg, sizeof(msg)) != sizeof(msg)) {
			TEST_ASSERT(errno == EAGAIN, "read(uffd): %s", strerror(errno));
			continue;
		}
		TEST_ASSERT(msg.event == UFFD_EVENT_PAGEFAULT, "uffd event 0x%x", msg.event);
		page = msg.arg.pagefault.address & ~4095ULL;
		copy = (struct uffdio_copy){ .dst = page, .src = (uint64_t)(uintptr_t)page_buf,
					     .len = 4096 };
		if (r->pattern) {
			uint64_t gpa = r->gpa + (page - (uint64_t)(uintptr_t)r->base);

			for (int i = 0; i < 512; i++)
				((uint64_t *)buf)[i] = page_pattern_word(gpa + i * 8);
			copy.src = (uint64_t)(uintptr_t)buf;
		}
		if (ioctl(r->uffd, UFFDIO_COPY, &copy)) {
			TEST_ASSERT(errno == EEXIST, "UFFDIO_COPY: %s", strerror(errno));
			struct uffdio_range range = { .start = page, .len = 4096 };

			ioctl(r->uffd, UFFDIO_WAKE, &range);
		}
		__atomic_add_fetch(&r->faults, 1, __ATOMIC_RELAXED);
	}
}

static void reader_start(struct reader *r, char *base, uint64_t size, uint64_t gpa, bool pattern,
			 int nr_threads)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uint64_t)(uintptr_t)base, .len = size },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	r->base = base;
	r->size = size;
	r->gpa = gpa;
	r->pattern = pattern;
	r->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (r->uffd < 0)
		test_skip("userfaultfd: %s", strerror(errno));
	TEST_ASSERT(!ioctl(r->uffd, UFFDIO_API, &api), "UFFDIO_API: %s", strerror(errno));
	TEST_ASSERT(!ioctl(r->uffd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER: %s",
		    strerror(errno));
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	TEST_ASSERT(r->stop_fd >= 0, "eventfd");
	r->nr_threads = nr_threads;
	for (int i = 0; i < nr_threads; i++)
		TEST_ASSERT(!pthread_create(&r->threads[i], NULL, reader_main, r),
			    "pthread_create");
}

static void reader_stop(struct reader *r)
{
	uint64_t one = 1;

	TEST_ASSERT(write(r->stop_fd, &one, sizeof(one)) == sizeof(one), "eventfd write");
	for (int i = 0; i < r->nr_threads; i++)
		pthread_join(r->threads[i], NULL);
	close(r->uffd);
	close(r->stop_fd);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minimal-guest", no_argument, NULL, 'M' },
		{ "pattern", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t vcpu_bytes = 64ULL << 20, total, pages, gpa, faults = 0, ns;
	int cpus[KMP_MAX_VCPUS], nr_cpus = 0, nr_readers = 1, opt;
	uint32_t nr_vcpus = 1;
	bool ms_guest = true, pattern = false;
	struct fid_pool pool;
	struct reader *readers;
	struct mem_region *slot;
	struct kvm_vm *vm;

	while ((opt = getopt_long(argc, argv, "v:b:c:r:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': nr_vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS); break;
		case 'b': vcpu_bytes = parse_size_opt("-b", optarg); break;
		case 'r': nr_readers = parse_u64_opt("-r", optarg, 1, 256); break;
		case 'P': pattern = true; break;
		case 'c': nr_cpus = fid_parse_cpus(optarg, cpus, KMP_MAX_VCPUS); break;
		case 'M': ms_guest = false; break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
	vcpu_bytes = ALIGN_UP(vcpu_bytes, SZ_4K);
	total = vcpu_bytes * nr_vcpus;
	pages = total / SZ_4K;

	vm = vm_create(nr_vcpus, pages);
	gpa = arch_test_mem_gpa(vm);
	slot = vm_mem_add(vm, SRC_ANONYMOUS, gpa, MEMSTRESS_FIRST_SLOT, total, 0);
	virt_map(vm, gpa, gpa, total, SZ_4K);
	fid_vcpus_add(vm, nr_vcpus, gpa, vcpu_bytes, ms_guest,
		      pattern ? MEMSTRESS_CHECK_PATTERN : MEMSTRESS_CHECK_CONSTANT);
	memset(page_buf, PAGE_CONSTANT_WORD & 0xff, sizeof(page_buf));
	readers = calloc(nr_vcpus, sizeof(*readers));
	TEST_ASSERT(readers, "out of memory");
	for (uint32_t i = 0; i < nr_vcpus; i++)
		reader_start(&readers[i], (char *)slot->backing.hva + i * vcpu_bytes, vcpu_bytes,
			     gpa + i * vcpu_bytes, ms_guest && pattern, nr_readers);

	fid_pool_start(&pool, vm, nr_cpus ? cpus : NULL, nr_cpus);
	ns = fid_pool_pass(&pool);
	fid_pool_stop(&pool);
	for (uint32_t i = 0; i < nr_vcpus; i++) {
		reader_stop(&readers[i]);
		faults += readers[i].faults;
	}
	TEST_ASSERT(faults == pages, "%lu faults for %lu pages", (unsigned long)faults,
		    (unsigned long)pages);

	fid_json_begin("fidelity_paging");
	fid_json_num("vcpus", nr_vcpus);
	fid_json_num("vcpu_bytes", vcpu_bytes);
	fid_json_num("memstress_guest", ms_guest);
	fid_json_num("pattern", ms_guest && pattern);
	fid_json_num("readers_per_uffd", nr_readers);
	fid_json_num("total_guest_execution_time", ns / 1e9);
	fid_json_num("overall_paging_rate", pages / (ns / 1e9));
	fid_json_num("faults", faults);
	fid_json_end();
	vm_free(vm);
	return 0;
}
