// SPDX-License-Identifier: GPL-2.0
/*
 * demand_paging options: upstream's letters and meanings (-u -a -d -r -b -s
 * -v -c -o -m), -w from the memory-fault-exit series, and our long
 * options.  Every bad value is a one-line usage error before any guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_main.h"
#include "dp.h"
#include "guest_modes.h"
#include "parse.h"
#include "record.h"
#include "report.h"
#include "topology.h"

static void __attribute__((noreturn)) help(const char *name)
{
	printf("usage: %s [-h] [-m mode] [-u MISSING|MINOR] [-a] [-d usec] [-r readers]\n"
	       "       [-b vcpu bytes] [-s mem type] [-v vcpus] [-c cpus] [-o] [-w]\n"
	       "       [--source constant|zero|pattern|file:PATH] [--sweep-vcpus LIST] [--repeat N]\n"
	       "       [--json file]\n\n", name);
	printf(" -u: demand paging through userfaultfd: MISSING (UFFDIO_COPY) or MINOR\n"
	       "     (UFFDIO_CONTINUE; needs a shared source: shmem or shared_hugetlb)\n"
	       "     (default: no userfaultfd, plain first-touch faults)\n"
	       " -a: one userfaultfd for all guest memory, instead of one per vCPU\n"
	       " -d: microseconds each fault handler waits before resolving (default: 0)\n"
	       " -r: reader threads per userfaultfd, 1-256, or vcpus: as many as the run's\n"
	       "     vCPUs (with --sweep-vcpus, each count's) (default: 1)\n"
	       " -b: memory each vCPU touches, e.g. 64M (default: 1G)\n"
	       " -s: backing source: %s (default: anonymous)\n"
	       " -v: number of vCPUs (default: 1)\n"
	       " -c: pin vCPU i to the i-th CPU of the list, an extra last one the main thread\n"
	       " -o: all vCPUs share all -v x -b bytes instead of -b each\n"
	       " -m: guest mode ID (kernel selftests' numbering); see below\n"
	       " -w: memory-fault exits: vCPU threads resolve their own faults from\n"
	       "     KVM_EXIT_MEMORY_FAULT, where the kernel offers such exits\n"
	       " --source: page contents for -u MISSING: constant (default: one prefilled\n"
	       "     page copied into every fault, as upstream), zero, pattern (a\n"
	       "     per-page content the guest checks), or file:PATH, an image read with\n"
	       "     libaio (make one with --write-image)\n"
	       " --write-image PATH: write a pattern image for these options and exit\n"
	       " --sweep-vcpus LIST: run each vCPU count (e.g. 1,2,4,8) with and without -w\n"
	       "     and print the rate table\n"
	       " --repeat N: runs averaged per sweep cell (default: 1)\n"
	       " --json FILE: write the result record to FILE\n", backing_src_names());
	guest_modes_print_help();
	exit(0);
}

enum { OPT_SOURCE = 256, OPT_SWEEP, OPT_REPEAT, OPT_WRITE_IMAGE };

static const struct option long_opts[] = {
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "sweep-vcpus", required_argument, NULL, OPT_SWEEP },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	BENCH_JSON_OPTION,
	{ "write-image", required_argument, NULL, OPT_WRITE_IMAGE },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* The sweep against KVM's vCPU limit, once all that /dev/kvm is not needed for was checked. */
static void sweep_check_kvm(const struct dp_opts *o, const char *s)
{
	uint32_t max = memstress_max_vcpus();

	for (int i = 0; i < o->nr_sweep; i++)
		if (o->sweep[i] > max)
			usage_error("--sweep-vcpus '%s': %u vCPUs; each count must be between 1 "
				    "and %u (KVM_CAP_MAX_VCPUS)", s, o->sweep[i], max);
}

static void parse_sweep(struct dp_opts *o, const char *s)
{
	int list[DP_MAX_SWEEP];
	char err[128];
	int n = parse_cpu_list(s, list, DP_MAX_SWEEP, err, sizeof(err));
	uint32_t max = KMP_MAX_VCPUS;	/* KVM's own limit: in sweep_check_kvm() */

	/* Same grammar as a CPU list: "1,2,4,8" or "1-4". */
	if (n <= 0)
		usage_error("--sweep-vcpus '%s': %s (use e.g. 1,2,4,8)", s, n ? err : "empty");
	for (int i = 0; i < n; i++) {
		if (list[i] < 1 || (uint32_t)list[i] > max)
			usage_error("--sweep-vcpus '%s': %d vCPUs; each count must be between 1 "
				    "and %u", s, list[i], max);
		o->sweep[i] = list[i];
	}
	o->nr_sweep = n;
}

/* The whole test memory is one range of the source, from its first gpa (-o too). */
static uint64_t test_bytes(const struct dp_opts *o, uint32_t vcpus)
{
	uint64_t bytes = ALIGN_UP(o->ms.vcpu_bytes, SZ_4K);

	return ALIGN_UP(bytes * vcpus, backing_src_page_size(o->ms.src));
}

/* -u and the letters that apply only with it (-a -d -r -w); false for any other option. */
static bool parse_uffd_opt(struct dp_opts *o, int opt)
{
	switch (opt) {
	case 'a':
		o->one_uffd = true;
		break;
	case 'd':
		o->delay_us = parse_u64_opt("-d", optarg, 0, 10 * 1000 * 1000);
		break;
	case 'r':
		if (!strcmp(optarg, "vcpus"))
			o->readers = 0;
		else if (optarg[0] < '0' || optarg[0] > '9')
			usage_error("-r '%s': must be an integer between 1 and 256, or vcpus",
				    optarg);
		else
			o->readers = parse_u64_opt("-r", optarg, 1, 256);
		break;
	case 'u':
		o->mode = uffd_mode_parse_opt("-u", optarg);
		break;
	case 'w':
		o->mem_fault_exits = true;
		break;
	default:
		return false;
	}
	return true;
}

