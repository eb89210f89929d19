// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_mmu: print the MMU this host's KVM really uses, as one word (tdp,
 * legacy-tdp, shadow, pvm, stage2, hpt, radix, pr, none).  run.sh uses it
 * for "requires = mmu:WORD,WORD": a post's path exists only on some MMUs.
 */
#include <stdio.h>

#include "host_desc.h"

static const char *const keys[] = {
	[HOST_MMU_NONE] = "none", [HOST_MMU_TDP] = "tdp", [HOST_MMU_LEGACY_TDP] = "legacy-tdp",
	[HOST_MMU_SHADOW] = "shadow", [HOST_MMU_PVM] = "pvm", [HOST_MMU_STAGE2] = "stage2",
	[HOST_MMU_HPT] = "hpt", [HOST_MMU_RADIX] = "radix", [HOST_MMU_PR] = "pr",
};

int main(void)
{
	enum host_mmu m = host_mmu();

	printf("%s (%s)\n", m < sizeof(keys) / sizeof(keys[0]) && keys[m] ? keys[m] : "none",
	       host_mmu_name());
	return 0;
}
