// SPDX-License-Identifier: GPL-2.0
/*
 * Page sources for demand paging (--source): one prefilled page (upstream's
 * way), zeroes, the gpa-derived pattern, or an image file of that pattern,
 * read synchronously (pread) or asynchronously through one libaio context
 * per reader thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libaio.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "page_source.h"
#include "test_util.h"

#define FILE_PREFIX	"file:"
#define SOURCE_OPT	"--source"
/* Size of one write() of an image file and of the O_DIRECT probe read. */
#define IMAGE_CHUNK	(1UL << 20)
#define PROBE_LEN	4096UL

void page_source_parse_opt(struct page_source *s, const char *opt, const char *value)
{
	size_t plen = strlen(FILE_PREFIX);

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!strcmp(value, "constant")) {
		s->kind = PAGE_SRC_CONSTANT;
	} else if (!strcmp(value, "zero")) {
		s->kind = PAGE_SRC_ZERO;
	} else if (!strcmp(value, "pattern")) {
		s->kind = PAGE_SRC_PATTERN;
	} else if (!strncmp(value, FILE_PREFIX, plen) && value[plen]) {
		if (strlen(value + plen) >= sizeof(s->path))
			usage_error("%s '%s': path longer than %zu bytes", opt, value,
				    sizeof(s->path) - 1);
		s->kind = PAGE_SRC_FILE;
		strcpy(s->path, value + plen);
	} else {
		usage_error("%s '%s': unknown page source; use constant, zero, pattern or "
			    "file:PATH", opt, value);
	}
}

const char *page_source_name(const struct page_source *s)
{
	/* One buffer per thread: valid until this thread's next call. */
	static __thread char name[sizeof(FILE_PREFIX) + sizeof(s->path)];

	switch (s->kind) {
	case PAGE_SRC_CONSTANT:
		return "constant";
	case PAGE_SRC_ZERO:
		return "zero";
	case PAGE_SRC_PATTERN:
		return "pattern";
	case PAGE_SRC_FILE:
		snprintf(name, sizeof(name), FILE_PREFIX "%s", s->path);
		return name;
	}
	return "?";
}

/*
 * Some filesystems accept O_DIRECT at open() and refuse it only on the
 * first read; read one aligned block to find out.  Returns false when the
 * read fails with EINVAL.
 */
static bool direct_read_works(int fd, uint64_t file_size)
{
	void *buf;
	ssize_t n;

	if (file_size < PROBE_LEN)
		return true;	/* nothing to probe; reads will say */
	TEST_ASSERT(!posix_memalign(&buf, PROBE_LEN, PROBE_LEN),
		    "no memory for a %lu-byte aligned buffer", PROBE_LEN);
	do {
		n = pread(fd, buf, PROBE_LEN, 0);
	} while (n < 0 && errno == EINTR);
	free(buf);
	return n >= 0 || errno != EINVAL;
}

/* Bytes in a regular file or block device; usage error for anything else. */
static uint64_t source_file_size(const struct page_source *s, int fd)
{
	struct stat st;
	uint64_t bytes;

	TEST_ASSERT(!fstat(fd, &st), "fstat of page source '%s'", s->path);
	if (S_ISREG(st.st_mode))
		return st.st_size;
	if (S_ISBLK(st.st_mode)) {
		TEST_ASSERT(!ioctl(fd, BLKGETSIZE64, &bytes),
			    "BLKGETSIZE64 on page source '%s'", s->path);
		return bytes;
	}
	usage_error("%s '" FILE_PREFIX "%s': not a regular file or block device",
		    SOURCE_OPT, s->path);
}

