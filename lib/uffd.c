// SPDX-License-Identifier: GPL-2.0
/*
 * userfaultfd for demand paging: open and handshake, register a range,
 * reader threads that resolve faults (UFFDIO_COPY from a page_source for
 * MISSING, UFFDIO_CONTINUE for MINOR), and resolution from any thread for
 * KVM_EXIT_MEMORY_FAULT handlers.
 *
 * Each reader has its own epoll set holding the uffd (EPOLLIN |
 * EPOLLEXCLUSIVE, so a new fault wakes one idle reader rather than all of
 * them) and the stop eventfd (EPOLLIN, level-triggered and never read, so
 * every reader sees it).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parse.h"
#include "report.h"
#include "test_util.h"
#include "uffd.h"

/* linux-libc-dev 6.1 may predate /dev/userfaultfd's ioctl. */
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

#define UFFD_DEV "/dev/userfaultfd"
/* Messages taken per read(). */
#define UFFD_READ_BATCH 16
/* Bytes filled through the alias per page_source_read() for MINOR. */
#define UFFD_FILL_CHUNK (8ULL << 20)

enum uffd_mode uffd_mode_parse_opt(const char *opt, const char *value)
{
	return parse_choice_opt(opt, value, (const char *const[]){ "MISSING", "MINOR", NULL }) ?
	       UFFD_MODE_MINOR : UFFD_MODE_MISSING;
}

const char *uffd_mode_name(enum uffd_mode m)
{
	switch (m) {
	case UFFD_MODE_NONE:
		return "NONE";
	case UFFD_MODE_MISSING:
		return "MISSING";
	case UFFD_MODE_MINOR:
		return "MINOR";
	}
	return "?";
}

/* A bare userfaultfd (no handshake yet): the syscall, else /dev/userfaultfd. */
static int uffd_new_fd(void)
{
	int fd, dev, err;

	fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0)
		return fd;
	err = errno;
	if (err == ENOSYS)
		test_skip("userfaultfd: ENOSYS: kernel built without CONFIG_USERFAULTFD");
	if (err != EPERM) {
		errno = err;
		TEST_FAIL("userfaultfd(O_CLOEXEC | O_NONBLOCK) failed");
	}

	/* EPERM: vm.unprivileged_userfaultfd=0 and no CAP_SYS_PTRACE. */
	dev = open(UFFD_DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		test_skip("userfaultfd: EPERM: vm.unprivileged_userfaultfd=0 and " UFFD_DEV
			  " not accessible (%s)", strerror(errno));
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
	err = errno;
	close(dev);
	if (fd < 0)
		test_skip("userfaultfd: EPERM: vm.unprivileged_userfaultfd=0 and "
			  "USERFAULTFD_IOC_NEW on " UFFD_DEV " failed (%s)", strerror(err));
	return fd;
}

int uffd_open(enum uffd_mode mode, bool hugetlb)
{
	struct uffdio_api api = { .api = UFFD_API };
	const char *feature_name = NULL;
	uint64_t feature = 0;
	int fd, probe;

	TEST_ASSERT(mode == UFFD_MODE_MISSING || mode == UFFD_MODE_MINOR,
		    "uffd_open: no userfaultfd for mode %s", uffd_mode_name(mode));
	if (mode == UFFD_MODE_MINOR) {
		feature = hugetlb ? UFFD_FEATURE_MINOR_HUGETLBFS : UFFD_FEATURE_MINOR_SHMEM;
		feature_name = hugetlb ? "UFFD_FEATURE_MINOR_HUGETLBFS" :
					 "UFFD_FEATURE_MINOR_SHMEM";
	}

	fd = uffd_new_fd();
	api.features = feature;
	if (!ioctl(fd, UFFDIO_API, &api)) {
		TEST_ASSERT((api.features & feature) == feature,
			    "UFFDIO_API: asked for features 0x%llx, got 0x%llx",
			    (unsigned long long)feature, (unsigned long long)api.features);
		return fd;
	}
	if (errno != EINVAL || !feature)
		TEST_FAIL("UFFDIO_API (api 0x%llx, features 0x%llx) failed",
			  (unsigned long long)UFFD_API, (unsigned long long)feature);
	close(fd);

	/* EINVAL: find out whether the feature is what the kernel lacks. */
	probe = uffd_new_fd();
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	TEST_ASSERT(!ioctl(probe, UFFDIO_API, &api), "UFFDIO_API (no features) failed");
	close(probe);
	if (!(api.features & feature))
		test_skip("userfaultfd: kernel lacks %s (features offered 0x%llx)", feature_name,
			  (unsigned long long)api.features);
	errno = EINVAL;
	TEST_FAIL("UFFDIO_API with %s failed although the kernel offers it", feature_name);
}

