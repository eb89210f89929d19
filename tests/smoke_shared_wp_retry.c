// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 000's retries, counted.  In the post's base and in the post, arm64's
 * KVM_CLEAR_DIRTY_LOG write-protects under the MMU read lock, with a shared
 * walk.  A vCPU that sets a PTE's access flag meanwhile (in hardware, or by
 * an access fault under the same read lock) makes that walk's cmpxchg lose,
 * and the walk must try the PTE again: skipping it would leave the page
 * writable and its next writes out of the log.  The post splits blocks
 * under the read lock too, with a shared split walk that must retry a block
 * whose break lost a race: skipping it leaves the block unsplit.  Each
 * walker reads a PTE again through its own noinline function, once per
 * lost race: stage2_attr_reload_leaf() (the write-protect) and
 * stage2_split_reload_block() (the split), so a kprobe on each counts that
 * walker's retries apart.
 *
 * Races are rare, so the fixture has two test aids, off by default:
 * kvm.wp_lose_a_race makes each PTE that the shared write-protect changes
 * lose its first cmpxchg, kvm.split_lose_a_race each block that a shared
 * split breaks.  With the first on, dirty_log_perf -j --verify must see
 * every page's retry and lose no write; a kernel without the retry loses
 * them (seed-000's control).  With the second on, the first clear must
 * split every 2M block (one table each) and retry each block once where
 * the split is shared (KMP_SPLIT_WALK=shared, the post), never where it is
 * exclusive (KMP_SPLIT_WALK=exclusive, the base: the aid does nothing); a
 * kernel without the split's retry leaves the blocks unsplit (seed-000-b's
 * control).  With the aids off and the pages aged (--age), or 2M blocks
 * split while the vCPUs write, the natural races are counted and reported,
 * not required.  A kernel without the aids or the reload functions is not
 * seed 000's fixture: the tests skip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "host_state.h"
#include "kselftest_harness.h"
#include "require.h"
#include "tool_run.h"
#include "trace.h"

#define WP_RETRY_FUNC "stage2_attr_reload_leaf"
#define SPLIT_RETRY_FUNC "stage2_split_reload_block"
#define LOSE_A_RACE "/sys/module/kvm/parameters/wp_lose_a_race"
#define SPLIT_LOSE_A_RACE "/sys/module/kvm/parameters/split_lose_a_race"
#define VCPUS 2
#define VCPU_BYTES (16UL << 20)
#define BLOCK_BYTES (2UL << 20)

/* The two walkers' reload functions, as kallsyms names them (a compiler clone is taken). */
struct retry_funcs {
	char wp[256], split[256];
};

/* Each walker's lost races, counted by the kprobe on its reload function. */
struct retries {
	uint64_t wp, split;
};

static void count_event(const struct trace_event *ev, void *arg)
{
	struct retries *n = arg;

	if (!strcmp(ev->name, "split_retry"))
		n->split++;
	else
		n->wp++;
}

/* A host that runs guests and a kernel with the fixture's retries, or the test skips. */
#define REQUIRE_FIXTURE(funcs)								\
	do {										\
		REQUIRE_KVM();								\
		REQUIRE_ROOT();								\
		if (!trace_kernel_function_or_clone(WP_RETRY_FUNC, (funcs)->wp,		\
						    sizeof((funcs)->wp)) ||		\
		    !trace_kernel_function_or_clone(SPLIT_RETRY_FUNC, (funcs)->split,	\
						    sizeof((funcs)->split)))		\
			SKIP(return, "this kernel has no %s() or %s(): not seed 000's "	\
			     "fixture", WP_RETRY_FUNC, SPLIT_RETRY_FUNC);			\
	} while (0)

/* dirty_log_perf with these arguments, and each walker's retries meanwhile. */
static void run_counting_retries(struct __test_metadata *_metadata,
				 const struct retry_funcs *funcs, const char *const *args,
				 struct tool_run *r, struct retries *retries)
{
	char why[512] = "";
	struct trace t;

