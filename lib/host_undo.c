// SPDX-License-Identifier: GPL-2.0
/*
 * How one recorded host change is undone: writing a file's original back,
 * subtracting what was added to a counter, rmdir, umount2, removing a
 * dynamic event, and the order that undoing a list of changes must keep.
 * lib/host_state.c restores this process's changes with it, at exit and in
 * fatal-signal handlers, so everything here but host_read_u64() is
 * async-signal-safe (open/read/write/close/rmdir/umount2 only: no stdio, no
 * allocation); lib/host_journal.c undoes what dead processes' journals hold
 * with the same code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include "host_state.h"
#include "host_undo.h"

/* Async-signal-safe: v in decimal, ending just before end. Returns the start. */
char *hs_format_u64(char *end, uint64_t v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

/*
 * Async-signal-safe: up to size - 1 bytes of path into buf, NUL-terminated.
 * Returns the length or -errno.
 */
ssize_t hs_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return n;
}

/* Async-signal-safe: subtract delta from the number in path. Returns 1 or -errno. */
static int counter_subtract(const char *path, uint64_t delta)
{
	char buf[32], out[24], *s;
	uint64_t v = 0;
	ssize_t n;
	int fd, err;

	n = hs_read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? n : -EINVAL;
	for (ssize_t k = 0; k < n && buf[k] >= '0' && buf[k] <= '9'; k++)
		v = v * 10 + (buf[k] - '0');
	s = hs_format_u64(out + sizeof(out), v > delta ? v - delta : 0);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, out + sizeof(out) - s);
	err = n < 0 ? -errno : n != out + sizeof(out) - s ? -EIO : 1;
	close(fd);
	return err;
}

/*
 * Async-signal-safe: undo one change (arg, len: what HS_WRITE writes back or
 * HS_DYNEVENT appends; delta: what HS_DELTA subtracts).  Shared by restore
 * and recovery.  Returns 1 when something was undone, 0 when nothing was
 * left to undo, or -errno.
 */
int hs_undo(enum hs_kind kind, const char *path, const char *arg, size_t len, uint64_t delta)
{
	ssize_t n;
	int fd, ret;

	switch (kind) {
	case HS_DELTA:
		return delta ? counter_subtract(path, delta) : 0;
	case HS_DIR:
		return !rmdir(path) ? 1 : errno == ENOENT ? 0 : -errno;
	case HS_MOUNT:
		/* EINVAL: no longer a mount point (someone unmounted it already). */
		if (!umount2(path, MNT_DETACH))
			return 1;
		return errno == EINVAL || errno == ENOENT ? 0 : -errno;
	case HS_DYNEVENT:
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		break;
	default:
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		break;
	}
	if (fd < 0)
		return -errno;
	/* sysfs, procfs and tracefs want the whole value in a single write(). */
	n = len ? write(fd, arg, len) : 0;
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 1;
	close(fd);
	/* ENOENT from dynamic_events: the event is gone already. */
	return kind == HS_DYNEVENT && ret == -ENOENT ? 0 : ret;
}

/*
 * Call undo(ctx, i) for i = n-1 down to 0, except that a dynamic event
 * waits for what was made after it: a tracefs instance that has it enabled
 * keeps it from being removed (EBUSY), and instances come after the events
 * they enable.  So each waits until just before the next mount going
 * backwards (the tracefs it lives in), or the end.  Async-signal-safe.
 */
void hs_undo_in_order(int n, enum hs_kind (*kind)(void *ctx, int i),
		      void (*undo)(void *ctx, int i), void *ctx)
{
	int hi = n;

	for (int i = n - 1; i >= -1; i--) {
		enum hs_kind k = i >= 0 ? kind(ctx, i) : HS_MOUNT;

		if (k == HS_DYNEVENT)
			continue;
		if (k != HS_MOUNT) {
			undo(ctx, i);
			continue;
		}
		for (int d = hi - 1; d > i; d--)
			if (kind(ctx, d) == HS_DYNEVENT)
				undo(ctx, d);
		hi = i;
		if (i >= 0)
			undo(ctx, i);
	}
}

/*
 * Not async-signal-safe (strtoull).  Public, declared in host_state.h; it
 * lives here, on hs_read_small(), because recovery reads a counter with it
 * as recording does.
 */
int host_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;
	ssize_t len;

	len = hs_read_small(path, buf, sizeof(buf));
	if (len < 0)
		return len;

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
