// SPDX-License-Identifier: GPL-2.0
/*
 * A private tracefs instance on libtracefs and libtraceevent.
 *
 * trace_open() finds a mounted tracefs (or debugfs's tracing directory),
 * mounting tracefs privately when there is none, points libtracefs at it
 * and makes the instance kmp-<pid>-<n>.  The mount, each dynamic event and
 * the instance are recorded in host_state (and so in its crash journal)
 * with SIGINT/SIGTERM/SIGHUP blocked until they are, so exit and fatal
 * signals remove the instance, then the dynamic events, then the mount.
 * Removal always goes through host_state, the one place that undoes host
 * changes, async-signal-safe; libtracefs creates, enables and reads.
 *
 * A tracefs instance cannot be removed while one of its files is open
 * (EBUSY).  trace_read() keeps the per-CPU buffers open only while it
 * reads, with the fatal signals blocked in its thread, and the interrupt
 * thread waits for it (trace_quiesce).
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
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "host_state.h"
#include "interrupt.h"
#include "report.h"
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
/* Instance and group names are never reused in a process: each gets fresh host_state slots. */
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
	/* The journal has the mount before it exists: a kill in between loses nothing. */
	if (!err)
		err = -host_state_track_mount(dir);
	if (!err && mount("nodev", dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		err = errno;
	if (!err)
		strcpy(our_mount, dir);
	else {
		host_state_restore_path(dir);
		host_state_restore_path(dir_slash);
	}
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


/*
 * Record <root>/instances/kmp-<pid>-<n> in host_state, then create it, with
 * the fatal signals held off in between.  Returns 0 or -1 with why.
 */
static int make_instance(struct trace *t, char *why, size_t why_len)
{
	char name[64];
	sigset_t old;
	int tries, err;

	for (tries = 0; tries < 1000; tries++) {
		snprintf(name, sizeof(name), "kmp-%d-%u", (int)getpid(), next_instance++);
		if (snprintf(t->dir, sizeof(t->dir), "%s/instances/%s", t->root, name) >=
		    (int)sizeof(t->dir)) {
			set_why(why, why_len, "tracefs path too long: %s", t->root);
			t->dir[0] = '\0';
			return -1;
		}
		if (is_dir(t->dir))
			continue;	/* left by an earlier process with our pid */
		/* Journaled before it exists: a SIGKILL right after the mkdir loses nothing. */
		block_signals(&old);
		err = -host_state_track_dir(t->dir);
		if (!err) {
			t->inst = tracefs_instance_create(name);
			err = !t->inst ? (errno ? errno : EIO) :
			      !tracefs_instance_is_new(t->inst) ? EEXIST : 0;
			/*
			 * EEXIST: made since the check above, under our pid's name, so
			 * by no live process: it goes with the record.
			 */
			if (err) {
				tracefs_instance_free(t->inst);
				t->inst = NULL;
				host_state_restore_path(t->dir);
			}
		}
		unblock_signals(&old);
		if (err == EEXIST)
			continue;
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

/* Write value to the instance's file. Returns 0 or -1 with why. */
static int instance_write(struct trace *t, const char *file, const char *value, char *why,
			  size_t why_len)
{
	if (tracefs_instance_file_write(t->inst, file, value) >= 0)
		return 0;
	set_why(why, why_len, "write \"%s\" to %s/%s: %s", value, t->dir, file, strerror(errno));
	return -1;
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

	if (cpus > 0 && kb * cpus > TRACE_BUF_TOTAL_KB)
		kb = TRACE_BUF_TOTAL_KB / cpus;
	if (kb < TRACE_BUF_MIN_KB)
		kb = TRACE_BUF_MIN_KB;
	for (; kb >= TRACE_BUF_MIN_KB; kb /= 2)
		if (!tracefs_instance_set_buffer_size(t->inst, kb, -1))
			return;
}

/* The finest step seen between reads of CLOCK_MONOTONIC, over a few steps. */
static uint64_t mono_read_step_ns(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 20; i++) {
		struct timespec a, b;
		uint64_t step;

		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while (b.tv_sec == a.tv_sec && b.tv_nsec == a.tv_nsec);
		step = ts_to_ns(ts_sub(b, a));
		best = step < best ? step : best;
	}
	return best;
}

/*
 * The monotonic clock, so timestamps compare with clock_gettime(CLOCK_MONOTONIC).
 * "mono" exists since Linux 3.10; without it fall back to "local" (per-CPU
 * sched_clock) and say so in t->clock.  Both count ns.  clock_getres gives
 * how finely CLOCK_MONOTONIC ticks, but it is the timers' resolution: a
 * kernel without CONFIG_HIGH_RES_TIMERS says a tick (4 ms at HZ=250) while
 * its clocksource reads in ns.  Where it claims more than 1 us, the finest
 * step seen between reads is the resolution instead.
 */
static int set_clock(struct trace *t, char *why, size_t why_len)
{
	struct timespec res;

	t->clock_res_ns = !clock_getres(CLOCK_MONOTONIC, &res) && !res.tv_sec && res.tv_nsec > 0 ?
			  (uint64_t)res.tv_nsec : 1;
	if (t->clock_res_ns > 1000)
{
		uint64_t step = mono_read_step_ns();

		t->clock_res_ns = step < t->clock_res_ns ? step : t->clock_res_ns;
	}
	if (!instance_write(t, "trace_clock", "mono", why, why_len)) {
		strcpy(t->clock, "mono");
		return 0;
	}
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

/* Note the events that exist in this kernel. Returns 0 or -1 with why. */
static int find_events(struct trace *t, const char *const *events, int nr_events, char *why,
		       size_t why_len)
{
	int before = t->nr_events;
	char path[192];

	for (int i = 0; i < nr_events; i++) {
		snprintf(path, sizeof(path), "events/%s", events[i]);
		if (!tracefs_dir_exists(t->inst, path))
			continue;	/* not in this kernel (or kvm not loaded) */
		strcpy(t->events[t->nr_events++], events[i]);
	}
	if (t->nr_events == before) {
		set_why(why, why_len, "%s: %s%s not in %s/events", no_events_why, events[0],
			nr_events > 1 ? " and the others" : "", t->dir);
		return -1;
	}
	return 0;
}

int trace_add_events(struct trace *t, const char *const *events, int nr_events, char *why,
		     size_t why_len)
{
	if (!t->open || nr_events < 1 || t->nr_events + nr_events > TRACE_MAX_EVENTS) {
		set_why(why, why_len, "%d trace events asked for, 1 to %d allowed", nr_events,
			TRACE_MAX_EVENTS - t->nr_events);
		return -1;
	}
	for (int i = 0; i < nr_events; i++) {
		if (!events[i] || !event_name_ok(events[i])) {
			set_why(why, why_len, "bad trace event name \"%s\" (want system/name)",
				events[i] ? events[i] : "(null)");
			return -1;
		}
	}
	return find_events(t, events, nr_events, why, why_len);
}

int trace_open(struct trace *t, char *why, size_t why_len)
{
	static bool quiesce_registered;
	bool mounted = false;

	/* t need not be initialised; an open t must be closed first. */
	memset(t, 0, sizeof(*t));
	if (!quiesce_registered) {
		interrupt_on_stop(trace_quiesce);
		quiesce_registered = true;
	}
	if (find_tracefs(t->root, sizeof(t->root))) {
		if (mount_tracefs(t->root, sizeof(t->root), why, why_len))
			return -1;
		mounted = true;
	}
	/* libtracefs would mount /sys/kernel/tracing itself: give it ours. */
	if (tracefs_set_tracing_dir(t->root)) {
		set_why(why, why_len, "libtracefs refuses %s as the tracing directory", t->root);
		goto fail;
	}
	snprintf(t->group, sizeof(t->group), "kmp_%d_%u", (int)getpid(), next_instance);
	if (make_instance(t, why, why_len))
		goto fail;
	if (instance_write(t, "tracing_on", "0", why, why_len) || set_clock(t, why, why_len))
		goto fail;
	size_buffers(t);
	t->open = true;
	return 0;

fail:
	if (t->inst) {
		host_state_restore_path(t->dir);
		tracefs_instance_free(t->inst);
		t->inst = NULL;
		nr_live--;
	}
	if (mounted)
		release_mount();
	t->nr_events = 0;
	t->dir[0] = '\0';
	return -1;
}

bool trace_kprobes_supported(const struct trace *t, char *why, size_t why_len)
{
	char kprobes[300], uprobes[300];

	if (!t->open) {
		set_why(why, why_len, "no tracefs instance");
		return false;
	}
	if (join(kprobes, sizeof(kprobes), t->root, "kprobe_events") && !access(kprobes, F_OK))
		return true;
	/* What its dynamic_events take instead, as its README lists them. */
	join(uprobes, sizeof(uprobes), t->root, "uprobe_events");
	set_why(why, why_len, "this kernel's tracefs has no kprobe_events (CONFIG_KPROBE_EVENTS "
		"is off): its dynamic_events take %s", !access(uprobes, F_OK) ?
		"uprobes and event probes only" : "no kernel probes");
	return false;
}

/*
 * A text symbol of /proc/kallsyms named func, or (clones allowed) a
 * compiler's clone of it ("func.constprop.0", "func.isra.0"); the name
 * found goes to out.
 */
static bool kallsyms_find(const char *func, bool clones, char *out, size_t out_len)
{
	char line[512], name[256];
	size_t len = strlen(func);
	bool found = false;
	char type;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, name) == 2 &&
			(type == 't' || type == 'T') && !strncmp(name, func, len) &&
			(!name[len] || (clones && name[len] == '.'));
	fclose(f);
	if (found && out)
		snprintf(out, out_len, "%s", name);
	return found;
}

bool trace_kernel_has_function(const char *func)
{
	return kallsyms_find(func, false, NULL, 0);
}

bool trace_kernel_function_or_clone(const char *func, char *out, size_t out_len)
{
	return kallsyms_find(func, true, out, out_len);
}

/* The last error tracefs logged for a dynamic event, without its newline, or "". */
static void last_tracefs_error(char *buf, size_t len)
{
	char *e = tracefs_error_last(NULL);
	char *nl;

	snprintf(buf, len, "%s", e ? e : "");
	free(e);
	for (nl = strchr(buf, '\n'); nl; nl = strchr(buf, '\n'))
		*nl = ' ';
}

int trace_add_probe(struct trace *t, const char *name, const char *func, bool at_return,
		    const char *fetchargs, const char *filter, char *why, size_t why_len)
{
	struct tracefs_dynevent *dev;
	char dyn[300], group_event[128], err[256] = "";
	sigset_t old;
	int ret;

	if (!t->open || t->nr_probes == TRACE_MAX_EVENTS || t->nr_events == TRACE_MAX_EVENTS) {
		set_why(why, why_len, "no room for probe %s", name);
		return -1;
	}
	snprintf(group_event, sizeof(group_event), "%s/%s", t->group, name);
	if (!event_name_ok(group_event) || !join(dyn, sizeof(dyn), t->root, "dynamic_events")) {
		set_why(why, why_len, "bad probe name %s", group_event);
		return -1;
	}
	dev = at_return ? tracefs_kretprobe_alloc(t->group, name, func, fetchargs, 0) :
			  tracefs_kprobe_alloc(t->group, name, func, fetchargs);
	if (!dev) {
		set_why(why, why_len, "probe %s on %s: %s", group_event, func, strerror(errno));
		return -1;
	}
	block_signals(&old);
	ret = host_state_track_dynevent(dyn, group_event);
	if (!ret) {
		tracefs_error_clear(NULL);
		ret = tracefs_dynevent_create(dev) ? -(errno ? errno : EINVAL) : 0;
		if (ret) {
			last_tracefs_error(err, sizeof(err));
			/* Undoing every event of ours is right only while there is no other. */
			if (!t->nr_probes)
				host_state_restore_path(dyn);
		}
	}
	unblock_signals(&old);
	tracefs_dynevent_free(dev);
	if (ret) {
		set_why(why, why_len, "the kernel refused a %s on %s: %s%s%s", at_return ?
			"kretprobe" : "kprobe", func, strerror(-ret), err[0] ? ": " : "", err);
		return -1;
	}
	strcpy(t->probes[t->nr_probes++], name);
	strcpy(t->events[t->nr_events++], group_event);
	/* A new event: the formats are loaded again at the next read. */
	tep_free(t->tep);
	t->tep = NULL;
	if (filter && tracefs_event_file_write(t->inst, t->group, name, "filter", filter) < 0) {
		set_why(why, why_len, "filter \"%s\" on %s: %s", filter, group_event,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void trace_clear_locked(struct trace *t)
{
	if (!t->open)
		return;
	/* Opening "trace" with O_TRUNC empties every CPU's buffer and its counters. */
	if (tracefs_instance_file_clear(t->inst, "trace") < 0)
		fprintf(stderr, "trace: clear %s/trace: %s\n", t->dir, strerror(errno));
	t->lost = 0;
}

static void set_events(struct trace *t, bool on)
{
	for (int i = 0; i < t->nr_events; i++) {
		char sys[96], *ev;

		strcpy(sys, t->events[i]);
		ev = strchr(sys, '/');
		*ev++ = '\0';
		if ((on ? tracefs_event_enable : tracefs_event_disable)(t->inst, sys, ev))
			fprintf(stderr, "trace: %s %s in %s: %s\n", on ? "enable" : "disable",
				t->events[i], t->dir, strerror(errno));
	}
}

static void trace_arm_locked(struct trace *t, bool on)
{
	if (!t->open || t->armed == on)
		return;
	if (on)
		set_events(t, true);
	if ((on ? tracefs_trace_on : tracefs_trace_off)(t->inst))
		fprintf(stderr, "trace: tracing_on in %s: %s\n", t->dir, strerror(errno));
	if (!on)
		set_events(t, false);
	t->armed = on;
}

/*
 * Events lost since the last reset: per CPU, "overrun" (overwritten when the
 * buffer was full), "commit overrun" and "dropped events".
 */
static uint64_t count_lost(struct trace *t)
{
	static const char *const keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t lost = 0;

	for (long cpu = 0; cpu < cpus; cpu++) {
		char file[64], *stats, *at;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		stats = tracefs_instance_file_read(t->inst, file, NULL);
		for (size_t k = 0; stats && k < sizeof(keys) / sizeof(keys[0]); k++) {
			/* Each key starts a line ("overrun: 0"; "commit overrun: 0"). */
			for (at = strstr(stats, keys[k]); at; at = strstr(at + 1, keys[k]))
				if (at == stats || at[-1] == '\n')
					lost += strtoull(at + strlen(keys[k]), NULL, 10);
		}
		free(stats);
	}
	return lost;
}

struct read_ctx {
	void (*cb)(const struct trace_event *ev, void *arg);
	void *arg;
	struct tep_handle *tep;
};

static int deliver(struct tep_event *tev, struct tep_record *rec, int cpu, void *arg)
{
	struct read_ctx *c = arg;
	struct trace_event ev = {
		.ts_ns = rec->ts, .pid = tep_data_pid(c->tep, rec), .cpu = cpu,
		.system = tev->system, .name = tev->name, .tev = tev, .rec = rec,
	};

	c->cb(&ev, c->arg);
	return 0;
}

/* The formats of the kvm events and of ours: all a read needs to decode. */
static struct tep_handle *load_formats(struct trace *t)
{
	const char *systems[] = { "kvmmmu", "kvm", "ftrace", t->group, NULL };

	if (!t->tep)
		t->tep = tracefs_local_events_system(t->root, systems);
	return t->tep;
}

static void trace_read_locked(struct trace *t, void (*cb)(const struct trace_event *ev, void *arg),
			      void *arg)
{
	struct read_ctx c = { .cb = cb, .arg = arg };
	sigset_t old;

	if (!t->open)
		return;
	c.tep = load_formats(t);
	if (!c.tep) {
		fprintf(stderr, "trace: cannot load event formats from %s: %s\n", t->root,
			strerror(errno));
		return;
	}
	/* The instance cannot be removed while its buffers are open: no fatal signal here. */
	block_signals(&old);
	t->lost = count_lost(t);
	if (tracefs_iterate_raw_events(c.tep, t->inst, NULL, 0, deliver, &c))
		fprintf(stderr, "trace: read %s: %s\n", t->dir, strerror(errno));
	unblock_signals(&old);
}

uint64_t trace_field_u64(const struct trace_event *ev, const char *field, uint64_t def)
{
	unsigned long long v;
	struct tep_format_field *f;

	f = tep_find_any_field((struct tep_event *)ev->tev, field);
	if (!f || tep_read_number_field(f, ((struct tep_record *)ev->rec)->data, &v))
		return def;
	return v;
}

static void trace_close_locked(struct trace *t)
{
	char dyn[300];

	if (!t->open)
		return;
	trace_arm_locked(t, false);
	t->open = false;
	/* The instance, then our dynamic events (no longer enabled anywhere), then the mount. */
	host_state_restore_path(t->dir);
	if (is_dir(t->dir))
		fprintf(stderr, "trace: rmdir %s: still there (retried at exit)\n", t->dir);
	else
		nr_live--;
	/* Every dynamic event this process made through this root's dynamic_events. */
	if (t->nr_probes && join(dyn, sizeof(dyn), t->root, "dynamic_events"))
		host_state_restore_path(dyn);
	tracefs_instance_free(t->inst);
	t->inst = NULL;
	tep_free(t->tep);
	t->tep = NULL;
	release_mount();
}

void trace_clear(struct trace *t)
{
	pthread_mutex_lock(&trace_mutex);
	trace_clear_locked(t);
	pthread_mutex_unlock(&trace_mutex);
}

void trace_arm(struct trace *t, bool on)
{
	pthread_mutex_lock(&trace_mutex);
	trace_arm_locked(t, on);
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
