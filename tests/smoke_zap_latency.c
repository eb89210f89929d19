// SPDX-License-Identifier: GPL-2.0
/*
 * zap_latency end to end, at small scale, on real KVM: pages are really
 * zapped (x86: a non-zero stat delta each time; arm64: the trigger slot had
 * pages mapped, by KVM's dirty log of it), the guest keeps running after
 * the zaps, the traced zaps come after the untraced ones and print the
 * seed's lines from exact figures (or say why they cannot), and the private
 * trace instance is gone when the run ends (tracefs unmounted again if the
 * run mounted it).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_compat.h"
#include "kvm_util.h"
#include "tool_run.h"
#include "require.h"

/*
 * Our tracefs instances (kmp-*) under the usual mounts, plus private tracefs
 * mount points (/tmp/kmp-tracefs-*) that runs make when none is mounted.
 */
static int count_instances(void)
{
	const char *roots[] = { "/sys/kernel/tracing/instances",
				"/sys/kernel/debug/tracing/instances" };
	int n = 0;

	DIR *tmp = opendir("/tmp");
	struct dirent *t;

	while (tmp && (t = readdir(tmp)))
		n += !strncmp(t->d_name, "kmp-tracefs-", 12);
	if (tmp)
		closedir(tmp);
	for (size_t r = 0; r < ARRAY_SIZE(roots); r++) {
		DIR *d = opendir(roots[r]);
		struct dirent *e;

		while (d && (e = readdir(d)))
			n += !strncmp(e->d_name, "kmp-", 4);
		if (d)
			closedir(d);
	}
	return n;
}

/* Whether pid's instance (kmp-<pid>-*) exists under any tracefs root a run uses. */
static bool has_instance_of(pid_t pid)
{
	char prefix[32], roots[4][300] = { "/sys/kernel/tracing/instances",
					   "/sys/kernel/debug/tracing/instances" };
	int nr_roots = 2;
	DIR *tmp = opendir("/tmp");
	struct dirent *t;
	bool found = false;

	/* Private mounts, made when none is mounted. */
	while (tmp && (t = readdir(tmp)) && nr_roots < 4)
		if (!strncmp(t->d_name, "kmp-tracefs-", 12))
			snprintf(roots[nr_roots++], sizeof(roots[0]), "/tmp/%s/instances", t->d_name);
	if (tmp)
		closedir(tmp);
	snprintf(prefix, sizeof(prefix), "kmp-%d-", (int)pid);
	for (int r = 0; r < nr_roots && !found; r++) {
		DIR *d = opendir(roots[r]);
		struct dirent *e;

		while (d && (e = readdir(d)))
			found |= !strncmp(e->d_name, prefix, strlen(prefix));
		if (d)
			closedir(d);
	}
	return found;
}

static bool tracefs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, " tracefs ") != NULL;
	if (f)
		fclose(f);
	return found;
}

/*
 * Where a memslot change unmaps only that slot, the trigger slot had pages
 * mapped before zap i: as many as the guest wrote, by KVM's dirty log.  For
 * the arch parts where that holds (arm64, x86's --zap-all off).
 */
static void __attribute__((unused))
check_slot_mapped(struct __test_metadata *_metadata, struct tool_run *r, int i)
{
	char path[64];
	double mapped;

	snprintf(path, sizeof(path), "zaps/%d/slot_pages_mapped", i);
	ASSERT_GT(jv_number(r->doc, path), 0) TH_LOG("%s", r->out);
	mapped = jv_number(r->doc, path);
	/* Every page the guest wrote (4K), in the dirty log's unit (the host's page). */
	snprintf(path, sizeof(path), "zaps/%d/slot_page_bytes", i);
	mapped *= jv_number(r->doc, path);
	snprintf(path, sizeof(path), "zaps/%d/slot_pages_written", i);
	ASSERT_EQ(jv_number(r->doc, path) * 4096, mapped) TH_LOG("%s", r->out);
}