/*
 * A page-aligned bounce buffer per thread for uffd_region_resolve() calls
 * from threads that are not readers (vCPU threads), freed at thread exit.
 */
struct uffd_tls_buf {
	void *p;
	size_t len;
};
static pthread_key_t uffd_buf_key;
static pthread_once_t uffd_buf_once = PTHREAD_ONCE_INIT;

static void uffd_tls_buf_free(void *v)
{
	struct uffd_tls_buf *b = v;

	free(b->p);
	free(b);
}

static void uffd_buf_key_create(void)
{
	TEST_ASSERT(!pthread_key_create(&uffd_buf_key, uffd_tls_buf_free),
		    "pthread_key_create failed");
}

static void *uffd_page_buf(size_t len)
{
	struct uffd_tls_buf *b;

	pthread_once(&uffd_buf_once, uffd_buf_key_create);
	b = pthread_getspecific(uffd_buf_key);
	if (!b) {
		b = calloc(1, sizeof(*b));
		TEST_ASSERT(b, "out of memory");
		TEST_ASSERT(!pthread_setspecific(uffd_buf_key, b), "pthread_setspecific failed");
	}
	if (b->len < len) {
		free(b->p);
		b->p = NULL;
		TEST_ASSERT(!posix_memalign(&b->p, len < 4096 ? 4096 : len, len),
			    "posix_memalign(%zu bytes) failed", len);
		b->len = len;
	}
	return b->p;
}

static void uffd_stats_add_latency(struct uffd_fault_stats *st, uint64_t ns)
{
	if (st->latency_nr >= st->latency_cap) {
		uint64_t cap = st->latency_cap ? st->latency_cap * 2 : 1024;
		uint64_t *p = realloc(st->latency_ns, cap * sizeof(*p));

		TEST_ASSERT(p, "out of memory for %llu latencies", (unsigned long long)cap);
		st->latency_ns = p;
		st->latency_cap = cap;
	}
	st->latency_ns[st->latency_nr++] = ns;
}

static void uffd_wake(struct uffd_region *r, uint64_t page)
{
	struct uffdio_range range = { .start = page, .len = r->page_size };

	if (ioctl(r->uffd, UFFDIO_WAKE, &range))
		TEST_FAIL("UFFDIO_WAKE at 0x%llx (%llu bytes) failed", (unsigned long long)page,
			  (unsigned long long)r->page_size);
}

/*
 * Resolve the page at hva address page (aligned to r->page_size), using buf
 * (page_size bytes, page-aligned) for MISSING content: read into it here
 * unless filled says a reader already did.  Adds the ioctl's time to
 * st->ioctl_ns and the content read's to st->source_ns.  Returns 0 or
 * -EEXIST.
 */
static int uffd_resolve_page(struct uffd_region *r, uint64_t page, bool wake, void *buf,
			     bool filled, struct uffd_fault_stats *st)
{
	uint64_t idx = (page - (uint64_t)(uintptr_t)r->hva) / r->page_size;
	struct timespec t0;
	int ret, err;

	if (r->mode == UFFD_MODE_MISSING) {
		/* The constant source copies its one prefilled page, as upstream does. */
		const void *proto = page_source_prototype(r->src, r->page_size);
		struct uffdio_copy copy = {
			.dst = page,
			.src = (uint64_t)(uintptr_t)(proto ? proto : buf),
			.len = r->page_size,
			.mode = wake ? 0 : UFFDIO_COPY_MODE_DONTWAKE,
		};

		if (!filled && !proto) {
			t0 = ts_now();
			page_source_read(r->src, r->src_off + (page - (uint64_t)(uintptr_t)r->hva),
					 buf, r->page_size);
			st->source_ns += ts_to_ns(ts_elapsed(t0));
		}
		do {
			copy.copy = 0;
			t0 = ts_now();
			ret = ioctl(r->uffd, UFFDIO_COPY, &copy);
			err = errno;
			st->ioctl_ns += ts_to_ns(ts_elapsed(t0));
		} while (ret && err == EAGAIN);
		if (ret && err != EEXIST) {
			errno = err;
			TEST_FAIL("UFFDIO_COPY to 0x%llx (%llu bytes, copied %lld) failed",
				  (unsigned long long)page, (unsigned long long)r->page_size,
				  (long long)copy.copy);
		}
	} else {
		struct uffdio_continue cont = {
			.range = { .start = page, .len = r->page_size },
			.mode = wake ? 0 : UFFDIO_CONTINUE_MODE_DONTWAKE,
		};

		do {
			cont.mapped = 0;
			t0 = ts_now();
			ret = ioctl(r->uffd, UFFDIO_CONTINUE, &cont);
			err = errno;
			st->ioctl_ns += ts_to_ns(ts_elapsed(t0));
		} while (ret && err == EAGAIN);
		if (ret && err != EEXIST) {
			errno = err;
			TEST_FAIL("UFFDIO_CONTINUE at 0x%llx (%llu bytes, mapped %lld) failed",
				  (unsigned long long)page, (unsigned long long)r->page_size,
				  (long long)cont.mapped);
		}
	}
	if (ret)
		return -EEXIST;
	__atomic_fetch_add(&r->resolve_count[idx], 1, __ATOMIC_RELAXED);
	return 0;
}

