// SPDX-License-Identifier: GPL-2.0
/*
 * The dirty ring on real KVM: the pages a guest writes come back from its
 * vCPU's ring exactly, round after round with a reset in between; a ring
 * too small for what the guest writes makes the vCPU exit with
 * KVM_EXIT_DIRTY_RING_FULL, and harvesting and resetting at each of those
 * exits still collects every page exactly once.  Also: bad ring sizes are
 * usage errors, and harvesting a ring full of garbage stops after one lap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "child.h"
#include "dirty_log.h"
#include "dirty_ring.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "ucall.h"
#include "smoke_dirty_ring.h"
#include "require.h"

#define TEST_SLOT 1

/* What the harvest collected: a count per page of the test slot. */
struct collected {
	uint64_t pages;
	uint32_t *count;
	uint64_t last;			/* the test-slot page collected last */
	uint64_t foreign;		/* entries outside the test slot's pages */
	uint32_t foreign_slot;		/* the first of them */
	uint64_t foreign_offset;
};

static void collect(uint32_t slot, uint64_t offset, void *arg)
{
	struct collected *col = arg;

	if (slot != TEST_SLOT || offset >= col->pages) {
		if (!col->foreign++) {
			col->foreign_slot = slot;
			col->foreign_offset = offset;
		}
		return;
	}
	col->count[offset]++;
	col->last = offset;
}

static void collected_clear(struct collected *col)
{
	memset(col->count, 0, col->pages * sizeof(*col->count));
	col->foreign = 0;
}

struct ring_vm {
	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	struct dirty_ring ring;
	struct dirty_ring_counts counts;
	struct collected col;
	uint64_t gpa, pages;
};

/* A VM with a dirty ring of `entries`, one logged test slot of `pages` and one vCPU. */
static void ring_vm_create(struct ring_vm *t, uint32_t entries, uint64_t pages,
			   uint64_t stride, uint64_t rounds)
{
	uint64_t size = pages * 4096;

	memset(t, 0, sizeof(*t));
	t->pages = pages;
	/* Before slot 0: arm64 adds the dirty bitmap beside the ring only then. */
	dirty_ring_hook_entries = entries;
	vm_create_hook = dirty_ring_vm_create_hook;
	t->vm = vm_create(1, pages);
	vm_create_hook = NULL;
	TEST_ASSERT(dirty_ring_hook_entries == entries, "ring size changed");
	t->gpa = arch_test_mem_gpa(t->vm);
	vm_mem_add(t->vm, SRC_ANONYMOUS, t->gpa, TEST_SLOT, size, 0);
	virt_map(t->vm, t->gpa, t->gpa, size, SZ_4K);
	vm_mem_region_set_flags(t->vm, TEST_SLOT, KVM_MEM_LOG_DIRTY_PAGES);
	t->vcpu = vm_vcpu_add(t->vm, 0, guest_dirty_rounds);
	vcpu_args_set(t->vcpu, 4, t->gpa, pages, stride, rounds);
	dirty_ring_map(&t->ring, t->vcpu, entries);
	t->col.pages = pages;
	t->col.count = calloc(pages, sizeof(*t->col.count));
	TEST_ASSERT(t->col.count, "out of memory");
}

static void ring_vm_free(struct ring_vm *t)
{
	dirty_ring_unmap(&t->ring);
	vm_free(t->vm);
	free(t->col.count);
}

/*
 * Every page written in round r was collected exactly once (plus relog[i]
 * times, if relog), no other page was, no entry named anything else, and
 * the page holds the round's stamp.
 */
static void check_round(struct __test_metadata *_metadata, struct ring_vm *t, uint64_t r,
			uint64_t stride, uint64_t written, const uint32_t *relog)
{
	char *hva = addr_gpa2hva(t->vm, t->gpa);
	uint64_t expected = 0, got = 0, relogged = 0;

	EXPECT_EQ(0, t->col.foreign)
		TH_LOG("round %lu: %lu entries outside the test slot's %lu pages, first slot %u offset 0x%lx",
		       r, t->col.foreign, t->pages, t->col.foreign_slot, t->col.foreign_offset);
	if (t->vm->dirty_ring_bitmap) {
		uint64_t *scratch = bitmap_alloc(t->pages);

		/* Every write came from the vCPU: the bitmap beside the ring got none. */
		EXPECT_EQ(0, dirty_ring_collect_bitmap(t->vm, TEST_SLOT, scratch, t->pages))
			TH_LOG("round %lu: pages in the dirty bitmap beside the ring", r);
		free(scratch);
	}
	for (uint64_t i = 0; i < t->pages; i++) {
		bool in = dirty_ring_page_in_round(r, i, stride);
		uint32_t again = relog ? relog[i] : 0;

		expected += in;
		relogged += again;
		got += t->col.count[i];
		ASSERT_EQ(in + again, t->col.count[i])
			TH_LOG("round %lu: page %lu %s the round%s, harvested %u times", r, i,
			       in ? "written in" : "not written in",
			       again ? " and under write at a ring-full exit" : "", t->col.count[i]);
		if (in)
			ASSERT_EQ(dirty_ring_stamp(r, i), *(uint64_t *)(hva + i * 4096));
	}
	ASSERT_EQ(expected, written);
	ASSERT_EQ(expected + relogged, got);
	ASSERT_EQ(0, t->counts.full_walks);
}

