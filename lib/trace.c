// SPDX-License-Identifier: GPL-2.0
/*
 * A private tracefs instance for kvm/kvmmmu events.
 *
 * trace_open() finds a mounted tracefs (or debugfs's tracing directory),
 * mounting tracefs at /sys/kernel/tracing when there is none, and makes the
 * instance <root>/instances/kmp-<pid>-<n>.  Both are recorded in host_state
 * the moment they exist (with SIGINT/SIGTERM/SIGHUP blocked in between), so
 * exit and fatal signals remove the instance and then undo the mount, in
 * that order.  trace_close() removes the instance at once, and unmounts
 * tracefs at once when it closes the last instance of a mount this process
 * made.
 *
 * A tracefs instance cannot be removed while one of its files is open
 * (EBUSY).  trace_read() keeps "trace" open only while it reads, with the
 * fatal signals blocked in its thread; a signal taken by another thread in
 * that window leaves the instance behind.
 *
 * Opening, closing and reading happen in one thread at a time.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_state.h"
#include "interrupt.h"
#include "trace.h"

#define TRACEFS_PATH		"/sys/kernel/tracing"
#define DEBUGFS_TRACING		"tracing"	/* under a debugfs mount */

/*
 * Per-CPU ring buffer size.  A prepare_zap_page record is about 40 bytes, so
 * 8 MiB holds some 200000 of them; the total stays under TRACE_BUF_TOTAL_KB
 * on hosts with many CPUs, and a host short of memory gets what it can.
 */
#define TRACE_BUF_KB		8192
#define TRACE_BUF_MIN_KB	1024
#define TRACE_BUF_TOTAL_KB	(256 * 1024)

/* Longest trace line parsed; longer ones are skipped. */
#define TRACE_LINE_MAX		1024

static const char no_events_why[] =
	"no kvmmmu events in tracefs (CONFIG_FTRACE? kvm module tracepoints)";

/* Instances of this process that still exist. */
static int nr_live;
/*
 * Held around every use of an instance's files.  An interrupt takes it for
 * good (trace_quiesce): the instance is removed only once no file of it is
 * open, and nothing touches it afterwards.
 */
static pthread_mutex_t trace_mutex = PTHREAD_MUTEX_INITIALIZER;

static void trace_quiesce(void)
{
	pthread_mutex_lock(&trace_mutex);
}

/* A tracefs mount this process made (tracked in host_state), or "". */
static char our_mount[sizeof(((struct trace *)0)->root)];
/* Instance names are never reused in a process: each gets a fresh host_state slot. */
static unsigned int next_instance;

