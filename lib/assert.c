// SPDX-License-Identifier: GPL-2.0
/* Assertion failures, skips and usage errors: the ways a binary stops early. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static void (*fail_hook)(bool skip, const char *reason);
/* A benchmark's name, and whether its KTAP plan is out: see test_ktap_tool(). */
static const char *ktap_tool;
static bool ktap_planned;

void test_ktap_tool(const char *tool)
{
	ktap_tool = tool;
}

void test_ktap_planned(void)
{
	ktap_planned = true;
}

/*
 * A benchmark ending before its own hook is set (while parsing its options,
 * say): its one KTAP result, with the header and plan if they are not out
 * yet, as kselftest.h prints them (no header under a runner's KSFT_TAP_LEVEL).
 */
static void ktap_plan(void)
{
	if (fail_hook || !ktap_tool || ktap_planned)
		return;
	if (!getenv("KSFT_TAP_LEVEL"))
		printf("TAP version 13\n");
	printf("1..1\n");
	ktap_planned = true;
}

static void ktap_result(bool skip, const char *msg)
{
	if (!ktap_tool)
		return;
	if (skip)
		printf("ok 1 %s # SKIP %s\n", ktap_tool, msg);
	else
		printf("not ok 1 %s: %s\n", ktap_tool, msg);
	fflush(stdout);
}

void test_set_fail_hook(void (*hook)(bool skip, const char *reason))
{
	fail_hook = hook;
}

bool kvm_required(void)
{
	const char *v = getenv("KMP_REQUIRE_KVM");

	/* "true" or "yes" must not count as unset: only 0 and 1 mean anything. */
	if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
		usage_error("KMP_REQUIRE_KVM='%s': must be 0 or 1", v);
	return v && strcmp(v, "1") == 0;
}

void __test_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	static int failing;
	int err = errno;
	char msg[1024];
	va_list ap;

	/* One failure reports and exits; another thread failing meanwhile waits for it. */
	if (__atomic_exchange_n(&failing, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	fflush(stdout);
	ktap_plan();
	fflush(stdout);
	fprintf(stderr, "==== Test Assertion Failure ====\n  %s:%d: %s\n",
		file, line, expr ? expr : "TEST_FAIL");
	if (err)
		fprintf(stderr, "  errno=%d (%s)\n", err, strerror(err));
	fprintf(stderr, "  %s\n", msg);
	if (fail_hook) {
		void (*hook)(bool, const char *) = fail_hook;

		fail_hook = NULL;	/* a failure inside the hook must not recurse */
		hook(false, msg);
	} else {
		ktap_result(false, msg);
	}
	/* exit() (not _exit) so atexit handlers put the host back as it was. */
	exit(KSFT_FAIL);
}

void test_skip(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	ktap_plan();
	printf("# SKIP: %s\n", msg);
	/*
	 * The hook (a benchmark's) prints its own KTAP result and record;
	 * under the kselftest harness the harness prints the result line.
	 */
	if (fail_hook) {
		void (*hook)(bool, const char *) = fail_hook;

		fail_hook = NULL;
		hook(true, msg);
	} else {
		ktap_result(true, msg);
	}
	fflush(stdout);
	exit(KSFT_SKIP);
}

static bool usage_fails;

void usage_error_fails(bool fail)
{
	usage_fails = fail;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(usage_fails ? KSFT_FAIL : KMP_EXIT_USAGE);
}
