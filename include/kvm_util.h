/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VMs, vCPUs and guest memory through /dev/kvm.  Every failing ioctl fails
 * the test with the ioctl's name, errno and advice.
 */
#ifndef KMP_KVM_UTIL_H
#define KMP_KVM_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "account.h"
#include "kvm_compat.h"
#include "backing.h"
#include "guest_modes.h"
#include "test_util.h"
#include "processor.h"		/* arch: struct vm_arch, struct vcpu_arch */

#define KMP_MAX_VCPUS 1024
#define KMP_MAX_REGIONS 512

/* Guest memory slot 0 holds the test binary, page tables, stacks, GDT... */
#define SYS_SLOT 0
/* Guest virtual addresses handed out by vm_vaddr_alloc() start here (arch may move it). */
#ifndef SYS_VADDR_BASE
#define SYS_VADDR_BASE 0x10000000ULL
#endif
/* KVM_CREATE_VM's machine type: <arch>/processor.h may set one (powerpc: KVM_VM_PPC_HV). */
#ifndef ARCH_VM_TYPE
#define ARCH_VM_TYPE 0
#endif
#define VCPU_STACK_SIZE (32 * 1024)
/* Slot 0 room per vCPU for vm_vaddr_alloc()ed per-vCPU data. */
#define VCPU_DATA_SIZE (1024 * 1024)

struct mem_region {
	struct kvm_userspace_memory_region kr;
	struct backing backing;
	bool in_use;
};

enum vcpu_state {
	VCPU_IDLE,		/* not started, or finished */
	VCPU_IN_GUEST,		/* inside KVM_RUN or about to enter */
	VCPU_IN_HOST,		/* waiting for the host on purpose (not stuck) */
};

struct kvm_vm;

struct kvm_vcpu {
	struct kvm_vm *vm;
	uint32_t id;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	uint64_t stack_gva;
	/* Watchdog support: progress moves on each ucall and guest heartbeat. */
	volatile uint64_t progress;
	volatile uint64_t *heartbeat;	/* host view of a guest counter, or NULL */
	volatile int state;		/* enum vcpu_state */
	uint32_t last_exit_reason;
	uint64_t run_ns;		/* time inside KVM_RUN, with KMP_ACCOUNT (account.h) */
	uint64_t run_first_ns;		/* ...its first entry since the last vCPU region began */
	uint64_t run_exit_ns;		/* ...its last exit */
	pthread_t thread;
	pid_t tid;			/* the thread's, once it runs (/proc/self/task/TID) */
	bool has_thread;
	struct vcpu_arch arch;
};

struct kvm_vm {
	int kvm_fd;
	int fd;
	enum guest_mode mode;		/* -m */
	unsigned int page_size;		/* guest base page size */
	unsigned int pa_bits, va_bits;
	uint32_t max_vcpus;
	uint32_t max_memslots;
	struct mem_region regions[KMP_MAX_REGIONS];
	/* Bump allocators: guest physical pages in slot 0, guest virtual space. */
	uint64_t sys_gpa_next, sys_gpa_end;
	uint64_t vaddr_next;
	uint64_t pgd;			/* root of the guest's page tables (gpa) */
	uint64_t elf_end;		/* highest gva used by the loaded binary */
	struct kvm_vcpu *vcpus[KMP_MAX_VCPUS];
	uint32_t nr_vcpus;
	/* KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP enabled: collect the bitmap too. */
	bool dirty_ring_bitmap;
	struct vm_arch arch;
};

/*
 * /dev/kvm, opened once.  Missing, unopenable or not KVM (kvm_unavailable_reason):
 * skip (fail if KMP_REQUIRE_KVM=1).
 */
int kvm_dev_fd(void);
/*
 * NULL when /dev/kvm is KVM a guest can run on: it opens, KVM_GET_API_VERSION
 * is 12 and KVM_CREATE_VM works; else why not, and what to do (the skip's
 * reason).  tools/kmp_kvm says it for run.sh, ktap-run.sh and .ci/run.
 */
const char *kvm_unavailable_reason(void);
/* KVM_CHECK_EXTENSION on /dev/kvm; 0 when unsupported. */
int kvm_check_cap(long cap);
int vm_check_cap(struct kvm_vm *vm, long cap);
/* KVM_ENABLE_CAP on the VM; returns 0 or -errno (no assertion: callers decide). */
int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);
/* Re-set memslot `slot` with `flags` through KVM_SET_USER_MEMORY_REGION2: 0 or -errno. */
int __vm_mem_region_set_flags2(struct kvm_vm *vm, uint32_t slot, uint32_t flags);
void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);

/*
 * A VM with slot 0 sized for `extra_pages` more guest pages of test memory
 * (their page tables) and `nr_vcpus` stacks, the test binary loaded into it,
 * and the arch's paging/descriptor setup done.  No vCPUs yet.
 */
struct kvm_vm *vm_create(uint32_t nr_vcpus, uint64_t extra_pages);
/* The same in guest mode `mode` (vm_create(): the arch's default mode). */
struct kvm_vm *vm_create_mode(enum guest_mode mode, uint32_t nr_vcpus, uint64_t extra_pages);
/*
 * Called by vm_create() right after KVM_CREATE_VM, before slot 0 exists:
 * for VM capabilities KVM only accepts while no memslot exists (e.g.
 * KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE).  NULL: nothing to do.
 */
