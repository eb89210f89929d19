/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the fuzz targets that drive a script (run.sh, kmp_results.py):
 * a private temporary folder, files written from the input, a child started
 * with posix_spawn (no shell) under a timeout, and the outcome turned into
 * libFuzzer features so that inputs reaching new messages are kept.
 */
#ifndef KMP_FUZZ_SPAWN_H
#define KMP_FUZZ_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest run of a script before the input counts as a hang. */
#define FUZZ_CHILD_TIMEOUT_MS 5000

struct fuzz_run {
	bool timed_out;
	int signal;		/* the child died of this signal, or 0 */
	int exit_code;		/* when it exited */
	char *out;		/* its stdout and stderr, NUL-terminated */
	size_t out_len;
	char *err;
	size_t err_len;
};

/* A new folder $TMPDIR/kmp-fuzz-NAME.XXXXXX, removed at exit. */
const char *fuzz_tmpdir(const char *name);

/* path/.../ created as needed; aborts on error (the harness is broken). */
void fuzz_mkdir(const char *path);
void fuzz_write_file(const char *path, const void *data, size_t len);
/* The whole file, NUL-terminated (len may be NULL); aborts when unreadable. */
char *fuzz_read_file(const char *path, size_t *len);
/* Every file in the folder, not the folder itself. */
void fuzz_empty_dir(const char *path);

/*
 * Run argv[0] (a path) with the environment plus set_env ("NAME=value"
 * strings, replacing the same names), stdin from /dev/null, stdout and
 * stderr captured, in its own process group.  After timeout_ms the whole
 * group is killed and r->timed_out is set.
 */
void fuzz_run(char *const argv[], char *const set_env[], int timeout_ms,
	      struct fuzz_run *r);
void fuzz_run_free(struct fuzz_run *r);

/*
 * Feed the outcome to libFuzzer as features: the exit status and the shape
 * of every output line (digits and quoted text dropped), so an input that
 * reaches a new message or table line is kept in the corpus.
 */
void fuzz_features(const struct fuzz_run *r);

/* Print what went wrong, the input and the child's output; then abort(). */
void __attribute__((noreturn, format(printf, 4, 5)))
fuzz_finding(const struct fuzz_run *r, const uint8_t *data, size_t size,
	     const char *fmt, ...);

#endif
