#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare's verdict rules, checked by simulation with fixed seeds (KTAP).

Each rule of docs/results.md "How sure a difference is" against draws whose
truth is known: A/A false positives per figure and per family of 10
figures (the default, family-wise verdicts), power at 3% and 5% shifts at
a CV of 2%, the runs-to-settle estimate, the exact path only under icount,
the sign of a change from its interval, bounds a positive figure can take,
and p printed on the right side of alpha.  The judge is kmp/verdicts.py's,
in this process (no folders: the end-to-end cases are compare_stats_test.py's).
No timing is asserted (make bench times a 1000+1000 comparison).

Exit status: 0 when every test passed, 1 otherwise.
"""
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from kmp_testlib import SRC, ktap_report  # noqa: E402

sys.path.insert(0, os.path.join(SRC, "scripts"))
from kmp.verdicts import MOVED, Judge, fmt_p  # noqa: E402

ALPHA = 0.05


def family(figures, per_figure=False, icount=False, alpha=ALPHA):
    """One comparison: figures [(a, b)] judged as compare does (Holm at the end)."""
    j = Judge(alpha)
    j.per_figure, j.icount = per_figure, icount
    rows = [j.judge("sim", "f%d" % i, "s", a, b) for i, (a, b) in enumerate(figures)]
    j.finish()
    return rows


def draw(rng, n, mean, cv):
    return [rng.gauss(mean, mean * cv) for _ in range(n)]


def binom_slack(trials, p):
    """Three binomial standard deviations: the room an estimated rate gets."""
    return 3 * math.sqrt(trials * p * (1 - p))


def test_aa(results):
    """A/A at a CV of 1%: per figure at most alpha, and a family of 10 at most
    alpha with the default rule (it was 27% at 5 runs, 42% at 8, per figure)."""
    rng = random.Random(11)
    for n, trials in ((5, 1500), (8, 1500)):
        moved = sum(family([(draw(rng, n, 1, 0.01), draw(rng, n, 1, 0.01))],
                           per_figure=True)[0]["verdict"] in MOVED for _ in range(trials))
        results.append(("A/A, one figure, %d runs a side, CV 1%%: better/worse in %d of %d "
                        "(%.1f%%) <= alpha + 3 sd" % (n, moved, trials, 100 * moved / trials),
                        moved <= trials * ALPHA + binom_slack(trials, ALPHA)))
    for n, trials in ((5, 200), (8, 200)):
        fam = [sum(r["verdict"] in MOVED for r in family(
            [(draw(rng, n, 1, 0.01), draw(rng, n, 1, 0.01)) for _ in range(10)], per_figure=pf))
            for pf in (False, True) for _ in range(trials)]
        fw = sum(bool(k) for k in fam[:trials])
        pf = sum(bool(k) for k in fam[trials:])
        results.append(("A/A, 10 figures, %d runs a side: some figure better/worse in %d of %d "
                        "comparisons (%.1f%%) family-wise <= alpha + 3 sd; %.1f%% with "
                        "--per-figure" % (n, fw, trials, 100 * fw / trials, 100 * pf / trials),
                        fw <= trials * ALPHA + binom_slack(trials, ALPHA) and pf > fw))


def test_power(results):
    """Power at CV 2%: a 3% and a 5% change, one figure alone and one among 10."""
    rng = random.Random(12)
    trials = 200
    floors = {(0.03, 10, 1): 0.7, (0.05, 10, 1): 0.95, (0.03, 20, 10): 0.8,
              (0.05, 10, 10): 0.75}
    for (shift, n, size), floor in floors.items():
        hit = 0
        for _ in range(trials):
            figs = [(draw(rng, n, 1, 0.02), draw(rng, n, 1 - shift, 0.02))]
            figs += [(draw(rng, n, 1, 0.02), draw(rng, n, 1, 0.02)) for _ in range(size - 1)]
            hit += family(figs)[0]["verdict"] == "better"
        results.append(("power, CV 2%%, %.0f%% faster, %d runs a side, a family of %d: better "
                        "in %d of %d (%.1f%%) >= %.0f%%" % (
                            100 * shift, n, size, hit, trials, 100 * hit / trials, 100 * floor),
                        hit >= floor * trials))


def test_runs_to_settle(results):
    """From a 5+5 pilot at CV 2%, about N runs a side settle it: fresh N+N
    draws then give a verdict (same for no change, better for a 5% change)
    in about the power the estimate targets (80%); 60% at least here, as
    the pilot's spread is itself a 5-run estimate."""
    rng = random.Random(13)
    for shift, want in ((0.0, "same"), (0.05, "better")):
        pilots = settled = 0
        suggested = []
        while pilots < 40:
            a, b = draw(rng, 5, 1, 0.02), draw(rng, 5, 1 - shift, 0.02)
            row = family([(a, b)])[0]
            k = row["runs_to_settle"]
            if row["verdict"] != "unknown" or not k or k > 80:
                continue
            pilots += 1
            suggested.append(k)
            settled += family([(draw(rng, k, 1, 0.02), draw(rng, k, 1 - shift, 0.02))]
                              )[0]["verdict"] == want
        suggested.sort()
        results.append(("runs to settle, CV 2%%, %.0f%% change: median N %d from 5+5 pilots; "
                        "at N, %s in %d of %d (target 80%%, >= 60%%)" % (
                            100 * shift, suggested[len(suggested) // 2], want, settled, pilots),
                        settled >= 0.6 * pilots))


def test_exact_only_icount(results):
    """The issue's cases: 20, 21, 20 ns against 21, 22, 21, and a count 5, 5
    against 6, 6 are unknown (too few runs) on a native host; one value a
    side is exact only under icount."""
    cases = [([20, 21, 20], [21, 22, 21], "ns", False, "unknown", "too few runs"),
             ([5, 5], [6, 6], "pages", False, "unknown", "too few runs"),
             ([5, 5], [6, 6], "pages", True, "higher", "exact"),
             ([20, 20, 20], [21, 21, 21], "ns", True, "worse", "exact"),
             ([20, 20, 20], [21, 21, 21], "ns", False, "unknown", "too few runs")]
    for a, b, unit, icount, verdict, why in cases:
        j = Judge(ALPHA)
        j.icount = icount
        r = j.judge("sim", "t", unit, a, b)
        results.append(("%r -> %r %s, %s: %s (%s)" % (a, b, unit, "icount" if icount else
                                                        "native", verdict, why),
                        r["verdict"] == verdict and r["why"] == why))


def test_sign_and_bounds(results):
    """The sign from the interval: BASE 1.00 s x6 + 1.10 s x5, NEW 1.00 s x6 +
    0.90 s x5 is better (the medians are equal); a positive figure's interval
    stays above -100%."""
    a, b = [1.0] * 6 + [1.1] * 5, [1.0] * 6 + [0.9] * 5
    for pf in (True, False):
        r = family([(a, b)], per_figure=pf)[0]
        ci = r["change_ci_pct"]
        results.append(("equal medians, NEW faster in its slow runs (%s): better, change %+.1f%% "
                        "and interval [%+.1f%%, %+.1f%%] below 0" % (
                            "per figure" if pf else "family-wise", r["change_pct"], *ci),
                        r["verdict"] == "better" and r["change_pct"] < 0 and ci[1] <= 0))
    rng = random.Random(14)
    worst = 0.0
    for _ in range(200):
        a = [28.7e-3 * rng.uniform(0.9, 1.1) for _ in range(6)]
        b = [368e-6 * rng.uniform(0.3, 3) for _ in range(6)]
        r = family([(a, b)], per_figure=True)[0]
        worst = min([worst] + (r["change_ci_pct"] or []))
    results.append(("a positive figure falling 98%%: every interval bound above -100%% (lowest "
                    "%.2f%%)" % worst, -100 < worst < -90))


def test_p_text(results):
    cases = [(0.0496, "p=0.0496"), (0.0504, "p=0.0504"), (0.05, "p=0.05"), (0.0022, "p=0.0022"),
             (0.31, "p=0.31"), (0.0004, "p<0.001"), (1.0, "p=1")]
    bad = ["%g: %s" % (p, fmt_p(p, ALPHA)) for p, want in cases if fmt_p(p, ALPHA) != want]
    results.append(("p printed with two significant digits, more where alpha's side would be "
                    "hidden (0.0496, 0.0504 at 0.05), never p=0.000" + "".join(
                        "; " + b for b in bad), not bad))


def test_large(results):
    """1000+1000 runs: the normal approximation, named, and its interval holds
    the true change (make bench times it)."""
    rng = random.Random(15)
    r = family([(draw(rng, 1000, 1, 0.02), draw(rng, 1000, 1.01, 0.02))], per_figure=True)[0]
    lo, hi = r["change_ci_pct"]
    results.append(("1000+1000 runs, +1%% at CV 2%%: normal approximation, interval "
                    "[%+.2f%%, %+.2f%%] holds +1%%, verdict %s" % (lo, hi, r["verdict"]),
                    "normal approximation" in r["method"] and lo < 1 < hi and
                    r["verdict"] == "same"))


def test_every_figure(results):
    """The committed pairs (tests/records): every figure the records carry is a
    row (seed 000's get_dirty_log_time), and a figure on one side only is a
    row and counted (seed 002's w/ new cap, which BASE's kernel lacks)."""
    got = {}
    for pair in ("seed-000-ab", "seed-002-ab"):
        res = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "kmp_results.py"),
                              "compare", "--json"] + [os.path.join(SRC, "tests", "records", pair,
                                                                   s) for s in ("A", "B")],
                             capture_output=True, text=True)
        got[pair] = json.loads(res.stdout) if res.returncode == 0 else {"rows": []}
    rows = got["seed-000-ab"]["rows"]
    sections = {r["section"] for r in rows}
    get = {r["section"] for r in rows if r["figure"] == "get_dirty_log_time" and r["p"] is not None}
    results.append(("seed 000's pair: get_dirty_log_time judged in each of its %d sections"
                    % len(sections), sections and get == sections))
    d = got["seed-002-ab"]
    only = [r for r in d["rows"] if r["verdict"] == "only in NEW"]
    results.append(("seed 002's pair: the 3 figures only NEW has are rows, 'only in NEW', counted",
                    len(only) == 3 and d["verdicts"].get("only in NEW") == 3))


def main():
    results = []
    for t in (test_aa, test_power, test_runs_to_settle, test_exact_only_icount,
              test_sign_and_bounds, test_p_text, test_large, test_every_figure):
        t(results)
    return ktap_report([(name, [] if ok else ["failed"]) for name, ok in results])


if __name__ == "__main__":
    sys.exit(main())
