// SPDX-License-Identifier: GPL-2.0
/* What tlbie_bench's figures and --flush mean on arm64. */
#include "../tb_bench.h"

const struct tb_arch tb_arch = {
	.note =
		"arm64: guest TLBI instructions cause no host exits: inner-shareable TLBIs are "
		"broadcast by the hardware, so KVM does no work per invalidation (the exits above "
		"are ucalls and stage-2 faults)",
	.flush_help =
		"page: TLBI VALE1IS for each page; full: one TLBI VMALLE1IS\n"
		"     per fork (inner shareable: broadcast by the hardware, no host exits);",
};
