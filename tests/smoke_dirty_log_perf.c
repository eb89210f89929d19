// SPDX-License-Identifier: GPL-2.0
/*
 * dirty_log_perf end to end, at tiny scale, on real KVM: the binary next to
 * this one is run with --verify and --json, and its exit code, its
 * upstream-format lines and its JSON record are checked.  In lockstep with
 * 100% in-order writes every page is written every iteration, so each
 * iteration's log must hold exactly every page: a figure KVM produced,
 * checked against what the guest did.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "tool_run.h"

/* Run dirty_log_perf with args (a NULL-terminated list) plus --json. */
static void run_dlp(struct tool_run *r, const char *const *args)
{
	tool_run(r, "dirty_log_perf", args);
}

static uint64_t figure_value(const struct tool_run *r, const char *fig)
{
	return (uint64_t)tool_figure(r, "", fig);
}

/* Common checks of a passing run with `iters` iterations. */
static void check_pass(struct __test_metadata *_metadata, struct tool_run *r, int iters)
{
	char line[64];

	if (r->code != 0)
		TH_LOG("output:\n%s", r->out);
	ASSERT_EQ(0, r->code);
	ASSERT_NE(NULL, r->doc);
	ASSERT_STREQ("pass", jv_string(r->doc, "status"));
	ASSERT_EQ(0, tool_schema_check(r));
	snprintf(line, sizeof(line), "Test iterations: %d\n", iters);
	ASSERT_NE(NULL, strstr(r->out, line));
	ASSERT_NE(NULL, strstr(r->out, "Populate memory time: "));
	ASSERT_NE(NULL, strstr(r->out, "Enabling dirty logging time: "));
	ASSERT_NE(NULL, strstr(r->out, "Disabling dirty logging time: "));
	snprintf(line, sizeof(line), "over %d iterations took ", iters);
	ASSERT_NE(NULL, strstr(r->out, line));
	ASSERT_NE(NULL, strstr(r->out, "ok 1 dirty_log_perf"));
	/* The MMU stats of every phase, zeros included (arm64 KVM counts no pages). */
#ifdef __x86_64__
	ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/get_dirty_log/pages_4k"));
	ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/populate/pages_2m"));
#endif
	ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/get_dirty_log/remote_tlb_flush"));
	ASSERT_EQ(iters, jv_size(r->doc, "figures/get_dirty_log_time/values") +
			 jv_size(r->doc, "figures/harvest_dirty_ring_time/values"));
}

/* Lockstep, -w 100, in order: each iteration's log is exactly every page. */
static void check_exact(struct __test_metadata *_metadata, struct tool_run *r, int iters,
			uint64_t pages)
{
	char path[64];

	for (int i = 0; i < iters; i++) {
		snprintf(path, sizeof(path), "figures/dirty_pages/values/%d", i);
		ASSERT_EQ(pages, (uint64_t)jv_number(r->doc, path));
	}
	ASSERT_EQ(0, figure_value(r, "verify_lost_pages"));
	ASSERT_EQ(pages * (iters), figure_value(r, "pages_written"));
}

