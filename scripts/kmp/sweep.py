# SPDX-License-Identifier: GPL-2.0
"""kmp_results.py sweep-table: sections PREFIX-VAR=VALUE as a table, a CSV
and, with gnuplot, a plot; each tool's series are its module's SWEEP_SERIES."""
import os
import re
import shutil
import subprocess
import sys

from . import tools
from .figures import Stat
from .fmt import PROG, fail
from .records import load_set

SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([KMGT])B?$", re.I)


def sweep_number(text):
    """A sweep value as a number: 4, 0.5, or a size (64M, 1G) in bytes."""
    try:
        return float(text)
    except ValueError:
        pass
    m = SIZE.match(text)
    if not m:
        return None
    return float(m[1]) * 1024 ** ("KMGT".index(m[2].upper()) + 1)


def gp_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gnuplot_script(folder, var, tool, points, series):
    """Medians with min..max error bars; a second y axis for a second unit."""
    rows = []
    for x, label, _, stats in points:
        cells = []
        for st in stats:
            cells += ["%.9g" % v for v in (st.med, st.lo, st.hi)] if st.n else ["NaN"] * 3
        rows.append(" ".join(["%.9g" % x, gp_quote(label)] + cells))
    xs = [p[0] for p in points]
    logx = min(xs) > 0 and max(xs) / min(xs) >= 16
    units = [s[2] for s in series]
    lines = ["$data << EOD"] + rows + ["EOD",
             "set title %s noenhanced" % gp_quote("%s: %s sweep (median, min..max)"
                                                 % (tool, var)),
             "set xlabel %s noenhanced" % gp_quote(var),
             "set ylabel %s" % gp_quote(units[0]),
             "set grid", "set key below noenhanced", "set yrange [0:*]", 'set format y "%g"',
             "set offsets graph 0.05, graph 0.05, 0, 0"]
    if logx:
        lines.append("set logscale x 2")
    if any(s[4] == 2 for s in series):
        y2 = next(s[2] for s in series if s[4] == 2)
        lines += ["set ytics nomirror", "set y2tics", "set y2range [0:*]",
                  "set y2label %s" % gp_quote(y2), 'set format y2 "%g"']
    plots = []
    for i, s in enumerate(series):
        col = 3 + 3 * i
        plots.append("$data using 1:%d:%d:%d%s axes x1y%d with yerrorlines title %s" % (
            col, col + 1, col + 2, ":xtic(2)" if i == 0 else "", s[4],
            gp_quote("%s (%s)" % (s[1], s[2]))))
    png, svg = os.path.join(folder, "sweep.png"), os.path.join(folder, "sweep.svg")
    lines += ['if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {',
              "  set terminal pngcairo size 900,560", "} else {",
              "  set terminal png size 900,560", "}",
              "set output %s" % gp_quote(png), "plot " + ", ".join(plots),
              "set terminal svg size 900,560", "set output %s" % gp_quote(svg), "replot",
              "unset output"]
    return "\n".join(lines) + "\n"


def cmd_sweep_table(args):
    sections, errors = load_set(args.dir)
    pat = re.compile("^" + re.escape(args.prefix) + "-" + re.escape(args.var) + "=(.+)$")
    chosen = [(m[1], sec) for name, sec in sections.items() for m in [pat.match(name)] if m]
    if not chosen:
        errors.append("%s: no section named %s-%s=VALUE" % (args.dir, args.prefix, args.var))
    ran = sorted({sec.tool for _, sec in chosen if sec.tool})
    if len(ran) > 1:
        errors.append("%s: the sweep's sections ran different tools: %s"
                      % (args.dir, ", ".join(ran)))
    for value, sec in chosen:
        if sweep_number(value) is None:
            errors.append("%s: section %s: sweep value %r is not a number or size"
                          % (args.dir, sec.name, value))
    if errors:
        fail(errors)
    tool = ran[0] if ran else None
    series = tools.sweep_series(tool)
    if not series:
        fail(["%s: no sweep table for tool %s" % (args.dir, tool)])
    points = []         # (x, value as named, section, [Stat per series])
    for value, sec in sorted(chosen, key=lambda c: (sweep_number(c[0]), c[0])):
        stats = [Stat(x for _, rec in sec.passed for x in s[3](rec)) for s in series]
        points.append((sweep_number(value), value, sec, stats))
    # Drop series nobody measured (e.g. -w rates on a kernel without the cap).
    keep = [i for i in range(len(series)) if any(p[3][i].n for p in points)] or [0]
    series = [series[i] for i in keep]
    points = [(x, v, sec, [stats[i] for i in keep]) for x, v, sec, stats in points]

    # sweep.csv: raw medians, min, max and sample counts; sweep.txt: the same, aligned.
    csv = [",".join([args.var, "label", "section", "pass", "not_pass"] +
                    ["%s_%s" % (s[0], k) for s in series for k in ("median", "min", "max", "n")])]
    head = [args.var, "section", "runs"] + ["%s (%s)" % (s[1], s[2]) for s in series]
    txt = [head]
    for x, value, sec, stats in points:
        c = sec.counts()
        cells = ["%.9g" % x, value, sec.name, str(c["pass"]), str(c["fail"] + c["skip"])]
        tcells = [value, sec.name, "%d pass" % c["pass"] +
                  (", %d fail/skip" % (c["fail"] + c["skip"]) if c["fail"] + c["skip"] else "")]
        for st in stats:
            if st.n:
                cells += ["%.9g" % v for v in (st.med, st.lo, st.hi)] + [str(st.n)]
                tcells.append("%.4g [%.4g..%.4g]" % (st.med, st.lo, st.hi))
            else:
                cells += ["", "", "", "0"]
                tcells.append("n/a")
        csv.append(",".join(cells))
        txt.append(tcells)
    widths = [max(len(r[i]) for r in txt) for i in range(len(head))]
    lines = ["# %s sweep of %s over %s: median [min..max] over repeats" % (
        args.prefix, tool, args.var)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in txt]
    with open(os.path.join(args.dir, "sweep.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.dir, "sweep.csv"), "w") as f:
        f.write("\n".join(csv) + "\n")
    print("\n".join(lines))

    gnuplot = shutil.which("gnuplot")
    if not any(st.n for p in points for st in p[3]):
        print("# no plot: no passing run measured anything")
        return 0
    if not gnuplot:
        print("# no plot: gnuplot is not installed (apt-get install gnuplot-nox); "
              "sweep.txt and sweep.csv written")
        return 0
    script = gnuplot_script(args.dir, args.var, tool, points, series)
    res = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
    if res.returncode != 0:
        print("%s: gnuplot failed: %s" % (PROG, res.stderr.strip()), file=sys.stderr)
        return 1
    print("# wrote %s/sweep.{txt,csv,png,svg}" % args.dir)
    return 0