	ASSERT_EQ(0, trace_open(&t, why, sizeof(why))) TH_LOG("tracefs: %s", why);
	ASSERT_TRUE(trace_kprobes_supported(&t, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, trace_add_probe(&t, "wp_retry", funcs->wp, false, "", NULL, why,
				     sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, trace_add_probe(&t, "split_retry", funcs->split, false, "", NULL, why,
				     sizeof(why))) TH_LOG("%s", why);
	trace_clear(&t);
	trace_arm(&t, true);
	tool_run(r, "dirty_log_perf", args);
	trace_arm(&t, false);
	trace_read(&t, count_event, retries);
	trace_close(&t);
	ASSERT_EQ(0, t.lost) TH_LOG("the trace lost %lu events", (unsigned long)t.lost);
}

/*
 * With the aid on, the first clear write-protects every page of the slot
 * (manual protect with initially-all-set), each writable since the populate
 * wrote it and mapped 4K (anonymous memory is madvised NOHUGEPAGE), and each
 * loses its first cmpxchg: at least one write-protect retry per page.
 */
TEST(every_lost_race_is_retried)
{
	static const char *const args[] = {
		"-v", "2", "-b", "16M", "-i", "10", "-j", "--verify", NULL,
	};
	uint64_t pages = VCPUS * VCPU_BYTES / getpagesize();
	struct retries retries = { 0 };
	struct retry_funcs funcs;
	struct tool_run *r;

	REQUIRE_FIXTURE(&funcs);
	if (access(LOSE_A_RACE, W_OK))
		SKIP(return, "no writable %s: not seed 000's fixture", LOSE_A_RACE);
	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, host_state_write(LOSE_A_RACE, "1"));
	run_counting_retries(_metadata, &funcs, args, r, &retries);
	host_state_restore_path(LOSE_A_RACE);
	if (r->code == KSFT_SKIP) {
		TH_LOG("%s", r->out);
		SKIP(return, "dirty_log_perf skipped (its output above)");
	}
	TH_LOG("%lu write-protect retries with every write-protect losing once (%lu split "
	       "retries); %lu pages, %.0f written, %.0f never logged",
	       (unsigned long)retries.wp, (unsigned long)retries.split, (unsigned long)pages,
	       tool_figure(r, "", "pages_written"), tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ(0, tool_figure(r, "", "verify_lost_pages"))
		TH_LOG("pages written without reaching the log: the lost races were skipped");
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	EXPECT_GE(retries.wp, pages);
	EXPECT_EQ(0, tool_schema_check(r));
	tool_run_free(r);
	free(r);
}

/*
 * KMP_SPLIT_WALK's side: true for "shared" (the post: the split under the
 * read lock), false for "exclusive" (the base: under the write lock).
 * Unset, the test skips: which side of seed 000 this is cannot be told.
 */
#define SPLIT_SIDE(shared)								\
	do {										\
		const char *side = getenv("KMP_SPLIT_WALK");				\
											\
		if (!side)								\
			SKIP(return, "KMP_SPLIT_WALK (shared or exclusive) is not set");	\
		ASSERT_TRUE(!strcmp(side, "shared") || !strcmp(side, "exclusive"))	\
			TH_LOG("KMP_SPLIT_WALK=%s: want shared or exclusive", side);	\
		shared = !strcmp(side, "shared");					\
	} while (0)

/*
 * With kvm.split_lose_a_race on, the first clear of 16M of 2M hugetlb
 * blocks (one vCPU, lockstep, so it is idle in the clear: no natural race)
 * splits each block down to 4K, adding one table per block (SecPageTables,
 * as smoke_eager_split's first_clear_splits_every_block), and a shared
 * split loses each block's first break: exactly one split retry per block.
 * An exclusive split ignores the aid: no retry.  The lost tables go back to
 * the page allocator, so they leave SecPageTables as it was.
 */
TEST(aided_split_retries_every_block)
{
	static const char *const args[] = {
		"-v", "1", "-b", "16M", "-i", "2", "-s", "anonymous_hugetlb_2mb",
		"--eager-split", "4K", "--verify", NULL,
	};
	uint64_t blocks = VCPU_BYTES / BLOCK_BYTES, want;
	struct retries retries = { 0 };
	struct retry_funcs funcs;
	struct tool_run *r;
	bool shared;

	SPLIT_SIDE(shared);
	REQUIRE_FIXTURE(&funcs);
	if (access(SPLIT_LOSE_A_RACE, W_OK))
		SKIP(return, "no writable %s: not seed 000's fixture", SPLIT_LOSE_A_RACE);
	ASSERT_EQ(4096, getpagesize()) TH_LOG("2M blocks need 4K host pages");
	want = shared ? blocks : 0;
	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, host_state_write(SPLIT_LOSE_A_RACE, "1"));
	run_counting_retries(_metadata, &funcs, args, r, &retries);
	host_state_restore_path(SPLIT_LOSE_A_RACE);
	if (r->code == KSFT_SKIP) {
		TH_LOG("%s", r->out);
		SKIP(return, "dirty_log_perf skipped (its output above)");
	}
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	ASSERT_NE(NULL, r->doc);
	ASSERT_NE(JV_MISSING, jv_type(r->doc, "figures/first_clear_page_tables_added/value"))
		TH_LOG("no SecPageTables in /proc/meminfo?");
	TH_LOG("%s split, every block's break losing once: %lu split retries, %lu "
	       "write-protect retries; iteration 1's clear added %.0f page-table pages for "
	       "%lu blocks; %.0f pages never logged", shared ? "shared" : "exclusive",
	       (unsigned long)retries.split, (unsigned long)retries.wp,
	       tool_figure(r, "", "first_clear_page_tables_added"), (unsigned long)blocks,
	       tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ((int64_t)blocks, (int64_t)tool_figure(r, "", "first_clear_page_tables_added"))
		TH_LOG("blocks left unsplit: iteration 1's clear added %.0f page-table pages, "
		       "not one per 2M block (%lu); a lost break skipped its block",
		       tool_figure(r, "", "first_clear_page_tables_added"),
		       (unsigned long)blocks);
	EXPECT_EQ(want, retries.split)
		TH_LOG("%lu split retries, not %lu: with every break losing once, a %s split "
		       "retries each of the %lu blocks %s", (unsigned long)retries.split,
		       (unsigned long)want, shared ? "shared" : "exclusive",
		       (unsigned long)blocks, shared ? "once" : "never (it cannot race)");
	EXPECT_EQ(0, tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ(0, tool_schema_check(r));
	tool_run_free(r);
	free(r);
}

/*
 * Without the aids, whether a race happens is up to timing: the retries are
 * counted and reported, not required.  No write may be lost.
 */
static void natural_races(struct __test_metadata *_metadata, const char *const *args,
			  const char *setting, bool aged)
{
	struct retries retries = { 0 };
	struct retry_funcs funcs;
	struct tool_run *r;

	REQUIRE_FIXTURE(&funcs);
	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	run_counting_retries(_metadata, &funcs, args, r, &retries);
	if (r->code == KSFT_SKIP) {
		TH_LOG("%s", r->out);
		SKIP(return, "dirty_log_perf skipped (its output above)");
	}
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	TH_LOG("natural retries %s: %lu of the write-protect (%s), %lu of the split (%s); "
	       "%.0f aging passes, %.0f pages written, %.0f lost", setting,
	       (unsigned long)retries.wp, funcs.wp, (unsigned long)retries.split, funcs.split,
	       tool_figure(r, "", "age_passes"), tool_figure(r, "", "pages_written"),
	       tool_figure(r, "", "verify_lost_pages"));
	if (aged)
		EXPECT_GE(tool_figure(r, "", "age_passes"), 1);
	EXPECT_EQ(0, tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ(0, tool_schema_check(r));
	tool_run_free(r);
	free(r);
}

/* The guest memory aged (access flags cleared) over and over while the vCPUs write. */
TEST(aged_clears_lose_no_write)
{
	static const char *const args[] = {
		"-v", "2", "-b", "16M", "-i", "50", "-j", "--age", "--verify", NULL,
	};

	natural_races(_metadata, args, "with the guest memory aged", true);
}

/*
 * The post's own race: its split walks shared, under the read lock, while
 * the vCPUs fault on the blocks being split (2M hugetlb, split to 4K in the
 * clears).  On the post's base the split holds the write lock and cannot
 * race.
 */
TEST(split_clears_lose_no_write)
{
	static const char *const args[] = {
		"-v", "2", "-b", "16M", "-i", "100", "-j", "-s", "anonymous_hugetlb_2mb",
		"--eager-split", "4K", "--verify", NULL,
	};

	natural_races(_metadata, args, "with 2M blocks split in the clears", false);
}

TEST_HARNESS_MAIN
