// SPDX-License-Identifier: GPL-2.0
/*
 * dirty_log_perf options: upstream's letters and meanings, plus -k/-l/-j
 * from the clear-dirty-log series and our long options.  Every bad value is
 * a one-line usage error before any guest exists.
 */
#include <getopt.h>
#include <stdlib.h>

#include "bench_main.h"
#include "dirty_log.h"
#include "dlp.h"
#include "guest_modes.h"
#include "parse.h"
#include "record.h"
#include "report.h"
#include "topology.h"

#define DEFAULT_ITERATIONS 2

/* -k's granularity: KVM_CLEAR_DIRTY_LOG's 64-page words of dirty-log pages (256K with 4K pages). */
static uint64_t clear_chunk_align(void)
{
	return DIRTY_LOG_CLEAR_ALIGN_PAGES * dirty_log_page_size();
}

/* The chunk sizes as a phrase, e.g. "0, 4K, 2M or 1G", from the cap's bits. */
static const char *eager_split_sizes(uint64_t sizes, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "0");
	char size[32];

	for (int bit = 0; bit < 64 && n < len; bit++)
		if (sizes & (1ULL << bit))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      (sizes >> bit) > 1 ? ", " : " or ",
					      size_format(1ULL << bit, size, sizeof(size)));
	return buf;
}

static void __attribute__((noreturn)) help(const char *name)
{
	char align[32], split_sizes[160], sizes[128];
	uint64_t bits;

	size_format(clear_chunk_align(), align, sizeof(align));
	/* The sizes this host takes, where /dev/kvm opens (-h never needs it). */
	if (kvm_unavailable_reason()) {
		snprintf(split_sizes, sizeof(split_sizes), "this host's: unknown, no /dev/kvm");
	} else {
		bits = (uint32_t)kvm_check_cap(KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);
		snprintf(split_sizes, sizeof(split_sizes), "this host: %s",
			 bits ? eager_split_sizes(bits, sizes, sizeof(sizes)) :
				"none, no eager splitting");
	}
	printf("usage: %s [-h] [-a] [-i iterations] [-g] [-e] [-m mode] [-n]\n"
	       "       [-b vcpu bytes] [-v vcpus] [-o] [-r seed] [-s mem type] [-x memslots]\n"
	       "       [-w percentage] [-c cpus] [-k chunk] [-l ms] [-j]\n"
	       "       [--ring entries] [--eager-split size] [--verify] [--age] [--stats]\n"
	       "       [--json file]\n\n", name);
	printf(" -a: access memory randomly rather than in order\n"
	       " -i: iterations of dirty/get/clear, at least 2 (default: %d)\n"
	       " -g: do not enable KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2: KVM_GET_DIRTY_LOG\n"
	       "     clears the log, and pages are tracked from the moment logging is\n"
	       "     enabled (no KVM_DIRTY_LOG_INITIALLY_SET)\n"
	       " -e: keep vCPUs running while dirty logging is disabled\n"
	       " -m: guest mode ID (kernel selftests' numbering); see below\n"
	       " -n: run vCPUs nested (L2): not supported, skips with the reason\n"
	       " -b: memory each vCPU dirties, e.g. 10M or 3G (default: 1G)\n"
	       " -v: number of vCPUs (default: 1)\n"
	       " -o: overlap: all vCPUs share all -v x -b bytes instead of -b each\n"
	       " -p: guest physical address of the test memory, as upstream's offset\n"
	       "     (default: the arch's, 4G), a multiple of the backing's page size\n"
	       " -r: random seed (default: 1)\n"
	       " -s: backing source: %s (default: anonymous)\n"
	       " -x: split guest memory across this many memslots (default: 1)\n"
	       " -w: percentage of page accesses that are writes, 0-100 (default: 100)\n"
	       " -c: pin vCPU i to the i-th CPU of the list, and the main thread to an\n"
	       "     extra last one, e.g. 0,1,2 or 0-3\n"
	       " -k: clear the dirty log in chunks of this size (a multiple of %s,\n"
	       "     KVM's 64-page clear granularity); larger than a memslot clears the\n"
	       "     whole slot in one call (default: the whole slot)\n"
	       " -l: milliseconds to wait between clear chunks, standing in for sending\n"
	       "     pages; not part of the clear time (default: 0)\n"
	       " -j: nonstop: vCPUs keep dirtying memory while the log is fetched and cleared\n"
	       " --ring N: collect dirty pages through a per-vCPU dirty ring of N entries\n"
	       "     (KVM_CAP_DIRTY_LOG_RING[_ACQ_REL]) instead of the bitmap\n"
	       " --eager-split SIZE: arm64: split huge pages eagerly, SIZE bytes per\n"
	       "     chunk, when logging is enabled and cleared\n"
	       "     (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE; 0: off; default: the kernel's, off;\n"
	       "     %s)\n"
	       " --verify: check every page the guest wrote is in that iteration's log\n"
	       " --age: with -j, mark the guest memory idle (page_idle) over and over while\n"
	       "     the vCPUs run, so that their accesses set the accessed bits again\n"
	       "     during the clears (root, CONFIG_IDLE_PAGE_TRACKING; not hugetlb)\n"
	       " --stats: print the KVM stat deltas of each phase\n"
	       " --json FILE: write the result record to FILE\n",
	       DEFAULT_ITERATIONS, backing_src_names(), align, split_sizes);
	guest_modes_print_help();
	exit(0);
}