static uint64_t uffd_page_of(const struct uffd_region *r, uint64_t addr)
{
	uint64_t base = (uint64_t)(uintptr_t)r->hva;

	TEST_ASSERT(addr >= base && addr - base < r->size,
		    "address 0x%llx outside the registered range [%p, +0x%llx)",
		    (unsigned long long)addr, r->hva, (unsigned long long)r->size);
	return base + ALIGN_DOWN(addr - base, r->page_size);
}

int uffd_region_resolve(struct uffd_region *r, uint64_t addr, bool wake,
			struct uffd_fault_stats *st)
{
	struct timespec t0 = ts_now();
	uint64_t page = uffd_page_of(r, addr), ns;
	void *buf = r->mode == UFFD_MODE_MISSING ? uffd_page_buf(r->page_size) : NULL;
	struct uffd_fault_stats tmp = {};
	int ret = uffd_resolve_page(r, page, wake, buf, false, st ? st : &tmp);

	ns = ts_to_ns(ts_elapsed(t0));
	if (st) {
		uffd_stats_add_latency(st, ns);
		st->faults++;
		if (ret)
			st->eexist++;
		else
			st->resolved++;
		st->handler_ns += ns;
	}
	return ret;
}

void uffd_region_init(struct uffd_region *r, enum uffd_mode mode, char *hva, char *alias,
		      uint64_t size, uint64_t page_size, struct page_source *src,
		      uint64_t src_off, unsigned int delay_us)
{
	struct uffdio_register reg = { 0 };
	uint64_t need, off;
	bool hugetlb;

	TEST_ASSERT(mode == UFFD_MODE_MISSING || mode == UFFD_MODE_MINOR,
		    "uffd_region_init: mode %s", uffd_mode_name(mode));
	TEST_ASSERT(page_size && !(page_size & (page_size - 1)) && size &&
		    IS_ALIGNED(size, page_size) && IS_ALIGNED((uint64_t)(uintptr_t)hva, page_size),
		    "uffd_region_init: range %p + 0x%llx not aligned to page size 0x%llx", hva,
		    (unsigned long long)size, (unsigned long long)page_size);
	TEST_ASSERT(mode != UFFD_MODE_MINOR || alias,
		    "uffd_region_init: MINOR needs an alias mapping of the same pages");
	TEST_ASSERT(mode != UFFD_MODE_MISSING || src,
		    "uffd_region_init: MISSING needs a page source");

	memset(r, 0, sizeof(*r));
	r->uffd = -1;
	r->stop_fd = -1;
	r->mode = mode;
	r->hva = hva;
	r->alias = alias;
	r->size = size;
	r->page_size = page_size;
	r->src = src;
	r->src_off = src_off;
	r->delay_us = delay_us;
	r->resolve_count = calloc(size / page_size, 1);
	TEST_ASSERT(r->resolve_count, "out of memory for %llu resolve counts",
		    (unsigned long long)(size / page_size));
	/* The constant source's one page, made before any reader can ask for it. */
	if (mode == UFFD_MODE_MISSING)
		page_source_prototype(src, page_size);

	if (mode == UFFD_MODE_MINOR) {
		/* The page cache gets the content; hva keeps no PTEs. */
		for (off = 0; src && off < size; off += UFFD_FILL_CHUNK) {
			uint64_t len = size - off < UFFD_FILL_CHUNK ? size - off : UFFD_FILL_CHUNK;

			page_source_read(src, src_off + off, alias + off, len);
		}
		if (!src)
			for (off = 0; off < size; off += page_size)
				alias[off] = 0;	/* allocate the page: MINOR needs one */
		TEST_ASSERT(!madvise(hva, size, MADV_DONTNEED),
			    "madvise(%p, 0x%llx, MADV_DONTNEED) on the MINOR range failed", hva,
			    (unsigned long long)size);
	}

	/* Only a shared hugetlbfs mapping has pages larger than the base page here. */
	hugetlb = mode == UFFD_MODE_MINOR && page_size > (uint64_t)getpagesize();
	r->uffd = uffd_open(mode, hugetlb);

	reg.range.start = (uint64_t)(uintptr_t)hva;
	reg.range.len = size;
	reg.mode = mode == UFFD_MODE_MISSING ? UFFDIO_REGISTER_MODE_MISSING :
					       UFFDIO_REGISTER_MODE_MINOR;
	TEST_ASSERT(!ioctl(r->uffd, UFFDIO_REGISTER, &reg),
		    "UFFDIO_REGISTER %s of [%p, +0x%llx) failed (MINOR needs shmem or hugetlbfs)",
		    uffd_mode_name(mode), hva, (unsigned long long)size);
	need = mode == UFFD_MODE_MISSING ? 1ULL << _UFFDIO_COPY : 1ULL << _UFFDIO_CONTINUE;
	if ((reg.ioctls & need) != need)
		test_skip("userfaultfd: %s not offered for this memory (ioctls 0x%llx)",
			  mode == UFFD_MODE_MISSING ? "UFFDIO_COPY" : "UFFDIO_CONTINUE",
			  (unsigned long long)reg.ioctls);
}

