// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 guest exceptions, host side: the IDT's gates to the stubs in
 * lib/x86_64/idt_handlers.S, a TSS per vCPU whose IST1 is a stack of that
 * vCPU's own (two vCPUs faulting at once must not share one frame), and
 * the reading of what a stub reported.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "kvm_util.h"

#define IDT_GATE_INTR64 0xeULL	/* 64-bit interrupt gate: IF is cleared on entry */
#define IDT_GATE_PRESENT (1ULL << 47)
#define IDT_IST 1ULL		/* every gate switches to IST1 */

/* lib/x86_64/idt_handlers.S: vector v's stub at v * X86_IDT_STUB_SIZE. */
extern char x86_guest_idt_stubs[];

static const char *const exception_names[X86_NR_EXCEPTIONS] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
	"#DF", "segment overrun", "#TS", "#NP", "#SS", "#GP", "#PF", "reserved",
	"#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "reserved", "reserved",
	"reserved", "reserved", "reserved", "reserved", "#HV", "#VC", "#SX", "reserved",
};

void x86_idt_init(struct kvm_vm *vm)
{
	uint64_t *idt = addr_gva2hva(vm, vm->arch.idt);

	for (int v = 0; v < X86_NR_EXCEPTIONS; v++) {
		uint64_t stub = (uint64_t)(uintptr_t)x86_guest_idt_stubs + v * X86_IDT_STUB_SIZE;

		/* DPL 0; the upper half of each 16-byte gate holds offset bits 63:32. */
		idt[2 * v] = (stub & 0xffff) | ((uint64_t)KERNEL_CS << 16) | (IDT_IST << 32) |
			     (IDT_GATE_INTR64 << 40) | IDT_GATE_PRESENT |
			     (((stub >> 16) & 0xffff) << 48);
		idt[2 * v + 1] = stub >> 32;
	}
}

/* The TSS at the bottom of the vCPU's exception page, IST1 at its top. */
uint64_t x86_vcpu_tss_init(struct kvm_vcpu *vcpu)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t page = vm_vaddr_alloc(vm, vm->page_size);
	struct x86_tss *tss = addr_gva2hva(vm, page);

	tss->ist[0] = page + vm->page_size;
	tss->iomap_base = sizeof(*tss);		/* no I/O bitmap */
	vcpu->arch.exc_page = page;
	return page;
}

const char *arch_vcpu_exception(struct kvm_vcpu *vcpu, char *buf, size_t len)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t frame = vcpu->arch.exc_page + vm->page_size - sizeof(struct x86_exception_frame);
	struct kvm_run *run = vcpu->run;
	struct x86_exception_frame f;
	struct kvm_regs r;

	if (vcpu->last_exit_reason != KVM_EXIT_IO || run->io.port != X86_EXC_PIO_PORT ||
	    run->io.direction != KVM_EXIT_IO_OUT)
		return NULL;
	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &r) < 0) {
		snprintf(buf, len, "guest exception (registers unavailable: %s)", strerror(errno));
		return buf;
	}
	/* Each gate goes through IST1, so the stub's frame is at its top. */
	if (r.rsp != frame) {
		snprintf(buf, len, "guest exception report with rsp 0x%llx, not IST1's frame at 0x%lx",
			 r.rsp, (unsigned long)frame);
		return buf;
	}
	memcpy(&f, addr_gva2hva(vm, frame), sizeof(f));
	snprintf(buf, len, "guest exception: vector %lu (%s), error code 0x%lx, rip 0x%lx, "
		 "cr2 0x%lx, rsp 0x%lx", (unsigned long)f.vector,
		 f.vector < X86_NR_EXCEPTIONS ? exception_names[f.vector] : "?",
		 (unsigned long)f.error_code, (unsigned long)f.rip, (unsigned long)f.cr2,
		 (unsigned long)f.rsp);
	return buf;
}
