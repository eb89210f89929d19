/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KVM dirty ring: per-vCPU rings of (slot, offset) entries that KVM
 * pushes when a vCPU dirties a page of a memslot with KVM_MEM_LOG_DIRTY_PAGES.
 *
 *   entries = dirty_ring_enable(vm, entries);     before the first vCPU
 *   vcpu = vm_vcpu_add(...);
 *   dirty_ring_map(&ring, vcpu, entries);
 *   ... run; on KVM_EXIT_DIRTY_RING_FULL or whenever the host wants:
 *   dirty_ring_harvest(&ring, fn, arg, &counts);  every vCPU's ring
 *   dirty_ring_reset(vm);                          entries back to KVM
 *   dirty_ring_unmap(&ring);                       before vm_free()
 *
 * A harvested page is write-protected again only by dirty_ring_reset(), so
 * a page written again before the reset may not be pushed again.
 */
#ifndef KMP_DIRTY_RING_H
#define KMP_DIRTY_RING_H

#include <stddef.h>
#include <stdint.h>

#include "kvm_util.h"

/*
 * KVM keeps this many entries of every ring in reserve: once a ring holds
 * (size - reserve) entries the vCPU exits with KVM_EXIT_DIRTY_RING_FULL,
 * and the reserve absorbs the pages it dirties before it gets there.
 * (KVM adds the CPU's own dirty-log buffer to it, e.g. 512 with Intel PML.)
 */
#define DIRTY_RING_RSVD_ENTRIES 64

/*
 * Enable the dirty ring on a VM that has no vCPU yet, with `entries` entries
 * per vCPU: KVM_CAP_DIRTY_LOG_RING_ACQ_REL when offered, else
 * KVM_CAP_DIRTY_LOG_RING.  entries must be a power of two, hold KVM's
 * reserve, fill at least one host page, and fit the cap's maximum: otherwise
 * a usage error naming --ring.  Skips when neither cap is offered.
 * Where KVM offers KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP (arm64), it is enabled
 * too, which KVM allows only while the VM has no memslot: call this from
 * vm_create_hook there (dirty_ring_vm_create_hook() does).
 * Returns entries.
 */
uint32_t dirty_ring_enable(struct kvm_vm *vm, uint32_t entries);
/*
 * vm_create_hook that enables a ring of dirty_ring_hook_entries entries
 * (dirty_ring_enable(), so the result may be read back from there).
 */
extern uint32_t dirty_ring_hook_entries;
void dirty_ring_vm_create_hook(struct kvm_vm *vm);
/*
 * With the bitmap beside the ring: KVM_GET_DIRTY_LOG of slot, after the
 * rings were harvested, as KVM wants it collected; its pages (those dirtied
 * outside any vCPU's context, which the ring cannot log) are OR'd into
 * bitmap of `pages` pages.  Returns how many it added; 0 without a bitmap.
 */
uint64_t dirty_ring_collect_bitmap(struct kvm_vm *vm, uint32_t slot, uint64_t *bitmap,
				   uint64_t pages);
/* The cap dirty_ring_enable() uses on this VM ("KVM_CAP_DIRTY_LOG_RING..."), NULL if none. */
const char *dirty_ring_cap_name(struct kvm_vm *vm);
/* Largest ring KVM offers on this VM, in entries (0: no dirty ring). */
uint32_t dirty_ring_max_entries(struct kvm_vm *vm);
/* Smallest ring dirty_ring_enable() accepts, in entries. */
uint32_t dirty_ring_min_entries(void);

/* One vCPU's ring, mapped from its fd. */
struct dirty_ring {
	struct kvm_dirty_gfn *gfns;
	uint32_t size;		/* entries, a power of two */
	uint32_t fetch;		/* free-running index of the next entry to harvest */
	size_t map_len;		/* bytes mapped (0 when gfns is not an mmap) */
	uint32_t vcpu_id;
};

struct dirty_ring_counts {
	uint64_t harvested;	/* entries handed to fn */
	uint64_t calls;		/* dirty_ring_harvest() calls */
	/*
	 * Calls that found every entry of the ring dirty and stopped there:
	 * KVM let the ring fill up past its reserve, and each further push
	 * overwrote an entry (WARNING in kvm_dirty_ring_push).  Never
	 * happens when KVM honours the reserve.
	 */
	uint64_t full_walks;
};

/* Map vcpu's ring of `entries` (dirty_ring_enable()'s result). */
void dirty_ring_map(struct dirty_ring *r, struct kvm_vcpu *vcpu, uint32_t entries);
void dirty_ring_unmap(struct dirty_ring *r);

/*
 * Hand every dirty entry from r->fetch on to fn(slot, offset, arg), in ring
 * order, and mark it harvested.  slot is KVM's (address space << 16 | slot
 * id) and offset the page index in that slot, exactly as KVM wrote them: fn
 * decides whether they are valid.  Never walks more than the ring's size in
 * one call.  Returns the entries harvested; adds to *c when c is not NULL.
 */
uint32_t dirty_ring_harvest(struct dirty_ring *r,
			    void (*fn)(uint32_t slot, uint64_t offset, void *arg), void *arg,
			    struct dirty_ring_counts *c);

/*
 * KVM_RESET_DIRTY_RINGS: KVM takes back the harvested entries of every
 * vCPU's ring and write-protects their pages again.  Returns the number of
 * entries KVM reset.
 */
uint32_t dirty_ring_reset(struct kvm_vm *vm);

#endif
