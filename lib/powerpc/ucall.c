// SPDX-License-Identifier: GPL-2.0
/* powerpc host half of ucall: the KMP_H_UCALL hcall, which KVM leaves to userspace. */
#include "kvm_util.h"
#include "ucall.h"

uint64_t ucall_arch_gva(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	if (run->exit_reason != KVM_EXIT_PAPR_HCALL || run->papr_hcall.nr != KMP_H_UCALL)
		return 0;
	/* KVM puts ret in r3 at the next KVM_RUN. */
	run->papr_hcall.ret = H_SUCCESS;
	return run->papr_hcall.args[0];
}
