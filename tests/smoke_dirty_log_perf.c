// SPDX-License-Identifier: GPL-2.0
/*
 * dirty_log_perf end to end, at tiny scale, on real KVM: the binary next to
 * this one is run with --verify and --json, and its exit code, its
 * upstream-format lines and its JSON record are checked.  In lockstep with
 * 100% in-order writes every page is written every iteration, so each
 * iteration's log must hold exactly every page: a figure KVM produced,
 * checked against what the guest did.  KVM's log has a bit per host page
 * (64K on powerpc), so the log's counts are of those, each holding several
 * of the guest's 4K pages.
 */
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_util.h"
#include "stats.h"
#include "tool_run.h"
#include "require.h"

/* Run dirty_log_perf with args (a NULL-terminated list) plus --json. */
static void run_dlp(struct tool_run *r, const char *const *args)
{
	tool_run(r, "dirty_log_perf", args);
}

static uint64_t figure_value(const struct tool_run *r, const char *fig)
{
	return (uint64_t)tool_figure(r, "", fig);
}

/*
 * The mappings KVM held after populate: where they are counted, at least
 * the pages the vCPUs wrote (4K, or 2M where THP backs the memory), and the
 * output names them; elsewhere null, with the reason in the record and the
 * output.
 */
static void check_mappings(struct __test_metadata *_metadata, const struct tool_run *r)
{
	double vcpus = jv_number(r->doc, "params/vcpus");
	double bytes = jv_number(r->doc, "params/vcpu_bytes");

	ASSERT_STREQ("after populate", jv_string(r->doc, "mappings/when"));
	if (jv_type(r->doc, "mappings/pages_4k") == JV_NULL) {
		ASSERT_NE(NULL, jv_string(r->doc, "mappings/not_counted"));
		ASSERT_NE(NULL, strstr(r->out, "guest memory mapped by KVM after populate: not counted ("));
		return;
	}
	ASSERT_GE(jv_number(r->doc, "mappings/pages_4k") + 512 * jv_number(r->doc, "mappings/pages_2m") +
		  512 * 512 * jv_number(r->doc, "mappings/pages_1g"), vcpus * bytes / 4096);
	ASSERT_NE(NULL, strstr(r->out, "guest memory mapped by KVM after populate: 4K "));
}

/* Whether a VM on this host has the KVM stat name. */
static bool vm_has_stat(const char *name)
{
	struct kvm_vm *vm = vm_create(1, 0);
	struct kvm_stats st;
	bool has;

	stats_open_vm(&st, vm);
	has = stats_find(&st, name) != NULL;
	stats_close(&st);
	vm_free(vm);
	return has;
}

/* Common checks of a passing run with `iters` iterations. */
static void check_pass(struct __test_metadata *_metadata, struct tool_run *r, int iters)
{
	char line[64];

	tool_assert_pass(_metadata, r);
	snprintf(line, sizeof(line), "Test iterations: %d\n", iters);
	ASSERT_NE(NULL, strstr(r->out, line));
	ASSERT_NE(NULL, strstr(r->out, "Populate memory time: "));
	ASSERT_NE(NULL, strstr(r->out, "Enabling dirty logging time: "));
	ASSERT_NE(NULL, strstr(r->out, "Disabling dirty logging time: "));
	snprintf(line, sizeof(line), "over %d iterations took ", iters);
	ASSERT_NE(NULL, strstr(r->out, line));
	ASSERT_NE(NULL, strstr(r->out, "ok 1 dirty_log_perf"));
	/*
	 * The MMU stats of every phase, zeros included; the leaf mappings
	 * wherever this host's KVM has those stats (x86's, kvm_pvm's too).
	 */
	if (vm_has_stat("pages_4k")) {
		ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/get_dirty_log/pages_4k"));
		ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/populate/pages_2m"));
	}
	ASSERT_NE(JV_MISSING, jv_type(r->doc, "phases/get_dirty_log/remote_tlb_flush"));
	check_mappings(_metadata, r);
	ASSERT_EQ(iters, jv_size(r->doc, "figures/get_dirty_log_time/values") +
			 jv_size(r->doc, "figures/harvest_dirty_ring_time/values"));
}

/*
 * The dirty log's page size the record states (only where it is not 4K),
 * which must be this host's page size.
 */
static uint64_t log_page_bytes(struct __test_metadata *_metadata, const struct tool_run *r)
{
	uint64_t bytes = 4096;

	if (jv_type(r->doc, "params/dirty_log_page_bytes") != JV_MISSING)
		bytes = jv_number(r->doc, "params/dirty_log_page_bytes");
	EXPECT_EQ((uint64_t)getpagesize(), bytes);
	return bytes;
}

