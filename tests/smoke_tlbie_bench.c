// SPDX-License-Identifier: GPL-2.0
/*
 * tlbie_bench end to end on real KVM: 2 vCPUs for 2 s with per-page and
 * full flushes, and in one shared address space.  Every remap is checked in
 * the guest (a stale translation fails the run); here the counts must be
 * positive and every fork's remaps verified.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "host_desc.h"
#include "host_state.h"
#include "kvm_util.h"
#include "tool_run.h"
#include "require.h"

/*
 * This arch's counts (tests/<arch>/smoke_tlbie_bench.inc): what the host
 * counts of the guest's flushes, and what the output says of them.
 */
#include "smoke_tlbie_bench.inc"

static void run_and_check(struct __test_metadata *_metadata, const char *const *args)
{
	struct tool_run *r = calloc(1, sizeof(*r));
	char path[64];

	tool_run(r, "tlbie_bench", args);
	tool_assert_pass(_metadata, r);
	ASSERT_NE(NULL, strstr(r->out, "total throughput: "));
	ASSERT_GT(tool_figure(r, "", "throughput"), 0);
	for (int v = 0; v < 2; v++) {
		double rate, remaps, forks;

		snprintf(path, sizeof(path), "figures/throughput/values/%d", v);
		rate = jv_number(r->doc, path);
		snprintf(path, sizeof(path), "figures/verified_remaps/values/%d", v);
		remaps = jv_number(r->doc, path);
		snprintf(path, sizeof(path), "figures/forks/values/%d", v);
		forks = jv_number(r->doc, path);
		ASSERT_GT(rate, 0);
		ASSERT_GT(forks, 0);
		/* A fork runs to its end once begun: 16 pages each, every remap verified. */
		ASSERT_EQ(16 * forks, remaps);
	}
	/* The headlines are the sums, not placeholders. */
	ASSERT_EQ(jv_number(r->doc, "figures/forks/values/0") +
		  jv_number(r->doc, "figures/forks/values/1"), tool_figure(r, "", "forks"));
	ASSERT_EQ(jv_number(r->doc, "figures/verified_remaps/values/0") +
		  jv_number(r->doc, "figures/verified_remaps/values/1"),
		  tool_figure(r, "", "verified_remaps"));
	check_arch_counts(_metadata, r, args);
	tool_run_free(r);
	free(r);
}

TEST(flush_page)
{
	const char *args[] = { "-v", "2", "-t", "2", "--flush", "page", NULL };

	REQUIRE_KVM();

	run_and_check(_metadata, args);
}

TEST(flush_full)
{
	const char *args[] = { "-v", "2", "-t", "2", "--flush", "full", NULL };

	REQUIRE_KVM();

	run_and_check(_metadata, args);
}

TEST(shared_address_space)
{
	const char *args[] = { "-v", "2", "-t", "2", "--shared", NULL };

	REQUIRE_KVM();

	run_and_check(_metadata, args);
}

