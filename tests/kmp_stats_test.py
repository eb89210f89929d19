#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/kmp/stats.py, with KTAP output.

Each method is checked against a second computation written here: every
split of the pooled values enumerated (the rank test's p, the U null
distribution), binomial sums (median coverage), and published values.
Where python3-scipy is installed, the p-values are also checked against
scipy.stats.mannwhitneyu(method="exact"): make check's dependencies
include it (scripts/install-deps.sh).

Exit status: 0 when every test passed, 1 otherwise.
"""
import itertools
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kmp_testlib import SRC, ktap_report  # noqa: E402
sys.path.insert(0, os.path.join(SRC, "scripts"))
sys.dont_write_bytecode = True
from kmp import spread as kmp_spread  # noqa: E402
from kmp import stats as kmp_stats  # noqa: E402


def enumerated_p(a, b):
    """Two-sided p of the midrank sum by listing every split."""
    pooled = sorted(a + b)
    rank = {v: (pooled.index(v) + 1 + len(pooled) - pooled[::-1].index(v)) / 2 for v in pooled}
    ranks = [rank[v] for v in a + b]
    mean = len(a) * (len(pooled) + 1) / 2
    far = abs(sum(ranks[:len(a)]) - mean)
    splits = list(itertools.combinations(ranks, len(a)))
    return sum(abs(sum(c) - mean) >= far - 1e-9 for c in splits) / len(splits)


def samples(rng, ties):
    m, n = rng.randint(2, 7), rng.randint(2, 7)
    hi = 6 if ties else 10**6
    shift = rng.randint(0, hi // 2)
    return [rng.randint(0, hi) for _ in range(m)], [rng.randint(0, hi) + shift for _ in range(n)]


def test_rank_sum(results):
    rng = random.Random(32)
    bad = []
    for ties in (False, True):
        for _ in range(150):
            a, b = samples(rng, ties)
            got, want = kmp_stats.rank_sum_test(a, b).p, enumerated_p(a, b)
            if abs(got - want) > 1e-12:
                bad.append("%r %r: p %r, every split gives %r" % (a, b, got, want))
    results.append(("rank_sum_test: p equals the enumeration of every split, with and without "
                    "ties (300 samples)", bad[:5]))
    # Published: 3 against 3 fully separated, two-sided exact p = 2/20.
    p = kmp_stats.rank_sum_test([1, 2, 3], [4, 5, 6]).p
    results.append(("rank_sum_test: 3 vs 3 fully separated gives p = 0.1",
                     [] if abs(p - 0.1) < 1e-12 else ["p %r" % p]))
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        results.append(("rank_sum_test: agrees with scipy's exact Mann-Whitney U",
                        ["python3-scipy is not installed: make deps installs it"]))
        return
    bad = []
    for _ in range(150):
        a, b = samples(rng, False)
        ref = mannwhitneyu(a, b, method="exact")
        got = kmp_stats.rank_sum_test(a, b)
        if abs(got.p - ref.pvalue) > 1e-9 or got.statistic != ref.statistic:
            bad.append("%r %r: p %r U %r, scipy p %r U %r" % (a, b, got.p, got.statistic,
                                                            ref.pvalue, ref.statistic))
    results.append(("rank_sum_test: p and U agree with scipy's exact Mann-Whitney U", bad[:5]))
    bad = []
    for n in (kmp_stats.EXACT_MAX + 1, 40):
        a = [rng.randint(0, 40) for _ in range(n)]
        b = [rng.randint(0, 40) + 4 for _ in range(n)]
        ref = mannwhitneyu(a, b, method="asymptotic", use_continuity=False).pvalue
        got = kmp_stats.rank_sum_test(a, b)
        if abs(got.p - ref) > 1e-9 or "normal approximation" not in got.method:
            bad.append("%d a side: %r, scipy %r" % (n, got, ref))
    results.append(("rank_sum_test: beyond EXACT_MAX runs a side, the tie-corrected normal "
                    "approximation, named, agrees with scipy's", bad))


def test_least_n(results):
    got = [(kmp_stats.min_p(3, 3), kmp_stats.least_n(0.05), kmp_stats.least_n(0.01),
            kmp_stats.least_n(0.1))]
    want = [(2 / 20, 4, 5, 3)]      # 2/C(8,4) = 0.029; 2/C(10,5) = 0.0079; 2/C(6,3) = 0.1
    results.append(("least_n: 3+3 runs can never go below p = 0.1; 4 a side reach 0.05, "
                     "5 reach 0.01", [] if got == want else ["%r, want %r" % (got, want)]))


def test_median_ci(results):
    bad = []
    for n in range(1, 30):
        xs = list(range(100, 100 + n))
        ci = kmp_stats.median_ci(xs, 0.95)
        # the widest interval [x_(1), x_(n)] covers 1 - 2/2^n: 95% first at n = 6
        if n < 6:
            if ci is not None:
                bad.append("n %d: an interval %r, none reaches 95%%" % (n, ci))
            continue
        k = xs.index(ci.lo) + 1
        cov = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n
        tighter = 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
        if abs(cov - ci.coverage) > 1e-12 or cov < 0.95 or (k < n // 2 and tighter >= 0.95) \
                or ci.hi != xs[n - k]:
            bad.append("n %d: %r, coverage %r" % (n, ci, cov))
    results.append(("median_ci: the narrowest symmetric order-statistic interval with 95% "
                     "coverage; none below 6 runs", bad[:5]))


def test_shift_hl(results):
    """Without ties, the interval that inverts the test has the Hodges-Lehmann
    interval's ends: the differences at the U null distribution's critical count."""
    bad = []
    for a, b in (([1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16]),
                 ([10, 12, 15, 11, 9, 14, 13], [12.5, 16, 18, 13.5, 17])):
        iv = kmp_stats.shift_interval(a, b, 0.05)
        d = sorted(y - x for x in a for y in b)
        # the U null distribution by listing every split, to find the critical count
        pooled = sorted(a + b)
        us = [sum(1 for x in c for y in set(pooled) - set(c) if x > y)
              for c in itertools.combinations(pooled, len(a))]
        c = max(u for u in range(len(d)) if sum(v <= u for v in us) / len(us) <= 0.025)
        want = (d[c], d[len(d) - 1 - c])
        # Its ends, where the shift makes a tie, may be open: the test there
        # sees the tie, and the Hodges-Lehmann interval does not.
        if (iv.lo, iv.hi) != want:
            bad.append("%r %r: %r, want %r" % (a, b, iv, want))
    results.append(("shift_interval without ties: the Hodges-Lehmann interval at the U null "
                    "distribution's critical count", bad))


def test_shift_interval(results):
    """The interval that inverts the rank test: it holds 0 exactly when p > alpha,
    over tied samples (few distinct values) at three levels, and it is the
    Hodges-Lehmann interval where nothing ties."""
    rng = random.Random(7)
    bad = []
    for _ in range(2000):
        a = [rng.choice([1, 2, 3, 4, 5]) for _ in range(rng.randint(3, 8))]
        b = [rng.choice([2, 3, 4, 5, 6, 7]) for _ in range(rng.randint(3, 8))]
        alpha = rng.choice([0.05, 0.1, 0.2])
        p = kmp_stats.rank_sum_test(a, b).p
        iv = kmp_stats.shift_interval(a, b, alpha)
        if (p <= alpha) == kmp_stats.interval_holds(iv, 0):
            bad.append("%r %r alpha %g: p %.4f, interval %r" % (a, b, alpha, p, iv))
    results.append(("shift_interval: holds 0 exactly when p > alpha, ties included "
                    "(2000 tied samples)", bad[:5]))
    bad = []
    none = kmp_stats.shift_interval([1, 2, 3], [4, 5, 6], 0.05)
    if (none.lo, none.hi) != (None, None):
        bad.append("3+3 at 0.05: %r, want unbounded" % (none,))
    results.append(("shift_interval: unbounded where the test cannot reject (3+3 at 0.05)",
                    bad))


def test_holm_geomean(results):
    got = kmp_stats.holm([0.01, 0.04, 0.03, 0.005], 0.05)
    # sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop
    results.append(("holm: steps down and stops at the first p above alpha/(m - rank)",
                    [] if got == [True, False, False, True] else [repr(got)]))
    g, left = kmp_stats.geomean([2.0, 0.5, 4.0, 0.0, math.inf])
    results.append(("geomean: of the positive finite ratios, 0 and infinite left out and counted",
                    [] if abs(g - 4 ** (1 / 3)) < 1e-12 and left == 2 else ["%r %r" % (g, left)]))


def test_student_t(results):
    # Published: t(10) = 2.228 at the 0.025 upper tail; t(1) is Cauchy.
    bad = []
    for t, df, want in ((2.228138851986, 10, 0.025), (1.0, 1, 0.25), (0.0, 7, 0.5),
                        (-1.0, 1, 0.75)):
        got = kmp_spread.student_t_sf(t, df)
        if abs(got - want) > 1e-9:
            bad.append("t %r df %r: %r, want %r" % (t, df, got, want))
    try:
        from scipy.stats import t as student
    except ImportError:
        bad.append("python3-scipy is not installed: make deps installs it")
    else:
        rng = random.Random(34)
        for _ in range(500):
            t, df = rng.uniform(-9, 9), rng.choice([1, 2, 3, 5, 9, 20, 48, 98, 400])
            if abs(kmp_spread.student_t_sf(t, df) - student.sf(t, df)) > 1e-10:
                bad.append("t %r df %r: %r, scipy %r" % (t, df, kmp_spread.student_t_sf(t, df),
                                                          student.sf(t, df)))
    results.append(("student_t_sf: published quantiles, and scipy's t.sf at 500 points", bad[:5]))


def test_spread(results):
    rng = random.Random(35)
    bad = []
    try:
        from scipy.stats import levene
    except ImportError:
        bad.append("python3-scipy is not installed: make deps installs it")
    else:
        # Brown-Forsythe is Levene's test centred on the median; one-sided = half
        # the two-sided p on the side of the statistic.
        for _ in range(100):
            n, m = rng.randint(3, 30), rng.randint(3, 30)
            a = [rng.lognormvariate(0, rng.uniform(0.05, 0.3)) for _ in range(n)]
            b = [rng.lognormvariate(0, rng.uniform(0.05, 0.3)) for _ in range(m)]
            got = kmp_spread.spread_test(a, b)
            ref = levene([math.log(x) for x in a], [math.log(x) for x in b], center="median")
            want = ref.pvalue / 2 if got.statistic > 0 else 1 - ref.pvalue / 2
            if abs(got.p - want) > 1e-9 or abs(got.statistic ** 2 - ref.statistic) > 1e-6:
                bad.append("%d+%d: p %r t %r, scipy p %r W %r" % (n, m, got.p, got.statistic,
                                                                 ref.pvalue, ref.statistic))
    results.append(("spread_test: Brown-Forsythe on log values, as scipy's levene(center="
                    "'median'), halved for one side", bad[:5]))
    # Its size and power at the pairs make bench runs (bench.py NOISE_PAIRS).
    size = kmp_spread.spread_power(50, 1.0, draws=2000)
    power = kmp_spread.spread_power(50, 1.5, draws=2000)
    results.append(("spread_test: at 50 a side, equal spreads pass at about alpha, a ratio of "
                    "1.5 is found 4 times in 5", [] if 0.03 <= size <= 0.07 and power >= 0.8
                    else ["size %r power %r" % (size, power)]))
    # A suite whose every deviation is twice its bare tool's: ratio 2, in its interval.
    bare = [math.exp(rng.gauss(0, 0.1)) for _ in range(20)]
    mid = kmp_stats.median([math.log(x) for x in bare])
    suite = [math.exp(mid + 2 * (math.log(x) - mid)) for x in bare]
    r, lo, hi = kmp_spread.spread_ratio_ci(list(zip(suite, bare)))
    again = kmp_spread.spread_ratio_ci(list(zip(suite, bare)))
    results.append(("spread_ratio_ci: twice the deviations read 2.00, inside an interval that "
                    "repeats (fixed seed)", [] if abs(r - 2) < 1e-9 and lo <= 2 <= hi and
                    (r, lo, hi) == again else ["%r %r %r / %r" % (r, lo, hi, again)]))
    flat = kmp_spread.spread_ratio_ci([(1.0, 2.0)] * 5)
    results.append(("spread_ratio_ci: a bare side with no spread gives no ratio",
                    [] if flat == (None, None, None) else [repr(flat)]))
    bad = []
    for value in (0, -1.0, float("nan"), float("inf")):
        try:
            kmp_spread.spread_test([1.0, value, 2.0], [1.0, 2.0, 3.0])
            bad.append("%r accepted" % value)
        except ValueError as e:
            if repr(value) not in str(e):
                bad.append("%r: %s" % (value, e))
    results.append(("spread_test: a value with no log (0, negative, NaN, infinite) is refused, "
                    "named", bad))


def test_sign_test(results):
    """Against the binomial distribution summed here, and scipy's binomtest."""
    bad = []
    rng = random.Random(7)
    try:
        from scipy.stats import binomtest
    except ImportError:
        binomtest = None
    for _ in range(200):
        n = rng.randint(1, 30)
        ratios = [rng.choice([0.9, 1.0, 1.1]) for _ in range(n)]
        lo, hi, p = kmp_stats.sign_test(ratios)
        m = lo + hi
        k = min(lo, hi)
        want = min(1.0, 2 * sum(math.comb(m, i) for i in range(k + 1)) / 2 ** m) if m else 1.0
        if (lo, hi) != (ratios.count(0.9), ratios.count(1.1)) or abs(p - want) > 1e-12:
            bad.append("%r: %r, want p %r" % (ratios, (lo, hi, p), want))
        if binomtest and m and abs(p - binomtest(lo, m, 0.5).pvalue) > 1e-9:
            bad.append("%r: p %r, scipy %r" % (ratios, p, binomtest(lo, m, 0.5).pvalue))
    # 10 of 10 pairs one way: 2 / 1024.
    if abs(kmp_stats.sign_test([0.8] * 10)[2] - 2 / 1024) > 1e-15:
        bad.append("10 of 10: %r" % (kmp_stats.sign_test([0.8] * 10),))
    results.append(("sign_test: exact two-sided p, ratios of 1 left out%s"
                    % ("" if binomtest else " (scipy missing: binomial sums only)"), bad))


def main():
    results = []
    for t in (test_rank_sum, test_least_n, test_median_ci, test_shift_hl, test_shift_interval,
              test_holm_geomean,
              test_student_t, test_spread, test_sign_test):
        t(results)
    return ktap_report(results)


if __name__ == "__main__":
    sys.exit(main())
