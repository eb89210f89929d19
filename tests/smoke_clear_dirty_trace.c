// SPDX-License-Identifier: GPL-2.0
/*
 * KVM_CLEAR_DIRTY_LOG's work, counted: on the TDP MMU, every 4K SPTE whose
 * dirty state a clear takes away (its W bit, or its D bit where the CPU
 * logs dirty pages) is traced once by kvmmmu/kvm_tdp_mmu_spte_changed, in
 * clear_dirty_pt_masked(); the other MMUs never fire that tracepoint.
 * Seed 003's pair changes exactly that function, so this count is what
 * shows both of its kernels run the changed path (make check-seed-003).
 * There KMP_CLEAR_WRITE names the side: "whole" (the post reverted: each
 * SPTE written through handle_changed_spte()) or "atomic" (6.12: an
 * atomic AND, never that function), and a kprobe on handle_changed_spte()
 * during the clear must count PAGES or 0 calls.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "dirty_log.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "trace.h"
#include "ucall.h"
#include "require.h"

#define TEST_SLOT 1
#define PAGES 256

void guest_write_pages(uint64_t gva, uint64_t pages, uint64_t page_size);

struct spte_count {
	uint64_t first_gfn, changed, whole_writes;
};

#define WHOLE_WRITE_PROBE "kmp_changed_spte"

static void count_changes(const struct trace_event *ev, void *arg)
{
	struct spte_count *c = arg;
	uint64_t gfn = trace_field_u64(ev, "gfn", ~0ULL);

	if (!strcmp(ev->name, "kvm_tdp_mmu_spte_changed") && gfn - c->first_gfn < PAGES)
		c->changed++;
	c->whole_writes += !strcmp(ev->name, WHOLE_WRITE_PROBE);
}

/*
 * KMP_CLEAR_WRITE's side: the calls of handle_changed_spte() the clear must
 * make (PAGES for "whole", 0 for "atomic"), or -1 when it is not set.  The
 * kprobe counts every call in the clear's window; the VM is the host's
 * only one and its vCPU is stopped, so the clear's are the only ones.
 */
static long want_whole_writes(struct __test_metadata *_metadata, struct trace *trace, bool tdp)
{
	const char *side = getenv("KMP_CLEAR_WRITE");
	char sym[256], why[512] = "";

	if (!side)
		return -1;
	ASSERT_TRUE(!strcmp(side, "whole") || !strcmp(side, "atomic"))
		TH_LOG("KMP_CLEAR_WRITE=%s: want whole or atomic", side);
	ASSERT_TRUE(tdp) TH_LOG("KMP_CLEAR_WRITE is set, but this host's MMU is %s, not the "
				"TDP MMU", host_mmu_name());
	ASSERT_TRUE(trace_kprobes_supported(trace, why, sizeof(why)))
		TH_LOG("KMP_CLEAR_WRITE is set, but %s", why);
	ASSERT_TRUE(trace_kernel_function_or_clone("handle_changed_spte", sym, sizeof(sym)))
		TH_LOG("KMP_CLEAR_WRITE is set, but the kernel has no handle_changed_spte()");
	ASSERT_EQ(0, trace_add_probe(trace, WHOLE_WRITE_PROBE, sym, false, NULL, NULL, why,
				     sizeof(why))) TH_LOG("%s", why);
	return strcmp(side, "whole") ? 0 : PAGES;
}

TEST(a_clear_traces_each_cleared_spte_once_on_the_tdp_mmu)
{
	static const char *const events[] = { "kvmmmu/kvm_tdp_mmu_spte_changed" };
	struct spte_count count = { 0 };
	char why[512] = "";
	struct trace trace;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	uint64_t *bitmap, gpa, gva;
	struct ucall uc;
	long whole_writes;
	bool tdp;

	REQUIRE_KVM();
	REQUIRE_ROOT();
#ifdef __powerpc64__
	/* POWER's KVM has no KVM_CLEAR_DIRTY_LOG: there is no clear to count. */
	ASSERT_EQ(0, kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2));
	return;
#endif
	ASSERT_NE(0, kvm_check_cap(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2));
	tdp = host_mmu() == HOST_MMU_TDP;
	ASSERT_EQ(0, trace_open(&trace, why, sizeof(why))) TH_LOG("tracefs: %s", why);
	if (trace_add_events(&trace, events, 1, why, sizeof(why))) {
		/* Only x86 has the tracepoint; its TDP MMU must. */
		ASSERT_FALSE(tdp) TH_LOG("the TDP MMU's tracepoint is missing: %s", why);
		trace_close(&trace);
		return;
	}

	whole_writes = want_whole_writes(_metadata, &trace, tdp);

	vm = vm_create(1, 0);
	vm_enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE);
	gpa = arch_test_mem_gpa(vm);
	vm_mem_add(vm, SRC_ANONYMOUS, gpa, TEST_SLOT, PAGES * vm->page_size, KVM_MEM_LOG_DIRTY_PAGES);
	gva = vm_vaddr_map(vm, gpa, PAGES * vm->page_size);
	vcpu = vm_vcpu_add(vm, 0, guest_write_pages);
	vcpu_args_set(vcpu, 3, gva, (uint64_t)PAGES, (uint64_t)vm->page_size);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));

	bitmap = bitmap_alloc(PAGES);
	vm_get_dirty_log(vm, TEST_SLOT, bitmap);
	ASSERT_EQ(PAGES, bitmap_weight(bitmap, PAGES));
	trace_clear(&trace);
	trace_arm(&trace, true);
	vm_clear_dirty_log(vm, TEST_SLOT, bitmap, 0, PAGES);
	trace_arm(&trace, false);
	count.first_gfn = gpa / vm->page_size;
	trace_read(&trace, count_changes, &count);
	ASSERT_EQ(0, trace.lost);
	TH_LOG("%s: %lu kvm_tdp_mmu_spte_changed events for %d pages cleared", host_mmu_name(),
	       (unsigned long)count.changed, PAGES);
	/* Each of the guest's pages once on the TDP MMU; never on the others. */
	EXPECT_EQ(tdp ? PAGES : 0, count.changed);
	if (whole_writes >= 0) {
		TH_LOG("KMP_CLEAR_WRITE=%s: %lu call(s) of handle_changed_spte() in the clear",
		       getenv("KMP_CLEAR_WRITE"), (unsigned long)count.whole_writes);
		EXPECT_EQ(whole_writes, count.whole_writes);
	}

	free(bitmap);
	vm_free(vm);
	trace_close(&trace);
}

TEST_HARNESS_MAIN
