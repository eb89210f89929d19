// SPDX-License-Identifier: GPL-2.0
/*
 * One demand-paging run: a VM whose vCPUs each touch their memory once, in
 * order, checking every page's content; guest memory registered with
 * userfaultfd (one uffd per vCPU region, or one for all with -a or -o) and
 * resolved by reader threads, or by the vCPU threads themselves on
 * KVM_EXIT_MEMORY_FAULT (-w).  Timing is upstream's: from releasing the
 * vCPUs until the last one has touched all of its memory.
 */
#include <stdlib.h>

#include "timed.h"
#include "dp.h"
#include "order_stats.h"
#include "report.h"

struct uffd_region *dp_region_of(struct dp_run *run, uint64_t hva)
{
	for (int i = 0; i < run->nr_regions; i++) {
		struct uffd_region *r = &run->regions[i];

		if (hva >= (uint64_t)(uintptr_t)r->hva && hva - (uint64_t)(uintptr_t)r->hva < r->size)
			return &run->regions[i];
	}
	TEST_FAIL("hva 0x%lx is in no userfaultfd region", (unsigned long)hva);
}

static void regions_create(struct dp_run *run, uint64_t per_vcpu)
{
	const struct dp_opts *o = run->o;
	struct memstress *ms = run->ms;
	struct mem_region *slot = vm_mem_region(ms->vm, memstress_slot(ms, 0));
	uint64_t page = slot->backing.page_size;
	bool one = o->one_uffd || o->ms.shared;

	run->nr_regions = one ? 1 : ms->p.nr_vcpus;
	run->regions = calloc(run->nr_regions, sizeof(*run->regions));
	TEST_ASSERT(run->regions, "out of memory");
	for (int i = 0; i < run->nr_regions; i++) {
		uint64_t off = one ? 0 : i * per_vcpu, size = one ? ms->size : per_vcpu;

		uffd_region_init(&run->regions[i], o->mode, (char *)slot->backing.hva + off,
				 slot->backing.alias ? (char *)slot->backing.alias + off : NULL,
				 size, page, (struct page_source *)&o->src, off, o->delay_us);
	}
	for (int i = 0; i < run->nr_regions; i++)
		uffd_region_start(&run->regions[i], dp_readers(o, ms->p.nr_vcpus));
}

/* sum += st; st's latency array is freed. */
static void stats_merge(struct uffd_fault_stats *sum, struct uffd_fault_stats *st)
{
	uffd_stats_add(sum, st);
	uffd_stats_drop_latencies(st);
}

/* The median and 99th percentile of st's latencies (sorted here); 0 when it has none. */
static void percentiles(struct uffd_fault_stats *st, uint64_t *p50, uint64_t *p99)
{
	if (!st->latency_nr)
		return;
	u64_sort(st->latency_ns, st->latency_nr);
	*p50 = u64_percentile(st->latency_ns, st->latency_nr, 50);
	*p99 = u64_percentile(st->latency_ns, st->latency_nr, 99);
}

/*
 * Sum every region's readers and the vCPUs' own resolutions; check counts.
 * The readers' latencies run from reading the message, the vCPUs' (-w) from
 * the exit reaching their thread: their percentiles are kept apart.
 */
