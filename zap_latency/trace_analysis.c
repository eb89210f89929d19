// SPDX-License-Identifier: GPL-2.0
/*
 * What one traced zap's events say (the mechanism is trace_setup.c's):
 *
 * kprobes: the span is the ioctl task's entry to return of the zap
 * function.  The zap's tasks are that task over the span, and each task
 * that ran the root zapper inside the span, over its own entry to return.
 * A lock break is a cond_resched rwlock helper returning "dropped" in one of
 * those tasks and windows: exact, whoever waited for the lock.  The longest
 * stretch without a break is the ioctl task's: from the span's entry, or a
 * break's return (the lock taken again), to the next breaking call's entry
 * (the lock still held), or to the span's return.  On an MMU with shadow
 * pages, the pages the ioctl task zaps before its first offer, roots in use
 * left out, are the batch kvm_zap_obsolete_pages zaps between offers
 * (BATCH_ZAP_PAGES).
 *
 * tracepoints: the span runs from kvm_mmu_zap_all_fast to the zapping
 * task's last zap event; other tasks' MMU events inside it are counted,
 * but no lock break can be told from them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report.h"
#include "zl.h"

enum ev_kind {
	EV_SPAN_IN, EV_SPAN_OUT, EV_ROOT_IN, EV_ROOT_OUT, EV_BREAK, EV_OFFER,
	EV_ZAP_ALL, EV_ZAP_PAGE, EV_OTHER,
};

struct ev {
	uint64_t ts;
	int pid;
	enum ev_kind kind;
	uint64_t used_pages;
	bool counted;		/* a page zap the batch counts: not a root still in use */
};

struct collect {
	struct zl *z;
	struct ev *evs;
	size_t n, cap;
	uint64_t lo, hi;	/* the ioctl's time range, ns */
};

static enum ev_kind kind_of(const struct zl *z, const struct trace_event *te)
{
	static const struct { const char *name; enum ev_kind kind; } probes[] = {
		{ "span_in", EV_SPAN_IN }, { "span_out", EV_SPAN_OUT },
		{ "root_in", EV_ROOT_IN }, { "root_out", EV_ROOT_OUT },
		{ "break_w", EV_BREAK }, { "break_r", EV_BREAK },
		{ "offer_w", EV_OFFER }, { "offer_r", EV_OFFER },
	};

	if (!strcmp(te->system, z->trace.group)) {
		for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
			if (!strcmp(te->name, probes[i].name))
				return probes[i].kind;
		return EV_OTHER;
	}
	if (!strcmp(te->name, "kvm_mmu_zap_all_fast"))
		return EV_ZAP_ALL;
	if (!strcmp(te->name, z->tdp ? "kvm_tdp_mmu_spte_changed" : "kvm_mmu_prepare_zap_page"))
		return EV_ZAP_PAGE;
	return EV_OTHER;
}

static void collect_one(const struct trace_event *te, void *arg)
{
	struct collect *c = arg;
	struct ev e = { .ts = te->ts_ns, .pid = te->pid, .kind = kind_of(c->z, te) };

	if (te->ts_ns < c->lo || te->ts_ns > c->hi)
		return;
	if (e.kind == EV_ZAP_ALL)
		e.used_pages = trace_field_u64(te, "mmu_used_pages", 0);
	/* A root some vCPU still holds is zapped without counting (nr_zapped). */
	if (e.kind == EV_ZAP_PAGE)
		e.counted = !trace_field_u64(te, "root_count", 0);
	if (c->n == c->cap) {
		struct ev *grown;

		c->cap = c->cap ? c->cap * 2 : 4096;
		grown = realloc(c->evs, c->cap * sizeof(*c->evs));
		TEST_ASSERT(grown, "out of memory");
		c->evs = grown;
	}
	c->evs[c->n++] = e;
}

/* The first event of kind by pid at or after index from; c->n if none. */
static size_t next_of(const struct collect *c, size_t from, enum ev_kind kind, int pid)
{
	for (size_t i = from; i < c->n; i++)
		if (c->evs[i].kind == kind && c->evs[i].pid == pid)
			return i;
	return c->n;
}

/* Whether pid ran the root zapper around ts, entering inside [lo, hi]. */
static bool in_root_zap(const struct collect *c, int pid, uint64_t ts, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct ev *in = &c->evs[i];
		size_t out;

		if (in->kind != EV_ROOT_IN || in->pid != pid || in->ts < lo || in->ts > hi ||
		    in->ts > ts)
			continue;
		out = next_of(c, i + 1, EV_ROOT_OUT, pid);
		if (out < c->n && c->evs[out].ts >= ts)
			return true;
	}
	return false;
}

/*
 * The ioctl task's longest stretch in [in, out] without a lock break; false
 * if a break's entry is missing (a lost event), so that no figure is made up.
 */
