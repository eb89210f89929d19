// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 guests: a vCPU at EL1 whose stage-1 MMU is already on at the first
 * KVM_RUN (48-bit VA through TTBR0, the guest mode's 4K or 64K granule), so
 * the test binary runs at its host link address as on x86_64.  RAM is Normal
 * write-back; the ucall doorbell page is Device memory.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guest_modes.h"
#include "kvm_util.h"
#include "ucall.h"

/* System registers, as ARM64_SYS_REG(op0, op1, CRn, CRm, op2). */
#define SYS_ID_AA64MMFR0_EL1 ARM64_SYS_REG(3, 0, 0, 7, 0)
#define SYS_SCTLR_EL1 ARM64_SYS_REG(3, 0, 1, 0, 0)
#define SYS_CPACR_EL1 ARM64_SYS_REG(3, 0, 1, 0, 2)
#define SYS_TTBR0_EL1 ARM64_SYS_REG(3, 0, 2, 0, 0)
#define SYS_TCR_EL1 ARM64_SYS_REG(3, 0, 2, 0, 2)
#define SYS_ESR_EL1 ARM64_SYS_REG(3, 0, 5, 2, 0)
#define SYS_FAR_EL1 ARM64_SYS_REG(3, 0, 6, 0, 0)
#define SYS_MAIR_EL1 ARM64_SYS_REG(3, 0, 10, 2, 0)
#define SYS_VBAR_EL1 ARM64_SYS_REG(3, 0, 12, 0, 0)

#define CORE_REG(name) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
			KVM_REG_ARM_CORE_REG(name))
#define REG_X(n) CORE_REG(regs.regs[n])
#define REG_SP_EL1 CORE_REG(sp_el1)
#define REG_PC CORE_REG(regs.pc)
#define REG_PSTATE CORE_REG(regs.pstate)
#define REG_ELR_EL1 CORE_REG(elr_el1)

#define SCTLR_M (1ULL << 0)		/* stage-1 MMU on */
#define SCTLR_C (1ULL << 2)		/* data cacheable */
#define SCTLR_I (1ULL << 12)		/* instructions cacheable */
#define CPACR_FPEN (3ULL << 20)		/* no FP/SIMD traps: compiled C uses q registers */

/*
 * TCR_EL1: T0SZ 16 (48-bit VA), walks Normal WB inner shareable, TG0 the
 * mode's granule (4K or 64K), TTBR1 walks off (EPD1; TG1 the same granule,
 * to avoid a reserved encoding), IPS the VM's IPA size (52 bits only with
 * the 64K granule: a 4K one would need LPA2).
 */
#define TCR_T0SZ(x) ((uint64_t)(x) << 0)
#define TCR_IRGN0_WBWA (1ULL << 8)
#define TCR_ORGN0_WBWA (1ULL << 10)
#define TCR_SH0_INNER (3ULL << 12)
#define TCR_TG0_4K (0ULL << 14)
#define TCR_TG0_64K (1ULL << 14)
#define TCR_EPD1 (1ULL << 23)
#define TCR_TG1_4K (2ULL << 30)
#define TCR_TG1_64K (3ULL << 30)
#define TCR_IPS_40 (2ULL << 32)
#define TCR_IPS_48 (5ULL << 32)
#define TCR_IPS_52 (6ULL << 32)
#define TCR_EL1_BASE (TCR_T0SZ(16) | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | \
		      TCR_EPD1)

#define VA_BITS 48
#define IPA_BITS_DEFAULT 40		/* VM type 0 */

/* lib/arm64/vectors.S: every vector reports itself at the exception doorbell. */
extern char arm64_guest_vectors[];

/* ---- registers ---- */

static void vcpu_set_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&val };

	vcpu_ioctl(vcpu, KVM_SET_ONE_REG, &reg);
}

static uint64_t vcpu_get_reg(struct kvm_vcpu *vcpu, uint64_t id)
{
	uint64_t val = 0;
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&val };

	vcpu_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
	return val;
}

