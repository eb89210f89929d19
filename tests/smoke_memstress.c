// SPDX-License-Identifier: GPL-2.0
/*
 * memstress on real KVM: 8 vCPUs on this machine's 2 pCPUs, lockstep and
 * nonstop, with page counts checked against the guest's own counters and
 * against the memory the guest wrote.
 */
#include <sched.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "memstress.h"
#include "topology.h"
#include "require.h"

#define NR_VCPUS 8
#define VCPU_BYTES (4ULL << 20)
#define VCPU_PAGES (VCPU_BYTES / 4096)

static struct memstress *create(bool nonstop, uint32_t write_percent, bool random)
{
	struct memstress_params p;

	memstress_params_init(&p);
	p.nr_vcpus = NR_VCPUS;
	p.vcpu_bytes = VCPU_BYTES;
	p.nonstop = nonstop;
	p.write_percent = write_percent;
	p.random_access = random;
	p.watchdog_sec = 60;
	return memstress_create(&p);
}

/* Every page of every vCPU region holds `stamp` at its first word. */
static uint64_t pages_with_stamp(struct memstress *ms, uint64_t stamp)
{
	uint64_t n = 0;

	for (uint64_t off = 0; off < ms->size; off += 4096)
		n += *(uint64_t *)addr_gpa2hva(ms->vm, ms->gpa + off) == stamp;
	return n;
}

TEST(lockstep_exact_counts)
{
	struct memstress *ms;
	uint64_t reads, writes;
	const int iterations = 3;

	REQUIRE_KVM();
	REQUIRE_VCPUS(NR_VCPUS);
	ms = create(false, 100, false);

	memstress_start(ms);
	memstress_wait_iteration(ms);		/* populate pass */
	for (int i = 1; i <= iterations; i++) {
		ASSERT_EQ(i, memstress_next_iteration(ms));
		memstress_wait_iteration(ms);
		/* Lockstep: right now every page holds this iteration's stamp. */
		ASSERT_EQ(NR_VCPUS * VCPU_PAGES, pages_with_stamp(ms, i));
	}
	memstress_totals(ms, &reads, &writes);
	ASSERT_EQ(0, reads);
	ASSERT_EQ((iterations + 1) * NR_VCPUS * VCPU_PAGES, writes);
	for (int v = 0; v < NR_VCPUS; v++) {
		ASSERT_EQ(iterations + 1, ms->stats[v].passes);
		ASSERT_EQ(iterations, ms->stats[v].last_iteration);
		ASSERT_EQ((iterations + 1) * VCPU_PAGES, ms->gargs->vcpu_args[v].touched);
	}
	memstress_destroy(ms);
}

/* Each pass report runs in its vCPU's thread: record where that thread ran. */
static int ran_on[NR_VCPUS];
static void record_cpu(struct memstress *ms, uint32_t vcpu, uint64_t iteration,
		       uint64_t reads, uint64_t writes)
{
	cpu_set_t set;

	/* A pinned thread's affinity is exactly its one CPU. */
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		ran_on[vcpu] = -1;
	else
		ran_on[vcpu] = sched_getcpu();
}

TEST(vcpu_threads_pinned_from_cpu_list)
{
	int nr_cpus = topology_nr_cpus(), cpus[NR_VCPUS];
	struct memstress_params p;
	struct memstress *ms;

	REQUIRE_KVM();
	REQUIRE_VCPUS(NR_VCPUS);

	/* vCPU i on CPU i % nr_cpus, as "-c 0,1,0,1,..." would say. */
	for (int i = 0; i < NR_VCPUS; i++)
		cpus[i] = i % nr_cpus;
	memstress_params_init(&p);
	p.nr_vcpus = NR_VCPUS;
	p.vcpu_bytes = 64 * 4096;
	p.cpus = cpus;
	p.nr_cpus = NR_VCPUS;
	ms = memstress_create(&p);
	ms->on_pass = record_cpu;
	memstress_start(ms);
	memstress_wait_iteration(ms);
	for (int i = 0; i < NR_VCPUS; i++)
		ASSERT_EQ(cpus[i], ran_on[i]);
	memstress_destroy(ms);
}

TEST(lockstep_random_mixed)
{
	struct memstress *ms;
	uint64_t reads, writes;

	REQUIRE_KVM();
	REQUIRE_VCPUS(NR_VCPUS);
	ms = create(false, 30, true);

	memstress_start(ms);
	memstress_wait_iteration(ms);
	memstress_next_iteration(ms);
	memstress_wait_iteration(ms);
	memstress_totals(ms, &reads, &writes);
	/* Two passes of VCPU_PAGES accesses each, split between reads and writes. */
	ASSERT_EQ(2 * NR_VCPUS * VCPU_PAGES, reads + writes);
	ASSERT_GT(reads, 0);
	ASSERT_GT(writes, 0);
	/* 30% writes, with a wide margin: this checks the split, not the RNG. */
	ASSERT_LT(writes, (reads + writes) / 2);
	memstress_destroy(ms);
}

TEST(nonstop_counts_match_guest)
{
	struct memstress *ms;
	uint64_t reads, writes, guest_total = 0, full = 0, partial = 0;

	REQUIRE_KVM();
	REQUIRE_VCPUS(NR_VCPUS);
	ms = create(true, 100, false);

	memstress_start(ms);
	memstress_wait_iteration(ms);
	memstress_next_iteration(ms);		/* from here on vCPUs run free */
	usleep(300 * 1000);
	memstress_stop(ms);

	memstress_totals(ms, &reads, &writes);
	for (int v = 0; v < NR_VCPUS; v++) {
		guest_total += ms->gargs->vcpu_args[v].touched;
		full += ms->stats[v].passes;
		partial += ms->stats[v].partial_passes;
	}
	ASSERT_EQ(0, reads);
	/* What the host summed from SYNCs is what the guest counted itself. */
	ASSERT_EQ(guest_total, writes);
	/* Populate plus at least one free-running pass per vCPU... */
	ASSERT_GE(full, NR_VCPUS);
	/* ...and full passes account for exactly VCPU_PAGES each. */
	ASSERT_GE(writes, full * VCPU_PAGES);
	ASSERT_LT(writes, (full + partial) * VCPU_PAGES + 1);
	TH_LOG("nonstop: %lu full passes, %lu partial, %lu pages written",
	       (unsigned long)full, (unsigned long)partial, (unsigned long)writes);
	memstress_destroy(ms);
}

TEST_HARNESS_MAIN
