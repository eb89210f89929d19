// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats on a real VM: the MMU counters move when the guest touches new memory. */
#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "memstress.h"
#include "stats.h"
#include "require.h"

#define PAGES 2048

/* An MMU counter to compare: a VM stat, or a vCPU stat (vcpu). */
struct mmu_stat {
	const char *name;
	bool vcpu;
};

/*
 * This arch's expectations (tests/<arch>/smoke_stats.inc): mmu_stats[],
 * the MMU counters printed and compared; VM_STAT and EXITS_STAT, a VM stat
 * and the vCPU's exit count; check_mmu_work(), what faulting in PAGES new
 * pages must show (best: the largest delta among mmu_stats[]); and tests
 * of its own.
 */
#include "smoke_stats.inc"

TEST(stat_delta_after_guest_touches_memory)
{
	struct stats_snapshot vm_before, vm_after, vcpu_before, vcpu_after;
	struct kvm_stats vm_st, vcpu_st;
	struct memstress_params p;
	struct memstress *ms;
	const char *best_name = "none";
	uint64_t snap_value;
	int64_t best = 0;

	REQUIRE_KVM();

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
	check_mmu_work(_metadata, ms->vm, &vm_st, &vm_before, &vm_after, best);
	/* Every SYNC is an exit: at least one for the populate pass. */
	ASSERT_GE(stats_delta(&vcpu_st, &vcpu_before, &vcpu_after, EXITS_STAT), 1);
	/* The snapshot and a direct read agree once nothing runs. */
	ASSERT_TRUE(stats_snapshot_value(&vm_st, &vm_after, VM_STAT, &snap_value));
	ASSERT_EQ(snap_value, stats_read(&vm_st, VM_STAT));

	stats_snapshot_free(&vm_before);
	stats_snapshot_free(&vm_after);
	stats_snapshot_free(&vcpu_before);
	stats_snapshot_free(&vcpu_after);
	stats_close(&vm_st);
	stats_close(&vcpu_st);
	memstress_destroy(ms);
}

TEST_HARNESS_MAIN
