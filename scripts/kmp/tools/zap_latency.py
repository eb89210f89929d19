# SPDX-License-Identifier: GPL-2.0
"""zap_latency in compare (seed 004's lock breaks and zap span), in sweeps
and in summaries."""
from ..figures import fig_stat, first_figure
from ..fmt import fmt_int, fmt_num
from ..schema import BadData
from ..verdicts import compare_line, emit

COMPARE_ORDER = 3

ZAP_EVENT = "kvm_mmu_zap_all_fast"     # zap_latency's line name when a record names none


def print_compare(pairs):
    print("zap_latency (seed 004): medians over repeats of each run's median over its zaps")
    hexdec = lambda v: "%d ns (0x%x)" % (int(round(v)), int(round(v)))   # noqa: E731
    for b, n in pairs:
        print("%s:" % b.name)
        for title, sec in (("base:", b), ("new: ", n)):
            brk, win = fig_stat(sec, "lock_breaks"), fig_stat(sec, "kernel_zap_span")
            trace = sec.passed[0][1].get("trace", {}) if sec.passed else {}
            if win.n:
                if brk.n:
                    print("  %s lock-break: %d." % (title, int(round(brk.med))))
                else:   # no kretprobes there: never an inferred number
                    print("  %s lock-break: not observable (%s)" % (
                        title, trace.get("lock_breaks_unavailable") or "not in the record"))
                print("        %s: %x." % (trace.get("span_function") or ZAP_EVENT,
                                         int(round(win.med))))
            else:
                reason = sec.params.get("trace_unavailable") or "no traced zap"
                print("  %s trace figures unavailable: %s" % (title, reason))
        emit(compare_line("kernel zap span", fig_stat(b, "kernel_zap_span"),
                           fig_stat(n, "kernel_zap_span"), hexdec, "pct", fmt_int))
        emit(compare_line("ioctl latency", fig_stat(b, "ioctl_latency"),
                           fig_stat(n, "ioctl_latency"), lambda v: "%d ns" % int(round(v))))
        emit(compare_line("lock breaks", fig_stat(b, "lock_breaks"),
                           fig_stat(n, "lock_breaks"), fmt_num))
        for name, title in (("longest_stretch", "longest stretch without a break"),
                            ("lock_break_offers", "lock-break offers"),
                            ("pages_before_first_offer", "pages zapped before the first offer"),
                            ("mmu_shadow_zapped", "MMU pages zapped"),
                            ("mappings_dropped", "mappings dropped")):
            if fig_stat(b, name).n or fig_stat(n, name).n:
                emit(compare_line(title, fig_stat(b, name), fig_stat(n, name), fmt_num))


def check_record(rec):
    """The members the tables compute with have their C types."""
    trace = rec.get("trace", {})
    if not isinstance(trace, dict):
        raise BadData("trace is not an object")
    for key in ("span_function", "lock_breaks_unavailable"):
        if trace.get(key) is not None and not isinstance(trace[key], str):
            raise BadData("trace/%s is not a string or null" % key)


# sweep-table's series: (column, label, unit, samples of one record, y axis).
SWEEP_SERIES = [
    ("ioctl_latency_ms", "ioctl latency", "ms", first_figure("ioctl_latency", 1e-6), 1),
    ("kernel_zap_span_ms", "kernel zap span", "ms", first_figure("kernel_zap_span", 1e-6), 1)]

# summary's figures.
MAIN_FIGURES = ["ioctl_latency", "kernel_zap_span", "lock_breaks"]
