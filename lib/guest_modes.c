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

const char *guest_mode_name(enum guest_mode m)
{
	return m < NUM_VM_MODES ? names[m] : "?";
}

bool guest_mode_supported(enum guest_mode m)
{
	return m < NUM_VM_MODES && arch_guest_mode_supported(m);
}

enum guest_mode guest_mode_default(void)
{
	return arch_guest_mode_default();
}

enum guest_mode guest_mode_parse_opt(const char *opt, const char *s)
{
	char supported[512] = "";
	enum guest_mode m = parse_u64_opt(opt, s, 0, NUM_VM_MODES - 1);
	size_t len = 0;

	if (guest_mode_supported(m))
		return m;
	for (int i = 0; i < NUM_VM_MODES; i++)
		if (guest_mode_supported(i))
			len += snprintf(supported + len, sizeof(supported) - len, "%s%d (%s)",
					len ? ", " : "", i, names[i]);
	usage_error("%s '%s': guest mode %d (%s) is not supported here; supported: %s",
		    opt, s, m, names[m], supported);
}
