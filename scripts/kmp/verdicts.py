# SPDX-License-Identifier: GPL-2.0
"""compare's verdict on each figure: the statistics of kmp/stats.py as rows.

One Judge per compare.  Every compare line asks it for a row (judge()): a
verdict, better or worse (significant at alpha, the sign read by the
figure's direction; higher or lower for a figure without one), same (the
whole 1 - alpha interval of the change inside +-same_within), or unknown
(with about how many runs a side would settle it).  Where every run of both
sides gave the same value (icount), the difference is exact and is judged
as it is.  A-to-B rows make the pair's verdicts, its Holm family and its
geomeans; rows within one side ("within") are judged apart.
"""
import math
import textwrap

from . import stats
from .figures import rel_change

NOTE_1RUN = "(1 run: noise unknown)"
# A spread at or below the clock's resolution is no spread.
RESOLUTION = {"s": 1e-9, "ms": 1e-6, "us": 1e-3, "\u00b5s": 1e-3, "ns": 1.0}
TIMES = ("s", "ms", "us", "\u00b5s", "ns")
MOVED = ("better", "worse", "higher", "lower")


def side(samples, kind, conf):
    """One side of a row: its sample, median and exact median interval."""
    ci = stats.median_ci(samples, conf) if samples else None
    return {"n": len(samples), "sample_of": kind,
            "median": stats.median(samples) if samples else None,
            "min": min(samples) if samples else None, "max": max(samples) if samples else None,
            "median_ci": [ci.lo, ci.hi] if ci else None,
            "median_ci_coverage": ci.coverage if ci else None}


def pct(x, base):
    return 100 * x / abs(base) if base else None


def fmt_p(p):
    """Two significant digits, never 0."""
    return "p<0.001" if p < 0.001 else "p=%.2g" % p


def direction_of(unit, given=None):
    """Which way is better: the tool's word (its DIRECTIONS), else lower for a
    time and higher for a rate; None for a count, which has no better way."""
    if given:
        return given
    if unit in TIMES:
        return "lower"
    if unit and "/" in unit:
        return "higher"
    return None


def is_exact(xs, unit):
    return len(xs) >= 2 and max(xs) - min(xs) <= RESOLUTION.get(unit, 0)