/* For failure reports: no assertion, the caller says what could not be read. */
static int try_get_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t *val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)val };

	return __vcpu_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
}

/* ---- guest modes ---- */

/*
 * Whether a vCPU's stage 1 can use the 64K granule: ID_AA64MMFR0_EL1.TGran64
 * (bits 27:24) is 0 when it can, 0xf when not, as a scratch VM's vCPU sees it.
 */
static bool granule_64k_supported(void)
{
	static int supported = -1;

	if (supported < 0) {
		uint64_t mmfr0 = 0;
		struct kvm_one_reg reg = { .id = SYS_ID_AA64MMFR0_EL1,
					   .addr = (uint64_t)(uintptr_t)&mmfr0 };
		struct kvm_vcpu_init init = {};
		int vm = __kvm_ioctl(kvm_dev_fd(), KVM_CREATE_VM, 0), vcpu = -1;

		supported = 0;
		if (vm >= 0 && ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init) == 0 &&
		    (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) >= 0 &&
		    ioctl(vcpu, KVM_ARM_VCPU_INIT, &init) == 0 &&
		    ioctl(vcpu, KVM_GET_ONE_REG, &reg) == 0)
			supported = ((mmfr0 >> 24) & 0xf) == 0;
		if (vcpu >= 0)
			close(vcpu);
		if (vm >= 0)
			close(vm);
	}
	return supported;
}

/* The largest IPA a VM can have (KVM_CAP_ARM_VM_IPA_SIZE; without it, the default 40 bits). */
static unsigned int max_ipa_bits(void)
{
	static unsigned int bits;

	if (!bits)
		bits = kvm_check_cap(KVM_CAP_ARM_VM_IPA_SIZE) ?: IPA_BITS_DEFAULT;
	return bits;
}

/*
 * 4K or 64K pages, 48-bit VA, and an IPA of 40 bits (the default VM type) or,
 * where KVM_CAP_ARM_VM_IPA_SIZE allows, 48 or 52 bits: a VM type asking for
 * that size (KVM_VM_TYPE_ARM_IPA_SIZE), so stage 2 has the levels to match.
 * The guest's stage 1 uses the mode's granule (ID_AA64MMFR0_EL1 of a vCPU
 * says whether the CPU has it).
 */
bool arch_guest_mode_supported(enum guest_mode m)
{
	switch (m) {
	case VM_MODE_P40V48_4K:
		return true;
	case VM_MODE_P48V48_4K:
	case VM_MODE_P52V48_4K:
		return max_ipa_bits() >= guest_mode_pa_bits(m);
	case VM_MODE_P40V48_64K:
	case VM_MODE_P48V48_64K:
	case VM_MODE_P52V48_64K:
		return max_ipa_bits() >= guest_mode_pa_bits(m) && granule_64k_supported();
	default:
		return false;
	}
}

unsigned long arch_vm_type(struct kvm_vm *vm)
{
	unsigned int bits = guest_mode_pa_bits(vm->mode);

	/* Type 0 is the 40-bit default, on kernels with or without the cap. */
	return bits == IPA_BITS_DEFAULT ? 0 : KVM_VM_TYPE_ARM_IPA_SIZE(bits);
}

enum guest_mode arch_guest_mode_default(void)
{
	return VM_MODE_P40V48_4K;
}

/* ---- stage-1 page tables ---- */

static uint64_t *pte_hva(struct kvm_vm *vm, uint64_t table_gpa, int index)
{
	return (uint64_t *)addr_gpa2hva(vm, table_gpa) + index;
}

/*
 * Levels are numbered as the architecture does, 3 the last: with the 4K
 * granule a 48-bit VA walks levels 0-3 (9 bits each), with 64K levels 1-3
 * (13 bits each; level 1 uses 6).
 */
static int granule_shift(struct kvm_vm *vm)
{
	return vm->page_size == SZ_64K ? 16 : 12;
}

static int start_level(struct kvm_vm *vm)
{
	return vm->page_size == SZ_64K ? 1 : 0;
}

