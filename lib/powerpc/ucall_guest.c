// SPDX-License-Identifier: GPL-2.0
/* powerpc guest ucall: an hcall KVM does not know, with the struct's gva in r4. */
#include "processor.h"
#include "ucall.h"

void ucall_arch_do(struct ucall *uc)
{
	uint64_t a[8] = { (uint64_t)(uintptr_t)uc };

	hcall(KMP_H_UCALL, a);
}