class Judge:
    def __init__(self, alpha, same_within=2.0):
        self.alpha = alpha
        self.same_within = same_within      # percent
        self.directions = {}                # figure -> "lower" / "higher" (kmp/tools)
        self.rows = []
        self.holm_from = None               # a first pass's adjusted p, by row

    def judge(self, section, figure, unit, a, b, kind="runs", block="A->B", dropped=(0, 0)):
        """The row of one figure with samples a (BASE) and b (NEW)."""
        conf = 1 - self.alpha
        row = {"section": section, "figure": figure, "unit": unit, "block": block,
               "direction": direction_of(unit, self.directions.get(figure)),
               "base": side(a, kind, conf), "new": side(b, kind, conf), "dropped": list(dropped),
               "change_pct": None, "change_ci_pct": None, "change_ci_open": None,
               "confidence": conf, "p": None, "method": None, "verdict": None, "why": None,
               "exact": [is_exact(a, unit), is_exact(b, unit)], "least_n": None,
               "runs_to_settle": None, "holm_p": None, "holm_significant": None}
        if self.holm_from is not None and len(self.rows) < len(self.holm_from):
            row["holm_p"] = self.holm_from[len(self.rows)]
        self.rows.append(row)
        if not a or not b:
            row["verdict"] = "missing"
            return row
        ma, mb = row["base"]["median"], row["new"]["median"]
        row["change_pct"] = pct(mb - ma, ma)
        if len(a) < 2 or len(b) < 2:
            return self._unknown(row, a, b, "1 run")
        if all(row["exact"]):
            return self._exact(row, ma, mb)
        test = stats.rank_sum_test(a, b)
        row["p"], row["method"] = test.p, test.method
        iv = stats.shift_interval(a, b, self.alpha)
        if ma and iv.lo is not None and iv.hi is not None:
            row["change_ci_pct"] = [pct(iv.lo, ma), pct(iv.hi, ma)]
            row["change_ci_open"] = [iv.lo_open, iv.hi_open]
        if row["change_ci_pct"] and max(map(abs, row["change_ci_pct"])) <= self.same_within:
            row["verdict"] = "same"     # even where significant: a change inside the margin
        elif test.p <= self.alpha:
            row["verdict"] = self._moved(row, mb - ma)
        elif stats.min_p(len(a), len(b)) > self.alpha:
            row["least_n"] = stats.least_n(self.alpha)
            return self._unknown(row, a, b, "too few runs")
        else:
            return self._unknown(row, a, b, "spread")
        return row

    def _moved(self, row, diff):
        d = row["direction"]
        if d is None:
            return "higher" if diff > 0 else "lower"
        return "better" if (diff < 0) == (d == "lower") else "worse"

    def _exact(self, row, ma, mb):
        row["why"] = "exact"
        change = row["change_pct"]
        same = mb == ma if change is None else abs(change) <= self.same_within
        row["verdict"] = "same" if same else self._moved(row, mb - ma)
        return row

    def _unknown(self, row, a, b, why):
        row["verdict"], row["why"] = "unknown", why
        row["runs_to_settle"] = (stats.least_n(self.alpha) if why == "1 run" else
                                 stats.runs_to_settle(a, b, self.alpha, self.same_within / 100))
        return row

    def note(self, row):
        """The text a compare line ends with."""
        v = row["verdict"]
        if v in ("missing", None):
            return ""
        n = "n=%d+%d" % (row["base"]["n"], row["new"]["n"])
        if row["why"] == "exact":
            return "(%s: exact, %s runs, spread 0 on each side: the difference is the change)" \
                % (v, n[2:])
        if row["why"] == "1 run":
            return "(unknown: 1 run, noise unknown; %d runs a side can tell)" % \
                row["runs_to_settle"]
        parts = [self.interval_text(row), fmt_p(row["p"]), n]
        if row["holm_p"] is not None:
            parts.append("Holm " + fmt_p(row["holm_p"]))
        for count, what in zip(row["dropped"], ("BASE", "NEW")):
            if count:
                parts.append("%d null(s) in %s left out" % (count, what))
        text = "%s: %s" % (v, ", ".join(p for p in parts if p))
        if v == "unknown":
            text += "; " + self.settle_text(row)
        return "(%s)" % text

    def interval_text(self, row):
        """'[-5.1%, +2.0%] at 95%': the change's interval, '(' for an open end."""
        ci = row["change_ci_pct"]
        if not ci:
            return ""
        lo_open, hi_open = row["change_ci_open"] or (False, False)
        return "%s%+.1f%%, %+.1f%%%s at %g%%" % ("(" if lo_open else "[", ci[0], ci[1],
                                                ")" if hi_open else "]", 100 * row["confidence"])

    def settle_text(self, row):
        if row["why"] == "too few runs":
            return "%d+%d %s can never reach %s, %d a side can" % (
                row["base"]["n"], row["new"]["n"], row["base"]["sample_of"],
                fmt_p(self.alpha).replace("p=", "p<="), row["least_n"])
        k = row["runs_to_settle"]
        return ("about %d runs a side would settle it at this spread" % k if k else
                "more than 1000 runs a side would be needed at this spread")

    def pair_rows(self):
        return [r for r in self.rows if r["block"] == "A->B"]

    def within_rows(self):
        return [r for r in self.rows if r["block"] != "A->B"]

    def finish(self):
        """Holm over each block's tested figures: adjusted p and what stays significant."""
        for rows in (self.pair_rows(), self.within_rows()):
            tested = [r for r in rows if r["p"] is not None]
            adjusted = stats.holm_adjusted([r["p"] for r in tested])
            for r, q in zip(tested, adjusted):
                r["holm_p"] = q
                r["holm_significant"] = q <= self.alpha

    def geomeans(self):
        """{direction: (geomean of NEW/BASE medians, figures used, left out, verdict counts)}
        over A-to-B rows of a direction: like rows only."""
        groups = {}
        for r in self.pair_rows():
            if r["verdict"] == "missing" or r["direction"] is None:
                continue
            groups.setdefault(r["direction"], []).append(r)
        out = {}
        for d, rows in sorted(groups.items()):
            ratios = [r["new"]["median"] / r["base"]["median"] if r["base"]["median"]
                      else math.inf for r in rows]
            g, left = stats.geomean(ratios)
            out[d] = (g, len(ratios) - left, left, self.counts(rows))
        return out

    @staticmethod
    def counts(rows):
        c = {}
        for r in rows:
            c[r["verdict"]] = c.get(r["verdict"], 0) + 1
        return c

    def counts_text(self, rows):
        c = self.counts(rows)
        return ", ".join("%d %s" % (c.get(v, 0), v) for v in
                         ("better", "worse", "higher", "lower", "same", "unknown")
                         if c.get(v) or v in ("better", "worse", "same", "unknown"))

    def summary_lines(self):
        self.finish()
        rows, within = self.pair_rows(), self.within_rows()
        exact = sum(r["why"] == "exact" for r in rows)
        tested = [r for r in rows if r["p"] is not None]
        moved = [r for r in tested if r["verdict"] in MOVED]
        text = ["A -> B: %d figure(s): %s%s." % (
                    len(rows), self.counts_text(rows),
                    " (%d exact: every run the same on both sides)" % exact if exact else ""),
                "Better or worse: p <= %g in the exact Mann-Whitney U test (permutation with "
                "ties); same: the change's %g%% interval, which inverts that test, inside "
                "+-%g%%. %d tested, %d significant, about %.1f expected by chance alone; %d "
                "still significant after Holm's correction." % (
                    self.alpha, 100 * (1 - self.alpha), self.same_within, len(tested),
                    len(moved), len(tested) * self.alpha,
                    sum(bool(r["holm_significant"]) for r in moved))]
        names = {"lower": "lower is better", "higher": "higher is better"}
        for d, (g, used, left, _) in self.geomeans().items():
            group = [r for r in rows if r["direction"] == d and r["verdict"] != "missing"]
            text.append("Geomean of NEW/BASE medians, %s: %s over %d figure(s) (%s)%s." % (
                names[d], "x%.3f" % g if g is not None else "n/a", used,
                self.counts_text(group),
                ", %d left out (0 on a side: no ratio)" % left if left else ""))
        if within:
            text.append("Within one side (on against off inside one boot; their own tests, "
                        "outside A -> B's family and geomeans): %d figure(s): %s." % (
                            len(within), self.counts_text(within)))
        return [line for t in text for line in textwrap.wrap(
            t, 99, initial_indent="# ", subsequent_indent="#   ")]

    def as_json(self):
        self.finish()
        rows = self.pair_rows()
        return {"alpha": self.alpha, "confidence": 1 - self.alpha,
                "same_within_pct": self.same_within,
                "tested": sum(r["p"] is not None for r in rows),
                "expected_by_chance": sum(r["p"] is not None for r in rows) * self.alpha,
                "verdicts": self.counts(rows), "within_verdicts": self.counts(self.within_rows()),
                "geomeans": [{"direction": d, "geomean": g, "figures": used, "left_out": left,
                              "verdicts": c}
                             for d, (g, used, left, c) in self.geomeans().items()],
                "rows": self.rows}


