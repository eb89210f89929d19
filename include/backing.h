/* SPDX-License-Identifier: GPL-2.0 */
/* Backing sources for guest memory, named as in the kernel's KVM selftests. */
#ifndef KMP_BACKING_H
#define KMP_BACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum backing_src_type {
	SRC_ANONYMOUS,
	SRC_ANONYMOUS_THP,
	SRC_ANONYMOUS_HUGETLB,		/* the host's default huge page size */
	/* Upstream's sized hugetlb sources, smallest first (a host has a few of them). */
	SRC_ANONYMOUS_HUGETLB_16KB,
	SRC_ANONYMOUS_HUGETLB_64KB,
	SRC_ANONYMOUS_HUGETLB_512KB,
	SRC_ANONYMOUS_HUGETLB_1MB,
	SRC_ANONYMOUS_HUGETLB_2MB,
	SRC_ANONYMOUS_HUGETLB_8MB,
	SRC_ANONYMOUS_HUGETLB_16MB,
	SRC_ANONYMOUS_HUGETLB_32MB,
	SRC_ANONYMOUS_HUGETLB_256MB,
	SRC_ANONYMOUS_HUGETLB_512MB,
	SRC_ANONYMOUS_HUGETLB_1GB,
	SRC_ANONYMOUS_HUGETLB_2GB,
	SRC_ANONYMOUS_HUGETLB_16GB,
	SRC_SHMEM,
	SRC_SHARED_HUGETLB,		/* memfd, default huge page size */
	NR_BACKING_SRC_TYPES,
};
#define SRC_ANONYMOUS_HUGETLB_FIRST_SIZED SRC_ANONYMOUS_HUGETLB_16KB
#define SRC_ANONYMOUS_HUGETLB_LAST_SIZED SRC_ANONYMOUS_HUGETLB_16GB

#define DEFAULT_BACKING_SRC SRC_ANONYMOUS

struct backing {
	enum backing_src_type type;
	void *hva;		/* guest memory as the host sees it */
	void *alias;		/* second mapping of the same pages (shared sources), else NULL */
	int fd;			/* memfd for shared sources, else -1 */
	size_t size;
	size_t page_size;	/* backing page size: 4K, 2M or 1G */
	void *map_base;		/* what was mmap()ed (may be larger, for alignment) */
	size_t map_size;
};

const char *backing_src_name(enum backing_src_type t);
/* -1 for an unknown name. */
int backing_src_parse(const char *name);
/* "anonymous, anonymous_thp, ..." for help and error text. */
const char *backing_src_names(void);
/* Page size of a source: 4K, 2M for THP, the hugetlb size, etc. */
size_t backing_src_page_size(enum backing_src_type t);
bool backing_src_is_shared(enum backing_src_type t);
bool backing_src_is_hugetlb(enum backing_src_type t);

/*
 * Make sure enough free hugetlb pages of this source's size exist for
 * `bytes`, raising nr_hugepages through host_state (restored on exit) when
 * needed.  On failure the whole test is skipped with a reason naming the
 * sysctl and the count needed.  No-op for non-hugetlb sources.
 */
void backing_reserve(enum backing_src_type t, size_t bytes);

/*
 * Map `size` bytes (rounded up to the source's page size) of the given source,
 * aligned to its page size; shared sources also get `alias`.  Fails the test
 * with the mmap/madvise/memfd error on failure.
 */
void backing_alloc(struct backing *b, enum backing_src_type t, size_t size);
void backing_free(struct backing *b);

#endif