extern void (*vm_create_hook)(struct kvm_vm *vm);
void vm_free(struct kvm_vm *vm);

/* Add a vCPU that starts at guest_code(args set by vcpu_args_set) on its own stack. */
struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code);
/* Up to 6 integer arguments for the guest entry function. */
void vcpu_args_set(struct kvm_vcpu *vcpu, int n, ...);

/*
 * A memslot of `size` bytes at `gpa`, backed by `src`.  flags are
 * KVM_MEM_* (e.g. KVM_MEM_LOG_DIRTY_PAGES).  Returns the region.
 */
struct mem_region *vm_mem_add(struct kvm_vm *vm, enum backing_src_type src,
			      uint64_t gpa, uint32_t slot, uint64_t size, uint32_t flags);
struct mem_region *vm_mem_region(struct kvm_vm *vm, uint32_t slot);
void vm_mem_region_set_flags(struct kvm_vm *vm, uint32_t slot, uint32_t flags);
void vm_mem_region_move(struct kvm_vm *vm, uint32_t slot, uint64_t new_gpa);
void vm_mem_region_delete(struct kvm_vm *vm, uint32_t slot);
/* Re-add a deleted slot with the same memory (keeps contents). */
void vm_mem_region_readd(struct kvm_vm *vm, uint32_t slot);

/* Allocate zeroed guest physical pages from slot 0. */
uint64_t vm_phy_pages_alloc(struct kvm_vm *vm, uint64_t npages);
/*
 * Map existing guest physical memory [gpa, gpa + size) at fresh guest
 * virtual addresses (one unmapped guard page after); returns the gva.
 */
uint64_t vm_vaddr_map(struct kvm_vm *vm, uint64_t gpa, uint64_t size);
/* Allocate and map `size` bytes of guest virtual memory; returns the gva. */
uint64_t vm_vaddr_alloc(struct kvm_vm *vm, uint64_t size);
/* Map [gva, gva+size) to [gpa, ...) with pages of page_size (4K or 2M on x86). */
void virt_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t size, uint64_t page_size);

void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa);
uint64_t addr_gva2gpa(struct kvm_vm *vm, uint64_t gva);
void *addr_gva2hva(struct kvm_vm *vm, uint64_t gva);

/* Host view of a global variable's guest copy (the binary is loaded at the same gva). */
#define guest_global(vm, g) ((__typeof__(&(g)))addr_gva2hva(vm, (uint64_t)(uintptr_t)&(g)))
#define sync_global_to_guest(vm, g) memcpy(guest_global(vm, g), &(g), sizeof(g))
#define sync_global_from_guest(vm, g) memcpy(&(g), guest_global(vm, g), sizeof(g))

/*
 * KVM_RUN in three tiers, as upstream's selftests name them:
 *   __vcpu_run(): one KVM_RUN, nothing checked; returns the ioctl's result
 *     (-1 with errno on failure).  The one place KVM_RUN is issued, so the
 *     per-vCPU run-time accounting (lib/account.c) is here.
 *   _vcpu_run(): __vcpu_run(), retrying EINTR (a signal or immediate_exit:
 *     the watchdog's kick), then failing the test on a guest exception the
 *     arch reports (arch_vcpu_exception()); returns 0, or -1 with errno
 *     for the caller to handle (EFAULT with KVM_EXIT_MEMORY_FAULT:
 *     vcpu_memory_fault_exit() says so).
 *   vcpu_run(): _vcpu_run(), failing the test on any error.
 * vcpu->last_exit_reason is the run's exit reason after each of them.
 */
int __vcpu_run(struct kvm_vcpu *vcpu);
int _vcpu_run(struct kvm_vcpu *vcpu);
void vcpu_run(struct kvm_vcpu *vcpu);
/* After a failed _vcpu_run(): was it a KVM_EXIT_MEMORY_FAULT (run->memory_fault says where)? */
bool vcpu_memory_fault_exit(struct kvm_vcpu *vcpu);
/* Fail the test on a failed _vcpu_run(), as vcpu_run() does. */
void __attribute__((noreturn)) vcpu_run_fail(struct kvm_vcpu *vcpu);
/* Called in the vCPU's thread when KVM_RUN returns EINTR (the watchdog uses it). */
extern void (*vcpu_eintr_hook)(struct kvm_vcpu *vcpu);

/*
 * Fail the test: exit reason, RIP/PC and registers of an unexpected exit
 * (a guest exception the arch decodes: that exception).
 */
void __attribute__((noreturn)) vcpu_unexpected_exit(struct kvm_vcpu *vcpu);
const char *exit_reason_str(uint32_t reason);
/* Registers and the last exit, for failure reports. */
void vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *indent);

void vcpu_regs_get(struct kvm_vcpu *vcpu, struct kvm_regs *regs);
void vcpu_regs_set(struct kvm_vcpu *vcpu, struct kvm_regs *regs);
void vcpu_sregs_get(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs);
void vcpu_sregs_set(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs);

