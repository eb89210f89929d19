// SPDX-License-Identifier: GPL-2.0
/*
 * powerpc guests: HV KVM, little endian, translation on from the first
 * instruction (see include/powerpc/processor.h for the layout).  The test
 * binary runs at its host link address.  Two guest modes: HPT (the default,
 * the host's HPTEs map it) and, where the host offers it, radix (host-built
 * process-scoped tables, lib/powerpc/radix.c).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "guest_modes.h"
#include "hpt.h"
#include "kvm_util.h"
#include "radix.h"

/* lib/powerpc/vectors.S */
extern const char ppc_guest_vectors[], ppc_guest_vectors_end[];
extern char ppc_guest_return[];

/* ---- registers ---- */

static int try_get_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t *val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)val };

	*val = 0;	/* 32-bit registers fill the low half */
	return __vcpu_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
}

static uint64_t vcpu_get_reg(struct kvm_vcpu *vcpu, uint64_t id)
{
	uint64_t val = 0;
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&val };

	vcpu_ioctl(vcpu, KVM_GET_ONE_REG, &reg);
	return val;
}

static void vcpu_set_reg(struct kvm_vcpu *vcpu, uint64_t id, uint64_t val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)(uintptr_t)&val };

	vcpu_ioctl(vcpu, KVM_SET_ONE_REG, &reg);
}

/* SLB entry `index` (also its slot): a 1T segment at ea with this VSID, kernel keys 0. */
static void vcpu_set_slb(struct kvm_vcpu *vcpu, int index, uint64_t ea, uint64_t vsid)
{
	struct kvm_sregs sregs;

	vcpu_sregs_get(vcpu, &sregs);
	sregs.u.s.ppc64.slb[index].slbe = (ea & ~(PPC_SEG_SIZE - 1)) | SLB_ESID_V | index;
	sregs.u.s.ppc64.slb[index].slbv = (vsid << SLB_VSID_SHIFT_1T) | SLB_VSID_B_1T;
	vcpu_sregs_set(vcpu, &sregs);
}

/* ---- guest modes ---- */

/*
 * 4K pages.  P40V48_4K is an HPT guest: the library's gvas and gpas live
 * below 1 TiB (segment 0).  P52V48_4K is a radix guest (POWER9's 52-bit
 * real addresses, a 52-bit effective-address tree), where the host runs
 * radix itself and KVM says so.
 */
#define PPC_MODE_HPT VM_MODE_P40V48_4K
#define PPC_MODE_RADIX VM_MODE_P52V48_4K

static bool host_offers_radix(void)
{
	return kvm_check_cap(KVM_CAP_PPC_MMU_RADIX) > 0;
}

bool arch_guest_mode_supported(enum guest_mode m)
{
	return m == PPC_MODE_HPT || (m == PPC_MODE_RADIX && host_offers_radix());
}

const char *arch_guest_mode_unsupported_reason(enum guest_mode m)
{
	if (m == PPC_MODE_RADIX && !host_offers_radix())
		return "the host does not offer radix guests (KVM_CAP_PPC_MMU_RADIX)";
	return NULL;
}

enum guest_mode arch_guest_mode_default(void)
{
	return VM_MODE_P40V48_4K;
}

/* ---- guest memory ---- */

void arch_vm_pgtable_init(struct kvm_vm *vm)
{
	uint64_t vectors = vm_phy_pages_alloc(vm, 1);

	vm->pa_bits = PPC_SEG_SHIFT;
	vm->va_bits = PPC_SEG_SHIFT;
	/* Page 0 is never handed out; page 1 holds the rest of the exception vectors. */
	TEST_ASSERT(vectors == 0x1000 && PPC_VECTORS_LIMIT <= 0x2000,
		    "guest exception vectors: slot 0 pages 0-1 expected, got gpa 0x%lx",
		    (unsigned long)vectors);
	vm->arch.radix = vm->mode == PPC_MODE_RADIX;
	if (vm->arch.radix) {
		vm->pa_bits = guest_mode_pa_bits(vm->mode);
		vm->va_bits = RADIX_EA_BITS;
		radix_init(vm);
	} else {
		hpt_init(vm);
	}
}

uint64_t arch_page_table_pages(uint64_t pages)
{
	/*
	 * An HPT guest needs none (the HPT lives in host kernel memory); a
	 * radix guest's tables are in slot 0: one last-level table per 512
	 * pages, the levels above, the 64K root and its alignment, and slack.
	 * Slot 0 is lazily populated, so the HPT guest's share costs nothing.
	 */
	return pages / 512 + pages / (512 * 512) + 64;
}

