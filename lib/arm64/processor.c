// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 guests: a vCPU at EL1 whose stage-1 MMU is already on at the first
 * KVM_RUN (4K granule, 48-bit VA, 4 levels through TTBR0), so the test
 * binary runs at its host link address as on x86_64.  RAM is Normal
 * write-back; the ucall doorbell page is Device memory.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>

#include "guest_modes.h"
#include "kvm_util.h"
#include "ucall.h"

/* System registers, as ARM64_SYS_REG(op0, op1, CRn, CRm, op2). */
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
 * TCR_EL1: T0SZ 16 (48-bit VA), walks Normal WB inner shareable, TG0 4K,
 * TTBR1 walks off (EPD1; TG1 4K to avoid the reserved encoding), IPS 40 bits.
 */
#define TCR_T0SZ(x) ((uint64_t)(x) << 0)
#define TCR_IRGN0_WBWA (1ULL << 8)
#define TCR_ORGN0_WBWA (1ULL << 10)
#define TCR_SH0_INNER (3ULL << 12)
#define TCR_TG0_4K (0ULL << 14)
#define TCR_EPD1 (1ULL << 23)
#define TCR_TG1_4K (2ULL << 30)
#define TCR_IPS_40 (2ULL << 32)
#define TCR_EL1_VALUE (TCR_T0SZ(16) | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | \
		       TCR_TG0_4K | TCR_EPD1 | TCR_TG1_4K | TCR_IPS_40)

#define VA_BITS 48
#define IPA_BITS 40			/* VM type 0 */

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

	return ioctl(vcpu->fd, KVM_GET_ONE_REG, &reg);
}

/* ---- guest modes ---- */

/* 4K pages, 48-bit VA; the default VM type gives a 40-bit IPA. */
bool arch_guest_mode_supported(enum guest_mode m)
{
	return m == VM_MODE_P40V48_4K;
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

static int pt_index(uint64_t gva, int level)	/* level 0 (512G) ... 3 (4K) */
{
	return (gva >> (39 - 9 * level)) & 0x1ff;
}

void arch_vm_pgtable_init(struct kvm_vm *vm)
{
	vm->pa_bits = IPA_BITS;
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
	for (int level = 0; level < leaf; level++) {
		pte = pte_hva(vm, table, pt_index(gva, level));
		if (!(*pte & PTE_VALID))
			*pte = vm_phy_pages_alloc(vm, 1) | PTE_VALID | PTE_TABLE;
		TEST_ASSERT(*pte & PTE_TABLE, "gva 0x%lx is already inside a block mapping",
			    (unsigned long)gva);
		table = *pte & PTE_ADDR_MASK;
	}
	return pte_hva(vm, table, pt_index(gva, leaf));
}

static void map_one(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size,
		    uint64_t attrs)
{
	int leaf = page_size == SZ_2M ? 2 : 3;
	uint64_t *pte;

	TEST_ASSERT(page_size == SZ_4K || page_size == SZ_2M,
		    "arm64 guest mappings are 4K or 2M, not %lu", (unsigned long)page_size);
	pte = pte_create(vm, vm->pgd, gva, leaf);
	TEST_ASSERT(!(*pte & PTE_VALID), "gva 0x%lx is already mapped", (unsigned long)gva);
	/* A 2M block descriptor is a page descriptor without bit 1. */
	*pte = gpa | (leaf == 2 ? attrs & ~PTE_PAGE : attrs);
}

void arch_virt_map_page(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size)
{
	map_one(vm, gva, gpa, page_size, PTE_NORMAL);
}

uint64_t arch_vm_new_root(struct kvm_vm *vm)
{
	uint64_t root = vm_phy_pages_alloc(vm, 1);

	/* Share everything mapped so far (code, data, stacks) with the VM's root. */
	memcpy(addr_gpa2hva(vm, root), addr_gpa2hva(vm, vm->pgd), vm->page_size);
	return root;
}

void arch_virt_install_pt(struct kvm_vm *vm, uint64_t root, uint64_t gva, uint64_t pt_gpa)
{
	uint64_t *l2;

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
	for (int level = 0; level <= 3; level++) {
		pte = *pte_hva(vm, table, pt_index(gva, level));
		if (!(pte & PTE_VALID))
			return -1ULL;
		if (level == 3)
			break;
		if (!(pte & PTE_TABLE)) {	/* block: 1G at L1, 2M at L2 */
			uint64_t size = 1ULL << (39 - 9 * level);

			return (pte & PTE_ADDR_MASK & ~(size - 1)) | (gva & (size - 1));
		}
		table = pte & PTE_ADDR_MASK;
	}
	return (pte & PTE_ADDR_MASK) | (gva & 0xfff);
}

void arch_vm_init(struct kvm_vm *vm)
{
	/* The doorbell page: Device memory, outside every memslot. */
	map_one(vm, UCALL_MMIO_GVA, UCALL_MMIO_GPA, SZ_4K, PTE_DEVICE);
}

/* ---- vCPUs ---- */

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
	vcpu_set_reg(vcpu, SYS_TCR_EL1, TCR_EL1_VALUE);
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