static double zap_number(struct tool_run *r, int i, const char *field)
{
	char path[96];

	snprintf(path, sizeof(path), "zaps/%d/%s", i, field);
	return jv_number(r->doc, path);
}

static enum jv_type zap_field_type(struct tool_run *r, int i, const char *field)
{
	char path[96];

	snprintf(path, sizeof(path), "zaps/%d/%s", i, field);
	return jv_type(r->doc, path);
}


/*
 * Each test runs zap_latency, with warm-ups and refaults: a minute or more
 * on an emulated host, not the harness's default 30 s.
 */
FIXTURE(zl) {};
FIXTURE_SETUP(zl) {}
FIXTURE_TEARDOWN(zl) {}

/*
 * This arch's part (tests/<arch>/smoke_zap_latency.inc): check_arch_zap(),
 * what untraced zap i must show of the MMU it zapped, and tests of its own.
 */
#include "smoke_zap_latency.inc"

/* Whether a line of the output starts with prefix. */
static bool has_line(const char *out, const char *prefix)
{
	for (const char *p = out; (p = strstr(p, prefix)); p++)
		if (p == out || p[-1] == '\n')
			return true;
	return false;
}

/*
 * The kernel's zap batch: BATCH_ZAP_PAGES, 10 since 2013, or KMP_ZAP_BATCH
 * for a kernel built with another (seed 004's pair: 0 and 10).  Setting it
 * says the count is the point of the run (make check-seed-004 sets it on
 * both sides): then a run that could not make the count fails instead of
 * passing without it.
 */
static int zap_batch(struct __test_metadata *_metadata, bool *required)
{
	const char *env = getenv("KMP_ZAP_BATCH");
	char *end;
	long batch;

	*required = env != NULL;
	if (!env)
		return 10;
	batch = strtol(env, &end, 10);
	ASSERT_TRUE(*env && !*end && batch >= 0 && batch <= 1000)
		TH_LOG("KMP_ZAP_BATCH=%s: want a whole number from 0 to 1000", env);
	return batch;
}

/*
 * The pages the ioctl task zapped before its first lock-break offer (roots
 * still in use left out, as the kernel's count does), on an MMU with
 * shadow pages: none with a batch of 0, as the offer comes before each
 * page; else exactly the batch with direct pages (each zap call zaps one
 * page), and at least it with shadow paging (a page's unsync children are
 * zapped with it).  kvm_zap_obsolete_pages() offers whenever the batch is
 * reached, and this run's zaps have tens of pages, so there the task
 * offered at least once, and the figure is recorded wherever no trace
 * event was lost; never on the TDP MMU, which has no batch.  With
 * KMP_ZAP_BATCH set, a TDP MMU or a lost event fails.
 */
static void check_first_batch(struct __test_metadata *_metadata, struct tool_run *r, int i)
{
	enum host_mmu mmu = host_mmu();
	bool shadow = mmu == HOST_MMU_LEGACY_TDP || mmu == HOST_MMU_SHADOW;
	bool required;
	int batch = zap_batch(_metadata, &required);
	double first;

	if (required) {
		ASSERT_TRUE(shadow) TH_LOG("KMP_ZAP_BATCH is set, but this host's MMU has no "
					   "shadow pages, so no batch to count");
		ASSERT_EQ(0, zap_number(r, i, "trace_events_lost"))
			TH_LOG("KMP_ZAP_BATCH is set, but trace events were lost: %s", r->out);
	}
	if (!shadow || zap_number(r, i, "trace_events_lost") > 0) {
		ASSERT_EQ(JV_MISSING, zap_field_type(r, i, "pages_before_first_offer"))
			TH_LOG("%s", r->out);
		return;
	}
	ASSERT_GE(zap_number(r, i, "lock_break_offers"), 1) TH_LOG("%s", r->out);
	ASSERT_NE(JV_MISSING, zap_field_type(r, i, "pages_before_first_offer"))
		TH_LOG("%s", r->out);
	first = zap_number(r, i, "pages_before_first_offer");
	if (batch == 0 || mmu == HOST_MMU_LEGACY_TDP) {
		ASSERT_EQ(batch, first) TH_LOG("the ioctl task zapped %.0f page(s) before its first "
					       "lock-break offer; the kernel's batch is %d: %s",
					       first, batch, r->out);
	} else {
		ASSERT_GE(first, batch) TH_LOG("%s", r->out);
	}
}

