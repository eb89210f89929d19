// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 guests: 4-level page tables, a GDT/IDT/TSS, and vCPU state that a
 * real VMX or SVM host accepts (not just this machine's lenient KVM).
 * Guest exceptions: lib/x86_64/exception.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "guest_modes.h"
#include "kvm_util.h"
#include "ucall.h"

/*
 * The GDT: code, data, then a 16-byte TSS descriptor per vCPU (selector
 * KERNEL_TSS + 16 * id), each vCPU's TSS holding its own IST1.
 */
#define GDT_SIZE (KERNEL_TSS + 16 * KMP_MAX_VCPUS)

static uint64_t *pte_hva(struct kvm_vm *vm, uint64_t table_gpa, int index)
{
	return (uint64_t *)addr_gpa2hva(vm, table_gpa) + index;
}

static int pt_index(uint64_t gva, int level)	/* level 4 = PML4 ... 1 = PT */
{
	return (gva >> (12 + 9 * (level - 1))) & 0x1ff;
}

/* 4-level paging with 4K base pages; the PA width is the host's. */
bool arch_guest_mode_supported(enum guest_mode m)
{
	return m == VM_MODE_PXXV48_4K;
}

enum guest_mode arch_guest_mode_default(void)
{
	return VM_MODE_PXXV48_4K;
}

void arch_vm_pgtable_init(struct kvm_vm *vm)
{
	vm->pa_bits = 52;
	vm->va_bits = 48;
	vm->pgd = vm_phy_pages_alloc(vm, 1);
}

uint64_t arch_page_table_pages(uint64_t pages)
{
	/* One PT per 512 pages, plus upper levels, plus slack for sparse layouts. */
	return pages / 512 + pages / (512 * 512) + 64;
}

uint64_t arch_guest_clock_hz(struct kvm_vcpu *vcpu)
{
	int khz = __vcpu_ioctl(vcpu, KVM_GET_TSC_KHZ, 0);
	struct timespec t0, t1;
	uint64_t c0, c1;

	if (khz > 0)
		return (uint64_t)khz * 1000;
	/* No KVM_GET_TSC_KHZ: the guest TSC ticks at the host's; measure that. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = rdtsc();
	usleep(50 * 1000);
	c1 = rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (c1 - c0) * 1000000000ULL /
	       ((t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec);
}

uint64_t arch_test_mem_gpa(struct kvm_vm *vm)
{
	/* 4 GiB: above slot 0 and the legacy holes; identity-mapped (gva == gpa). */
	return 1ULL << 32;
}

/* The entry for gva at level `leaf` under root, creating the tables above it. */
static uint64_t *pte_create(struct kvm_vm *vm, uint64_t root, uint64_t gva, int leaf)
{
	uint64_t table = root, *pte;

	TEST_ASSERT((gva >> 47) == 0, "gva 0x%lx is not a canonical lower-half address",
		    (unsigned long)gva);
	for (int level = 4; level > leaf; level--) {
		pte = pte_hva(vm, table, pt_index(gva, level));
		if (!(*pte & PTE_PRESENT))
			*pte = vm_phy_pages_alloc(vm, 1) | PTE_PRESENT | PTE_WRITABLE;
		TEST_ASSERT(!(*pte & PTE_LARGE), "gva 0x%lx is already inside a huge mapping",
			    (unsigned long)gva);
		table = *pte & PTE_ADDR_MASK;
	}
	return pte_hva(vm, table, pt_index(gva, leaf));
}

void arch_virt_map_page(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size)
{
	int leaf = page_size == SZ_2M ? 2 : 1;
	uint64_t *pte;

	TEST_ASSERT(page_size == SZ_4K || page_size == SZ_2M,
		    "x86_64 guest mappings are 4K or 2M, not %lu", (unsigned long)page_size);
	pte = pte_create(vm, vm->pgd, gva, leaf);
	TEST_ASSERT(!(*pte & PTE_PRESENT), "gva 0x%lx is already mapped", (unsigned long)gva);
	*pte = gpa | PTE_PRESENT | PTE_WRITABLE | (leaf == 2 ? PTE_LARGE : 0);
}

void arch_virt_install_pt(struct kvm_vm *vm, uint64_t root, uint64_t gva, uint64_t pt_gpa)
{
	uint64_t *pde;

	TEST_ASSERT(IS_ALIGNED(gva, SZ_2M), "page table for gva 0x%lx: not 2M aligned",
		    (unsigned long)gva);
	pde = pte_create(vm, root, gva, 2);
	TEST_ASSERT(!(*pde & PTE_PRESENT), "gva 0x%lx already has a page table",
		    (unsigned long)gva);
	*pde = pt_gpa | PTE_PRESENT | PTE_WRITABLE;
}

void arch_vcpu_set_root(struct kvm_vcpu *vcpu, uint64_t root)
{
	struct kvm_sregs sregs;

	vcpu_sregs_get(vcpu, &sregs);
	sregs.cr3 = root;
	vcpu_sregs_set(vcpu, &sregs);
}

uint64_t arch_gva2gpa(struct kvm_vm *vm, uint64_t gva)
{
	uint64_t table = vm->pgd, pte;

	if (gva >> 47)
		return -1ULL;
	for (int level = 4; level >= 1; level--) {
		pte = *pte_hva(vm, table, pt_index(gva, level));
		if (!(pte & PTE_PRESENT))
			return -1ULL;
		if (level == 2 && (pte & PTE_LARGE))
			return (pte & PTE_ADDR_MASK & ~(SZ_2M - 1)) | (gva & (SZ_2M - 1));
		table = pte & PTE_ADDR_MASK;
	}
	return table | (gva & 0xfff);
}

/* ---- descriptors ---- */

static void gdt_set(struct kvm_vm *vm, const struct kvm_segment *s)
{
	uint64_t *gdt = addr_gva2hva(vm, vm->arch.gdt);
	uint64_t d, limit = s->limit, base = s->base;

	/* A granular segment's limit is stored in 4K units. */
	if (s->g)
		limit >>= 12;
	d = (limit & 0xffff) | ((base & 0xffffff) << 16) | ((uint64_t)s->type << 40) |
	    ((uint64_t)s->s << 44) | ((uint64_t)s->dpl << 45) | ((uint64_t)s->present << 47) |
	    (((limit >> 16) & 0xf) << 48) | ((uint64_t)s->avl << 52) | ((uint64_t)s->l << 53) |
	    ((uint64_t)s->db << 54) | ((uint64_t)s->g << 55) | (((base >> 24) & 0xff) << 56);
	gdt[s->selector >> 3] = d;
	/* System descriptors (the TSS) take two slots in long mode. */
	if (!s->s)
		gdt[(s->selector >> 3) + 1] = base >> 32;
}

static struct kvm_segment seg_code64(void)
{
	return (struct kvm_segment){
		.selector = KERNEL_CS, .limit = 0xffffffff, .type = 0xb, /* exec/read, accessed */
		.present = 1, .s = 1, .l = 1, .g = 1,
	};
}

static struct kvm_segment seg_data64(void)
{
	return (struct kvm_segment){
		.selector = KERNEL_DS, .limit = 0xffffffff, .type = 0x3, /* read/write, accessed */
		.present = 1, .s = 1, .db = 1, .g = 1,
	};
}

static struct kvm_segment seg_tss64(struct kvm_vcpu *vcpu, uint64_t base)
{
	return (struct kvm_segment){
		.selector = KERNEL_TSS + 16 * vcpu->id, .base = base,
		.limit = sizeof(struct x86_tss) - 1,
		.type = 0xb, /* busy 64-bit TSS, as VMX requires of TR */
		.present = 1,
	};
}

void arch_vm_init(struct kvm_vm *vm)
{
	struct kvm_segment cs = seg_code64(), ds = seg_data64();

	vm->arch.gdt = vm_vaddr_alloc(vm, GDT_SIZE);
	vm->arch.idt = vm_vaddr_alloc(vm, vm->page_size);
	gdt_set(vm, &cs);
	gdt_set(vm, &ds);
	/*
	 * Exceptions 0-31 reach stubs that report them to the host; anything
	 * else (another vector, a fault while reporting) still ends in a triple
	 * fault, a SHUTDOWN exit.
	 */
	x86_idt_init(vm);
}

/* ---- vCPUs ---- */

static void vcpu_set_cpuid(struct kvm_vcpu *vcpu)
{
	int nent = 64;
	struct kvm_cpuid2 *cpuid;

	/* KVM_GET_SUPPORTED_CPUID says E2BIG until the buffer is big enough. */
	for (;;) {
		cpuid = calloc(1, sizeof(*cpuid) + nent * sizeof(cpuid->entries[0]));
		TEST_ASSERT(cpuid, "out of memory");
		cpuid->nent = nent;
		if (ioctl(vcpu->vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) == 0)
			break;
		TEST_ASSERT(errno == E2BIG, "KVM_GET_SUPPORTED_CPUID failed: %s", strerror(errno));
		free(cpuid);
		nent *= 2;
	}
	errno = 0;	/* a failure report names errno: not this loop's E2BIG */
	vcpu_ioctl(vcpu, KVM_SET_CPUID2, cpuid);
	free(cpuid);
}

void arch_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t stack_top = vcpu->stack_gva + VCPU_STACK_SIZE;
	struct kvm_segment tr;
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	TEST_ASSERT(vcpu->id < KMP_MAX_VCPUS, "x86_64: vCPU id %u has no TSS descriptor "
		    "(ids below %u)", vcpu->id, KMP_MAX_VCPUS);
	vcpu_set_cpuid(vcpu);
	tr = seg_tss64(vcpu, x86_vcpu_tss_init(vcpu));
	gdt_set(vm, &tr);

	vcpu_sregs_get(vcpu, &sregs);
	sregs.cr0 = X86_CR0_PE | X86_CR0_MP | X86_CR0_ET | X86_CR0_NE | X86_CR0_WP | X86_CR0_PG;
	sregs.cr4 = X86_CR4_PAE | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;
	sregs.efer = EFER_LME | EFER_LMA | EFER_NX;
	sregs.cr3 = vm->pgd;
	sregs.cs = seg_code64();
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = seg_data64();
	sregs.tr = tr;
	memset(&sregs.ldt, 0, sizeof(sregs.ldt));
	sregs.ldt.unusable = 1;
	sregs.gdt.base = vm->arch.gdt;
	sregs.gdt.limit = GDT_SIZE - 1;
	sregs.idt.base = vm->arch.idt;
	sregs.idt.limit = 256 * 16 - 1;
	vcpu_sregs_set(vcpu, &sregs);

	/*
	 * Enter guest_code as if called: RSP+8 is 16-byte aligned and the
	 * return address is guest_code_returned(), which reports the mistake.
	 */
	*(uint64_t *)addr_gva2hva(vm, stack_top - 8) = (uint64_t)(uintptr_t)guest_code_returned;
	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;	/* bit 1 is reserved and must be set */
	regs.rip = (uint64_t)(uintptr_t)guest_code;
	regs.rsp = stack_top - 8;
	vcpu_regs_set(vcpu, &regs);
}

