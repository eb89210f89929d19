// SPDX-License-Identifier: GPL-2.0
/*
 * Seed 000's retry, counted.  In the post's base and in the post, arm64's
 * KVM_CLEAR_DIRTY_LOG write-protects under the MMU read lock, with a shared
 * walk.  A vCPU that sets a PTE's access flag meanwhile (in hardware, or by
 * an access fault under the same read lock) makes that walk's cmpxchg lose,
 * and the walk must try the PTE again: skipping it would leave the page
 * writable and its next writes out of the log.  The fixture's
 * stage2_reload_leaf() runs once per lost race (it is noinline for this
 * count), so a kprobe on it counts the retries.
 *
 * The race is rare, so the fixture has a test aid, kvm.wp_lose_a_race: each
 * PTE that the shared write-protect changes loses its first cmpxchg.  With
 * it on, dirty_log_perf -j --verify must see every page's retry and lose no
 * write; a kernel without the retry loses them (the control).  With it off
 * and the pages aged (--age), the natural races are counted and reported,
 * not required: under emulation there were none.  The post's split, under
 * the read lock, races with the vCPUs' faults on the blocks it splits:
 * counted too.  A kernel without the aid or without stage2_reload_leaf is
 * not seed 000's fixture: the tests skip.
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

#define RETRY_FUNC "stage2_reload_leaf"
#define LOSE_A_RACE "/sys/module/kvm/parameters/wp_lose_a_race"
#define VCPUS 2
#define VCPU_BYTES (16UL << 20)

/* The function's name in kallsyms: GCC may have cloned it (".isra.0" and the like). */
static bool retry_symbol(char *name, size_t len)
{
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %255s", sym) == 1 &&
		    !strncmp(sym, RETRY_FUNC, strlen(RETRY_FUNC)) &&
		    (!sym[strlen(RETRY_FUNC)] || sym[strlen(RETRY_FUNC)] == '.')) {
			snprintf(name, len, "%s", sym);
			found = true;
		}
	fclose(f);
	return found;
}

static void count_event(const struct trace_event *ev, void *arg)
{
	(*(uint64_t *)arg)++;
}

/* A host that runs guests and a kernel with the fixture's retry, or the test skips. */
#define REQUIRE_FIXTURE(func)								\
	do {										\
		REQUIRE_KVM();								\
		REQUIRE_ROOT();								\
		if (!retry_symbol(func, sizeof(func)))					\
			SKIP(return, "this kernel has no %s(): not seed 000's fixture",	\
			     RETRY_FUNC);							\
	} while (0)

/* dirty_log_perf with these arguments, and how many times func (the retry) ran meanwhile. */
static void run_counting_retries(struct __test_metadata *_metadata, const char *func,
				 const char *const *args, struct tool_run *r, uint64_t *retries)
{
	char why[512] = "";
	struct trace t;

	ASSERT_EQ(0, trace_open(&t, why, sizeof(why))) TH_LOG("tracefs: %s", why);
	ASSERT_TRUE(trace_kprobes_supported(&t, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, trace_add_probe(&t, "retry", func, false, "", NULL, why, sizeof(why)))
		TH_LOG("%s", why);
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
 * loses its first cmpxchg: at least one retry per page.
 */
TEST(every_lost_race_is_retried)
{
	static const char *const args[] = {
		"-v", "2", "-b", "16M", "-i", "10", "-j", "--verify", NULL,
	};
	uint64_t pages = VCPUS * VCPU_BYTES / getpagesize(), retries = 0;
	struct tool_run *r;
	char func[256];

	REQUIRE_FIXTURE(func);
	if (access(LOSE_A_RACE, W_OK))
		SKIP(return, "no writable %s: not seed 000's fixture", LOSE_A_RACE);
	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, host_state_write(LOSE_A_RACE, "1"));
	run_counting_retries(_metadata, func, args, r, &retries);
	host_state_restore_path(LOSE_A_RACE);
	if (r->code == KSFT_SKIP) {
		TH_LOG("%s", r->out);
		SKIP(return, "dirty_log_perf skipped (its output above)");
	}
	TH_LOG("%lu retries with every write-protect losing once; %lu pages, %.0f written, "
	       "%.0f never logged", (unsigned long)retries, (unsigned long)pages,
	       tool_figure(r, "", "pages_written"), tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ(0, tool_figure(r, "", "verify_lost_pages"))
		TH_LOG("pages written without reaching the log: the lost races were skipped");
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	EXPECT_GE(retries, pages);
	EXPECT_EQ(0, tool_schema_check(r));
	tool_run_free(r);
	free(r);
}

/*
 * Without the aid, whether a race happens is up to timing: the retries are
 * counted and reported, not required.  No write may be lost.
 */
static void natural_races(struct __test_metadata *_metadata, const char *const *args,
			  const char *setting, bool aged)
{
	struct tool_run *r;
	uint64_t retries = 0;
	char func[256];

	REQUIRE_FIXTURE(func);
	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	run_counting_retries(_metadata, func, args, r, &retries);
	if (r->code == KSFT_SKIP) {
		TH_LOG("%s", r->out);
		SKIP(return, "dirty_log_perf skipped (its output above)");
	}
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	TH_LOG("%lu natural retries (%s) %s; %.0f aging passes, %.0f pages written, %.0f lost",
	       (unsigned long)retries, func, setting, tool_figure(r, "", "age_passes"),
	       tool_figure(r, "", "pages_written"), tool_figure(r, "", "verify_lost_pages"));
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
