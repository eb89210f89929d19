# SPDX-License-Identifier: GPL-2.0
"""demand_paging in compare (seed 002's table of rates with and without the
new cap), in sweeps and in summaries."""
import json
import statistics

from ..figures import Stat, fig_value
from ..schema import BadData, is_num
from ..verdicts import JUDGE, VERBOSE, compare_line, emit

COMPARE_ORDER = 1


def dp_runs(rec):
    """demand_paging: (vcpus, mem_fault_exits, overall rate) of every run of a record."""
    if rec.get("runs") is not None:
        return [(int(r["vcpus"]), r["mem_fault_exits"],
                 r["figures"].get("overall_paging_rate", {}).get("value")) for r in rec["runs"]]
    p = rec.get("params", {})
    return [(p.get("vcpus"), p.get("mem_fault_exits", False),
             fig_value(rec, "overall_paging_rate"))]


def dp_cells(secs):
    """{(vcpus, w): Stat of the rates in K pages/s} over every run of the sections."""
    samples = {}
    for sec in secs:
        for _, rec in sec.passed:
            for vcpus, w, rate in dp_runs(rec):
                if rate is not None and vcpus is not None:
                    samples.setdefault((vcpus, w), []).append(rate / 1000)
    return {k: Stat(v) for k, v in samples.items()}


def print_compare(pairs):
    # Sections of one workload (all but the vCPU count, -w and the sweep) share a table.
    groups = {}
    for b, n in pairs:
        key = json.dumps({k: v for k, v in b.params.items()
                          if k not in ("vcpus", "mem_fault_exits", "sweep_vcpus", "repeat")},
                         sort_keys=True)
        groups.setdefault(key, []).append((b, n))
    for key, grp in groups.items():
        workload = json.loads(key)
        names = ", ".join(b.name for b, _ in grp)
        print("demand_paging (seed 002): sections %s" % names)
        print("# " + ", ".join("%s %s" % (k, json.dumps(v)) for k, v in workload.items()))
        cells = [dp_cells([b for b, _ in grp]), dp_cells([n for _, n in grp])]
        counts = sorted({v for c in cells for v, _ in c})
        for title, c in (("BASE", cells[0]), ("NEW", cells[1])):
            print("%s:" % title)
            # The post's two columns hold means, as its "average of five runs" does.
            print("vCPUs, Paging Rate (w/o new cap), Paging Rate (w/ new cap), w/ : w/o")
            for v in counts:
                means = [statistics.mean(c[(v, w)].samples) if (v, w) in c else None
                         for w in (False, True)]
                ratio = "n/a"
                if None not in means and means[0]:
                    # The ratio cell compares the two columns: judged as any change is.
                    row = JUDGE.judge(names, "%d vCPUs w/ : w/o new cap (%s)" % (v, title),
                                      "K pages/s", c[(v, False)].samples, c[(v, True)].samples,
                                      block="within %s" % title)
                    ratio = "x%.2f" % (means[1] / means[0]) + \
                        {"unknown": " ~", "same": " ="}.get(row["verdict"], "")
                print(" ".join([str(v)] + ["%.0f" % m if m is not None else "n/a" for m in means]
                               + [ratio]))
            if any(w for _, w in c):
                # Which kernel each column is from (ab: A unpatched, B patched).
                print("# both columns from %s's kernel: each vCPU count run without and with -w "
                      "in one run (--sweep-vcpus)" % title)
            for v in counts:
                print("# %d vCPUs: median (range) %s" % (v, ", ".join(
                    "%s %.0f (%.0f..%.0f)" % (what, c[(v, w)].med, c[(v, w)].lo, c[(v, w)].hi)
                    for w, what in ((False, "w/o"), (True, "w/")) if (v, w) in c)))
        print("# rates in thousands of pages/s: each cell the mean over every run of every "
              "repeat; medians and ranges on the # lines")
        print("# w/ : w/o, the two columns within one side: ~ unknown, = the same within +-%g%% "
              "(alpha %g; the within-one-side table at the end)" % (JUDGE.same_within,
                                                                    JUDGE.alpha))
        if VERBOSE[0]:
            print("BASE -> NEW:")
        for v in counts:
            for w, what in ((False, "w/o new cap"), (True, "w/ new cap")):
                b, n = cells[0].get((v, w)), cells[1].get((v, w))
                if b or n:
                    b, n = b or Stat([]), n or Stat([])
                    b.where = (names, "%d vCPUs, %s" % (v, what), "K pages/s")
                    emit(compare_line(b.where[1], b, n, lambda x: "%.0f" % x, "ratio",
                                      lambda x: "%.1f" % x))
        reasons = sorted({rec.get("mem_fault_exits_unsupported") for b, n in grp
                          for _, rec in b.passed + n.passed} - {None})
        for r in reasons:
            print("# n/a: %s" % r)


def dp_rates(w):
    return lambda rec: [r / 1000 for v, ww, r in dp_runs(rec) if ww == w and r is not None]


def check_record(rec):
    """The members the tables compute with have their C types."""
    params = rec.get("params", {})
    if params.get("vcpus") is not None and not is_num(params["vcpus"]):
        raise BadData("params/vcpus is not a number")
    if not isinstance(params.get("mem_fault_exits", False), bool):
        raise BadData("params/mem_fault_exits is not true or false")
    why = rec.get("mem_fault_exits_unsupported")
    if why is not None and not isinstance(why, str):
        raise BadData("mem_fault_exits_unsupported is not a string or null")


# sweep-table's series: (column, label, unit, samples of one record, y axis).
SWEEP_SERIES = [
    ("paging_rate_kpages_s", "paging rate w/o new cap", "K pages/s", dp_rates(False), 1),
    ("paging_rate_w_kpages_s", "paging rate w/ new cap", "K pages/s", dp_rates(True), 1)]


def summary_figures(sec):
    """summary's figures: the rate of each vCPU count, with and without -w."""
    return ["%d vCPUs%s %.1fK pages/s" % (v, " -w" if w else "", st.med)
            for (v, w), st in sorted(dp_cells([sec]).items())]
