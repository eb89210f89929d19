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
 *
 * In nonstop mode that check is weak: a pass reads the iteration once and
 * the host's loop runs back to back, so few pages carry the stamp of the
 * iteration being collected.  So -j with the bitmap log is also checked as
 * live migration uses the log (verify_copy_*): a copy of each slot, taken
 * while the vCPUs are idle before the loop, gets every page that an
 * iteration's log holds once that iteration's clear is done (its get,
 * without manual protect).  A write to a page after its clear must fault
 * and reach a later log; one before it is in the copy.  Once the vCPUs stop
 * and a last log is copied in, the copy must equal the memory: a page that
 * differs was written without reaching the log (a write-protect lost).
 */
#include <stdlib.h>
#include <string.h>

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

static char *slot_hva(struct dlp *d, uint32_t s)
{
	return vm_mem_region(d->ms->vm, memstress_slot(d->ms, s))->backing.hva;
}

void verify_copy_begin(struct dlp *d)
{
	uint64_t bytes = d->pages_per_slot * d->log_page_size;

	d->copies = calloc(d->o.ms.slots, sizeof(*d->copies));
	TEST_ASSERT(d->copies, "out of memory");
	for (uint32_t s = 0; s < d->o.ms.slots; s++) {
		d->copies[s] = malloc(bytes);
		TEST_ASSERT(d->copies[s], "--verify -j: no memory for a %lu-byte copy of memslot %u",
			    (unsigned long)bytes, memstress_slot(d->ms, s));
		memcpy(d->copies[s], slot_hva(d, s), bytes);
	}
}

/* After the iteration's clear: the pages its log holds, as they are now. */
void verify_copy_logged(struct dlp *d)
{
	for (uint32_t s = 0; s < d->o.ms.slots; s++) {
		const char *hva = slot_hva(d, s);

		for (uint64_t p = 0; p < d->pages_per_slot; p++)
			if (bitmap_test(d->bitmaps[s], p))
				memcpy(d->copies[s] + p * d->log_page_size,
				       hva + p * d->log_page_size, d->log_page_size);
	}
}

/* With the vCPUs stopped: a last log copied in, then the copy against the memory. */
void verify_copy_end(struct dlp *d)
{
	uint64_t failures = d->verify_failures, differ = 0;
	char what[96], unit[32];

	collect_get(d);
	verify_copy_logged(d);
	snprintf(what, sizeof(what), "differs from the copy kept from the logs (a write "
		 "never logged)");
	for (uint32_t s = 0; s < d->o.ms.slots; s++) {
		const char *hva = slot_hva(d, s);

		for (uint64_t p = 0; p < d->pages_per_slot; p++) {
			if (!memcmp(d->copies[s] + p * d->log_page_size,
				    hva + p * d->log_page_size, d->log_page_size))
				continue;
			differ++;
			report(d, what, s, p, d->iterations_done + 1);
		}
		free(d->copies[s]);
	}
	free(d->copies);
	d->copies = NULL;
	d->verify_lost += differ;
	if (d->verify_failures == failures)
		ksft_print_msg("verify: -j: the copy kept from the logs equals the memory, all %lu "
			       "%spages, after a last log with the vCPUs stopped\n",
			       (unsigned long)(d->o.ms.slots * d->pages_per_slot),
			       dlp_log_page_unit(unit, sizeof(unit)));
	else
		ksft_print_msg("verify: -j: %lu %spage(s) differ from the copy kept from the logs: "
			       "written without reaching the log\n", (unsigned long)differ,
			       dlp_log_page_unit(unit, sizeof(unit)));
}