static void __attribute__((format(printf, 3, 4)))
set_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The signals host_state restores on, blocked while a change is not yet recorded. */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void unblock_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Write a short value to a tracefs file in one write(). Returns 0 or -errno. */
static int write_file(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* "<dir>/<name>" into buf; false if it does not fit. */
static bool join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n >= 0 && (size_t)n < len;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A usable tracing root has an instances directory. */
static bool has_instances(const char *root)
{
	char path[512];

	return join(path, sizeof(path), root, "instances") && is_dir(path);
}

/*
 * A mounted tracefs from /proc/self/mounts, /sys/kernel/tracing preferred;
 * else debugfs's tracing directory.  Returns 0 with the root, or -1.
 */
static int find_tracefs(char *root, size_t len)
{
	char buf[1024], debug_tracing[512] = "";
	struct mntent ent, *m;
	bool found = false;
	FILE *f;

	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return -1;
	while ((m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			/* Another run's private mount goes away with that run: never use one. */
			if (strlen(m->mnt_dir) >= len || !has_instances(m->mnt_dir) ||
			    !strncmp(m->mnt_dir, "/tmp/kmp-tracefs-", 17))
				continue;
			if (!found || !strcmp(m->mnt_dir, TRACEFS_PATH))
				strcpy(root, m->mnt_dir);
			found = true;
		} else if (!strcmp(m->mnt_type, "debugfs") && !debug_tracing[0]) {
			if (!join(debug_tracing, sizeof(debug_tracing), m->mnt_dir,
				  DEBUGFS_TRACING))
				debug_tracing[0] = '\0';
		}
	}
	endmntent(f);
	if (found)
		return 0;
	/* Looking into it automounts tracefs there (not ours to undo). */
	if (debug_tracing[0] && strlen(debug_tracing) < len && has_instances(debug_tracing)) {
		strcpy(root, debug_tracing);
		return 0;
	}
	return -1;
}

/*
 * Mount tracefs at a private mount point of this process (a mkdtemp
 * directory under /tmp) and record both.  Private, so that two runs never
 * unmount tracefs under each other; /sys/kernel/tracing is left alone.
 * Returns 0 (root in *root) or -1 with why.
 */
static int mount_tracefs(char *root, size_t root_len, char *why, size_t why_len)
{
	char dir[] = "/tmp/kmp-tracefs-XXXXXX", dir_slash[sizeof(dir) + 1];
	sigset_t old;
	int err = 0;

	block_signals(&old);
	if (!mkdtemp(dir)) {
		err = errno;
		unblock_signals(&old);
		set_why(why, why_len, "no tracefs mounted, and mkdtemp %s: %s", dir, strerror(err));
		return -1;
	}
	/*
	 * Restored in reverse: the instance, the mount, then this directory
	 * (recorded as "dir/": host_state keys entries by path, one per path).
	 */
	snprintf(dir_slash, sizeof(dir_slash), "%s/", dir);
	err = -host_state_track_dir(dir_slash);
	if (!err && mount("nodev", dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		err = errno;
	else if (!err) {
		err = -host_state_track_mount(dir);
		if (err)
			umount2(dir, MNT_DETACH);
		else
			strcpy(our_mount, dir);
	}
	if (err)
		host_state_restore_path(dir_slash);
	unblock_signals(&old);

	if (err == ENODEV)
		set_why(why, why_len, "mount tracefs at %s: %s (tracefs not in this kernel: CONFIG_TRACING?)",
			dir, strerror(err));
	else if (err == EPERM)
		set_why(why, why_len, "mount tracefs at %s: %s (needs root / CAP_SYS_ADMIN)",
			dir, strerror(err));
	else if (err)
		set_why(why, why_len, "mount tracefs at %s: %s", dir, strerror(err));
	else
		snprintf(root, root_len, "%s", dir);
	return err ? -1 : 0;
}

/* Undo our mount once none of our instances is left in it. */
static void release_mount(void)
{
	char dir_slash[sizeof(our_mount) + 1];

	if (nr_live || !our_mount[0])
		return;
	snprintf(dir_slash, sizeof(dir_slash), "%s/", our_mount);
	host_state_restore_path(our_mount);	/* the mount, then its directory */
	host_state_restore_path(dir_slash);
	our_mount[0] = '\0';
}

/* Create and record <root>/instances/kmp-<pid>-<n>. Returns 0 or -1 with why. */
static int make_instance(struct trace *t, char *why, size_t why_len)
{
	sigset_t old;
	int tries, err;

	for (tries = 0; tries < 1000; tries++) {
		int n = snprintf(t->dir, sizeof(t->dir), "%s/instances/kmp-%d-%u", t->root,
				 (int)getpid(), next_instance++);

		if (n < 0 || (size_t)n >= sizeof(t->dir)) {
			set_why(why, why_len, "tracefs path too long: %s", t->root);
			t->dir[0] = '\0';
			return -1;
		}
		block_signals(&old);
		err = mkdir(t->dir, 0750) ? errno : 0;
		if (!err) {
			err = -host_state_track_dir(t->dir);
			if (err)
				rmdir(t->dir);
		} else if (err == EEXIST) {
			unblock_signals(&old);
			continue;	/* left by an earlier process with our pid */
		}
		unblock_signals(&old);
		if (err) {
			set_why(why, why_len, "create tracefs instance %s: %s", t->dir,
				strerror(err));
			t->dir[0] = '\0';
			return -1;
		}
		nr_live++;
		return 0;
	}
	set_why(why, why_len, "create tracefs instance %s: every name taken", t->dir);
	t->dir[0] = '\0';
	return -1;
}

/* Remove the instance now. Returns 0, or -errno with it left for exit. */
static int remove_instance(struct trace *t)
{
	if (rmdir(t->dir) && errno != ENOENT)
		return -errno;
	host_state_restore_path(t->dir);	/* forget it (its rmdir now finds ENOENT) */
	nr_live--;
	return 0;
}

/* Write value to <t->dir>/<file>. Returns 0 or -errno with why. */
static int instance_write(struct trace *t, const char *file, const char *value, char *why,
			  size_t why_len)
{
	char path[768];
	int err;

	if (!join(path, sizeof(path), t->dir, file)) {
		set_why(why, why_len, "tracefs path too long: %s/%s", t->dir, file);
		return -ENAMETOOLONG;
	}
	err = write_file(path, value);
	if (err)
		set_why(why, why_len, "write \"%s\" to %s: %s", value, path, strerror(-err));
	return err;
}

/*
 * Generous per-CPU buffers; on ENOMEM halve down to TRACE_BUF_MIN_KB, and
 * below that keep the kernel's default (a zap may then overflow, which
 * trace_read reports in t->lost).
 */
static void size_buffers(struct trace *t)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long kb = TRACE_BUF_KB;
	char value[24];

	if (cpus > 0 && kb * cpus > TRACE_BUF_TOTAL_KB)
		kb = TRACE_BUF_TOTAL_KB / cpus;
	if (kb < TRACE_BUF_MIN_KB)
		kb = TRACE_BUF_MIN_KB;
	for (; kb >= TRACE_BUF_MIN_KB; kb /= 2) {
		snprintf(value, sizeof(value), "%ld", kb);
		if (!instance_write(t, "buffer_size_kb", value, NULL, 0))
			return;
	}
}

/*
 * The monotonic clock, so timestamps compare with clock_gettime(CLOCK_MONOTONIC).
 * "mono" exists since Linux 3.10; without it fall back to "local" (per-CPU
 * sched_clock) and say so in t->clock.
 */
static int set_clock(struct trace *t, char *why, size_t why_len)
{
	int err = instance_write(t, "trace_clock", "mono", why, why_len);

	if (!err) {
		strcpy(t->clock, "mono");
		return 0;
	}
	if (err != -EINVAL)
		return -1;
	if (!instance_write(t, "trace_clock", "local", why, why_len)) {
		strcpy(t->clock, "local");
		return 0;
	}
	return -1;
}

/* "system/name", each part a plain identifier that fits. */
static bool event_name_ok(const char *ev)
{
	const char *slash = strchr(ev, '/');
	const char *p;

	if (!slash || slash == ev || !slash[1] || strlen(ev) >= sizeof(((struct trace *)0)->events[0]))
		return false;
	for (p = ev; *p; p++)
		if (p != slash && !isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

/* Enable the events that exist. Returns 0 or -1 with why. */
static int enable_events(struct trace *t, const char *const *events, int nr_events, char *why,
			 size_t why_len)
{
	char file[128];
	int i, err;

	for (i = 0; i < nr_events; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", events[i]);
		err = instance_write(t, file, "1", why, why_len);
		if (err == -ENOENT)
			continue;	/* not in this kernel (or kvm not loaded) */
		if (err)
			return -1;
		strcpy(t->events[t->nr_events++], events[i]);
	}
	if (!t->nr_events) {
		set_why(why, why_len, "%s: %s%s not in %s/events", no_events_why, events[0],
			nr_events > 1 ? " and the others" : "", t->dir);
		return -1;
	}
	return 0;
}

int trace_open(struct trace *t, const char *const *events, int nr_events, char *why,
	       size_t why_len)
{
	static bool quiesce_registered;
	bool mounted = false;
	int i;

	/* t need not be initialised; an open t must be closed first. */
	memset(t, 0, sizeof(*t));
	if (!quiesce_registered) {
		interrupt_on_stop(trace_quiesce);
		quiesce_registered = true;
	}
	if (nr_events < 1 || nr_events > TRACE_MAX_EVENTS) {
		set_why(why, why_len, "%d trace events asked for, 1 to %d allowed", nr_events,
			TRACE_MAX_EVENTS);
		return -1;
	}
	for (i = 0; i < nr_events; i++) {
		if (!events[i] || !event_name_ok(events[i])) {
			set_why(why, why_len, "bad trace event name \"%s\" (want system/name)",
				events[i] ? events[i] : "(null)");
			return -1;
		}
	}

	if (find_tracefs(t->root, sizeof(t->root))) {
		if (mount_tracefs(t->root, sizeof(t->root), why, why_len))
			return -1;
		mounted = true;
	}
	if (make_instance(t, why, why_len))
		goto fail;
	if (instance_write(t, "tracing_on", "0", why, why_len) ||
	    set_clock(t, why, why_len))
		goto fail;
	size_buffers(t);
	if (enable_events(t, events, nr_events, why, why_len))
		goto fail;
	t->open = true;
	return 0;

fail:
	if (t->dir[0] && remove_instance(t))
		fprintf(stderr, "trace: rmdir %s: %s (retried at exit)\n", t->dir, strerror(errno));
	if (mounted)
		release_mount();
	t->nr_events = 0;
	t->dir[0] = '\0';
	return -1;
}

static void trace_clear_locked(struct trace *t)
{
	char why[768];

	if (!t->open)
		return;
	/* Opening "trace" with O_TRUNC empties every CPU's buffer and its counters. */
	if (instance_write(t, "trace", "", why, sizeof(why)))
		fprintf(stderr, "trace: %s\n", why);
	t->lost = 0;
}

static void trace_enable_locked(struct trace *t, bool on)
{
	char why[768];

	if (t->open && instance_write(t, "tracing_on", on ? "1" : "0", why, sizeof(why)))
		fprintf(stderr, "trace: %s\n", why);
}

/*
 * Events lost since the last reset: per CPU, "overrun" (overwritten when the
 * buffer was full), "commit overrun" and "dropped events".
 */
static uint64_t count_lost(struct trace *t)
{
	static const char *const keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	char dir[600], path[900], line[128];
	struct dirent *d;
	uint64_t lost = 0;
	size_t k;
	DIR *dp;
	FILE *f;

	if (!join(dir, sizeof(dir), t->dir, "per_cpu"))
		return 0;
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stats", dir, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (!strncmp(line, keys[k], strlen(keys[k])))
					lost += strtoull(line + strlen(keys[k]), NULL, 10);
		}
		fclose(f);
	}
	closedir(dp);
	return lost;
}

/* Parse one complete line (NUL-terminated, no newline) and hand it on. */
static void deliver(const char *line, void (*cb)(const struct trace_event *ev, void *arg),
		    void *arg)
{
	struct trace_event ev;

	if (line[0] == '#' || trace_parse_line(line, &ev))
		return;
	cb(&ev, arg);
}

static void trace_read_locked(struct trace *t, void (*cb)(const struct trace_event *ev, void *arg), void *arg)
{
	char path[600], chunk[65536], line[TRACE_LINE_MAX];
	size_t used = 0;
	bool skipping = false;
	sigset_t old;
	ssize_t n;
	int fd;

	if (!t->open)
		return;
	if (!join(path, sizeof(path), t->dir, "trace"))
		return;

	/*
	 * The instance cannot be removed while "trace" is open: keep the
	 * fatal signals away from this thread until it is closed again.
	 */
	block_signals(&old);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "trace: open %s: %s\n", path, strerror(errno));
		unblock_signals(&old);
		return;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		char *p = chunk, *end;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "trace: read %s: %s\n", path, strerror(errno));
			break;
		}
		end = chunk + n;
		while (p < end) {
			char *nl = memchr(p, '\n', end - p);
			size_t len = (nl ? nl : end) - p;

			if (!skipping) {
				if (used + len < sizeof(line)) {
					memcpy(line + used, p, len);
					used += len;
				} else {
					skipping = true;	/* too long: drop the whole line */
				}
			}
			if (!nl)
				break;
			if (!skipping) {
				line[used] = '\0';
				deliver(line, cb, arg);
			}
			used = 0;
			skipping = false;
			p = nl + 1;
		}
	}
	if (used && !skipping) {
		line[used] = '\0';
		deliver(line, cb, arg);
	}
	close(fd);
	unblock_signals(&old);
	t->lost = count_lost(t);
}

