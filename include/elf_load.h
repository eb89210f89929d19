/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMP_ELF_LOAD_H
#define KMP_ELF_LOAD_H

#include <stdint.h>

struct kvm_vm;

/*
 * Copy this binary's PT_LOAD segments (from /proc/self/exe) into guest memory
 * at the same virtual addresses, so guest code is plain C in the test binary.
 * Returns the end of the highest segment (gva).
 */
uint64_t elf_load_self(struct kvm_vm *vm);

#endif
