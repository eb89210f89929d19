// SPDX-License-Identifier: GPL-2.0
/* x86_64 host half of ucall: recognise the port I/O exit, find the struct. */
#include "kvm_util.h"
#include "ucall.h"

uint64_t ucall_arch_gva(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct kvm_regs regs;

	if (run->exit_reason != KVM_EXIT_IO || run->io.port != UCALL_PIO_PORT)
		return 0;
	vcpu_regs_get(vcpu, &regs);
	return regs.rdi;
}
