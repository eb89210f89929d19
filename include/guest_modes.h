/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest modes (-m), with the kernel KVM selftests' IDs so a pasted command
 * line means the same thing.  Each arch supports a subset.
 */
#ifndef KMP_GUEST_MODES_H
#define KMP_GUEST_MODES_H

#include <stdbool.h>

enum guest_mode {
	VM_MODE_P52V48_4K,
	VM_MODE_P52V48_16K,
	VM_MODE_P52V48_64K,
	VM_MODE_P48V48_4K,
	VM_MODE_P48V48_16K,
	VM_MODE_P48V48_64K,
	VM_MODE_P40V48_4K,
	VM_MODE_P40V48_16K,
	VM_MODE_P40V48_64K,
	VM_MODE_PXXV48_4K,	/* 48-bit VA, any PA width */
	VM_MODE_P47V64_4K,
	VM_MODE_P44V64_4K,
	VM_MODE_P36V48_4K,
	VM_MODE_P36V48_16K,
	VM_MODE_P36V48_64K,
	VM_MODE_P36V47_16K,
	NUM_VM_MODES,
};

/* Arch hooks (lib/<arch>/processor.c). */
bool arch_guest_mode_supported(enum guest_mode m);
enum guest_mode arch_guest_mode_default(void);
/* Why mode m is not supported here, for the usage error; NULL (a weak default): no reason given. */
const char *arch_guest_mode_unsupported_reason(enum guest_mode m);

const char *guest_mode_name(enum guest_mode m);	/* "PA-bits:52, VA-bits:48, 4K pages" */
/* The mode's guest physical address bits (0 for PXX: the host's) and base page size. */
unsigned int guest_mode_pa_bits(enum guest_mode m);
unsigned int guest_mode_page_size(enum guest_mode m);
bool guest_mode_supported(enum guest_mode m);	/* on this build's ARCH */
enum guest_mode guest_mode_default(void);
/*
 * Parse -m: an ID out of range is a one-line usage error; a mode this host
 * does not run skips (exit 4), listing the supported ones.
 */
enum guest_mode guest_mode_parse_opt(const char *opt, const char *s);
/* -h's list of every mode ID, those this host runs marked "(supported)". */
void guest_modes_print_help(void);

#endif
