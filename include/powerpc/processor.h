/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpc (ppc64le, HV KVM): definitions shared by host and guest code.
 *
 * The guest is an HPT (hash page table) guest of KVM-HV, run with
 * translation on (MSR[IR|DR]) from its first instruction.  The host fills
 * the HPT through KVM_PPC_GET_HTAB_FD before the vCPUs run (lib/powerpc/
 * hpt.c); guest effective addresses below 1 TiB form one 1T segment
 * (SLB entry 0, VSID PPC_LIB_VSID) that holds the test binary at its link
 * address, stacks, and test memory mapped gva == gpa.  The next 1T segment
 * (PPC_USER_SEG_EA, SLB entry 1) belongs to tests that edit the HPT
 * themselves through hcalls (tlbie_bench): its VSID is the vCPU's "root".
 *
 * Guest mode 0 (P52V48_4K), where KVM offers radix guests, is a radix
 * guest instead: no HPT or SLB; the host builds a process table and a
 * 4-level radix tree in slot 0 (lib/powerpc/radix.c) mapping the same gvas,
 * and the vCPUs run with PIDR 0 through process table entry 0.
 *
 * Exceptions are delivered in real mode (HPT: through KVM's VRMA; radix:
 * untranslated guest real addresses) to handlers
 * the host copies to guest real addresses 0x100-0x17ff (lib/powerpc/
 * vectors.S); each reports itself with the KMP_H_EXCEPTION hcall.
 */
#ifndef KMP_POWERPC_PROCESSOR_H
#define KMP_POWERPC_PROCESSOR_H

/* Private hcall numbers: above every PAPR, KVM and QEMU one, so KVM hands them to us. */
#define KMP_H_UCALL 0xf1c0		/* r4: gva of the struct ucall */
#define KMP_H_EXCEPTION 0xf1c4		/* r4-r6: vector, SRR0, SRR1; r3-r6 in SPRG0-3 */

/*
 * Guest real addresses of the exception handlers (lib/powerpc/vectors.S),
 * their common tail after PPC_VECTORS_END, all below PPC_VECTORS_LIMIT.
 */
#define PPC_VECTORS_START 0x100
#define PPC_VECTORS_END 0x1800
#define PPC_VECTORS_LIMIT 0x2000
#define PPC_VECTOR_SIZE 0x20

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

/* KVM_CREATE_VM type: KVM_VM_PPC_HV (kvm-hv, not kvm-pr). */
#define ARCH_VM_TYPE 1
/* vm_vaddr_alloc() above the binary, which ppc64le links at 0x10000000. */
#define SYS_VADDR_BASE 0x40000000ULL

/* Register names in failure reports (tests look for "<ARCH_PC_NAME> 0x"). */
#define ARCH_PC_NAME "pc"

/* MSR bits. */
#define MSR_SF (1ULL << 63)
#define MSR_VEC (1ULL << 25)
#define MSR_VSX (1ULL << 23)
#define MSR_FP (1ULL << 13)
#define MSR_ME (1ULL << 12)
#define MSR_IR (1ULL << 5)
#define MSR_DR (1ULL << 4)
#define MSR_RI (1ULL << 1)
#define MSR_LE (1ULL << 0)

#define LPCR_ILE (1ULL << 25)		/* interrupts taken little-endian */

/* Segments: 1 TiB each (B = 1T), 4K base pages. */
#define PPC_SEG_SHIFT 40
#define PPC_SEG_SIZE (1ULL << PPC_SEG_SHIFT)
#define PPC_USER_SEG_EA PPC_SEG_SIZE	/* the second segment: tests' own HPTEs */
#define PPC_LIB_VSID 0x4b1ULL		/* segment 0; roots count up from PPC_ROOT_VSID */
#define PPC_ROOT_VSID 0x1000ULL
#define SLB_ESID_V (1ULL << 27)
#define SLB_VSID_B_1T (1ULL << 62)
#define SLB_VSID_SHIFT_1T 24

/* HPTE first doubleword (the PAPR/"old" format hcalls and the HTAB stream use). */
#define HPTE_V_VALID (1ULL << 0)
#define HPTE_V_SECONDARY (1ULL << 1)
#define HPTE_V_BOLTED (1ULL << 4)
#define HPTE_V_AVPN_SHIFT 7
#define HPTE_V_1TB_SEG (1ULL << 62)
/* Second doubleword. */
#define HPTE_R_RPN 0x0ffffffffffff000ULL
#define HPTE_R_M (1ULL << 4)		/* WIMG = M: ordinary memory */
#define HPTE_R_PP_RW 0ULL		/* pp 00 with key 0 (Ks = 0): read-write */
#define HPTE_R_PP_RO 3ULL		/* pp 11: read-only */

#define HPTES_PER_GROUP 8
/*
 * KVM puts the VRMA (the guest's real-mode mapping) in slot 7 of its
 * groups at the first KVM_RUN: the host's HPTEs stay out of slot 7.
 */
#define HPT_HOST_SLOTS 7

