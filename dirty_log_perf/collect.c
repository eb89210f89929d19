// SPDX-License-Identifier: GPL-2.0
/*
 * Collecting dirty pages: the memslot bitmap (KVM_GET_DIRTY_LOG, then
 * KVM_CLEAR_DIRTY_LOG in -k chunks) or the per-vCPU dirty ring (harvest,
 * then KVM_RESET_DIRTY_RINGS).  Either way d->bitmaps ends up holding the
 * iteration's dirty pages, one bitmap per test memslot, in KVM's dirty-log
 * pages (d->log_page_size: the host's page size).  Timed regions
 * wrap the ioctls (and, for the ring, the harvest), nothing else.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "account.h"
#include "dirty_log.h"
#include "dlp.h"
#include "report.h"

/* ---- dirty ring ---- */

static void ring_collect_one(uint32_t slot, uint64_t offset, void *arg)
{
	struct dlp *d = arg;
	uint32_t idx = slot - memstress_slot(d->ms, 0);

	/* Address space 0 and one of our slots, inside it: else garbage. */
	if ((slot >> 16) || idx >= d->o.ms.slots || offset >= d->pages_per_slot) {
		d->ring_invalid_entries++;
		return;
	}
	bitmap_set(d->bitmaps[idx], offset);
}

static void ring_harvest_all(struct dlp *d)
{
	for (uint32_t i = 0; i < d->o.ms.nr_vcpus; i++)
		dirty_ring_harvest(&d->rings[i], ring_collect_one, d, &d->ring_counts);
}

/*
 * vCPU thread: a full ring sleeps until the host has harvested and reset,
 * woken by the reset itself (the timeout only notices a stop).
 */
static bool ring_on_exit(struct memstress *ms, struct kvm_vcpu *vcpu)
{
	struct dlp *d = ms->priv;
	struct timespec until;
	uint64_t gen;

	if (vcpu->run->exit_reason != KVM_EXIT_DIRTY_RING_FULL)
		return false;
	__atomic_add_fetch(&d->ring_full_exits, 1, __ATOMIC_RELAXED);
	vcpu->state = VCPU_IN_HOST;
	pthread_mutex_lock(&d->ring_lock);
	gen = d->ring_generation;
	__atomic_add_fetch(&d->ring_full_waiting, 1, __ATOMIC_SEQ_CST);
	while (d->ring_generation == gen && !ms->stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until = ts_add(until, (struct timespec){ .tv_nsec = 10 * 1000 * 1000 });
		pthread_cond_timedwait(&d->ring_reset, &d->ring_lock, &until);
	}
	pthread_mutex_unlock(&d->ring_lock);
	vcpu->state = VCPU_IN_GUEST;
	return true;
}

/* After a reset: the full vCPUs may go on. */
static void ring_release_waiters(struct dlp *d)
{
	pthread_mutex_lock(&d->ring_lock);
	d->ring_full_waiting = 0;
	d->ring_generation++;
	pthread_cond_broadcast(&d->ring_reset);
	pthread_mutex_unlock(&d->ring_lock);
}

/*
 * A vCPU that keeps exiting "ring full" while its ring holds nothing to
 * harvest will never run again: the kernel overflowed the ring (a WARNING in
 * kvm_dirty_ring_push) and entries were lost.  Fail instead of spinning.
 */
#define RING_EMPTY_FULL_ROUNDS 1000

static void ring_harvest_and_reset(struct dlp *d)
{
	uint64_t before = d->ring_counts.harvested;
	struct timespec t0 = ts_now(), t1;

	ring_harvest_all(d);
	t1 = ts_now();
	d->ring_mid_harvest = ts_add(d->ring_mid_harvest, ts_sub(t1, t0));
	if (d->ring_counts.harvested != before)
		d->ring_empty_rounds = 0;
	else if (++d->ring_empty_rounds >= RING_EMPTY_FULL_ROUNDS)
		TEST_FAIL("dirty ring: vCPUs keep exiting KVM_EXIT_DIRTY_RING_FULL but their rings "
			  "hold nothing to harvest (%lu full exits, %lu full-ring walks): the "
			  "kernel overflowed a ring and lost entries; see the WARNING in "
			  "kvm_dirty_ring_push in the kernel log",
			  (unsigned long)d->ring_full_exits,
			  (unsigned long)d->ring_counts.full_walks);
	dirty_ring_reset(d->ms->vm);
	d->ring_mid_reset = ts_add(d->ring_mid_reset, ts_elapsed(t1));
	ring_release_waiters(d);
}

/* Main thread, while lockstep vCPUs run: serve full rings, timed as harvest and reset. */
static void ring_on_wait(struct memstress *ms)
{
	struct dlp *d = ms->priv;

	if (__atomic_load_n(&d->ring_full_waiting, __ATOMIC_SEQ_CST))
		ring_harvest_and_reset(d);
}


/* ---- common ---- */

void collect_setup(struct dlp *d)
{
	uint32_t slots = d->o.ms.slots;

	d->bitmaps = calloc(slots, sizeof(*d->bitmaps));
	TEST_ASSERT(d->bitmaps, "out of memory");
	for (uint32_t i = 0; i < slots; i++)
		d->bitmaps[i] = bitmap_alloc(d->pages_per_slot);

	if (!d->o.ring_entries)
		return;
	d->rings = calloc(d->o.ms.nr_vcpus, sizeof(*d->rings));
	TEST_ASSERT(d->rings, "out of memory");
	pthread_mutex_init(&d->ring_lock, NULL);
	pthread_cond_init(&d->ring_reset, NULL);
	for (uint32_t i = 0; i < d->o.ms.nr_vcpus; i++)
		dirty_ring_map(&d->rings[i], d->ms->vm->vcpus[i], d->o.ring_entries);
	d->ms->on_exit = ring_on_exit;
	d->ms->on_wait = ring_on_wait;
}

