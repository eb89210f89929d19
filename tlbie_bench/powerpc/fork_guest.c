// SPDX-License-Identifier: GPL-2.0
/*
 * The fork-style cycle, powerpc guest code (an HPT guest of KVM-HV).  The
 * guest's page table is the hash page table, which it changes only through
 * hcalls the host kernel handles itself (book3s_hv_rm_mmu.c): H_ENTER maps,
 * H_PROTECT downgrades, H_REMOVE and H_BULK_REMOVE unmap, and removing or
 * downgrading a valid HPTE invalidates it with do_tlbies() in the host:
 * the path of Piggin's lockless-tlbie patch (2018).  A remap is H_REMOVE then H_ENTER of the new frame.
 * After each remap the page is read back through the new HPTE: a stale
 * translation shows the old frame's tag and fails the run.  Every hcall's
 * return code is checked.
 */
#include "processor.h"
#include "tb.h"
#include "tb_ppc.h"
#include "ucall.h"

struct tb_guest_args tb_args;
struct tb_ppc_counts tb_ppc_counts[KMP_MAX_VCPUS];

struct cycle {
	uint32_t vcpu;
	uint64_t vsid;
	struct tb_ppc_counts *n;
};

static const char *hcall_name(uint64_t nr)
{
	switch (nr) {
	case H_ENTER: return "H_ENTER";
	case H_REMOVE: return "H_REMOVE";
	case H_PROTECT: return "H_PROTECT";
	case H_BULK_REMOVE: return "H_BULK_REMOVE";
	}
	return "hcall";
}

static void hcall_ok(const struct cycle *c, uint64_t nr, int64_t rc, uint64_t gva)
{
	if (rc != H_SUCCESS)
		GUEST_FAIL("vCPU %u: %s for gva 0x%lx returned %ld (H_SUCCESS is 0)", c->vcpu,
			   hcall_name(nr), gva, rc);
}

/* H_ENTER a 4K HPTE for gva: any free slot of the primary group, else the secondary. */
static uint64_t hpte_enter(const struct cycle *c, uint64_t gva, uint64_t gpa, uint64_t pp)
{
	uint64_t hash = hpt_hash(c->vsid, gva);

	for (int secondary = 0; secondary < 2; secondary++) {
		uint64_t group = (secondary ? ~hash : hash) & ppc_hpt_mask;
		uint64_t a[8] = { 0, group * HPTES_PER_GROUP,
				  hpte_v(c->vsid, gva) | HPTE_V_VALID |
				  (secondary ? HPTE_V_SECONDARY : 0), hpte_r(gpa, pp) };
		int64_t rc = hcall(H_ENTER, a);

		c->n->h_enter++;
		if (rc == H_SUCCESS)
			return a[0];		/* the slot KVM chose */
		if (rc != H_PTEG_FULL)
			hcall_ok(c, H_ENTER, rc, gva);
		c->n->pteg_full++;
	}
	GUEST_FAIL("vCPU %u: H_ENTER for gva 0x%lx: both of its HPTE groups are full", c->vcpu,
		   gva);
}

/* The AVPN check makes KVM refuse to touch any HPTE but gva's. */
static void hpte_remove(const struct cycle *c, uint64_t ptex, uint64_t gva)
{
	uint64_t a[8] = { H_AVPN, ptex, hpte_v(c->vsid, gva) };

	c->n->h_remove++;
	hcall_ok(c, H_REMOVE, hcall(H_REMOVE, a), gva);
}

static void hpte_protect(const struct cycle *c, uint64_t ptex, uint64_t gva, uint64_t pp)
{
	uint64_t a[8] = { H_AVPN | pp, ptex, hpte_v(c->vsid, gva) };

	c->n->h_protect++;
	hcall_ok(c, H_PROTECT, hcall(H_PROTECT, a), gva);
}

/* Up to HBR_MAX HPTEs in one H_BULK_REMOVE; each request's response is checked too. */
static void hpte_bulk_remove(const struct cycle *c, const uint64_t *ptex, uint64_t gva,
			     uint32_t n)
{
	uint64_t a[8] = { 0 };

	for (uint32_t i = 0; i < n; i++) {
		a[2 * i] = HBR_REQUEST | HBR_AVPN | ptex[i];
		a[2 * i + 1] = hpte_v(c->vsid, gva + i * 4096ULL);
	}
	if (n < HBR_MAX)
		a[2 * n] = HBR_END;
	c->n->h_bulk_remove++;
	hcall_ok(c, H_BULK_REMOVE, hcall(H_BULK_REMOVE, a), gva);
	for (uint32_t i = 0; i < n; i++)
		if ((a[2 * i] >> HBR_RESPONSE_SHIFT) != 0x8)
			GUEST_FAIL("vCPU %u: H_BULK_REMOVE for gva 0x%lx (HPTE %lu): response "
				   "0x%lx, not removed (0x8)", c->vcpu, gva + i * 4096UL,
				   ptex[i], a[2 * i] >> 56);
	c->n->bulk_removed += n;
}

