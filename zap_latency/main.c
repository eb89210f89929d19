// SPDX-License-Identifier: GPL-2.0
/*
 * zap_latency: how long KVM takes to zap every MMU page while vCPUs keep
 * touching memory, how often it drops mmu_lock doing so, and what the guest
 * sees of it (as Xiao Guangrong's "KVM: MMU: zap pages in batch", 2013,
 * measured it, here for real on any host).
 */
#include <stdlib.h>

#include <string.h>

#include "bench_main.h"
#include "dirty_log.h"
#include "report.h"
#include "zl.h"

#define STAMP_EVERY_PAGES 4
#define STAMP_RING (1ULL << 16)	/* 512 KiB: within VCPU_DATA_SIZE */

static struct zl zl;

static void setup(struct zl *z)
{
	struct memstress *ms;
	char size[32], each[32];

	ms = z->ms = memstress_create(&z->o.ms);
	/* The small slot the triggers delete or move: beyond the test memory. */
	z->extra_slot = memstress_slot(ms, z->o.ms.slots);
	z->extra_gpa = ALIGN_UP(ms->gpa + ms->size, SZ_1G);
	z->extra_moved_gpa = z->extra_gpa + SZ_1G;
	/*
	 * Where only the slot is unmapped (arm64; x86 with --zap-all off), the
	 * guest writes every page of it before each zap, so that the trigger
	 * has mappings to unmap, and KVM's dirty log of the slot counts them.
	 */
	z->slot_only = arch_memslot_change_unmaps_slot_only() || z->o.zap_all == ZAP_ALL_OFF;
	vm_mem_add(ms->vm, SRC_ANONYMOUS, z->extra_gpa, z->extra_slot, ZL_SLOT_BYTES,
		   z->slot_only ? KVM_MEM_LOG_DIRTY_PAGES : 0);
	if (z->slot_only) {
		/* The guest writes it (at gva == gpa); its dirty log says what KVM mapped. */
		virt_map(ms->vm, z->extra_gpa, z->extra_gpa, ZL_SLOT_BYTES, SZ_4K);
		z->slot_log_page = dirty_log_page_size();
		z->slot_bitmap = bitmap_alloc(ZL_SLOT_BYTES / z->slot_log_page);
	}
	zl_apply_zap_all(z);
	memstress_enable_stamps(ms, STAMP_EVERY_PAGES, STAMP_RING);
	z->clock_hz = arch_guest_clock_hz(ms->vm->vcpus[0]);
	stats_open_vm(&z->vm_stats, ms->vm);
	z->mapping_stats = stats_find(&z->vm_stats, "pages_4k") != NULL;
	/* The TDP MMU has no shadow pages: mmu_shadow_zapped never moves there. */
	z->shadow_pages = !z->tdp && stats_find(&z->vm_stats, "mmu_shadow_zapped") != NULL;
	z->shadow_live_known = z->shadow_pages && host_mmu_traits()->shadow_count_live;
	z->zaps = calloc(z->o.zaps + z->o.traced_zaps, sizeof(*z->zaps));
	TEST_ASSERT(z->zaps, "out of memory");

	ksft_print_msg("vCPUs: %u touching %s each (%s in total) at random, backing: %s; %lu zaps "
		       "by %s a %s memslot; slot zap-all quirk: %s\n", z->o.ms.nr_vcpus,
		       size_format(z->o.ms.vcpu_bytes, each, sizeof(each)),
		       size_format(z->o.total_bytes, size, sizeof(size)),
		       backing_src_name(z->o.ms.src), (unsigned long)z->o.zaps,
		       z->o.trigger == TRIGGER_DELETE ? "deleting (and re-adding)" :
		       "moving (and moving back)", "2M",
		       !kvm_check_cap(KVM_CAP_DISABLE_QUIRKS2) ? "none on this host" :
		       z->o.zap_all == ZAP_ALL_OFF ? "disabled" :
		       z->o.zap_all == ZAP_ALL_ON ? "enabled" : "kernel default");
	if (z->slot_only)
		ksft_print_msg("a memslot change unmaps only that slot here: before each zap the "
			       "guest writes the slot's %lu 4K pages, and KVM's dirty log of the slot "
			       "counts the pages it mapped for them\n",
			       (unsigned long)(ZL_SLOT_BYTES / SZ_4K));
	zl_trace_setup(z);
	zl_print_trace_setup(z);
}

static void run(struct zl *z)
{
	struct memstress_guest_args *ga = z->ms->gargs;
	uint64_t before;

	/* Populate in order, then touch at random so many MMU pages stay live. */
	ga->random_access = 0;
	memstress_start(z->ms);
	memstress_wait_iteration(z->ms);
	stats_mappings_read(&z->vm_stats, &z->mappings, "after populate");
	stats_mappings_print(&z->mappings);
	ga->random_access = 1;
	memstress_next_iteration(z->ms);

	/* Untraced zaps first; then, each from the same warm state, the traced ones. */
	for (uint64_t i = 0; i < z->o.zaps + (z->traced ? z->o.traced_zaps : 0); i++) {
		zl_measure_zap(z, &z->zaps[i], zl_zap_is_traced(z, i));
		z->nr_done = i + 1;
		zl_print_zap(z, i, &z->zaps[i]);
	}
	/* The guest kept running after the last zap. */
	before = memstress_touched_live(z->ms);
	usleep(100 * 1000);
	TEST_ASSERT(memstress_touched_live(z->ms) > before,
		    "the vCPUs made no progress in the 100 ms after the last zap");
	memstress_stop(z->ms);
	zl_print_summary(z);
}

static void parse(int argc, char **argv)
{
	zl_parse_options(&zl.o, argc, argv);
}

static void setup_and_run(const struct host_desc *host)
{
	zl.mmu = strdup(host->mmu);
	zl.tdp = host->mmu_kind == HOST_MMU_TDP;
	setup(&zl);
	run(&zl);
	trace_close(&zl.trace);
}

static int write_record(const struct host_desc *host, int argc, char **argv, const char *status,
			const char *reason)
{
	return zl_write_json(&zl, host, argc, argv, status, reason);
}

static void teardown(void)
{
	stats_close(&zl.vm_stats);
	memstress_destroy(zl.ms);
	free(zl.zaps);
	free(zl.slot_bitmap);
}

int main(int argc, char **argv)
{
	static const struct bench b = {
		.name = "zap_latency", .parse = parse, .run = setup_and_run,
		.write_record = write_record, .teardown = teardown,
	};

	bench_main(&b, argc, argv);
}
