// SPDX-License-Identifier: GPL-2.0
/*
 * Backing sources for guest memory: anonymous memory, THP, hugetlb of a
 * given size, shmem and hugetlbfs memfds.  Shared sources also get a second
 * mapping of the same pages (the alias), which userfaultfd MINOR faults need
 * to fill guest memory without going through the guest's mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backing.h"
#include "host_state.h"
#include "test_util.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define HUGEPAGES_SYSFS "/sys/kernel/mm/hugepages"
#define NR_HUGEPAGES_SYSCTL "/proc/sys/vm/nr_hugepages"

static const char *const src_names[NR_BACKING_SRC_TYPES] = {
	[SRC_ANONYMOUS]			= "anonymous",
	[SRC_ANONYMOUS_THP]		= "anonymous_thp",
	[SRC_ANONYMOUS_HUGETLB]		= "anonymous_hugetlb",
	[SRC_ANONYMOUS_HUGETLB_16KB]	= "anonymous_hugetlb_16kb",
	[SRC_ANONYMOUS_HUGETLB_64KB]	= "anonymous_hugetlb_64kb",
	[SRC_ANONYMOUS_HUGETLB_512KB]	= "anonymous_hugetlb_512kb",
	[SRC_ANONYMOUS_HUGETLB_1MB]	= "anonymous_hugetlb_1mb",
	[SRC_ANONYMOUS_HUGETLB_2MB]	= "anonymous_hugetlb_2mb",
	[SRC_ANONYMOUS_HUGETLB_8MB]	= "anonymous_hugetlb_8mb",
	[SRC_ANONYMOUS_HUGETLB_16MB]	= "anonymous_hugetlb_16mb",
	[SRC_ANONYMOUS_HUGETLB_32MB]	= "anonymous_hugetlb_32mb",
	[SRC_ANONYMOUS_HUGETLB_256MB]	= "anonymous_hugetlb_256mb",
	[SRC_ANONYMOUS_HUGETLB_512MB]	= "anonymous_hugetlb_512mb",
	[SRC_ANONYMOUS_HUGETLB_1GB]	= "anonymous_hugetlb_1gb",
	[SRC_ANONYMOUS_HUGETLB_2GB]	= "anonymous_hugetlb_2gb",
	[SRC_ANONYMOUS_HUGETLB_16GB]	= "anonymous_hugetlb_16gb",
	[SRC_SHMEM]			= "shmem",
	[SRC_SHARED_HUGETLB]		= "shared_hugetlb",
};

/* The page sizes of the sized hugetlb sources, in their order. */
static const uint64_t hugetlb_sizes[] = {
	16ULL << 10, 64ULL << 10, 512ULL << 10, 1ULL << 20, 2ULL << 20, 8ULL << 20,
	16ULL << 20, 32ULL << 20, 256ULL << 20, 512ULL << 20, 1ULL << 30, 2ULL << 30,
	16ULL << 30,
};

static bool is_sized_hugetlb(enum backing_src_type t)
{
	return t >= SRC_ANONYMOUS_HUGETLB_FIRST_SIZED && t <= SRC_ANONYMOUS_HUGETLB_LAST_SIZED;
}

const char *backing_src_name(enum backing_src_type t)
{
	if ((unsigned int)t >= NR_BACKING_SRC_TYPES)
		return "unknown";
	return src_names[t];
}

int backing_src_parse(const char *name)
{
	int t;

	for (t = 0; t < NR_BACKING_SRC_TYPES; t++)
		if (!strcmp(name, src_names[t]))
			return t;
	return -1;
}

const char *backing_src_names(void)
{
	static char names[512];
	size_t len = 0;
	int t;

	if (names[0])
		return names;
	for (t = 0; t < NR_BACKING_SRC_TYPES; t++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				t ? ", " : "", src_names[t]);
	return names;
}

bool backing_src_is_shared(enum backing_src_type t)
{
	return t == SRC_SHMEM || t == SRC_SHARED_HUGETLB;
}

bool backing_src_is_hugetlb(enum backing_src_type t)
{
	return t == SRC_ANONYMOUS_HUGETLB || is_sized_hugetlb(t) || t == SRC_SHARED_HUGETLB;
}

/* "Hugepagesize:" from /proc/meminfo in bytes; 0 if hugetlb is not built in. */
static size_t default_hugepage_size(void)
{
	return host_meminfo_bytes("Hugepagesize");
}

