// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: the guest stamps each page it writes with the iteration number.
 * Every page stamped with iteration I must be in iteration I's log; in
 * lockstep with -w 100 and in-order access every page is written, so the log
 * must hold exactly those pages.  In nonstop mode vCPUs keep writing while
 * the log is collected, so the stamps are read *before* collecting: a page
 * already stamped then was written before the collection and must be in it.
 *
 * The guest stamps its 4K pages; the log has a bit per host page
 * (d->log_page_size, 64K on powerpc), so a log page counts as written when
 * any of its guest pages carries the stamp.  In lockstep with 100% writes
 * all of them do, and the log must still hold exactly the written pages.
 */
#include <stdlib.h>

#include "dirty_log.h"
#include "dlp.h"
#include "report.h"

#define VERIFY_MAX_REPORTS 10

/* Whether any guest page of dirty-log page `page` carries this iteration's stamp. */
static bool page_stamped(struct dlp *d, uint32_t slot_idx, uint64_t page, uint64_t iteration)
{
	struct mem_region *r = vm_mem_region(d->ms->vm, memstress_slot(d->ms, slot_idx));
	const char *p = (char *)r->backing.hva + page * d->log_page_size;

	for (uint64_t off = 0; off < d->log_page_size; off += SZ_4K)
		if (*(volatile uint64_t *)(p + off) == iteration)
			return true;
	return false;
}

const char *dlp_log_page_unit(char *buf, size_t len)
{
	char size[32];

	if (dirty_log_page_size() == SZ_4K)
		return "";
	snprintf(buf, len, "%s ", size_format(dirty_log_page_size(), size, sizeof(size)));
	return buf;
}

static void alloc_written(struct dlp *d)
{
	d->written = calloc(d->o.ms.slots, sizeof(*d->written));
	TEST_ASSERT(d->written, "out of memory");
	for (uint32_t i = 0; i < d->o.ms.slots; i++)
		d->written[i] = bitmap_alloc(d->pages_per_slot);
}

void verify_snapshot_written(struct dlp *d, uint64_t iteration)
{
	if (!d->written)
		alloc_written(d);
	for (uint32_t s = 0; s < d->o.ms.slots; s++) {
		bitmap_zero(d->written[s], d->pages_per_slot);
		for (uint64_t p = 0; p < d->pages_per_slot; p++)
			if (page_stamped(d, s, p, iteration))
				bitmap_set(d->written[s], p);
	}
}

static void report(struct dlp *d, const char *what, uint32_t s, uint64_t page, uint64_t iteration)
{
	uint64_t gpa = d->ms->gpa + s * d->ms->slot_size + page * d->log_page_size;
	char unit[32];

	if (++d->verify_failures <= VERIFY_MAX_REPORTS)
		ksft_print_msg("verify: iteration %lu: slot %u %spage %lu (gpa 0x%lx) %s\n",
			       (unsigned long)iteration, memstress_slot(d->ms, s),
			       dlp_log_page_unit(unit, sizeof(unit)), (unsigned long)page,
			       (unsigned long)gpa, what);
}

void verify_iteration(struct dlp *d, uint64_t iteration, bool exact)
{
	const char *log = d->o.ring_entries ? "the dirty ring" : "the dirty bitmap";
	uint64_t failures = d->verify_failures, lost = 0, nr_written = 0;
	char what[96], unit[32];

	snprintf(what, sizeof(what), "was written but is missing from %s", log);
	for (uint32_t s = 0; s < d->o.ms.slots; s++) {
		for (uint64_t p = 0; p < d->pages_per_slot; p++) {
			bool dirty = bitmap_test(d->bitmaps[s], p);
			bool written = d->written ? bitmap_test(d->written[s], p) :
						    page_stamped(d, s, p, iteration);

			nr_written += written;
			if (written && !dirty) {
				lost++;
				report(d, what, s, p, iteration);
			} else if (exact && dirty && !written) {
				report(d, "is in the log but was not written", s, p, iteration);
			}
		}
	}
	d->verify_lost += lost;
	if (d->verify_failures == failures)
		ksft_print_msg("verify: iteration %lu: all %lu %spages written are in %s%s\n",
			       (unsigned long)iteration, (unsigned long)nr_written,
			       dlp_log_page_unit(unit, sizeof(unit)), log,
			       exact ? ", and nothing else" : "");
	else
		ksft_print_msg("verify: iteration %lu: %lu %spage(s) wrong, %lu written page(s) "
			       "missing from %s%s\n", (unsigned long)iteration,
			       (unsigned long)(d->verify_failures - failures),
			       dlp_log_page_unit(unit, sizeof(unit)), (unsigned long)lost,
			       log, d->o.ring_entries && lost ?
			       " (lost dirty-ring entries: see the kernel log for a WARNING "
			       "in kvm_dirty_ring_push)" : "");
}
