# SPDX-License-Identifier: GPL-2.0
"""compare's verdict on each figure: the statistics of kmp/stats.py as rows.

One Judge per compare.  Every compare line asks it for a row (judge()): a
verdict, better or worse (significant at alpha, the sign taken from the
change's interval, read by the figure's direction; higher or lower for a
figure without one), same (the whole 1 - alpha interval of the change
inside +-same_within), unknown (with about how many runs a side would
settle it), or only in BASE / only in NEW.  For a positive figure the
change and its interval are on the ratio (the rank test of log values), so
that every bound is a value the figure can take.  The verdicts of A-to-B
rows are family-wise unless per_figure: better or worse only where Holm's
adjusted p is within alpha too.  Only where the host's clock is icount and
every run of each side gave one value is the difference exact, judged as
it is.  Rows within one side ("within") are judged apart.
"""
import math
import textwrap

from . import stats
from .figures import rel_change

NOTE_1RUN = "(1 run: noise unknown)"
TIMES = ("s", "ms", "us", "\u00b5s", "ns")
MOVED = ("better", "worse", "higher", "lower")
ONE_SIDED = ("only in BASE", "only in NEW")


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


def fmt_p(p, alpha=None):
    """Two significant digits, more where they would hide which side of alpha p
    is on (0.0496 and 0.0504 at 0.05); below 0.001 (and alpha), p<0.001."""
    if p < 0.001 and (alpha is None or alpha > 0.001):
        return "p<0.001"
    for digits in range(2, 8):
        text = "%.*g" % (digits, p)
        if alpha is None or (float(text) <= alpha) == (p <= alpha) and \
                (float(text) != alpha or p == alpha):
            break
    return "p=" + text


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


def is_constant(xs):
    """Every run the same value (2 runs or more)."""
    return len(xs) >= 2 and max(xs) == min(xs)


