// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats on a real VM: the MMU counters move when the guest touches new memory. */
#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "memstress.h"
#include "stats.h"
#include "require.h"

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
	/* x86: the checks below are per MMU; these are printed and compared. */
	{ "pages_4k", false }, { "mmu_pte_write", false }, { "pf_fixed", true },
	{ "pf_taken", true }, { "pf_emulate", true },
#define MMU_STAT_MIN PAGES
#define VM_STAT "pages_4k"
#define X86_MMU_STATS 1
#endif
};

#ifndef EXITS_STAT
#define EXITS_STAT "exits"
#endif

#ifdef X86_MMU_STATS
/* Leaf mappings per size (pages_4k/2m/1g) and their sum in 4K pages. */
struct mappings {
	int64_t n4k, n2m, n1g;
};

static struct mappings mappings_delta(const struct kvm_stats *st, const struct stats_snapshot *a,
				      const struct stats_snapshot *b)
{
	return (struct mappings){ stats_delta(st, a, b, "pages_4k"), stats_delta(st, a, b, "pages_2m"),
				  stats_delta(st, a, b, "pages_1g") };
}

static struct mappings mappings_now(const struct kvm_stats *st)
{
	return (struct mappings){ stats_read(st, "pages_4k"), stats_read(st, "pages_2m"),
				  stats_read(st, "pages_1g") };
}

static int64_t mappings_4k(struct mappings m)
{
	return m.n4k + 512 * m.n2m + 512 * 512 * m.n1g;
}

/* Every page of every memslot, in 4K pages: no MMU maps more than that. */
static int64_t vm_pages_4k(struct kvm_vm *vm)
{
	int64_t n = 0;

	for (int i = 0; i < KMP_MAX_REGIONS; i++)
		if (vm->regions[i].in_use)
			n += vm->regions[i].kr.memory_size / 4096;
	return n;
}

/*
 * What mapping PAGES new 4K guest pages costs, per MMU:
 *  - TDP (and the legacy MMU over NPT/EPT) map guest physical memory:
 *    every page written is mapped, 4K or, where THP backs it, 2M at a
 *    time, so the new mappings cover at least PAGES 4K pages and at most
 *    the VM's memory;
 *  - shadow paging follows the guest's 4K page tables: PAGES to the VM's
 *    size new 4K mappings, and no huge one at all;
 *  - kvm_pvm emulates the guest's accesses: no mapping is counted, and
 *    mmu_pte_write moves at least once per page written.
 */
static void check_x86_mappings(struct __test_metadata *_metadata, struct kvm_vm *vm,
			       const struct kvm_stats *st, const struct stats_snapshot *before,
			       const struct stats_snapshot *after)
{
	struct mappings d = mappings_delta(st, before, after);
	int64_t covered = mappings_4k(d);

	TH_LOG("%s MMU: new mappings 4K %+ld, 2M %+ld, 1G %+ld: %ld 4K pages for %d written "
	       "(VM: %ld pages)", host_mmu_name(), (long)d.n4k, (long)d.n2m, (long)d.n1g,
	       (long)covered, PAGES, (long)vm_pages_4k(vm));
	switch (host_mmu()) {
	case HOST_MMU_TDP:
	case HOST_MMU_LEGACY_TDP:
		ASSERT_GE(covered, PAGES);
		ASSERT_LE(covered, vm_pages_4k(vm));
		break;
	case HOST_MMU_SHADOW:
		ASSERT_GE(d.n4k, PAGES);
		ASSERT_LE(d.n4k, vm_pages_4k(vm));
		ASSERT_EQ(0, d.n2m);
		ASSERT_EQ(0, d.n1g);
		break;
	case HOST_MMU_PVM:
		ASSERT_EQ(0, covered);
		ASSERT_GE(stats_delta(st, before, after, "mmu_pte_write"), PAGES);
		break;
	default:
		ASSERT_TRUE(false) TH_LOG("an x86 host with the %s MMU", host_mmu_name());
	}
}

/*
 * A zap of everything with no vCPU running (nothing refaults): every leaf
 * mapping is dropped, pages_4k/2m/1g fall to 0, and the MMUs with shadow
 * pages (shadow paging, the legacy MMU over NPT/EPT) zap every shadow page
 * they had: all those created (mmu_cache_miss) but not zapped before.  The
 * TDP MMU counts no page-table pages: its figure is the mappings dropped.
 * The zap is x86's default memslot-delete behaviour (the slot zap-all
 * quirk): deleting any memslot invalidates every root.
 */
TEST(zap_all_with_vcpus_stopped_drops_every_mapping)
{
	struct stats_snapshot before, after;
	struct memstress_params p;
	struct kvm_stats st;
	struct memstress *ms;
	struct mappings m, d;
	uint64_t extra = 3ULL << 30;	/* below the test memory at 4 GiB, above slot 0 */
	int64_t live_sp;

	REQUIRE_KVM();

	memstress_params_init(&p);
	p.vcpu_bytes = PAGES * 4096ULL;
	ms = memstress_create(&p);
	stats_open_vm(&st, ms->vm);
	memstress_start(ms);
	memstress_wait_iteration(ms);
	memstress_stop(ms);

	vm_mem_add(ms->vm, SRC_ANONYMOUS, extra, 7, SZ_2M, 0);
	stats_snapshot(&st, &before);
	m = mappings_now(&st);
	live_sp = stats_read(&st, "mmu_cache_miss") - stats_read(&st, "mmu_shadow_zapped");
	vm_mem_region_delete(ms->vm, 7);
	stats_snapshot(&st, &after);
	d = mappings_delta(&st, &before, &after);
	TH_LOG("%s MMU: mapped before the zap 4K %ld, 2M %ld, 1G %ld; dropped 4K %ld, 2M %ld, 1G %ld; "
	       "shadow pages live %ld, zapped %ld", host_mmu_name(), (long)m.n4k, (long)m.n2m,
	       (long)m.n1g, (long)-d.n4k, (long)-d.n2m, (long)-d.n1g, (long)live_sp,
	       (long)stats_delta(&st, &before, &after, "mmu_shadow_zapped"));

	if (host_mmu() != HOST_MMU_PVM) {
		ASSERT_GE(mappings_4k(m), PAGES);
	}
	ASSERT_EQ(0, mappings_4k(mappings_now(&st)));
	ASSERT_EQ(-mappings_4k(m), mappings_4k(d));
	if (host_mmu() == HOST_MMU_TDP) {
		ASSERT_EQ(0, stats_delta(&st, &before, &after, "mmu_shadow_zapped"));
	} else {
		ASSERT_EQ(live_sp, stats_delta(&st, &before, &after, "mmu_shadow_zapped"));
	}

	stats_snapshot_free(&before);
	stats_snapshot_free(&after);
	stats_close(&st);
	memstress_destroy(ms);
}
#endif

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
#ifdef X86_MMU_STATS
	check_x86_mappings(_metadata, ms->vm, &vm_st, &vm_before, &vm_after);
#else
	ASSERT_GE(best, MMU_STAT_MIN);
#endif
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
