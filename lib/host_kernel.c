// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel: its release, and its preemption model, which decides
 * what cond_resched_lock() and friends do: on a preemptible kernel they
 * also drop a contended lock.  With PREEMPT_DYNAMIC only debugfs tells the
 * live model; otherwise the command line's preempt=, the build's config,
 * or uname -v tell what they can.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "host_desc.h"

/* The first line of path into buf; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* "none (voluntary) full lazy": the word in parentheses. */
static bool from_debugfs(char *model, size_t len)
{
	char line[128], *open_p, *close_p;

	if (!read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line)))
		return false;
	open_p = strchr(line, '(');
	close_p = open_p ? strchr(open_p, ')') : NULL;
	if (!close_p)
		return false;
	*close_p = '\0';
	snprintf(model, len, "%s", open_p + 1);
	return true;
}

static bool from_cmdline(char *model, size_t len)
{
	char line[4096], *p;

	if (!read_line("/proc/cmdline", line, sizeof(line)))
		return false;
	for (p = strstr(line, "preempt="); p; p = strstr(p + 1, "preempt=")) {
		if (p != line && p[-1] != ' ')
			continue;	/* another parameter ending in "preempt=" */
		snprintf(model, len, "%.*s", (int)strcspn(p + 8, " "), p + 8);
		return true;
	}
	return false;
}

/* The build's model from /boot/config-<release>. */
static bool from_config(const char *release, char *model, size_t len)
{
	static const struct { const char *opt, *model; } opts[] = {
		{ "CONFIG_PREEMPT_RT=y", "rt" }, { "CONFIG_PREEMPT=y", "full" },
		{ "CONFIG_PREEMPT_LAZY=y", "lazy" }, { "CONFIG_PREEMPT_VOLUNTARY=y", "voluntary" },
		{ "CONFIG_PREEMPT_NONE=y", "none" },
	};
	char path[320], line[256];
	const char *found = NULL;
	size_t best = sizeof(opts) / sizeof(opts[0]);
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (size_t i = 0; i < best; i++)
			if (!strcmp(line, opts[i].opt)) {
				found = opts[i].model;
				best = i;
			}
	}
	fclose(f);
	if (found)
		snprintf(model, len, "%s", found);
	return found;
}

bool host_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

void host_preempt_model(char *model, size_t len, const char **source)
{
	struct utsname u;
	bool dynamic;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	dynamic = strstr(u.version, "PREEMPT_DYNAMIC") != NULL;
	if (from_debugfs(model, len)) {
		*source = "debugfs sched/preempt";
	} else if (dynamic && from_cmdline(model, len)) {
		*source = "preempt= on the kernel command line";
	} else if (from_config(u.release, model, len)) {
		*source = dynamic ? "the build's default in /boot/config (PREEMPT_DYNAMIC)" :
				    "/boot/config";
	} else if (strstr(u.version, "PREEMPT_RT")) {
		snprintf(model, len, "rt");
		*source = "uname -v";
	} else if (dynamic) {
		snprintf(model, len, "unknown");
		*source = "uname -v says PREEMPT_DYNAMIC; the live model is only in debugfs";
	} else if (strstr(u.version, " PREEMPT ")) {
		snprintf(model, len, "full");
		*source = "uname -v";
	} else {
		snprintf(model, len, "none or voluntary");
		*source = "uname -v";
	}
}
