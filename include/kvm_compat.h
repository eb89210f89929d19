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
#ifndef KVM_X86_QUIRK_SLOT_ZAP_ALL	/* 6.11 */
#define KVM_X86_QUIRK_SLOT_ZAP_ALL (1 << 7)
#endif

#endif
