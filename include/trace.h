/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A private tracefs instance for kvm/kvmmmu events: mounted if needed,
 * uniquely named, on the monotonic trace clock, and always removed (exit,
 * failure, Ctrl-C) through host_state.  When tracing is unavailable the
 * caller gets the reason and carries on without trace-derived figures.
 */
#ifndef KMP_TRACE_H
#define KMP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EVENTS 16
#define TRACE_MAX_FIELDS 12

struct trace {
	char root[256];			/* tracefs mount point in use */
	char dir[512];			/* our instance: <root>/instances/kmp-<pid>-<n> */
	bool open;
	int nr_events;
	char events[TRACE_MAX_EVENTS][64];	/* "kvmmmu/kvm_mmu_zap_all_fast" */
	/*
	 * The trace clock: "mono" (CLOCK_MONOTONIC, comparable with
	 * clock_gettime), or "local" on a kernel without mono, whose
	 * timestamps only compare with each other.
	 */
	char clock[16];
	/*
	 * Events the ring buffer overwrote or dropped since trace_open or the
	 * last trace_clear (per-CPU overrun + dropped events), as of the last
	 * trace_read: non-zero means what trace_read gave is incomplete.
	 */
	uint64_t lost;
};

/* One parsed trace line. */
struct trace_event {
	uint64_t ts_ns;			/* monotonic clock, ns */
	int pid;
	int cpu;
	char comm[32];
	char name[64];			/* event name without the system: "kvm_mmu_zap_all_fast" */
	char args[256];			/* the rest of the line (the event's print fmt output) */
};

/*
 * Create the instance and enable the events ("system/name").  Mounts
 * tracefs at /sys/kernel/tracing if nothing is mounted there (and unmounts
 * it on exit).  Events that do not exist are skipped and left out of
 * t->events.  Returns 0, or -1 with the reason in why (tracefs cannot be
 * mounted, no permission, none of the events exist...).
 */
int trace_open(struct trace *t, const char *const *events, int nr_events, char *why,
	       size_t why_len);
/* Discard what was recorded so far. */
void trace_clear(struct trace *t);
/* Start or stop recording (tracing_on). */
void trace_enable(struct trace *t, bool on);
/* Parse every recorded event, in the order tracefs gives them (time order), into cb. */
void trace_read(struct trace *t, void (*cb)(const struct trace_event *ev, void *arg), void *arg);
/* Remove the instance (and undo our mount). Idempotent. */
void trace_close(struct trace *t);

/*
 * One line of a tracefs "trace" file ("comm-pid [cpu] flags secs.usecs:
 * name: args") into ev.  Returns 0, or -1 for anything that is not an event
 * (comments, "CPU:N [LOST M EVENTS]", blank lines).
 */
int trace_parse_line(const char *line, struct trace_event *ev);

/* "name=value" or "name value" pairs in ev->args: the value of field, or def. */
uint64_t trace_arg_u64(const struct trace_event *ev, const char *field, int base, uint64_t def);

#endif
