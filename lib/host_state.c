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
 * The table dies with a SIGKILL, so every change is also appended to a
 * journal file of this process before it is made (format in
 * docs/library.md, "Host changes and the crash journal"), and marked done
 * when undone here.  host_state_recover() undoes what dead processes' journals
 * still hold.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_state.h"
#include "test_util.h"

#define HOST_STATE_MAX_ENTRIES	64
#define HOST_STATE_PATH_MAX	256
#define HOST_STATE_VALUE_MAX	512

#define JOURNAL_DEFAULT_DIR	"/run/kvm-mmu-perf/journal"
#define JOURNAL_MAGIC		"kmp-host-state 1"
/* A change line: number, kind, two escaped fields (3 bytes a byte at most). */
#define JOURNAL_LINE_MAX	(3 * (HOST_STATE_PATH_MAX + HOST_STATE_VALUE_MAX) + 64)

enum hs_kind { HS_WRITE, HS_DELTA, HS_DIR, HS_MOUNT, HS_DYNEVENT, HS_NR_KINDS };

/* The kinds' names in the journal. */
static const char *const kind_names[HS_NR_KINDS] = {
	[HS_WRITE] = "write", [HS_DELTA] = "delta", [HS_DIR] = "dir",
	[HS_MOUNT] = "mount", [HS_DYNEVENT] = "dynevent",
};

struct host_state_entry {
	char path[HOST_STATE_PATH_MAX];
	/* HS_WRITE: the original content; HS_DYNEVENT: "-:group/event\n" */
	char orig[HOST_STATE_VALUE_MAX];
	size_t orig_len;
	enum hs_kind kind;
	/*
	 * HS_DELTA, a count we raised (host_state_add_u64): on restore,
	 * subtract what we added from the value then, so concurrent runs
	 * compose.
	 */
	volatile uint64_t delta;
	int jseq;				/* record number in the journal, or -1 */
	pid_t owner;				/* process that made the change */
	volatile sig_atomic_t active;		/* changed and not yet restored */
};

static struct host_state_entry entries[HOST_STATE_MAX_ENTRIES];
static volatile sig_atomic_t nr_entries;
static bool handlers_installed;

/*
 * This process's journal: <dir>/<pid>-<starttime>, made at its first
 * recorded change and unlinked when every record in it is done.  All of it
 * belongs to journal_pid: a forked child starts a journal of its own.
 */
static char journal_path[HOST_STATE_PATH_MAX];	/* "": no journal */
static volatile pid_t journal_pid;
static volatile sig_atomic_t journal_created;	/* the file exists */
static volatile sig_atomic_t journal_live;	/* its records not yet done */
static int journal_next;			/* number of its next record */
static uint64_t journal_start;			/* our start time, for the header */
static bool journal_warned;
static volatile sig_atomic_t journal_keep;	/* KMP_JOURNAL_KEEP=1: never unlinked */
static pid_t recovered_pid;			/* process that ran recovery */

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

/* Async-signal-safe: v in decimal, ending just before end. Returns the start. */
static char *format_u64(char *end, uint64_t v)
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
static ssize_t read_small(const char *path, char *buf, size_t size)
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

	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? n : -EINVAL;
	for (ssize_t k = 0; k < n && buf[k] >= '0' && buf[k] <= '9'; k++)
		v = v * 10 + (buf[k] - '0');
	s = format_u64(out + sizeof(out), v > delta ? v - delta : 0);
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
static int undo(enum hs_kind kind, const char *path, const char *arg, size_t len,
		uint64_t delta)
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