TEST(ring_caps)
{
	struct kvm_vm *vm;
	const char *cap;

	REQUIRE_KVM();
	vm = vm_create(1, 0);
	cap = dirty_ring_cap_name(vm);
	if (!cap)
		SKIP(vm_free(vm); return, "KVM_CAP_DIRTY_LOG_RING is not offered");
	ksft_print_msg("dirty ring: %s, %u to %u entries (ACQ_REL %s)\n", cap,
		       dirty_ring_min_entries(), dirty_ring_max_entries(vm),
		       vm_check_cap(vm, KVM_CAP_DIRTY_LOG_RING_ACQ_REL) ? "offered" : "not offered");
	ASSERT_LE(dirty_ring_min_entries(), dirty_ring_max_entries(vm));
	vm_free(vm);
}

/* Two rounds on a ring that cannot fill: each round's pages come back exactly. */
TEST(harvest_exact_pages)
{
	const uint64_t pages = 512, stride = 3;	/* 2 MiB; rounds of 171 and 257 pages */
	struct ring_vm t;
	struct ucall uc;
	uint32_t n;

	REQUIRE_KVM();

	ring_vm_create(&t, 4096, pages, stride, 2);
	for (uint64_t r = 1; r <= 2; r++) {
		ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(t.vcpu, &uc));
		ASSERT_EQ(r, uc.args[0]);
		collected_clear(&t.col);
		n = dirty_ring_harvest(&t.ring, collect, &t.col, &t.counts);
		ASSERT_EQ(uc.args[1], n);
		check_round(_metadata, &t, r, stride, uc.args[1], NULL);
		/* Nothing new until the guest runs again. */
		ASSERT_EQ(0, dirty_ring_harvest(&t.ring, collect, &t.col, &t.counts));
		ASSERT_EQ(n, dirty_ring_reset(t.vm));
		ASSERT_EQ(0, dirty_ring_reset(t.vm));
	}
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(t.vcpu, &uc));
	ring_vm_free(&t);
}

/*
 * The guest writes 16 times more pages than the smallest ring holds: the
 * vCPU must exit with KVM_EXIT_DIRTY_RING_FULL before the ring overflows,
 * and harvesting and resetting at each of those exits collects every page.
 * On kvm_pvm how late the exit comes depends on the guest's code
 * (docs/library.md, "Dirty ring"): this guest's loop exits within KVM's
 * reserve there, a bare store loop overflows any ring.
 *
 * How often a page comes back depends on the MMU.  Real MMUs (TDP, legacy
 * and shadow on x86) log the page whose write fault filled the ring, then
 * exit before the guest retries the store; the reset write-protects that
 * page again, so the retry logs it a second time: exactly one extra entry
 * per ring-full exit, for the page harvested last at that exit.  kvm_pvm
 * completes the store in its emulator before it exits: no extra entry.
 */
TEST(ring_full_exit)
{
	uint32_t full_exits = 0, min_n = UINT32_MAX, max_n = 0, n, entries, *relog;
	struct ring_vm t;
	struct ucall uc;
	uint64_t pages;
	bool relogs;

	REQUIRE_KVM();
	entries = dirty_ring_min_entries();
	pages = 16ULL * entries;
	relogs = host_mmu_traits()->ring_full_relogs;
	relog = calloc(pages, sizeof(*relog));
	ASSERT_NE(NULL, relog);
	ring_vm_create(&t, entries, pages, 1, 1);
	for (;;) {
		uint64_t cmd;

		vcpu_run(t.vcpu);
		if (t.vcpu->run->exit_reason == KVM_EXIT_DIRTY_RING_FULL) {
			full_exits++;
			n = dirty_ring_harvest(&t.ring, collect, &t.col, &t.counts);
			min_n = n < min_n ? n : min_n;
			max_n = n > max_n ? n : max_n;
			/*
			 * A full lap means KVM filled the ring past its
			 * reserve (and may have overwritten entries); nothing
			 * to harvest means KVM's ring indexes ran past the
			 * entries after such an overflow, and the vCPU would
			 * exit like this forever.
			 */
			ASSERT_EQ(0, t.counts.full_walks)
				TH_LOG("ring-full exit %u: all %u entries dirty, KVM filled the ring past "
				       "its reserve (overflow: dmesg WARNING in kvm_dirty_ring_push)",
				       full_exits, entries);
			ASSERT_NE(0, n)
				TH_LOG("ring-full exit %u with no dirty entry to harvest: the ring is stuck",
				       full_exits);
			if (relogs)
				relog[t.col.last]++;
			ASSERT_EQ(n, dirty_ring_reset(t.vm));
			continue;
		}
		cmd = get_ucall(t.vcpu, &uc);
		if (cmd == UCALL_PRINT)
			continue;
		if (cmd == UCALL_ABORT)
			ucall_report_abort(t.vcpu, &uc);
		if (cmd != UCALL_SYNC)
			vcpu_unexpected_exit(t.vcpu);
		break;
	}
	ASSERT_EQ(1, uc.args[0]);
	n = dirty_ring_harvest(&t.ring, collect, &t.col, &t.counts);
	ASSERT_EQ(n, dirty_ring_reset(t.vm));
	/* What was measured; what this MMU should give is asserted below. */
	ksft_print_msg("%u-entry ring, %lu pages written: %u ring-full exits harvesting %u..%u entries, "
		       "%u more at the end, %lu harvested in all, %ld more than pages written "
		       "(%s MMU)\n", entries, pages, full_exits, full_exits ? min_n : 0, max_n, n,
		       t.counts.harvested, (long)(t.counts.harvested - pages), host_mmu_name());
	ASSERT_LT(0, full_exits);
	ASSERT_LT(max_n, entries);
	check_round(_metadata, &t, 1, 1, uc.args[1], relog);
	ASSERT_EQ(pages + (relogs ? full_exits : 0), t.counts.harvested);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(t.vcpu, &uc));
	ring_vm_free(&t);
	free(relog);
}