/*
 * With KMP_ZAP_BATCH set, the count must be made: zaps traced and lock
 * breaks observable (kprobes), else the run proves nothing about the batch.
 */
static void require_batch_count(struct __test_metadata *_metadata, struct tool_run *r)
{
	bool required;

	zap_batch(_metadata, &required);
	if (!required)
		return;
	ASSERT_EQ(JV_TRUE, jv_type(r->doc, "params/traced"))
		TH_LOG("KMP_ZAP_BATCH is set, but no zap was traced: %s", r->out);
	ASSERT_EQ(JV_TRUE, jv_type(r->doc, "trace/lock_breaks_observable"))
		TH_LOG("KMP_ZAP_BATCH is set, but lock breaks are not observable here: %s",
		       r->out);
}

/*
 * Traced zap i: the kernel span lies inside the ioctl that ran it (both on
 * CLOCK_MONOTONIC), the post's lines carry the record's exact figures, and
 * lock breaks are counted only where kretprobes see them (here none is
 * printed at all).
 */
static void check_traced_zap(struct __test_metadata *_metadata, struct tool_run *r, int i,
			     int k)
{
	const char *func = jv_string(r->doc, "trace/span_function");
	char prefix[96], twin[160];
	double span = zap_number(r, i, "kernel_zap_span_ns");

	ASSERT_EQ(JV_TRUE, zap_field_type(r, i, "traced"));
	ASSERT_EQ(JV_TRUE, zap_field_type(r, i, "span_seen")) TH_LOG("%s", r->out);
	ASSERT_GT(span, 0);
	ASSERT_LE(span, zap_number(r, i, "ioctl_ns"));
	snprintf(twin, sizeof(twin), "# traced zap %d/2: %s: %.0f ns (", k, func, span);
	ASSERT_NE(NULL, strstr(r->out, twin)) TH_LOG("no \"%s\" in %s", twin, r->out);
	if (jv_type(r->doc, "trace/lock_breaks_observable") == JV_TRUE) {
		double breaks = zap_number(r, i, "lock_breaks");

		ASSERT_GE(zap_number(r, i, "zap_tasks"), 1);
		snprintf(twin, sizeof(twin), "; %.0f lock break(s) of %.0f offer(s) in", breaks,
			 zap_number(r, i, "lock_break_offers"));
		ASSERT_NE(NULL, strstr(r->out, twin)) TH_LOG("%s", r->out);
		snprintf(twin, sizeof(twin), "\nlock-break: %.0f.\n", breaks);
		ASSERT_NE(NULL, strstr(r->out, twin)) TH_LOG("%s", r->out);
		/*
		 * The longest stretch without a break is a part of the span, and
		 * the whole span when nothing broke it (same ends, same rounding).
		 */
		if (zap_field_type(r, i, "longest_stretch_ns") != JV_MISSING) {
			double stretch = zap_number(r, i, "longest_stretch_ns");

			ASSERT_GT(stretch, 0);
			if (breaks == 0) {
				ASSERT_EQ(span, stretch) TH_LOG("%s", r->out);
			} else {
				ASSERT_LT(stretch, span) TH_LOG("%s", r->out);
			}
			snprintf(twin, sizeof(twin), ", the longest stretch without one %.0f ns",
				 stretch);
			ASSERT_NE(NULL, strstr(r->out, twin)) TH_LOG("%s", r->out);
		} else {
			/* Only a lost event leaves it out. */
			ASSERT_GT(zap_number(r, i, "trace_events_lost"), 0) TH_LOG("%s", r->out);
		}
		ASSERT_GE(zap_number(r, i, "lock_break_offers"), breaks);
		check_first_batch(_metadata, r, i);
	} else {
		ASSERT_EQ(JV_MISSING, zap_field_type(r, i, "lock_breaks"));
	}
	/* The post's line: the same span, in hex, without 0x. */
	snprintf(prefix, sizeof(prefix), "\n%s: %llx.\n", func, (unsigned long long)span);
	ASSERT_NE(NULL, strstr(r->out, prefix)) TH_LOG("no \"%s\" in %s", prefix + 1, r->out);
}