/* --profile: the host's top symbols in the record, or why there are none. */
TEST(profile_is_recorded)
{
	const char *args[] = { "-v", "1", "-t", "1", "--profile", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	int n;

	REQUIRE_KVM();

	tool_run(r, "tlbie_bench", args);
	ASSERT_EQ(0, r->code) TH_LOG("%s", r->out);
	ASSERT_EQ(JV_OBJECT, jv_type(r->doc, "profile"));
	n = jv_size(r->doc, "profile/top");
	if (n > 0) {
		ASSERT_EQ(JV_NULL, jv_type(r->doc, "profile/unavailable"));
		ASSERT_NE(NULL, strstr(r->out, "# host profile (perf, all CPUs, during the run):"));
		for (int i = 0; i < n; i++) {
			char path[64];

			snprintf(path, sizeof(path), "profile/top/%d/share_pct", i);
			ASSERT_GT(jv_number(r->doc, path), 0);
			ASSERT_LE(jv_number(r->doc, path), 100);
		}
	} else {
		ASSERT_NE(NULL, jv_string(r->doc, "profile/unavailable"));
		ASSERT_NE(NULL, strstr(r->out, "# profile unavailable: "));
	}
	tool_run_free(r);
	free(r);
}

/* printk.time's text: "Y" or "N". */
static char printk_time(void)
{
	FILE *f = fopen("/sys/module/printk/parameters/time", "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == EOF ? 0 : (char)c;
}

/*
 * --alternate: 4 s are 2 pairs of phases, each setting measured in each
 * pair, each pair's ratio recorded, and the parameter left as it was.
 * printk.time is a boolean parameter every kernel has and no run minds.
 */
TEST(alternate_flips_and_restores)
{
	const char *args[] = { "-v", "2", "-t", "4", "--alternate", "printk.time", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	char before, path[64];

	REQUIRE_KVM();
	if (geteuid())
		SKIP(return, "needs root: it writes /sys/module/printk/parameters/time");
	before = printk_time();
	ASSERT_NE(0, before);

	tool_run(r, "tlbie_bench", args);
	tool_assert_pass(_metadata, r);
	ASSERT_EQ(before, printk_time());
	ASSERT_STREQ("printk.time", jv_string(r->doc, "alternate/param"));
	ASSERT_EQ(2, jv_number(r->doc, "alternate/pairs"));
	ASSERT_EQ(2, jv_size(r->doc, "figures/alternate_ratio/values"));
	for (int p = 0; p < 2; p++) {
		double rate[2];

		for (int v = 0; v < 2; v++) {
			snprintf(path, sizeof(path), "figures/throughput_alternate_%d/values/%d", v, p);
			rate[v] = jv_number(r->doc, path);
			ASSERT_GT(rate[v], 0);
		}
		snprintf(path, sizeof(path), "figures/alternate_ratio/values/%d", p);
		ASSERT_LT(fabs(rate[1] / rate[0] - jv_number(r->doc, path)), 1e-9);
	}
	ASSERT_LE(jv_number(r->doc, "alternate/lower_with_1") +
		  jv_number(r->doc, "alternate/higher_with_1"), 2);
	ASSERT_NE(NULL, strstr(r->out, "printk.time 1/0 throughput: x"));
	ASSERT_NE(NULL, strstr(r->out, "the total throughput mixes both settings"));
	tool_run_free(r);
	free(r);
}

TEST(bad_input)
{
	static const struct {
		const char *args[6];
		int code;
		const char *expect;
	} cases[] = {
		{ { "--pages", "0" }, 2, "--pages '0': must be between 1 and 512" },
		{ { "--pages", "513" }, 2, "--pages '513': must be between 1 and 512" },
		{ { "-v", "2", "--pages", "300", "--shared" }, 2, "with --shared, 2 vCPUs x 300" },
		{ { "-t", "0" }, 2, "-t '0': must be between 1 and" },
		{ { "--flush", "some" }, 2, "--flush 'some': must be page, full or hv" },
		{ { "--flush", "hv" }, 4, "--flush hv: " },
		{ { "--alternate", "kvm" }, 2, "--alternate 'kvm': must be MODULE.PARAMETER" },
		{ { "--alternate", "kvm.a.b" }, 2, "--alternate 'kvm.a.b': must be MODULE.PARAMETER" },
		{ { "-t", "3", "--alternate", "printk.time" }, 2,
		  "-t '3': with --alternate, an even number of seconds from 4" },
		{ { "-t", "4", "--alternate", "kernel.panic" }, 2,
		  "--alternate kernel.panic: not a boolean parameter" },
		{ { "-t", "4", "--alternate", "kvm.no_such_parameter" }, 4,
		  "--alternate kvm.no_such_parameter: this kernel has no such module parameter" },
	};
	const char *hv_why;

	REQUIRE_KVM();
	/* --flush hv skips, naming what is missing: the host's cap, or the guest's side. */
	hv_why = kvm_check_cap(KVM_CAP_HYPERV_TLBFLUSH) ?
		 "guest has no Hyper-V side yet" : "does not offer KVM_CAP_HYPERV_TLBFLUSH";

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tool_run *r = calloc(1, sizeof(*r));

		tool_run(r, "tlbie_bench", cases[i].args);
		/* Not logged unless wrong: a skip's KTAP line would read as a skipped test. */
		if (r->code != cases[i].code || !strstr(r->out, cases[i].expect))
			TH_LOG("%s", r->out);
		ASSERT_EQ(cases[i].code, r->code);
		ASSERT_NE(NULL, strstr(r->out, cases[i].expect));
		if (cases[i].code == 4 && !strcmp(cases[i].args[0], "--flush"))
			ASSERT_NE(NULL, strstr(r->out, hv_why)) TH_LOG("%s", r->out);
		tool_run_free(r);
		free(r);
	}
}

TEST_HARNESS_MAIN