/* The checks that wait until every option is known, short of the source and /dev/kvm. */
static void check_options(struct dp_opts *o, const char *cpu_list)
{
	if (o->mode == UFFD_MODE_MINOR && !backing_src_is_shared(o->ms.src))
		usage_error("-u MINOR: needs a shared backing source (-s shmem or shared_hugetlb), "
			    "not '%s'", backing_src_name(o->ms.src));
	if (o->mode == UFFD_MODE_NONE && o->source_set)
		usage_error("--source applies to userfaultfd paging: add -u MISSING or -u MINOR");
	/* Upstream ignores these without -u: so does a pasted command line here, with a note. */
	if (o->mode == UFFD_MODE_NONE && (o->one_uffd || o->delay_us || o->readers != 1)) {
		o->ignored_uffd_opts = true;
		o->one_uffd = false;
		o->delay_us = 0;
		o->readers = 1;
	}
	if (o->mem_fault_exits && o->mode == UFFD_MODE_NONE)
		usage_error("-w: memory-fault exits resolve userfaultfd faults: add -u MISSING or "
			    "-u MINOR");
	if (o->repeat > 1 && !o->nr_sweep)
		usage_error("--repeat %u: repeats each cell of a --sweep-vcpus table; a single run "
			    "has none (use run.sh --repeat)", o->repeat);
	if (cpu_list) {
		if (o->nr_sweep)
			usage_error("-c: pinning is per vCPU count; not with --sweep-vcpus");
		memstress_pin_opt(&o->ms, cpu_list, o->cpus, ARRAY_SIZE(o->cpus));
	}
	memstress_params_check_host(&o->ms);
	/* One uffd per vCPU region: each region whole pages of the source. */
	if (o->mode != UFFD_MODE_NONE && !o->one_uffd && !o->ms.shared &&
	    o->ms.vcpu_bytes % backing_src_page_size(o->ms.src)) {
		char typed[32];

		usage_error("-b '%s': with a userfaultfd per vCPU, each vCPU's memory must be whole "
			    "%lu-byte %s pages (or -a: one userfaultfd for all of it)",
			    o->ms.vcpu_bytes_text ?:
			    size_format(o->ms.vcpu_bytes, typed, sizeof(typed)),
			    (unsigned long)backing_src_page_size(o->ms.src), backing_src_name(o->ms.src));
	}
}

/* --write-image: the pattern for max_vcpus' memory, written instead of a run. */
static void __attribute__((noreturn)) write_image(const struct dp_opts *o, const char *image,
						   uint32_t max_vcpus)
{
	int fd = *image ? open(image, O_WRONLY | O_CREAT, 0644) : -1;

	if (fd < 0)
		usage_error("--write-image '%s': %s", image, *image ? strerror(errno) :
			    "needs a file name");
	close(fd);
	page_source_write_image(image, arch_test_mem_gpa(NULL), test_bytes(o, max_vcpus));
	printf("wrote %s: %lu bytes of pattern for guest memory at 0x%lx\n", image,
	       (unsigned long)test_bytes(o, max_vcpus),
	       (unsigned long)arch_test_mem_gpa(NULL));
	exit(0);
}

void dp_parse_options(struct dp_opts *o, int argc, char **argv)
{
	const char *sweep_text = NULL;
	const char *cpu_list = NULL, *image = NULL;
	uint32_t max_vcpus;
	int opt;

	memstress_params_init(&o->ms);
	o->readers = 1;
	o->repeat = 1;
	o->src.kind = PAGE_SRC_CONSTANT;	/* upstream's: one prefilled page for every fault */
	o->src.fd = -1;

	while ((opt = getopt_long(argc, argv, ":ab:c:d:hm:or:s:u:v:w", long_opts, NULL)) != -1) {
		if (memstress_parse_opt(&o->ms, opt, optarg) || parse_uffd_opt(o, opt))
			continue;
		switch (opt) {
		case 'c':
			cpu_list = optarg;
			break;
		case OPT_SOURCE:
			page_source_parse_opt(&o->src, "--source", optarg);
			o->source_set = true;
			break;
		case OPT_SWEEP:
			parse_sweep(o, optarg);
			sweep_text = optarg;
			break;
		case OPT_REPEAT:
			o->repeat = parse_u64_opt("--repeat", optarg, 1, 1000);
			break;
		case OPT_WRITE_IMAGE:
			image = optarg;
			break;
		default:
			bench_common_opt(opt, argv, &o->json_path, help);
		}
	}
	usage_no_operands(argc, argv);
	check_options(o, cpu_list);

	/* The source must cover the largest run (checked now: no guest yet). */
	max_vcpus = o->ms.nr_vcpus;
	for (int i = 0; i < o->nr_sweep; i++)
		if (o->sweep[i] > max_vcpus)
			max_vcpus = o->sweep[i];
	if (image)
		write_image(o, image, max_vcpus);
	page_source_open(&o->src, arch_test_mem_gpa(NULL), test_bytes(o, max_vcpus));
	/* Last, the limits only /dev/kvm knows. */
	memstress_params_check(&o->ms);
	if (sweep_text)
		sweep_check_kvm(o, sweep_text);
}
