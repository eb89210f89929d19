// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's hash page table, filled by the host: each mapping is recorded
 * here (for gva -> gpa lookups and for rehashing) and written to KVM's HPT
 * through the HTAB fd, as if the guest had done H_ENTER with H_EXACT.
 *
 * The HPT starts at 256 KiB (order 18, 2048 groups of 8) and doubles when
 * it is half full or a page's two groups have no free slot, before any vCPU
 * runs (KVM_PPC_ALLOCATE_HTAB clears it, guests' own HPTEs included).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hpt.h"
#include "kvm_util.h"

#define HPT_MIN_ORDER 18
#define HPT_MAX_ORDER 28		/* 256 MiB: 16M HPTEs, 64 GiB of 4K pages */

/* The record: segment-0 page index (28 bits) split 10/9/9. */
#define MAP_TOP 1024
#define MAP_NODE 512

uint64_t ppc_hpt_mask;			/* the guest's copy is the one that matters */

static uint64_t hpt_entries(struct kvm_vm *vm)
{
	return 1ULL << (vm->arch.hpt_order - 4);	/* 16 bytes each */
}

static void hpt_alloc(struct kvm_vm *vm, uint32_t order)
{
	uint32_t o = order;

	TEST_ASSERT(order <= HPT_MAX_ORDER,
		    "the guest's mappings need an HPT above 2^%u bytes; map less memory",
		    HPT_MAX_ORDER);
	if (__vm_ioctl(vm, KVM_PPC_ALLOCATE_HTAB, &o) < 0)
		TEST_FAIL("KVM_PPC_ALLOCATE_HTAB (order %u) failed: errno %d (%s)%s", order, errno,
			  strerror(errno), errno == ENOMEM ?
			  "; the host has no contiguous memory left for the HPT (kvm_cma_resv_ratio)" :
			  errno == EBUSY ? "; a vCPU is running" :
			  "; this kvm-hv cannot run HPT guests (a nested, radix-only host?)");
	vm->arch.hpt_order = order;
	vm->arch.hptes = 0;
	free(vm->arch.used);
	vm->arch.used = calloc(hpt_entries(vm), 1);
	TEST_ASSERT(vm->arch.used, "out of memory");
}

/* One HPTE through the HTAB fd: a header, then the two doublewords big-endian. */
static void hpt_write(struct kvm_vm *vm, uint64_t ptex, uint64_t v, uint64_t r)
{
	struct {
		struct kvm_get_htab_header hdr;
		uint64_t v, r;
	} rec = {
		.hdr = { .index = ptex, .n_valid = 1, .n_invalid = 0 },
		.v = htobe64(v),
		.r = htobe64(r),
	};
	ssize_t n = write(vm->arch.htab_fd, &rec, sizeof(rec));

	TEST_ASSERT(n == sizeof(rec), "HTAB write of HPTE %lu (v 0x%lx r 0x%lx) failed: %s%s",
		    (unsigned long)ptex, (unsigned long)v, (unsigned long)r,
		    n < 0 ? strerror(errno) : "short write",
		    n < 0 && errno == EIO ? "; KVM's H_ENTER refused it (the kernel log says why)" :
		    n < 0 && errno == EBUSY ? "; a vCPU is running" : "");
}

/* Put ea's HPTE in a free host slot of its primary, else secondary, group; false if none. */
static bool hpt_insert(struct kvm_vm *vm, uint64_t ea, uint64_t gpa)
{
	uint64_t hash = hpt_hash(PPC_LIB_VSID, ea), mask = (hpt_entries(vm) >> 3) - 1;

	for (int secondary = 0; secondary < 2; secondary++) {
		uint64_t group = (secondary ? ~hash : hash) & mask;

		for (uint64_t s = 0; s < HPT_HOST_SLOTS; s++) {
			uint64_t ptex = group * HPTES_PER_GROUP + s;

			if (vm->arch.used[ptex])
				continue;
			vm->arch.used[ptex] = 1;
			vm->arch.hptes++;
			hpt_write(vm, ptex, hpte_v(PPC_LIB_VSID, ea) | HPTE_V_BOLTED | HPTE_V_VALID |
				  (secondary ? HPTE_V_SECONDARY : 0), hpte_r(gpa, HPTE_R_PP_RW));
			return true;
		}
	}
	return false;
}

static uint64_t *record_entry(struct kvm_vm *vm, uint64_t ea, bool create)
{
	uint64_t idx = ea >> 12, ***top = vm->arch.map;
	uint64_t **mid, *leaf;

	mid = top[idx >> 18];
	if (!mid) {
		if (!create)
			return NULL;
		mid = top[idx >> 18] = calloc(MAP_NODE, sizeof(*mid));
		TEST_ASSERT(mid, "out of memory");
	}
	leaf = mid[(idx >> 9) & (MAP_NODE - 1)];
	if (!leaf) {
		if (!create)
			return NULL;
		leaf = mid[(idx >> 9) & (MAP_NODE - 1)] = calloc(MAP_NODE, sizeof(*leaf));
		TEST_ASSERT(leaf, "out of memory");
	}
	return &leaf[idx & (MAP_NODE - 1)];
}

/* Every recorded page into the (fresh) HPT; false if some page found no slot. */
static bool hpt_rewrite(struct kvm_vm *vm)
{
	for (uint64_t t = 0; t < MAP_TOP; t++) {
		uint64_t **mid = vm->arch.map[t];

		for (uint64_t m = 0; mid && m < MAP_NODE; m++) {
			uint64_t *leaf = mid[m];

			for (uint64_t l = 0; leaf && l < MAP_NODE; l++) {
				uint64_t ea = ((t << 18) | (m << 9) | l) << 12;

				if (leaf[l] && !hpt_insert(vm, ea, leaf[l] & ~1ULL))
					return false;
			}
		}
	}
	return true;
}

static void hpt_grow(struct kvm_vm *vm)
{
	/* A vCPU that ran may have HPTEs of its own, which a new HPT would drop. */
	for (uint32_t i = 0; i < vm->nr_vcpus; i++)
		TEST_ASSERT(!vm->vcpus[i]->last_exit_reason && !vm->vcpus[i]->run->exit_reason,
			    "the HPT must grow (order %u) after vCPU %u ran; map guest memory "
			    "before running vCPUs", vm->arch.hpt_order + 1, vm->vcpus[i]->id);
	for (uint32_t order = vm->arch.hpt_order + 1;; order++) {
		hpt_alloc(vm, order);
		if (hpt_rewrite(vm))
			break;
	}
	hpt_publish(vm);
}

void hpt_init(struct kvm_vm *vm)
{
	struct kvm_get_htab_fd ghf = { .flags = KVM_GET_HTAB_WRITE };

	vm->arch.map = calloc(MAP_TOP, sizeof(*vm->arch.map));
	TEST_ASSERT(vm->arch.map, "out of memory");
	hpt_alloc(vm, HPT_MIN_ORDER);
	vm->arch.htab_fd = vm_ioctl(vm, KVM_PPC_GET_HTAB_FD, &ghf);
}

void hpt_map(struct kvm_vm *vm, uint64_t ea, uint64_t gpa)
{
	uint64_t *e;

	TEST_ASSERT(ea < PPC_SEG_SIZE && IS_ALIGNED(ea | gpa, SZ_4K),
		    "gva 0x%lx: the library maps 4K-aligned gvas below 1 TiB (segment 0)",
		    (unsigned long)ea);
	e = record_entry(vm, ea, true);
	TEST_ASSERT(!*e, "gva 0x%lx is already mapped", (unsigned long)ea);
	*e = gpa | 1;
	/* Keep the HPT at most half full: H_ENTERs of tests find free slots. */
	if ((vm->arch.hptes + 1) * 2 > hpt_entries(vm) || !hpt_insert(vm, ea, gpa))
		hpt_grow(vm);
}

uint64_t hpt_lookup(struct kvm_vm *vm, uint64_t ea)
{
	uint64_t *e;

	if (ea >= PPC_SEG_SIZE)
		return -1ULL;
	e = record_entry(vm, ea, false);
	return e && *e ? (*e & ~1ULL) | (ea & 0xfff) : -1ULL;
}

void hpt_publish(struct kvm_vm *vm)
{
	if (vm->elf_end)
		*guest_global(vm, ppc_hpt_mask) = (hpt_entries(vm) >> 3) - 1;
}

void hpt_free(struct kvm_vm *vm)
{
	/* The HTAB fd holds a reference on the VM: without this close it would never go. */
	if (vm->arch.htab_fd > 0)
		close(vm->arch.htab_fd);
	for (uint64_t t = 0; vm->arch.map && t < MAP_TOP; t++) {
		for (uint64_t m = 0; vm->arch.map[t] && m < MAP_NODE; m++)
			free(vm->arch.map[t][m]);
		free(vm->arch.map[t]);
	}
	free(vm->arch.map);
	free(vm->arch.used);
}
