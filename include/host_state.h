/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every host knob the suite changes (sysctls, sysfs files, tracefs instances)
 * is recorded here before it is changed and put back on every exit path:
 * normal exit, a failed assertion (exit), SIGINT, SIGTERM, SIGHUP, and the
 * watchdog.  Restoring is async-signal-safe (open/write/rmdir/umount2 only).
 * Changes are undone only by the process that made them: a forked child
 * exiting leaves its parent's changes in place.
 */
#ifndef KMP_HOST_STATE_H
#define KMP_HOST_STATE_H

#include <stddef.h>
#include <stdint.h>

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

/* Remember a directory to rmdir on exit (e.g. a tracefs instance we made). */
int host_state_track_dir(const char *path);

/*
 * Remember a file system we just mounted at path, to unmount on exit
 * (umount2 with MNT_DETACH).  Restoring goes in reverse order, so a
 * directory tracked after this one inside the mount is removed first.
 * Returns 0 or -errno.
 */
int host_state_track_mount(const char *path);

/* Put everything back now, in reverse order; also runs at exit. Idempotent. */
void host_state_restore(void);

/* Put back one path now (e.g. a knob raised in vain); no-op if not changed. */
void host_state_restore_path(const char *path);

/* Number of knobs currently changed (for tests). */
int host_state_pending(void);

#endif