#define VERIFY_SOURCE(name)                                                    \
	TEST(lockstep_verify_##name)                                           \
	{                                                                      \
		const char *args[] = { "-v", "2", "-b", "4M", "-i", "3", "-s", \
				       #name, "--verify", NULL };              \
		struct tool_run *r = calloc(1, sizeof(*r));                         \
									       \
		run_dlp(r, args);                                              \
		check_pass(_metadata, r, 3);                                   \
		check_exact(_metadata, r, 3, 2 * 1024);                        \
		ASSERT_NE(NULL, strstr(r->out, "Iteration 3 clear dirty log time: ")); \
		tool_run_free(r);                                                   \
		free(r);                                                       \
	}

VERIFY_SOURCE(anonymous)
VERIFY_SOURCE(anonymous_thp)
VERIFY_SOURCE(anonymous_hugetlb_2mb)
VERIFY_SOURCE(shmem)

TEST(nonstop_chunked_clear_counts_pages)
{
	/* 8M slot, cleared in 1M chunks while 2 vCPUs keep writing. */
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "4", "-j", "-k", "1M",
			       "-l", "1", "--verify", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	uint64_t touched, reads, writes;

	run_dlp(r, args);
	check_pass(_metadata, r, 4);
	touched = figure_value(r, "pages_touched");
	reads = figure_value(r, "pages_read");
	writes = figure_value(r, "pages_written");
	ASSERT_GT(touched, 0);
	ASSERT_EQ(touched, reads + writes);
	/* Each iteration waits for a whole pass per vCPU: at least 4 x 2 x 1024. */
	ASSERT_GE(writes, 4 * 2 * 1024);
	ASSERT_NE(NULL, strstr(r->out, "Total pages touched: "));
	/* No dirty-memory phase in nonstop mode. */
	ASSERT_EQ(NULL, strstr(r->out, "dirty memory time"));
	ASSERT_EQ(0, figure_value(r, "verify_lost_pages"));
	tool_run_free(r);
	free(r);
}

TEST(two_slots)
{
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "2", "-x", "2", "--verify", NULL };
	struct tool_run r;

	run_dlp(&r, args);
	check_pass(_metadata, &r, 2);
	check_exact(_metadata, &r, 2, 2 * 1024);
	ASSERT_EQ(2, jv_number(r.doc, "params/slots"));
	tool_run_free(&r);
}

TEST(no_manual_protect)
{
	const char *args[] = { "-v", "1", "-b", "4M", "-i", "2", "-g", "--verify", NULL };
	struct tool_run r;

	run_dlp(&r, args);
	check_pass(_metadata, &r, 2);
	check_exact(_metadata, &r, 2, 1024);
	/* GET clears by itself: no clear lines, no clear figure. */
	ASSERT_EQ(NULL, strstr(r.out, "clear dirty log time"));
	ASSERT_EQ(JV_MISSING, jv_type(r.doc, "figures/clear_dirty_log_time"));
	tool_run_free(&r);
}

TEST(run_vcpus_while_disabling)
{
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "2", "-e", NULL };
	struct tool_run r;

	run_dlp(&r, args);
	check_pass(_metadata, &r, 2);
	ASSERT_TRUE(jv_type(r.doc, "params/run_while_disabling") == JV_TRUE);
	tool_run_free(&r);
}

TEST(dirty_ring_verify)
{
	/* 1024 pages per vCPU per iteration in a 4096-entry ring: it cannot fill. */
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "3", "--ring", "4096", "--verify",
			       NULL };
	struct tool_run r;

	run_dlp(&r, args);
	/* Kernels without a ring for this arch (arm64 before 6.2) skip, saying so. */
	if (r.code == KSFT_SKIP && strstr(r.out, "this host offers no dirty ring")) {
		tool_run_free(&r);
		SKIP(return, "this host offers no dirty ring");
	}
	check_pass(_metadata, &r, 3);
	check_exact(_metadata, &r, 3, 2 * 1024);
	ASSERT_NE(NULL, strstr(r.out, "Iteration 3 harvest dirty ring time: "));
	ASSERT_NE(NULL, strstr(r.out, "Reset dirty rings over 3 iterations took "));
	ASSERT_EQ(0, figure_value(&r, "ring_full_exits"));
	ASSERT_EQ(0, figure_value(&r, "ring_invalid_entries"));
	tool_run_free(&r);
}

/* Bad input: one line naming the option and value, exit 2, no guest started. */
static void check_usage_error(struct __test_metadata *_metadata, const char *const *args,
			      const char *expect)
{
	struct tool_run r;

	run_dlp(&r, args);
	TH_LOG("%s", r.out);
	ASSERT_EQ(2, r.code);
	ASSERT_NE(NULL, strstr(r.out, expect));
	ASSERT_EQ(strlen(r.out) - 1, strcspn(r.out, "\n"));	/* one line */
	ASSERT_EQ(NULL, strstr(r.out, "TAP version"));		/* nothing started */
	ASSERT_EQ(NULL, r.doc);
	tool_run_free(&r);
}

TEST(bad_input)
{
	static const struct {
		const char *args[6];
		const char *expect;
	} cases[] = {
		{ { "-i", "1" }, "-i '1': must be between 2 and" },
		{ { "-k", "4097" }, "-k '4097': must be a non-zero multiple of 256K" },
		{ { "-k", "0" }, "-k '0': must be a non-zero multiple of 256K" },
		{ { "-w", "101" }, "-w '101': must be between 0 and 100" },
		{ { "-v", "0" }, "-v '0': must be between 1 and" },
		{ { "-v", "100000" }, "-v '100000': must be between 1 and" },
		{ { "-b", "100" }, "-b '100': must be at least one guest page" },
		{ { "-b", "12Q" }, "-b '12Q'" },
		{ { "-x", "100000" }, "-x '100000': must be between 1 and" },
		{ { "-x", "4", "-b", "8K" }, "-x '4': 8192 bytes of guest memory split 4 ways" },
		{ { "-s", "nosuch" }, "-s 'nosuch': unknown backing source" },
		{ { "-c", "0,999" }, "-c '0,999': CPU 999 does not exist" },
		{ { "-m", "2" }, "-m '2': guest mode 2" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_usage_error(_metadata, cases[i].args, cases[i].expect);
}

TEST_HARNESS_MAIN