struct uffd_reader {
	struct uffd_region *r;
	struct uffd_fault_stats *st;
	int epfd;
	/* MISSING: content reads of one batch in flight together (libaio). */
	struct page_source_aio *aio;
	void *bufs[UFFD_READ_BATCH];
};

/* One fault of a batch: its page and when its message was read. */
struct uffd_pending {
	uint64_t page;
	struct timespec t0;
};

static void finish_fault(struct uffd_reader *rd, struct uffd_pending *f, void *buf, bool filled)
{
	struct uffd_region *r = rd->r;
	struct uffd_fault_stats *st = rd->st;
	uint64_t ns;

	if (uffd_resolve_page(r, f->page, true, buf, filled, st)) {
		/* Someone else mapped it, maybe without waking: wake ours. */
		uffd_wake(r, f->page);
		st->eexist++;
	} else {
		st->resolved++;
	}
	/* Latency per fault; handler_ns is the batch's wall time (handle_batch). */
	ns = ts_to_ns(ts_elapsed(f->t0));
	uffd_stats_add_latency(st, ns);
	st->faults++;
}

/* Queue the content reads of pend[0..n) and copy each page in as its read completes. */
static void read_and_finish(struct uffd_reader *rd, struct uffd_pending *pend, int n)
{
	struct uffd_region *r = rd->r;
	struct uffd_fault_stats *st = rd->st;
	void *tags[UFFD_READ_BATCH];
	struct timespec t;

	/* Queuing the reads is source time too (a zero/pattern "read" happens here). */
	t = ts_now();
	for (int i = 0; i < n; i++)
		page_source_aio_submit(rd->aio, r->src_off + (pend[i].page -
							     (uint64_t)(uintptr_t)r->hva),
				       rd->bufs[i], r->page_size, &pend[i]);
	st->source_ns += ts_to_ns(ts_elapsed(t));
	for (int done = 0; done < n;) {
		int got;

		t = ts_now();
		got = page_source_aio_reap(rd->aio, 1, n - done, tags);
		st->source_ns += ts_to_ns(ts_elapsed(t));
		for (int k = 0; k < got; k++) {
			struct uffd_pending *f = tags[k];

			finish_fault(rd, f, rd->bufs[f - pend], true);
		}
		done += got;
	}
}

/*
 * Resolve the n fault messages read at once.  MISSING: every page's content
 * read is queued, and each page is copied in as its read completes; MINOR:
 * CONTINUE each.  With -d, one fault after another, as upstream's handler
 * does: each waits its own delay and is resolved before the next one's
 * begins, and its latency runs from the start of its own handling.
 */
