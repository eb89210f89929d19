// SPDX-License-Identifier: GPL-2.0
/* arm64 host half of ucall: recognise the doorbell's MMIO write, read the gva it carries. */
#include "kvm_util.h"
#include "ucall.h"

uint64_t ucall_arch_gva(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint64_t gva;

	if (run->exit_reason != KVM_EXIT_MMIO || run->mmio.phys_addr != UCALL_MMIO_GPA ||
	    !run->mmio.is_write || run->mmio.len != sizeof(gva))
		return 0;
	memcpy(&gva, run->mmio.data, sizeof(gva));
	return gva;
}