enum { OPT_RING = 256, OPT_VERIFY, OPT_STATS, OPT_EAGER_SPLIT, OPT_AGE };

static const struct option long_opts[] = {
	{ "ring", required_argument, NULL, OPT_RING },
	{ "eager-split", required_argument, NULL, OPT_EAGER_SPLIT },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "age", no_argument, NULL, OPT_AGE },
	{ "stats", no_argument, NULL, OPT_STATS },
	BENCH_JSON_OPTION,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/*
 * The chunk size must be 0 or a block size of the host's stage 2; the cap
 * that lists those (KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES) came with eager
 * splitting, so it also says whether there is eager splitting at all.
 */
static void eager_split_check(const struct dlp_opts *o, const char *text)
{
	uint64_t sizes = (uint32_t)kvm_check_cap(KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);
	char allowed[128];

	if (!sizes)
		test_skip("--eager-split: this host does not offer KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE "
			  "(arm64, Linux 6.5 and later)");
	if (!o->eager_split_chunk ||
	    (!(o->eager_split_chunk & (o->eager_split_chunk - 1)) && (sizes & o->eager_split_chunk)))
		return;
	eager_split_sizes(sizes, allowed, sizeof(allowed));
	usage_error("--eager-split '%s': must be %s (this host's stage-2 block sizes)", text,
		    allowed);
}

/* The options' values as typed: the checks after parsing need them, and name them. */
struct dlp_typed {
	const char *cpu_list;	/* -c */
	const char *chunk;	/* -k */
	const char *split;	/* --eager-split */
	const char *gpa;	/* -p */
};

/* The letters memstress_parse_opt() does not take (upstream's, -k -l -j); false for others. */
static bool parse_letter(struct dlp_opts *o, struct dlp_typed *t, int opt)
{
	switch (opt) {
	case 'a':
		o->ms.random_access = true;
		break;
	case 'c':
		t->cpu_list = optarg;
		break;
	case 'e':
		o->run_while_disabling = true;
		break;
	case 'g':
		o->manual_protect = false;
		break;
	case 'i':
		o->iterations = parse_u64_opt("-i", optarg, 2, 1000000);
		break;
	case 'j':
		o->ms.nonstop = true;
		break;
	case 'k':
		o->clear_chunk = parse_size_opt("-k", optarg);
		t->chunk = optarg;
		break;
	case 'l':
		o->clear_delay_ms = parse_u64_opt("-l", optarg, 0, 3600 * 1000);
		break;
	case 'n':
		test_skip("-n: nested (L2) vCPUs are not supported by kvm-mmu-perf's guest "
			  "library");
	case 'p':
		/* Upstream's guest test memory offset (gpa), a number in any base. */
		o->ms.test_gpa = parse_u64_opt("-p", optarg, 1, (1ULL << 52) - 1);
		t->gpa = optarg;
		break;
	case 'r':
		o->ms.random_seed = parse_u64_opt("-r", optarg, 0, UINT32_MAX);
		break;
	case 'w':
		o->ms.write_percent = parse_u64_opt("-w", optarg, 0, 100);
		break;
	case 'x':
		/* KVM's own limit, which needs /dev/kvm, in memstress_params_check(). */
		o->ms.slots = parse_u64_opt("-x", optarg, 1, UINT16_MAX);
		break;
	default:
		return false;
	}
	return true;
}

