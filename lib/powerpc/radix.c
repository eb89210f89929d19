// SPDX-License-Identifier: GPL-2.0
/*
 * A radix guest's process-scoped page tables, built by the host (see
 * include/powerpc/radix.h).  KVM_PPC_CONFIGURE_V3_MMU with
 * KVM_PPC_MMUV3_RADIX | KVM_PPC_MMUV3_GTSE hands KVM the process table;
 * KVM sets LPCR[HR|UPRT|GTSE] and owns the partition-scoped tree.  The
 * vCPUs run with PIDR = 0, so every effective address (quadrant 0)
 * translates through process table entry 0.
 */
#include <endian.h>
#include <errno.h>
#include <sys/ioctl.h>

#include "radix.h"
#include "kvm_util.h"

static uint64_t *entry(struct kvm_vm *vm, uint64_t table, uint64_t index)
{
	return (uint64_t *)addr_gpa2hva(vm, table) + index;
}

/* Index of ea in the table at `level` (0: the root). */
static uint64_t level_index(uint64_t ea, int level)
{
	int shift = 12 + RADIX_LEVEL_BITS * (3 - level);

	return (ea >> shift) & ((1ULL << (level ? RADIX_LEVEL_BITS : RADIX_ROOT_BITS)) - 1);
}

void radix_init(struct kvm_vm *vm)
{
	uint64_t root_bytes = 8ULL << RADIX_ROOT_BITS, rts = RADIX_EA_BITS - 31, prtb0;
	struct kvm_ppc_mmuv3_cfg cfg;

	/* The process table: 4K (PRTS 0), 256 entries; only entry 0 is used. */
	vm->arch.prtb = vm_phy_pages_alloc(vm, 1);
	/* The root is naturally aligned: skip slot-0 pages up to a 64K boundary. */
	while (vm->sys_gpa_next & (root_bytes - 1))
		vm_phy_pages_alloc(vm, 1);
	vm->pgd = vm_phy_pages_alloc(vm, root_bytes / vm->page_size);

	/* PRTB0: RTS1 (bits 1-2), RPDB, RTS2 (bits 56-58), RPDS (59-63). */
	prtb0 = ((rts >> 3) << 61) | vm->pgd | ((rts & 7) << 5) | RADIX_ROOT_BITS;
	entry(vm, vm->arch.prtb, 0)[0] = htobe64(prtb0);
	entry(vm, vm->arch.prtb, 0)[1] = 0;

	cfg.flags = KVM_PPC_MMUV3_RADIX | KVM_PPC_MMUV3_GTSE;
	cfg.process_table = PATB_GR | vm->arch.prtb | 0;
	if (__vm_ioctl(vm, KVM_PPC_CONFIGURE_V3_MMU, &cfg) < 0)
		TEST_FAIL("KVM_PPC_CONFIGURE_V3_MMU (radix, process table at gpa 0x%lx) failed: "
			  "errno %d (%s)%s", (unsigned long)vm->arch.prtb, errno, strerror(errno),
			  errno == ENODEV ? "; the host is not POWER9 or later" :
			  errno == EINVAL ? "; the host kernel does not use radix itself" : "");
}

void radix_map(struct kvm_vm *vm, uint64_t ea, uint64_t gpa)
{
	uint64_t table = vm->pgd, *e;

	TEST_ASSERT(!(ea >> RADIX_EA_BITS) && IS_ALIGNED(ea | gpa, SZ_4K),
		    "gva 0x%lx: a radix guest maps 4K-aligned gvas below 2^%d (quadrant 0)",
		    (unsigned long)ea, RADIX_EA_BITS);
	for (int level = 0; level < 3; level++) {
		e = entry(vm, table, level_index(ea, level));
		if (!*e)
			*e = htobe64(RPTE_V | vm_phy_pages_alloc(vm, 1) | RADIX_LEVEL_BITS);
		table = be64toh(*e) & RPDE_NLB;
	}
	e = entry(vm, table, level_index(ea, 3));
	TEST_ASSERT(!*e, "gva 0x%lx is already mapped", (unsigned long)ea);
	/* R and C set: nothing for the MMU to update (QEMU would fault instead). */
	*e = htobe64(RPTE_V | RPTE_L | (gpa & RPTE_RPN) | RPTE_R | RPTE_C | RPTE_EAA_PRIV |
		     RPTE_EAA_READ | RPTE_EAA_RW | RPTE_EAA_EXEC);
}

uint64_t radix_lookup(struct kvm_vm *vm, uint64_t ea)
{
	uint64_t table = vm->pgd, e;

	if (ea >> RADIX_EA_BITS)
		return -1ULL;
	for (int level = 0; level < 3; level++) {
		e = be64toh(*entry(vm, table, level_index(ea, level)));
		if (!(e & RPTE_V))
			return -1ULL;
		table = e & RPDE_NLB;
	}
	e = be64toh(*entry(vm, table, level_index(ea, 3)));
	return e & RPTE_V ? (e & RPTE_RPN) | (ea & 0xfff) : -1ULL;
}
