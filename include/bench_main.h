/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The main() every benchmark has, written once: KTAP header and plan, the
 * host's description (read once: printed, and passed to every record),
 * signals (interrupt.h), early exits from assertions, skips and the
 * watchdog (test_set_fail_hook), and the record's final status.  A
 * benchmark fills a struct bench with what is its own and calls
 * bench_main() from its main().
 *
 * Order: parse, signals, KTAP header, host description, print_params,
 * (early exits now write the record), run, verdict, record, teardown.
 */
#ifndef KMP_BENCH_MAIN_H
#define KMP_BENCH_MAIN_H

#include "host_desc.h"

struct bench {
	const char *name;	/* the KTAP test and the record's tool */
	/* argv into the options; a bad option exits 2 (parse.h). */
	void (*parse)(int argc, char **argv);
	/* Optional: lines after the host's, before anything runs. */
	void (*print_params)(const struct host_desc *host);
	/* Setup, the measurement and its report; a failure ends it early. */
	void (*run)(const struct host_desc *host);
	/*
	 * Optional: after a run that completed, why it still failed (e.g.
	 * --verify found wrong pages), or NULL.  The text becomes the KTAP
	 * line and the record's reason.
	 */
	const char *(*verdict)(void);
	/*
	 * The record with this status and reason, of this host (bench_main
	 * reads its description once, and prints it); nonzero when not
	 * written.
	 */
	int (*write_record)(const struct host_desc *host, int argc, char **argv,
			    const char *status, const char *reason);
	/* Optional: frees what run made, after the record. */
	void (*teardown)(void);
};

/*
 * The options every benchmark has, at the end of its getopt switch.  Its
 * long options list BENCH_JSON_OPTION; its switch ends in
 *	default: bench_common_opt(opt, argv, &o->json_path, help);
 * which takes --json FILE (checked now: record.h), -h (help(argv[0])
 * prints the usage and exits 0) and makes anything else a usage error.
 */
#define OPT_JSON 0x4a534f	/* "JSO": above every benchmark's own long options */
#define BENCH_JSON_OPTION { "json", required_argument, NULL, OPT_JSON }
/* Prints the usage and exits 0. */
typedef void bench_help_fn(const char *name);
void bench_common_opt(int opt, char **argv, const char **json_path, bench_help_fn *help);

/* Runs b; exits with the KTAP result (ksft_finished), never returns. */
void bench_main(const struct bench *b, int argc, char **argv) __attribute__((noreturn));

#endif