/*
 * Lockstep, -w 100, in order: each iteration's log is exactly every page:
 * `pages` 4K guest pages written, so pages * 4K / the log's page size in the log.
 */
static void check_exact(struct __test_metadata *_metadata, struct tool_run *r, int iters,
			uint64_t pages)
{
	uint64_t log_pages = pages * 4096 / log_page_bytes(_metadata, r);
	char path[64];

	for (int i = 0; i < iters; i++) {
		snprintf(path, sizeof(path), "figures/dirty_pages/values/%d", i);
		ASSERT_EQ(log_pages, (uint64_t)jv_number(r->doc, path));
	}
	ASSERT_EQ(log_pages * iters, figure_value(r, "dirty_pages"));
	ASSERT_EQ(0, figure_value(r, "verify_lost_pages"));
	ASSERT_EQ(pages * (iters), figure_value(r, "pages_written"));
	/* Lockstep: the host waited for the vCPUs' pass once per iteration. */
	ASSERT_EQ(iters, figure_value(r, "host_waits_for_vcpus"));
}

/*
 * Hosts without KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 (powerpc: no
 * KVM_CLEAR_DIRTY_LOG) run as with -g: KVM_GET_DIRTY_LOG clears, and there
 * is no clear step to see.
 */
static bool has_clear_step(struct __test_metadata *_metadata, const struct tool_run *r)
{
	if (jv_number(r->doc, "params/manual_protect_caps"))
		return true;
	TH_LOG("no KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 on this host: no clear step");
	EXPECT_EQ(NULL, strstr(r->out, "clear dirty log time"));
	return false;
}

/* -k's granularity: 64 of the log's pages (256K with 4K pages). */
static uint64_t clear_align(void)
{
	return 64 * (uint64_t)getpagesize();
}

/*
 * Memory per vCPU for a source: 4M, or for THP half a THP page where that
 * is more (POWER's hash MMU has 16M THP pages; the two vCPUs' memory must
 * fill at least one).
 */
static uint64_t verify_vcpu_bytes(const char *src)
{
	uint64_t bytes = 4 << 20, thp;
	char buf[32];

	if (strcmp(src, "anonymous_thp"))
		return bytes;
	child_read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf));
	thp = strtoull(buf, NULL, 0);
	return thp / 2 > bytes ? thp / 2 : bytes;
}

/*
 * The vCPUs' stats over the host's loop, summed: every lockstep pass ends
 * in a ucall, an exit to the host, on each vCPU.  Where KVM has no "exits"
 * stat (POWER), the run says so.
 */
static void check_loop_exits(struct __test_metadata *_metadata, const struct tool_run *r,
			     int iters, int vcpus)
{
	const char *path = "phases/vcpus_over_iterations/exits";

	if (jv_type(r->doc, path) == JV_MISSING) {
		ASSERT_NE(NULL, strstr(r->out, "exits: not counted by this KVM"));
		return;
	}
	ASSERT_GE(jv_number(r->doc, path), iters * vcpus) TH_LOG("%s", r->out);
}

