// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for scripts/kmp_results.py compare.
 *
 * The input is a result record.  It is written as sec.1.json into two result
 * folders A and B; B also gets a known-good record kept in the seed corpus
 * (tests/fuzz/corpus/fuzz_results/good-TOOL.json, the one whose tool the
 * input names, else tlbie_bench's).  When the input ends with a newline the
 * good record is sec.2.json, another repeat of the input's section (tool and
 * parameters are checked against it, the statistics span both); otherwise it
 * is good.1.json, a section of its own, so an input whose parameters differ
 * from the good record's still reaches the tables.  Then
 * `kmp_results.py compare A B` runs (posix_spawn, no shell).  A finding is:
 *   - an exit status other than 0 (a table) or 2 (bad data), or a signal;
 *   - a Python traceback on stderr;
 *   - a run longer than FUZZ_CHILD_TIMEOUT_MS;
 *   - exit 2 with a table on stdout or a stderr line not "kmp_results.py: ..."
 *     (the documented contract: one line per problem and no table);
 *   - exit 0 with anything on stderr.
 * Mutations are mostly JSON-aware (json_mutate.c), so that most inputs are
 * still JSON and reach the record checks and the tables.
 * The script runs in the C.UTF-8 locale and is found through KMP_SRC_DIR, set
 * at compile time.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_mutate.h"
#include "spawn.h"

#ifndef KMP_SRC_DIR
#error "build with -DKMP_SRC_DIR='\"/path/to/kvm-mmu-perf\"'"
#endif

#define GOOD_DIR KMP_SRC_DIR "/tests/fuzz/corpus/fuzz_results"
#define PROG "kmp_results.py: "

static const char *const tools[] = {
	"tlbie_bench", "dirty_log_perf", "demand_paging", "zap_latency",
};
#define NR_TOOLS (sizeof(tools) / sizeof(tools[0]))

static struct {
	char *data;
	size_t len;
	char quoted[64];	/* "\"tool\"" as it appears in a record */
} good[NR_TOOLS];

static char dir_a[PATH_MAX], dir_b[PATH_MAX];
static char rec_a[PATH_MAX + 16], rec_b[PATH_MAX + 16];
static char rec_repeat[PATH_MAX + 16], rec_other[PATH_MAX + 16];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_tmpdir("results");
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < NR_TOOLS; i++) {
		snprintf(path, sizeof(path), "%s/good-%s.json", GOOD_DIR, tools[i]);
		good[i].data = fuzz_read_file(path, &good[i].len);
		snprintf(good[i].quoted, sizeof(good[i].quoted), "\"%s\"", tools[i]);
	}
	snprintf(dir_a, sizeof(dir_a), "%s/A", dir);
	snprintf(dir_b, sizeof(dir_b), "%s/B", dir);
	snprintf(rec_a, sizeof(rec_a), "%s/sec.1.json", dir_a);
	snprintf(rec_b, sizeof(rec_b), "%s/sec.1.json", dir_b);
	snprintf(rec_repeat, sizeof(rec_repeat), "%s/sec.2.json", dir_b);
	snprintf(rec_other, sizeof(rec_other), "%s/good.1.json", dir_b);
	fuzz_mkdir(dir_a);
	fuzz_mkdir(dir_b);
	return 0;
}

/* Every line of stderr is "kmp_results.py: ...". */
static bool prog_lines(const struct fuzz_run *r)
{
	const char *p = r->err, *end = r->err + r->err_len;

	if (!r->err_len || r->err[r->err_len - 1] != '\n')
		return false;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (strncmp(p, PROG, strlen(PROG)) || nl - p <= (long)strlen(PROG))
			return false;
		p = nl + 1;
	}
	return true;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t n = 0;

	/* One in four: libFuzzer's own byte-level mutations. */
	if (seed % 4)
		n = json_mutate(data, size, max_size, seed);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "/usr/bin/python3", KMP_SRC_DIR "/scripts/kmp_results.py",
			 "compare", dir_a, dir_b, NULL };
	char *env[] = { "PYTHONDONTWRITEBYTECODE=1", "LC_ALL=C.UTF-8", NULL };
	struct fuzz_run r;
	bool repeat = size && data[size - 1] == '\n';
	size_t i, g = 0;

	for (i = 0; i < NR_TOOLS; i++)
		if (memmem(data, size, good[i].quoted, strlen(good[i].quoted)))
			g = i;
	fuzz_write_file(rec_a, data, size);
	fuzz_empty_dir(dir_b);
	fuzz_write_file(rec_b, data, size);
	fuzz_write_file(repeat ? rec_repeat : rec_other, good[g].data, good[g].len);

	fuzz_run(argv, env, FUZZ_CHILD_TIMEOUT_MS, &r);
	fuzz_features(&r);

	if (r.timed_out)
		fuzz_finding(&r, data, size, "kmp_results.py compare hangs");
	if (r.signal)
		fuzz_finding(&r, data, size, "kmp_results.py compare died of signal %d", r.signal);
	if (memmem(r.err, r.err_len, "Traceback (most recent call last)", 33))
		fuzz_finding(&r, data, size, "Python traceback");
	if (r.exit_code != 0 && r.exit_code != 2)
		fuzz_finding(&r, data, size, "exit %d (not 0 or 2)", r.exit_code);
	if (r.exit_code == 2 && (r.out_len || !prog_lines(&r)))
		fuzz_finding(&r, data, size,
			     "exit 2 must print only '" PROG "...' lines on stderr, no table");
	if (r.exit_code == 0 && r.err_len)
		fuzz_finding(&r, data, size, "exit 0 with output on stderr");
	fuzz_run_free(&r);
	return 0;
}
