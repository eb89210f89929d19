// SPDX-License-Identifier: GPL-2.0
/*
 * -w: memory-fault exits.  Instead of sleeping in userfaultfd until a
 * reader resolves the fault, the vCPU exits to its own thread with
 * KVM_EXIT_MEMORY_FAULT (KVM_RUN fails with EFAULT and run->memory_fault
 * says which gpa); the thread resolves the page itself without a wake
 * (nobody sleeps on it), or, if a reader already resolved it, makes it
 * present with MADV_POPULATE_WRITE, and re-enters the guest.
 *
 * Whether the running kernel exits instead of waiting is probed, not
 * assumed: KVM_CAP_MEMORY_FAULT_INFO and the fixture's capability must be
 * offered, and a one-vCPU probe VM must actually exit on a page its
 * userfaultfd has not resolved.
 */
#include <errno.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>

#include "dp.h"
#include "report.h"

#ifndef MADV_POPULATE_WRITE	/* 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

bool mem_fault_on_exit(struct memstress *ms, struct kvm_vcpu *vcpu)
{
	struct dp_run *run = ms->priv;
	struct kvm_memory_fault_info *mf = kvm_run_memory_fault(vcpu->run);
	uint64_t hva, page;
	struct uffd_region *r;

	if (vcpu->last_exit_reason != KVM_EXIT_MEMORY_FAULT || !run->mem_fault_exits)
		return false;
	hva = (uint64_t)(uintptr_t)addr_gpa2hva(ms->vm, mf->gpa);
	r = dp_region_of(run, hva);
	page = ALIGN_DOWN(hva, r->page_size);
	__atomic_add_fetch(&run->mem_fault_exits_seen, 1, __ATOMIC_RELAXED);
	if (uffd_region_resolve(r, page, false, &run->vcpu_stats[vcpu->id]) == -EEXIST) {
		/* Resolved already (by a reader): make it present for fast GUP. */
		__atomic_add_fetch(&run->mem_fault_eexist, 1, __ATOMIC_RELAXED);
		TEST_ASSERT(!madvise((void *)(uintptr_t)page, r->page_size, MADV_POPULATE_WRITE),
			    "MADV_POPULATE_WRITE of 0x%lx after a memory-fault exit",
			    (unsigned long)page);
	}
	return true;
}

/*
 * The seed-002 patch's memslot flag (patches/seed-002-mem-fault-nowait.patch,
 * kvm_compat.h).  Bit 3 has this meaning in no merged kernel, and later
 * series proposed it for other flags: neither the ioctl taking it nor the
 * capability proves anything alone, so the probe also checks that a fault
 * on an unsupplied page really exits.
 */
const char mem_fault_mechanism[] =
	"KVM_MEM_FAULT_NOWAIT memslot flag (bit 3, patches/seed-002-mem-fault-nowait.patch) "
	"set with KVM_SET_USER_MEMORY_REGION2";

