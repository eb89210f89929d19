// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_cap NAME: exit 0 when this host's KVM offers the capability, 1 when
 * it does not, 2 for an unknown name.  run.sh uses it for "requires = cap:NAME".
 */
#include <stdlib.h>
#include <string.h>

#include "kvm_compat.h"
#include "kvm_util.h"

static const struct {
	const char *name;
	long cap;
} caps[] = {
	{ "DIRTY_LOG_RING", KVM_CAP_DIRTY_LOG_RING },
	{ "DIRTY_LOG_RING_ACQ_REL", KVM_CAP_DIRTY_LOG_RING_ACQ_REL },
	{ "MANUAL_DIRTY_LOG_PROTECT2", KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 },
	{ "MEMORY_FAULT_INFO", KVM_CAP_MEMORY_FAULT_INFO },
	{ "DISABLE_QUIRKS2", KVM_CAP_DISABLE_QUIRKS2 },
	{ "HYPERV_TLBFLUSH", KVM_CAP_HYPERV_TLBFLUSH },
	{ "BINARY_STATS_FD", KVM_CAP_BINARY_STATS_FD },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kmp_cap NAME\n");
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
		if (!strcmp(argv[1], caps[i].name))
			return kvm_check_cap(caps[i].cap) > 0 ? 0 : 1;
	fprintf(stderr, "kmp_cap: unknown capability '%s'; known:", argv[1]);
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
		fprintf(stderr, " %s", caps[i].name);
	fputc('\n', stderr);
	return 2;
}
