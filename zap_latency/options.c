// SPDX-License-Identifier: GPL-2.0
/* zap_latency options; every bad value is a one-line usage error before any guest. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench_main.h"
#include "parse.h"
#include "record.h"
#include "zl.h"

#define MIN_BYTES_PER_VCPU (1ULL << 20)

static void __attribute__((noreturn)) help(const char *name)
{
	printf("usage: %s [-h] [-v vcpus] [-b bytes] [-i zaps] [-s mem type] [-c cpus]\n"
	       "       [--trigger delete|move] [--zap-all on|off] [--traced zaps] [--json file]\n\n",
	       name);
	printf(" -v: vCPUs that keep touching memory, at random, while KVM zaps (default: 4)\n"
	       " -b: guest memory per vCPU, as upstream's -b, e.g. 256M (default: 256M;\n"
	       "     at least 1M)\n"
	       " -i: untraced zaps to measure: the ioctl latency, pages zapped and guest\n"
	       "     stall (default: 5)\n"
	       " -s: backing source: %s (default: anonymous)\n"
	       " -c: pin vCPU i to the i-th CPU of the list, an extra last one the main thread\n"
	       " --trigger: how the zap is triggered: delete (delete a small memslot, then\n"
	       "     add it back) or move (move it, then back) (default: delete)\n"
	       " --zap-all: x86 only: on or off sets KVM_X86_QUIRK_SLOT_ZAP_ALL (memslot\n"
	       "     changes zap all MMU pages, or only the slot's) through\n"
	       "     KVM_CAP_DISABLE_QUIRKS2 (default: the kernel's default)\n"
	       " --traced N: traced zaps after the untraced ones, 0 to 1000 (default: 2):\n"
	       "     the kernel's zap span and its lock breaks, the post's two lines\n"
	       " --json FILE: write the result record to FILE\n\n"
	       "Traced zaps use a private tracefs instance.  Where the kernel takes kprobes,\n"
	       "the span is the zap function's entry to return, and a lock break is a\n"
	       "return of __cond_resched_rwlock_write/_read that says it dropped mmu_lock,\n"
	       "in the zapping task (or the kworker zapping roots for it) inside the span.\n"
	       "Without kprobes the span runs from the kvm_mmu_zap_all_fast tracepoint to\n"
	       "the last page zap, and lock breaks are not observable.  Timestamps are the\n"
	       "trace clock's ns (mono), read from the raw buffers.\n", backing_src_names());
	exit(0);
}

enum { OPT_TRIGGER = 256, OPT_ZAP_ALL, OPT_TRACED };

static const struct option long_opts[] = {
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "zap-all", required_argument, NULL, OPT_ZAP_ALL },
	{ "traced", required_argument, NULL, OPT_TRACED },
	BENCH_JSON_OPTION,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

void zl_parse_options(struct zl_opts *o, int argc, char **argv)
{
	const char *cpu_list = NULL;
	int opt;

	memstress_params_init(&o->ms);
	o->ms.nr_vcpus = 4;
	o->ms.vcpu_bytes = 256ULL << 20;	/* 1G with the default 4 vCPUs: the guest of Xiao Guangrong's "KVM: MMU: zap pages in batch" (2013) */
	o->zaps = 5;
	o->traced_zaps = 2;

	while ((opt = getopt_long(argc, argv, ":b:c:hi:s:v:", long_opts, NULL)) != -1) {
		if (memstress_parse_opt(&o->ms, opt, optarg))
			continue;
		switch (opt) {
		case 'c':
			cpu_list = optarg;
			break;
		case 'i':
			o->zaps = parse_u64_opt("-i", optarg, 1, 100000);
			break;
		case OPT_TRIGGER:
			/* enum zl_trigger's order */
			o->trigger = parse_choice_opt("--trigger", optarg,
						      (const char *const[]){ "delete", "move", NULL });
			break;
		case OPT_ZAP_ALL:
			o->zap_all = parse_choice_opt("--zap-all", optarg,
						      (const char *const[]){ "on", "off", NULL }) ?
				     ZAP_ALL_OFF : ZAP_ALL_ON;
			break;
		case OPT_TRACED:
			o->traced_zaps = parse_u64_opt("--traced", optarg, 0, 1000);
			break;
		default:
			bench_common_opt(opt, argv, &o->json_path, help);
		}
	}
	usage_no_operands(argc, argv);
	if (o->ms.vcpu_bytes < MIN_BYTES_PER_VCPU)
		usage_error("-b '%s': must be at least 1M per vCPU, to keep MMU pages live",
			    o->ms.vcpu_bytes_text);
	o->total_bytes = o->ms.vcpu_bytes * o->ms.nr_vcpus;
	o->ms.nonstop = true;
	o->ms.random_access = true;
	if (cpu_list)
		memstress_pin_opt(&o->ms, cpu_list, o->cpus, ARRAY_SIZE(o->cpus));
	memstress_params_check(&o->ms);
	/* The quirk is x86's: elsewhere a memslot change only ever unmaps that slot. */
	if (o->zap_all != ZAP_ALL_DEFAULT && !kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2))
		test_skip("--zap-all: the slot zap-all quirk is x86's; this host's KVM has no "
			  "KVM_CAP_DISABLE_QUIRKS2 (memslot changes unmap only the slot itself)");
	/* /dev/kvm answers for the VMs it creates: check before any guest exists. */
	if (o->zap_all == ZAP_ALL_OFF &&
	    !(kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2) & KVM_X86_QUIRK_SLOT_ZAP_ALL))
		usage_error("--zap-all off: this kernel cannot disable KVM_X86_QUIRK_SLOT_ZAP_ALL "
			    "(KVM_CAP_DISABLE_QUIRKS2 offers mask 0x%x; the quirk came in Linux 6.11)",
			    kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2));
}

/* Quirks are on until disabled: only "off" needs an ioctl (checked in parsing). */
void zl_apply_zap_all(struct zl *z)
{
	if (z->o.zap_all == ZAP_ALL_OFF)
		vm_enable_cap(z->ms->vm, KVM_CAP_DISABLE_QUIRKS2, KVM_X86_QUIRK_SLOT_ZAP_ALL);
}
