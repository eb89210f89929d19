// SPDX-License-Identifier: GPL-2.0
/*
 * The fork-style cycle (../fork_cycle.inc), arm64 guest code.  Stage-1
 * last-level entries are written directly, and every downgrade or removal
 * is followed by the invalidation the architecture requires: TLBI VALE1IS
 * per page (only leaf entries change), or one TLBI VMALLE1IS per fork for
 * --flush full, each completed with DSB ISH; ISB.  A remap to a new frame is
 * break-before-make (invalid, invalidate, then the new entry), as Linux's
 * copy-on-write does.
 *
 * Inner-shareable TLBIs are broadcast by the hardware to every CPU that may
 * hold the VM's entries: unlike INVLPG under shadow paging or powerpc's
 * hcalls, none of them exits to the host.
 */
#include "processor.h"
#include "tb.h"
#include "ucall.h"

/* Leaf entries: Normal memory pages, AP[2] set for read-only. */
#define TB_PTE_LEAF PTE_NORMAL
#define TB_PTE_WRITABLE 0ULL
#define TB_PTE_READONLY PTE_AP_RO

static inline void tb_flush_page(uint64_t gva)
{
	tlbi_page(gva);
}

static inline void tb_flush_all(void)
{
	tlbi_all();
}

/* New entries (invalid before): visible to this vCPU's walker before the next access. */
static inline void tb_publish(void)
{
	__asm__ __volatile__("dsb ishst; isb" ::: "memory");
}

/* Break-before-make: a valid entry is never replaced by one for another frame. */
static inline void tb_remap(volatile uint64_t *pte, uint64_t entry, uint64_t gva)
{
	*pte = 0;
	tb_flush_page(gva);
	*pte = entry;
	tb_publish();
}

#include "../fork_cycle.inc"
