// SPDX-License-Identifier: GPL-2.0
/*
 * The fork-style cycle (../fork_cycle.inc), x86_64 guest code: entries are
 * written directly, a downgrade, removal or remap is invalidated by INVLPG
 * (or a CR3 reload for --flush full).  Under shadow paging each of those
 * exits to the host, which does the invalidation work measured here.
 */
#include "processor.h"
#include "tb.h"
#include "ucall.h"

/* Leaf entries: present, writable or not. */
#define TB_PTE_LEAF PTE_PRESENT
#define TB_PTE_WRITABLE PTE_WRITABLE
#define TB_PTE_READONLY 0ULL

static inline void tb_flush_page(uint64_t gva)
{
	invlpg(gva);
}

static inline void tb_flush_all(void)
{
	set_cr3(get_cr3());
}

/* x86 walks see plain stores in program order: nothing to publish. */
static inline void tb_publish(void)
{
}

/* A present entry may be replaced in place, then invalidated. */
static inline void tb_remap(volatile uint64_t *pte, uint64_t entry, uint64_t gva)
{
	*pte = entry;
	tb_flush_page(gva);
}

#include "../fork_cycle.inc"