/* Bytes one entry at `level` maps. */
static uint64_t level_size(struct kvm_vm *vm, int level)
{
	int g = granule_shift(vm);

	return 1ULL << (g + (g - 3) * (3 - level));
}

static int pt_index(struct kvm_vm *vm, uint64_t gva, int level)
{
	return (gva / level_size(vm, level)) & ((1U << (granule_shift(vm) - 3)) - 1);
}

void arch_vm_pgtable_init(struct kvm_vm *vm)
{
	vm->pa_bits = guest_mode_pa_bits(vm->mode);
	vm->va_bits = VA_BITS;
	vm->pgd = vm_phy_pages_alloc(vm, 1);
}

uint64_t arch_page_table_pages(uint64_t pages)
{
	/* One L3 table per 512 pages, plus upper levels, plus slack for sparse layouts. */
	return pages / 512 + pages / (512 * 512) + 64;
}

uint64_t arch_guest_clock_hz(struct kvm_vcpu *vcpu)
{
	uint64_t hz;

	/* The guest's CNTFRQ_EL0 is the host's: KVM does not virtualise it. */
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
	TEST_ASSERT(hz, "CNTFRQ_EL0 reads 0: the firmware did not program the timer frequency");
	return hz;
}

uint64_t arch_test_mem_gpa(struct kvm_vm *vm)
{
	/* 4 GiB: above slot 0; test memory must end below the ucall page, the IPA's last. */
	return 1ULL << 32;
}

/* The entry for gva at level `leaf` under root, creating the tables above it. */
static uint64_t *pte_create(struct kvm_vm *vm, uint64_t root, uint64_t gva, int leaf)
{
	uint64_t table = root, *pte;

	TEST_ASSERT((gva >> VA_BITS) == 0, "gva 0x%lx is outside TTBR0's 48-bit range",
		    (unsigned long)gva);
	for (int level = start_level(vm); level < leaf; level++) {
		pte = pte_hva(vm, table, pt_index(vm, gva, level));
		if (!(*pte & PTE_VALID))
			*pte = vm_phy_pages_alloc(vm, 1) | PTE_VALID | PTE_TABLE;
		TEST_ASSERT(*pte & PTE_TABLE, "gva 0x%lx is already inside a block mapping",
			    (unsigned long)gva);
		table = *pte & PTE_ADDR_MASK;
	}
	return pte_hva(vm, table, pt_index(vm, gva, leaf));
}

static void map_one(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size,
		    uint64_t attrs)
{
	int leaf = page_size == level_size(vm, 2) ? 2 : 3;
	uint64_t *pte;

	TEST_ASSERT(page_size == level_size(vm, 3) || page_size == level_size(vm, 2),
		    "arm64 guest mappings with %uK pages are %luK or %luM, not %lu",
		    vm->page_size >> 10, (unsigned long)(level_size(vm, 3) >> 10),
		    (unsigned long)(level_size(vm, 2) >> 20), (unsigned long)page_size);
	pte = pte_create(vm, vm->pgd, gva, leaf);
	TEST_ASSERT(!(*pte & PTE_VALID), "gva 0x%lx is already mapped", (unsigned long)gva);
	/* A level-2 block descriptor is a page descriptor without bit 1. */
	*pte = gpa | (leaf == 2 ? attrs & ~PTE_PAGE : attrs);
}

/* kvm_arch_flush_shadow_memslot unmaps the slot's stage-2 range alone. */
bool arch_memslot_change_unmaps_slot_only(void)
{
	return true;
}

uint64_t arch_virt_page_max(struct kvm_vm *vm)
{
	return vm->page_size == SZ_4K ? SZ_2M : vm->page_size;
}

void arch_virt_map_page(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size)
{
	map_one(vm, gva, gpa, page_size, PTE_NORMAL);
}

