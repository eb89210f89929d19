// SPDX-License-Identifier: GPL-2.0
/*
 * The VM for tlbie_bench: frames the guest maps and remaps (identity-mapped
 * so the guest can tag and copy them), and per vCPU a parent and a child
 * last-level page table the guest edits itself, visible to it at a window
 * address.  Without --shared each vCPU runs in its own address space (its
 * own top-level table); with it all share one, using disjoint entries of
 * the same two tables, so every invalidation concerns shared tables.
 */
#include "tb_bench.h"

/* Both tables' ranges: one 2M range each, in the second 512G of gva space. */
#define TB_PARENT_BASE (1ULL << 39)
#define TB_CHILD_BASE (TB_PARENT_BASE + SZ_2M)
#define TB_FRAME_SLOT 1

static uint64_t pool_frames(const struct tb_opts *o)
{
	return o->pages * 4 > 64 ? o->pages * 4 : 64;
}

/* One last-level table: a zeroed page, and where the guest sees it. */
static uint64_t new_table(struct kvm_vm *vm, uint64_t *window)
{
	uint64_t gpa = vm_phy_pages_alloc(vm, 1);

	*window = vm_vaddr_map(vm, gpa, SZ_4K);
	return gpa;
}

/* Per-range page tables; an arch without them (powerpc's HPT) has its own tb_arch.setup. */
static void setup_page_tables(struct tb *t)
{
	const struct tb_opts *o = &t->o;
	uint64_t per_vcpu = (o->pages + pool_frames(o)) * SZ_4K;
	uint64_t frames = ALIGN_UP(per_vcpu * o->vcpus, SZ_2M);
	uint64_t shared_ppt = 0, shared_cpt = 0, shared_pw = 0, shared_cw = 0;
	struct kvm_vm *vm;
	uint64_t base;

	vm = t->vm = vm_create(o->vcpus, frames / SZ_4K);
	base = arch_test_mem_gpa(vm);
	vm_mem_add(vm, SRC_ANONYMOUS, base, TB_FRAME_SLOT, frames, 0);
	virt_map(vm, base, base, frames, SZ_4K);
	if (o->shared) {
		shared_ppt = new_table(vm, &shared_pw);
		shared_cpt = new_table(vm, &shared_cw);
		arch_virt_install_pt(vm, vm->pgd, TB_PARENT_BASE, shared_ppt);
		arch_virt_install_pt(vm, vm->pgd, TB_CHILD_BASE, shared_cpt);
	}

	tb_args.pages = o->pages;
	tb_args.flush = o->flush;
	for (uint32_t v = 0; v < o->vcpus; v++) {
		struct tb_vcpu_args *a = &tb_args.vcpu[v];

		a->parent_base = TB_PARENT_BASE;
		a->child_base = TB_CHILD_BASE;
		a->parent_frames = base + v * per_vcpu;
		a->pool = a->parent_frames + o->pages * SZ_4K;
		a->pool_frames = pool_frames(o);
		if (o->shared) {
			a->parent_pt = shared_pw;
			a->child_pt = shared_cw;
			a->first_entry = v * o->pages;
		} else {
			a->parent_pt = 0;	/* set below, per address space */
			a->first_entry = 0;
		}
	}
	/* Private address spaces copy the root as it is now: build them last. */
	for (uint32_t v = 0; v < o->vcpus; v++) {
		struct kvm_vcpu *vcpu = vm_vcpu_add(vm, v, tb_guest_code);
		struct tb_vcpu_args *a = &tb_args.vcpu[v];

		vcpu_args_set(vcpu, 1, (uint64_t)v);
		if (!o->shared) {
			uint64_t root;
			uint64_t ppt = new_table(vm, &a->parent_pt);
			uint64_t cpt = new_table(vm, &a->child_pt);

			root = arch_vm_new_root(vm);
			arch_virt_install_pt(vm, root, TB_PARENT_BASE, ppt);
			arch_virt_install_pt(vm, root, TB_CHILD_BASE, cpt);
			arch_vcpu_set_root(vcpu, root);
		}
	}
	sync_global_to_guest(vm, tb_args);
	t->ga = guest_global(vm, tb_args);
	for (uint32_t v = 0; v < o->vcpus; v++)
		vm->vcpus[v]->heartbeat = &t->ga->vcpu[v].cycles;
}

void tb_setup(struct tb *t)
{
	if (tb_arch.setup)
		tb_arch.setup(t);
	else
		setup_page_tables(t);
}
