# SPDX-License-Identifier: GPL-2.0
"""compare's verdict on each figure: the statistics of kmp/stats.py as rows.

One Judge per compare.  Every compare line asks it for a row (judge()); the
row's note goes at the end of the line, and the rows are the --json output
and the summary at the end: how many figures were tested, how many would
come out significant by chance, Holm's correction, and the geometric mean of
the ratios per unit.
"""
import math

from . import stats
from .figures import rel_change

CONF = 0.95
NOTE_1RUN = "(1 run: noise unknown)"


def side(samples, kind):
    """One side of a row: its sample, median and exact median interval."""
    ci = stats.median_ci(samples, CONF) if samples else None
    return {"n": len(samples), "sample_of": kind,
            "median": stats.median(samples) if samples else None,
            "min": min(samples) if samples else None, "max": max(samples) if samples else None,
            "median_ci": [ci.lo, ci.hi] if ci else None,
            "median_ci_coverage": ci.coverage if ci else None}


def pct(x, base):
    return 100 * x / abs(base) if base else None


class Judge:
    def __init__(self, alpha):
        self.alpha = alpha
        self.rows = []

    def judge(self, section, figure, unit, a, b, kind="runs"):
        """The row of one figure with samples a (BASE) and b (NEW)."""
        row = {"section": section, "figure": figure, "unit": unit,
               "base": side(a, kind), "new": side(b, kind), "change_pct": None,
               "change_ci_pct": None, "change_ci_coverage": None, "p": None, "method": None,
               "verdict": None, "least_n": None, "resolvable_pct": None, "holm_significant": None}
        self.rows.append(row)
        if not a or not b:
            row["verdict"] = "missing"
            return row
        ma, mb = row["base"]["median"], row["new"]["median"]
        row["change_pct"] = pct(mb - ma, ma)
        if len(a) < 2 or len(b) < 2:
            row["verdict"] = "1 run"
            return row
        if len(set(a)) == 1 and len(set(b)) == 1:
            row["verdict"] = "exact"            # no spread on either side to test against
            return row
        test = stats.rank_sum_test(a, b)
        row["p"], row["method"] = test.p, test.method
        shift = stats.shift_ci(a, b, CONF)
        if shift and ma:
            row["change_ci_pct"] = [pct(shift.lo, ma), pct(shift.hi, ma)]
            row["change_ci_coverage"] = shift.coverage
            row["resolvable_pct"] = pct((shift.hi - shift.lo) / 2, ma)
        if stats.min_p(len(a), len(b)) > self.alpha:
            row["verdict"] = "too few runs"
            row["least_n"] = stats.least_n(self.alpha)
        else:
            row["verdict"] = "change" if test.p <= self.alpha else "~"
        return row

    def note(self, row):
        """The text a compare line ends with."""
        v = row["verdict"]
        if v in ("missing", None):
            return ""
        if v == "1 run":
            return NOTE_1RUN
        if v == "exact":
            return "(exact: every run gave the same value on each side, so the difference " \
                   "is exact and has no p-value)"
        ci = ""
        if row["change_ci_pct"]:
            ci = "change %+.1f..%+.1f%% (%.1f%% CI, Hodges-Lehmann), " % (
                row["change_ci_pct"][0], row["change_ci_pct"][1],
                100 * row["change_ci_coverage"])
        if v == "too few runs":
            return "~ (%sp=%.3f: %d and %d %s can never reach p<=%g; %d a side can)" % (
                ci, row["p"], row["base"]["n"], row["new"]["n"], row["base"]["sample_of"],
                self.alpha, row["least_n"])
        if v == "~":
            return "~ (%sp=%.3f > %g%s)" % (
                ci, row["p"], self.alpha,
                "; these runs resolve changes beyond about +-%.1f%%" % row["resolvable_pct"]
                if row["resolvable_pct"] is not None else "")
        return "(%sp=%.3f)" % (ci, row["p"])

    def significant(self, row):
        return row["verdict"] == "change"

    def tested(self):
        return [r for r in self.rows if r["p"] is not None and r["verdict"] != "too few runs"]

    def finish(self):
        """Holm over every tested figure; fills holm_significant."""
        tested = self.tested()
        keep = stats.holm([r["p"] for r in tested], self.alpha)
        for r, k in zip(tested, keep):
            r["holm_significant"] = k

    def geomeans(self):
        """{unit: (geomean of NEW/BASE medians, figures used, figures left out)}."""
        by_unit = {}
        for r in self.rows:
            if r["verdict"] == "missing" or r["unit"] is None:
                continue
            ma, mb = r["base"]["median"], r["new"]["median"]
            by_unit.setdefault(r["unit"], []).append(mb / ma if ma else math.inf)
        out = {}
        for unit, ratios in sorted(by_unit.items()):
            g, left = stats.geomean(ratios)
            out[unit] = (g, len(ratios) - left, left)
        return out

    def summary_lines(self):
        self.finish()
        tested = self.tested()
        sig = [r for r in tested if r["verdict"] == "change"]
        lost = [r for r in sig if not r["holm_significant"]]
        lines = ["# statistics: each side's sample is one value per %s; medians with exact "
                 "order-statistic %g%% intervals (6 or more a side), the change's Hodges-Lehmann "
                 "interval, exact two-sided Mann-Whitney U (permutation test with ties); "
                 "~ marks p > alpha = %g, or too few runs to reach it"
                 % ("boot (several folders a side)" if any(
                     r["base"]["sample_of"] == "boots" for r in self.rows) else "run",
                    100 * CONF, self.alpha)]
        few = sum(r["verdict"] == "too few runs" for r in self.rows)
        exact = sum(r["verdict"] == "exact" for r in self.rows)
        lines.append("# %d figure(s) tested: %d significant at %g, about %.1f expected by "
                      "chance alone; %d still significant after Holm's correction%s; "
                      "%d exact (no spread), %d with too few runs to test"
                      % (len(tested), len(sig), self.alpha, len(tested) * self.alpha,
                         len(sig) - len(lost),
                         " (not: %s)" % ", ".join("%s %s" % (r["section"], r["figure"])
                                                  for r in lost) if lost else "",
                         exact, few))
        for unit, (g, used, left) in self.geomeans().items():
            lines.append("# geomean of NEW/BASE medians, %s: %s over %d figure(s)%s" % (
                unit, "x%.3f" % g if g is not None else "n/a", used,
                ", %d left out (0 on a side: no ratio)" % left if left else ""))
        return lines

    def as_json(self):
        self.finish()
        return {"alpha": self.alpha, "confidence": CONF,
                "tested": len(self.tested()),
                "expected_by_chance": len(self.tested()) * self.alpha,
                "geomeans": [{"unit": u, "geomean": g, "figures": used, "left_out": left}
                             for u, (g, used, left) in self.geomeans().items()],
                "rows": self.rows}


