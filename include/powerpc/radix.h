/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpc host side of a radix guest's own (process-scoped) page tables:
 * the process table KVM_PPC_CONFIGURE_V3_MMU points at, and the 4-level
 * tree its entry 0 roots, built by the host in slot 0.  Partition-scoped
 * translation (guest real -> host) is KVM's.
 *
 * Geometry with 4K pages (Linux's radix-4k.h, ISA 3.0 Book III 6.7.10):
 * a 52-bit effective address (RTS = 52 - 31 = 21) splits 13/9/9/9 above
 * the 12-bit page offset: an 8192-entry (64K) root, then three levels of
 * 512 entries (4K tables).  Every table is naturally aligned and every
 * entry big-endian, whatever the guest's endianness.
 */
#ifndef KMP_POWERPC_RADIX_H
#define KMP_POWERPC_RADIX_H

#include <stdint.h>

struct kvm_vm;

#define RADIX_EA_BITS 52
#define RADIX_ROOT_BITS 13		/* RPDS */
#define RADIX_LEVEL_BITS 9

/* Page directory/table entries (big-endian bit 0 is 1ULL << 63). */
#define RPTE_V (1ULL << 63)		/* valid */
#define RPTE_L (1ULL << 62)		/* leaf */
#define RPDE_NLB 0x0fffffffffffff00ULL	/* next level base */
#define RPTE_RPN 0x01fffffffffff000ULL	/* real page number (4K) */
#define RPTE_R (1ULL << 8)		/* referenced */
#define RPTE_C (1ULL << 7)		/* changed */
#define RPTE_EAA_PRIV (1ULL << 3)	/* privileged-only: no AMR check for MSR[PR]=0 */
#define RPTE_EAA_READ (1ULL << 2)
#define RPTE_EAA_RW (1ULL << 1)
#define RPTE_EAA_EXEC (1ULL << 0)

/* KVM_PPC_CONFIGURE_V3_MMU's process_table: PATB1's GR bit, base, PRTS (2^(12+PRTS) bytes). */
#define PATB_GR (1ULL << 63)

/* Allocate the process table and root in slot 0; make the VM radix with them. */
void radix_init(struct kvm_vm *vm);
/* Map the 4K page at ea to gpa, read-write-execute, privileged. */
void radix_map(struct kvm_vm *vm, uint64_t ea, uint64_t gpa);
/* gpa of ea from the tables, or -1ULL. */
uint64_t radix_lookup(struct kvm_vm *vm, uint64_t ea);

#endif