/* --ring N: a power of two, from the least ring KVM takes to this host's largest. */
static void ring_check(const struct dlp_opts *o)
{
	uint32_t min = dirty_ring_min_entries(), max;

	if (o->ring_entries & (o->ring_entries - 1) || o->ring_entries < min)
		usage_error("--ring '%u': must be a power of two of at least %u entries",
			    o->ring_entries, min);
	/* The cap's value is the largest ring in bytes; KVM wants powers of two. */
	max = (kvm_check_cap(KVM_CAP_DIRTY_LOG_RING_ACQ_REL) ?:
	       kvm_check_cap(KVM_CAP_DIRTY_LOG_RING)) / sizeof(struct kvm_dirty_gfn);
	if (!max)
		test_skip("--ring: this host offers no dirty ring (KVM_CAP_DIRTY_LOG_RING)");
	if (o->ring_entries > max)
		usage_error("--ring '%u': must be a power of two between %u and %u entries",
			    o->ring_entries, min, max);
}

/* The checks that wait until every option is known. */
static void check_options(struct dlp_opts *o, const struct dlp_typed *t)
{
	/* Upstream aligns -p down to the backing's page; here a misaligned one is an error. */
	if (t->gpa && o->ms.test_gpa % backing_src_page_size(o->ms.src))
		usage_error("-p '%s': must be a multiple of the %s backing's %lu-byte pages", t->gpa,
			    backing_src_name(o->ms.src),
			    (unsigned long)backing_src_page_size(o->ms.src));

	if (t->chunk && (o->clear_chunk == 0 || o->clear_chunk % clear_chunk_align())) {
		char align[32], unit[32];

		/* The dirty log's pages are the host's: 4K here gives 256K. */
		size_format(clear_chunk_align(), align, sizeof(align));
		usage_error("-k '%s': must be a non-zero multiple of %s (64 %spages: "
			    "KVM_CLEAR_DIRTY_LOG clears whole 64-page words)", t->chunk, align,
			    dlp_log_page_unit(unit, sizeof(unit)));
	}
	if (o->ring_entries)
		ring_check(o);
	if (t->split)
		eager_split_check(o, t->split);
	if (o->ring_entries && (t->chunk || o->clear_delay_ms))
		usage_error("-k/-l: chunked clearing applies to the bitmap log, not --ring");
	if (o->ring_entries && !o->manual_protect)
		usage_error("-g: the dirty ring has no manual-protect mode; drop -g with --ring");
	age_check(o);
	if (t->cpu_list)
		memstress_pin_opt(&o->ms, t->cpu_list, o->cpus, ARRAY_SIZE(o->cpus));
	memstress_params_check(&o->ms);
}

void dlp_parse_options(struct dlp_opts *o, int argc, char **argv)
{
	struct dlp_typed t = { 0 };
	int opt;

	memstress_params_init(&o->ms);
	o->iterations = DEFAULT_ITERATIONS;
	o->manual_protect = true;

	while ((opt = getopt_long(argc, argv, ":ab:c:eghi:jk:l:m:nop:r:s:v:w:x:", long_opts,
				  NULL)) != -1) {
		if (memstress_parse_opt(&o->ms, opt, optarg) || parse_letter(o, &t, opt))
			continue;
		switch (opt) {
		case OPT_RING:
			o->ring_entries = parse_u64_opt("--ring", optarg, 1, 1U << 30);
			break;
		case OPT_EAGER_SPLIT:
			o->eager_split = true;
			o->eager_split_chunk = parse_size_opt("--eager-split", optarg);
			t.split = optarg;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_AGE:
			o->age = true;
			break;
		case OPT_STATS:
			o->print_stats = true;
			break;
		default:
			bench_common_opt(opt, argv, &o->json_path, help);
		}
	}
	usage_no_operands(argc, argv);
	check_options(o, &t);
}