JUDGE = Judge(0.05)    # compare's, set from --alpha


def verdict(b, n, label):
    """compare's verdict row for BASE b and NEW n (Judge)."""
    sec, fig, unit = b.where or n.where or ("", label, None)
    return JUDGE.judge(sec, fig, unit, b.samples, n.samples, b.kind)


def pct_cell(b, n, row=None):
    """The seed-000 cell: the percentage change, integer, '56%' / '-81%';
    ' ~' after it where the row says the change is not significant."""
    if not b.n or not n.n or b.med == 0:
        return "n/a"
    cell = "%.0f%%" % (100 * rel_change(b, n))
    cell = "0%" if cell == "-0%" else cell
    return cell + (" ~" if row and row["verdict"] not in ("change", "exact") else "")


def range_text(s, fmt):
    one = s.kind[:-1]
    if s.n == 1:
        return "1 " + one
    ci = stats.median_ci(s.samples, CONF)
    return "%s..%s (%d %s, spread %.1f%%, %s)" % (
        fmt(s.lo), fmt(s.hi), s.n, s.kind, 100 * s.spread(),
        "median %.1f%% CI %s..%s" % (100 * ci.coverage, fmt(ci.lo), fmt(ci.hi)) if ci else
        "the range: an exact %g%% median CI needs 6 %s" % (100 * CONF, s.kind))


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
