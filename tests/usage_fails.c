// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into every kselftest_harness.h test binary: a usage error inside a
 * test (the library's usage_error(), e.g. memstress asking more vCPUs than
 * KVM_CAP_MAX_VCPUS) fails the test.  Its usual exit code, 2, is
 * kselftest's KSFT_XFAIL, which the harness would report as a pass.
 */
#include "test_util.h"

static void __attribute__((constructor)) usage_errors_fail_tests(void)
{
	usage_error_fails(true);
}
