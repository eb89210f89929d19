// SPDX-License-Identifier: GPL-2.0
/* What tlbie_bench's --flush means on x86_64. */
#include "../tb_bench.h"

const struct tb_arch tb_arch = {
	.flush_help =
		"page: INVLPG for each page; full: one CR3 reload per fork\n"
		"     (under shadow paging both exit to KVM, which does the invalidation);",
};
