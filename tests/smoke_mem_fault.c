// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 002's fixture, case by case (patches/seed-002-mem-fault-nowait.patch):
 * on a memslot with its flag, a guest fault that fast GUP cannot resolve
 * exits to userspace with the access named; a page that userspace cannot
 * make present for fast GUP (the zero page under a read-only mapping, a
 * PFNMAP mapping, a hwpoisoned page) exits once, then takes the normal path,
 * so the vCPU never loops; KVM_PRE_FAULT_MEMORY works on a flagged slot
 * where the MMU offers it; the capability agrees with the flag.
 *
 * On a kernel without the fixture, each test checks that the flag is
 * refused and the capability not offered, then skips, saying so: a pass
 * there would claim a fixture that is not there.  So make check leaves it
 * out (Makefile's FIXTURE_SMOKES), and make check-seed-002 runs it where
 * the fixture is built in and a skip fails.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "ucall.h"
#include "require.h"

#ifndef MADV_POPULATE_WRITE	/* 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

#define TEST_SLOT 1
#define MAX_EXITS 8

void guest_read(uint64_t gva);
void guest_read_write(uint64_t gva, uint64_t page_size);

struct flagged {
	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	struct mem_region *r;
	uint64_t gpa, gva;
	char *hva;
	uint32_t page;
};

/* The memory-fault exits of one run, in order, and what the guest sent back. */
struct exit_log {
	uint64_t flags[MAX_EXITS], gpa[MAX_EXITS];
	unsigned int n;
	uint64_t sync;
};

/* Exit i of log was at gpa, for the access `access` (KMP_MEMORY_EXIT_FLAG_*). */
#define EXPECT_EXIT(log, i, at, access)						\
	do {									\
		EXPECT_EQ(at, (log).gpa[i]);					\
		EXPECT_EQ(access, (log).flags[i]);				\
	} while (0)

/*
 * A one-vCPU VM running guest_code on `pages` anonymous pages at the test gpa
 * (or, with hva, on that mapping instead).  prepare() runs on the memory
 * before the flag goes on.  Returns false, the test skipped, on a kernel
 * without the fixture, once it has checked that the kernel refuses the
 * flag and does not offer the capability.
 */
static bool flagged_vm(struct __test_metadata *_metadata, struct flagged *f, void *guest_code,
		       uint64_t pages, void *hva)
{
	int ret;

	f->vm = vm_create(1, 0);
	f->page = f->vm->page_size;
	f->gpa = arch_test_mem_gpa(f->vm);
	f->r = vm_mem_add(f->vm, SRC_ANONYMOUS, f->gpa, TEST_SLOT, pages * f->page, 0);
	f->hva = f->r->backing.hva;
	if (hva) {
		/* The slot moves to the caller's mapping: delete, repoint, add. */
		vm_mem_region_delete(f->vm, TEST_SLOT);
		f->r->kr.userspace_addr = (uint64_t)(uintptr_t)hva;
		vm_mem_region_readd(f->vm, TEST_SLOT);
		f->hva = hva;
	}
	f->gva = vm_vaddr_map(f->vm, f->gpa, pages * f->page);
	f->vcpu = vm_vcpu_add(f->vm, 0, guest_code);
	vcpu_args_set(f->vcpu, 2, f->gva, (uint64_t)f->page);

	ret = __vm_mem_region_set_flags2(f->vm, TEST_SLOT, KMP_MEM_FAULT_NOWAIT);
	if (!ret) {
		ASSERT_EQ(1, kvm_check_cap(KMP_CAP_MEM_FAULT_NOWAIT))
			TH_LOG("memslot flag bit 3 taken, but KVM_CAP_MEM_FAULT_NOWAIT (0x%x) not offered",
			       KMP_CAP_MEM_FAULT_NOWAIT);
		return true;
	}
	/* No fixture: bit 3 refused (or no REGION2 ioctl), and no capability. */
	ASSERT_TRUE(ret == -EINVAL || ret == -ENOTTY) TH_LOG("memslot flag bit 3: %s", strerror(-ret));
	ASSERT_EQ(0, kvm_check_cap(KMP_CAP_MEM_FAULT_NOWAIT));
	vm_free(f->vm);
	SKIP(return false, "this kernel refuses memslot flag bit 3 (%s) and does not offer "
	     "capability 0x%x: it has no seed-002 fixture (make check-seed-002 builds one)",
	     ret == -EINVAL ? "EINVAL" : "ENOTTY", KMP_CAP_MEM_FAULT_NOWAIT);
}

/* After a write exit, make the page present and writable, as -w does. */
static void populate_on_write(struct flagged *f, uint64_t flags, uint64_t gpa)
{
	char *page = f->hva + ((gpa - f->gpa) & ~(uint64_t)(f->page - 1));

	if (flags & KMP_MEMORY_EXIT_FLAG_WRITE)
		TEST_ASSERT(!madvise(page, f->page, MADV_POPULATE_WRITE),
			    "MADV_POPULATE_WRITE after a write exit: %s", strerror(errno));
}

/*
 * Run the guest to GUEST_DONE, logging each memory-fault exit and re-entering
 * (after fix(), if given).  More than MAX_EXITS exits: the vCPU loops.
 */
static void run_logging(struct __test_metadata *_metadata, struct flagged *f,
			struct exit_log *log,
			void (*fix)(struct flagged *, uint64_t flags, uint64_t gpa))
{
	struct kvm_memory_fault_info *mf = kvm_run_memory_fault(f->vcpu->run);
	struct ucall uc;

	memset(log, 0, sizeof(*log));
	for (;;) {
		if (_vcpu_run(f->vcpu) < 0) {
			ASSERT_TRUE(vcpu_memory_fault_exit(f->vcpu))
				TH_LOG("KVM_RUN failed: %s, exit reason %u", strerror(errno),
				       f->vcpu->last_exit_reason);
			ASSERT_LT(log->n, MAX_EXITS)
				TH_LOG("more than %d memory-fault exits, the last at gpa 0x%llx: "
				       "the vCPU loops", MAX_EXITS, (unsigned long long)mf->gpa);
			log->flags[log->n] = mf->flags;
			log->gpa[log->n++] = mf->gpa;
			if (fix)
				fix(f, mf->flags, mf->gpa);
			continue;
		}
		switch (get_ucall(f->vcpu, &uc)) {
		case UCALL_SYNC:
			log->sync = uc.args[0];
			break;
		case UCALL_DONE:
			return;
		case UCALL_ABORT:
			ucall_report_abort(f->vcpu, &uc);
		default:
			ASSERT_TRUE(false) TH_LOG("unexpected exit: %s",
						  exit_reason_str(f->vcpu->last_exit_reason));
		}
	}
}

TEST(the_capability_agrees_with_the_flag)
{
	struct flagged f;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read, 1, NULL))
		return;
	/* flagged_vm() checked the capability; the flag also comes off again. */
	ASSERT_EQ(0, __vm_mem_region_set_flags2(f.vm, TEST_SLOT, 0));
	vm_free(f.vm);
}