/* hcalls (PAPR) and their return codes. */
#define H_REMOVE 0x04
#define H_ENTER 0x08
#define H_PROTECT 0x18
#define H_BULK_REMOVE 0x124
#define H_SUCCESS 0
#define H_FUNCTION (-2)
#define H_PARAMETER (-4)
#define H_PTEG_FULL (-6)
#define H_NOT_FOUND (-7)
#define H_EXACT (1ULL << 39)		/* H_ENTER: exactly this slot */
#define H_AVPN (1ULL << 31)		/* H_REMOVE, H_PROTECT: check the AVPN first */
/* H_BULK_REMOVE: per request, a control word (type, flags, ptex) and an AVPN. */
#define HBR_REQUEST (1ULL << 62)
#define HBR_END (3ULL << 62)
#define HBR_AVPN (2ULL << 56)
#define HBR_RESPONSE_SHIFT 60		/* 0x8 removed, 0x9 not found, 0xa bad parameter */
#define HBR_MAX 4			/* requests per call (r4-r11) */

struct vm_arch {
	bool radix;			/* a radix guest (lib/powerpc/radix.c), else HPT */
	uint64_t prtb;			/* radix: the process table's gpa */
	int htab_fd;			/* KVM_PPC_GET_HTAB_FD, write mode */
	uint32_t hpt_order;		/* log2 of the HPT's bytes */
	uint64_t hptes;			/* HPTEs the host wrote */
	uint8_t *used;			/* per HPTE index: written by the host */
	uint64_t ***map;		/* the host's record: segment-0 page -> gpa | 1 */
	uint64_t next_vsid;		/* for arch_vm_new_root() */
};

struct vcpu_arch {
	int unused;
};

/* ---- HPT encoding (host and guest): 1T segments, 4K pages ---- */

/* The primary hash of a 4K page at ea in segment vsid (the secondary is its complement). */
static inline uint64_t hpt_hash(uint64_t vsid, uint64_t ea)
{
	return (vsid ^ (vsid << 25) ^ ((ea & (PPC_SEG_SIZE - 1)) >> 12)) & 0x7fffffffffULL;
}

/* First doubleword without V/H: the AVPN (VA >> 23) and B = 1T; also H_AVPN's operand. */
static inline uint64_t hpte_v(uint64_t vsid, uint64_t ea)
{
	uint64_t va = (vsid << PPC_SEG_SHIFT) | (ea & (PPC_SEG_SIZE - 1));

	return HPTE_V_1TB_SEG | ((va >> 23) << HPTE_V_AVPN_SHIFT);
}

static inline uint64_t hpte_r(uint64_t gpa, uint64_t pp)
{
	return (gpa & HPTE_R_RPN) | HPTE_R_M | pp;
}

/* ---- guest helpers ---- */

/*
 * HPT groups - 1, published by the host into the guest's copy (guests that
 * H_ENTER need it to pick a group; PAPR guests read it from ibm,pft-size).
 */
extern uint64_t ppc_hpt_mask;

static inline void cpu_relax(void)
{
	__asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory");	/* low, then medium priority */
}

/* The timebase: 512 MHz on POWER8/9/10 (the host's /proc/cpuinfo says). */
static inline uint64_t guest_clock(void)
{
	uint64_t tb;

	__asm__ __volatile__("mftb %0" : "=r"(tb) :: "memory");
	return tb;
}

/*
 * An hcall: `sc 1` with r3 = nr and r4-r11 = a[0..7]; returns r3 and leaves
 * r4-r11 in a[] (H_ENTER's slot, H_REMOVE's old HPTE, H_BULK_REMOVE's
 * responses).  The hypervisor may change r0 and r3-r12; it keeps r1, r2
 * and r13-r31, where the compiler must put `a`.
 */
static inline int64_t hcall(uint64_t nr, uint64_t a[8])
{
	int64_t rc;

	__asm__ __volatile__("mr 3, %1\n\t"
			     "ld 4, 0(%2)\n\t" "ld 5, 8(%2)\n\t" "ld 6, 16(%2)\n\t"
			     "ld 7, 24(%2)\n\t" "ld 8, 32(%2)\n\t" "ld 9, 40(%2)\n\t"
			     "ld 10, 48(%2)\n\t" "ld 11, 56(%2)\n\t"
			     "sc 1\n\t"
			     "std 4, 0(%2)\n\t" "std 5, 8(%2)\n\t" "std 6, 16(%2)\n\t"
			     "std 7, 24(%2)\n\t" "std 8, 32(%2)\n\t" "std 9, 40(%2)\n\t"
			     "std 10, 48(%2)\n\t" "std 11, 56(%2)\n\t"
			     "mr %0, 3"
			     : "=r"(rc)
			     : "r"(nr), "b"(a)
			     : "r0", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
			       "ctr", "xer", "cr0", "cr1", "cr5", "cr6", "cr7", "memory");
	return rc;
}

#endif /* !__ASSEMBLER__ */
#endif
