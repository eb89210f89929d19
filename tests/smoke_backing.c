// SPDX-License-Identifier: GPL-2.0
/*
 * Every backing source maps into a guest: the guest writes a pattern the
 * host reads back (through the alias too, for shared sources), and the host
 * writes one the guest checks.  hugetlb sources reserve their pages and the
 * host's nr_hugepages is given back when the test's process exits.
 */
#include "kselftest_harness.h"
#include "host_state.h"
#include "kvm_util.h"
#include "ucall.h"
#include "smoke_backing.h"
#include "require.h"

#define TEST_SLOT 1

static void run_source(struct __test_metadata *_metadata, enum backing_src_type src)
{
	uint64_t page = backing_src_page_size(src);
	uint64_t size = page >= SZ_1G ? page : 2 * (page > SZ_2M ? page : SZ_2M);
	uint64_t map = page >= SZ_2M ? SZ_2M : SZ_4K;
	struct kvm_vcpu *vcpu;
	struct mem_region *r;
	struct kvm_vm *vm;
	struct ucall uc;
	uint64_t gpa;
	char *host;

	REQUIRE_KVM();
	vm = vm_create(1, size / 4096);
	/* The guest maps with the largest page both the backing and the library take. */
	if (map > arch_virt_page_max(vm))
		map = arch_virt_page_max(vm);
	gpa = arch_test_mem_gpa(vm);

	r = vm_mem_add(vm, src, gpa, TEST_SLOT, size, 0);
	ASSERT_EQ(page, r->backing.page_size);
	ASSERT_EQ(backing_src_is_shared(src), r->backing.alias != NULL);
	virt_map(vm, gpa, gpa, size, map);
	vcpu = vm_vcpu_add(vm, 0, guest_write_then_check);
	vcpu_args_set(vcpu, 2, gpa, size);

	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(1, uc.args[0]);
	for (uint64_t off = 0; off < size; off += 4096) {
		char *hva = (char *)r->backing.hva + off;

		ASSERT_EQ(backing_pattern(1, off), *(uint64_t *)hva);
		ASSERT_EQ(~backing_pattern(1, off), *(uint64_t *)(hva + 4088));
		if (r->backing.alias)
			ASSERT_EQ(backing_pattern(1, off),
				  *(uint64_t *)((char *)r->backing.alias + off));
	}
	/* Write through the alias where there is one: the guest must see it. */
	host = r->backing.alias ? r->backing.alias : r->backing.hva;
	for (uint64_t off = 0; off < size; off += 4096)
		*(uint64_t *)(host + off) = backing_pattern(2, off);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(2, uc.args[0]);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
	vm_free(vm);
}

/*
 * The harness ends each test's process with _exit(), which skips atexit:
 * give reserved hugetlb pages back in the teardown, which also runs after a
 * failed assertion.
 */
FIXTURE(host) {};
FIXTURE_SETUP(host) {}
FIXTURE_TEARDOWN(host)
{
	host_state_restore();
}

#define BACKING_TEST(name, src) \
	TEST_F(host, name) { run_source(_metadata, src); }

BACKING_TEST(anonymous, SRC_ANONYMOUS)
BACKING_TEST(anonymous_thp, SRC_ANONYMOUS_THP)
BACKING_TEST(anonymous_hugetlb, SRC_ANONYMOUS_HUGETLB)
BACKING_TEST(anonymous_hugetlb_2mb, SRC_ANONYMOUS_HUGETLB_2MB)
BACKING_TEST(anonymous_hugetlb_1gb, SRC_ANONYMOUS_HUGETLB_1GB)
BACKING_TEST(shmem, SRC_SHMEM)
BACKING_TEST(shared_hugetlb, SRC_SHARED_HUGETLB)

TEST_HARNESS_MAIN
