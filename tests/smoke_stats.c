// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats on a real VM: the MMU counters move when the guest touches new memory. */
#include "kselftest_harness.h"
#include "memstress.h"
#include "stats.h"

#define PAGES 2048

static const struct {
	const char *name;
	bool vcpu;
} mmu_stats[] = {
#ifdef __aarch64__
	/*
	 * arm64 KVM counts no MMU pages or faults: a stage-2 fault is an exit,
	 * one per 4K page, or per 2M block where the host backs it with a THP.
	 */
	{ "exits", true },
#define MMU_STAT_MIN (PAGES / 512)
#define VM_STAT "remote_tlb_flush"
#elif defined(__powerpc64__)
	/*
	 * Nor does powerpc's HV KVM (HPT guest): a guest access through an HPTE
	 * whose host page is not in yet is an exit, one per 4K HPTE; KVM calls
	 * its exit count sum_exits.
	 */
	{ "sum_exits", true },
#define MMU_STAT_MIN PAGES
#define VM_STAT "remote_tlb_flush"
#define EXITS_STAT "sum_exits"
#else
	{ "pages_4k", false }, { "mmu_pte_write", false }, { "pf_fixed", true },
	{ "pf_taken", true }, { "pf_emulate", true },
#define MMU_STAT_MIN PAGES
#define VM_STAT "pages_4k"
#endif
};

#ifndef EXITS_STAT
#define EXITS_STAT "exits"
#endif

TEST(stat_delta_after_guest_touches_memory)
{
	struct stats_snapshot vm_before, vm_after, vcpu_before, vcpu_after;
	struct kvm_stats vm_st, vcpu_st;
	struct memstress_params p;
	struct memstress *ms;
	const char *best_name = "none";
	int64_t best = 0;

	memstress_params_init(&p);
	p.vcpu_bytes = PAGES * 4096ULL;
	ms = memstress_create(&p);
	stats_open_vm(&vm_st, ms->vm);
	stats_open_vcpu(&vcpu_st, ms->vm->vcpus[0]);
	stats_snapshot(&vm_st, &vm_before);
	stats_snapshot(&vcpu_st, &vcpu_before);

	memstress_start(ms);
	memstress_wait_iteration(ms);	/* the populate pass writes every page once */
	memstress_stop(ms);

	stats_snapshot(&vm_st, &vm_after);
	stats_snapshot(&vcpu_st, &vcpu_after);
	stats_delta_print(&vm_st, &vm_before, &vm_after, "vm ");
	stats_delta_print(&vcpu_st, &vcpu_before, &vcpu_after, "vcpu ");

	/*
	 * Faulting in PAGES new pages is MMU work that some MMU counter must show
	 * at least once per page.  Which one depends on the host: pages_4k and
	 * pf_fixed under TDP and classic shadow paging; this machine's kvm_pvm
	 * emulates guest accesses and counts them in mmu_pte_write instead.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(mmu_stats); i++) {
		struct kvm_stats *st = mmu_stats[i].vcpu ? &vcpu_st : &vm_st;
		int64_t d = stats_delta(st, mmu_stats[i].vcpu ? &vcpu_before : &vm_before,
					mmu_stats[i].vcpu ? &vcpu_after : &vm_after, mmu_stats[i].name);

		if (d > best) {
			best = d;
			best_name = mmu_stats[i].name;
		}
	}
	TH_LOG("largest MMU stat delta: %s %+ld for %d pages", best_name, (long)best, PAGES);
	ASSERT_GE(best, MMU_STAT_MIN);
	/* Every SYNC is an exit: at least one for the populate pass. */
	ASSERT_GE(stats_delta(&vcpu_st, &vcpu_before, &vcpu_after, EXITS_STAT), 1);
	/* The snapshot and a direct read agree once nothing runs. */
	ASSERT_EQ(vm_after.values[stats_find(&vm_st, VM_STAT)->offset / 8],
		  stats_read(&vm_st, VM_STAT));

	stats_snapshot_free(&vm_before);
	stats_snapshot_free(&vm_after);
	stats_snapshot_free(&vcpu_before);
	stats_snapshot_free(&vcpu_after);
	stats_close(&vm_st);
	stats_close(&vcpu_st);
	memstress_destroy(ms);
}

TEST_HARNESS_MAIN
