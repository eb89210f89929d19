// SPDX-License-Identifier: GPL-2.0
/* Guest code for smoke_basic: plain C run inside the guest. */
#include "smoke_basic.h"
#include "ucall.h"

/* Sum of squares 1..n, sent back through SYNC so the host can check it. */
void guest_compute(uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 1; i <= n; i++)
		sum += i * i;
	GUEST_SYNC(SMOKE_COMPUTE_TAG, sum);
	GUEST_PRINTF("computed %lu for n=%lu\n", sum, n);
	GUEST_DONE();
}

/* Fails a GUEST_ASSERT_EQ with known values on a known line. */
void guest_assert(uint64_t a, uint64_t b)
{
	GUEST_ASSERT_EQ(a, b); /* SMOKE_ASSERT_LINE */
	GUEST_DONE();
}

/* Globals live in the guest's own copy of the binary's data. */
uint64_t guest_counter = 7;

void guest_globals(void)
{
	guest_counter *= 3;
	GUEST_SYNC(guest_counter);
	GUEST_DONE();
}

#ifdef __x86_64__
/* An OUT to a port nobody handles: an unexpected IO exit. */
void guest_unknown_port(void)
{
	__asm__ __volatile__("outb %%al, %%dx" : : "a"(0), "d"(0x3f8) : "memory");
	GUEST_DONE();
}

/* A DIV by a zero register: #DE, a fault, so its RIP is guest_div_insn. */
void guest_divide_by_zero(void)
{
	__asm__ __volatile__("xorl %%ecx, %%ecx\n\t"
			     ".globl guest_div_insn\n"
			     "guest_div_insn:\n\t"
			     "divl %%ecx" : : : "eax", "ecx", "edx");
	GUEST_DONE();
}

/* A push with RSP at an unmapped gva: a #PF that only a stack of its own can report. */
void guest_bad_stack(uint64_t gva)
{
	__asm__ __volatile__("movq %0, %%rsp\n\t"
			     "pushq $0" : : "r"(gva) : "memory");
	GUEST_DONE();
}

/* #UD with an IDT of limit 0: neither it nor the #GP and #DF after it can be delivered. */
void guest_triple_fault(void)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) no_idt;

	__asm__ __volatile__("lidt %0\n\t"
			     "ud2" : : "m"(no_idt));
	GUEST_DONE();
}
#endif

/* A load from a gva the guest page tables do not map: a guest exception. */
void guest_unmapped_load(uint64_t gva)
{
	(void)*(volatile uint64_t *)gva;
	GUEST_DONE();
}

/* A write of 0xabcd: outside every memslot, an unexpected MMIO exit. */
void guest_mmio_write(uint64_t gva)
{
	*(volatile uint64_t *)gva = 0xabcd;
	GUEST_DONE();
}

/* Returning from the entry function lands in guest_code_returned(). */
void guest_returns(void)
{
}
