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

#ifdef __x86_64__
/* Run o in a child that must fail; its output (in out) must say each of says. */
static void expect_failure_saying(struct __test_metadata *_metadata, const struct one_vcpu *o,
				  char *out, size_t len, const char *const says[])
{
	EXPECT_EQ(KSFT_FAIL, expect_child_failure(_metadata, o, out, len));
	for (int i = 0; says[i]; i++) {
		/* Braces: the macro's TH_LOG handler is a statement of its own. */
		EXPECT_NE(NULL, strstr(out, says[i])) TH_LOG("no \"%s\" in it", says[i]);
	}
}

TEST(unknown_port_is_an_unexpected_exit)
{
	static const char *const says[] = { "unexpected exit IO", "port 0x3f8 out", "rip 0x", NULL };
	struct one_vcpu o = { .entry = guest_unknown_port };
	char out[8192];

	REQUIRE_KVM();

	expect_failure_saying(_metadata, &o, out, sizeof(out), says);
}

struct exc_report {
	char name[16];
	unsigned long vector, error_code, rip, cr2, rsp;
	unsigned long stack_lo, stack_hi;	/* the vCPU's stack, as the child printed it */
};

/*
 * Run o in a child that must fail with a guest exception: its failure line
 * for it, parsed, and the vCPU stack it printed.
 */
static bool run_to_exception(struct __test_metadata *_metadata, const struct one_vcpu *o,
			     struct exc_report *r, char *out, size_t len)
{
	const char *fail, *stack;

	if (expect_child_failure(_metadata, o, out, len) != KSFT_FAIL)
		return false;
	fail = strstr(out, "vCPU 0: guest exception: ");
	stack = strstr(out, "vCPU stack: ");
	return fail && stack &&
	       sscanf(fail, "vCPU 0: guest exception: vector %lu (%15[^)]), error code 0x%lx, "
		      "rip 0x%lx, cr2 0x%lx, rsp 0x%lx", &r->vector, r->name, &r->error_code,
		      &r->rip, &r->cr2, &r->rsp) == 6 &&
	       sscanf(stack, "vCPU stack: 0x%lx-0x%lx", &r->stack_lo, &r->stack_hi) == 2;
}

static void expect_vector(struct __test_metadata *_metadata, const struct exc_report *r,
			  unsigned long vector, const char *name, unsigned long error_code)
{
	EXPECT_EQ(vector, r->vector);
	EXPECT_STREQ(name, r->name);
	EXPECT_EQ(error_code, r->error_code);
}

/*
 * The guest's IDT stubs report a #PF: vector 14, error code 0 (a read of a
 * not-present page, supervisor), CR2 the address, RIP the load in
 * guest_unmapped_load(), RSP on the vCPU's stack; the test fails with that
 * line, the dump shows it and the registers.
 */
TEST(guest_exception_is_reported)
{
	struct one_vcpu o = { .entry = guest_unmapped_load, .arg0 = 0x5000000000ULL };
	unsigned long fn = (unsigned long)(uintptr_t)guest_unmapped_load;
	struct exc_report r;
	char out[8192];

	REQUIRE_KVM();

	ASSERT_TRUE(run_to_exception(_metadata, &o, &r, out, sizeof(out)));
	expect_vector(_metadata, &r, 14, "#PF", 0);
	EXPECT_EQ(0x5000000000UL, r.cr2);
	EXPECT_TRUE(r.rip >= fn && r.rip < fn + 64);
	EXPECT_TRUE(r.rsp > r.stack_lo && r.rsp < r.stack_hi);
	EXPECT_NE(NULL, strstr(out, "last exit IO (2), port 0xe8 out"));
	EXPECT_NE(NULL, strstr(out, "  guest exception: vector 14 (#PF), error code 0x0"));
	EXPECT_NE(NULL, strstr(out, "rip 0x"));
}