int mem_fault_enable(struct memstress *ms)
{
	for (uint32_t i = 0; i < ms->p.slots; i++) {
		uint32_t slot = memstress_slot(ms, i);
		uint32_t flags = vm_mem_region(ms->vm, slot)->kr.flags;
		int ret = __vm_mem_region_set_flags2(ms->vm, slot, flags | KMP_MEM_FAULT_NOWAIT);

		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the probe ---- */

static volatile int probe_exited;

static bool probe_on_exit(struct memstress *ms, struct kvm_vcpu *vcpu)
{
	struct dp_run *run = ms->priv;

	if (vcpu->last_exit_reason != KVM_EXIT_MEMORY_FAULT)
		return false;
	probe_exited = 1;
	/* Let the probe finish through the normal path. */
	run->mem_fault_exits = true;
	return mem_fault_on_exit(ms, vcpu);
}

/*
 * The post's feature, in each form it was posted in: none was merged.  Not
 * probed by capability number: merged caps reuse those numbers.
 */
static const char feature_forms[] =
	"the exit itself came in forms no merged kernel has: the post's "
	"KVM_CAP_MEM_FAULT_NOWAIT, the later KVM_CAP_EXIT_ON_MISSING (both Anish "
	"Moorthy's series) and the KVM Userfault memslot flag (James Houghton's series)";

static const char *probe(const struct dp_opts *o)
{
	static char reason[512];
	struct memstress_params p;
	struct dp_opts po = *o;
	struct dp_run run = { .o = &po };
	struct mem_region *slot;
	struct pollfd pfd;
	bool waited = false;
	int ret;

	memstress_params_init(&p);
	p.src = o->ms.src;
	p.vcpu_bytes = backing_src_page_size(p.src) * 4;
	po.src.kind = PAGE_SRC_ZERO;
	po.delay_us = 0;
	run.ms = memstress_create(&p);
	run.ms->priv = &run;
	run.ms->gargs->check_content = MEMSTRESS_CHECK_ZERO;
	run.ms->on_exit = probe_on_exit;
	/* Part one: does the memslot ioctl take the flag at all? */
	ret = mem_fault_enable(run.ms);
	if (ret) {
		memstress_destroy(run.ms);
		if (ret == -ENOTTY)
			snprintf(reason, sizeof(reason), "KVM_SET_USER_MEMORY_REGION2 is not "
				 "offered (ENOTTY; Linux 6.8 added it), so no memslot can carry the "
				 "seed-002 flag; %s", feature_forms);
		else
			snprintf(reason, sizeof(reason), "KVM_SET_USER_MEMORY_REGION2 refused memslot "
				 "flag bit 3 (%s): this kernel lacks "
				 "patches/seed-002-mem-fault-nowait.patch; %s",
				 ret == -EINVAL ? "EINVAL" : strerror(-ret), feature_forms);
		return reason;
	}
	/* Part two: the fixture's capability, which no merged kernel offers. */
	if (kvm_check_cap(KMP_CAP_MEM_FAULT_NOWAIT) != 1) {
		memstress_destroy(run.ms);
		snprintf(reason, sizeof(reason), "KVM_SET_USER_MEMORY_REGION2 took memslot flag "
			 "bit 3, but capability 0x%x (KVM_CAP_MEM_FAULT_NOWAIT of "
			 "patches/seed-002-mem-fault-nowait.patch) is not offered, so bit 3 means "
			 "something else here; %s", KMP_CAP_MEM_FAULT_NOWAIT, feature_forms);
		return reason;
	}
	/* Part three: a fault on a page not supplied yet must exit, not wait. */
	slot = vm_mem_region(run.ms->vm, memstress_slot(run.ms, 0));
	run.nr_regions = 1;
	run.regions = calloc(1, sizeof(*run.regions));
	TEST_ASSERT(run.regions, "out of memory");
	uffd_region_init(&run.regions[0], o->mode, slot->backing.hva, slot->backing.alias,
			 run.ms->size, slot->backing.page_size, &po.src, 0, 0);

	probe_exited = 0;
	memstress_start(run.ms);
	/* Either the vCPU exits to its thread, or a fault waits on the uffd. */
	pfd = (struct pollfd){ .fd = run.regions[0].uffd, .events = POLLIN };
	for (int i = 0; i < 200 && !probe_exited && !waited; i++)
		waited = poll(&pfd, 1, 10) > 0 && !probe_exited;
	/* Readers let a waiting vCPU finish (messages stay queued until read). */
	uffd_region_start(&run.regions[0], 1);
	memstress_wait_iteration(run.ms);
	memstress_stop(run.ms);
	uffd_region_stop(&run.regions[0]);
	uffd_region_free(&run.regions[0]);
	free(run.regions);
	memstress_destroy(run.ms);

	if (probe_exited)
		return NULL;
	snprintf(reason, sizeof(reason), "KVM_SET_USER_MEMORY_REGION2 took memslot flag bit 3, "
		 "but this kernel's KVM waits in userfaultfd instead of exiting with "
		 "KVM_EXIT_MEMORY_FAULT: the probe vCPU %s, so bit 3 means something else here; %s",
		 waited ? "blocked on its uffd" : "never exited", feature_forms);
	return reason;
}

const char *mem_fault_unsupported_reason(const struct dp_opts *o)
{
	static bool probed;
	static const char *reason;

	if (probed)
		return reason;
	probed = true;
	if (!kvm_check_cap(KVM_CAP_MEMORY_FAULT_INFO)) {
		static char text[384];

		snprintf(text, sizeof(text), "KVM_CAP_MEMORY_FAULT_INFO (Linux 6.8) is not offered "
			 "by this kernel, and %s", feature_forms);
		reason = text;
	} else {
		reason = probe(o);
	}
	return reason;
}