void arch_virt_install_pt(struct kvm_vm *vm, uint64_t root, uint64_t gva, uint64_t pt_gpa)
{
	uint64_t *l2;

	TEST_ASSERT(vm->page_size == SZ_4K, "guest-edited page tables need the 4K granule");
	TEST_ASSERT(IS_ALIGNED(gva, SZ_2M), "page table for gva 0x%lx: not 2M aligned",
		    (unsigned long)gva);
	l2 = pte_create(vm, root, gva, 2);
	TEST_ASSERT(!(*l2 & PTE_VALID), "gva 0x%lx already has a page table",
		    (unsigned long)gva);
	*l2 = pt_gpa | PTE_VALID | PTE_TABLE;
}

void arch_vcpu_set_root(struct kvm_vcpu *vcpu, uint64_t root)
{
	vcpu_set_reg(vcpu, SYS_TTBR0_EL1, root);
}

uint64_t arch_gva2gpa(struct kvm_vm *vm, uint64_t gva)
{
	uint64_t table = vm->pgd, pte;

	if (gva >> VA_BITS)
		return -1ULL;
	for (int level = start_level(vm); level <= 3; level++) {
		uint64_t size = level_size(vm, level);

		pte = *pte_hva(vm, table, pt_index(vm, gva, level));
		if (!(pte & PTE_VALID))
			return -1ULL;
		/* A page at level 3, or a block above it (4K: 1G, 2M; 64K: 512M). */
		if (level == 3 || !(pte & PTE_TABLE))
			return (pte & PTE_ADDR_MASK & ~(size - 1)) | (gva & (size - 1));
		table = pte & PTE_ADDR_MASK;
	}
	return -1ULL;
}

void arch_vm_init(struct kvm_vm *vm)
{
	/* The doorbell page: Device memory, outside every memslot. */
	map_one(vm, UCALL_MMIO_GVA, UCALL_MMIO_GPA, vm->page_size, PTE_DEVICE);
}

/* ---- vCPUs ---- */

static uint64_t tcr_el1(struct kvm_vm *vm)
{
	bool g64k = vm->page_size == SZ_64K;
	uint64_t ips = vm->pa_bits <= 40 ? TCR_IPS_40 :
		       vm->pa_bits <= 48 || !g64k ? TCR_IPS_48 : TCR_IPS_52;

	return TCR_EL1_BASE | ips | (g64k ? TCR_TG0_64K | TCR_TG1_64K : TCR_TG0_4K | TCR_TG1_4K);
}

void arch_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code)
{
	struct kvm_vm *vm = vcpu->vm;
	struct kvm_vcpu_init init;

	/* PREFERRED_TARGET says which CPU model this host's KVM emulates. */
	memset(&init, 0, sizeof(init));
	vm_ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init);
	init.features[0] |= 1U << KVM_ARM_VCPU_PSCI_0_2;
	vcpu_ioctl(vcpu, KVM_ARM_VCPU_INIT, &init);

	/* Stage 1 on before the first instruction: tables, attributes, caches. */
	vcpu_set_reg(vcpu, SYS_CPACR_EL1, CPACR_FPEN);
	vcpu_set_reg(vcpu, SYS_MAIR_EL1, MAIR_EL1_VALUE);
	vcpu_set_reg(vcpu, SYS_TCR_EL1, tcr_el1(vm));
	vcpu_set_reg(vcpu, SYS_TTBR0_EL1, vm->pgd);
	vcpu_set_reg(vcpu, SYS_VBAR_EL1, (uint64_t)(uintptr_t)arm64_guest_vectors);
	vcpu_set_reg(vcpu, SYS_SCTLR_EL1,
		     vcpu_get_reg(vcpu, SYS_SCTLR_EL1) | SCTLR_M | SCTLR_C | SCTLR_I);
	/* KVM resets these to a poison pattern: zero reads better in a failure report. */
	vcpu_set_reg(vcpu, SYS_ESR_EL1, 0);
	vcpu_set_reg(vcpu, SYS_FAR_EL1, 0);

	/*
	 * VCPU_INIT leaves the vCPU in EL1h (SP_EL1) with interrupts masked.
	 * Enter guest_code as if called: returning lands in guest_code_returned().
	 */
	vcpu_set_reg(vcpu, REG_SP_EL1, vcpu->stack_gva + VCPU_STACK_SIZE);
	vcpu_set_reg(vcpu, REG_X(30), (uint64_t)(uintptr_t)guest_code_returned);
	vcpu_set_reg(vcpu, REG_PC, (uint64_t)(uintptr_t)guest_code);
}