TEST(exits_name_the_access)
{
	struct exit_log log;
	struct flagged f;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read_write, 2, NULL))
		return;
	run_logging(_metadata, &f, &log, populate_on_write);
	/*
	 * The read of page 0 exits and, left unsupplied, maps the zero page on
	 * re-entry; the write to page 1 exits; the write to page 0 exits again
	 * (the zero page is not writable).  Each names its gpa and access.
	 */
	ASSERT_EQ(3, log.n);
	EXPECT_EXIT(log, 0, f.gpa, KMP_MEMORY_EXIT_FLAG_READ);
	EXPECT_EXIT(log, 1, f.gpa + f.page, KMP_MEMORY_EXIT_FLAG_WRITE);
	EXPECT_EXIT(log, 2, f.gpa, KMP_MEMORY_EXIT_FLAG_WRITE);
	EXPECT_EQ(2, *(uint64_t *)f.hva);
	vm_free(f.vm);
}

TEST(a_present_read_only_page_serves_reads_without_an_exit)
{
	const uint64_t pattern = 0x5a5a0002c0ffee00ULL;
	struct exit_log log;
	struct flagged f;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read, 1, NULL))
		return;
	*(uint64_t *)f.hva = pattern;
	ASSERT_EQ(0, mprotect(f.hva, f.page, PROT_READ));
	run_logging(_metadata, &f, &log, NULL);
	/* Fast GUP's read-only pin finds the page: no exit at all. */
	EXPECT_EQ(0, log.n);
	EXPECT_EQ(pattern, log.sync);
	vm_free(f.vm);
}

TEST(the_zero_page_under_a_read_only_mapping_exits_once)
{
	struct exit_log log;
	struct flagged f;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read, 1, NULL))
		return;
	ASSERT_EQ(0, mprotect(f.hva, f.page, PROT_READ));
	ASSERT_EQ(0, *(volatile uint64_t *)f.hva);	/* the host maps the zero page */
	run_logging(_metadata, &f, &log, NULL);
	/* Fast GUP never pins the zero page: one exit, then the normal path. */
	ASSERT_EQ(1, log.n);
	EXPECT_EXIT(log, 0, f.gpa, KMP_MEMORY_EXIT_FLAG_READ);
	EXPECT_EQ(0, log.sync);
	vm_free(f.vm);
}

