/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch folder per test binary.  Every test runs in a forked child that
 * a failed assertion or a skip ends at once, before its cleanup; so $TMPDIR
 * points into this folder for all of them, and the binary's own exit
 * removes it with whatever they left there.
 */
#ifndef KMP_TEST_SCRATCH_H
#define KMP_TEST_SCRATCH_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char scratch_dir[128];
static pid_t scratch_owner;

static int scratch_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void scratch_remove(void)
{
	/* Only the harness's own exit: a forked test may exit() too. */
	if (getpid() != scratch_owner)
		return;
	/* Never into a filesystem a test left mounted there. */
	nftw(scratch_dir, scratch_rm, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void __attribute__((constructor)) scratch_make(void)
{
	const char *tmp = getenv("TMPDIR");

	int n = snprintf(scratch_dir, sizeof(scratch_dir), "%s/kmp-tests-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");

	/* Too long, or no folder: the tests then use $TMPDIR (or /tmp) itself. */
	if (n < 0 || (size_t)n >= sizeof(scratch_dir) || !mkdtemp(scratch_dir))
		return;
	scratch_owner = getpid();
	setenv("TMPDIR", scratch_dir, 1);
	atexit(scratch_remove);
}

/*
 * Room for a path under the scratch folder (scratch_path() says when it is
 * not enough), and for one more name below it.
 */
#define SCRATCH_PATH_MAX 256
#define SCRATCH_SUBPATH_MAX (SCRATCH_PATH_MAX + 64)

/*
 * buf = $TMPDIR/name: name is a mkstemp()/mkdtemp() template.  A path that
 * does not fit ends the process with a message naming it, never a
 * truncated path that some other file could answer to.
 */
static inline void scratch_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("TMPDIR");
	int n = snprintf(buf, len, "%s/%s", dir && *dir ? dir : "/tmp", name);

	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "scratch_path: $TMPDIR/%s is %d bytes, more than the test's %zu: "
			"use a shorter TMPDIR (%s)\n", name, n, len, dir && *dir ? dir : "/tmp");
		exit(1);
	}
}

#endif