static void copy_frame(uint64_t dst, uint64_t src)
{
	for (uint64_t off = 0; off < 4096; off += 8)
		*(volatile uint64_t *)(dst + off) = *(volatile uint64_t *)(src + off);
}

static void check(const struct cycle *c, uint64_t gva, uint64_t want)
{
	uint64_t seen = *(volatile uint64_t *)gva;

	if (seen != want)
		GUEST_FAIL("vCPU %u: stale translation at gva 0x%lx: expected frame 0x%lx "
			   "(tag 0x%lx), saw frame 0x%lx (tag 0x%lx)", c->vcpu, gva,
			   TB_TAG_FRAME(want), want, TB_TAG_FRAME(seen), seen);
}

void tb_guest_code(uint32_t vcpu)
{
	struct tb_vcpu_args *a = &tb_args.vcpu[vcpu];
	struct cycle c = { .vcpu = vcpu, .vsid = a->vsid, .n = &tb_ppc_counts[vcpu] };
	uint64_t pbase = a->parent_base + a->first_entry * 4096ULL;
	uint64_t cbase = a->child_base + a->first_entry * 4096ULL;
	uint32_t k = tb_args.pages, full = tb_args.flush == FLUSH_FULL;
	uint64_t pslot[TB_PT_ENTRIES], cslot[TB_PT_ENTRIES];
	uint64_t next = 0, gen = 1, first;

	/* The parent: K writable frames, each tagged (through segment 0, gva == gpa). */
	for (uint32_t i = 0; i < k; i++) {
		uint64_t f = a->parent_frames + i * 4096ULL;

		*(volatile uint64_t *)f = TB_TAG(f, 0);
		pslot[i] = hpte_enter(&c, pbase + i * 4096ULL, f, HPTE_R_PP_RW);
	}

	/* The forks' own span, on the guest's clock: no thread start or join in it. */
	first = guest_clock();
	while (!tb_args.stop) {
		/* 1-2. fork: the parent's HPTEs read-only, the child's map the same frames. */
		for (uint32_t i = 0; i < k; i++) {
			hpte_protect(&c, pslot[i], pbase + i * 4096ULL, HPTE_R_PP_RO);
			cslot[i] = hpte_enter(&c, cbase + i * 4096ULL,
					      a->parent_frames + i * 4096ULL, HPTE_R_PP_RO);
		}
		/* 3. touch: the child sees the parent's frames. */
		for (uint32_t i = 0; i < k; i++)
			check(&c, cbase + i * 4096ULL, TB_TAG(a->parent_frames + i * 4096ULL, 0));
		/* 4. "write": copy each page to a fresh frame and remap the child to it. */
		for (uint32_t i = 0; i < k; i++) {
			uint64_t g = a->pool + (next++ % a->pool_frames) * 4096ULL;
			uint64_t gva = cbase + i * 4096ULL;

			copy_frame(g, a->parent_frames + i * 4096ULL);
			*(volatile uint64_t *)g = TB_TAG(g, gen);
			hpte_remove(&c, cslot[i], gva);
			cslot[i] = hpte_enter(&c, gva, g, HPTE_R_PP_RW);
			check(&c, gva, TB_TAG(g, gen));
			a->remaps++;
		}
		/* 5. exit: unmap the child, per page or HBR_MAX at a time. */
		for (uint32_t i = 0; i < k; i += full ? HBR_MAX : 1) {
			if (full)
				hpte_bulk_remove(&c, &cslot[i], cbase + i * 4096ULL,
						 k - i < HBR_MAX ? k - i : HBR_MAX);
			else
				hpte_remove(&c, cslot[i], cbase + i * 4096ULL);
		}
		/* 6. back to the parent: writable again. */
		for (uint32_t i = 0; i < k; i++)
			hpte_protect(&c, pslot[i], pbase + i * 4096ULL, HPTE_R_PP_RW);
		gen++;
		a->cycles++;
	}
	GUEST_SYNC(a->cycles, a->remaps, first, guest_clock());
	GUEST_DONE();
}
