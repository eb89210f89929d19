// SPDX-License-Identifier: GPL-2.0
/* Host half of ucall: read what the guest sent, report aborts and prints. */
#include <errno.h>

#include "kvm_util.h"
#include "ucall.h"

/* Where ucall_arch_gva() reads nothing through an ioctl (arm64, powerpc), it is cheap. */
bool __attribute__((weak)) ucall_exit(struct kvm_vcpu *vcpu)
{
	return ucall_arch_gva(vcpu) != 0;
}

uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	uint64_t gva = ucall_arch_gva(vcpu);
	struct ucall tmp;

	if (!uc)
		uc = &tmp;
	if (!gva) {
		uc->cmd = UCALL_NONE;
		return UCALL_NONE;
	}
	memcpy(uc, addr_gva2hva(vcpu->vm, gva), sizeof(*uc));
	uc->buffer[UCALL_BUFFER_LEN - 1] = 0;
	vcpu->progress++;
	if (uc->cmd == UCALL_PRINT)
		ksft_print_msg("guest vCPU %u: %s", vcpu->id, uc->buffer);
	return uc->cmd;
}

void ucall_report_abort(struct kvm_vcpu *vcpu, const struct ucall *uc)
{
	if (uc->args[1] == 2)
		TEST_FAIL("guest assertion failed on vCPU %u: %s: 0x%lx != 0x%lx (%lu != %lu)",
			  vcpu->id, uc->buffer, (unsigned long)uc->args[2],
			  (unsigned long)uc->args[3], (unsigned long)uc->args[2],
			  (unsigned long)uc->args[3]);
	TEST_FAIL("guest assertion failed on vCPU %u: %s", vcpu->id, uc->buffer);
}

uint64_t vcpu_run_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	for (;;) {
		vcpu_run(vcpu);
		switch (get_ucall(vcpu, uc)) {
		case UCALL_SYNC:
		case UCALL_DONE:
			return uc->cmd;
		case UCALL_PRINT:
			continue;
		case UCALL_ABORT:
			ucall_report_abort(vcpu, uc);
		default:
			vcpu_unexpected_exit(vcpu);
		}
	}
}
