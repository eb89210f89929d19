// SPDX-License-Identifier: GPL-2.0
/*
 * Eager page splitting's cap on a real VM (arm64, 6.5 and later):
 * KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE takes 0 or one of the stage-2 block
 * sizes that KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES lists, only while the VM
 * has no memslot, and the VM's KVM_CHECK_EXTENSION of it reads back the
 * chunk size in force.  arm64 KVM's stats count neither mappings nor
 * faults by size, so whether a clear really split the 2M blocks is seen in
 * the host's page-table pages instead (SecPageTables, which dirty_log_perf
 * reads around its first clear): one table per block split.
 *
 * Where KVM has no eager splitting (x86, POWER, arm64 before 6.5) the cap
 * must be refused (EINVAL), which dirty_log_perf --eager-split's skip
 * relies on: that is what these tests check there.
 */
#include <errno.h>
#include <inttypes.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "require.h"
#include "tool_run.h"

static uint64_t hook_size;
static int hook_ret;

/* vm_create_hook: before slot 0, as KVM requires. */
static void enable_chunk(struct kvm_vm *vm)
{
	hook_ret = __vm_enable_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, hook_size);
}

static struct kvm_vm *vm_with_chunk(uint64_t size, int *ret)
{
	struct kvm_vm *vm;

	hook_size = size;
	vm_create_hook = enable_chunk;
	vm = vm_create(1, 0);
	vm_create_hook = NULL;
	*ret = hook_ret;
	return vm;
}

/*
 * The block sizes; 0 where the host has no eager splitting, after checking
 * that it refuses the cap, even before the first memslot.
 */
static uint64_t block_sizes(struct __test_metadata *_metadata)
{
	uint64_t sizes = (uint32_t)kvm_check_cap(KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);
	struct kvm_vm *vm;
	int ret;

	if (sizes)
		return sizes;
	vm = vm_with_chunk((uint64_t)getpagesize(), &ret);
	vm_free(vm);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("no KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES, yet "
				       "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE gave %d", ret);
	ksft_print_msg("no eager page splitting on this host (arm64, Linux 6.5 and later): "
		       "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE is refused, EINVAL\n");
	return 0;
}

TEST(each_block_size_and_zero_read_back)
{
	uint64_t sizes, size;
	struct kvm_vm *vm;
	int ret, n = 0;

	REQUIRE_KVM();
	sizes = block_sizes(_metadata);
	if (!sizes)
		return;
	ksft_print_msg("stage-2 block sizes: 0x%lx\n", (unsigned long)sizes);
	/* The page size is always among them, and 2M with 4K pages. */
	ASSERT_NE(0, sizes & (uint64_t)getpagesize());
	for (int bit = -1; bit < 64; bit++) {
		if (bit >= 0 && !(sizes & (1ULL << bit)))
			continue;
		size = bit < 0 ? 0 : 1ULL << bit;
		vm = vm_with_chunk(size, &ret);
		EXPECT_EQ(0, ret) TH_LOG("chunk size 0x%lx refused: %s", (unsigned long)size,
					 strerror(-ret));
		EXPECT_EQ((int)size, vm_check_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE))
			TH_LOG("chunk size 0x%lx does not read back", (unsigned long)size);
		vm_free(vm);
		n++;
	}
	ksft_print_msg("%d chunk sizes enabled and read back (0 and each block size)\n", n);
}

TEST(other_sizes_and_late_enables_are_refused)
{
	uint64_t sizes, bad;
	struct kvm_vm *vm;
	int ret;

	REQUIRE_KVM();
	sizes = block_sizes(_metadata);
	if (!sizes)
		return;
	/* Twice the page size is no block size (8K with 4K pages). */
	bad = 2ULL * getpagesize();
	ASSERT_EQ(0, sizes & bad);
	vm = vm_with_chunk(bad, &ret);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("chunk size 0x%lx: %d", (unsigned long)bad, ret);
	EXPECT_EQ(0, vm_check_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE));
	/* Slot 0 exists now: even an allowed size is too late. */
	EXPECT_EQ(-EINVAL, __vm_enable_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE,
					   (uint64_t)getpagesize()));
	EXPECT_EQ(0, vm_check_cap(vm, KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE));
	vm_free(vm);
}

/*
 * The split really runs, in the clear: 16M of 2M hugetlb blocks, manual
 * protect with initially-all-set (nothing is write-protected or split when
 * logging is turned on), lockstep so that the vCPU is idle in the clear.
 * Iteration 1's clear must add exactly one table per block (8) with a chunk
 * size of 4K or 2M (either way the walker splits a block down to 4K pages),
 * and none with 0: the vCPU's write faults split them later, outside it.
 * SecPageTables is host-wide, so this holds on a host where no other VM
 * changes its stage-2 tables meanwhile (the emulated hosts).  Where KVM has
 * no eager splitting, dirty_log_perf --eager-split must skip, saying why.
 */
TEST(first_clear_splits_every_block)
{
	static const struct { const char *chunk; int64_t tables; } cases[] = {
		{ "4K", 8 }, { "2M", 8 }, { "0", 0 },
	};
	struct tool_run *r = calloc(1, sizeof(*r));

	REQUIRE_KVM();
	ASSERT_NE(NULL, r);
	if (!block_sizes(_metadata)) {
		const char *args[] = { "-v", "1", "-b", "16M", "-i", "2", "--eager-split", "4K",
				       NULL };

		tool_run(r, "dirty_log_perf", args);
		EXPECT_EQ(KSFT_SKIP, r->code) TH_LOG("output:\n%s", r->out);
		EXPECT_NE(NULL, strstr(r->out, "--eager-split: this host does not offer "
					      "KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE"));
		tool_run_free(r);
		free(r);
		return;
	}
	if (getpagesize() != 4096) {
		free(r);
		SKIP(return, "needs 4K host pages (2M blocks)");
	}
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *args[] = { "-v", "1", "-b", "16M", "-i", "2",
				       "-s", "anonymous_hugetlb_2mb", "--eager-split",
				       cases[c].chunk, "--verify", NULL };

		tool_run(r, "dirty_log_perf", args);
		if (r->code == KSFT_SKIP) {
			TH_LOG("output:\n%s", r->out);
			tool_run_free(r);
			free(r);
			SKIP(return, "dirty_log_perf skipped (2M hugetlb pages?)");
		}
		if (r->code)
			TH_LOG("output:\n%s", r->out);
		ASSERT_EQ(0, r->code);
		ASSERT_NE(NULL, r->doc);
		ASSERT_EQ(0, tool_figure(r, "", "verify_lost_pages"));
		ASSERT_NE(JV_MISSING, jv_type(r->doc, "figures/first_clear_page_tables_added/value"))
			TH_LOG("no SecPageTables in /proc/meminfo?");
		EXPECT_EQ(cases[c].tables,
			  (int64_t)tool_figure(r, "", "first_clear_page_tables_added"))
			TH_LOG("--eager-split %s: iteration 1's clear added %.0f page-table "
			       "pages, not one per 2M block (%" PRId64 "); another VM on the "
			       "host changes the count too", cases[c].chunk,
			       tool_figure(r, "", "first_clear_page_tables_added"),
			       cases[c].tables);
		ksft_print_msg("--eager-split %s: iteration 1's clear added %.0f page-table pages\n",
			       cases[c].chunk, tool_figure(r, "", "first_clear_page_tables_added"));
		tool_run_free(r);
	}
	free(r);
}

TEST_HARNESS_MAIN