static void resolve_batch(struct uffd_reader *rd, const struct uffd_msg *msgs, int n,
			  struct timespec t0)
{
	struct uffd_region *r = rd->r;
	struct uffd_fault_stats *st = rd->st;
	struct uffd_pending pend[UFFD_READ_BATCH];
	struct timespec t;

	for (int i = 0; i < n; i++) {
		if (msgs[i].event != UFFD_EVENT_PAGEFAULT)
			TEST_FAIL("unexpected userfaultfd event 0x%x", msgs[i].event);
		pend[i].page = uffd_page_of(r, msgs[i].arg.pagefault.address);
		pend[i].t0 = t0;
		if (!r->delay_us)
			continue;
		pend[i].t0 = t = ts_now();
		usleep(r->delay_us);
		st->delay_ns += ts_to_ns(ts_elapsed(t));
		if (rd->aio)
			read_and_finish(rd, &pend[i], 1);
		else
			finish_fault(rd, &pend[i], NULL, false);
	}
	if (r->delay_us)
		return;
	if (rd->aio)
		read_and_finish(rd, pend, n);
	else
		for (int i = 0; i < n; i++)
			finish_fault(rd, &pend[i], NULL, false);
}

/* handler_ns is wall time, counted once per batch (per-fault latencies overlap). */
static void handle_batch(struct uffd_reader *rd, const struct uffd_msg *msgs, int n,
			 struct timespec t0)
{
	resolve_batch(rd, msgs, n, t0);
	rd->st->handler_ns += ts_to_ns(ts_elapsed(t0));
}

static void *uffd_reader_main(void *arg)
{
	struct uffd_reader *rd = arg;
	struct uffd_region *r = rd->r;
	struct uffd_msg msgs[UFFD_READ_BATCH];

	/* Content to read per fault (not the constant source's one page): queued with aio. */
	if (r->mode == UFFD_MODE_MISSING && !page_source_prototype(r->src, r->page_size)) {
		rd->aio = page_source_aio_create(r->src, UFFD_READ_BATCH);
		for (int i = 0; i < UFFD_READ_BATCH; i++)
			TEST_ASSERT(!posix_memalign(&rd->bufs[i], r->page_size < 4096 ? 4096 :
						    r->page_size, r->page_size),
				    "posix_memalign(%llu bytes) failed",
				    (unsigned long long)r->page_size);
	}

	for (;;) {
		struct epoll_event ev[2];
		bool stop = false, ready = false;
		struct timespec t0;
		ssize_t n;
		int i, nev;

		nev = epoll_wait(rd->epfd, ev, 2, -1);
		if (nev < 0) {
			if (errno == EINTR)
				continue;
			TEST_FAIL("epoll_wait on the userfaultfd reader's set failed");
		}
		for (i = 0; i < nev; i++) {
			if (ev[i].data.fd == r->stop_fd)
				stop = true;
			else if (ev[i].events & (EPOLLERR | EPOLLHUP))
				TEST_FAIL("userfaultfd reported events 0x%x", ev[i].events);
			else
				ready = true;
		}
		if (stop)
			break;
		if (!ready)
			continue;

		t0 = ts_now();
		n = read(r->uffd, msgs, sizeof(msgs));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;	/* another reader took it */
			TEST_FAIL("read from the userfaultfd failed");
		}
		rd->st->read_ns += ts_to_ns(ts_elapsed(t0));
		TEST_ASSERT(n % sizeof(msgs[0]) == 0, "short read of %zd bytes from the userfaultfd",
			    n);
		handle_batch(rd, msgs, n / sizeof(msgs[0]), t0);
	}

	if (rd->aio)
		page_source_aio_destroy(rd->aio);
	for (int i = 0; i < UFFD_READ_BATCH; i++)
		free(rd->bufs[i]);
	close(rd->epfd);
	free(rd);
	return NULL;
}

