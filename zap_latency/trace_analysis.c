// SPDX-License-Identifier: GPL-2.0
/*
 * What the kvmmmu tracepoints say about one zap: the kernel zap window
 * (from kvm_mmu_zap_all_fast to the zapping task's last zap event inside
 * the ioctl), the pages it zapped, and the lock breaks observed: each time
 * other tasks' MMU events (vCPUs faulting) fall between two of the zapping
 * task's events, it must have dropped mmu_lock in between.  A break with no
 * traced event in it is not seen: the count is a lower bound.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report.h"
#include "zl.h"

/*
 * Only events that happen under mmu_lock: a vCPU's lockless fast path
 * (fast_page_fault) could interleave with the zap without any break.
 */
static const char *const shadow_events[] = {
	"kvmmmu/kvm_mmu_zap_all_fast", "kvmmmu/kvm_mmu_prepare_zap_page",
	"kvmmmu/kvm_mmu_get_page", "kvmmmu/kvm_mmu_set_spte",
};
/* TDP MMU faults hold mmu_lock for read: breaks of the write-locked part only. */
static const char *const tdp_events[] = {
	"kvmmmu/kvm_mmu_zap_all_fast", "kvmmmu/kvm_tdp_mmu_spte_changed",
};

void zl_trace_setup(struct zl *z)
{
	const char *const *ev = z->tdp ? tdp_events : shadow_events;
	int n = z->tdp ? ARRAY_SIZE(tdp_events) : ARRAY_SIZE(shadow_events);

	strcpy(z->zap_event, "kvm_mmu_zap_all_fast");
	z->traced = trace_open(&z->trace, ev, n, z->trace_why, sizeof(z->trace_why)) == 0;
	/* Windows are matched against CLOCK_MONOTONIC: any other trace clock is useless. */
	if (z->traced && strcmp(z->trace.clock, "mono")) {
		snprintf(z->trace_why, sizeof(z->trace_why), "tracefs has no \"mono\" trace clock "
			 "(only \"%s\"), so trace times cannot be matched to the zap", z->trace.clock);
		trace_close(&z->trace);
		z->traced = false;
	}
}

enum ev_kind { EV_ZAP_ALL, EV_ZAP_PAGE, EV_OTHER };

struct ev {
	uint64_t ts;
	int pid;
	enum ev_kind kind;
	uint64_t used_pages;
};

struct collect {
	struct zl *z;
	struct ev *evs;
	size_t n, cap;
	uint64_t lo, hi;	/* the ioctl's time range, ns */
};

static void collect_one(const struct trace_event *te, void *arg)
{
	struct collect *c = arg;
	struct ev e = { .ts = te->ts_ns, .pid = te->pid, .kind = EV_OTHER };

	if (te->ts_ns < c->lo || te->ts_ns > c->hi)
		return;
	if (!strcmp(te->name, "kvm_mmu_zap_all_fast")) {
		e.kind = EV_ZAP_ALL;
		e.used_pages = trace_arg_u64(te, "used_pages", 16, 0);
	} else if (!strcmp(te->name, c->z->tdp ? "kvm_tdp_mmu_spte_changed" :
					       "kvm_mmu_prepare_zap_page")) {
		e.kind = EV_ZAP_PAGE;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->evs = realloc(c->evs, c->cap * sizeof(*c->evs));
		TEST_ASSERT(c->evs, "out of memory");
	}
	c->evs[c->n++] = e;
}

void zl_trace_analyze(struct zl *z, struct zl_zap *zap, struct timespec t0, struct timespec t1)
{
	struct collect c = { .z = z, .lo = ts_to_ns(t0), .hi = ts_to_ns(t1) };
	int me = syscall(SYS_gettid);
	size_t first = SIZE_MAX, last = SIZE_MAX;
	bool other_since_mine = false;

	trace_read(&z->trace, collect_one, &c);
	zap->trace_lost = z->trace.lost;
	/* The window: our zap-all (or, without it, our first page zap) to our last zap. */
	for (size_t i = 0; i < c.n; i++) {
		if (c.evs[i].pid != me || c.evs[i].kind == EV_OTHER)
			continue;
		if (first == SIZE_MAX || (c.evs[i].kind == EV_ZAP_ALL && c.evs[first].kind != EV_ZAP_ALL))
			first = i;
		last = i;
	}
	zap->traced = true;
	if (first == SIZE_MAX) {
		free(c.evs);
		return;		/* nothing zapped by us in the ioctl: window 0 */
	}
	if (c.evs[first].kind == EV_ZAP_ALL)
		zap->used_pages = c.evs[first].used_pages;
	zap->window_ns = c.evs[last].ts - c.evs[first].ts;
	for (size_t i = first; i <= last; i++) {
		if (c.evs[i].pid != me) {
			zap->other_events++;
			other_since_mine = true;
			continue;
		}
		if (c.evs[i].kind == EV_ZAP_PAGE)
			zap->prepare_zaps++;
		if (other_since_mine)
			zap->lock_breaks++;
		other_since_mine = false;
	}
	free(c.evs);
}