/* #DE (no error code: the stub's 0 keeps the frame uniform), RIP the DIV itself. */
TEST(divide_error_is_reported)
{
	struct one_vcpu o = { .entry = guest_divide_by_zero };
	struct exc_report r;
	char out[8192];

	REQUIRE_KVM();

	ASSERT_TRUE(run_to_exception(_metadata, &o, &r, out, sizeof(out)));
	expect_vector(_metadata, &r, 0, "#DE", 0);
	EXPECT_EQ((unsigned long)(uintptr_t)guest_div_insn, r.rip);
	EXPECT_TRUE(r.rsp > r.stack_lo && r.rsp < r.stack_hi);
}

/*
 * A push through an RSP that maps nothing still reports, from IST1: a #PF
 * writing (error code 2) at RSP - 8, with the bad RSP in the frame.
 */
TEST(bad_stack_fault_is_reported)
{
	struct one_vcpu o = { .entry = guest_bad_stack, .arg0 = 0x5000001000ULL };
	struct exc_report r;
	char out[8192];

	REQUIRE_KVM();

	ASSERT_TRUE(run_to_exception(_metadata, &o, &r, out, sizeof(out)));
	expect_vector(_metadata, &r, 14, "#PF", 2);
	EXPECT_EQ(0x5000000ff8UL, r.cr2);
	EXPECT_EQ(0x5000001000UL, r.rsp);
}

/*
 * What the IDT cannot deliver is still a triple fault: SHUTDOWN, with the
 * registers (on SVM, KVM resets the vCPU first: their values are not asserted).
 */
TEST(triple_fault_is_a_shutdown)
{
	static const char *const says[] = { "unexpected exit SHUTDOWN (8)", "rip 0x", "cr2 0x",
					    NULL };
	struct one_vcpu o = { .entry = guest_triple_fault };
	char out[8192];

	REQUIRE_KVM();

	expect_failure_saying(_metadata, &o, out, sizeof(out), says);
	EXPECT_EQ(NULL, strstr(out, "guest exception"));
}
#endif

#ifdef __aarch64__
/* The guest's exception vectors report a fault with its syndrome and address. */
TEST(guest_exception_is_reported)
{
	struct one_vcpu o = { .entry = guest_unmapped_load, .arg0 = 0x5000000000ULL };
	char out[8192];

	REQUIRE_KVM();

	ASSERT_EQ(KSFT_FAIL, expect_child_failure(_metadata, &o, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unexpected exit MMIO"));
	/* Current EL with SP_ELx, synchronous: vector 0x200. */
	EXPECT_NE(NULL, strstr(out, "guest exception: vector 0x200, data abort"));
	EXPECT_NE(NULL, strstr(out, "FAR_EL1 0x5000000000"));
	EXPECT_NE(NULL, strstr(out, "pc 0x"));
}
#endif

#ifdef __powerpc64__
/*
 * No HPTE (HPT guest, mode 6) or radix PTE (radix guest, mode 0, where the
 * host offers it) maps the gva: a data storage interrupt reaches the guest
 * in real mode, whose handler at gpa 0x300 reports it.
 */
TEST(guest_exception_is_reported)
{
	static const int modes[] = { VM_MODE_P40V48_4K, VM_MODE_P52V48_4K };

	REQUIRE_KVM();

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct one_vcpu o = { .entry = guest_unmapped_load, .arg0 = 0x5000000000ULL,
				      .mode = modes[i] + 1 };
		char out[8192];

		if (!guest_mode_supported(modes[i]))
			continue;
		TH_LOG("guest mode %d: %s", modes[i], guest_mode_name(modes[i]));
		ASSERT_EQ(KSFT_FAIL, expect_child_failure(_metadata, &o, out, sizeof(out)));
		EXPECT_NE(NULL, strstr(out, "unexpected exit PAPR_HCALL"));
		EXPECT_NE(NULL, strstr(out, "guest exception: vector 0x300, data storage"));
		/* SRR0: the load in guest_unmapped_load(), in the binary's text at 0x10000000. */
		EXPECT_NE(NULL, strstr(out, "data storage, srr0 0x100"));
		EXPECT_NE(NULL, strstr(out, "dar 0x5000000000"));
		EXPECT_NE(NULL, strstr(out, "pc 0x"));
	}
}
#endif

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
