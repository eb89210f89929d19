// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_kvm: exit 0, silently, when this host's /dev/kvm is KVM a guest can
 * run on; else print why not (one line, kvm_unavailable_reason()) and exit 1.
 * run.sh (local or emulated host), ktap-run.sh (the NO GUEST RAN banner) and
 * .ci/run (KMP_REQUIRE_KVM) decide with it, as the tests' REQUIRE_KVM() does.
 */
#include <stdio.h>

#include "kvm_util.h"

int main(int argc, char **argv)
{
	const char *why;

	if (argc != 1) {
		fprintf(stderr, "kmp_kvm: '%s': takes no arguments\n", argv[1]);
		return 2;
	}
	why = kvm_unavailable_reason();
	if (!why)
		return 0;
	printf("%s\n", why);
	return 1;
}