void page_source_open(struct page_source *s, uint64_t base_gpa, uint64_t size)
{
	uint64_t file_size;
	int fd;

	TEST_ASSERT(IS_ALIGNED(base_gpa, 8), "page source base gpa 0x%" PRIx64
		    " is not 8-byte aligned", base_gpa);
	s->base_gpa = base_gpa;
	s->size = size;
	s->direct = false;
	if (s->kind != PAGE_SRC_FILE)
		return;

	fd = open(s->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd >= 0) {
		s->direct = true;
	} else if (errno == EINVAL) {
		/* The filesystem does not do O_DIRECT (e.g. an old tmpfs). */
		fd = open(s->path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		usage_error("%s '" FILE_PREFIX "%s': %s (need %" PRIu64 " bytes)",
			    SOURCE_OPT, s->path, strerror(errno), size);

	file_size = source_file_size(s, fd);
	if (file_size < size)
		usage_error("%s '" FILE_PREFIX "%s': %" PRIu64 " bytes, need %" PRIu64,
			    SOURCE_OPT, s->path, file_size, size);

	if (s->direct && !direct_read_works(fd, file_size)) {
		close(fd);
		s->direct = false;
		fd = open(s->path, O_RDONLY | O_CLOEXEC);
		TEST_ASSERT(fd >= 0, "reopening page source '%s' without O_DIRECT", s->path);
	}
	s->fd = fd;
}

void page_source_close(struct page_source *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static void fill_pattern(uint64_t gpa, void *buf, size_t len)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = page_pattern_word(gpa + 8 * i);
}

const void *page_source_prototype(struct page_source *s, size_t len)
{
	if (s->kind != PAGE_SRC_CONSTANT)
		return NULL;
	if (s->prototype_len < len) {
		free(s->prototype);
		TEST_ASSERT(!posix_memalign(&s->prototype, len < 4096 ? 4096 : len, len),
			    "posix_memalign(%zu bytes) for the constant page", len);
		memset(s->prototype, PAGE_CONSTANT_WORD & 0xff, len);
		s->prototype_len = len;
	}
	return s->prototype;
}

/* The synchronous fill of the generated sources (sync and aio paths). */
static void fill_generated(const struct page_source *s, uint64_t off, void *buf, size_t len)
{
	if (s->kind == PAGE_SRC_ZERO || s->kind == PAGE_SRC_CONSTANT) {
		memset(buf, s->kind == PAGE_SRC_ZERO ? 0 : PAGE_CONSTANT_WORD & 0xff, len);
		return;
	}
	TEST_ASSERT(IS_ALIGNED(off, 8) && IS_ALIGNED(len, 8),
		    "pattern read at offset 0x%" PRIx64 " of %zu bytes: not whole words", off, len);
	fill_pattern(s->base_gpa + off, buf, len);
}

void page_source_read(struct page_source *s, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (s->kind != PAGE_SRC_FILE) {
		fill_generated(s, off, buf, len);
		return;
	}
	TEST_ASSERT(s->fd >= 0, "page source '%s' read before page_source_open()", s->path);
	while (done < len) {
		n = pread(s->fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL && s->direct)
			TEST_FAIL("%s: O_DIRECT read of %zu bytes at offset 0x%" PRIx64
				  " into %p refused: buffer, offset and length must be"
				  " block-aligned", s->path, len - done, off + done,
				  (char *)buf + done);
		TEST_ASSERT(n > 0, "%s: read of %zu bytes at offset 0x%" PRIx64 " returned %zd",
			    s->path, len - done, off + done, n);
		done += n;
	}
}

uint64_t page_source_expected_word(const struct page_source *s, uint64_t gpa)
{
	return s->kind == PAGE_SRC_ZERO ? 0 : s->kind == PAGE_SRC_CONSTANT ? PAGE_CONSTANT_WORD :
	       page_pattern_word(gpa);
}

void page_source_write_image(const char *path, uint64_t base_gpa, uint64_t size)
{
	uint64_t off = 0, chunk;
	size_t done;
	ssize_t n;
	void *buf;
	int fd;

	TEST_ASSERT(IS_ALIGNED(base_gpa, 8), "image '%s': base gpa 0x%" PRIx64
		    " is not 8-byte aligned", path, base_gpa);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	TEST_ASSERT(fd >= 0, "cannot create image file '%s'", path);
	buf = malloc(IMAGE_CHUNK);
	TEST_ASSERT(buf, "no memory for writing image file '%s'", path);

	while (off < size) {
		chunk = size - off < IMAGE_CHUNK ? size - off : IMAGE_CHUNK;
		/* A partial last word still gets its leading bytes. */
		fill_pattern(base_gpa + off, buf, ALIGN_UP(chunk, 8));
		for (done = 0; done < chunk; done += n) {
			n = write(fd, (char *)buf + done, chunk - done);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			TEST_ASSERT(n > 0, "writing image file '%s' at offset %" PRIu64
				    " (%" PRIu64 " bytes in all)", path, off + done, size);
		}
		off += chunk;
	}
	free(buf);
	TEST_ASSERT(!fsync(fd), "fsync of image file '%s'", path);
	TEST_ASSERT(!close(fd), "closing image file '%s'", path);
}

/* ---- asynchronous reads ------------------------------------------------- */

struct psa_slot {
	struct iocb cb;		/* first: io_event.obj points here */
	void *tag;
	uint64_t off;
	size_t len;
};

struct page_source_aio {
	struct page_source *s;
	unsigned int depth;
	io_context_t ctx;		/* file sources only */
	struct psa_slot *slots;
	unsigned int *free_slots;	/* stack of unused slot indices */
	unsigned int nr_free;
	struct io_event *events;
	unsigned int in_flight;		/* submitted to the kernel, not reaped */
	void **ready;			/* ring of completed zero/pattern tags */
	unsigned int ready_head, nr_ready;
};

static void *aio_zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	TEST_ASSERT(p, "no memory for %zu aio entries", n);
	return p;
}

struct page_source_aio *page_source_aio_create(struct page_source *s, unsigned int depth)
{
	struct page_source_aio *a;
	unsigned int i;
	int ret;

	TEST_ASSERT(depth > 0, "an aio context needs a depth of at least 1");
	a = aio_zalloc(1, sizeof(*a));
	a->s = s;
	a->depth = depth;
	a->ready = aio_zalloc(depth, sizeof(*a->ready));
	if (s->kind != PAGE_SRC_FILE)
		return a;

	TEST_ASSERT(s->fd >= 0, "page source '%s' used before page_source_open()", s->path);
	ret = io_setup(depth, &a->ctx);
	if (ret) {
		errno = -ret;
		TEST_FAIL("io_setup(%u) for page source '%s' failed%s", depth, s->path,
			  ret == -EAGAIN ? "; raise /proc/sys/fs/aio-max-nr" : "");
	}
	a->slots = aio_zalloc(depth, sizeof(*a->slots));
	a->free_slots = aio_zalloc(depth, sizeof(*a->free_slots));
	a->events = aio_zalloc(depth, sizeof(*a->events));
	for (i = 0; i < depth; i++)
		a->free_slots[i] = depth - 1 - i;
	a->nr_free = depth;
	return a;
}

void page_source_aio_destroy(struct page_source_aio *a)
{
	if (!a)
		return;
	/* io_destroy() waits for reads still in flight into the callers' buffers. */
	if (a->s->kind == PAGE_SRC_FILE)
		io_destroy(a->ctx);
	free(a->events);
	free(a->free_slots);
	free(a->slots);
	free(a->ready);
	free(a);
}

unsigned int page_source_aio_pending(const struct page_source_aio *a)
{
	return a->in_flight + a->nr_ready;
}

void page_source_aio_submit(struct page_source_aio *a, uint64_t off, void *buf, size_t len,
			    void *tag)
{
	struct page_source *s = a->s;
	struct psa_slot *slot;
	struct iocb *cbs[1];
	int ret;

	TEST_ASSERT(page_source_aio_pending(a) < a->depth,
		    "page source '%s': submit with %u reads already queued (depth %u)",
		    page_source_name(s), page_source_aio_pending(a), a->depth);

	if (s->kind != PAGE_SRC_FILE) {
		fill_generated(s, off, buf, len);
		a->ready[(a->ready_head + a->nr_ready) % a->depth] = tag;
		a->nr_ready++;
		return;
	}

	slot = &a->slots[a->free_slots[--a->nr_free]];
	slot->tag = tag;
	slot->off = off;
	slot->len = len;
	io_prep_pread(&slot->cb, s->fd, buf, len, off);
	cbs[0] = &slot->cb;
	do {
		ret = io_submit(a->ctx, 1, cbs);
	} while (ret == -EINTR || ret == -EAGAIN);
	if (ret != 1) {
		errno = ret < 0 ? -ret : 0;
		TEST_FAIL("%s: io_submit of %zu bytes at offset 0x%" PRIx64 " returned %d%s",
			  s->path, len, off, ret,
			  ret == -EINVAL && s->direct ? " (O_DIRECT needs block-aligned"
			  " buffer, offset and length)" : "");
	}
	a->in_flight++;
}

int page_source_aio_reap(struct page_source_aio *a, unsigned int min, unsigned int max,
			 void **tags)
{
	struct timespec no_wait = { 0, 0 };
	unsigned int count = 0, want;
	struct psa_slot *slot;
	long res;
	int ret, i;

	/* Generated content completed at submit time. */
	while (count < max && a->nr_ready) {
		tags[count++] = a->ready[a->ready_head];
		a->ready_head = (a->ready_head + 1) % a->depth;
		a->nr_ready--;
	}

	while (count < max && a->in_flight) {
		/* Never wait for more than is in flight: that would never return. */
		want = min > count ? min - count : 0;
		if (want > a->in_flight)
			want = a->in_flight;
		ret = io_getevents(a->ctx, want, max - count, a->events,
				   want ? NULL : &no_wait);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			errno = -ret;
			TEST_FAIL("%s: io_getevents(%u, %u) failed", a->s->path, want,
				  max - count);
		}
		for (i = 0; i < ret; i++) {
			slot = (struct psa_slot *)a->events[i].obj;
			res = (long)a->events[i].res;
			if (res != (long)slot->len) {
				errno = res < 0 ? -res : 0;
				TEST_FAIL("%s: read of %zu bytes at offset 0x%" PRIx64
					  " returned %ld%s", a->s->path, slot->len, slot->off,
					  res, res < 0 ? " (an error)" : " (short)");
			}
			tags[count++] = slot->tag;
			a->free_slots[a->nr_free++] = slot - a->slots;
			a->in_flight--;
		}
		/* Interrupted waits return early with fewer: wait again for the rest. */
		if (count >= min)
			break;
	}
	return count;
}
