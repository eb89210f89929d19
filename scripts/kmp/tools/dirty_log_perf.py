# SPDX-License-Identifier: GPL-2.0
"""dirty_log_perf in compare (seed 000's chunk table, seed 003's blocks), in
sweeps and in summaries."""
from ..figures import fig_caveat, fig_stat, fig_value, first_figure, median_run
from ..fmt import fmt_int, fmt_size, fmt_ts, framed_table
from ..hosts import SIDE_TITLES
from ..schema import BadData
from ..verdicts import JUDGE, VERBOSE, compare_line, emit, pct_cell, range_text, verdict

COMPARE_ORDER = 0       # its tables come first in compare's output
# Which way is better, where the unit does not say (verdicts.direction_of).
DIRECTIONS = {"pages_touched": "higher"}    # the vCPUs' progress while the host clears


def dlp_clear_figure(sec):
    """dirty_log_perf's clear figure and its labels (the ring resets instead)."""
    if sec.params.get("log") == "dirty_ring":
        return "reset_dirty_rings_time", "reset dirty rings", "Reset dirty rings"
    return "clear_dirty_log_time", "clear dirty log", "Clear dirty log"


def print_compare(pairs):
    """Seed 000's chunk table for the -j sections; seed 003's blocks for the lockstep ones."""
    seed000 = [p for p in pairs if p[0].params.get("nonstop")]
    seed003 = [p for p in pairs if not p[0].params.get("nonstop")]
    if seed000:
        print_dlp_seed000(seed000)
    if seed003:
        if seed000:
            print()
        print_dlp_seed003(seed003)


def print_dlp_seed000(pairs):
    def chunk(p):
        return p[0].params.get("clear_chunk_bytes", 0)
    pairs = sorted(pairs, key=lambda p: (chunk(p) != 0, -chunk(p), p[0].name))
    labels = [fmt_size(chunk(p)) for p in pairs]
    labels = [lab if labels.count(lab) == 1 else "%s (%s)" % (lab, p[0].name)
              for lab, p in zip(labels, pairs)]
    rows, caveats, verdicts, unknown = [], [], [], []
    for lab, (b, n) in zip(labels, pairs):
        clear = dlp_clear_figure(b)[0]
        # A loop too short for the vCPUs' figure: no percentage from it.
        why = [(side, fig_caveat(sec, "pages_touched")) for side, sec in (("BASE", b), ("NEW", n))]
        why = [(side, w) for side, w in why if w]
        caveats += ["%s %s: %s" % (lab, side, w) for side, w in why]
        vc = verdict(fig_stat(b, clear), fig_stat(n, clear), clear)
        vp = verdict(fig_stat(b, "pages_touched"), fig_stat(n, "pages_touched"), "pages_touched")
        verdicts.append((vc, vp))
        unknown += ["%s %s" % (lab, col) for col, v in (("clear time", vc), ("vCPUs", vp))
                     if v["verdict"] == "1 run" and not (col == "vCPUs" and why)]
        rows.append([lab, pct_cell(fig_stat(b, clear), fig_stat(n, clear), vc),
                     "n/a (loop too short)" if why else
                     pct_cell(fig_stat(b, "pages_touched"), fig_stat(n, "pages_touched"), vp)])
    print("dirty_log_perf (seed 000): median over repeats, BASE -> NEW")
    print("\n".join(framed_table(
        ["Clear Chunk size", "Clear dirty log time change", "vCPUs improvement"], rows)))
    for c in caveats:
        print("# vCPUs improvement n/a, %s" % c)
    # The table keeps the post's layout; a cell's ~ says its change is not significant.
    print("# ~: unknown; =: the same within +-%g%% (each figure's verdict: the table at the end)"
          % JUDGE.same_within)
    if unknown:
        print("# noise unknown (1 run): %s" % ", ".join(unknown))
    print("Clear dirty log time change: of the clear time's median total; vCPUs improvement:"
          " of the median pages touched (-j: while the host ran its iterations).")
    for lab, (b, n), (vc, vp) in zip(labels, pairs, verdicts):
        if not VERBOSE[0]:
            break
        clear, name, _ = dlp_clear_figure(b)
        print()
        print("%s, clear chunk %s:" % (b.name, fmt_size(chunk((b, n)))))
        emit(compare_line(name + " time", fig_stat(b, clear), fig_stat(n, clear), fmt_ts,
                          row=vc))
        emit(compare_line("pages touched", fig_stat(b, "pages_touched"),
                          fig_stat(n, "pages_touched"), fmt_int, row=vp))


def print_dlp_seed003(pairs):
    print("dirty_log_perf (seed 003): BASE -> NEW; each block is one run, the median by total")
    for b, n in sorted(pairs, key=lambda p: p[0].name):
        clear, name, total_name = dlp_clear_figure(b)
        print()
        print("%s:" % b.name)
        emit(compare_line(name + " time", fig_stat(b, clear), fig_stat(n, clear), fmt_ts))
        for title, sec in zip(SIDE_TITLES, (b, n)):
            print()
            print(title)
            print("-" * len(title))
            rec = median_run(sec, clear)
            iters = rec["figures"][clear].get("values", []) if rec else []
            if not iters:
                print("(no %s time in these records)" % name)
                continue
            # The run's own lines: they add up to its total, as the post's do.
            for i, v in enumerate(iters):
                print("Iteration %d %s time: %s" % (i + 1, name, fmt_ts(v)))
            total = fig_value(rec, clear)
            avg_ns = int(round(total * 1e9)) // len(iters)
            print("%s over %d iterations took %s. (Avg %s/iteration)"
                  % (total_name, len(iters), fmt_ts(total), fmt_ts(avg_ns / 1e9)))
            t = fig_stat(sec, clear)
            print("# the median of %d run(s) by total; totals %s" % (t.n, range_text(t, fmt_ts)))


def check_record(rec):
    """The members the tables compute with have their C types."""
    chunk = rec.get("params", {}).get("clear_chunk_bytes", 0)
    if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 0:
        raise BadData("params/clear_chunk_bytes is not a byte count")


# sweep-table's series: (column, label, unit, samples of one record, y axis).
SWEEP_SERIES = [
    ("clear_time_ms", "clear dirty log time", "ms",
     first_figure("clear_dirty_log_time reset_dirty_rings_time", 1e3), 1),
    ("pages_touched", "pages touched", "pages", first_figure("pages_touched"), 2)]

# summary's figures, where the record has them.
MAIN_FIGURES = ["clear_dirty_log_time", "reset_dirty_rings_time", "get_dirty_log_time",
                "pages_touched"]
