# SPDX-License-Identifier: GPL-2.0
"""kmp_results.py summary: one line per section, its status counts and the
medians of its tool's main figures."""
import os

from . import tools
from .figures import fig_stat
from .fmt import fail, fmt_value
from .records import incomplete_note, load_set


def section_figures(sec):
    """The medians a section's line ends with: its tool's own choice, or its
    MAIN_FIGURES, or (a tool without a module) its first three figures."""
    mod = tools.get(sec.tool)
    if hasattr(mod, "summary_figures"):
        return mod.summary_figures(sec)
    figs = []
    names = getattr(mod, "MAIN_FIGURES", None) or sorted(
        {k for _, r in sec.passed for k in r.get("figures", {})})[:3]
    for fname in names:
        st = fig_stat(sec, fname)
        if st.n:
            unit = sec.passed[0][1]["figures"][fname]["unit"]
            figs.append("%s %s" % (fname, fmt_value(st.med, unit)))
    return figs


def fail_text(c):
    """Failures, an interrupted run among them: "2 fail (1 interrupted)"."""
    return "%d fail%s" % (c["fail"] + c["interrupted"], " (%d interrupted)" % c["interrupted"]
                          if c["interrupted"] else "")


def cmd_summary(args):
    if not os.path.isdir(args.dir):
        fail(["%s: not a result folder" % args.dir])
    sections, errors = load_set(args.dir)
    total = {"pass": 0, "fail": 0, "skip": 0, "interrupted": 0}
    out = []
    for name in sorted(sections):
        sec = sections[name]
        c = sec.counts()
        for k in total:
            total[k] += c[k]
        status = ", ".join(t for t in ("%d pass" % c["pass"] if c["pass"] else "",
                                       fail_text(c) if c["fail"] + c["interrupted"] else "",
                                       "%d skip" % c["skip"] if c["skip"] else "") if t)
        if sec.no_record:
            status += (", " if status else "") + "%d without a record" % len(sec.no_record)
        figs = section_figures(sec)
        out.append("# %s (%s): %s%s" % (name, sec.tool or "?", status or "no runs",
                                        ("; median " + ", ".join(figs)) if figs else ""))
        for repeat, st, reason in sec.excluded:
            out.append("#   run %d %s: %s" % (repeat, st, reason or "no reason given"))
    for e in errors:
        out.append("#   bad record %s" % e)
    note = incomplete_note(args.dir)
    if note:
        print("# warning: %s is incomplete: %s" % (args.dir, note))
    print("# %s: %d section(s); %d pass, %s, %d skip%s" % (
        args.dir, len(sections), total["pass"], fail_text(total), total["skip"],
        ", %d bad record(s)" % len(errors) if errors else ""))
    print("\n".join(out))
    return 2 if errors else 0     # bad data, as compare's