#define VERIFY_SOURCE(name)                                                    \
	TEST(lockstep_verify_##name)                                           \
	{                                                                      \
		uint64_t bytes = verify_vcpu_bytes(#name);                     \
		char b[32];                                                    \
		const char *args[] = { "-v", "2", "-b", b, "-i", "3", "-s",    \
				       #name, "--verify", NULL };              \
		struct tool_run *r = calloc(1, sizeof(*r));                         \
									       \
		REQUIRE_KVM();                                                 \
		snprintf(b, sizeof(b), "%luK", (unsigned long)(bytes >> 10));  \
		run_dlp(r, args);                                              \
		check_pass(_metadata, r, 3);                                   \
		check_exact(_metadata, r, 3, 2 * bytes / 4096);                \
		check_loop_exits(_metadata, r, 3, 2);                          \
		if (has_clear_step(_metadata, r))                              \
			ASSERT_NE(NULL, strstr(r->out,                         \
					       "Iteration 3 clear dirty log time: ")); \
		tool_run_free(r);                                                   \
		free(r);                                                       \
	}

VERIFY_SOURCE(anonymous)
VERIFY_SOURCE(anonymous_thp)
VERIFY_SOURCE(anonymous_hugetlb_2mb)
VERIFY_SOURCE(shmem)

TEST(nonstop_chunked_clear_counts_pages)
{
	REQUIRE_KVM();

	/*
	 * 8M slot, cleared in 1M chunks (4M where the log has 64K pages: 64 of
	 * them) while 2 vCPUs keep writing.
	 */
	uint64_t chunk = clear_align() > (1 << 20) ? clear_align() : 1 << 20;
	char chunk_text[32];
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "4", "-j", "-k", chunk_text,
			       "-l", "1", "--verify", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	uint64_t touched, reads, writes;

	snprintf(chunk_text, sizeof(chunk_text), "%luK", (unsigned long)(chunk >> 10));

	run_dlp(r, args);
	check_pass(_metadata, r, 4);
	touched = figure_value(r, "pages_touched");
	reads = figure_value(r, "pages_read");
	writes = figure_value(r, "pages_written");
	ASSERT_EQ(touched, reads + writes);
	/* Counted over the host's whole loop: the pages touched during its clears are some. */
	ASSERT_GE(touched, figure_value(r, "pages_touched_during_clear"));
	ASSERT_NE(NULL, strstr(r->out, "Total pages touched: "));
	/* No dirty-memory phase in nonstop mode. */
	ASSERT_EQ(NULL, strstr(r->out, "dirty memory time"));
	ASSERT_EQ(0, figure_value(r, "verify_lost_pages"));
	/* -j's own check: the copy kept from the logs, against the memory at the end. */
	ASSERT_NE(NULL, strstr(r->out, "verify: -j: the copy kept from the logs equals the memory"));
	tool_run_free(r);
	free(r);
}

/*
 * -j as the clear-dirty-log series has it: the host runs its iterations back
 * to back without waiting for the vCPUs: its loop waited for them not once
 * (the lockstep loop waits once per iteration: lockstep_verify_anonymous).
 * How far the vCPUs got meanwhile is a matter of timing, so not asserted;
 * but the record gives it in passes of their memory, and below one pass
 * the run says the figure means little, in its output and its record.
 */
TEST(nonstop_host_loop_does_not_wait)
{
	const char *args[] = { "-v", "2", "-b", "64M", "-i", "3", "-j", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	bool short_loop;
	double passes, loop, window;

	REQUIRE_KVM();

	run_dlp(r, args);
	check_pass(_metadata, r, 3);
	ASSERT_NE(NULL, strstr(r->out, "Iteration 3 get dirty log time: "));
	ASSERT_EQ(0, figure_value(r, "host_waits_for_vcpus")) TH_LOG("%s", r->out);
	ASSERT_EQ(figure_value(r, "pages_touched"),
		  figure_value(r, "pages_read") + figure_value(r, "pages_written"));
	ASSERT_NE(NULL, strstr(r->out, "while the host ran its 3 iterations back to back"));
	passes = tool_figure(r, "", "nonstop_passes");
	ASSERT_EQ(figure_value(r, "pages_touched"), passes * 2 * (64 << 20) / 4096);
	loop = tool_figure(r, "", "nonstop_loop_time");
	ASSERT_GT(loop, 0);
	/*
	 * Where the vCPU threads' time went, read just outside the loop, in a
	 * window that holds it: the exact CPU time fits in the window; the
	 * tick-sampled guest time to a tick and a USER_HZ step per reading, at
	 * most 10 ms each.
	 */
	window = tool_figure(r, "", "vcpu_window_time");
	ASSERT_GE(window, loop);
	ASSERT_GT(tool_figure(r, "", "vcpu_cpu_time"), 0);
	ASSERT_LE(tool_figure(r, "", "vcpu_cpu_time"), 2 * window + 1e-6);
	ASSERT_LE(tool_figure(r, "", "vcpu_guest_time"), 2 * (window + 0.03));
	ASSERT_NE(NULL, strstr(r->out, "# vCPU threads over the host's loop and the reads around "
				       "it ("));
	short_loop = strstr(r->out, "fewer than 1: too short for the pages touched") != NULL;
	ASSERT_EQ(passes < 1, short_loop) TH_LOG("%s", r->out);
	ASSERT_EQ(passes < 1 ? JV_STRING : JV_MISSING, jv_type(r->doc, "caveats/pages_touched"));
	tool_run_free(r);
	free(r);
}

/* -p places the test memory where upstream's offset says: the guest writes there, logged. */
TEST(test_memory_offset)
{
	const char *args[] = { "-p", "0x200000000", "-b", "4M", "-i", "2", "--verify", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));

	REQUIRE_KVM();

	run_dlp(r, args);
	check_pass(_metadata, r, 2);
	ASSERT_EQ(0x200000000ULL, (uint64_t)jv_number(r->doc, "params/test_gpa"));
	/* Every page the guest wrote there, in the log's unit (64K pages on POWER). */
	check_exact(_metadata, r, 2, 1024);
	/* 4K guest pages: the counts are in upstream's unit, and no note says otherwise. */
	ASSERT_EQ(NULL, strstr(r->out, "(upstream's unit): divide by"));
	tool_run_free(r);
	free(r);
}

/* This arch's own tests (tests/<arch>/smoke_dirty_log_perf.inc). */
#include "smoke_dirty_log_perf.inc"

TEST(two_slots)
{
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "2", "-x", "2", "--verify", NULL };
	struct tool_run r;

	REQUIRE_KVM();

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

	REQUIRE_KVM();

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

	REQUIRE_KVM();

	run_dlp(&r, args);
	check_pass(_metadata, &r, 2);
	ASSERT_TRUE(jv_type(r.doc, "params/run_while_disabling") == JV_TRUE);
	tool_run_free(&r);
}

/* Kernels without a ring for this arch (arm64 before 6.2) skip, saying so: false then. */
static bool ring_offered(struct tool_run *r)
{
	if (r->code == KSFT_SKIP && strstr(r->out, "this host offers no dirty ring")) {
		tool_run_free(r);
		return false;
	}
	return true;
}

TEST(dirty_ring_verify)
{
	REQUIRE_KVM();

	/* 1024 pages per vCPU per iteration in a 4096-entry ring: it cannot fill. */
	const char *args[] = { "-v", "2", "-b", "4M", "-i", "3", "--ring", "4096", "--verify",
			       NULL };
	struct tool_run r;

	run_dlp(&r, args);
	if (!ring_offered(&r))
		SKIP(return, "this host offers no dirty ring");
	check_pass(_metadata, &r, 3);
	check_exact(_metadata, &r, 3, 2 * 1024);
	ASSERT_NE(NULL, strstr(r.out, "Iteration 3 harvest dirty ring time: "));
	ASSERT_NE(NULL, strstr(r.out, "Reset dirty rings over 3 iterations took "));
	ASSERT_EQ(0, figure_value(&r, "ring_full_exits"));
	ASSERT_EQ(0, figure_value(&r, "ring_invalid_entries"));
	tool_run_free(&r);
}

/*
 * A ring smaller than an iteration's pages: full vCPUs are served mid-pass,
 * and every written page is still in what was harvested, exactly.  kvm_pvm
 * exits "full" late and can overfill a small ring (docs/dirty_log_perf.md):
 * there the run either passes the same way or names the overflow.
 */
TEST(dirty_ring_full_served_mid_iteration)
{
	const char *args[] = { "-v", "2", "-b", "8M", "-i", "3", "--ring", "256", "--verify",
			       NULL };
	struct tool_run r;

	REQUIRE_KVM();

	run_dlp(&r, args);
	if (!ring_offered(&r))
		SKIP(return, "this host offers no dirty ring");
	if (host_mmu_traits()->ring_can_overfill && r.code) {
		ASSERT_NE(NULL, strstr(r.out, "the kernel overflowed a ring and lost entries"))
			TH_LOG("%s", r.out);
		tool_run_free(&r);
		return;
	}
	check_pass(_metadata, &r, 3);
	check_exact(_metadata, &r, 3, 2 * 2048);
	ASSERT_GT(figure_value(&r, "ring_full_exits"), 0);
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
	REQUIRE_KVM();

	/* -k's granularity is 256K with 4K pages, 4M with 64K. */
	uint64_t align = clear_align();
	char k4097[96], k0[96], size[24];
	const struct {
		const char *args[6];
		const char *expect;
	} cases[] = {
		{ { "-i", "1" }, "-i '1': must be between 2 and" },
		{ { "-k", "4097" }, k4097 },
		{ { "-k", "0" }, k0 },
		{ { "-w", "101" }, "-w '101': must be between 0 and 100" },
		{ { "-v", "0" }, "-v '0': must be between 1 and" },
		{ { "-v", "100000" }, "-v '100000': must be between 1 and" },
		{ { "-b", "100" }, "-b '100': must be at least one guest page" },
		{ { "-b", "12Q" }, "-b '12Q'" },
		{ { "-x", "100000" }, "-x '100000': must be between 1 and" },
		{ { "-x", "4", "-b", "8K" }, "-x '4': 8192 bytes of guest memory split 4 ways" },
		{ { "-s", "nosuch" }, "-s 'nosuch': unknown backing source" },
		{ { "-c", "0,999" }, "-c '0,999': CPU 999 does not exist" },
	};

	if (align % (1 << 20))
		snprintf(size, sizeof(size), "%luK", (unsigned long)(align >> 10));
	else
		snprintf(size, sizeof(size), "%luM", (unsigned long)(align >> 20));
	snprintf(k4097, sizeof(k4097), "-k '4097': must be a non-zero multiple of %s (", size);
	snprintf(k0, sizeof(k0), "-k '0': must be a non-zero multiple of %s (", size);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_usage_error(_metadata, cases[i].args, cases[i].expect);
}

TEST_HARNESS_MAIN
