// SPDX-License-Identifier: GPL-2.0
/* Guest half of memstress: walk pages, read or write, report each pass. */
#include "memstress.h"
#include "processor.h"
#include "page_source.h"
#include "ucall.h"

struct memstress_guest_args memstress_args;

/* xorshift32: small, fast, and the same sequence for a given seed. */
static uint32_t rand_next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* The page at gva (== gpa) must hold what its source supplied. */
static void check_page(uint64_t gva, uint64_t page_size, uint32_t how)
{
	uint64_t last = gva + page_size - 8;
	uint64_t want_first = how == MEMSTRESS_CHECK_ZERO ? 0 :
			      how == MEMSTRESS_CHECK_CONSTANT ? PAGE_CONSTANT_WORD :
			      page_pattern_word(gva);
	uint64_t want_last = how == MEMSTRESS_CHECK_ZERO ? 0 :
			     how == MEMSTRESS_CHECK_CONSTANT ? PAGE_CONSTANT_WORD :
			     page_pattern_word(last);
	uint64_t first_word = *(volatile uint64_t *)gva, last_word = *(volatile uint64_t *)last;

	if (first_word != want_first)
		GUEST_FAIL("page content: gpa 0x%lx holds 0x%lx, the source supplied 0x%lx",
			   gva, first_word, want_first);
	if (last_word != want_last)
		GUEST_FAIL("page content: gpa 0x%lx holds 0x%lx, the source supplied 0x%lx",
			   last, last_word, want_last);
}

/*
 * Pages per step of an in-order pass: the live count moves and the stop
 * flag is read once per step, not per page.
 */
#define MEMSTRESS_STEP_PAGES 64

/*
 * The common pass (in order, every page written, no progress stamps:
 * populate, dirty_log_perf's default, demand_paging) with as few guest
 * instructions per page as possible.  On a host that emulates the guest
 * (kvm_pvm: about 1 us per instruction) every instruction here is measured
 * as kernel time (docs/perf.md).  Returns the pages touched.
 */
static uint64_t pass_in_order_writes(struct memstress_guest_args *a,
				     struct memstress_vcpu_args *va, uint64_t iteration)
{
	const uint64_t ps = a->page_size, pages = va->pages;
	const uint32_t check = a->check_content;
	char *p = (char *)va->gva;
	uint64_t done = 0;

	while (done < pages && !a->stop) {
		uint64_t n = pages - done < MEMSTRESS_STEP_PAGES ? pages - done : MEMSTRESS_STEP_PAGES;
		char *end = p + n * ps;

		/*
		 * Checked pages: the middle word is written first, so the page
		 * faults in once, for write, as an unchecked pass's page does
		 * (a read first would fault again on the write); the first and
		 * last words, which nobody writes (-o), are checked after.
		 */
		if (!check) {
			for (; p != end; p += ps)
				*(volatile uint64_t *)p = iteration;
		} else if (check == MEMSTRESS_CHECK_ZERO || check == MEMSTRESS_CHECK_CONSTANT) {
			const uint64_t want = check == MEMSTRESS_CHECK_ZERO ? 0 : PAGE_CONSTANT_WORD;

			for (; p != end; p += ps) {
				((volatile uint64_t *)p)[ps / 16] = iteration;
				if ((*(volatile uint64_t *)p ^ want) |
				    (*(volatile uint64_t *)(p + ps - 8) ^ want))
					check_page((uint64_t)p, ps, check);	/* fails, with the values */
			}
		} else {
			for (; p != end; p += ps) {
				((volatile uint64_t *)p)[ps / 16] = iteration;
				if ((*(volatile uint64_t *)p ^ page_pattern_word((uint64_t)p)) |
				    (*(volatile uint64_t *)(p + ps - 8) ^
				     page_pattern_word((uint64_t)p + ps - 8)))
					check_page((uint64_t)p, ps, check);
			}
		}
		done += n;
		va->touched += n;
	}
	return done;
}

/*
 * Any other pass: at random (-a), a write percentage (-w), progress stamps.
 * Returns the pages touched; *reads and *writes count them.
 */
static uint64_t pass_general(struct memstress_guest_args *a, struct memstress_vcpu_args *va,
			     uint64_t iteration, uint32_t *rand, uint64_t *since_stamp,
			     uint64_t *reads, uint64_t *writes)
{
	uint64_t i;

	for (i = 0; i < va->pages && !a->stop; i++) {
		uint64_t page = a->random_access ? rand_next(rand) % va->pages : i;
		volatile uint64_t *addr = (volatile uint64_t *)(va->gva + page * a->page_size);

		if (a->check_content)
			check_page((uint64_t)addr, a->page_size, a->check_content);

		if (a->write_percent == 100 ||
		    (a->write_percent && rand_next(rand) % 100 < a->write_percent)) {
			/*
			 * Checked pages keep their first and last words
			 * for other vCPUs (-o) to check: write the middle.
			 */
			if (a->check_content)
				addr[a->page_size / 16] = iteration;
			else
				*addr = iteration;
			(*writes)++;
		} else {
			(void)*addr;
			(*reads)++;
			va->touched_read++;
		}
		/*
		 * Live counts: the host reads them mid-pass (watchdog, -j),
		 * touched_read first, so that it never exceeds touched.
		 */
		va->touched++;
		if (a->stamp_every && ++*since_stamp >= a->stamp_every) {
			uint64_t idx = va->stamp_idx;

			*since_stamp = 0;
			((volatile uint64_t *)va->stamp_ring)[idx & (a->stamp_len - 1)] =
				guest_clock();
			va->stamp_idx = idx + 1;
		}
	}
	return i;
}

/* memstress_touch_extra()'s request: every page of the extra region, written once. */
static void touch_extra(struct memstress_guest_args *a)
{
	uint64_t req = __atomic_load_n(&a->extra_req, __ATOMIC_ACQUIRE), n;

	for (n = 0; n < a->extra_pages; n++)
		*(volatile uint64_t *)(a->extra_gva + n * a->page_size) = req;
	a->extra_written = n;
	__atomic_store_n(&a->extra_done, req, __ATOMIC_RELEASE);
}

void memstress_guest_code(uint32_t vcpu_idx)
{
	struct memstress_guest_args *a = &memstress_args;
	struct memstress_vcpu_args *va = &a->vcpu_args[vcpu_idx];
	uint32_t rand = a->random_seed * 2654435761u + vcpu_idx + 1;
	uint64_t since_stamp = 0;

	if (!rand)
		rand = 1;
	for (;;) {
		uint64_t iteration = a->iteration, reads = 0, writes = 0, i;

		if (!vcpu_idx && a->extra_req != a->extra_done)
			touch_extra(a);
		if (!a->random_access && a->write_percent == 100 && !a->stamp_every)
			writes = i = pass_in_order_writes(a, va, iteration);
		else
			i = pass_general(a, va, iteration, &rand, &since_stamp, &reads, &writes);
		GUEST_SYNC(MEMSTRESS_SYNC_PASS, iteration, reads, writes, i == va->pages);
	}
}
