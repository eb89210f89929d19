// SPDX-License-Identifier: GPL-2.0
/* x86_64 guest ucall: an OUT to UCALL_PIO_PORT with the struct's gva in RDI. */
#include "processor.h"
#include "ucall.h"

void ucall_arch_do(struct ucall *uc)
{
	__asm__ __volatile__("outb %%al, %%dx"
			     : : "a"(0), "d"(UCALL_PIO_PORT), "D"(uc) : "memory");
}
