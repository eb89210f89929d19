// SPDX-License-Identifier: GPL-2.0
/*
 * Host knobs changed by the suite, and putting them back.
 *
 * Each path gets one slot in a static table the first time it is changed:
 * the slot holds the path and its original text (or "rmdir me" for a
 * tracked directory, "unmount me" for a tracked mount).  host_state_restore()
 * walks the table backwards and undoes every active slot with
 * open/write/close/rmdir/umount2 only, so the same function serves the
 * atexit handler and the fatal-signal handlers.  Going backwards means a
 * directory made inside a mount we made is removed before the unmount.
 *
 * A slot is filled completely before it is published (count or active is
 * bumped after a signal fence), so a signal arriving mid-update never sees a
 * half-written slot.  Slots remember the pid that made the change: a child
 * forked after the change inherits the table but does not undo its parent's
 * changes when it exits.  Changes are made from one thread at a time (the
 * main thread, in practice); restoring may happen in any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_state.h"

#define HOST_STATE_MAX_ENTRIES	64
#define HOST_STATE_PATH_MAX	256
#define HOST_STATE_VALUE_MAX	512

struct host_state_entry {
	char path[HOST_STATE_PATH_MAX];
	char orig[HOST_STATE_VALUE_MAX];	/* original content (files only) */
	size_t orig_len;
	bool is_dir;				/* rmdir on restore */
	bool is_mount;				/* umount2(MNT_DETACH) on restore */
	/*
	 * A count we raised (host_state_add_u64): on restore, subtract what we
	 * added from the value then, so concurrent runs compose.
	 */
	bool is_delta;
	volatile uint64_t delta;
	pid_t owner;				/* process that made the change */
	volatile sig_atomic_t active;		/* changed and not yet restored */
};

static struct host_state_entry entries[HOST_STATE_MAX_ENTRIES];
static volatile sig_atomic_t nr_entries;
static bool handlers_installed;

/* Signals after which the host is put back before the process dies. */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGABRT, SIGBUS };

/* Keep the compiler from moving slot stores past the publishing store. */
#define publish_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Async-signal-safe: write a fixed message and a path to stderr. */
static void warn_restore_failed(const char *path)
{
	static const char msg[] = "host_state: could not restore ";
	ssize_t ret;

	ret = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	ret = write(STDERR_FILENO, path, strlen(path));
	ret = write(STDERR_FILENO, "\n", 1);
	(void)ret;
}

/* Async-signal-safe: subtract e->delta from the number in e->path. */
static void delta_restore(struct host_state_entry *e)
{
	char buf[32], out[24];
	uint64_t v = 0;
	ssize_t n;
	int fd, i = sizeof(out);

	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		warn_restore_failed(e->path);
		return;
	}
	for (ssize_t k = 0; k < n && buf[k] >= '0' && buf[k] <= '9'; k++)
		v = v * 10 + (buf[k] - '0');
	v = v > e->delta ? v - e->delta : 0;
	do {
		out[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	fd = open(e->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, out + i, sizeof(out) - i) != (ssize_t)(sizeof(out) - i))
		warn_restore_failed(e->path);
	if (fd >= 0)
		close(fd);
}