class Judge:
    def __init__(self, alpha, same_within=2.0):
        self.alpha = alpha
        self.same_within = same_within      # percent
        self.directions = {}                # figure -> "lower" / "higher" (kmp/tools)
        self.rows = []
        self.holm_from = None               # a first pass's adjusted p, by row
        self.icount = False                 # the hosts' clock is QEMU -icount's
        self.per_figure = False             # compare --per-figure: no family rule
        self.cache = {}                     # (a, b) -> change_stats: each judged once

    def judge(self, section, figure, unit, a, b, kind="runs", block="A->B", dropped=(0, 0)):
        """The row of one figure with samples a (BASE) and b (NEW)."""
        conf = 1 - self.alpha
        row = {"section": section, "figure": figure, "unit": unit, "block": block,
               "direction": direction_of(unit, self.directions.get(figure)),
               "base": side(a, kind, conf), "new": side(b, kind, conf), "dropped": list(dropped),
               "change_pct": None, "change_ci_pct": None, "change_ci_open": None,
               "confidence": conf, "p": None, "method": None, "verdict": None, "why": None,
               "exact": [is_constant(a), is_constant(b)], "least_n": None,
               "runs_to_settle": None, "holm_p": None, "holm_significant": None}
        if self.holm_from is not None and len(self.rows) < len(self.holm_from):
            row["holm_p"] = self.holm_from[len(self.rows)]
        self.rows.append(row)
        if not a or not b:
            row["verdict"] = "missing" if not a and not b else ONE_SIDED[0 if a else 1]
            return row
        ma, mb = row["base"]["median"], row["new"]["median"]
        row["change_pct"] = pct(mb - ma, ma)
        if len(a) < 2 or len(b) < 2:
            return self._unknown(row, a, b, "1 run")
        if all(row["exact"]) and self.icount:
            return self._exact(row, ma, mb)
        key = (tuple(a), tuple(b))
        if key not in self.cache:
            self.cache[key] = stats.change_stats(a, b, self.alpha)
        st = self.cache[key]
        row.update({"p": st["p"], "method": st["method"], "change_pct": st["change"],
                    "change_ci_pct": st["ci"], "change_ci_open": st["open"]})
        if st["ci"] and max(map(abs, st["ci"])) <= self.same_within:
            row["verdict"] = "same"     # even where significant: a change inside the margin
        elif st["p"] <= self.alpha:
            row["verdict"] = self._moved(row, stats.change_sign(st["iv"], st["hl"]))
        elif stats.min_p(len(a), len(b)) > self.alpha:
            row["least_n"] = stats.least_n(self.alpha)
            return self._unknown(row, a, b, "too few runs")
        else:
            return self._unknown(row, a, b, "spread")
        self._family(row)
        return row

    def _family(self, row):
        """The family rule: a better or worse A-to-B row whose Holm-adjusted p
        is above alpha is unknown (said so), unless --per-figure."""
        if self.per_figure or row["block"] != "A->B" or row["holm_p"] is None:
            return
        if row["verdict"] in MOVED and row["holm_p"] > self.alpha:
            row["verdict"], row["why"] = "unknown", "Holm"

    def _moved(self, row, sign):
        d = row["direction"]
        if d is None:
            return "higher" if sign > 0 else "lower"
        return "better" if (sign < 0) == (d == "lower") else "worse"

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
        if v in ONE_SIDED:
            return "(%s)" % v
        n = "n=%d+%d" % (row["base"]["n"], row["new"]["n"])
        if row["why"] == "exact":
            return "(%s: exact, %s runs, every run the same on each side under icount: the " \
                "difference is the change)" % (v, n[2:])
        if row["why"] == "1 run":
            return "(unknown: 1 run, noise unknown; %d runs a side can tell)" % \
                row["runs_to_settle"]
        parts = [self.interval_text(row), fmt_p(row["p"], self.alpha), n]
        if row["holm_p"] is not None:
            parts.append("Holm " + fmt_p(row["holm_p"], self.alpha))
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
        if row["why"] == "Holm":
            return ("significant alone, not after Holm's correction over this comparison's "
                    "figures (--per-figure: each figure alone)")
        k = row["runs_to_settle"]
        return ("about %d runs a side would settle it at this spread" % k if k else
                "more than 1000 runs a side would be needed at this spread")

    def pair_rows(self):
        return [r for r in self.rows if r["block"] == "A->B"]

    def within_rows(self):
        return [r for r in self.rows if r["block"] != "A->B"]

    def in_family(self, r):
        """Whether a tested row is in Holm's family: one whose test could reach
        alpha.  A figure of one value on both sides (its permutations are all
        alike: p is 1) or with too few runs for alpha can never be rejected,
        so it adds no risk, and leaving it out keeps the others' power."""
        if r["p"] is None or stats.min_p(r["base"]["n"], r["new"]["n"]) > self.alpha:
            return False
        return not (all(r["exact"]) and r["base"]["median"] == r["new"]["median"])

    def finish(self):
        """Holm over each block's family (in_family): adjusted p and what stays
        significant; the family rule on each A-to-B row."""
        for rows in (self.pair_rows(), self.within_rows()):
            tested = [r for r in rows if self.in_family(r)]
            adjusted = stats.holm_adjusted([r["p"] for r in tested])
            for r, q in zip(tested, adjusted):
                r["holm_p"] = q
                r["holm_significant"] = q <= self.alpha
                self._family(r)

    def geomeans(self):
        """{direction: (geomean of NEW/BASE medians, figures used, left out, verdict counts)}
        over A-to-B rows of a direction: like rows only."""
        groups = {}
        for r in self.pair_rows():
            if r["verdict"] == "missing" or r["verdict"] in ONE_SIDED or r["direction"] is None:
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
                         ("better", "worse", "higher", "lower", "same", "unknown") + ONE_SIDED
                         if c.get(v) or v in ("better", "worse", "same", "unknown"))

    def summary_lines(self):
        self.finish()
        rows, within = self.pair_rows(), self.within_rows()
        exact = sum(r["why"] == "exact" for r in rows)
        tested = [r for r in rows if r["p"] is not None]
        sig = [r for r in tested if r["p"] <= self.alpha]
        text = ["BASE -> NEW: %d figure(s): %s%s." % (
                    len(rows), self.counts_text(rows),
                    " (%d exact: every run the same on both sides, under icount)" % exact
                    if exact else ""),
                "Better or worse: %s; the sign from the change's interval. Same: the change's "
                "%g%% interval, which inverts the test, inside +-%g%%. %d tested, %d with p <= "
                "%g (%d of them same: inside the margin), about %.1f expected by chance alone; "
                "%d still significant after Holm's correction over the %d that could reach "
                "%g." % (
                    self.rule_text(), 100 * (1 - self.alpha), self.same_within, len(tested),
                    len(sig), self.alpha, sum(r["verdict"] == "same" for r in sig),
                    len(tested) * self.alpha, sum(bool(r["holm_significant"]) for r in sig),
                    sum(map(self.in_family, tested)), self.alpha)]
        names = {"lower": "lower is better", "higher": "higher is better"}
        for d, (g, used, left, _) in self.geomeans().items():
            group = [r for r in rows if r["direction"] == d and r["verdict"] != "missing"
                     and r["verdict"] not in ONE_SIDED]
            text.append("Geomean of NEW/BASE medians, %s: %s over %d figure(s) (%s)%s." % (
                names[d], "x%.3f" % g if g is not None else "n/a", used,
                self.counts_text(group),
                ", %d left out (0 on a side: no ratio)" % left if left else ""))
        if within:
            text.append("Within one side (on against off inside one boot; their own tests, "
                        "outside BASE -> NEW's family and geomeans): %d figure(s): %s." % (
                            len(within), self.counts_text(within)))
        return [line for t in text for line in textwrap.wrap(
            t, 99, initial_indent="# ", subsequent_indent="#   ")]

    def rule_text(self):
        """Which rule made the verdict column."""
        if self.per_figure:
            return "p <= %g in the rank test of each figure alone (--per-figure)" % self.alpha
        return ("family-wise: p <= %g in the rank test, and still after Holm's correction over "
                "this comparison's tested figures" % self.alpha)

    def as_json(self):
        self.finish()
        rows = self.pair_rows()
        return {"alpha": self.alpha, "confidence": 1 - self.alpha,
                "same_within_pct": self.same_within,
                "rule": "per-figure" if self.per_figure else "family-wise (Holm)",
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
    # The side that has the figure says its unit (the other may lack it).
    sec, fig, unit = next((w for w in (b.where, n.where) if w and w[2] is not None),
                          b.where or n.where or ("", label, None))
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
        # A figure on one side only is a row too (only in BASE / NEW).
        note = JUDGE.note(row or verdict(b, n, label)) if b.n or n.n else ""
        return "  %s: %s -> %s%s" % (label, fmt(b.med) if b.n else "n/a",
                                     fmt(n.med) if n.n else "n/a", " " + note if note else "")
    row = row or verdict(b, n, label)
    rel = rel_change(b, n)      # the medians' (the verdict row's change: its estimate)
    if math.isinf(rel):
        change = "n/a"
    elif how == "ratio":
        change = "x%.2f" % (1 + rel)
    else:
        change = "%+.1f%%" % (100 * rel)
    line = "  %s: %s -> %s (%s); base %s, new %s" % (
        label, fmt(b.med), fmt(n.med), change, range_text(b, rfmt), range_text(n, rfmt))
    note = JUDGE.note(row)
    return line + (" " + note if note else "")


VERBOSE = [False]   # compare --verbose: every figure's long line too


def emit(line):
    """A figure's long line (compare_line), printed with --verbose only: the
    compact table at the end has every figure."""
    if VERBOSE[0]:
        print(line)
