// SPDX-License-Identifier: GPL-2.0
/* Guest half of smoke_faults: a vCPU that never exits again. */
#include "processor.h"
#include "ucall.h"

void guest_spin_forever(void)
{
	GUEST_SYNC(1);
	for (;;)
		cpu_relax();
}