static void trace_close_locked(struct trace *t)
{
	char file[128];
	int i;

	if (!t->open)
		return;
	for (i = 0; i < t->nr_events; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", t->events[i]);
		instance_write(t, file, "0", NULL, 0);
	}
	instance_write(t, "tracing_on", "0", NULL, 0);
	t->open = false;
	if (remove_instance(t)) {
		/* Still recorded: exit removes it, then undoes the mount. */
		fprintf(stderr, "trace: rmdir %s: %s (retried at exit)\n", t->dir, strerror(errno));
		return;
	}
	release_mount();
}

/* Digits from s into *v (at least one); returns the end or NULL. */
static const char *parse_uint(const char *s, uint64_t *v, int *ndigits)
{
	int n = 0;

	*v = 0;
	while (isdigit((unsigned char)*s)) {
		*v = *v * 10 + (uint64_t)(*s++ - '0');
		n++;
	}
	if (ndigits)
		*ndigits = n;
	return n ? s : NULL;
}

/*
 * "secs.frac:" (frac: 1 to 9 digits, usecs on clocks counting ns) into ns,
 * or a bare "count:" from counter clocks (x86-tsc, counter) as is.
 * Returns the character after ':' or NULL.
 */
static const char *parse_timestamp(const char *s, uint64_t *ns)
{
	uint64_t secs, frac;
	int digits;

	s = parse_uint(s, &secs, NULL);
	if (!s)
		return NULL;
	if (*s == ':') {
		*ns = secs;
		return s + 1;
	}
	if (*s != '.')
		return NULL;
	s = parse_uint(s + 1, &frac, &digits);
	if (!s || *s != ':' || digits > 9)
		return NULL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return s + 1;
}

