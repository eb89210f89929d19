// SPDX-License-Identifier: GPL-2.0
/*
 * Host knobs changed by the suite, and putting them back.
 *
 * Each change gets one slot in a static table the first time it is made:
 * the slot holds the path, its kind and what undoing it needs (the original
 * text of a file, the amount added to a counter, the "-:group/event" line
 * for a dynamic event).  host_state_restore() walks the table backwards and
 * undoes every active slot with open/write/close/rmdir/umount2 only, so the
 * same function serves the atexit handler and the fatal-signal handlers.
 * Going backwards means a directory made inside a mount we made is removed
 * before the unmount.
 *
 * A slot is filled completely before it is published (count or active is
 * bumped after a signal fence), so a signal arriving mid-update never sees a
 * half-written slot.  Slots remember the pid that made the change: a child
 * forked after the change inherits the table but does not undo its parent's
 * changes when it exits.  Changes are made from one thread at a time (the
 * main thread, in practice); restoring may happen in any thread.
 *
 * The table dies with a SIGKILL, so every change is also journaled before it
 * is made, and marked done when undone here: that is lib/host_journal.c,
 * which also undoes what dead processes' journals still hold.  Undoing one
 * change, and the order of undoing, are lib/host_undo.c's, shared by both.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_journal.h"
#include "host_state.h"
#include "host_undo.h"

#define HOST_STATE_MAX_ENTRIES	64

static struct host_state_entry entries[HOST_STATE_MAX_ENTRIES];
static volatile sig_atomic_t nr_entries;
static bool handlers_installed;

/* Signals after which the host is put back before the process dies. */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGABRT, SIGBUS };

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

/*
 * Async-signal-safe: a slot of ours is no longer changed.  Its journal
 * record is marked done (the journal removed once nothing in it is left to
 * undo).
 */
static void entry_retire(struct host_state_entry *e)
{
	e->active = 0;
	publish_barrier();
	hs_journal_done(e);
}

/* Async-signal-safe: put one slot back. */
static void entry_restore(struct host_state_entry *e)
{
	if (hs_undo(e->kind, e->path, e->orig, e->orig_len, e->delta) < 0)
		warn_restore_failed(e->path);
}

static enum hs_kind entry_kind(void *ctx, int i)
{
	return entries[i].kind;
}

/* Async-signal-safe: put slot i back if this process holds it. */
static void entry_undo(void *ctx, int i)
{
	struct host_state_entry *e = &entries[i];

	if (!e->active || e->owner != *(pid_t *)ctx)
		return;
	entry_restore(e);
	entry_retire(e);
}

