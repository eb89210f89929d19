// SPDX-License-Identifier: GPL-2.0
/*
 * tlbie_bench on powerpc: the VM and what the run means.  The guest maps
 * and unmaps its test pages with hcalls in the user segment (PPC_USER_SEG_EA,
 * one 1T segment); without --shared each vCPU's segment has its own VSID
 * (its own address space), with it all share one VSID and use disjoint
 * pages.  The frames are test memory mapped gva == gpa in segment 0, where
 * the guest tags and copies them.
 */
#include <stddef.h>

#include "json.h"
#include "record.h"
#include "../tb_bench.h"
#include "tb_ppc.h"

#define TB_FRAME_SLOT 1
#define TB_PARENT_BASE PPC_USER_SEG_EA
#define TB_CHILD_BASE (TB_PARENT_BASE + SZ_2M)


static uint64_t pool_frames(const struct tb_opts *o)
{
	return o->pages * 4 > 64 ? o->pages * 4 : 64;
}

static void hpt_setup(struct tb *t)
{
	const struct tb_opts *o = &t->o;
	uint64_t per_vcpu = (o->pages + pool_frames(o)) * SZ_4K;
	uint64_t frames = ALIGN_UP(per_vcpu * o->vcpus, SZ_2M);
	uint64_t shared_vsid = 0, base;
	struct kvm_vm *vm;

	vm = t->vm = vm_create(o->vcpus, frames / SZ_4K);
	base = arch_test_mem_gpa(vm);
	vm_mem_add(vm, SRC_ANONYMOUS, base, TB_FRAME_SLOT, frames, 0);
	/*
	 * Populate the frames: H_ENTER then finds the host pages present and
	 * enters valid HPTEs, so the run measures hcalls, not page faults.
	 */
	memset(addr_gpa2hva(vm, base), 0, frames);
	virt_map(vm, base, base, frames, SZ_4K);
	if (o->shared)
		shared_vsid = arch_vm_new_root(vm);

	tb_args.pages = o->pages;
	tb_args.flush = o->flush;
	for (uint32_t v = 0; v < o->vcpus; v++) {
		struct tb_vcpu_args *a = &tb_args.vcpu[v];
		struct kvm_vcpu *vcpu = vm_vcpu_add(vm, v, tb_guest_code);

		vcpu_args_set(vcpu, 1, (uint64_t)v);
		a->parent_base = TB_PARENT_BASE;
		a->child_base = TB_CHILD_BASE;
		a->parent_frames = base + v * per_vcpu;
		a->pool = a->parent_frames + o->pages * SZ_4K;
		a->pool_frames = pool_frames(o);
		a->first_entry = o->shared ? v * o->pages : 0;
		a->vsid = o->shared ? shared_vsid : arch_vm_new_root(vm);
		arch_vcpu_set_root(vcpu, a->vsid);
	}
	sync_global_to_guest(vm, tb_args);
	t->ga = guest_global(vm, tb_args);
	for (uint32_t v = 0; v < o->vcpus; v++)
		vm->vcpus[v]->heartbeat = &t->ga->vcpu[v].cycles;
}

/* The guest's hcall counts: printed (j NULL) or recorded. */
static void hcall_figures(const struct tb *t, struct json *j)
{
	static const struct {
		const char *name, *unit;
		size_t off;
	} f[] = {
		{ "h_enter", "hcalls", offsetof(struct tb_ppc_counts, h_enter) },
		{ "h_enter_pteg_full", "hcalls", offsetof(struct tb_ppc_counts, pteg_full) },
		{ "h_protect", "hcalls", offsetof(struct tb_ppc_counts, h_protect) },
		{ "h_remove", "hcalls", offsetof(struct tb_ppc_counts, h_remove) },
		{ "h_bulk_remove", "hcalls", offsetof(struct tb_ppc_counts, h_bulk_remove) },
		{ "bulk_removed_hptes", "HPTEs", offsetof(struct tb_ppc_counts, bulk_removed) },
	};
	uint64_t sum[ARRAY_SIZE(f)] = { 0 }, forks = 0;
	const struct tb_ppc_counts *n;

	if (!t->ga)
		return;
	n = addr_gva2hva(t->vm, (uint64_t)(uintptr_t)tb_ppc_counts);
	for (uint32_t v = 0; v < t->o.vcpus; v++) {
		for (size_t i = 0; i < ARRAY_SIZE(f); i++)
			sum[i] += *(const uint64_t *)((const char *)&n[v] + f[i].off);
		forks += t->ga->vcpu[v].cycles;
	}
	if (j) {
		for (size_t i = 0; i < ARRAY_SIZE(f); i++)
			record_figure(j, f[i].name, f[i].unit, sum[i], NULL, 0);
		return;
	}
	ksft_print_msg("hcalls over the run: H_ENTER %lu (%lu found the primary group full), "
		       "H_PROTECT %lu, H_REMOVE %lu, H_BULK_REMOVE %lu (%lu HPTEs)\n",
		       (unsigned long)sum[0], (unsigned long)sum[1], (unsigned long)sum[2],
		       (unsigned long)sum[3], (unsigned long)sum[4], (unsigned long)sum[5]);
	if (forks)
		ksft_print_msg("hcalls per fork: H_ENTER %.1f, H_PROTECT %.1f, H_REMOVE %.1f, "
			       "H_BULK_REMOVE %.1f\n", (double)sum[0] / forks,
			       (double)sum[2] / forks, (double)sum[3] / forks,
			       (double)sum[4] / forks);
}

const struct tb_arch tb_arch = {
	.note = "powerpc HPT guest: every H_ENTER, H_PROTECT, H_REMOVE and H_BULK_REMOVE is "
		"an hcall the host kernel handles itself (book3s_hv_rm_mmu.c: in real mode on "
		"POWER7/8 hosts, after an exit counted in sum_exits on POWER9 and later); each "
		"removal or downgrade of a valid HPTE runs do_tlbies(), the path of the "
		"lockless-tlbie patch.  --flush page: one H_REMOVE per page; --flush full: "
		"H_BULK_REMOVE, 4 HPTEs per call.  KVM keeps no per-hcall stat: the guest counts "
		"them.",
	.setup = hpt_setup,
	.figures = hcall_figures,
};
