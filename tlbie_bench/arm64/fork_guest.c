// SPDX-License-Identifier: GPL-2.0
/*
 * The fork-style cycle, arm64 guest code.  Stage-1 last-level entries are
 * written directly, and every downgrade or removal is followed by the
 * invalidation the architecture requires: TLBI VALE1IS per page (only leaf
 * entries change), or one TLBI VMALLE1IS per fork for --flush full, each
 * completed with DSB ISH; ISB.  A remap to a new frame is break-before-make
 * (invalid, invalidate, then the new entry), as Linux's copy-on-write does.
 * After each remap the page is read back: a stale translation shows the old
 * frame's tag and fails the run.
 *
 * Inner-shareable TLBIs are broadcast by the hardware to every CPU that may
 * hold the VM's entries: unlike INVLPG under shadow paging or powerpc's
 * hcalls, none of them exits to the host.
 */
#include "processor.h"
#include "../tb.h"
#include "ucall.h"

struct tb_guest_args tb_args;

static uint64_t pte_rw(uint64_t frame)
{
	return frame | PTE_NORMAL;
}

static uint64_t pte_ro(uint64_t frame)
{
	return frame | PTE_NORMAL | PTE_AP_RO;
}

static void flush_page(uint64_t gva)
{
	tlbi_page(gva);
}

static void flush_all(void)
{
	tlbi_all();
}

/* New entries (invalid before): visible to this vCPU's walker before the next access. */
static void publish(void)
{
	__asm__ __volatile__("dsb ishst; isb" ::: "memory");
}

static void copy_frame(uint64_t dst, uint64_t src)
{
	for (uint64_t off = 0; off < 4096; off += 8)
		*(volatile uint64_t *)(dst + off) = *(volatile uint64_t *)(src + off);
}

static void check(uint32_t vcpu, uint64_t gva, uint64_t want)
{
	uint64_t seen = *(volatile uint64_t *)gva;

	if (seen != want)
		GUEST_FAIL("vCPU %u: stale translation at gva 0x%lx: expected frame 0x%lx "
			   "(tag 0x%lx), saw frame 0x%lx (tag 0x%lx)", vcpu, gva,
			   TB_TAG_FRAME(want), want, TB_TAG_FRAME(seen), seen);
}

void tb_guest_code(uint32_t vcpu)
{
	struct tb_vcpu_args *a = &tb_args.vcpu[vcpu];
	volatile uint64_t *ppt = (volatile uint64_t *)a->parent_pt + a->first_entry;
	volatile uint64_t *cpt = (volatile uint64_t *)a->child_pt + a->first_entry;
	uint64_t pbase = a->parent_base + a->first_entry * 4096ULL;
	uint64_t cbase = a->child_base + a->first_entry * 4096ULL;
	uint32_t k = tb_args.pages, full = tb_args.flush == FLUSH_FULL;
	uint64_t next = 0, gen = 1;

	/* The parent: K writable frames, each tagged. */
	for (uint32_t i = 0; i < k; i++) {
		uint64_t f = a->parent_frames + i * 4096ULL;

		*(volatile uint64_t *)f = TB_TAG(f, 0);
		ppt[i] = pte_rw(f);
		flush_page(pbase + i * 4096ULL);
	}

	while (!tb_args.stop) {
		/* 1-2. fork: parent and child map the frames read-only. */
		for (uint32_t i = 0; i < k; i++) {
			ppt[i] |= PTE_AP_RO;
			flush_page(pbase + i * 4096ULL);
			cpt[i] = pte_ro(a->parent_frames + i * 4096ULL);
		}
		publish();
		/* 3. touch: the child sees the parent's frames. */
		for (uint32_t i = 0; i < k; i++)
			check(vcpu, cbase + i * 4096ULL, TB_TAG(a->parent_frames + i * 4096ULL, 0));
		/* 4. "write": copy each page to a fresh frame, break, then make the new entry. */
		for (uint32_t i = 0; i < k; i++) {
			uint64_t g = a->pool + (next++ % a->pool_frames) * 4096ULL;
			uint64_t gva = cbase + i * 4096ULL;

			copy_frame(g, a->parent_frames + i * 4096ULL);
			*(volatile uint64_t *)g = TB_TAG(g, gen);
			cpt[i] = 0;
			flush_page(gva);
			cpt[i] = pte_rw(g);
			publish();
			check(vcpu, gva, TB_TAG(g, gen));
			a->remaps++;
		}
		/* 5. exit: unmap the child, invalidate per page or all at once. */
		for (uint32_t i = 0; i < k; i++) {
			cpt[i] = 0;
			if (!full)
				flush_page(cbase + i * 4096ULL);
		}
		/* 6. back to the parent: writable again. */
		for (uint32_t i = 0; i < k; i++) {
			ppt[i] &= ~PTE_AP_RO;
			if (!full)
				flush_page(pbase + i * 4096ULL);
		}
		if (full)
			flush_all();
		gen++;
		a->cycles++;
	}
	GUEST_SYNC(a->cycles, a->remaps);
	GUEST_DONE();
}