void collect_vm_create(struct dlp *d, struct kvm_vm *vm)
{
	if (!d->o.ring_entries)
		return;
	dirty_ring_hook_entries = d->o.ring_entries;
	dirty_ring_vm_create_hook(vm);
	d->o.ring_entries = dirty_ring_hook_entries;
}

struct timespec collect_get(struct dlp *d)
{
	struct timespec start, total = {};

	if (d->o.ring_entries) {
		start = ts_now();
		ring_harvest_all(d);
		total = ts_elapsed(start);
		/*
		 * After the rings, as KVM wants the bitmap beside them (arm64)
		 * collected; not timed: it is a backup that the vCPUs' writes never
		 * reach, and its merge is the suite's own loop.
		 */
		for (uint32_t i = 0; i < d->o.ms.slots; i++)
			d->ring_bitmap_pages += dirty_ring_collect_bitmap(d->ms->vm,
									  memstress_slot(d->ms, i),
									  d->bitmaps[i],
									  d->pages_per_slot);
		return total;
	}
	for (uint32_t i = 0; i < d->o.ms.slots; i++) {
		struct kvm_dirty_log log = { .slot = memstress_slot(d->ms, i),
					     .dirty_bitmap = d->bitmaps[i] };
		/*
		 * Only the ioctl between the clock reads (docs/perf.md): no wrapper,
		 * and the fd loaded before them, so no pointer chase through
		 * structures the vCPU threads just wrote is timed.
		 */
		int fd = d->ms->vm->fd, ret;

		start = ts_now();
		ret = account_ioctl(fd, KVM_GET_DIRTY_LOG, &log);
		total = ts_add(total, ts_elapsed(start));
		TEST_ASSERT(!ret, "KVM_GET_DIRTY_LOG of memslot %u failed: errno %d (%s)",
			    log.slot, errno, strerror(errno));
	}
	return total;
}

/*
 * KVM_CLEAR_DIRTY_LOG of one slot in -k chunks, -l ms apart.  Returns the
 * ioctl time only: without delays the chunk loop is timed as one region
 * (a clock read per chunk would cost more than the loop); with delays each
 * ioctl is timed on its own and the sleeps are left out.
 */
static struct timespec clear_slot(struct dlp *d, uint32_t idx)
{
	uint64_t pages = d->pages_per_slot, chunk = d->o.clear_chunk / d->log_page_size;
	uint32_t slot = memstress_slot(d->ms, idx);
	struct timespec start, total = {}, slept;

	if (!chunk || chunk > pages)
		chunk = pages;
	if (!d->o.clear_delay_ms) {
		start = ts_now();
		for (uint64_t first = 0; first < pages; first += chunk)
			vm_clear_dirty_log(d->ms->vm, slot, d->bitmaps[idx], first,
					   pages - first < chunk ? pages - first : chunk);
		return ts_elapsed(start);
	}
	for (uint64_t first = 0; first < pages; first += chunk) {
		uint64_t n = pages - first < chunk ? pages - first : chunk;

		start = ts_now();
		vm_clear_dirty_log(d->ms->vm, slot, d->bitmaps[idx], first, n);
		total = ts_add(total, ts_elapsed(start));
		if (first + n < pages) {
			slept = ts_now();
			usleep(d->o.clear_delay_ms * 1000);
			d->clear_delays_now = ts_add(d->clear_delays_now, ts_elapsed(slept));
		}
	}
	return total;
}

struct timespec collect_clear(struct dlp *d)
{
	uint64_t before = memstress_touched_live(d->ms);
	struct timespec start, total = {};

	d->clear_delays_now = (struct timespec){};
	if (d->o.ring_entries) {
		start = ts_now();
		dirty_ring_reset(d->ms->vm);
		total = ts_elapsed(start);
		ring_release_waiters(d);
		/* The next iteration collects from empty. */
		for (uint32_t i = 0; i < d->o.ms.slots; i++)
			bitmap_zero(d->bitmaps[i], d->pages_per_slot);
	} else if (d->manual_caps) {
		for (uint32_t i = 0; i < d->o.ms.slots; i++)
			total = ts_add(total, clear_slot(d, i));
	}
	/* Pages the vCPUs touched during the whole clear step, -l delays included. */
	d->touched_during_clear_now = memstress_touched_live(d->ms) - before;
	return total;
}

bool collect_has_clear(const struct dlp *d)
{
	return d->o.ring_entries || d->manual_caps;
}

const char *collect_get_name(const struct dlp *d)
{
	return d->o.ring_entries ? "harvest dirty ring" : "get dirty log";
}

const char *collect_get_total_name(const struct dlp *d)
{
	return d->o.ring_entries ? "Harvest dirty ring" : "Get dirty log";
}

const char *collect_clear_name(const struct dlp *d)
{
	return d->o.ring_entries ? "reset dirty rings" : "clear dirty log";
}

const char *collect_clear_total_name(const struct dlp *d)
{
	return d->o.ring_entries ? "Reset dirty rings" : "Clear dirty log";
}

uint64_t collect_dirty_pages(const struct dlp *d)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < d->o.ms.slots; i++)
		n += bitmap_weight(d->bitmaps[i], d->pages_per_slot);
	return n;
}

void collect_teardown(struct dlp *d)
{
	for (uint32_t i = 0; d->rings && i < d->o.ms.nr_vcpus; i++)
		dirty_ring_unmap(&d->rings[i]);
	free(d->rings);
	for (uint32_t i = 0; i < d->o.ms.slots; i++)
		free(d->bitmaps[i]);
	free(d->bitmaps);
}
