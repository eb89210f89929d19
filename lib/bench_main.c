// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks' shared main(): see include/bench_main.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_main.h"
#include "interrupt.h"
#include "kselftest.h"
#include "parse.h"
#include "record.h"
#include "test_util.h"

static const struct bench *bench;
static int saved_argc;
static char **saved_argv;
/* The host's description, read once: printed, and in every record. */
static struct host_desc host;
static bool host_known;		/* host is complete */

/* Failure or skip anywhere (assertion, watchdog): KTAP result and the record so far. */
static void on_early_exit(bool skip, const char *reason)
{
	if (skip)
		ksft_test_result_skip("%s: %s\n", bench->name, reason);
	else
		ksft_test_result_fail("%s: %s\n", bench->name, reason);
	bench->write_record(&host, saved_argc, saved_argv, skip ? "skip" : "fail", reason);
}

/* Ctrl-C or a termination signal: the KTAP result and what was measured so far. */
static void on_interrupt(int sig)
{
	const struct host_desc *h = &host;
	struct host_desc early;
	char reason[64];

	snprintf(reason, sizeof(reason), "interrupted by SIG%s", sigabbrev_np(sig) ?: "?");
	ksft_test_result_fail("%s: %s\n", bench->name, reason);
	/* Before bench_main() has read the host (or while it does), it is read here. */
	if (!__atomic_load_n(&host_known, __ATOMIC_ACQUIRE)) {
		host_desc_read(&early);
		h = &early;
	}
	bench->write_record(h, saved_argc, saved_argv, "interrupted", reason);
}

void bench_common_opt(int opt, char **argv, const char **json_path, bench_help_fn *help)
{
	switch (opt) {
	case OPT_JSON:
		record_path_check_opt("--json", optarg);
		*json_path = optarg;
		return;
	case 'h':
		help(argv[0]);
		exit(0);	/* help exits; this says so to the compiler */
	default:
		usage_bad_opt(opt, argv);
	}
}

void bench_main(const struct bench *b, int argc, char **argv)
{
	const char *failed;

	bench = b;
	saved_argc = argc;
	saved_argv = argv;
	test_ktap_tool(b->name);
	b->parse(argc, argv);
	interrupt_init(on_interrupt);

	ksft_print_header();
	ksft_set_plan(1);
	test_ktap_planned();
	host_desc_read(&host);
	__atomic_store_n(&host_known, true, __ATOMIC_RELEASE);
	host_desc_print(&host);
	if (b->print_params)
		b->print_params(&host);
	test_set_fail_hook(on_early_exit);

	b->run(&host);

	test_set_fail_hook(NULL);
	failed = b->verdict ? b->verdict() : NULL;
	if (failed) {
		ksft_test_result_fail("%s: %s\n", b->name, failed);
		b->write_record(&host, argc, argv, "fail", failed);
	} else if (b->write_record(&host, argc, argv, "pass", NULL)) {
		/* A result that could not be recorded is not a pass. */
		ksft_test_result_fail("%s: the JSON record was not written\n", b->name);
	} else {
		ksft_test_result_pass("%s\n", b->name);
	}
	if (b->teardown)
		b->teardown();
	ksft_finished();
}
