// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke tests of the guest library on real KVM: a guest runs C code and
 * returns a computed value; a guest assertion reaches the host with file,
 * line and values and fails the test; guest globals are the guest's own.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "child.h"
#include "kvm_util.h"
#include "ucall.h"
#include "smoke_basic.h"
#include "require.h"

static uint64_t host_sum_squares(uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 1; i <= n; i++)
		sum += i * i;
	return sum;
}

TEST(guest_returns_computed_value)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	REQUIRE_KVM();
	vm = vm_create(1, 0);
	vcpu = vm_vcpu_add(vm, 0, guest_compute);
	vcpu_args_set(vcpu, 1, (uint64_t)1000);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(2, uc.nargs);
	ASSERT_EQ(SMOKE_COMPUTE_TAG, uc.args[0]);
	ASSERT_EQ(host_sum_squares(1000), uc.args[1]);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
	vm_free(vm);
}

TEST(guest_globals_are_the_guests_copy)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	REQUIRE_KVM();
	vm = vm_create(1, 0);
	vcpu = vm_vcpu_add(vm, 0, guest_globals);
	guest_counter = 5;
	sync_global_to_guest(vm, guest_counter);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(15, uc.args[0]);
	ASSERT_EQ(5, guest_counter);		/* the host's copy is untouched */
	sync_global_from_guest(vm, guest_counter);
	ASSERT_EQ(15, guest_counter);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
	vm_free(vm);
}

/* Child: run entry(arg) on one vCPU until SYNC/DONE; failures exit the child. */
struct one_vcpu {
	void *entry;
	uint64_t arg0, arg1;
	uint64_t mmio_gpa;	/* map gva == gpa here, outside every memslot */
	int mode;		/* guest mode + 1; 0: the default mode */
};

static void run_one_vcpu(const void *p)
{
	const struct one_vcpu *o = p;
	struct kvm_vm *vm = o->mode ? vm_create_mode(o->mode - 1, 1, 0) : vm_create(1, 0);
	struct kvm_vcpu *vcpu = vm_vcpu_add(vm, 0, o->entry);
	struct ucall uc;

	if (o->mmio_gpa)
		virt_map(vm, o->mmio_gpa, o->mmio_gpa, 4096, 4096);
	/* For tests that check where a fault left RSP. */
	printf("vCPU stack: 0x%lx-0x%lx\n", (unsigned long)vcpu->stack_gva,
	       (unsigned long)(vcpu->stack_gva + VCPU_STACK_SIZE));
	vcpu_args_set(vcpu, 2, o->arg0, o->arg1);
	vcpu_run_ucall(vcpu, &uc);
	_exit(0);	/* not reached in these tests: the run fails the child */
}

static int expect_child_failure(struct __test_metadata *_metadata, const struct one_vcpu *o,
				char *out, size_t len)
{
	int code = run_in_child(run_one_vcpu, o, out, len);

	TH_LOG("child said:\n%s", out);
	return code;
}

/*
 * A failing guest assertion must fail the test with the guest's file, line
 * and both values.
 */
TEST(guest_assert_reaches_host)
{
	struct one_vcpu o = { .entry = guest_assert, .arg0 = 0x1234, .arg1 = 0x5678 };
	char out[8192];

	REQUIRE_KVM();

	ASSERT_EQ(KSFT_FAIL, expect_child_failure(_metadata, &o, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "tests/smoke_basic_guest.c:21: a == b"));
	EXPECT_NE(NULL, strstr(out, "0x1234 != 0x5678"));
}

/* This arch's own tests (tests/<arch>/smoke_basic.inc). */
#include "smoke_basic.inc"

TEST(unmapped_gpa_is_an_unexpected_mmio_exit)
{
	struct one_vcpu o = { .entry = guest_mmio_write, .arg0 = 3ULL << 30,
			      .mmio_gpa = 3ULL << 30 };
	char out[8192];

	REQUIRE_KVM();

	ASSERT_EQ(KSFT_FAIL, expect_child_failure(_metadata, &o, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unexpected exit MMIO"));
	EXPECT_NE(NULL, strstr(out, "gpa 0xc0000000 write len 8"));
	EXPECT_NE(NULL, strstr(out, ARCH_PC_NAME " 0x"));
}

/*
 * Every guest mode besides the default one (arm64: a 48- or 52-bit IPA where
 * KVM_CAP_ARM_VM_IPA_SIZE allows, 64K pages where the CPU has the granule;
 * powerpc: a radix guest where the host offers one)
 * really has its physical address space and page size: a memslot near its
 * top (below 2^48, as the guest's 48-bit VA maps gva == gpa; powerpc's radix
 * mode 0 maps 52 bits, so there it is just below 2^52) is accepted, and a
 * guest write there, through the mode's page tables, reaches the host.  A
 * default-only arch (x86_64; powerpc on an HPT-only host) has nothing to
 * check here.
 */
TEST(guest_modes_have_their_address_space_and_page_size)
{
	for (int m = 0; m < NUM_VM_MODES; m++) {
		unsigned int bits = guest_mode_pa_bits(m);
		struct kvm_vcpu *vcpu;
		struct kvm_vm *vm;
		struct ucall uc;
		uint64_t gpa;

		if (m == guest_mode_default() || !guest_mode_supported(m) || !bits)
			continue;
		TH_LOG("guest mode %d: %s", m, guest_mode_name(m));
		vm = vm_create_mode(m, 1, SZ_2M / SZ_4K);
		ASSERT_EQ(bits, vm->pa_bits);
		ASSERT_EQ(guest_mode_page_size(m), vm->page_size);
		/* The last 2M below the top: the arm64 doorbell may be there (the top of 40 bits). */
		gpa = (1ULL << (bits < vm->va_bits ? bits : vm->va_bits)) - 2 * SZ_2M;
		vm_mem_add(vm, SRC_ANONYMOUS, gpa, 1, SZ_2M, 0);
		virt_map(vm, gpa, gpa, SZ_2M, vm->page_size);
		vcpu = vm_vcpu_add(vm, 0, guest_mmio_write);
		vcpu_args_set(vcpu, 1, gpa + SZ_2M - 8);
		ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
		ASSERT_EQ(0xabcd, *(uint64_t *)addr_gpa2hva(vm, gpa + SZ_2M - 8));
		vm_free(vm);
	}
}

TEST(returning_from_guest_entry_fails)
{
	struct one_vcpu o = { .entry = guest_returns };
	char out[8192];

	REQUIRE_KVM();

	ASSERT_EQ(KSFT_FAIL, expect_child_failure(_metadata, &o, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "the guest entry function returned"));
}

TEST_HARNESS_MAIN
