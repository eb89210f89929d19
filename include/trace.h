/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A private tracefs instance, on libtracefs and libtraceevent: tracepoints
 * and kprobes of this run, recorded only while armed, read back from the
 * raw per-CPU buffers with their ns timestamps.  The instance, its dynamic
 * events and any tracefs mount it needed are recorded in host_state (and
 * its crash journal) before they exist, and undone on every exit path.
 * When tracing is unavailable the caller gets the reason and carries on.
 */
#ifndef KMP_TRACE_H
#define KMP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EVENTS 16

struct tracefs_instance;
struct tep_handle;

struct trace {
	char root[256];			/* tracefs mount point in use */
	char dir[512];			/* our instance: <root>/instances/kmp-<pid>-<n> */
	char group[32];			/* our dynamic events' system: kmp_<pid>_<n> */
	bool open;
	bool armed;
	int nr_events;
	char events[TRACE_MAX_EVENTS][96];	/* "system/name", tracepoints and probes */
	int nr_probes;
	char probes[TRACE_MAX_EVENTS][64];	/* our dynamic events' names, in group */
	/*
	 * The trace clock: "mono" (CLOCK_MONOTONIC, comparable with
	 * clock_gettime), or "local" on a kernel without mono, whose
	 * timestamps only compare with each other.
	 */
	char clock[16];
	uint64_t clock_res_ns;		/* the clock's resolution (clock_getres), ns */
	/*
	 * Events the ring buffer overwrote or dropped since trace_open or the
	 * last trace_clear, as of the last trace_read: non-zero means what
	 * trace_read gave is incomplete.
	 */
	uint64_t lost;
	struct tracefs_instance *inst;
	struct tep_handle *tep;		/* event formats, loaded again after a new probe */
};

/* One raw event, as trace_read hands it on (valid only inside the callback). */
struct trace_event {
	uint64_t ts_ns;			/* the trace clock's ns, from the raw buffer */
	int pid;
	int cpu;
	const char *system;		/* "kvmmmu", or t->group for our probes */
	const char *name;		/* "kvm_mmu_zap_all_fast" */
	const void *tev, *rec;		/* libtraceevent's event and record */
};

/*
 * Create the instance: tracing off, mono clock, large buffers.  Mounts
 * tracefs privately if none is mounted.  Returns 0, or -1 with the reason
 * in why (no tracefs, no permission...).
 */
int trace_open(struct trace *t, char *why, size_t why_len);

/*
 * Add the tracepoints ("system/name") that exist; they record only while
 * armed.  Returns 0 if at least one exists, or -1 with why.
 */
int trace_add_events(struct trace *t, const char *const *events, int nr_events, char *why,
		     size_t why_len);

/*
 * Whether this kernel's dynamic_events take kprobes; if not, why says so
 * (with what they do take).
 */
bool trace_kprobes_supported(const struct trace *t, char *why, size_t why_len);

/*
 * A kprobe (or, at_return, a kretprobe) named name in t->group on the
 * kernel function func, with fetchargs ("ret=$retval") and an optional
 * filter ("ret != 0") in our instance.  Returns 0 or -1 with why.
 */
int trace_add_probe(struct trace *t, const char *name, const char *func, bool at_return,
		    const char *fetchargs, const char *filter, char *why, size_t why_len);

/* Whether /proc/kallsyms has the function (a text symbol, module or not). */
bool trace_kernel_has_function(const char *func);
/*
 * The same, taking a compiler's clone of it too ("func.constprop.0"), whose
 * symbol goes to out (a probe needs the name the kernel really has).
 */
bool trace_kernel_function_or_clone(const char *func, char *out, size_t out_len);

/* Discard what was recorded so far. */
void trace_clear(struct trace *t);
/* Arm (enable every event, then start recording) or disarm (the reverse). */
void trace_arm(struct trace *t, bool on);
/* Hand every recorded event to cb, in timestamp order across CPUs, consuming them. */
void trace_read(struct trace *t, void (*cb)(const struct trace_event *ev, void *arg), void *arg);
/* A numeric field of ev ("used_pages", a probe's "ret"), or def if it has none. */
uint64_t trace_field_u64(const struct trace_event *ev, const char *field, uint64_t def);
/* Remove the instance, our dynamic events and our mount. Idempotent. */
void trace_close(struct trace *t);

#endif