void uffd_region_start(struct uffd_region *r, int nr_readers)
{
	int i;

	TEST_ASSERT(nr_readers >= 1, "uffd_region_start: %d readers", nr_readers);
	TEST_ASSERT(r->uffd >= 0 && !r->readers, "uffd_region_start: region %s",
		    r->readers ? "already started" : "not initialised or stopped");

	r->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	TEST_ASSERT(r->stop_fd >= 0, "eventfd failed");
	r->readers = calloc(nr_readers, sizeof(*r->readers));
	r->reader_stats = calloc(nr_readers, sizeof(*r->reader_stats));
	TEST_ASSERT(r->readers && r->reader_stats, "out of memory for %d readers", nr_readers);

	for (i = 0; i < nr_readers; i++) {
		struct epoll_event ev = { 0 };
		struct uffd_reader *rd = calloc(1, sizeof(*rd));
		int err;

		TEST_ASSERT(rd, "out of memory");
		rd->r = r;
		rd->st = &r->reader_stats[i];
		rd->epfd = epoll_create1(EPOLL_CLOEXEC);
		TEST_ASSERT(rd->epfd >= 0, "epoll_create1 failed");
		ev.events = EPOLLIN | EPOLLEXCLUSIVE;
		ev.data.fd = r->uffd;
		TEST_ASSERT(!epoll_ctl(rd->epfd, EPOLL_CTL_ADD, r->uffd, &ev),
			    "epoll_ctl(ADD, userfaultfd, EPOLLIN | EPOLLEXCLUSIVE) failed");
		ev.events = EPOLLIN;
		ev.data.fd = r->stop_fd;
		TEST_ASSERT(!epoll_ctl(rd->epfd, EPOLL_CTL_ADD, r->stop_fd, &ev),
			    "epoll_ctl(ADD, stop eventfd) failed");
		err = pthread_create(&r->readers[i], NULL, uffd_reader_main, rd);
		errno = err;
		TEST_ASSERT(!err, "pthread_create for userfaultfd reader %d failed", i);
		r->nr_readers = i + 1;
	}
}

void uffd_region_stop(struct uffd_region *r)
{
	int i;

	if (r->stop_fd >= 0) {
		uint64_t one = 1;

		TEST_ASSERT(write(r->stop_fd, &one, sizeof(one)) == sizeof(one),
			    "write to the readers' stop eventfd failed");
		for (i = 0; i < r->nr_readers; i++) {
			int err = pthread_join(r->readers[i], NULL);

			errno = err;
			TEST_ASSERT(!err, "pthread_join of userfaultfd reader %d failed", i);
		}
		close(r->stop_fd);
		r->stop_fd = -1;
	}
	if (r->uffd >= 0) {
		close(r->uffd);
		r->uffd = -1;
	}
}

void uffd_region_free(struct uffd_region *r)
{
	int i;

	uffd_region_stop(r);
	for (i = 0; r->reader_stats && i < r->nr_readers; i++)
		free(r->reader_stats[i].latency_ns);
	free(r->reader_stats);
	free(r->readers);
	free(r->resolve_count);
	r->reader_stats = NULL;
	r->readers = NULL;
	r->resolve_count = NULL;
	r->nr_readers = 0;
}

void uffd_stats_add(struct uffd_fault_stats *sum, const struct uffd_fault_stats *st)
{
	uint64_t n = st->latency_ns ? st->latency_nr : 0;

	sum->faults += st->faults;
	sum->resolved += st->resolved;
	sum->eexist += st->eexist;
	sum->handler_ns += st->handler_ns;
	sum->ioctl_ns += st->ioctl_ns;
	sum->read_ns += st->read_ns;
	sum->source_ns += st->source_ns;
	sum->delay_ns += st->delay_ns;
	if (!n)
		return;
	sum->latency_ns = realloc(sum->latency_ns, (sum->latency_nr + n) * sizeof(uint64_t));
	TEST_ASSERT(sum->latency_ns, "out of memory for %llu latencies",
		    (unsigned long long)(sum->latency_nr + n));
	memcpy(sum->latency_ns + sum->latency_nr, st->latency_ns, n * sizeof(uint64_t));
	sum->latency_nr += n;
	sum->latency_cap = sum->latency_nr;
}

void uffd_stats_drop_latencies(struct uffd_fault_stats *st)
{
	free(st->latency_ns);
	st->latency_ns = NULL;
	st->latency_nr = st->latency_cap = 0;
}

void uffd_region_stats(const struct uffd_region *r, struct uffd_fault_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; r->reader_stats && i < r->nr_readers; i++)
		uffd_stats_add(sum, &r->reader_stats[i]);
}

void uffd_region_check_counts(const struct uffd_region *r, uint64_t *unresolved,
			      uint64_t *multiple)
{
	uint64_t i, pages = r->size / r->page_size;

	*unresolved = 0;
	*multiple = 0;
	for (i = 0; r->resolve_count && i < pages; i++) {
		uint8_t c = __atomic_load_n(&r->resolve_count[i], __ATOMIC_RELAXED);

		if (!c)
			(*unresolved)++;
		else if (c > 1)
			(*multiple)++;
	}
}