static void copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * Try the line's '[' at br as the CPU column: "comm-pid [cpu] flags ts: name: args",
 * with optional "(tgid)" before it (options/record-tgid) and no flags column
 * without options/irq-info.
 */
static int parse_at(const char *line, const char *br, struct trace_event *ev)
{
	const char *p, *q, *tok, *start, *name;
	uint64_t v;

	/* Right of '[': cpu, flags, timestamp, event name. */
	p = parse_uint(br + 1, &v, NULL);
	if (!p || *p != ']' || v > INT32_MAX || p[1] != ' ')
		return -1;
	ev->cpu = (int)v;
	for (p++; *p == ' '; p++)
		;
	tok = p;
	p = parse_timestamp(tok, &ev->ts_ns);
	if (!p) {
		/* A flags column ("d..1.", "...1."), then the timestamp. */
		while (*tok && *tok != ' ')
			tok++;
		if (*tok != ' ')
			return -1;
		while (*tok == ' ')
			tok++;
		p = parse_timestamp(tok, &ev->ts_ns);
		if (!p)
			return -1;
	}
	if (*p != ' ')
		return -1;
	while (*p == ' ')
		p++;
	name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == name || *p != ':' || (p[1] && p[1] != ' '))
		return -1;
	copy_field(ev->name, sizeof(ev->name), name, p - name);
	p += p[1] ? 2 : 1;
	q = p + strlen(p);
	while (q > p && (q[-1] == '\n' || q[-1] == '\r'))
		q--;
	copy_field(ev->args, sizeof(ev->args), p, q - p);

	/* Left of '[': spaces, maybe "(tgid)", the pid, '-', then the comm. */
	q = br;
	while (q > line && q[-1] == ' ')
		q--;
	if (q > line && q[-1] == ')') {
		while (q > line && q[-1] != '(')
			q--;
		if (q == line)
			return -1;
		q--;
		while (q > line && q[-1] == ' ')
			q--;
	}
	p = q;
	while (q > line && isdigit((unsigned char)q[-1]))
		q--;
	if (q == p || q == line || q[-1] != '-' || p - q > 10)
		return -1;
	parse_uint(q, &v, NULL);
	if (v > INT32_MAX)
		return -1;
	ev->pid = (int)v;
	q--;			/* the '-' */
	for (start = line; start < q && *start == ' '; start++)
		;
	if (start == q)
		return -1;	/* no comm: tracefs prints "<...>" for an unknown one */
	copy_field(ev->comm, sizeof(ev->comm), start, q - start);
	return 0;
}

