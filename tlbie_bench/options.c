// SPDX-License-Identifier: GPL-2.0
/* tlbie_bench options; every bad value is a one-line usage error before any guest. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench_main.h"
#include "memstress.h"
#include "parse.h"
#include "record.h"
#include "tb_bench.h"
#include "topology.h"
#include "watchdog.h"

static void __attribute__((noreturn)) help(const char *name)
{
	printf("usage: %s [-h] [-v vcpus] [-t seconds] [-c cpus] [--pages K]\n"
	       "       [--flush page|full|hv] [--shared] [--profile] [--alternate MODULE.PARAM]\n"
	       "       [--json file]\n\n", name);
	printf(" -v: vCPUs, each running fork-style cycles (default: 1)\n"
	       " -t: seconds to run (default: 5)\n"
	       " -c: pin vCPU i to the i-th CPU of the list, an extra last one the main thread\n"
	       " --pages: pages each fork maps, protects, copies and unmaps (default: 16)\n"
	       " --flush: %s\n"
	       "     hv: Hyper-V flush hypercalls, where the host offers\n"
	       "     KVM_CAP_HYPERV_TLBFLUSH (default: page)\n"
	       " --shared: all vCPUs in one address space, disjoint entries of shared tables\n"
	       " --profile: sample the host's kernel with perf during the run; print the top\n"
	       "     symbols\n"
	       " --alternate MODULE.PARAM: flip a boolean module parameter every second,\n"
	       "     in pairs of 0 and 1 (order alternating), and compare the throughput\n"
	       "     of the two settings within this run (-t even, from 4)\n"
	       " --json FILE: write the result record to FILE\n",
	       tb_arch.flush_help ?: "page: invalidate each page; full: one full invalidation per fork;");
	exit(0);
}

const char *tb_flush_name(enum tb_flush f)
{
	return f == FLUSH_PAGE ? "page" : f == FLUSH_FULL ? "full" : "hv";
}

enum { OPT_PAGES = 256, OPT_FLUSH, OPT_SHARED, OPT_PROFILE, OPT_ALTERNATE };

static const struct option long_opts[] = {
	{ "pages", required_argument, NULL, OPT_PAGES },
	{ "flush", required_argument, NULL, OPT_FLUSH },
	{ "shared", no_argument, NULL, OPT_SHARED },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "alternate", required_argument, NULL, OPT_ALTERNATE },
	BENCH_JSON_OPTION,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

void tb_parse_options(struct tb_opts *o, int argc, char **argv)
{
	const char *cpu_list = NULL;
	int opt;

	o->vcpus = 1;
	o->seconds = 5;
	o->pages = 16;
	while ((opt = getopt_long(argc, argv, ":c:ht:v:", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cpu_list = optarg;
			break;
		case 't':
			o->seconds = parse_u64_opt("-t", optarg, 1, 24 * 3600);
			break;
		case 'v':
			/* KVM's own limit, which needs /dev/kvm, after every other check. */
			o->vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS);
			break;
		case OPT_PAGES:
			o->pages = parse_u64_opt("--pages", optarg, 1, TB_PT_ENTRIES);
			break;
		case OPT_FLUSH:
			/* enum tb_flush's order */
			o->flush = parse_choice_opt("--flush", optarg,
						    (const char *const[]){ "page", "full", "hv", NULL });
			break;
		case OPT_SHARED:
			o->shared = true;
			break;
		case OPT_PROFILE:
			o->profile = true;
			break;
		case OPT_ALTERNATE:
			o->alternate = optarg;
			break;
		default:
			bench_common_opt(opt, argv, &o->json_path, help);
		}
	}
	usage_no_operands(argc, argv);
	/* --shared: every vCPU's entries in the same table. */
	if (o->shared && o->pages * o->vcpus > TB_PT_ENTRIES)
		usage_error("--pages '%u': with --shared, %u vCPUs x %u pages must fit the %d "
			    "entries of one table (at most %u pages)", o->pages, o->vcpus, o->pages,
			    TB_PT_ENTRIES, TB_PT_ENTRIES / o->vcpus);
	if (cpu_list)
		o->nr_cpus = topology_parse_vcpu_pins_opt(cpu_list, o->vcpus, o->cpus,
							  ARRAY_SIZE(o->cpus));
	watchdog_timeout_from_env(WATCHDOG_DEFAULT_SEC);	/* a bad KMP_WATCHDOG_SEC, now */
	if (o->vcpus > memstress_max_vcpus())
		usage_error("-v '%u': must be between 1 and %u (KVM_CAP_MAX_VCPUS)", o->vcpus,
			    memstress_max_vcpus());
	if (o->flush == FLUSH_HV) {
		if (!kvm_check_cap(KVM_CAP_HYPERV_TLBFLUSH))
			test_skip("--flush hv: this host does not offer KVM_CAP_HYPERV_TLBFLUSH");
		test_skip("--flush hv: the host offers KVM_CAP_HYPERV_TLBFLUSH, but kvm-mmu-perf's "
			  "guest has no Hyper-V side yet: it would need the Hyper-V CPUID leaves "
			  "(KVM_GET_SUPPORTED_HV_CPUID), the guest OS ID and hypercall-page MSRs, and "
			  "HvCallFlushVirtualAddressSpace/List");
	}
}
