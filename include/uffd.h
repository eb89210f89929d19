/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userfaultfd for demand paging guest memory: one uffd per registered
 * range, N reader threads each waiting in its own epoll set
 * (EPOLLEXCLUSIVE) and resolving faults with UFFDIO_COPY (MISSING: content
 * from a page_source) or UFFDIO_CONTINUE (MINOR: the page cache was filled
 * through the alias mapping beforehand).
 */
#ifndef KMP_UFFD_H
#define KMP_UFFD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "page_source.h"

enum uffd_mode {
	UFFD_MODE_NONE,		/* no uffd: plain first-touch faults */
	UFFD_MODE_MISSING,
	UFFD_MODE_MINOR,
};

/* "MISSING" / "MINOR" (exactly, as upstream's -u) -> mode; else a usage error. */
enum uffd_mode uffd_mode_parse_opt(const char *opt, const char *value);
const char *uffd_mode_name(enum uffd_mode m);

/*
 * Open a userfaultfd (the syscall, else /dev/userfaultfd) and do the
 * UFFDIO_API handshake with the features the mode needs for this kind of
 * memory (MINOR: UFFD_FEATURE_MINOR_SHMEM or _HUGETLBFS).  When it cannot
 * (EPERM with vm.unprivileged_userfaultfd=0, no /dev/userfaultfd access,
 * a feature missing) the test is skipped with a reason naming the cause.
 */
int uffd_open(enum uffd_mode mode, bool hugetlb);

struct uffd_fault_stats {
	uint64_t faults;		/* messages handled */
	uint64_t resolved;		/* COPY/CONTINUE that succeeded */
	uint64_t eexist;		/* another reader (or the vCPU) got there first */
	uint64_t handler_ns;		/* total time from message to resolved */
	uint64_t ioctl_ns;		/* of which inside UFFDIO_COPY/CONTINUE */
	uint64_t read_ns;		/* of which reading the fault messages (read(2)) */
	uint64_t source_ns;		/* of which reading the page's content (MISSING) */
	uint64_t delay_ns;		/* of which the -d delay */
	uint64_t *latency_ns;		/* per fault, for percentiles */
	uint64_t latency_nr;		/* samples in latency_ns */
	uint64_t latency_cap;		/* latency_ns's allocated length */
};

struct uffd_region {
	int uffd;
	enum uffd_mode mode;
	char *hva;			/* the registered range (what KVM faults on) */
	char *alias;			/* MINOR: a second mapping of the same pages */
	uint64_t size, page_size;
	uint64_t src_off;		/* page_source offset of hva[0] */
	struct page_source *src;
	unsigned int delay_us;		/* -d: before resolving each fault */
	/* Times each page was resolved, by anyone: must end up exactly 1. */
	uint8_t *resolve_count;
	/* Readers. */
	int nr_readers;
	pthread_t *readers;
	int stop_fd;			/* eventfd: tells readers to quit */
	struct uffd_fault_stats *reader_stats;	/* one per reader */
};

/*
 * Register [hva, hva + size) of a mapping with a new uffd in this mode.
 * For MINOR, alias must map the same pages: every page is first filled
 * from src through it (the page cache holds the content; the primary
 * mapping has no PTEs yet).
 */
void uffd_region_init(struct uffd_region *r, enum uffd_mode mode, char *hva, char *alias,
		      uint64_t size, uint64_t page_size, struct page_source *src,
		      uint64_t src_off, unsigned int delay_us);
/* Start nr readers (each with its own epoll set on the uffd, EPOLLEXCLUSIVE). */
void uffd_region_start(struct uffd_region *r, int nr_readers);
/* Stop and join the readers; close the uffd. Idempotent. */
void uffd_region_stop(struct uffd_region *r);
void uffd_region_free(struct uffd_region *r);

/*
 * Resolve the page holding addr now, from any thread (used by vCPU threads
 * handling KVM_EXIT_MEMORY_FAULT): COPY or CONTINUE with wake as given.
 * Returns 0, or -EEXIST when it was already resolved (counted in st).
 * st->latency_ns grows with each call: the caller frees it.
 */
int uffd_region_resolve(struct uffd_region *r, uint64_t addr, bool wake,
			struct uffd_fault_stats *st);

/*
 * sum += st; st's latency samples are appended to sum's array (which sum
 * owns).  st is unchanged.
 */
void uffd_stats_add(struct uffd_fault_stats *sum, const struct uffd_fault_stats *st);
/* Frees st's latency samples, keeping its counts and times. */
void uffd_stats_drop_latencies(struct uffd_fault_stats *st);
/* Sum of the readers' stats (latency arrays concatenated). Caller frees latency_ns. */
void uffd_region_stats(const struct uffd_region *r, struct uffd_fault_stats *sum);
/* Pages resolved 0 times, and more than once (both must be 0 after a run). */
void uffd_region_check_counts(const struct uffd_region *r, uint64_t *unresolved,
			      uint64_t *multiple);

#endif