uint64_t arch_guest_clock_hz(struct kvm_vcpu *vcpu)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	unsigned long hz = 0;
	char line[256];

	TEST_ASSERT(f, "open /proc/cpuinfo: %s", strerror(errno));
	/* The guest's timebase ticks at the host's ("timebase : 512000000"). */
	while (!hz && fgets(line, sizeof(line), f))
		if (sscanf(line, "timebase : %lu", &hz) != 1)
			hz = 0;
	fclose(f);
	TEST_ASSERT(hz, "/proc/cpuinfo has no \"timebase\" line: the timebase rate is unknown");
	return hz;
}

uint64_t arch_test_mem_gpa(struct kvm_vm *vm)
{
	/* 4 GiB: above slot 0, inside segment 0 (gva == gpa). */
	return 1ULL << 32;
}

uint64_t arch_virt_page_max(struct kvm_vm *vm)
{
	return SZ_4K;
}

void arch_virt_map_page(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size)
{
	TEST_ASSERT(page_size == SZ_4K,
		    "powerpc guest mappings are 4K HPT pages, not %lu", (unsigned long)page_size);
	/*
	 * The library's own pages (slot 0: binary, stacks, per-vCPU data) are
	 * populated first, so KVM enters their HPTEs valid rather than absent:
	 * QEMU's POWER9/10 models cannot resolve a hash fault on an absent
	 * HPTE with translation on (no ASDR).  Test memory stays as the test
	 * left it (demand paging must see its faults).
	 */
	if (gpa < vm_mem_region(vm, SYS_SLOT)->kr.memory_size)
		__atomic_fetch_or((uint8_t *)addr_gpa2hva(vm, gpa), 0, __ATOMIC_RELAXED);
	if (vm->arch.radix)
		radix_map(vm, gva, gpa);
	else
		hpt_map(vm, gva, gpa);
}

uint64_t arch_gva2gpa(struct kvm_vm *vm, uint64_t gva)
{
	return vm->arch.radix ? radix_lookup(vm, gva) : hpt_lookup(vm, gva);
}

/*
 * The HPT is shared by the whole VM; an "address space" is a segment: a
 * root is a fresh VSID for the user segment (PPC_USER_SEG_EA), whose HPTEs
 * the guest enters itself, and a vCPU switches to it through its SLB.
 */
uint64_t arch_vm_new_root(struct kvm_vm *vm)
{
	TEST_ASSERT(!vm->arch.radix, "powerpc: address spaces (roots) are HPT segments; "
		    "this test runs HPT guests only (guest mode %d)", PPC_MODE_HPT);
	return PPC_ROOT_VSID + vm->arch.next_vsid++;
}

void arch_virt_install_pt(struct kvm_vm *vm, uint64_t root, uint64_t gva, uint64_t pt_gpa)
{
	TEST_FAIL("powerpc: an HPT guest has no per-range page tables to install (gva 0x%lx); "
		  "its tests enter HPTEs with H_ENTER", (unsigned long)gva);
}

void arch_vcpu_set_root(struct kvm_vcpu *vcpu, uint64_t root)
{
	vcpu_set_slb(vcpu, 1, PPC_USER_SEG_EA, root);
}

void arch_vm_init(struct kvm_vm *vm)
{
	size_t len = (uintptr_t)ppc_guest_vectors_end - (uintptr_t)ppc_guest_vectors;

	TEST_ASSERT(len > PPC_VECTORS_END - PPC_VECTORS_START &&
		    len <= PPC_VECTORS_LIMIT - PPC_VECTORS_START,
		    "lib/powerpc/vectors.S: %zu bytes of vectors", len);
	memcpy(addr_gpa2hva(vm, PPC_VECTORS_START), ppc_guest_vectors, len);
	if (!vm->arch.radix)
		hpt_publish(vm);
}

void arch_vm_free(struct kvm_vm *vm)
{
	hpt_free(vm);
}

/* ---- vCPUs ---- */

void arch_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code)
{
	struct kvm_enable_cap papr = { .cap = KVM_CAP_PPC_PAPR };
	uint64_t sp = vcpu->stack_gva + VCPU_STACK_SIZE - 128, toc;
	struct kvm_regs regs;

	/*
	 * sc 1 is an hcall; little-endian interrupts; segment 0 for the
	 * library (HPT), or PIDR 0 (its reset value: process table entry 0) for
	 * a radix guest.
	 */
	vcpu_ioctl(vcpu, KVM_ENABLE_CAP, &papr);
	vcpu_set_reg(vcpu, KVM_REG_PPC_LPCR_64, vcpu_get_reg(vcpu, KVM_REG_PPC_LPCR_64) | LPCR_ILE);
	if (!vcpu->vm->arch.radix)
		vcpu_set_slb(vcpu, 0, 0, PPC_LIB_VSID);

	/*
	 * Enter guest_code as if called (ELFv2): r12 = its address for its
	 * global entry point, r2 = the TOC (this binary's, as in the host), a
	 * stack frame with a null back chain, and a return into
	 * guest_code_returned() through a trampoline that sets r12 too.  MSR:
	 * 64-bit, little endian, translation on, FP/VMX/VSX usable (compiled
	 * C may touch them), external interrupts off.
	 */
	__asm__("mr %0, 2" : "=r"(toc));
	memset(&regs, 0, sizeof(regs));
	regs.pc = (uint64_t)(uintptr_t)guest_code;
	regs.msr = MSR_SF | MSR_VEC | MSR_VSX | MSR_FP | MSR_ME | MSR_IR | MSR_DR | MSR_RI | MSR_LE;
	regs.lr = (uint64_t)(uintptr_t)ppc_guest_return;
	regs.gpr[1] = sp;
	regs.gpr[2] = toc;
	regs.gpr[12] = regs.pc;
	vcpu_regs_set(vcpu, &regs);
}