int trace_parse_line(const char *line, struct trace_event *ev)
{
	const char *br;

	memset(ev, 0, sizeof(*ev));
	if (line[0] == '#')
		return -1;
	/* The first '[' that is a CPU column: a comm may hold '[' too, args often do. */
	for (br = strchr(line, '['); br; br = strchr(br + 1, '[')) {
		if (!parse_at(line, br, ev))
			return 0;
		memset(ev, 0, sizeof(*ev));
	}
	return -1;
}

uint64_t trace_arg_u64(const struct trace_event *ev, const char *field, int base, uint64_t def)
{
	size_t flen = strlen(field);
	const char *p, *v;
	char *end;
	uint64_t x;

	if (!flen)
		return def;
	for (p = strstr(ev->args, field); p; p = strstr(p + 1, field)) {
		if (p != ev->args && p[-1] != ' ' && p[-1] != ',')
			continue;
		v = p + flen;
		if (*v != ' ' && *v != '=')
			continue;
		for (v++; *v == ' '; v++)
			;
		if (!isxdigit((unsigned char)*v))
			continue;	/* also refuses a sign */
		errno = 0;
		x = strtoull(v, &end, base);
		if (errno || end == v || (*end && *end != ' ' && *end != ','))
			continue;	/* "8-byte", or a value out of range */
		return x;
	}
	return def;
}

void trace_clear(struct trace *t)
{
	pthread_mutex_lock(&trace_mutex);
	trace_clear_locked(t);
	pthread_mutex_unlock(&trace_mutex);
}

void trace_enable(struct trace *t, bool on)
{
	pthread_mutex_lock(&trace_mutex);
	trace_enable_locked(t, on);
	pthread_mutex_unlock(&trace_mutex);
}

void trace_read(struct trace *t, void (*cb)(const struct trace_event *ev, void *arg), void *arg)
{
	pthread_mutex_lock(&trace_mutex);
	trace_read_locked(t, cb, arg);
	pthread_mutex_unlock(&trace_mutex);
}

void trace_close(struct trace *t)
{
	pthread_mutex_lock(&trace_mutex);
	trace_close_locked(t);
	pthread_mutex_unlock(&trace_mutex);
}