static bool longest_stretch(const struct collect *c, size_t in, size_t out, int me,
			    uint64_t *longest)
{
	uint64_t held_since = c->evs[in].ts, offered = 0;
	bool offer_seen = false;

	*longest = 0;
	for (size_t i = in + 1; i <= out; i++) {
		const struct ev *e = &c->evs[i];

		if (e->pid != me)
			continue;
		if (e->kind == EV_OFFER) {
			offered = e->ts;
			offer_seen = true;
		} else if (e->kind == EV_BREAK) {
			if (!offer_seen)
				return false;
			if (offered - held_since > *longest)
				*longest = offered - held_since;
			held_since = e->ts;
			offer_seen = false;
		}
	}
	if (c->evs[out].ts - held_since > *longest)
		*longest = c->evs[out].ts - held_since;
	return true;
}

/*
 * The ioctl task's page zaps from the span's entry to its first offer, as
 * the batch counts them: a root still in use is zapped first (the list is
 * walked oldest first) but not counted, since it is freed only later.
 */
static void first_batch(struct zl_zap *zap, const struct collect *c, size_t in, size_t out,
			int me)
{
	uint64_t pages = 0;

	if (!c->z->page_events || c->z->trace.lost)
		return;		/* a lost zap event would shrink it */
	for (size_t i = in + 1; i <= out; i++) {
		if (c->evs[i].pid != me)
			continue;
		if (c->evs[i].kind == EV_OFFER) {
			zap->first_batch_seen = true;
			zap->first_batch = pages;
			return;
		}
		pages += c->evs[i].kind == EV_ZAP_PAGE && c->evs[i].counted;
	}
}

static void analyze_kprobes(struct zl_zap *zap, const struct collect *c, int me)
{
	size_t in = next_of(c, 0, EV_SPAN_IN, me), out, i;
	uint64_t lo, hi;
	int tasks[64], nr_tasks = 1;

	out = in < c->n ? next_of(c, in + 1, EV_SPAN_OUT, me) : c->n;
	if (out == c->n)
		return;		/* the function did not run (or ran outside the ioctl) */
	lo = c->evs[in].ts;
	hi = c->evs[out].ts;
	zap->span_seen = true;
	zap->span_ns = hi - lo;
	tasks[0] = me;
	for (i = in; i <= out; i++) {
		const struct ev *e = &c->evs[i];
		bool counted = false;

		if (e->kind == EV_ROOT_IN && e->pid != me) {
			for (int k = 0; k < nr_tasks; k++)
				counted |= tasks[k] == e->pid;
			if (!counted && nr_tasks < (int)ARRAY_SIZE(tasks))
				tasks[nr_tasks++] = e->pid;
		}
		if ((e->kind == EV_BREAK || e->kind == EV_OFFER) &&
		    (e->pid == me || in_root_zap(c, e->pid, e->ts, lo, hi)))
			*(e->kind == EV_BREAK ? &zap->lock_breaks : &zap->offers) += 1;
	}
	zap->zap_tasks = nr_tasks;
	first_batch(zap, c, in, out, me);
	/* A lost break would merge two stretches into one too long: none then. */
	zap->stretch_seen = !c->z->trace.lost &&
			    longest_stretch(c, in, out, me, &zap->longest_stretch_ns);
}

static void analyze_tracepoints(struct zl_zap *zap, const struct collect *c, int me)
{
	size_t first = SIZE_MAX, last = SIZE_MAX;

	/* Our zap-all (or, without it, our first page zap) to our last zap. */
	for (size_t i = 0; i < c->n; i++) {
		if (c->evs[i].pid != me || c->evs[i].kind == EV_OTHER)
			continue;
		if (first == SIZE_MAX ||
		    (c->evs[i].kind == EV_ZAP_ALL && c->evs[first].kind != EV_ZAP_ALL))
			first = i;
		last = i;
	}
	if (first == SIZE_MAX)
		return;		/* nothing zapped by us in the ioctl */
	zap->span_seen = true;
	zap->zap_tasks = 1;
	if (c->evs[first].kind == EV_ZAP_ALL)
		zap->used_pages = c->evs[first].used_pages;
	zap->span_ns = c->evs[last].ts - c->evs[first].ts;
	for (size_t i = first; i <= last; i++) {
		if (c->evs[i].pid != me)
			zap->other_events++;
		else if (c->evs[i].kind == EV_ZAP_PAGE)
			zap->page_zap_events++;
	}
}

void zl_trace_analyze(struct zl *z, struct zl_zap *zap, struct timespec t0, struct timespec t1)
{
	struct collect c = { .z = z, .lo = ts_to_ns(t0), .hi = ts_to_ns(t1) };
	int me = syscall(SYS_gettid);

	trace_read(&z->trace, collect_one, &c);
	zap->traced = true;
	zap->trace_lost = z->trace.lost;
	if (z->mechanism == MECH_KPROBE)
		analyze_kprobes(zap, &c, me);
	else
		analyze_tracepoints(zap, &c, me);
	/* Never finer than the clock ticks. */
	zap->span_ns -= zap->span_ns % z->trace.clock_res_ns;
	zap->longest_stretch_ns -= zap->longest_stretch_ns % z->trace.clock_res_ns;
	free(c.evs);
}
