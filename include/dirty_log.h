/* SPDX-License-Identifier: GPL-2.0 */
/* The memslot dirty bitmap: KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG. */
#ifndef KMP_DIRTY_LOG_H
#define KMP_DIRTY_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"	/* the bitmaps these fill and read */

struct kvm_vm;

/* KVM_CLEAR_DIRTY_LOG works on whole 64-bit words of the bitmap. */
#define DIRTY_LOG_CLEAR_ALIGN_PAGES 64

/*
 * The unit of KVM's dirty log, in bytes: one bit (or dirty-ring entry) per
 * gfn, and a gfn is a host page (the kernel's PAGE_SIZE), whatever the
 * guest's own page size: 4K on x86, 64K on powerpc and 64K-page arm64
 * kernels.  The "pages" of the functions below are these.
 */
uint64_t dirty_log_page_size(void);

/* KVM_GET_DIRTY_LOG of one memslot into bitmap (one bit per dirty-log page). */
void vm_get_dirty_log(struct kvm_vm *vm, uint32_t slot, uint64_t *bitmap);
/*
 * KVM_CLEAR_DIRTY_LOG of pages [first_page, first_page + num_pages) of a
 * slot, re-protecting the pages whose bits are set in `bitmap` (the whole
 * slot's bitmap; the chunk's part is passed).  first_page must be a multiple
 * of 64, and num_pages too unless the chunk ends the slot.
 */
void vm_clear_dirty_log(struct kvm_vm *vm, uint32_t slot, const uint64_t *bitmap,
			uint64_t first_page, uint64_t num_pages);

#endif
