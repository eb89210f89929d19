/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: EL1 guest definitions shared by host and guest code.  The guest
 * runs with stage-1 translation on (48-bit VA through TTBR0 only; 4K
 * granule, 4 levels, or 64K, 3 levels, as the guest mode says), tables
 * built by the host before the first KVM_RUN.
 */
#ifndef KMP_ARM64_PROCESSOR_H
#define KMP_ARM64_PROCESSOR_H

/*
 * The ucall doorbell: the last 64K of the default VM type's 40-bit IPA
 * space (a whole page with either granule), which no memslot covers, seen
 * by the guest as Device memory at UCALL_MMIO_GVA (in TTBR0's first 512G,
 * so that tlbie_bench's private roots keep L0 entry 1 to themselves).  The guest stores the ucall struct's gva
 * at offset 0; its exception vectors store the vector offset at
 * UCALL_EXC_OFFSET.  (No ULL: lib/arm64/vectors.S uses them.)
 */
#define UCALL_MMIO_GPA 0xffffff0000
#define UCALL_MMIO_GVA 0x7fff000000
#define UCALL_EXC_OFFSET 8

#ifndef __ASSEMBLER__
#include <stdint.h>

/* Stage-1 descriptor bits (VMSAv8-64, 4K or 64K granule). */
#define PTE_VALID (1ULL << 0)
#define PTE_TABLE (1ULL << 1)		/* L0-L2: next-level table; L3: page */
#define PTE_PAGE (1ULL << 1)
#define PTE_ATTRINDX(i) ((uint64_t)(i) << 2)
#define PTE_AP_RO (1ULL << 7)		/* AP[2]: read-only (EL1) */
#define PTE_SH_INNER (3ULL << 8)
#define PTE_AF (1ULL << 10)		/* access flag: set, or the first access faults */
#define PTE_PXN (1ULL << 53)
#define PTE_UXN (1ULL << 54)
#define PTE_ADDR_MASK 0x0000fffffffff000ULL

/* MAIR_EL1 slots: 0 Device-nGnRnE (the ucall page), 1 Normal write-back (RAM). */
#define MAIR_IDX_DEVICE 0
#define MAIR_IDX_NORMAL 1
#define MAIR_EL1_VALUE ((0x00ULL << (8 * MAIR_IDX_DEVICE)) | (0xffULL << (8 * MAIR_IDX_NORMAL)))

/* Leaf entries the guest library writes: RAM (read-write) and device memory. */
#define PTE_NORMAL (PTE_VALID | PTE_PAGE | PTE_ATTRINDX(MAIR_IDX_NORMAL) | PTE_SH_INNER | PTE_AF)
#define PTE_DEVICE (PTE_VALID | PTE_PAGE | PTE_ATTRINDX(MAIR_IDX_DEVICE) | PTE_AF | \
		    PTE_PXN | PTE_UXN)

/* Register names in failure reports (tests look for "<ARCH_PC_NAME> 0x"). */
#define ARCH_PC_NAME "pc"

struct vm_arch {
	int unused;
};

struct vcpu_arch {
	int unused;
};

/* ---- guest helpers ---- */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

/* The virtual counter: CNTFRQ_EL0 gives its rate, readable at EL1 without traps. */
static inline uint64_t guest_clock(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

/* Make page-table stores visible to the table walker before invalidating. */
static inline void pte_store_barrier(void)
{
	__asm__ __volatile__("dsb ishst" ::: "memory");
}

/* Invalidate one last-level VA (ASID 0, all vCPUs: inner shareable), and wait. */
static inline void tlbi_page(uint64_t gva)
{
	__asm__ __volatile__("dsb ishst\n\t"
			     "tlbi vale1is, %0\n\t"
			     "dsb ish\n\t"
			     "isb" :: "r"(gva >> 12) : "memory");
}

/* Invalidate every stage-1 entry of this VM's EL1&0 regime, on all vCPUs. */
static inline void tlbi_all(void)
{
	__asm__ __volatile__("dsb ishst\n\t"
			     "tlbi vmalle1is\n\t"
			     "dsb ish\n\t"
			     "isb" ::: "memory");
}

#endif /* !__ASSEMBLER__ */
#endif
