/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where demand-paged guest pages come from (--source): one prefilled page
 * copied into every fault, as upstream's demand_paging_test does (constant,
 * the default), zeroes, a pattern derived from each word's guest physical
 * address, or an image file read with libaio (O_DIRECT where the
 * filesystem allows it), standing in for a postcopy source.  Image files
 * hold the same pattern, written by page_source_write_image(), so the guest
 * can check every page it gets.
 */
#ifndef KMP_PAGE_SOURCE_H
#define KMP_PAGE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum page_source_kind {
	PAGE_SRC_ZERO,
	PAGE_SRC_PATTERN,
	PAGE_SRC_FILE,
	PAGE_SRC_CONSTANT,
};

/* Every word of every page of the constant source (upstream's prototype is 0xab bytes). */
#define PAGE_CONSTANT_WORD 0xababababababababULL

/* The pattern: the 64-bit word at guest physical address gpa (8-byte aligned). */
static inline uint64_t page_pattern_word(uint64_t gpa)
{
	return (gpa * 0x9e3779b97f4a7c15ULL) ^ 0xd1b54a32d192ed03ULL;
}

struct page_source {
	enum page_source_kind kind;
	char path[4096];		/* PAGE_SRC_FILE */
	int fd;				/* -1 unless a file is open */
	bool direct;			/* opened with O_DIRECT */
	uint64_t base_gpa;		/* gpa of offset 0 */
	uint64_t size;			/* bytes the run needs */
	void *prototype;		/* PAGE_SRC_CONSTANT: the page copied into every fault */
	size_t prototype_len;
};

/*
 * The constant source's prefilled page, at least len bytes and page-aligned;
 * NULL for the other sources.  Made on the first call, which must come
 * before any reader thread exists (uffd_region_init makes it).
 */
const void *page_source_prototype(struct page_source *s, size_t len);

/*
 * Parse --source: "constant", "zero", "pattern" or "file:PATH".  An unknown kind is a
 * one-line usage error naming the option and value.
 */
void page_source_parse_opt(struct page_source *s, const char *opt, const char *value);
/* "constant", "zero", "pattern", "file:PATH". */
const char *page_source_name(const struct page_source *s);

/*
 * Prepare for a run covering [base_gpa, base_gpa + size): for a file, open
 * it (O_DIRECT if possible) and check it holds at least size bytes; a
 * missing or short file is a one-line usage error naming the path, its size
 * and the size needed.
 */
void page_source_open(struct page_source *s, uint64_t base_gpa, uint64_t size);
void page_source_close(struct page_source *s);

/*
 * Synchronously fill buf (len bytes, a multiple of 8; page-aligned buffer
 * for O_DIRECT) with the content at byte offset off of the region.
 */
void page_source_read(struct page_source *s, uint64_t off, void *buf, size_t len);

/* What the content at gpa must be (for checks): 0 for zero, the pattern otherwise. */
uint64_t page_source_expected_word(const struct page_source *s, uint64_t gpa);

/* Write an image file of size bytes holding the pattern for base_gpa onwards. */
void page_source_write_image(const char *path, uint64_t base_gpa, uint64_t size);

/*
 * Asynchronous reads for one reader thread (libaio): up to depth reads in
 * flight.  For zero/pattern sources the "reads" complete immediately, so
 * callers use one code path for every source.
 */
struct page_source_aio;
struct page_source_aio *page_source_aio_create(struct page_source *s, unsigned int depth);
void page_source_aio_destroy(struct page_source_aio *a);
/* Queue a read of len bytes at offset off into buf; tag comes back on completion. */
void page_source_aio_submit(struct page_source_aio *a, uint64_t off, void *buf, size_t len,
			    void *tag);
/*
 * Wait for at least min (0: don't wait) queued reads to complete, up to max;
 * tags[] gets the completed reads' tags.  Returns the count.  A failed or
 * short read fails the test naming the path and offset.
 */
int page_source_aio_reap(struct page_source_aio *a, unsigned int min, unsigned int max,
			 void **tags);
/* Reads queued and not yet reaped. */
unsigned int page_source_aio_pending(const struct page_source_aio *a);

#endif