void arch_vcpu_args_set(struct kvm_vcpu *vcpu, int n, const uint64_t *args)
{
	struct kvm_regs regs;

	vcpu_regs_get(vcpu, &regs);
	for (int i = 0; i < n; i++)
		regs.gpr[3 + i] = args[i];
	vcpu_regs_set(vcpu, &regs);
}

uint64_t arch_vcpu_pc(struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs;

	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &regs) < 0)
		return -1ULL;
	return regs.pc;
}

static const char *vector_name(uint64_t vec)
{
	switch (vec) {
	case 0x100: return "system reset";
	case 0x200: return "machine check";
	case 0x300: return "data storage";
	case 0x380: return "data segment";
	case 0x400: return "instruction storage";
	case 0x480: return "instruction segment";
	case 0x500: return "external";
	case 0x600: return "alignment";
	case 0x700: return "program";
	case 0x800: return "FP unavailable";
	case 0x900: return "decrementer";
	case 0xc00: return "system call";
	case 0xd00: return "trace";
	case 0xf00: return "performance monitor";
	case 0xf20: return "VMX unavailable";
	case 0xf40: return "VSX unavailable";
	case 0xf60: return "facility unavailable";
	}
	return "other";
}

void arch_vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *in)
{
	struct kvm_run *run = vcpu->run;
	unsigned long g[32], dar, dsisr;
	struct kvm_regs r;
	uint64_t v;

	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &r) < 0) {
		fprintf(f, "%s(registers unavailable: %s)\n", in, strerror(errno));
		return;
	}
	dar = try_get_reg(vcpu, KVM_REG_PPC_DAR, &v) < 0 ? -1UL : v;
	dsisr = try_get_reg(vcpu, KVM_REG_PPC_DSISR, &v) < 0 ? -1UL : v;
	if (vcpu->last_exit_reason == KVM_EXIT_PAPR_HCALL) {
		unsigned long nr = run->papr_hcall.nr, a0 = run->papr_hcall.args[0];

		if (nr == KMP_H_EXCEPTION)	/* vectors.S: r3-r6 went to SPRG0-3 */
			fprintf(f, "%sguest exception: vector 0x%lx, %s, srr0 0x%lx srr1 0x%lx "
				"dar 0x%lx dsisr 0x%lx (before it: r3 0x%lx r4 0x%lx r5 0x%lx "
				"r6 0x%lx)\n", in, a0, vector_name(a0),
				(unsigned long)run->papr_hcall.args[1],
				(unsigned long)run->papr_hcall.args[2], dar, dsisr,
				(unsigned long)r.sprg0, (unsigned long)r.sprg1,
				(unsigned long)r.sprg2, (unsigned long)r.sprg3);
		else
			fprintf(f, "%shcall 0x%lx args 0x%lx 0x%lx 0x%lx 0x%lx\n", in, nr, a0,
				(unsigned long)run->papr_hcall.args[1],
				(unsigned long)run->papr_hcall.args[2],
				(unsigned long)run->papr_hcall.args[3]);
	}
	fprintf(f, "%spc 0x%016lx msr 0x%016lx lr 0x%016lx ctr 0x%lx\n", in,
		(unsigned long)r.pc, (unsigned long)r.msr, (unsigned long)r.lr,
		(unsigned long)r.ctr);
	fprintf(f, "%scr 0x%lx xer 0x%lx srr0 0x%lx srr1 0x%lx dar 0x%lx dsisr 0x%lx\n", in,
		(unsigned long)r.cr, (unsigned long)r.xer, (unsigned long)r.srr0,
		(unsigned long)r.srr1, dar, dsisr);
	for (int i = 0; i < 32; i++)
		g[i] = r.gpr[i];
	for (int i = 0; i < 32; i += 4)
		fprintf(f, "%sr%-2d 0x%016lx r%-2d 0x%016lx r%-2d 0x%016lx r%-2d 0x%016lx\n", in,
			i, g[i], i + 1, g[i + 1], i + 2, g[i + 2], i + 3, g[i + 3]);
}