static void enable_ring(const void *arg)
{
	struct kvm_vm *vm = vm_create(1, 0);
	uint32_t entries = *(const uint32_t *)arg;

	if (!entries) {
		/* After a vCPU exists: KVM would refuse, the library says why. */
		vm_vcpu_add(vm, 0, guest_dirty_rounds);
		entries = 4096;
	}
	dirty_ring_enable(vm, entries);
}

TEST(bad_ring_sizes)
{
	char out[4096], want[128];
	uint32_t min, max, bad[4];
	struct kvm_vm *vm;

	REQUIRE_KVM();
	vm = vm_create(1, 0);
	min = dirty_ring_min_entries();
	max = dirty_ring_max_entries(vm);
	bad[0] = 100, bad[1] = min / 2, bad[2] = 2 * max, bad[3] = 0;
	vm_free(vm);
	if (!max)
		SKIP(return, "KVM_CAP_DIRTY_LOG_RING is not offered");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int code = run_in_child(enable_ring, &bad[i], out, sizeof(out));

		if (!bad[i]) {
			ASSERT_EQ(KSFT_FAIL, code) TH_LOG("%s", out);
			ASSERT_NE(NULL, strstr(out, "before the first vCPU")) TH_LOG("%s", out);
			continue;
		}
		snprintf(want, sizeof(want),
			 "--ring '%u': must be a power of two between %u and %u entries\n",
			 bad[i], min, max);
		ASSERT_EQ(KMP_EXIT_USAGE, code) TH_LOG("%s", out);
		ASSERT_NE(NULL, strstr(out, want)) TH_LOG("want '%s', got '%s'", want, out);
	}
}

static void count_entry(uint32_t slot, uint64_t offset, void *arg)
{
	uint64_t *calls = arg;

	/* The entries come in ring order, garbage and all. */
	TEST_ASSERT(slot == 0xdead0000 + *calls && offset == ~*calls,
		    "entry %lu: slot 0x%x offset 0x%lx", *calls, slot, offset);
	++*calls;
}

/* No KVM: a ring whose every entry is dirty (an overfilled ring) is walked once. */
TEST(harvest_stops_after_one_lap)
{
	struct kvm_dirty_gfn gfns[64];
	struct dirty_ring r = { .gfns = gfns, .size = 64, .fetch = 5 };
	struct dirty_ring_counts c = {};
	uint64_t calls = 0;

	for (uint32_t i = 0; i < 64; i++) {
		uint32_t k = (i - 5) & 63;	/* entry 5 is harvested first */

		gfns[i] = (struct kvm_dirty_gfn){ KVM_DIRTY_GFN_F_DIRTY, 0xdead0000 + k, ~(uint64_t)k };
	}
	ASSERT_EQ(64, dirty_ring_harvest(&r, count_entry, &calls, &c));
	ASSERT_EQ(64, calls);
	ASSERT_EQ(69, r.fetch);
	ASSERT_EQ(1, c.full_walks);
	for (uint32_t i = 0; i < 64; i++)
		ASSERT_EQ(KVM_DIRTY_GFN_F_RESET, gfns[i].flags);
	/* Harvested entries are not harvested again, nor are RESET|DIRTY ones. */
	gfns[6].flags = KVM_DIRTY_GFN_F_DIRTY | KVM_DIRTY_GFN_F_RESET;
	ASSERT_EQ(0, dirty_ring_harvest(&r, count_entry, &calls, &c));
	/* A new entry at fetch is; the walk stops at the RESET|DIRTY one after it. */
	calls = 64;
	gfns[5] = (struct kvm_dirty_gfn){ KVM_DIRTY_GFN_F_DIRTY, 0xdead0000 + 64, ~(uint64_t)64 };
	ASSERT_EQ(1, dirty_ring_harvest(&r, count_entry, &calls, &c));
	ASSERT_EQ(65, c.harvested);
	ASSERT_EQ(3, c.calls);
	ASSERT_EQ(1, c.full_walks);
}

TEST_HARNESS_MAIN
