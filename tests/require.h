/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a test needs of the host, checked as its first statement, so that a
 * host without it skips the test with the reason before anything expects a
 * result:
 * - REQUIRE_KVM(): /dev/kvm opens (a test that runs a guest, or a benchmark
 *   that does); under KMP_REQUIRE_KVM=1 a missing one fails instead;
 * - REQUIRE_VCPUS(n), after REQUIRE_KVM(): a VM of n vCPUs (KVM_CAP_MAX_VCPUS,
 *   as memstress_params_check() judges it), so that a host offering fewer
 *   skips saying so instead of failing on memstress's usage error;
 * - REQUIRE_ROOT(): euid 0 (mounting tmpfs or tracefs).
 */
#ifndef KMP_TEST_REQUIRE_H
#define KMP_TEST_REQUIRE_H

#include <unistd.h>

#include "kvm_util.h"
#include "memstress.h"

#define REQUIRE_KVM()								\
	do {									\
		const char *why_ = kvm_unavailable_reason();			\
										\
		if (why_ && kvm_required())					\
			ASSERT_EQ(NULL, why_) TH_LOG("KMP_REQUIRE_KVM=1 but %s", why_);	\
		if (why_)							\
			SKIP(return, "%s (guest tests on emulated hosts: make check-x86)", why_); \
	} while (0)

#define REQUIRE_VCPUS(n)							\
	do {									\
		uint32_t max_ = memstress_max_vcpus();				\
										\
		if (max_ < (uint32_t)(n))					\
			SKIP(return, "needs %u vCPUs a VM; this host's KVM takes %u " \
			     "(KVM_CAP_MAX_VCPUS)", (uint32_t)(n), max_);	\
	} while (0)

#define REQUIRE_ROOT()								\
	do {									\
		if (geteuid())							\
			SKIP(return, "needs root: it mounts and unmounts "	\
			     "filesystems (CAP_SYS_ADMIN)");			\
	} while (0)

#endif