/* PMD size for THP (2M on x86; differs on arm64 with 16K/64K pages). */
static size_t thp_page_size(void)
{
	uint64_t size;

	if (host_read_u64("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &size) || !size)
		return SZ_2M;
	return size;
}

size_t backing_src_page_size(enum backing_src_type t)
{
	if (is_sized_hugetlb(t))
		return hugetlb_sizes[t - SRC_ANONYMOUS_HUGETLB_FIRST_SIZED];
	switch (t) {
	case SRC_ANONYMOUS_THP:
		return thp_page_size();
	case SRC_ANONYMOUS_HUGETLB:
	case SRC_SHARED_HUGETLB:
		return default_hugepage_size();
	default:
		return getpagesize();
	}
}

/* log2 of a power of two, for the MAP_HUGE_* / MFD_HUGE_* size encoding. */
static int page_shift(size_t page_size)
{
	return __builtin_ctzll(page_size);
}

/* Human-readable page size: "2M", "1G", "64K". */
static const char *size_str(size_t size, char *buf, size_t len)
{
	if (size >= SZ_1G && IS_ALIGNED(size, SZ_1G))
		snprintf(buf, len, "%zuG", size >> 30);
	else if (size >= SZ_2M && IS_ALIGNED(size, 1ULL << 20))
		snprintf(buf, len, "%zuM", size >> 20);
	else
		snprintf(buf, len, "%zuK", size >> 10);
	return buf;
}

/* Skip the test unless hugetlb pages of this source's size exist at all. */
static size_t hugetlb_page_size_or_skip(enum backing_src_type t, char *dir, size_t dirlen)
{
	size_t page_size = backing_src_page_size(t);
	char sz[24];

	if (!page_size)
		test_skip("%s: the kernel has no hugetlb support (no Hugepagesize in /proc/meminfo)",
			  backing_src_name(t));
	snprintf(dir, dirlen, HUGEPAGES_SYSFS "/hugepages-%zukB", page_size >> 10);
	if (access(dir, F_OK))
		test_skip("%s: %s hugetlb pages are not supported by this host (no %s)",
			  backing_src_name(t), size_str(page_size, sz, sizeof(sz)), dir);
	return page_size;
}

/* Pages of one size that a new mapping can still get: free minus reserved. */
static uint64_t hugetlb_available(const char *dir)
{
	uint64_t free_pages = 0, resv = 0;
	char path[320];

	snprintf(path, sizeof(path), "%s/free_hugepages", dir);
	if (host_read_u64(path, &free_pages))
		return 0;
	snprintf(path, sizeof(path), "%s/resv_hugepages", dir);
	if (host_read_u64(path, &resv))
		resv = 0;
	return free_pages > resv ? free_pages - resv : 0;
}

/*
 * Call right before backing_alloc(): pages count as taken once mapped, so two
 * reservations before either allocation would both see the same free pages.
 */
void backing_reserve(enum backing_src_type t, size_t bytes)
{
	uint64_t needed, have, nr = 0;
	size_t page_size;
	char dir[128], knob[160], sz[24];
	int ret;

	if (!backing_src_is_hugetlb(t))
		return;

	page_size = hugetlb_page_size_or_skip(t, dir, sizeof(dir));
	needed = DIV_ROUND_UP(bytes, page_size);
	have = hugetlb_available(dir);
	if (have >= needed)
		return;

	size_str(page_size, sz, sizeof(sz));
	/* The well-known sysctl drives the default size; sysfs the others. */
	if (page_size == default_hugepage_size())
		snprintf(knob, sizeof(knob), NR_HUGEPAGES_SYSCTL);
	else
		snprintf(knob, sizeof(knob), "%s/nr_hugepages", dir);
	/* Never ask for more than the host could give: the kernel would try. */
	if ((needed - have) * page_size > host_meminfo_bytes("MemAvailable"))
		test_skip("need %" PRIu64 " more free %s hugetlb pages (%" PRIu64 " MiB): more "
			  "than this host's available memory (%" PRIu64 " MiB)", needed - have, sz,
			  (needed - have) * page_size >> 20, host_meminfo_bytes("MemAvailable") >> 20);
	ret = host_read_u64(knob, &nr);
	if (!ret && access(knob, W_OK))
		ret = -errno;
	if (!ret)
		ret = host_state_add_u64(knob, needed - have, NULL);
	if (ret)
		test_skip("need %" PRIu64 " free %s hugetlb pages; have %" PRIu64
			  "; raise %s to %" PRIu64 " as root (%s)",
			  needed, sz, have, knob, nr + needed - have, strerror(-ret));

	/* The kernel may find fewer free contiguous pages than asked for. */
	have = hugetlb_available(dir);
	if (have < needed) {
		host_state_restore_path(knob);
		test_skip("need %" PRIu64 " free %s hugetlb pages; have %" PRIu64
			  " after raising %s to %" PRIu64 "; free some memory or reserve"
			  " them at boot (hugepagesz=%s hugepages=%" PRIu64 ")",
			  needed, sz, have, knob, nr + needed - have, sz, needed);
	}
}

/* mmap() with the test failing on error, naming the source and size. */
static void *backing_mmap(enum backing_src_type t, size_t size, int prot, int flags, int fd)
{
	void *p = mmap(NULL, size, prot, flags, fd, 0);

	TEST_ASSERT(p != MAP_FAILED, "mmap(%zu bytes, flags 0x%x) failed for backing source %s",
		    size, flags, backing_src_name(t));
	return p;
}

static void alloc_shared(struct backing *b, enum backing_src_type t)
{
	const int prot = PROT_READ | PROT_WRITE;
	unsigned int mfd_flags = MFD_CLOEXEC;

	if (t == SRC_SHARED_HUGETLB)
		mfd_flags |= MFD_HUGETLB;	/* default huge page size */

	b->fd = memfd_create(backing_src_name(t), mfd_flags);
	TEST_ASSERT(b->fd >= 0, "memfd_create(\"%s\", 0x%x) failed", backing_src_name(t),
		    mfd_flags);
	TEST_ASSERT(!ftruncate(b->fd, b->size), "ftruncate(memfd, %zu bytes) failed for %s",
		    b->size, backing_src_name(t));

	b->map_base = backing_mmap(t, b->size, prot, MAP_SHARED, b->fd);
	b->map_size = b->size;
	b->hva = b->map_base;
	b->alias = backing_mmap(t, b->size, prot, MAP_SHARED, b->fd);
}

void backing_alloc(struct backing *b, enum backing_src_type t, size_t size)
{
	const int prot = PROT_READ | PROT_WRITE;
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
	char dir[128];
	uintptr_t start;

	TEST_ASSERT((unsigned int)t < NR_BACKING_SRC_TYPES, "bad backing source %d", t);
	memset(b, 0, sizeof(*b));
	b->type = t;
	b->fd = -1;
	b->page_size = backing_src_is_hugetlb(t) ?
		       hugetlb_page_size_or_skip(t, dir, sizeof(dir)) : backing_src_page_size(t);
	b->size = ALIGN_UP(size, b->page_size);
	TEST_ASSERT(b->size, "backing source %s: size 0", backing_src_name(t));

	switch (t) {
	case SRC_ANONYMOUS:
		b->map_size = b->size;
		b->map_base = backing_mmap(t, b->map_size, prot, anon | MAP_NORESERVE, -1);
		b->hva = b->map_base;
		/*
		 * 4K pages even where THP is "always" (Debian's default), as
		 * upstream's selftests do: anonymous_thp is the huge source,
		 * and KVM maps guest memory with the host's page size.
		 */
		TEST_ASSERT(!madvise(b->hva, b->size, MADV_NOHUGEPAGE) || errno == EINVAL,
			    "madvise(MADV_NOHUGEPAGE, %zu bytes) failed for %s: %s",
			    b->size, backing_src_name(t), strerror(errno));
		break;
	case SRC_ANONYMOUS_THP:
		/* Map one huge page extra so the start can be moved to a huge boundary. */
		b->map_size = b->size + b->page_size;
		b->map_base = backing_mmap(t, b->map_size, prot, anon | MAP_NORESERVE, -1);
		start = ALIGN_UP((uintptr_t)b->map_base, b->page_size);
		b->hva = (void *)start;
		TEST_ASSERT(!madvise(b->hva, b->size, MADV_HUGEPAGE),
			    "madvise(MADV_HUGEPAGE, %zu bytes) failed for %s",
			    b->size, backing_src_name(t));
		break;
	case SRC_ANONYMOUS_HUGETLB:
		/* No size bits: the kernel uses its default huge page size. */
		b->map_size = b->size;
		b->map_base = backing_mmap(t, b->map_size, prot, anon | MAP_HUGETLB, -1);
		b->hva = b->map_base;
		break;
	case SRC_ANONYMOUS_HUGETLB_FIRST_SIZED ... SRC_ANONYMOUS_HUGETLB_LAST_SIZED:
		/* The size in MAP_HUGE_* bits (16G's shift, 34, needs the top bit). */
		b->map_size = b->size;
		b->map_base = backing_mmap(t, b->map_size, prot,
					   anon | MAP_HUGETLB |
					   (int)((unsigned int)page_shift(b->page_size) <<
						 MAP_HUGE_SHIFT), -1);
		b->hva = b->map_base;
		break;
	case SRC_SHMEM:
	case SRC_SHARED_HUGETLB:
		alloc_shared(b, t);
		break;
	default:
		TEST_FAIL("bad backing source %d", t);
	}

	/* hugetlb mappings come aligned to their page size from the kernel. */
	TEST_ASSERT(IS_ALIGNED((uintptr_t)b->hva, b->page_size),
		    "%s mapping at %p is not aligned to its page size 0x%zx",
		    backing_src_name(t), b->hva, b->page_size);
}

void backing_free(struct backing *b)
{
	if (b->alias)
		TEST_ASSERT(!munmap(b->alias, b->size), "munmap(alias, %zu bytes) failed for %s",
			    b->size, backing_src_name(b->type));
	if (b->map_base)
		TEST_ASSERT(!munmap(b->map_base, b->map_size), "munmap(%zu bytes) failed for %s",
			    b->map_size, backing_src_name(b->type));
	if (b->fd >= 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}