void arch_vcpu_args_set(struct kvm_vcpu *vcpu, int n, const uint64_t *args)
{
	for (int i = 0; i < n; i++)
		vcpu_set_reg(vcpu, REG_X(i), args[i]);
}

uint64_t arch_vcpu_pc(struct kvm_vcpu *vcpu)
{
	uint64_t pc;

	return try_get_reg(vcpu, REG_PC, &pc) < 0 ? -1ULL : pc;
}

/* Exception classes worth naming in a report (ESR_EL1.EC). */
static const char *esr_class(uint64_t esr)
{
	switch ((esr >> 26) & 0x3f) {
	case 0x00: return "unknown reason";
	case 0x01: return "WFI/WFE";
	case 0x07: return "FP/SIMD access";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x16: return "HVC";
	case 0x18: return "system register access";
	case 0x20: return "instruction abort (EL0)";
	case 0x21: return "instruction abort";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort (EL0)";
	case 0x25: return "data abort";
	case 0x26: return "SP alignment fault";
	case 0x3c: return "BRK";
	}
	return "other";
}

void arch_vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *in)
{
	static const struct {
		const char *name;
		uint64_t id;
	} sys[] = {
		{ "esr_el1", SYS_ESR_EL1 }, { "far_el1", SYS_FAR_EL1 },
		{ "elr_el1", REG_ELR_EL1 }, { "sctlr_el1", SYS_SCTLR_EL1 },
		{ "tcr_el1", SYS_TCR_EL1 }, { "ttbr0_el1", SYS_TTBR0_EL1 },
	};
	struct kvm_run *run = vcpu->run;
	uint64_t pc, sp, pstate, x[31], v[ARRAY_SIZE(sys)];

	if (try_get_reg(vcpu, REG_PC, &pc) < 0 || try_get_reg(vcpu, REG_SP_EL1, &sp) < 0 ||
	    try_get_reg(vcpu, REG_PSTATE, &pstate) < 0) {
		fprintf(f, "%s(registers unavailable: %s)\n", in, strerror(errno));
		return;
	}
	for (int i = 0; i < 31; i++)
		if (try_get_reg(vcpu, REG_X(i), &x[i]) < 0)
			x[i] = -1ULL;
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		if (try_get_reg(vcpu, sys[i].id, &v[i]) < 0)
			v[i] = -1ULL;

	/* The guest's exception vectors rang the doorbell: say which exception. */
	if (vcpu->last_exit_reason == KVM_EXIT_MMIO &&
	    run->mmio.phys_addr == UCALL_MMIO_GPA + UCALL_EXC_OFFSET) {
		uint64_t vec;

		memcpy(&vec, run->mmio.data, sizeof(vec));
		fprintf(f, "%sguest exception: vector 0x%lx, %s (ESR_EL1 0x%lx), FAR_EL1 0x%lx, "
			"ELR_EL1 0x%lx\n", in, (unsigned long)vec, esr_class(v[0]),
			(unsigned long)v[0], (unsigned long)v[1], (unsigned long)v[2]);
	}
	fprintf(f, "%spc 0x%016lx sp 0x%016lx pstate 0x%lx\n", in, (unsigned long)pc,
		(unsigned long)sp, (unsigned long)pstate);
	for (int i = 0; i < 31; i += 4) {
		fprintf(f, "%s", in);
		for (int j = i; j < i + 4 && j < 31; j++)
			fprintf(f, "%sx%-2d 0x%016lx", j > i ? " " : "", j, (unsigned long)x[j]);
		fputc('\n', f);
	}
	fprintf(f, "%s", in);
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		fprintf(f, "%s%s 0x%lx", i ? " " : "", sys[i].name, (unsigned long)v[i]);
	fputc('\n', f);
}