/*
 * ioctls in two tiers, as upstream's: __kvm_ioctl(), __vm_ioctl() and
 * __vcpu_ioctl() issue the ioctl and return its result (-1 with errno);
 * kvm_ioctl(), vm_ioctl() and vcpu_ioctl() fail the test on an error, naming
 * the ioctl, errno and advice, and return the result otherwise.  Both tiers
 * count the ioctl's time when accounting is on (lib/account.c).
 */
void __attribute__((noreturn)) kvm_ioctl_fail(const char *name, int err, const char *file,
					      int line);
#define __kvm_ioctl(fd, cmd, arg) account_ioctl(fd, cmd, (void *)(arg))
#define __vm_ioctl(vm, cmd, arg) account_ioctl((vm)->fd, cmd, (void *)(arg))
#define __vcpu_ioctl(vcpu, cmd, arg) account_ioctl((vcpu)->fd, cmd, (void *)(arg))
/* name is #cmd of the caller's macro, so it names the ioctl, not its expansion. */
#define kvm_ioctl_checked(fd, cmd, arg, name) ({				\
	int __ret = account_ioctl(fd, cmd, (void *)(arg));			\
									\
	if (__ret < 0)							\
		kvm_ioctl_fail(name, errno, __FILE__, __LINE__);		\
	__ret;								\
})
#define kvm_ioctl(fd, cmd, arg) kvm_ioctl_checked(fd, cmd, arg, #cmd)
#define vm_ioctl(vm, cmd, arg) kvm_ioctl_checked((vm)->fd, cmd, arg, #cmd)
#define vcpu_ioctl(vcpu, cmd, arg) kvm_ioctl_checked((vcpu)->fd, cmd, arg, #cmd)
/* Advice for an ioctl failure ("" when there is none). */
const char *kvm_ioctl_advice(const char *name, int err);

/* ---- arch hooks (lib/<arch>/processor.c) ---- */
/*
 * KVM_CREATE_VM's machine type for vm->mode (arm64: the IPA size).  A weak
 * default returns ARCH_VM_TYPE.
 */
unsigned long arch_vm_type(struct kvm_vm *vm);
/* Allocate the page-table root (before the binary is mapped). */
void arch_vm_pgtable_init(struct kvm_vm *vm);
/* Everything else a VM needs before vCPUs: descriptors, arch state. */
void arch_vm_init(struct kvm_vm *vm);
void arch_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code);
void arch_vcpu_args_set(struct kvm_vcpu *vcpu, int n, const uint64_t *args);
void arch_virt_map_page(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t page_size);
/*
 * The largest page arch_virt_map_page() maps in this VM: 2M (a weak
 * default: x86_64, arm64's 4K granule), the granule itself for arm64's
 * 16K and 64K, 4K on powerpc (HPT pages).
 */
uint64_t arch_virt_page_max(struct kvm_vm *vm);
/*
 * Whether deleting or moving a memslot unmaps only that slot's pages
 * (arm64: its stage-2 range, kvm_arch_flush_shadow_memslot) rather than
 * every MMU page (x86 with the slot zap-all quirk, powerpc): a weak
 * default, false.
 */
bool arch_memslot_change_unmaps_slot_only(void);
/*
 * Guest page tables the guest edits itself (tlbie_bench): a new top-level
 * table sharing everything mapped so far (a weak default copies the VM's
 * root table); a last-level table (pt_gpa, one page) installed for the
 * 2M-aligned range at gva under root; a vCPU switched to root.
 */
uint64_t arch_vm_new_root(struct kvm_vm *vm);
void arch_virt_install_pt(struct kvm_vm *vm, uint64_t root, uint64_t gva, uint64_t pt_gpa);
void arch_vcpu_set_root(struct kvm_vcpu *vcpu, uint64_t root);
/* gpa of a gva, or -1ULL when unmapped. */
uint64_t arch_gva2gpa(struct kvm_vm *vm, uint64_t gva);
uint64_t arch_vcpu_pc(struct kvm_vcpu *vcpu);
void arch_vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *indent);
/*
 * If the vCPU's last exit is the guest's own report of an exception it
 * took, a one-line description of it in buf (returned); else NULL.
 * vcpu_unexpected_exit() fails with it.  A weak default returns NULL (arm64
 * and powerpc name the exception in arch_vcpu_dump() only).
 */
const char *arch_vcpu_exception(struct kvm_vcpu *vcpu, char *buf, size_t len);
/* Guest page-table pages needed to map `pages` 4K pages (a safe overestimate). */
uint64_t arch_page_table_pages(uint64_t pages);
/* Ticks per second of the guest's guest_clock() (call before the vCPU runs). */
uint64_t arch_guest_clock_hz(struct kvm_vcpu *vcpu);
/* Lowest gpa for test memory, above slot 0 (a per-arch constant: vm may be NULL). */
uint64_t arch_test_mem_gpa(struct kvm_vm *vm);
/* Free what the arch set up outside guest memory (a weak no-op by default). */
void arch_vm_free(struct kvm_vm *vm);

#endif
