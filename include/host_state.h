/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every host knob the suite changes (sysctls, sysfs files, tracefs instances)
 * is recorded here before it is changed and put back on every exit path:
 * normal exit, a failed assertion (exit), SIGINT, SIGTERM, SIGHUP, and the
 * watchdog.  Restoring is async-signal-safe (open/write/rmdir/umount2 only).
 * Changes are undone only by the process that made them: a forked child
 * exiting leaves its parent's changes in place.
 *
 * A SIGKILL runs none of that, so each change is also journaled on disk
 * before it is made: one file per process in $KMP_JOURNAL_DIR (default
 * /run/kvm-mmu-perf/journal), named <pid>-<start time>, removed once all of
 * it is undone.  host_state_recover() undoes what dead processes left; it
 * runs by itself before a process's first change.  Format and rules:
 * docs/library.md, "Host changes and the crash journal".
 */
#ifndef KMP_HOST_STATE_H
#define KMP_HOST_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Write value to a sysfs/procfs file, remembering the original content the
 * first time this path is changed.  Returns 0 or -errno (nothing recorded on
 * failure).
 */
int host_state_write(const char *path, const char *value);

/* Same, for a number. */
int host_state_write_u64(const char *path, uint64_t value);

/*
 * Raise the number in path (e.g. nr_hugepages) by delta.  On restore the
 * amount the kernel actually granted is subtracted from the value then, so
 * runs that raise it at the same time each give back only their own share.
 * *now (if not NULL) gets the value after the write.  Returns 0 or -errno.
 */
int host_state_add_u64(const char *path, uint64_t delta, uint64_t *now);

/* Read a file holding one unsigned number. Returns 0 or -errno. */
int host_read_u64(const char *path, uint64_t *out);

/* A /proc/meminfo field ("MemTotal", "Hugepagesize") in bytes; 0 if absent. */
uint64_t host_meminfo_bytes(const char *field);
/* The same, telling absent apart: 0, or -ENOENT (no such field, or no /proc). */
int host_meminfo_read(const char *field, uint64_t *bytes);
/*
 * Fold every CPU's pending vmstat deltas into the totals that /proc/meminfo
 * shows (vm.stat_refresh, root only); until then a count can lag by up to
 * the per-CPU threshold on each CPU.  Returns 0 or -errno.
 */
int host_vmstat_refresh(void);

/*
 * Remember a directory to rmdir on exit (e.g. a tracefs instance we make).
 * May be called just before the mkdir (the path does not exist yet), so the
 * journal has it first; removing what is not there is ignored.
 */
int host_state_track_dir(const char *path);

/*
 * Remember a file system mounted at path, to unmount on exit (umount2 with
 * MNT_DETACH).  Restoring goes in reverse order, so a directory tracked
 * after this one inside the mount is removed first.  May be called just
 * before the mount() (path must be a directory), so the journal has it
 * first: unmounting what is not a mount point is ignored.  Returns 0 or
 * -errno.
 */
int host_state_track_mount(const char *path);

/*
 * Remember a dynamic event ("group/event", e.g. "kmp/zap_begin") defined
 * through dynamic_events_path (a tracefs dynamic_events or kprobe_events
 * file); restoring appends "-:group/event\n" to that file.  Call it before
 * writing the definition, so a kill in between still removes it; removing an
 * event that does not exist is ignored.  Record the tracefs mount before and
 * an instance using the event after, and restoring removes the instance,
 * then the event, then unmounts.  Returns 0 or -errno (-EINVAL: not one
 * "group/event" word).
 */
int host_state_track_dynevent(const char *dynamic_events_path, const char *group_event);

/* Put everything back now, in reverse order; also runs at exit. Idempotent. */
void host_state_restore(void);

/*
 * Put back one path now (e.g. a knob raised in vain): every change this
 * process recorded for it (for a dynamic_events file, each of its events);
 * no-op if not changed.
 */
void host_state_restore_path(const char *path);

/* Number of knobs currently changed (for tests). */
int host_state_pending(void);

/*
 * Undo what the journals of dead processes still hold (no /proc/<pid>, a
 * zombie, or the pid now has another start time), in reverse order, one
 * "# host_state: undid ..." line on stderr each, and remove their journals.
 * A live process's journal is never touched; a journal another recoverer
 * holds (flock) is skipped.  Returns the number of changes undone, or
 * -errno if the journal directory cannot be read (none: 0).
 */
int host_state_recover(void);

/*
 * Field 22 of /proc/<pid>/stat, the start time in clock ticks since boot:
 * with the pid it names one process for good.  -ESRCH or -ENOENT when the
 * process is gone (a zombie counts as gone).  Returns 0 or -errno.
 */
int host_proc_starttime(pid_t pid, uint64_t *start);

#endif
