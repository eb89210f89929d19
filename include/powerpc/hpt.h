/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpc host side of the guest's hash page table: allocation, the host's
 * record of what it mapped, and HPTE writes through KVM_PPC_GET_HTAB_FD.
 */
#ifndef KMP_POWERPC_HPT_H
#define KMP_POWERPC_HPT_H

#include <stdint.h>

struct kvm_vm;

/* Allocate the HPT (KVM_PPC_ALLOCATE_HTAB) and open the HTAB fd. */
void hpt_init(struct kvm_vm *vm);
/* Map the 4K page at ea (segment 0) to gpa, read-write; grows the HPT as needed. */
void hpt_map(struct kvm_vm *vm, uint64_t ea, uint64_t gpa);
/* gpa of ea from the host's record, or -1ULL. */
uint64_t hpt_lookup(struct kvm_vm *vm, uint64_t ea);
/* Tell the guest the HPT's size (ppc_hpt_mask), once the binary is loaded. */
void hpt_publish(struct kvm_vm *vm);
void hpt_free(struct kvm_vm *vm);

#endif
