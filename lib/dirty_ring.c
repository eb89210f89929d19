// SPDX-License-Identifier: GPL-2.0
/* The KVM dirty ring: enable it, map each vCPU's ring, harvest, reset. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dirty_log.h"
#include "dirty_ring.h"

/* The ring cap this VM offers, preferring the one with acquire/release semantics. */
static uint32_t ring_cap(struct kvm_vm *vm)
{
	if (vm_check_cap(vm, KVM_CAP_DIRTY_LOG_RING_ACQ_REL) > 0)
		return KVM_CAP_DIRTY_LOG_RING_ACQ_REL;
	if (vm_check_cap(vm, KVM_CAP_DIRTY_LOG_RING) > 0)
		return KVM_CAP_DIRTY_LOG_RING;
	return 0;
}

const char *dirty_ring_cap_name(struct kvm_vm *vm)
{
	switch (ring_cap(vm)) {
	case KVM_CAP_DIRTY_LOG_RING_ACQ_REL:
		return "KVM_CAP_DIRTY_LOG_RING_ACQ_REL";
	case KVM_CAP_DIRTY_LOG_RING:
		return "KVM_CAP_DIRTY_LOG_RING";
	}
	return NULL;
}

uint32_t dirty_ring_max_entries(struct kvm_vm *vm)
{
	uint32_t cap = ring_cap(vm);

	/* The cap's check value is the largest ring in bytes. */
	return cap ? (uint32_t)vm_check_cap(vm, cap) / sizeof(struct kvm_dirty_gfn) : 0;
}

uint32_t dirty_ring_min_entries(void)
{
	/* KVM also wants the ring to fill at least one page. */
	uint32_t page = (uint32_t)getpagesize() / sizeof(struct kvm_dirty_gfn);

	return page > DIRTY_RING_RSVD_ENTRIES ? page : DIRTY_RING_RSVD_ENTRIES;
}

uint32_t dirty_ring_enable(struct kvm_vm *vm, uint32_t entries)
{
	uint32_t cap = ring_cap(vm);
	uint32_t min = dirty_ring_min_entries(), max;
	int ret;

	if (!cap)
		test_skip("KVM_CAP_DIRTY_LOG_RING is not offered by this kernel "
			  "(x86_64 has it since 5.11, arm64 since 6.2)");
	TEST_ASSERT(!vm->nr_vcpus, "dirty_ring_enable() after %u vCPUs were created: "
		    "KVM only sizes the ring before the first vCPU", vm->nr_vcpus);
	max = dirty_ring_max_entries(vm);
	if (entries < min || entries > max || (entries & (entries - 1)))
		usage_error("--ring '%u': must be a power of two between %u and %u entries",
			    entries, min, max);

	ret = __vm_enable_cap(vm, cap, (uint64_t)entries * sizeof(struct kvm_dirty_gfn));
	if (ret == -EINVAL)
		/* The reserve also holds the CPU's dirty-log buffer (PML: 512). */
		usage_error("--ring '%u': %s refused it (EINVAL): the ring must hold KVM's "
			    "reserved entries, %u plus the CPU's dirty-log buffer; try 1024 or more",
			    entries, dirty_ring_cap_name(vm), DIRTY_RING_RSVD_ENTRIES);
	TEST_ASSERT(!ret, "KVM_ENABLE_CAP %s with %u entries failed: errno %d (%s)",
		    dirty_ring_cap_name(vm), entries, -ret, strerror(-ret));

	/*
	 * arm64 maps guest memory page by page only in memslots that have a
	 * dirty bitmap (memslot_is_logging): with the ring alone it keeps block
	 * mappings and logs one entry per 2M block.  KVM adds the bitmap
	 * beside the ring only before the first memslot.
	 */
	if (vm_check_cap(vm, KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP) > 0) {
		for (int i = 0; i < KMP_MAX_REGIONS; i++)
			TEST_ASSERT(!vm->regions[i].in_use, "dirty_ring_enable() after memslot %u "
				    "was added: KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP is accepted only "
				    "before the first (enable the ring from vm_create_hook)",
				    vm->regions[i].kr.slot);
		vm_enable_cap(vm, KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP, 0);
		vm->dirty_ring_bitmap = true;
	}
	return entries;
}

uint32_t dirty_ring_hook_entries;

void dirty_ring_vm_create_hook(struct kvm_vm *vm)
{
	dirty_ring_hook_entries = dirty_ring_enable(vm, dirty_ring_hook_entries);
}

uint64_t dirty_ring_collect_bitmap(struct kvm_vm *vm, uint32_t slot, uint64_t *bitmap,
				   uint64_t pages)
{
	uint64_t *got, added = 0;

	if (!vm->dirty_ring_bitmap)
		return 0;
	got = bitmap_alloc(pages);
	vm_get_dirty_log(vm, slot, got);
	for (uint64_t p = 0; p < pages; p++) {
		if (bitmap_test(got, p) && !bitmap_test(bitmap, p)) {
			bitmap_set(bitmap, p);
			added++;
		}
	}
	free(got);
	return added;
}

void dirty_ring_map(struct dirty_ring *r, struct kvm_vcpu *vcpu, uint32_t entries)
{
	size_t page = (size_t)getpagesize();
	void *p;

	TEST_ASSERT(entries && !(entries & (entries - 1)),
		    "dirty ring of %u entries: not a power of two", entries);
	memset(r, 0, sizeof(*r));
	r->map_len = (size_t)entries * sizeof(struct kvm_dirty_gfn);
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd,
		 (off_t)KVM_DIRTY_LOG_PAGE_OFFSET * page);
	TEST_ASSERT(p != MAP_FAILED, "mmap of vCPU %u's dirty ring (%u entries at page %d) failed%s",
		    vcpu->id, entries, KVM_DIRTY_LOG_PAGE_OFFSET,
		    errno == EINVAL ? ": was the ring enabled with this size before the vCPU existed?" : "");
	r->gfns = p;
	r->size = entries;
	r->vcpu_id = vcpu->id;
}

void dirty_ring_unmap(struct dirty_ring *r)
{
	if (r->gfns && r->map_len)
		munmap(r->gfns, r->map_len);
	r->gfns = NULL;
	r->map_len = 0;
}

uint32_t dirty_ring_harvest(struct dirty_ring *r,
			    void (*fn)(uint32_t slot, uint64_t offset, void *arg), void *arg,
			    struct dirty_ring_counts *c)
{
	uint32_t n;

	for (n = 0; n < r->size; n++) {
		struct kvm_dirty_gfn *e = &r->gfns[r->fetch & (r->size - 1)];

		/* Pairs with KVM's release store of the flags after slot and offset. */
		if ((__atomic_load_n(&e->flags, __ATOMIC_ACQUIRE) & KVM_DIRTY_GFN_F_MASK) !=
		    KVM_DIRTY_GFN_F_DIRTY)
			break;
		fn(e->slot, e->offset, arg);
		/* KVM may reuse the entry once it sees RESET: read it all first. */
		__atomic_store_n(&e->flags, KVM_DIRTY_GFN_F_RESET, __ATOMIC_RELEASE);
		r->fetch++;
	}
	if (c) {
		c->harvested += n;
		c->calls++;
		c->full_walks += n && n == r->size;
	}
	return n;
}

uint32_t dirty_ring_reset(struct kvm_vm *vm)
{
	return (uint32_t)vm_ioctl(vm, KVM_RESET_DIRTY_RINGS, NULL);
}