JUDGE = Judge(0.05)    # compare's, set from --alpha


def verdict(b, n, label, block="A->B"):
    """compare's verdict row for BASE b and NEW n (Judge)."""
    sec, fig, unit = b.where or n.where or ("", label, None)
    return JUDGE.judge(sec, fig, unit, b.samples, n.samples, b.kind, block,
                       (getattr(b, "dropped", 0), getattr(n, "dropped", 0)))


def pct_cell(b, n, row=None):
    """The seed-000 cell: the percentage change, integer, '56%' / '-81%';
    ' ~' after it where the verdict is unknown, ' =' where it is the same."""
    if not b.n or not n.n or b.med == 0:
        return "n/a"
    cell = "%.0f%%" % (100 * rel_change(b, n))
    cell = "0%" if cell == "-0%" else cell
    return cell + {"unknown": " ~", "same": " ="}.get(row["verdict"] if row else None, "")


def range_text(s, fmt):
    one = s.kind[:-1]
    if s.n == 1:
        return "1 " + one
    conf = 1 - JUDGE.alpha
    ci = stats.median_ci(s.samples, conf)
    return "%s..%s (%d %s, spread %.1f%%, %s)" % (
        fmt(s.lo), fmt(s.hi), s.n, s.kind, 100 * s.spread(),
        "median %.1f%% CI %s..%s" % (100 * ci.coverage, fmt(ci.lo), fmt(ci.hi)) if ci else
        "the range: an exact %g%% median CI needs more %s" % (100 * conf, s.kind))