static void regions_finish(struct dp_run *run, struct dp_result *res)
{
	struct uffd_fault_stats *sum = &res->faults, exits = {};
	uint64_t unresolved = 0, multiple = 0;

	for (int i = 0; i < run->nr_regions; i++) {
		struct uffd_fault_stats st;
		uint64_t u, m;

		uffd_region_stop(&run->regions[i]);
		uffd_region_stats(&run->regions[i], &st);
		uffd_region_check_counts(&run->regions[i], &u, &m);
		unresolved += u;
		multiple += m;
		stats_merge(sum, &st);
		uffd_region_free(&run->regions[i]);
	}
	for (uint32_t v = 0; v < run->ms->p.nr_vcpus; v++)
		stats_merge(&exits, &run->vcpu_stats[v]);
	res->reader_faults = sum->faults;
	percentiles(sum, &res->p50_ns, &res->p99_ns);
	percentiles(&exits, &res->exit_p50_ns, &res->exit_p99_ns);
	uffd_stats_drop_latencies(&exits);
	uffd_stats_add(sum, &exits);	/* the counts and times, not the latencies */
	free(run->regions);
	TEST_ASSERT(!unresolved && !multiple,
		    "userfaultfd: %lu page(s) never resolved and %lu resolved more than once "
		    "(EEXIST races are counted apart: %lu)", (unsigned long)unresolved,
		    (unsigned long)multiple, (unsigned long)sum->eexist);
	uffd_stats_drop_latencies(sum);
}

/* What KVM mapped the paged-in memory with: uffd resolves 4K pages. */
static void read_mappings(struct kvm_vm *vm, struct stats_mappings *m)
{
	struct kvm_stats st;

	stats_open_vm(&st, vm);
	stats_mappings_read(&st, m, "once paged in");
	stats_close(&st);
}

void dp_run_once(const struct dp_opts *o, uint32_t nr_vcpus, bool mem_fault_exits,
		 struct dp_result *res)
{
	struct memstress_params p = o->ms;
	struct dp_run run = { .o = o, .mem_fault_exits = mem_fault_exits };
	struct memstress_guest_args *ga;
	struct timed t;
	struct timespec total;

	memset(res, 0, sizeof(*res));
	p.nr_vcpus = nr_vcpus;
	if (p.nr_cpus && p.nr_cpus < (int)nr_vcpus)
		p.cpus = NULL, p.nr_cpus = 0;
	run.ms = memstress_create(&p);
	run.ms->priv = &run;
	ga = run.ms->gargs;
	ga->write_percent = 100;
	ga->random_access = 0;
	/* Anonymous first touch is zeroes; uffd pages are what the source supplied. */
	ga->check_content = o->mode == UFFD_MODE_NONE || o->src.kind == PAGE_SRC_ZERO ?
			    MEMSTRESS_CHECK_ZERO : o->src.kind == PAGE_SRC_CONSTANT ?
			    MEMSTRESS_CHECK_CONSTANT : MEMSTRESS_CHECK_PATTERN;

	if (o->mode != UFFD_MODE_NONE)
		regions_create(&run, run.ms->pages_per_vcpu * SZ_4K);
	if (mem_fault_exits) {
		int ret = mem_fault_enable(run.ms);

		/* The probe took the flag on this kernel: a refusal now is a bug. */
		TEST_ASSERT(!ret, "-w: %s failed: %s", mem_fault_mechanism, strerror(-ret));
		run.ms->on_exit = mem_fault_on_exit;
	}

	timed_start(&t, run.ms->vm);
	memstress_start(run.ms);
	memstress_wait_iteration(run.ms);
	/* From the vCPUs' release, as upstream's: memstress_start() stamps it. */
	total = timed_stop_as(&t, "total_guest_execution_time", ts_elapsed(run.ms->start_time));
	memstress_stop(run.ms);
	read_mappings(run.ms->vm, &res->mappings);
	memstress_layout_get(run.ms, &res->layout);

	if (o->mode != UFFD_MODE_NONE)
		regions_finish(&run, res);
	res->vcpus = nr_vcpus;
	res->mem_fault_exits = mem_fault_exits;
	res->total = total;
	res->pages = run.ms->pages_per_vcpu * nr_vcpus;
	/* Upstream's figures: one vCPU's pages over the total time, times vCPUs. */
	res->vcpu_rate = rate_per_sec(run.ms->pages_per_vcpu, total);
	res->overall_rate = res->vcpu_rate * nr_vcpus;
	res->mem_fault_exits_seen = run.mem_fault_exits_seen;
	res->mem_fault_eexist = run.mem_fault_eexist;
	memstress_destroy(run.ms);
}
