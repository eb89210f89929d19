/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64: long-mode guest definitions shared by host and guest code. */
#ifndef KMP_X86_PROCESSOR_H
#define KMP_X86_PROCESSOR_H

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
#define KERNEL_TSS 0x18

/* The port guest ucalls write to; the ucall struct's gva is in RDI. */
#define UCALL_PIO_PORT 0x1000

/* Register names in failure reports (tests look for "<ARCH_PC_NAME> 0x"). */
#define ARCH_PC_NAME "rip"

struct vm_arch {
	uint64_t gdt, idt, tss;		/* gva of one page each */
};

struct vcpu_arch {
	int unused;
};

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

#endif
