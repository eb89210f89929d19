/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM UAPI newer than Debian 12's linux-libc-dev (6.1).  Each value is the
 * kernel's, under #ifndef, with the release that introduced it.
 */
#ifndef KMP_KVM_COMPAT_H
#define KMP_KVM_COMPAT_H

#include <linux/kvm.h>

#ifndef KVM_EXIT_MEMORY_FAULT		/* 6.8 */
#define KVM_EXIT_MEMORY_FAULT 39
#endif
#ifndef KVM_CAP_MEMORY_FAULT_INFO	/* 6.8 */
#define KVM_CAP_MEMORY_FAULT_INFO 232
#endif
#ifndef KVM_CAP_DIRTY_LOG_RING_ACQ_REL	/* 6.1 */
#define KVM_CAP_DIRTY_LOG_RING_ACQ_REL 223
#endif
#ifndef KVM_CAP_DISABLE_QUIRKS2		/* 5.19 */
#define KVM_CAP_DISABLE_QUIRKS2 213
#endif
#ifndef KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE	/* 6.5, arm64 */
#define KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE 228
#endif
#ifndef KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES	/* 6.5, arm64 */
#define KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES 229
#endif
#ifndef KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP	/* 6.2, arm64 */
#define KVM_CAP_DIRTY_LOG_RING_WITH_BITMAP 225
#endif
/*
 * The dirty ring's page in the vCPU mmap: arm64's asm/kvm.h has it from
 * 6.2 (64, as on x86), and linux/kvm.h falls back to 0 without it, which is
 * the kvm_run page.
 */
#if defined(__aarch64__) && KVM_DIRTY_LOG_PAGE_OFFSET == 0
#undef KVM_DIRTY_LOG_PAGE_OFFSET
#define KVM_DIRTY_LOG_PAGE_OFFSET 64
#endif
#ifndef KVM_X86_QUIRK_SLOT_ZAP_ALL	/* 6.11 */
#define KVM_X86_QUIRK_SLOT_ZAP_ALL (1 << 7)
#endif

/* KVM_SET_USER_MEMORY_REGION2 (6.8): the only memslot ioctl taking flag bits above 1. */
#ifndef KVM_SET_USER_MEMORY_REGION2
struct kvm_userspace_memory_region2 {
	__u32 slot;
	__u32 flags;
	__u64 guest_phys_addr;
	__u64 memory_size;
	__u64 userspace_addr;
	__u64 guest_memfd_offset;
	__u32 guest_memfd;
	__u32 pad1;
	__u64 pad2[14];
};
#define KVM_SET_USER_MEMORY_REGION2 _IOW(KVMIO, 0x49, struct kvm_userspace_memory_region2)
#endif

/* KVM_PRE_FAULT_MEMORY (6.11): map guest memory before the guest touches it. */
#ifndef KVM_CAP_PRE_FAULT_MEMORY
#define KVM_CAP_PRE_FAULT_MEMORY 236
struct kvm_pre_fault_memory {
	__u64 gpa;
	__u64 size;
	__u64 flags;
	__u64 padding[5];
};
#define KVM_PRE_FAULT_MEMORY _IOWR(KVMIO, 0xd5, struct kvm_pre_fault_memory)
#endif

/*
 * Seed 002's fixture (patches/seed-002-mem-fault-nowait.patch), in no merged
 * kernel: its memslot flag, its capability (far above upstream's numbers)
 * and the access bits of run->memory_fault.flags (bits upstream keeps for
 * RWX).  Merged kernels may give bit 3 another meaning, so users of the
 * flag also check its behaviour, never the numbers alone.
 */
#define KMP_MEM_FAULT_NOWAIT		(1u << 3)
#define KMP_CAP_MEM_FAULT_NOWAIT	0x10002
#define KMP_MEMORY_EXIT_FLAG_READ	(1ULL << 0)
#define KMP_MEMORY_EXIT_FLAG_WRITE	(1ULL << 1)

/*
 * run->memory_fault (6.8): the exit union's member for KVM_EXIT_MEMORY_FAULT.
 * Older headers lack it; it sits at the start of the union, like padding.
 */
struct kvm_memory_fault_info {
	__u64 flags;
	__u64 gpa;
	__u64 size;
};

static inline struct kvm_memory_fault_info *kvm_run_memory_fault(struct kvm_run *run)
{
	return (struct kvm_memory_fault_info *)(void *)run->padding;
}

#endif
