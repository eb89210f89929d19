// SPDX-License-Identifier: GPL-2.0
/* x86_64 host half of ucall: recognise the port I/O exit, find the struct. */
#include "kvm_util.h"
#include "ucall.h"

bool ucall_exit(struct kvm_vcpu *vcpu)
{
	return vcpu->run->exit_reason == KVM_EXIT_IO && vcpu->run->io.port == UCALL_PIO_PORT;
}

uint64_t ucall_arch_gva(struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs;

	if (!ucall_exit(vcpu))
		return 0;
	vcpu_regs_get(vcpu, &regs);
	return regs.rdi;
}