TEST_F_TIMEOUT(zl, small_run_zaps_pages_and_cleans_up, 300)
{
	const char *args[] = { "-v", "2", "-b", "64M", "-i", "2", "--traced", "2", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	bool mounted_before = tracefs_mounted();
	bool traced;
	char path[64];

	REQUIRE_KVM();

	ASSERT_EQ(0, count_instances());
	tool_run(r, "zap_latency", args);
	tool_assert_pass(_metadata, r);
	require_batch_count(_metadata, r);
	traced = jv_type(r->doc, "params/traced") == JV_TRUE;
	ASSERT_EQ(traced ? 4 : 2, jv_size(r->doc, "zaps"));
	/* Latency, pages and stall come from the two untraced zaps only. */
	ASSERT_EQ(2, jv_size(r->doc, "figures/ioctl_latency/values"));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(JV_FALSE, zap_field_type(r, i, "traced"));
		ASSERT_EQ(JV_MISSING, zap_field_type(r, i, "kernel_zap_span_ns"));
		check_arch_zap(_metadata, r, i);
		snprintf(path, sizeof(path), "zaps/%d/ioctl_ns", i);
		ASSERT_GT(jv_number(r->doc, path), 0);
		/* The guest kept making progress around the zap: stamps were seen. */
		snprintf(path, sizeof(path), "zaps/%d/stall_during_max_ns", i);
		ASSERT_GT(jv_number(r->doc, path), 0);
	}
	ASSERT_NE(NULL, strstr(r->out, "ok 1 zap_latency"));
	if (traced) {
		ASSERT_NE(NULL, strstr(r->out, "# traced zaps: 2, after the 2 untraced ones"));
		for (int i = 2; i < 4; i++)
			check_traced_zap(_metadata, r, i, i - 1);
		ASSERT_EQ(2, jv_size(r->doc, "figures/kernel_zap_span/values"));
		ASSERT_EQ(2, jv_size(r->doc, "figures/ioctl_latency_traced/values"));
		if (jv_type(r->doc, "trace/lock_breaks_observable") == JV_TRUE) {
			/*
			 * Whether an offer drops the lock follows the scheduler and
			 * contention (two zaps of a 6.12 shadow host broke it 0
			 * times), so no break count is asserted; that the zap
			 * offered, in batches, is (check_first_batch()).
			 */
			ASSERT_TRUE(has_line(r->out, "lock-break: "));
			ASSERT_NE(NULL, strstr(r->out, "# lock breaks: returns of "
					       "__cond_resched_rwlock_write/_read"));
			ASSERT_EQ(2, jv_size(r->doc, "figures/lock_breaks/values"));
		} else {
			/* Never an inferred number under the post's name. */
			ASSERT_FALSE(has_line(r->out, "lock-break: "));
			ASSERT_NE(NULL, strstr(r->out, "# lock breaks: not observable here: "));
			ASSERT_EQ(JV_NULL, jv_type(r->doc, "figures/lock_breaks/value"));
		}
		if (!strcmp(jv_string(r->doc, "trace/mechanism"), "kprobe"))
			ASSERT_EQ(JV_TRUE, jv_type(r->doc, "trace/lock_breaks_observable"));
		ASSERT_NE(NULL, jv_string(r->doc, "trace/preempt_model"));
		ASSERT_STREQ("mono", jv_string(r->doc, "trace/clock"));
	} else {
		ASSERT_NE(NULL, strstr(r->out, "# traced zaps: none, so no kernel span or lock "
				       "breaks: "));
	}
	/* The instance is gone, and tracefs is mounted only if it was before. */
	ASSERT_EQ(0, count_instances());
	ASSERT_EQ(mounted_before, tracefs_mounted());
	tool_run_free(r);
	free(r);
}