/* Async-signal-safe: put one slot back. */
static void entry_restore(struct host_state_entry *e)
{
	int fd;

	if (e->is_delta) {
		delta_restore(e);
		return;
	}
	if (e->is_dir) {
		if (rmdir(e->path) && errno != ENOENT)
			warn_restore_failed(e->path);
		return;
	}
	if (e->is_mount) {
		/* EINVAL: no longer a mount point (someone unmounted it already). */
		if (umount2(e->path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
			warn_restore_failed(e->path);
		return;
	}

	fd = open(e->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		warn_restore_failed(e->path);
		return;
	}
	/* sysfs and procfs want the whole value in a single write(). */
	if (e->orig_len && write(fd, e->orig, e->orig_len) != (ssize_t)e->orig_len)
		warn_restore_failed(e->path);
	close(fd);
}

void host_state_restore(void)
{
	int saved_errno = errno;
	pid_t self = getpid();
	int i;

	for (i = nr_entries - 1; i >= 0; i--) {
		struct host_state_entry *e = &entries[i];

		if (!e->active || e->owner != self)
			continue;
		entry_restore(e);
		e->active = 0;
	}
	errno = saved_errno;
}

int host_state_pending(void)
{
	pid_t self = getpid();
	int i, n = 0;

	for (i = 0; i < nr_entries; i++)
		n += entries[i].active && entries[i].owner == self;
	return n;
}

static void atexit_restore(void)
{
	host_state_restore();
}

/*
 * SA_RESETHAND has already put back the default action, and the signal stays
 * blocked until we return, so raise() makes the process die of this signal
 * right after the handler: the parent still sees "killed by SIGxxx".  For a
 * fault (SIGSEGV, SIGBUS) the faulting instruction would also re-fault.
 */
static void fatal_signal_restore(int sig)
{
	host_state_restore();
	raise(sig);
}

/*
 * Once per process: restore at exit() and on fatal signals.  A signal that is
 * ignored (nohup, background jobs) or already has a handler is left alone;
 * its owner decides, and exit() still reaches the atexit handler.
 */
static void install_handlers(void)
{
	struct sigaction sa, old;
	size_t i;

	if (handlers_installed)
		return;
	handlers_installed = true;

	atexit(atexit_restore);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fatal_signal_restore;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		if (sigaction(fatal_signals[i], NULL, &old))
			continue;
		if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static struct host_state_entry *entry_find(const char *path)
{
	int i;

	for (i = 0; i < nr_entries; i++)
		if (!strcmp(entries[i].path, path))
			return &entries[i];
	return NULL;
}

/*
 * Read what a file holds now.  Files that show a choice with the current one
 * in brackets ("always [madvise] never") only accept the bare word back, so
 * keep just that word.  Returns the length or -errno.
 */
static ssize_t read_original(const char *path, char *buf, size_t size)
{
	char *open_br, *close_br;
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size);
	if (len < 0) {
		len = -errno;
	} else if ((size_t)len == size) {
		len = -EFBIG;			/* too long to store and put back */
	} else {
		buf[len] = '\0';
		open_br = strchr(buf, '[');
		close_br = open_br ? strchr(open_br, ']') : NULL;
		if (close_br) {
			len = close_br - open_br - 1;
			memmove(buf, open_br + 1, len);
			buf[len] = '\0';
		}
	}
	close(fd);
	return len;
}

/*
 * Record path's original content unless this process already holds it.
 * Returns the slot and whether it was newly activated, or NULL with errno.
 */
static struct host_state_entry *entry_record(const char *path, bool is_dir, bool is_mount,
					     bool *fresh)
{
	struct host_state_entry *e;
	bool new_slot = false;
	ssize_t len = 0;

	*fresh = false;
	if (strlen(path) >= HOST_STATE_PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}

	e = entry_find(path);
	if (e && e->active)
		return e;		/* already holds the original */

	if (!e) {
		if (nr_entries >= HOST_STATE_MAX_ENTRIES) {
			errno = ENOSPC;
			return NULL;
		}
		e = &entries[nr_entries];
		new_slot = true;
	}

	/* The slot is inactive (or not yet counted): a signal ignores it. */
	if (!is_dir && !is_mount) {
		len = read_original(path, e->orig, sizeof(e->orig));
		if (len < 0) {
			errno = -len;
			return NULL;
		}
	}
	strcpy(e->path, path);
	e->orig_len = len;
	e->is_dir = is_dir;
	e->is_mount = is_mount;
	e->is_delta = false;
	e->delta = 0;
	e->owner = getpid();
	publish_barrier();
	e->active = 1;
	publish_barrier();
	if (new_slot)
		nr_entries = nr_entries + 1;

	install_handlers();
	*fresh = true;
	return e;
}

int host_state_write(const char *path, const char *value)
{
	struct host_state_entry *e;
	size_t len = strlen(value);
	ssize_t written;
	bool fresh;
	int fd, err;

	/*
	 * Record before writing, so a signal between the write and the
	 * bookkeeping still restores.  If the write fails the file is
	 * unchanged and the fresh record is dropped again.
	 */
	e = entry_record(path, false, false, &fresh);
	if (!e)
		return -errno;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	written = write(fd, value, len);
	if (written != (ssize_t)len) {
		if (written >= 0)
			errno = EIO;
		err = errno;
		close(fd);
		errno = err;
		goto fail;
	}
	if (close(fd))
		goto fail;
	return 0;

fail:
	err = errno;
	if (fresh)
		e->active = 0;
	return -err;
}

int host_state_write_u64(const char *path, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	return host_state_write(path, buf);
}

int host_state_add_u64(const char *path, uint64_t delta, uint64_t *now)
{
	struct host_state_entry *e;
	uint64_t before, after;
	bool fresh;
	char buf[24];
	int fd, ret;

	ret = host_read_u64(path, &before);
	if (ret)
		return ret;
	e = entry_record(path, false, false, &fresh);
	if (!e)
		return -errno;
	if (fresh || !e->is_delta) {
		if (!fresh)
			return -EBUSY;	/* changed absolutely already: not both */
		e->is_delta = true;
		e->delta = 0;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, before + delta);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ret = fd < 0 || write(fd, buf, strlen(buf)) != (ssize_t)strlen(buf) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	/* The kernel may grant less than asked: count only what it granted. */
	if (host_read_u64(path, &after))
		after = before;
	if (after > before)
		e->delta = e->delta + (after - before);
	if (fresh && !e->delta)
		e->active = 0;
	if (now)
		*now = after;
	return ret ? (ret < 0 ? ret : -EIO) : 0;
}

uint64_t host_meminfo_bytes(const char *field)
{
	size_t flen = strlen(field);
	unsigned long long kb;
	uint64_t bytes = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, flen) && line[flen] == ':' &&
		    sscanf(line + flen + 1, "%llu kB", &kb) == 1) {
			bytes = (uint64_t)kb << 10;
			break;
		}
	}
	fclose(f);
	return bytes;
}

int host_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	buf[len] = '\0';

	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || buf[0] == '-')
		return -EINVAL;
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Remember a directory to rmdir (dir) or a mount to undo (mount) at restore. */
static int track_path(const char *path, bool dir, bool mount)
{
	struct stat st;
	bool fresh;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (!entry_record(path, dir, mount, &fresh))
		return -errno;
	return 0;
}

int host_state_track_dir(const char *path)
{
	return track_path(path, true, false);
}

int host_state_track_mount(const char *path)
{
	return track_path(path, false, true);
}

void host_state_restore_path(const char *path)
{
	struct host_state_entry *e = entry_find(path);

	if (e && e->active && e->owner == getpid()) {
		entry_restore(e);
		e->active = 0;
	}
}