/* Async-signal-safe: append one line to this process's journal. */
static void journal_append(const char *line, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(journal_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	ret = write(fd, line, len);
	(void)ret;
	close(fd);
}

/*
 * Async-signal-safe: a slot of ours is no longer changed.  Mark its record
 * done, and remove the journal once nothing in it is left to undo.
 */
static void entry_retire(struct host_state_entry *e)
{
	char line[32], *s;

	e->active = 0;
	publish_barrier();
	if (e->jseq < 0 || journal_pid != getpid() || !journal_created)
		return;
	line[sizeof(line) - 1] = '\n';
	s = format_u64(line + sizeof(line) - 1, e->jseq);
	memcpy(s - 5, "done ", 5);
	journal_append(s - 5, line + sizeof(line) - (s - 5));
	e->jseq = -1;
	if (!__atomic_sub_fetch(&journal_live, 1, __ATOMIC_SEQ_CST) && !journal_keep) {
		unlink(journal_path);
		journal_created = 0;
	}
}

/* Async-signal-safe: put one slot back. */
static void entry_restore(struct host_state_entry *e)
{
	if (undo(e->kind, e->path, e->orig, e->orig_len, e->delta) < 0)
		warn_restore_failed(e->path);
}

/*
 * Call undo(ctx, i) for i = n-1 down to 0, except that a dynamic event
 * waits for what was made after it: a tracefs instance that has it enabled
 * keeps it from being removed (EBUSY), and instances come after the events
 * they enable.  So each waits until just before the next mount going
 * backwards (the tracefs it lives in), or the end.  Async-signal-safe.
 */
static void undo_in_order(int n, enum hs_kind (*kind)(void *ctx, int i),
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

	undo_in_order(nr_entries, entry_kind, entry_undo, &self);
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

/* ---- the journal --------------------------------------------------------- */

/* Journal fields: bytes outside printable ASCII, space and '%' become %XX. */
static char *escape(char *dst, const char *src, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = src[i];

		if (c > ' ' && c < 0x7f && c != '%') {
			*dst++ = c;
		} else {
			*dst++ = '%';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		}
	}
	*dst = '\0';
	return dst;
}

/* Decode a field in place. Returns its length, or -1 if malformed. */
static ssize_t unescape(char *s)
{
	char *out = s, *start = s, hex[3] = "";

	for (; *s; s++) {
		if (*s != '%') {
			*out++ = *s;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
			return -1;
		memcpy(hex, s + 1, 2);
		*out++ = strtoul(hex, NULL, 16);
		s += 2;
	}
	*out = '\0';
	return out - start;
}

/* The first line of a small file, without its newline ("" if unreadable). */
static void read_first_line(const char *path, char *buf, size_t size)
{
	if (read_small(path, buf, size) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int host_proc_starttime(pid_t pid, uint64_t *start)
{
	char path[32], buf[1024], *p;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? n : -ESRCH;
	/* comm (field 2) may hold spaces and ')': field 3 follows the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -EINVAL;
	p += 2;
	/* A zombie has run its last instruction: as good as gone. */
	if (*p == 'Z' || *p == 'X')
		return -ESRCH;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || !isdigit((unsigned char)*p))
		return -EINVAL;
	*start = strtoull(p, NULL, 10);
	return 0;
}

static const char *journal_dir(void)
{
	const char *dir = getenv("KMP_JOURNAL_DIR");

	return dir && *dir ? dir : JOURNAL_DEFAULT_DIR;
}

/*
 * KMP_JOURNAL_KEEP=1 keeps every journal, its records marked done, when a
 * process or a recoverer would remove it: a test reads from it what a run
 * changed and checks just those knobs.
 */
static bool journal_keep_env(void)
{
	const char *v = getenv("KMP_JOURNAL_KEEP");

	if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
		usage_error("KMP_JOURNAL_KEEP='%s': must be 0 or 1", v);
	return v && !strcmp(v, "1");
}

/* mkdir -p, private: the journals name what this host runs. */
static int mkdir_p(const char *dir)
{
	char buf[HOST_STATE_PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Without a journal the run goes on; say once what a SIGKILL would cost. */
static void journal_warn(const char *what, int err)
{
	if (journal_warned)
		return;
	journal_warned = true;
	fprintf(stderr, "# host_state: no crash journal (%s: %s): a killed run would leave its host changes behind\n",
		what, strerror(err));
}

/*
 * Before this process's first change: undo what dead runs left (so the
 * originals we are about to read are the host's own, not a dead run's), and
 * name our journal.  The file itself comes with the first record.
 */
static void journal_prepare(void)
{
	const char *dir = journal_dir();
	pid_t self = getpid();
	int err, n;

	if (journal_pid == self)
		return;
	if (recovered_pid != self)
		host_state_recover();
	journal_created = 0;
	journal_live = 0;
	journal_next = 0;
	journal_keep = journal_keep_env();
	journal_path[0] = '\0';
	err = mkdir_p(dir);
	if (!err)
		err = host_proc_starttime(self, &journal_start);
	if (!err) {
		n = snprintf(journal_path, sizeof(journal_path), "%s/%d-%" PRIu64, dir, (int)self,
			     journal_start);
		if (n >= (int)sizeof(journal_path)) {
			journal_path[0] = '\0';
			err = -ENAMETOOLONG;
		}
	}
	if (err)
		journal_warn(dir, -err);
	publish_barrier();
	journal_pid = self;
}

/* The journal's first line: whose it is. */
static int journal_create(void)
{
	char line[320], comm[32], boot[48], *p;
	ssize_t n;
	int fd, err;

	fd = open(journal_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	read_first_line("/proc/self/comm", comm, sizeof(comm));
	read_first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	p = line + sprintf(line, JOURNAL_MAGIC " pid=%d start=%" PRIu64 " boot=", (int)getpid(),
			   journal_start);
	p = escape(p, boot, strlen(boot));
	p = stpcpy(p, " comm=");
	p = escape(p, comm, strlen(comm));
	*p++ = '\n';
	n = write(fd, line, p - line);
	err = n < 0 ? -errno : n != p - line ? -EIO : 0;
	close(fd);
	if (err) {
		unlink(journal_path);
		return err;
	}
	journal_next = 0;
	journal_created = 1;
	return 0;
}

/*
 * Journal the change slot e is about to make, before it is made:
 * "<n> <kind> <path> [<original>|<asked> <before>|<group/event>]".
 */
static void journal_record(struct host_state_entry *e, uint64_t ask, uint64_t before)
{
	char line[JOURNAL_LINE_MAX], *p;
	int err;

	e->jseq = -1;
	if (!journal_path[0])
		return;
	if (!journal_created) {
		err = journal_create();
		if (err) {
			journal_warn(journal_path, -err);
			journal_path[0] = '\0';
			return;
		}
	}
	p = line + sprintf(line, "%d %s ", journal_next, kind_names[e->kind]);
	p = escape(p, e->path, strlen(e->path));
	if (e->kind == HS_WRITE) {
		*p++ = ' ';
		p = escape(p, e->orig, e->orig_len);
	} else if (e->kind == HS_DELTA) {
		p += sprintf(p, " %" PRIu64 " %" PRIu64, ask, before);
	} else if (e->kind == HS_DYNEVENT) {
		*p++ = ' ';
		p = escape(p, e->orig + 2, e->orig_len - 3);	/* "-:" event "\n" */
	}
	*p++ = '\n';
	e->jseq = journal_next++;
	/* Counted first: a restore meanwhile must not unlink the journal. */
	__atomic_add_fetch(&journal_live, 1, __ATOMIC_SEQ_CST);
	journal_append(line, p - line);
}

/*
 * A delta's follow-up lines: "ask <n> <asked> <before>" before raising it
 * again, "granted <n> <total>" once the kernel has said how much it gave.
 */
static void journal_delta(const struct host_state_entry *e, bool granted, uint64_t amount,
			  uint64_t before)
{
	char line[80];
	int len;

	if (e->jseq < 0 || e->owner != getpid() || journal_pid != getpid() || !journal_created)
		return;
	if (granted)
		len = snprintf(line, sizeof(line), "granted %d %" PRIu64 "\n", e->jseq, amount);
	else
		len = snprintf(line, sizeof(line), "ask %d %" PRIu64 " %" PRIu64 "\n", e->jseq,
			       amount, before);
	journal_append(line, len);
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
	journal_record(e, ask, before);
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
	journal_prepare();
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

	journal_prepare();		/* recovery first: it may lower the count */
	ret = host_read_u64(path, &before);
	if (ret)
		return ret;
	e = entry_record(path, HS_DELTA, NULL, delta, before, &fresh);
	if (!e)
		return -errno;
	if (e->kind != HS_DELTA)
		return -EBUSY;		/* changed absolutely already: not both */
	if (!fresh)
		journal_delta(e, false, delta, before);
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
	journal_delta(e, true, e->delta, 0);
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

int host_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;
	ssize_t len;

	len = read_small(path, buf, sizeof(buf));
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

/* Remember a directory to rmdir (HS_DIR) or a mount to undo (HS_MOUNT). */
static int track_path(const char *path, enum hs_kind kind)
{
	struct stat st;
	bool fresh;

	journal_prepare();
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
	journal_prepare();
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

/* ---- recovery ---------------------------------------------------------------- */

/* One change record of a dead process's journal, its fields decoded in place. */
struct jrec {
	int kind;			/* -1: no such record */
	bool done;
	char *path, *arg;		/* arg: HS_WRITE's original, HS_DYNEVENT's event */
	size_t arg_len;
	uint64_t granted;		/* HS_DELTA: the last granted total */
	bool asking;			/* HS_DELTA: asked for more, no grant known */
	uint64_t ask, before;
};

struct journal {
	pid_t pid;
	const char *comm, *boot;
	struct jrec *recs;
	int nr;
};

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Record number s of j (made when create); NULL if s is not one. */
static struct jrec *jrec_get(struct journal *j, const char *s, bool create)
{
	struct jrec *recs;
	uint64_t n;

	if (!parse_u64(s, &n) || n > (1 << 16))
		return NULL;
	if (n >= (uint64_t)j->nr) {
		if (!create)
			return NULL;
		recs = realloc(j->recs, (n + 1) * sizeof(*recs));
		if (!recs)
			return NULL;
		for (int i = j->nr; i <= (int)n; i++)
			recs[i] = (struct jrec){ .kind = -1 };
		j->recs = recs;
		j->nr = n + 1;
	}
	return &j->recs[n];
}

/* A field decoded in place; NULL if missing or malformed. */
static char *next_field(char **s, ssize_t *len)
{
	char *f = strsep(s, " ");
	ssize_t n = f ? unescape(f) : -1;

	if (len)
		*len = n;
	return n < 0 ? NULL : f;
}

/* The header's "key=value" fields we use (boot, comm). */
static void parse_header(char *s, struct journal *j)
{
	char *f;

	while ((f = strsep(&s, " "))) {
		if (!strncmp(f, "boot=", 5) && unescape(f + 5) > 0)
			j->boot = f + 5;
		else if (!strncmp(f, "comm=", 5) && unescape(f + 5) > 0)
			j->comm = f + 5;
	}
}

static void parse_line(char *s, struct journal *j)
{
	char *word = strsep(&s, " ");
	struct jrec *r, rec = { 0 };
	uint64_t a, b;
	ssize_t len;
	int kind;

	if (!strcmp(word, "done")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r)
			r->done = true;
	} else if (!strcmp(word, "granted")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r && r->kind == HS_DELTA && parse_u64(strsep(&s, " "), &a)) {
			r->granted = a;
			r->asking = false;
		}
	} else if (!strcmp(word, "ask")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r && r->kind == HS_DELTA && parse_u64(strsep(&s, " "), &a) &&
		    parse_u64(strsep(&s, " "), &b)) {
			r->ask = a;
			r->before = b;
			r->asking = true;
		}
	} else {
		/* "<n> <kind> <path> ...": a change. */
		char *kind_word = strsep(&s, " ");

		for (kind = 0; kind < HS_NR_KINDS; kind++)
			if (kind_word && !strcmp(kind_word, kind_names[kind]))
				break;
		rec.kind = kind;
		rec.path = next_field(&s, &len);
		if (kind == HS_NR_KINDS || !rec.path || !len)
			return;
		if (kind == HS_WRITE || kind == HS_DYNEVENT) {
			rec.arg = next_field(&s, &len);
			if (!rec.arg || (kind == HS_DYNEVENT && !len))
				return;
			rec.arg_len = len;
		} else if (kind == HS_DELTA) {
			if (!parse_u64(strsep(&s, " "), &rec.ask) ||
			    !parse_u64(strsep(&s, " "), &rec.before))
				return;
			rec.asking = true;
		}
		r = jrec_get(j, word, true);
		if (r)
			*r = rec;
	}
}

/* Split a journal into its records; a line with no newline (torn) is ignored. */
static void parse_journal(char *text, struct journal *j)
{
	char *line = text, *nl;

	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		if (line == text) {
			if (strncmp(line, JOURNAL_MAGIC " ", sizeof(JOURNAL_MAGIC)))
				return;		/* not a journal of ours */
			parse_header(line + sizeof(JOURNAL_MAGIC), j);
		} else {
			parse_line(line, j);
		}
		line = nl + 1;
	}
}

/* Undo record n of dead journal j (its file open at fd) and mark it done. */
static int recover_record(const struct journal *j, int fd, int n, const struct jrec *r)
{
	char what[2 * HOST_STATE_VALUE_MAX], line[HOST_STATE_VALUE_MAX];
	const char *arg = r->arg;
	size_t len = r->arg_len;
	uint64_t amount = 0, now;
	int ret, dlen;

	switch (r->kind) {
	case HS_WRITE:
		snprintf(what, sizeof(what), "write of %s", r->path);
		break;
	case HS_DELTA:
		amount = r->granted;
		/*
		 * It died before the kernel's grant was journaled: take what the
		 * counter grew by since, never more than it asked for.
		 */
		if (r->asking && !host_read_u64(r->path, &now) && now > r->before)
			amount += now - r->before < r->ask ? now - r->before : r->ask;
		snprintf(what, sizeof(what), "+%" PRIu64 " on %s", amount, r->path);
		break;
	case HS_DIR:
		snprintf(what, sizeof(what), "mkdir %s", r->path);
		break;
	case HS_MOUNT:
		snprintf(what, sizeof(what), "mount on %s", r->path);
		break;
	default:
		snprintf(what, sizeof(what), "dynamic event %s in %s", r->arg, r->path);
		len = snprintf(line, sizeof(line), "-:%s\n", r->arg);
		if (len >= sizeof(line))
			return -ENAMETOOLONG;
		arg = line;
		break;
	}
	ret = undo(r->kind, r->path, arg, len, amount);
	if (ret > 0)
		fprintf(stderr, "# host_state: undid %s left by pid %d (%s, dead)\n", what,
			(int)j->pid, j->comm);
	else if (ret < 0)
		fprintf(stderr, "# host_state: could not undo %s left by pid %d (%s): %s\n", what,
			(int)j->pid, j->comm, strerror(-ret));
	if (ret >= 0) {
		/* Kept files (see recover_file) must not undo it twice. */
		dlen = snprintf(line, sizeof(line), "done %d\n", n);
		if (write(fd, line, dlen) != dlen)
			fprintf(stderr, "# host_state: could not mark it done: %s\n", strerror(errno));
	}
	return ret;
}

/* Whether the process that wrote journal name still runs (same pid and start time). */
static bool owner_alive(pid_t pid, uint64_t start, const char *name)
{
	uint64_t now;
	int err = host_proc_starttime(pid, &now);

	if (err == -ENOENT || err == -ESRCH)
		return false;
	if (err)
		return true;		/* cannot tell: leave it alone */
	if (now != start)
		return false;		/* the pid now belongs to another process */
	/*
	 * Our own pid and start time: our journal, or one left by the program
	 * this process was before an exec().
	 */
	if (pid == getpid())
		return journal_pid == pid && journal_path[0] &&
		       !strcmp(strrchr(journal_path, '/') + 1, name);
	return true;
}

/* One journal being recovered, for undo_in_order. */
struct recovery {
	const struct journal *j;
	int fd, undone;
	bool keep;
};

static enum hs_kind rec_kind(void *ctx, int i)
{
	const struct recovery *r = ctx;

	/* Unparsed records are skipped by rec_undo whatever they stand for. */
	return r->j->recs[i].kind < 0 ? HS_WRITE : r->j->recs[i].kind;
}

static void rec_undo(void *ctx, int i)
{
	struct recovery *r = ctx;
	const struct jrec *rec = &r->j->recs[i];
	int ret;

	if (rec->kind < 0 || rec->done)
		return;
	ret = recover_record(r->j, r->fd, i, rec);
	r->undone += ret > 0;
	/* Not allowed (not root): leave it for a run that is. */
	r->keep |= ret == -EACCES || ret == -EPERM;
}

/* Undo what journal dir/name holds if its owner is dead. Returns how many. */
static int recover_file(int dfd, const char *name, pid_t pid, uint64_t start,
			const char *boot, bool keep_file)
{
	struct journal j = { .pid = pid, .comm = "?" };
	bool keep = false;
	char *text = NULL;
	struct stat st;
	ssize_t len = 0, got;
	int fd, n = 0;

	if (owner_alive(pid, start, name))
		return 0;
	fd = openat(dfd, name, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* Another recoverer holds it, or has finished with it (unlinked). */
	if (flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &st) || !st.st_nlink ||
	    !S_ISREG(st.st_mode) || st.st_size > (16 << 20))
		goto out;
	text = malloc(st.st_size + 1);
	if (!text)
		goto out;
	while (len < st.st_size && (got = pread(fd, text + len, st.st_size - len, len)) > 0)
		len += got;
	text[len] = '\0';
	parse_journal(text, &j);

	if (j.boot && boot[0] && strcmp(j.boot, boot)) {
		/* A reboot undid its changes already; undoing again would hit the new boot's. */
		fprintf(stderr, "# host_state: dropped the journal of pid %d (%s): from an earlier boot\n",
			(int)pid, j.comm);
	} else {
		struct recovery r = { .j = &j, .fd = fd };

		undo_in_order(j.nr, rec_kind, rec_undo, &r);
		n = r.undone;
		keep = r.keep;
	}
	if (!keep && !keep_file)
		unlinkat(dfd, name, 0);
out:
	free(text);
	free(j.recs);
	close(fd);
	return n;
}

int host_state_recover(void)
{
	bool keep_files = journal_keep_env();
	char boot[48];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	recovered_pid = getpid();
	dir = opendir(journal_dir());
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	read_first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	while ((de = readdir(dir))) {
		unsigned long long start;
		int pid, end = 0;

		/* Only "<pid>-<starttime>", as journal_prepare() names them. */
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    sscanf(de->d_name, "%d-%llu%n", &pid, &start, &end) != 2 ||
		    de->d_name[end] || pid <= 0)
			continue;
		n += recover_file(dirfd(dir), de->d_name, pid, start, boot, keep_files);
	}
	closedir(dir);
	return n;
}