/* The first page of this process's [vvar] mapping (VM_PFNMAP | VM_IO), or NULL. */
static void *vvar_page(void)
{
	unsigned long start = 0;
	char line[256];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return NULL;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vvar]") && sscanf(line, "%lx-", &start) == 1)
			break;
	fclose(maps);
	return (void *)start;
}

TEST(a_pfnmap_mapping_exits_once)
{
	struct exit_log log;
	struct flagged f;
	void *vvar;

	REQUIRE_KVM();
	vvar = vvar_page();
	if (!vvar)
		SKIP(return, "this process has no [vvar] mapping (no vDSO)");
	if (!flagged_vm(_metadata, &f, guest_read, 1, vvar))
		return;
	run_logging(_metadata, &f, &log, NULL);
	/* Fast GUP never pins PFNMAP memory: one exit, then the normal path. */
	ASSERT_EQ(1, log.n);
	EXPECT_EXIT(log, 0, f.gpa, KMP_MEMORY_EXIT_FLAG_READ);
	vm_free(f.vm);
}

TEST(pre_fault_maps_a_flagged_page_where_the_mmu_offers_it)
{
	struct kvm_pre_fault_memory range = { 0 };
	struct exit_log log;
	struct flagged f;
	int ret;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read, 1, NULL))
		return;
	range.gpa = f.gpa;
	range.size = f.page;
	ret = ioctl(f.vcpu->fd, KVM_PRE_FAULT_MEMORY, &range);
	if (!vm_check_cap(f.vm, KVM_CAP_PRE_FAULT_MEMORY)) {
		/* x86 offers it with two-dimensional paging only (not shadow paging). */
		ASSERT_EQ(-1, ret);
		ASSERT_EQ(EOPNOTSUPP, errno);
		vm_free(f.vm);
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("KVM_PRE_FAULT_MEMORY: %s", strerror(errno));
	EXPECT_EQ(0, range.size);
	/* A prefetch takes the normal path: the page is mapped, the read never exits. */
	run_logging(_metadata, &f, &log, NULL);
	EXPECT_EQ(0, log.n);
	EXPECT_EQ(0, log.sync);
	vm_free(f.vm);
}

static volatile sig_atomic_t mceerr_signals;
static void *volatile mceerr_addr;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code == BUS_MCEERR_AR) {
		mceerr_signals++;
		mceerr_addr = si->si_addr;
	}
}

TEST(a_hwpoisoned_page_exits_once_then_signals)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	struct host_desc d;
	struct flagged f;
	int before, ret, err;

	REQUIRE_KVM();
	if (!flagged_vm(_metadata, &f, guest_read, 1, NULL))
		return;
	host_desc_read(&d);
	if (!d.emulated[0]) {
		vm_free(f.vm);
		SKIP(return, "poisons a page of this host for good: runs on emulated hosts only");
	}
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	*(volatile uint64_t *)f.hva = 1;
	if (madvise(f.hva, f.page, MADV_HWPOISON)) {
		err = errno;
		vm_free(f.vm);
		if (err == EINVAL)
			SKIP(return, "MADV_HWPOISON: EINVAL (a kernel without CONFIG_MEMORY_FAILURE)");
		ASSERT_EQ(0, err) TH_LOG("MADV_HWPOISON: %s", strerror(err));
	}
	/* The first fault misses fast GUP and exits, naming the read... */
	ASSERT_EQ(-1, __vcpu_run(f.vcpu));
	ASSERT_TRUE(vcpu_memory_fault_exit(f.vcpu)) TH_LOG("KVM_RUN: %s", strerror(errno));
	EXPECT_EQ(f.gpa, kvm_run_memory_fault(f.vcpu->run)->gpa);
	EXPECT_EQ(KMP_MEMORY_EXIT_FLAG_READ, kvm_run_memory_fault(f.vcpu->run)->flags);
	/* ...the second takes the normal path, which signals the poison. */
	before = mceerr_signals;
	ret = __vcpu_run(f.vcpu);
	err = errno;
	ASSERT_FALSE(ret && vcpu_memory_fault_exit(f.vcpu))
		TH_LOG("a second memory-fault exit at gpa 0x%llx: the vCPU loops",
		       (unsigned long long)kvm_run_memory_fault(f.vcpu->run)->gpa);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EINTR, err);
	EXPECT_EQ(before + 1, mceerr_signals);
	EXPECT_EQ((void *)f.hva, mceerr_addr);
	vm_free(f.vm);
}

TEST_HARNESS_MAIN