def compare_line(label, b, n, fmt, how="pct", rfmt=None, row=None):
    """'  label: B -> N (+x.x% | xR); base lo..hi (...), new lo..hi (...) note'.

    fmt formats the medians, rfmt (default fmt) the ranges; row is the
    verdict when the caller already has it (a table cell judged it)."""
    rfmt = rfmt or fmt
    if not b.n or not n.n:
        return "  %s: %s -> %s" % (label, fmt(b.med) if b.n else "n/a",
                                   fmt(n.med) if n.n else "n/a")
    rel = rel_change(b, n)
    if math.isinf(rel):
        change = "n/a"
    elif how == "ratio":
        change = "x%.2f" % (1 + rel)
    else:
        change = "%+.1f%%" % (100 * rel)
    line = "  %s: %s -> %s (%s); base %s, new %s" % (
        label, fmt(b.med), fmt(n.med), change, range_text(b, rfmt), range_text(n, rfmt))
    note = JUDGE.note(row or verdict(b, n, label))
    return line + (" " + note if note else "")


VERBOSE = [False]   # compare --verbose: every figure's long line too


def emit(line):
    """A figure's long line (compare_line), printed with --verbose only: the
    compact table at the end has every figure."""
    if VERBOSE[0]:
        print(line)


def compact_table(rows, width=100):
    """One line a figure: BASE and NEW medians with their spread, the change
    and its interval, p, n and the verdict, aligned (benchstat's layout); a
    name too long for the line stands on its own line above its cells."""
    out, last = [], None
    for r in rows:
        if r["section"] != last:
            out.append(("%s:" % r["section"],))
            last = r["section"]
        name = "  " + r["figure"] + ("" if r["unit"] in TIMES or not r["unit"] else
                                     " (%s)" % r["unit"])
        if r["verdict"] == "missing":
            out.append((name, "n/a", "n/a", "", "", "", "missing"))
            continue
        b, n = r["base"], r["new"]
        change = "%+.1f%%" % r["change_pct"] if r["change_pct"] is not None else "n/a"
        ci = JUDGE.interval_text(r).replace(" at %g%%" % (100 * r["confidence"]), "")
        p = "exact" if r["why"] == "exact" else fmt_p(r["p"]) if r["p"] is not None else ""
        out.append((name, med_spread(b, r["unit"]), med_spread(n, r["unit"]),
                    (change + " " + ci).strip(), p, "n=%d+%d" % (b["n"], n["n"]),
                    verdict_cell(r)))
    cols = [max([len(c[i]) for c in out if len(c) > i] or [0]) for i in range(7)]
    room = width - sum(cols[1:]) - 2 * 6
    cols[0] = min(cols[0], max(room, 4))
    lines = []
    for c in out:
        if len(c) == 1:
            lines.append(c[0])
            continue
        name = c[0]
        if len(name) > cols[0]:
            lines.append(name)
            name = ""
        cells = [name.ljust(cols[0])] + [c[i].rjust(cols[i]) for i in (1, 2)] + \
            [c[3].ljust(cols[3]), c[4].ljust(cols[4]), c[5].ljust(cols[5]), c[6]]
        lines.append("  ".join(cells).rstrip())
    return lines


def verdict_cell(r):
    """The verdict; an unknown one with about how many runs a side would settle it."""
    if r["verdict"] != "unknown":
        return r["verdict"]
    k = r["runs_to_settle"]
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