void arch_vcpu_args_set(struct kvm_vcpu *vcpu, int n, const uint64_t *args)
{
	struct kvm_regs regs;

	vcpu_regs_get(vcpu, &regs);
	if (n > 0) regs.rdi = args[0];
	if (n > 1) regs.rsi = args[1];
	if (n > 2) regs.rdx = args[2];
	if (n > 3) regs.rcx = args[3];
	if (n > 4) regs.r8 = args[4];
	if (n > 5) regs.r9 = args[5];
	vcpu_regs_set(vcpu, &regs);
}

uint64_t arch_vcpu_pc(struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs;

	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &regs) < 0)
		return -1ULL;
	return regs.rip;
}

void arch_vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *in)
{
	struct kvm_sregs s;
	struct kvm_regs r;
	char exc[256];

	/* One of the guest's exception stubs exited: say which exception. */
	if (arch_vcpu_exception(vcpu, exc, sizeof(exc)))
		fprintf(f, "%s%s\n", in, exc);
	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &r) < 0 || __vcpu_ioctl(vcpu, KVM_GET_SREGS, &s) < 0) {
		fprintf(f, "%s(registers unavailable: %s)\n", in, strerror(errno));
		return;
	}
	fprintf(f, "%srip 0x%016llx rsp 0x%016llx rflags 0x%llx\n", in, r.rip, r.rsp, r.rflags);
	fprintf(f, "%srax 0x%016llx rbx 0x%016llx rcx 0x%016llx rdx 0x%016llx\n",
		in, r.rax, r.rbx, r.rcx, r.rdx);
	fprintf(f, "%srsi 0x%016llx rdi 0x%016llx rbp 0x%016llx r8  0x%016llx\n",
		in, r.rsi, r.rdi, r.rbp, r.r8);
	fprintf(f, "%sr9  0x%016llx r10 0x%016llx r11 0x%016llx r12 0x%016llx\n",
		in, r.r9, r.r10, r.r11, r.r12);
	fprintf(f, "%sr13 0x%016llx r14 0x%016llx r15 0x%016llx\n", in, r.r13, r.r14, r.r15);
	fprintf(f, "%scr0 0x%llx cr2 0x%llx cr3 0x%llx cr4 0x%llx efer 0x%llx\n",
		in, s.cr0, s.cr2, s.cr3, s.cr4, s.efer);
}
