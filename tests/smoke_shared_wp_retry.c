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
 * dirty_log_perf -j --age --verify makes the races: the vCPUs write
 * nonstop, the clears run back to back, and aging clears the access flags
 * over and over; --verify then checks that no write was lost.  A kernel
 * without stage2_reload_leaf is not seed 000's fixture: the test skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "require.h"
#include "tool_run.h"
#include "trace.h"

#define RETRY_FUNC "stage2_reload_leaf"

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

TEST(aged_clears_retry_and_lose_no_write)
{
	static const char *const args[] = {
		"-v", "2", "-b", "16M", "-i", "50", "-j", "--eager-split", "4K", "--age",
		"--verify", NULL,
	};
	struct tool_run *r = calloc(1, sizeof(*r));
	uint64_t retries = 0;
	char func[256], why[512] = "";
	struct trace t;

	REQUIRE_KVM();
	REQUIRE_ROOT();
	if (!retry_symbol(func, sizeof(func)))
		SKIP(return, "this kernel has no %s(): not seed 000's fixture", RETRY_FUNC);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, trace_open(&t, why, sizeof(why))) TH_LOG("tracefs: %s", why);
	ASSERT_TRUE(trace_kprobes_supported(&t, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, trace_add_probe(&t, "retry", func, false, "", NULL, why, sizeof(why)))
		TH_LOG("%s", why);
	trace_clear(&t);
	trace_arm(&t, true);
	tool_run(r, "dirty_log_perf", args);
	trace_arm(&t, false);
	trace_read(&t, count_event, &retries);
	ASSERT_EQ(0, r->code) TH_LOG("dirty_log_perf failed:\n%s", r->out);
	ASSERT_EQ(0, t.lost) TH_LOG("the trace lost %lu events", (unsigned long)t.lost);
	TH_LOG("%lu retries (%s) over %.0f aging passes; %.0f pages written, %.0f lost",
	       (unsigned long)retries, func, tool_figure(r, "", "age_passes"),
	       tool_figure(r, "", "pages_written"), tool_figure(r, "", "verify_lost_pages"));
	EXPECT_GE(tool_figure(r, "", "age_passes"), 1);
	EXPECT_EQ(0, tool_figure(r, "", "verify_lost_pages"));
	EXPECT_EQ(0, tool_schema_check(r));
	/* The path the fixture adds really ran: at least one cmpxchg was lost and retried. */
	EXPECT_GE(retries, 1);
	trace_close(&t);
	tool_run_free(r);
	free(r);
}

TEST_HARNESS_MAIN
