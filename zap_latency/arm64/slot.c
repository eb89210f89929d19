// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: deleting or moving a memslot unmaps only that slot's stage-2 range
 * (kvm_arch_flush_shadow_memslot), so the trigger slot is written by the
 * guest before each zap to give it mappings to unmap.
 */
#include "../zl.h"

bool zl_arch_slot_only(void)
{
	return true;
}
