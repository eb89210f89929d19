// SPDX-License-Identifier: GPL-2.0
/* KVM_GET_DIRTY_LOG / KVM_CLEAR_DIRTY_LOG on memslots. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirty_log.h"
#include "kvm_util.h"

uint64_t dirty_log_page_size(void)
{
	return getpagesize();
}

void vm_get_dirty_log(struct kvm_vm *vm, uint32_t slot, uint64_t *bitmap)
{
	struct kvm_dirty_log log = { .slot = slot, .dirty_bitmap = bitmap };

	vm_ioctl(vm, KVM_GET_DIRTY_LOG, &log);
}

void vm_clear_dirty_log(struct kvm_vm *vm, uint32_t slot, const uint64_t *bitmap,
			uint64_t first_page, uint64_t num_pages)
{
	/* Bit 0 of what KVM reads is first_page. */
	struct kvm_clear_dirty_log log = {
		.slot = slot,
		.num_pages = num_pages,
		.first_page = first_page,
		.dirty_bitmap = (void *)(bitmap + first_page / 64),
	};

	vm_ioctl(vm, KVM_CLEAR_DIRTY_LOG, &log);
}