void host_state_restore(void)
{
	int saved_errno = errno;
	pid_t self = getpid();

	hs_undo_in_order(nr_entries, entry_kind, entry_undo, &self);
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

/* ---- recording changes ------------------------------------------------------ */

/* The slot of path (for a dynamic event: of path and that event), if any. */
static struct host_state_entry *entry_find(const char *path, const char *undo_line)
{
	int i;

	for (i = 0; i < nr_entries; i++) {
		struct host_state_entry *e = &entries[i];

		if (strcmp(e->path, path) || (e->kind == HS_DYNEVENT) != !!undo_line)
			continue;
		if (!undo_line || !strcmp(e->orig, undo_line))
			return e;
	}
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
 * Record a change of kind to path (event: the group/event of HS_DYNEVENT;
 * ask, before: what HS_DELTA asks for and the value before) unless this
 * process already holds it, and journal it.  Returns the slot and whether it
 * was newly activated, or NULL with errno.
 */
static struct host_state_entry *entry_record(const char *path, enum hs_kind kind,
					     const char *event, uint64_t ask, uint64_t before,
					     bool *fresh)
{
	char undo_line[HOST_STATE_VALUE_MAX] = "";
	struct host_state_entry *e;
	bool new_slot = false;
	ssize_t len = 0;

	*fresh = false;
	if (strlen(path) >= HOST_STATE_PATH_MAX ||
	    (event && snprintf(undo_line, sizeof(undo_line), "-:%s\n", event) >=
		      (int)sizeof(undo_line))) {
		errno = ENAMETOOLONG;
		return NULL;
	}

	e = entry_find(path, event ? undo_line : NULL);
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
	if (kind == HS_WRITE) {
		len = read_original(path, e->orig, sizeof(e->orig));
		if (len < 0) {
			errno = -len;
			return NULL;
		}
	} else if (kind == HS_DYNEVENT) {
		len = strlen(undo_line);
		memcpy(e->orig, undo_line, len + 1);
	}
	strcpy(e->path, path);
	e->orig_len = len;
	e->kind = kind;
	e->delta = 0;
	e->owner = getpid();
	hs_journal_record(e, ask, before);
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
	hs_journal_prepare();
	e = entry_record(path, HS_WRITE, NULL, 0, 0, &fresh);
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
		entry_retire(e);
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

	hs_journal_prepare();		/* recovery first: it may lower the count */
	ret = host_read_u64(path, &before);
	if (ret)
		return ret;
	e = entry_record(path, HS_DELTA, NULL, delta, before, &fresh);
	if (!e)
		return -errno;
	if (e->kind != HS_DELTA)
		return -EBUSY;		/* changed absolutely already: not both */
	if (!fresh)
		hs_journal_delta(e, false, delta, before);
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
	hs_journal_delta(e, true, e->delta, 0);
	if (fresh && !e->delta)
		entry_retire(e);
	if (now)
		*now = after;
	return ret ? (ret < 0 ? ret : -EIO) : 0;
}

int host_meminfo_read(const char *field, uint64_t *bytes)
{
	size_t flen = strlen(field);
	unsigned long long kb;
	char line[128];
	int ret = -ENOENT;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, flen) && line[flen] == ':' &&
		    sscanf(line + flen + 1, "%llu kB", &kb) == 1) {
			*bytes = (uint64_t)kb << 10;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int host_vmstat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

uint64_t host_meminfo_bytes(const char *field)
{
	uint64_t bytes;

	return host_meminfo_read(field, &bytes) ? 0 : bytes;
}

/* Remember a directory to rmdir (HS_DIR) or a mount to undo (HS_MOUNT). */
static int track_path(const char *path, enum hs_kind kind)
{
	struct stat st;
	bool fresh;

	hs_journal_prepare();
	/* A directory may be tracked just before its mkdir: the journal has it first. */
	if (stat(path, &st)) {
		if (errno != ENOENT || kind != HS_DIR)
			return -errno;
	} else if (!S_ISDIR(st.st_mode)) {
		return -ENOTDIR;
	}
	if (!entry_record(path, kind, NULL, 0, 0, &fresh))
		return -errno;
	return 0;
}

int host_state_track_dir(const char *path)
{
	return track_path(path, HS_DIR);
}

int host_state_track_mount(const char *path)
{
	return track_path(path, HS_MOUNT);
}

int host_state_track_dynevent(const char *dynamic_events_path, const char *group_event)
{
	const char *slash = strchr(group_event, '/');
	struct stat st;
	bool fresh;

	/* One "group/event" word: it goes into "-:group/event\n" as it is. */
	if (!slash || slash == group_event || !slash[1] || strchr(slash + 1, '/') ||
	    strpbrk(group_event, " \t\n"))
		return -EINVAL;
	hs_journal_prepare();
	if (stat(dynamic_events_path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!entry_record(dynamic_events_path, HS_DYNEVENT, group_event, 0, 0, &fresh))
		return -errno;
	return 0;
}

void host_state_restore_path(const char *path)
{
	pid_t self = getpid();
	int i;

	for (i = nr_entries - 1; i >= 0; i--) {
		struct host_state_entry *e = &entries[i];

		if (e->active && e->owner == self && !strcmp(e->path, path)) {
			entry_restore(e);
			entry_retire(e);
		}
	}
}
