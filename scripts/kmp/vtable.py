# SPDX-License-Identifier: GPL-2.0
"""compare's verdict table: one aligned line a figure (benchstat's layout)."""
from .verdicts import JUDGE, ONE_SIDED, TIMES, fmt_p


def compact_table(rows, width=100):
    """One line a figure: BASE and NEW medians with their spread, the change
    and its interval, p, n and the verdict, aligned (benchstat's layout); a
    name too long for the line stands on its own line above its cells."""
    out, last = [], None
    # A section's rows together (a tool's tables, then its other figures).
    first = {}
    for i, r in enumerate(rows):
        first.setdefault(r["section"], i)
    for r in sorted(rows, key=lambda r: first[r["section"]]):
        if r["section"] != last:
            out.append(("%s:" % r["section"],))
            last = r["section"]
        name = "  " + r["figure"] + ("" if r["unit"] in TIMES or not r["unit"] else
                                     " (%s)" % r["unit"])
        b, n = r["base"], r["new"]
        if r["verdict"] == "missing" or r["verdict"] in ONE_SIDED:
            out.append((name, med_spread(b, r["unit"]) if b["n"] else "n/a",
                        med_spread(n, r["unit"]) if n["n"] else "n/a", "", "",
                        "n=%d+%d" % (b["n"], n["n"]), r["verdict"]))
            continue
        change = "%+.1f%%" % r["change_pct"] if r["change_pct"] is not None else "n/a"
        ci = JUDGE.interval_text(r).replace(" at %g%%" % (100 * r["confidence"]), "")
        p = ("exact" if r["why"] == "exact" else fmt_p(r["p"], JUDGE.alpha)
             if r["p"] is not None else "")
        out.append((name, med_spread(b, r["unit"]), med_spread(n, r["unit"]),
                    (change + " " + ci).strip(), p, "n=%d+%d" % (b["n"], n["n"]),
                    verdict_cell(r)))
    cols = [max([len(c[i]) for c in out if len(c) > i] or [0]) for i in range(7)]
    room = width - sum(cols[1:]) - 2 * 6
    cols[0] = min(cols[0], max(room, 0))
    lines = []
    for c in out:
        if len(c) == 1:
            lines.append(c[0])
            continue
        name = c[0]
        if len(name) > cols[0]:
            lines.append(name)
            name = ""
        # No room for a name column: the cells alone, under the name's line.
        cells = ([name.ljust(cols[0])] if cols[0] else [" "]) + \
            [c[i].rjust(cols[i]) for i in (1, 2)] + \
            [c[3].ljust(cols[3]), c[4].ljust(cols[4]), c[5].ljust(cols[5]), c[6]]
        lines.append("  ".join(cells).rstrip())
    return lines


def verdict_cell(r):
    """The verdict; an unknown one with about how many runs a side would settle it."""
    if r["verdict"] != "unknown":
        return r["verdict"]
    k = r["runs_to_settle"]
    if r["why"] == "Holm":
        return "unknown: Holm " + fmt_p(r["holm_p"], JUDGE.alpha)
    if r["why"] == "too few runs":
        return "unknown: too few runs"
    return "unknown: %s" % ("1 run" if r["why"] == "1 run" else
                            "%d runs" % k if k else ">1000 runs")


def med_spread(s, unit):
    """'1.23ms +-2%': a side's median in a readable unit and its spread,
    (max - min) / 2 of the median."""
    med = s["median"]
    text = short_value(med, unit)
    if s["n"] > 1 and med:
        text += " \u00b1%.0f%%" % (50 * (s["max"] - s["min"]) / abs(med))
    return text


def short_value(v, unit):
    """A time in s, ms, us or ns, 3 significant digits; anything else, 4."""
    if unit in ("s", "ns"):
        sec = v if unit == "s" else v / 1e9
        for div, name in ((1, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
            if abs(sec) >= div or name == "ns":
                return "%.3g%s" % (sec / div, name)
    if 1000 <= abs(v) < 1e9:
        return "%.0f" % v
    return "%.4g" % v
