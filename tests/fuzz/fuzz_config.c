// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for run.sh's config parser.
 *
 * The input is written as the only .cfg of a private folder, and
 * `run.sh --list` runs with KMP_CONFIGS pointing at it (posix_spawn, no
 * shell).  A finding is:
 *   - an exit status other than 0 (listed) or 2 (a config error), or a signal;
 *   - a run longer than FUZZ_CHILD_TIMEOUT_MS;
 *   - exit 2 whose stderr is not exactly one line starting "run.sh: ";
 *   - exit 0 with anything on stderr (a shell warning or error that did not
 *     stop the script).
 * run.sh runs in the C.UTF-8 locale and is found through KMP_SRC_DIR, set at
 * compile time.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "spawn.h"

#ifndef KMP_SRC_DIR
#error "build with -DKMP_SRC_DIR='\"/path/to/kvm-mmu-perf\"'"
#endif

static char cfg_dir[PATH_MAX], cfg_file[PATH_MAX];
static char env_configs[PATH_MAX + 16], env_results[PATH_MAX + 16];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_tmpdir("config");

	snprintf(cfg_dir, sizeof(cfg_dir), "%s/configs", dir);
	snprintf(cfg_file, sizeof(cfg_file), "%s/fuzz.cfg", cfg_dir);
	snprintf(env_configs, sizeof(env_configs), "KMP_CONFIGS=%s", cfg_dir);
	/* --list never writes results; should it ever, not into the tree. */
	snprintf(env_results, sizeof(env_results), "KMP_RESULTS=%s/results", dir);
	fuzz_mkdir(cfg_dir);
	return 0;
}

static bool one_run_sh_line(const struct fuzz_run *r)
{
	const char *nl = memchr(r->err, '\n', r->err_len);

	return r->err_len > 8 && !strncmp(r->err, "run.sh: ", 8) &&
	       nl == r->err + r->err_len - 1 && !memchr(r->err, '\0', r->err_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { KMP_SRC_DIR "/run.sh", "--list", NULL };
	/* A UTF-8 locale, as users have: multibyte handling is part of the test. */
	char *env[] = { env_configs, env_results, "LC_ALL=C.UTF-8", NULL };
	struct fuzz_run r;

	fuzz_write_file(cfg_file, data, size);
	fuzz_run(argv, env, FUZZ_CHILD_TIMEOUT_MS, &r);
	fuzz_features(&r);

	if (r.timed_out)
		fuzz_finding(&r, data, size, "run.sh --list hangs");
	if (r.signal)
		fuzz_finding(&r, data, size, "run.sh --list died of signal %d", r.signal);
	if (r.exit_code != 0 && r.exit_code != 2)
		fuzz_finding(&r, data, size, "run.sh --list exit %d (not 0 or 2)", r.exit_code);
	if (r.exit_code == 2 && !one_run_sh_line(&r))
		fuzz_finding(&r, data, size, "exit 2 without exactly one 'run.sh: ' line on stderr");
	if (r.exit_code == 0 && r.err_len)
		fuzz_finding(&r, data, size, "exit 0 with output on stderr");
	fuzz_run_free(&r);
	return 0;
}
