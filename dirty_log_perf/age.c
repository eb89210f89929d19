// SPDX-License-Identifier: GPL-2.0
/*
 * --age: while the nonstop vCPUs (-j) run, a host thread marks the guest
 * memory's pages idle through page_idle, pass after pass.  The kernel then
 * clears the accessed bit of every mapping of those pages, KVM's stage 2
 * or EPT/NPT among them (the MMU notifier's clear_young), so the vCPUs'
 * next accesses set it again: in hardware (arm64's FEAT_HAFDBS, x86's A/D
 * bits) or by an access fault.  Either changes a PTE that a clear may be
 * write-protecting at that moment, which is the race a write-protect under
 * the MMU read lock must survive (seed 000).
 *
 * page_idle takes PFNs: they come from /proc/self/pagemap, which gives
 * them to CAP_SYS_ADMIN only.  It ages pages on the LRU lists, so not
 * hugetlb's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "dlp.h"
#include "kvm_util.h"
#include "report.h"

#define PAGE_IDLE_BITMAP "/sys/kernel/mm/page_idle/bitmap"
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_PFN_MASK ((1ULL << 55) - 1)
#define PAGEMAP_BATCH 512		/* entries read at once */

struct dlp_age {
	int pagemap_fd, bitmap_fd;
	pthread_t thread;
	bool started;
	volatile bool stop;
	uint64_t passes, pages;
};

static struct dlp_age age = { .pagemap_fd = -1, .bitmap_fd = -1 };

void age_check(const struct dlp_opts *o)
{
	if (!o->age)
		return;
	if (!o->ms.nonstop)
		usage_error("--age: needs -j (aging works while the vCPUs keep accessing memory)");
	if (backing_src_is_hugetlb(o->ms.src))
		usage_error("--age: page_idle ages only pages on the LRU lists, and the %s backing "
			    "is hugetlb (use anonymous, anonymous_thp or shmem)",
			    backing_src_name(o->ms.src));
}

/* Marks the words' worth of PFNs collected in *word idle: one write per 64 PFNs. */
static void flush_word(uint64_t word, uint64_t bits)
{
	if (bits && pwrite(age.bitmap_fd, &bits, sizeof(bits), (off_t)(word * sizeof(bits))) !=
		    (ssize_t)sizeof(bits))
		TEST_FAIL("--age: writing " PAGE_IDLE_BITMAP " failed: errno %d (%s)", errno,
			  strerror(errno));
}

/* One pass over [hva, hva + size): every present page's PFN marked idle. */
static uint64_t age_range(uint64_t hva, uint64_t size)
{
	uint64_t entries[PAGEMAP_BATCH], word = 0, bits = 0, marked = 0;
	uint64_t page = getpagesize(), first = hva / page, count = size / page;

	for (uint64_t done = 0; done < count;) {
		uint64_t n = count - done < PAGEMAP_BATCH ? count - done : PAGEMAP_BATCH;
		ssize_t got = pread(age.pagemap_fd, entries, n * sizeof(*entries),
				    (off_t)((first + done) * sizeof(*entries)));

		TEST_ASSERT(got == (ssize_t)(n * sizeof(*entries)),
			    "--age: reading /proc/self/pagemap failed: errno %d (%s)", errno,
			    strerror(errno));
		for (uint64_t i = 0; i < n; i++) {
			uint64_t pfn = entries[i] & PAGEMAP_PFN_MASK;

			if (!(entries[i] & PAGEMAP_PRESENT) || !pfn)
				continue;
			if (pfn / 64 != word) {
				flush_word(word, bits);
				word = pfn / 64;
				bits = 0;
			}
			bits |= 1ULL << (pfn % 64);
			marked++;
		}
		done += n;
	}
	flush_word(word, bits);
	return marked;
}

static void *age_thread(void *arg)
{
	struct dlp *d = arg;

	while (!age.stop) {
		for (uint32_t i = 0; i < d->o.ms.slots && !age.stop; i++) {
			const struct mem_region *r = &d->ms->vm->regions[memstress_slot(d->ms, i)];

			age.pages += age_range(r->kr.userspace_addr, r->kr.memory_size);
		}
		age.passes++;
	}
	return NULL;
}

void age_start(struct dlp *d)
{
	uint64_t entry = 0;
	const struct mem_region *r;

	if (!d->o.age)
		return;
	age.bitmap_fd = open(PAGE_IDLE_BITMAP, O_WRONLY | O_CLOEXEC);
	if (age.bitmap_fd < 0)
		test_skip("--age: cannot open " PAGE_IDLE_BITMAP ": %s (it needs root and "
			  "CONFIG_IDLE_PAGE_TRACKING)", strerror(errno));
	age.pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(age.pagemap_fd >= 0, "--age: cannot open /proc/self/pagemap: %s",
		    strerror(errno));
	/* Populated memory has PFNs; without CAP_SYS_ADMIN pagemap shows them as 0. */
	r = &d->ms->vm->regions[memstress_slot(d->ms, 0)];
	if (pread(age.pagemap_fd, &entry, sizeof(entry),
		  (off_t)(r->kr.userspace_addr / getpagesize() * sizeof(entry))) != sizeof(entry) ||
	    !(entry & PAGEMAP_PFN_MASK))
		test_skip("--age: /proc/self/pagemap gives no PFN for guest memory (it needs "
			  "CAP_SYS_ADMIN)");
	TEST_ASSERT(!pthread_create(&age.thread, NULL, age_thread, d),
		    "--age: cannot start the aging thread");
	age.started = true;
}

static void age_join(void)
{
	if (!age.started)
		return;
	age.stop = true;
	pthread_join(age.thread, NULL);
	age.started = false;
}

void age_stop(struct dlp *d)
{
	if (!age.started)
		return;
	age_join();
	d->age_passes = age.passes;
	d->age_pages = age.pages;
	ksft_print_msg("--age: the guest memory was marked idle %lu time(s) while the vCPUs "
		       "ran, %lu page(s) in all (page_idle)\n", (unsigned long)age.passes,
		       (unsigned long)age.pages);
}

void age_teardown(void)
{
	age_join();
	if (age.bitmap_fd >= 0)
		close(age.bitmap_fd);
	if (age.pagemap_fd >= 0)
		close(age.pagemap_fd);
	age.bitmap_fd = age.pagemap_fd = -1;
}
