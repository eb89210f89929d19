// SPDX-License-Identifier: GPL-2.0
/*
 * How traced zaps see into the kernel, chosen from the running kernel:
 *
 * - kprobes, where its dynamic_events take them: entry and return of the
 *   function the slot zap really runs (resolved in kallsyms), of the TDP
 *   MMU's root zapper wherever it runs (6.1 zaps invalidated roots in a
 *   kworker), and the returns of __cond_resched_rwlock_write/_read that
 *   report a dropped lock;
 * - else the kvmmmu tracepoints: from kvm_mmu_zap_all_fast to the zapping
 *   task's last zap event, with no lock breaks (none can be told apart).
 *
 * Both read the raw buffers, whose timestamps are the mono clock's ns.
 */
#include <string.h>

#include "host_desc.h"
#include "report.h"
#include "zl.h"

/* Only events that happen under mmu_lock (fast_page_fault does not). */
static const char *const shadow_events[] = {
	"kvmmmu/kvm_mmu_zap_all_fast", "kvmmmu/kvm_mmu_prepare_zap_page",
	"kvmmmu/kvm_mmu_get_page", "kvmmmu/kvm_mmu_set_spte",
};
static const char *const tdp_events[] = {
	"kvmmmu/kvm_mmu_zap_all_fast", "kvmmmu/kvm_tdp_mmu_spte_changed",
};

/*
 * The function a memslot delete or move runs to zap, entry to return.
 * x86 zap-all: 6.1 calls kvm_mmu_zap_all_fast, which takes mmu_lock, zaps
 * the obsolete pages, commits and waits for the root zapper.  6.12 splits
 * it into halves that kvm_arch_flush_shadow_memslot calls directly (and
 * kvm_mmu_zap_all_fast, if not inlined, runs only on an MMIO generation
 * wrap).  Slot-only zaps, and the other arches, go through
 * kvm_arch_flush_shadow_memslot.
 */
static const char *span_function(const struct zl *z)
{
	if (!z->slot_only && !trace_kernel_has_function("__kvm_mmu_zap_all_fast_front_half") &&
	    trace_kernel_has_function("kvm_mmu_zap_all_fast"))
		return "kvm_mmu_zap_all_fast";
	if (trace_kernel_has_function("kvm_arch_flush_shadow_memslot"))
		return "kvm_arch_flush_shadow_memslot";
	return NULL;
}

/* What a lock break is on this kernel (rwlock_needbreak, kernel/sched). */
static const char *break_meaning(const struct zl *z)
{
	bool preemptible = !strcmp(z->preempt, "full") || !strcmp(z->preempt, "rt") ||
			   !strcmp(z->preempt, "lazy");

	if (preemptible)
		return "mmu_lock dropped for a pending reschedule or a waiter on mmu_lock";
	/* Not read: say what either model would mean, never guess one. */
	if (!strcmp(z->preempt, "unknown"))
		return "mmu_lock dropped for a pending reschedule, or also for a waiter on "
		       "mmu_lock if the live model is preemptible (it could not be read)";
	if (host_kernel_at_least(6, 11))
		return "mmu_lock dropped for a pending reschedule only (since 6.11 a waiter "
		       "breaks the lock only on a preemptible kernel)";
	return "mmu_lock dropped for a pending reschedule or, with CONFIG_PREEMPTION, a "
	       "waiter on mmu_lock";
}

static int probe_pair(struct zl *z, const char *base, const char *func, char *why, size_t len)
{
	char in[32], out[32];

	snprintf(in, sizeof(in), "%s_in", base);
	snprintf(out, sizeof(out), "%s_out", base);
	if (trace_add_probe(&z->trace, in, func, false, NULL, NULL, why, len) ||
	    trace_add_probe(&z->trace, out, func, true, NULL, NULL, why, len))
		return -1;
	return 0;
}

/*
 * Lock breaks: the returns of the cond_resched rwlock helpers that dropped
 * the lock.  Their entries too: a breaking call's entry is where the lock
 * was still held, so the stretches between breaks can be told.
 */
static void setup_breaks(struct zl *z)
{
	static const char *const funcs[] = { "__cond_resched_rwlock_write",
					     "__cond_resched_rwlock_read" };
	static const char *const names[] = { "break_w", "break_r" };
	static const char *const entries[] = { "offer_w", "offer_r" };

	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		if (!trace_kernel_has_function(funcs[i])) {
			snprintf(z->breaks_why, sizeof(z->breaks_why), "this kernel has no %s",
				 funcs[i]);
			return;
		}
		if (trace_add_probe(&z->trace, names[i], funcs[i], true, "ret=$retval", "ret != 0",
				    z->breaks_why, sizeof(z->breaks_why)) ||
		    trace_add_probe(&z->trace, entries[i], funcs[i], false, NULL, NULL,
				    z->breaks_why, sizeof(z->breaks_why)))
			return;
	}
	z->breaks_known = true;
}

