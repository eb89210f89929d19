// SPDX-License-Identifier: GPL-2.0
/*
 * Eager page splitting's cap on a real VM (arm64, 6.5 and later):
 * KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE takes 0 or one of the stage-2 block
 * sizes that KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES lists, only while the VM
 * has no memslot, and the VM's KVM_CHECK_EXTENSION of it reads back the
 * chunk size in force.  Whether a clear then split the 2M blocks eagerly
 * or the write faults split them later is not visible in arm64 KVM's
 * stats (it counts neither mappings nor faults by size): dirty_log_perf
 * --eager-split --verify in the emulated host's list checks the log, and
 * the first clear's time shows the split.
 *
 * Where KVM has no eager splitting (x86, POWER, arm64 before 6.5) the cap
 * must be refused (EINVAL), which dirty_log_perf --eager-split's skip
 * relies on: that is what these tests check there.
 */
#include <errno.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "require.h"

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

TEST_HARNESS_MAIN