/* --traced 0: every zap untraced, and no instance is ever made. */
TEST_F_TIMEOUT(zl, untraced_only_makes_no_instance, 180)
{
	const char *args[] = { "-v", "1", "-b", "16M", "-i", "2", "--traced", "0", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));

	REQUIRE_KVM();

	tool_run(r, "zap_latency", args);
	ASSERT_EQ(0, r->code) TH_LOG("%s", r->out);
	ASSERT_EQ(JV_FALSE, jv_type(r->doc, "params/traced"));
	ASSERT_EQ(2, jv_size(r->doc, "zaps"));
	ASSERT_NE(NULL, strstr(r->out, "no traced zaps asked for (--traced 0)"));
	ASSERT_EQ(NULL, strstr(r->out, "instance "));
	ASSERT_EQ(JV_NULL, jv_type(r->doc, "figures/kernel_zap_span/value"));
	tool_run_free(r);
	free(r);
}


/*
 * A SIGKILL runs no clean-up: the instance (with its probes and mount) stays
 * until the next run, which undoes it from the crash journal and says so.
 */
TEST_F_TIMEOUT(zl, sigkilled_run_is_cleaned_up_by_the_next, 180)
{
	const char *const killed[] = { "zap_latency", "-v", "1", "-b", "16M", "-i", "100000", NULL };
	const char *args[] = { "-v", "1", "-b", "16M", "-i", "1", "--traced", "0", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	bool mounted_before = tracefs_mounted();
	char undid[64];
	int status, i;
	pid_t pid;

	REQUIRE_KVM();

	ASSERT_EQ(0, count_instances());
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		tool_exec(killed);
	}
	/* The instance is made before the first zap (a private mount, if any, before it). */
	for (i = 0; i < 1200 && !has_instance_of(pid); i++)
		usleep(50 * 1000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_GT(count_instances(), 0) TH_LOG("no instance appeared in %d ms", i * 50);

	tool_run(r, "zap_latency", args);
	ASSERT_EQ(0, r->code) TH_LOG("%s", r->out);
	snprintf(undid, sizeof(undid), "instances/kmp-%d-", (int)pid);
	ASSERT_NE(NULL, strstr(r->out, "# host_state: undid mkdir ")) TH_LOG("%s", r->out);
	ASSERT_NE(NULL, strstr(r->out, undid)) TH_LOG("%s", r->out);
	ASSERT_EQ(0, count_instances());
	ASSERT_EQ(mounted_before, tracefs_mounted());
	tool_run_free(r);
	free(r);
}

TEST(bad_input)
{
	static const struct {
		const char *args[6];
		const char *expect;
	} cases[] = {
		{ { "-v", "0" }, "-v '0': must be between 1 and" },
		{ { "-v", "4", "-b", "512K" }, "-b '512K': must be at least 1M per vCPU" },
		{ { "--trigger", "reboot" }, "--trigger 'reboot': must be delete or move" },
		{ { "--zap-all", "maybe" }, "--zap-all 'maybe': must be on or off" },
		{ { "--traced", "1001" }, "--traced '1001': must be between 0 and 1000" },
	};

	REQUIRE_KVM();

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tool_run *r = calloc(1, sizeof(*r));

		tool_run(r, "zap_latency", cases[i].args);
		TH_LOG("%s", r->out);
		ASSERT_EQ(2, r->code);
		ASSERT_NE(NULL, strstr(r->out, cases[i].expect));
		ASSERT_EQ(strlen(r->out) - 1, strcspn(r->out, "\n"));
		tool_run_free(r);
		free(r);
	}
}

TEST_HARNESS_MAIN
