// SPDX-License-Identifier: GPL-2.0
/* Guest mode IDs and names; which ones this ARCH runs is its arch hook's call. */
#include <stdio.h>
#include <string.h>

#include "guest_modes.h"
#include "parse.h"
#include "test_util.h"

static const char *const names[NUM_VM_MODES] = {
	[VM_MODE_P52V48_4K] = "PA-bits:52, VA-bits:48, 4K pages",
	[VM_MODE_P52V48_16K] = "PA-bits:52, VA-bits:48, 16K pages",
	[VM_MODE_P52V48_64K] = "PA-bits:52, VA-bits:48, 64K pages",
	[VM_MODE_P48V48_4K] = "PA-bits:48, VA-bits:48, 4K pages",
	[VM_MODE_P48V48_16K] = "PA-bits:48, VA-bits:48, 16K pages",
	[VM_MODE_P48V48_64K] = "PA-bits:48, VA-bits:48, 64K pages",
	[VM_MODE_P40V48_4K] = "PA-bits:40, VA-bits:48, 4K pages",
	[VM_MODE_P40V48_16K] = "PA-bits:40, VA-bits:48, 16K pages",
	[VM_MODE_P40V48_64K] = "PA-bits:40, VA-bits:48, 64K pages",
	[VM_MODE_PXXV48_4K] = "PA-bits:ANY, VA-bits:48, 4K pages",
	[VM_MODE_P47V64_4K] = "PA-bits:47, VA-bits:64, 4K pages",
	[VM_MODE_P44V64_4K] = "PA-bits:44, VA-bits:64, 4K pages",
	[VM_MODE_P36V48_4K] = "PA-bits:36, VA-bits:48, 4K pages",
	[VM_MODE_P36V48_16K] = "PA-bits:36, VA-bits:48, 16K pages",
	[VM_MODE_P36V48_64K] = "PA-bits:36, VA-bits:48, 64K pages",
	[VM_MODE_P36V47_16K] = "PA-bits:36, VA-bits:47, 16K pages",
};

static const struct {
	unsigned int pa_bits, page_size;
} params[NUM_VM_MODES] = {
	[VM_MODE_P52V48_4K] = { 52, 0x1000 },
	[VM_MODE_P52V48_16K] = { 52, 0x4000 },
	[VM_MODE_P52V48_64K] = { 52, 0x10000 },
	[VM_MODE_P48V48_4K] = { 48, 0x1000 },
	[VM_MODE_P48V48_16K] = { 48, 0x4000 },
	[VM_MODE_P48V48_64K] = { 48, 0x10000 },
	[VM_MODE_P40V48_4K] = { 40, 0x1000 },
	[VM_MODE_P40V48_16K] = { 40, 0x4000 },
	[VM_MODE_P40V48_64K] = { 40, 0x10000 },
	[VM_MODE_PXXV48_4K] = { 0, 0x1000 },
	[VM_MODE_P47V64_4K] = { 47, 0x1000 },
	[VM_MODE_P44V64_4K] = { 44, 0x1000 },
	[VM_MODE_P36V48_4K] = { 36, 0x1000 },
	[VM_MODE_P36V48_16K] = { 36, 0x4000 },
	[VM_MODE_P36V48_64K] = { 36, 0x10000 },
	[VM_MODE_P36V47_16K] = { 36, 0x4000 },
};

const char *guest_mode_name(enum guest_mode m)
{
	return m < NUM_VM_MODES ? names[m] : "?";
}

unsigned int guest_mode_pa_bits(enum guest_mode m)
{
	return m < NUM_VM_MODES ? params[m].pa_bits : 0;
}

unsigned int guest_mode_page_size(enum guest_mode m)
{
	return m < NUM_VM_MODES ? params[m].page_size : 0;
}

/* Arches that say nothing more than "not supported" keep this default. */
const char *__attribute__((weak)) arch_guest_mode_unsupported_reason(enum guest_mode m)
{
	return NULL;
}

bool guest_mode_supported(enum guest_mode m)
{
	return m < NUM_VM_MODES && arch_guest_mode_supported(m);
}

enum guest_mode guest_mode_default(void)
{
	return arch_guest_mode_default();
}

void guest_modes_print_help(void)
{
	printf(" guest modes:\n");
	for (int m = 0; m < NUM_VM_MODES; m++)
		printf("     %2d: %s%s\n", m, guest_mode_name(m),
		       guest_mode_supported(m) ? " (supported)" : "");
}

enum guest_mode guest_mode_parse_opt(const char *opt, const char *s)
{
	char supported[512] = "";
	enum guest_mode m = parse_u64_opt(opt, s, 0, NUM_VM_MODES - 1);
	const char *why;
	size_t len = 0;

	if (guest_mode_supported(m))
		return m;
	why = arch_guest_mode_unsupported_reason(m);
	for (int i = 0; i < NUM_VM_MODES; i++)
		if (guest_mode_supported(i))
			len += snprintf(supported + len, sizeof(supported) - len, "%s%d (%s)",
					len ? ", " : "", i, names[i]);
	/* A mode this host lacks is not bad input: the run skips, as upstream's -n would. */
	test_skip("%s '%s': guest mode %d (%s) is not supported here%s%s; supported: %s",
		  opt, s, m, names[m], why ? ": " : "", why ?: "", supported);
}
