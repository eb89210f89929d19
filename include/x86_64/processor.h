/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64: long-mode guest definitions shared by host and guest code. */
#ifndef KMP_X86_PROCESSOR_H
#define KMP_X86_PROCESSOR_H

/*
 * Guest exceptions (lib/x86_64/idt_handlers.S): vectors 0-31 have a stub
 * each, X86_IDT_STUB_SIZE bytes apart, that reports with an OUT to
 * X86_EXC_PIO_PORT (below 0x100: OUT's immediate form needs no register).
 * The CPU pushes an error code for the vectors in X86_EXC_ERROR_CODE_MASK
 * (8, 10-14, 17, 21, 29, 30).  (No ULL: the stubs use these.)
 */
#define X86_NR_EXCEPTIONS 32
#define X86_IDT_STUB_SIZE 16
#define X86_EXC_PIO_PORT 0xe8
#define X86_EXC_ERROR_CODE_MASK 0x60227d00

#ifndef __ASSEMBLER__
#include <stdint.h>

#define X86_CR0_PE (1ULL << 0)
#define X86_CR0_MP (1ULL << 1)
#define X86_CR0_ET (1ULL << 4)
#define X86_CR0_NE (1ULL << 5)
#define X86_CR0_WP (1ULL << 16)
#define X86_CR0_PG (1ULL << 31)
#define X86_CR4_PAE (1ULL << 5)
#define X86_CR4_PGE (1ULL << 7)
#define X86_CR4_OSFXSR (1ULL << 9)
#define X86_CR4_OSXMMEXCPT (1ULL << 10)
#define EFER_SCE (1ULL << 0)
#define EFER_LME (1ULL << 8)
#define EFER_LMA (1ULL << 10)
#define EFER_NX (1ULL << 11)

/* Page-table entry bits. */
#define PTE_PRESENT (1ULL << 0)
#define PTE_WRITABLE (1ULL << 1)
#define PTE_USER (1ULL << 2)
#define PTE_ACCESSED (1ULL << 5)
#define PTE_DIRTY (1ULL << 6)
#define PTE_LARGE (1ULL << 7)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ULL

/* GDT selectors. */
#define KERNEL_CS 0x8
#define KERNEL_DS 0x10
#define KERNEL_TSS 0x18	/* vCPU 0's; vCPU n has KERNEL_TSS + 16 * n */

/* The port guest ucalls write to; the ucall struct's gva is in RDI. */
#define UCALL_PIO_PORT 0x1000

/* Register names in failure reports (tests look for "<ARCH_PC_NAME> 0x"). */
#define ARCH_PC_NAME "rip"

struct vm_arch {
	uint64_t gdt, idt;		/* gva: the GDT (a TSS descriptor per vCPU), the IDT */
};

struct vcpu_arch {
	uint64_t exc_page;		/* gva: the vCPU's own TSS, and IST1's stack above it */
};

/*
 * What the exception stubs leave at the top of IST1's stack, lowest address
 * first: CR2 and the vector (pushed by the stub), the error code (by the
 * CPU, or 0 by the stub), then the CPU's interrupt frame.
 */
struct x86_exception_frame {
	uint64_t cr2, vector, error_code, rip, cs, rflags, rsp, ss;
};

/* The 64-bit TSS, as the CPU reads it (its limit is sizeof - 1). */
struct x86_tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

/* ---- guest helpers ---- */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The guest's clock for progress stamps: the TSC (KVM_GET_TSC_KHZ gives its rate). */
static inline uint64_t guest_clock(void)
{
	return rdtsc();
}

static inline uint64_t get_cr3(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void set_cr3(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr3" ::"r"(v) : "memory");
}

static inline void invlpg(uint64_t gva)
{
	__asm__ __volatile__("invlpg (%0)" ::"r"(gva) : "memory");
}

/* ---- host side (lib/x86_64/exception.c) ---- */
struct kvm_vm;
struct kvm_vcpu;

/* Fill the VM's IDT: vectors 0-31 through IST1 to their stubs. */
void x86_idt_init(struct kvm_vm *vm);
/* The vCPU's TSS (TR's base) with IST1 set; returns its gva. */
uint64_t x86_vcpu_tss_init(struct kvm_vcpu *vcpu);

#endif /* !__ASSEMBLER__ */
#endif
