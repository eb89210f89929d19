// SPDX-License-Identifier: GPL-2.0
/*
 * zap_latency end to end, at small scale, on real KVM: pages are really
 * zapped (x86: a non-zero stat delta each time; arm64: the trigger slot had
 * pages mapped, by KVM's dirty log of it), the guest keeps running after
 * the zaps, the seed's lines come out, and the private trace instance is
 * gone when the run ends (tracefs unmounted again if the run mounted it).
 */
#include <dirent.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "host_desc.h"
#include "kvm_compat.h"
#include "kvm_util.h"
#include "tool_run.h"

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
 * mapped before zap i: as many as the guest wrote, by KVM's dirty log.
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

#ifdef __x86_64__
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
 * What zap i freed, per MMU.  The vCPUs keep running, so refaults during the
 * ioctl make these bounds (the exact figures, with the vCPUs stopped, are
 * smoke_stats' zap_all_with_vcpus_stopped_drops_every_mapping): mappings
 * dropped are at most those held before; an MMU with shadow pages zaps at
 * least one and at most those live before plus those the vCPUs made during
 * the ioctl (mmu_cache_miss); the TDP MMU has no such stat,
 * and its record and output leave the figure out.
 */
static void check_x86_zap(struct __test_metadata *_metadata, struct tool_run *r, int i)
{
	double dropped = zap_number(r, i, "mappings_dropped");

	ASSERT_EQ(dropped, zap_number(r, i, "mappings_dropped_4k") +
			   zap_number(r, i, "mappings_dropped_2m") +
			   zap_number(r, i, "mappings_dropped_1g"));
	ASSERT_LE(dropped, zap_number(r, i, "mappings_before"));
	if (host_mmu() == HOST_MMU_TDP) {
		ASSERT_GE(dropped, 1) TH_LOG("%s", r->out);
		ASSERT_EQ(JV_MISSING, zap_field_type(r, i, "mmu_shadow_zapped"));
		ASSERT_EQ(JV_MISSING, jv_type(r->doc, "figures/mmu_shadow_zapped"));
		ASSERT_NE(NULL, strstr(r->out, "no KVM stat counts the TDP MMU's page-table pages"));
		return;
	}
	ASSERT_GE(zap_number(r, i, "mmu_shadow_zapped"), 1) TH_LOG("%s", r->out);
	if (host_mmu() == HOST_MMU_PVM) {
		/* kvm_pvm counts no mappings, nor its live shadow pages: the record says none. */
		ASSERT_EQ(0, dropped);
		ASSERT_EQ(JV_MISSING, zap_field_type(r, i, "shadow_pages_live"));
		return;
	}
	ASSERT_LE(zap_number(r, i, "mmu_shadow_zapped"),
		  zap_number(r, i, "shadow_pages_live") + zap_number(r, i, "shadow_pages_made"));
	ASSERT_GE(dropped, 1) TH_LOG("%s", r->out);
}
#endif

TEST(small_run_zaps_pages_and_cleans_up)
{
	const char *args[] = { "-v", "2", "-b", "128M", "-i", "2", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));
	bool mounted_before = tracefs_mounted();
	char path[64];

	ASSERT_EQ(0, count_instances());
	tool_run(r, "zap_latency", args);
	if (r->code)
		TH_LOG("%s", r->out);
	ASSERT_EQ(0, r->code);
	ASSERT_STREQ("pass", jv_string(r->doc, "status"));
	ASSERT_EQ(0, tool_schema_check(r));
	ASSERT_EQ(2, jv_size(r->doc, "zaps"));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "zaps/%d/mmu_shadow_zapped", i);
#ifdef __x86_64__
		check_x86_zap(_metadata, r, i);
#else
		/* No MMU page stats to count them: the figure is left out, not 0. */
		ASSERT_EQ(JV_MISSING, jv_type(r->doc, path));
		ASSERT_NE(NULL, strstr(r->out, "MMU pages zapped: not counted"));
#endif
#ifdef __aarch64__
		/* A memslot change unmaps only that slot. */
		check_slot_mapped(_metadata, r, i);
#endif
		snprintf(path, sizeof(path), "zaps/%d/ioctl_ns", i);
		ASSERT_GT(jv_number(r->doc, path), 0);
		/* The guest kept making progress around the zap: stamps were seen. */
		snprintf(path, sizeof(path), "zaps/%d/stall_during_max_ns", i);
		ASSERT_GT(jv_number(r->doc, path), 0);
	}
	ASSERT_NE(NULL, strstr(r->out, "ok 1 zap_latency"));
	if (jv_type(r->doc, "params/traced") == JV_TRUE && host_mmu() == HOST_MMU_TDP) {
		/* Its zap holds mmu_lock for read: no lock-break line, and the output says why. */
		ASSERT_EQ(NULL, strstr(r->out, "lock-break: "));
		ASSERT_NE(NULL, strstr(r->out, "lock breaks: not counted (the TDP MMU"));
		ASSERT_EQ(JV_MISSING, jv_type(r->doc, "figures/lock_breaks"));
		ASSERT_NE(NULL, strstr(r->out, "kvm_mmu_zap_all_fast: "));
	} else if (jv_type(r->doc, "params/traced") == JV_TRUE) {
		ASSERT_NE(NULL, strstr(r->out, "lock-break: "));
		ASSERT_NE(NULL, strstr(r->out, "kvm_mmu_zap_all_fast: "));
	} else {
		ASSERT_NE(NULL, strstr(r->out, "trace figures unavailable: "));
	}
	/* The instance is gone, and tracefs is mounted only if it was before. */
	ASSERT_EQ(0, count_instances());
	ASSERT_EQ(mounted_before, tracefs_mounted());
	tool_run_free(r);
	free(r);
}

#ifdef __x86_64__
/* --zap-all off: a memslot delete unmaps only the slot, which the guest had mapped. */
TEST(zap_all_off_unmaps_the_populated_slot)
{
	const char *args[] = { "-v", "1", "-b", "16M", "-i", "2", "--zap-all", "off", NULL };
	struct tool_run *r = calloc(1, sizeof(*r));

	tool_run(r, "zap_latency", args);
	if (!(kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2) & KVM_X86_QUIRK_SLOT_ZAP_ALL)) {
		/* Before 6.11 every memslot change zaps everything: a usage error, saying so. */
		ASSERT_EQ(2, r->code) TH_LOG("%s", r->out);
		ASSERT_NE(NULL, strstr(r->out, "cannot disable KVM_X86_QUIRK_SLOT_ZAP_ALL"));
		tool_run_free(r);
		free(r);
		return;
	}
	ASSERT_EQ(0, r->code) TH_LOG("%s", r->out);
	ASSERT_EQ(0, tool_schema_check(r));
	ASSERT_EQ(JV_TRUE, jv_type(r->doc, "params/slot_populated"));
	for (int i = 0; i < 2; i++)
		check_slot_mapped(_metadata, r, i);
	tool_run_free(r);
	free(r);
}
#endif

TEST(bad_input)
{
	static const struct {
		const char *args[6];
		const char *expect;
	} cases[] = {
		{ { "-v", "0" }, "-v '0': must be between 1 and" },
		{ { "-v", "4", "-b", "2M" }, "-b '2M': 4 vCPUs need at least" },
		{ { "--trigger", "reboot" }, "--trigger 'reboot': must be delete or move" },
		{ { "--zap-all", "maybe" }, "--zap-all 'maybe': must be on or off" },
	};

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