static bool setup_kprobes(struct zl *z, char *why, size_t len)
{
	const char *func;

	if (!trace_kprobes_supported(&z->trace, why, len))
		return false;
	func = span_function(z);
	if (!func) {
		snprintf(why, len, "kallsyms has no kvm_mmu_zap_all_fast or "
			 "kvm_arch_flush_shadow_memslot to probe");
		return false;
	}
	if (probe_pair(z, "span", func, why, len))
		return false;
	snprintf(z->span_func, sizeof(z->span_func), "%s", func);
	snprintf(z->span_what, sizeof(z->span_what), "entry to return of %s in the ioctl's task "
		 "(kprobe and kretprobe)", func);
	/* The TDP MMU's root zapper: in a kworker on 6.1, in the ioctl's task later. */
	if (z->tdp && trace_kernel_has_function("__tdp_mmu_zap_root") &&
	    !probe_pair(z, "root", "__tdp_mmu_zap_root", why, len))
		strcpy(z->helper_func, "__tdp_mmu_zap_root");
	setup_breaks(z);
	/* Shadow pages: the page zaps too, for the batch zapped before the first offer. */
	if (!z->tdp && z->breaks_known)
		z->page_events = !trace_add_events(&z->trace, shadow_events + 1, 1, why, len);
	z->mechanism = MECH_KPROBE;
	return true;
}

static bool setup_tracepoints(struct zl *z, char *why, size_t len)
{
	const char *const *ev = z->tdp ? tdp_events : shadow_events;
	int n = z->tdp ? ARRAY_SIZE(tdp_events) : ARRAY_SIZE(shadow_events);

	if (trace_add_events(&z->trace, ev, n, why, len))
		return false;
	strcpy(z->span_func, "kvm_mmu_zap_all_fast");
	snprintf(z->span_what, sizeof(z->span_what), "from the kvm_mmu_zap_all_fast tracepoint "
		 "to the zapping task's last %s event", z->tdp ? "kvm_tdp_mmu_spte_changed" :
		 "kvm_mmu_prepare_zap_page");
	z->mechanism = MECH_TRACEPOINT;
	return true;
}

void zl_trace_setup(struct zl *z)
{
	char kprobe_why[384] = "", tp_why[256] = "";

	host_preempt_model(z->preempt, sizeof(z->preempt), &z->preempt_source);
	z->break_means = break_meaning(z);
	if (!z->o.traced_zaps) {
		snprintf(z->trace_why, sizeof(z->trace_why), "no traced zaps asked for (--traced 0)");
		snprintf(z->breaks_why, sizeof(z->breaks_why), "%s", z->trace_why);
		return;
	}
	if (trace_open(&z->trace, z->trace_why, sizeof(z->trace_why))) {
		snprintf(z->breaks_why, sizeof(z->breaks_why), "%s", z->trace_why);
		return;
	}
	/* Span and breaks are matched against CLOCK_MONOTONIC: no other trace clock will do. */
	if (strcmp(z->trace.clock, "mono")) {
		snprintf(z->trace_why, sizeof(z->trace_why), "tracefs has no \"mono\" trace clock "
			 "(only \"%s\"), so trace times cannot be matched to the zap", z->trace.clock);
		snprintf(z->breaks_why, sizeof(z->breaks_why), "%s", z->trace_why);
		trace_close(&z->trace);
		return;
	}
	if (setup_kprobes(z, kprobe_why, sizeof(kprobe_why))) {
		z->traced = true;
		return;
	}
	snprintf(z->breaks_why, sizeof(z->breaks_why), "%s", kprobe_why);
	/* Probes made before one was refused are of no use: start again without them. */
	if (z->trace.nr_probes) {
		trace_close(&z->trace);
		if (trace_open(&z->trace, z->trace_why, sizeof(z->trace_why)))
			return;
	}
	if (setup_tracepoints(z, tp_why, sizeof(tp_why))) {
		z->traced = true;
		return;
	}
	trace_close(&z->trace);
	snprintf(z->trace_why, sizeof(z->trace_why), "no kprobes (%s) and no tracepoints (%s)",
		 kprobe_why, tp_why);
}
