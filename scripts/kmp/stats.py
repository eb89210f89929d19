# SPDX-License-Identifier: GPL-2.0
"""Distribution-free statistics for run.sh compare: small samples, exact.

A sample is one value per run (or per boot), never per iteration.  compare's
methods are exact for the sample sizes the suite runs (tens, not
thousands), need no distribution assumption, and have no randomness; make
bench's spread comparison is the Brown-Forsythe t test, with a bootstrap
interval and a simulated power, both with a fixed seed (kmp/spread.py):

  median_ci        order-statistic interval of a median (binomial coverage)
  rank_sum_test    two-sided Mann-Whitney U test: the exact permutation
                   distribution of the smaller side's rank sum, with midranks
                   for ties (where that table would be too large, the normal
                   approximation with the exact tie variance, named)
  shift_interval   the shifts the rank test does not reject: its own interval
                   (kmp/shift.py: on the ratio for positive figures)
  change_stats     a figure's test, change and interval in percent (on the
                   ratio where every value is positive); change_sign its sign
  least_n          the fewest runs a side at which the test can reach alpha
  runs_to_settle   about how many runs a side would settle an open comparison
  holm             Holm's step-down correction over many tests (holm_adjusted:
                   each test's adjusted p)
  geomean          geometric mean of ratios, leaving out those with a 0
"""
import functools
import math
from collections import namedtuple
from fractions import Fraction

MedianCI = namedtuple("MedianCI", "lo hi coverage")
TestResult = namedtuple("TestResult", "p statistic method")
# Runs on the smaller side up to which the rank test is exact, and the
# largest table (smaller side x pooled runs, squared: its work) it builds;
# beyond either, the normal approximation, and the row's method says so.
EXACT_MAX = 25
EXACT_WORK = 4e6


def exact_fits(m, n):
    """Whether the exact rank test of m and n runs is affordable."""
    k = min(m, n)
    return k <= EXACT_MAX and (k * (m + n)) ** 2 <= EXACT_WORK


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _binom_cdf_half(n, k):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def sign_test(ratios):
    """Exact two-sided sign test of paired ratios against 1: (below, above,
    p).  Ratios of exactly 1 carry no sign and are left out."""
    lo = sum(1 for r in ratios if r < 1)
    hi = sum(1 for r in ratios if r > 1)
    n = lo + hi
    return lo, hi, (min(1.0, 2 * _binom_cdf_half(n, min(lo, hi))) if n else 1.0)


def median_ci(xs, conf=0.95):
    """[x_(k), x_(n+1-k)] with the largest k whose coverage 1 - 2 P(X <= k-1)
    is still >= conf; None where no k reaches it (below 6 runs at 95%)."""
    s, n = sorted(xs), len(xs)
    best, term, below = None, 1, 0      # C(n, k-1) and sum of C(n, i), i < k, exact
    for k in range(1, n // 2 + 1):
        below += term                   # now P(X <= k-1) * 2^n
        term = term * (n - k + 1) // k
        cov = 1 - 2 * below / 2 ** n
        if cov < conf:
            break
        best = MedianCI(s[k - 1], s[n - k], cov)
    return best


def _midranks(values):
    """Rank of each value in the pooled sample, ties sharing their mean rank, doubled to integers."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = i + j + 2        # 2 x the mean of ranks i+1 .. j+1
        i = j + 1
    return ranks


@functools.lru_cache(maxsize=256)
def _subset_sum_counts(weights, m):
    """{sum: number of m-element subsets of weights (a sorted tuple: the
    table is the same for every shift that leaves the ranks alike, cached)
    with that sum}."""
    table = [dict() for _ in range(m + 1)]
    table[0][0] = 1
    for w in weights:
        for size in range(min(m, len(weights)) - 1, -1, -1):
            for s, c in table[size].items():
                nxt = table[size + 1]
                nxt[s + w] = nxt.get(s + w, 0) + c
    return table[m]


def rank_sum_test(a, b):
    """Two-sided exact Mann-Whitney U: p = P(|W - E W| >= |w - E W|) over all
    C(m+n, m) equally likely splits of the pooled values, W the (mid)rank sum
    of a.  Without ties this is the exact U test; with ties it is the exact
    permutation test of the same statistic."""
    m, n = len(a), len(b)
    ranks = _midranks(list(a) + list(b))
    w = sum(ranks[:m])             # doubled, like every rank here
    mean = m * (m + n + 1)         # E W, doubled
    u = w / 2 - m * (m + 1) / 2
    if not exact_fits(m, n):
        return TestResult(_normal_p(ranks, m, w, mean), u,
                          "Mann-Whitney U, normal approximation with tie correction "
                          "(%d+%d runs: too many for the exact table)" % (m, n))
    # The table is over the smaller side: p is the same for either side's sum.
    k, wk = (m, w) if m <= n else (n, sum(ranks[m:]))
    meank = k * (m + n + 1)
    dist = _subset_sum_counts(tuple(sorted(ranks)), k)
    total = math.comb(m + n, m)
    far = abs(wk - meank)
    hits = sum(c for s, c in dist.items() if abs(s - meank) >= far)
    return TestResult(min(1.0, hits / total), u,
                      "exact Mann-Whitney U" + (" (permutation, ties)" if len(set(a) | set(b))
                                                < m + n else ""))


def _normal_p(ranks, m, w, mean):
    """Two-sided p of the (doubled) rank sum w by the normal approximation:
    the permutation variance of the sum, which accounts for ties exactly."""
    big_n = len(ranks)
    avg = sum(ranks) / big_n
    var = m * (big_n - m) / (big_n * (big_n - 1)) * sum((r - avg) ** 2 for r in ranks)
    if var == 0:
        return 1.0
    z = abs(w - mean) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def min_p(m, n):
    """The smallest two-sided p the test can give with m and n runs."""
    return min(1.0, 2 / math.comb(m + n, m))


def least_n(alpha, other=None):
    """The fewest runs a side (equal sides, or against `other` runs) for p <= alpha."""
    k = 1
    while min_p(k, other or k) > alpha:
        k += 1
        if k > 1000:
            return None
    return k


ShiftInterval = namedtuple("ShiftInterval", "lo hi lo_open hi_open")


class _Candidates:
    """Each pairwise difference b - a (sorted, distinct) and each midpoint
    between neighbours, by index (odd indices are midpoints), built lazily."""

    def __init__(self, diffs):
        self.diffs = diffs

    def __len__(self):
        return 2 * len(self.diffs) - 1

    def __getitem__(self, i):
        if i % 2 == 0:
            return self.diffs[i // 2]
        return (self.diffs[i // 2] + self.diffs[i // 2 + 1]) / 2


def pairwise_diffs(a, b):
    """Every difference y - x, sorted, with its multiplicity: exact fractions
    where the exact test runs, floats beyond."""
    if exact_fits(len(a), len(b)):
        a, b = [Fraction(x) for x in a], [Fraction(y) for y in b]
    return sorted(y - x for x in a for y in b)


def hodges_lehmann(diffs):
    """The Hodges-Lehmann shift: the median of the sorted pairwise differences."""
    n = len(diffs)
    return float(diffs[n // 2] if n % 2 else (diffs[n // 2 - 1] + diffs[n // 2]) / 2)


def shift_interval(a, b, alpha, diffs=None):
    """The shifts d of b - a that rank_sum_test(a, b - d) does not reject at
    alpha: the interval that inverts the test, so that it holds 0 exactly
    when the test's p is above alpha, ties included.  Computed in exact
    fractions where the test is exact (a shift that makes a tie must make
    it exactly), in floats beyond, at the pairwise differences and between
    them, where the test's p can change; the region is found from the
    Hodges-Lehmann estimate outwards.  diffs: pairwise_diffs(a, b), where
    the caller has them.  ShiftInterval(lo, hi, lo_open, hi_open); an end
    is None when no shift on that side is rejected (too few runs for alpha)."""
    exact = exact_fits(len(a), len(b))
    fa, fb = ([Fraction(x) for x in a], [Fraction(y) for y in b]) if exact else (a, b)
    diffs = pairwise_diffs(a, b) if diffs is None else diffs
    uniq = [d for i, d in enumerate(diffs) if i == 0 or d != diffs[i - 1]]
    cand = _Candidates(uniq)

    def accepted(d):
        return rank_sum_test(fa, [y - d for y in fb]).p > alpha

    mid = len(cand) // 2
    while mid % 2:          # start from a difference near the middle
        mid -= 1
    if not accepted(cand[mid]):
        # No shift near the estimate is accepted (a two-point set): take the
        # accepted candidate closest to it, if any.
        near = sorted(range(len(cand)), key=lambda i: abs(i - mid))
        mid = next((i for i in near if accepted(cand[i])), None)
        if mid is None:
            return ShiftInterval(float(uniq[0]), float(uniq[-1]), False, False)
    below = uniq[0] - 1
    above = uniq[-1] + 1
    lo = None if accepted(below) else _edge(cand, accepted, mid, -1)
    hi = None if accepted(above) else _edge(cand, accepted, mid, 1)
    # An accepted midpoint at the edge: the region is open at the difference beyond it.
    lo_open = lo is not None and lo % 2 == 1
    hi_open = hi is not None and hi % 2 == 1
    lo_v = None if lo is None else float(cand[lo - 1] if lo_open else cand[lo])
    hi_v = None if hi is None else float(cand[hi + 1] if hi_open else cand[hi])
    return ShiftInterval(lo_v, hi_v, lo_open, hi_open)


def _edge(cand, accepted, start, step):
    """The last accepted candidate from start going by step (binary search:
    the accepted shifts form one interval)."""
    good = start
    bad = -1 if step < 0 else len(cand)
    while abs(bad - good) > 1:
        probe = (good + bad) // 2
        if accepted(cand[probe]):
            good = probe
        else:
            bad = probe
    return good


def interval_holds(iv, x):
    """Whether x is inside a ShiftInterval, its open ends excluded."""
    if iv.lo is not None and (x < iv.lo or (iv.lo_open and x == iv.lo)):
        return False
    if iv.hi is not None and (x > iv.hi or (iv.hi_open and x == iv.hi)):
        return False
    return True


def runs_to_settle(a, b, alpha, margin, power=0.8):
    """About how many runs a side would settle a comparison that has not
    settled, at the spread observed: the fewer of the runs at which the
    rank test finds the observed shift significant, and at which its
    interval would fit inside +-margin (a fraction of a's median) around
    the observed shift, each with the given power.  Normal theory with the
    rank test's efficiency (3/pi of the t test's): n = 2 (pi/3) ((z(1 -
    alpha/2) + z(power)) s / d)^2, s the pooled standard deviation, d the
    shift, or the room the shift leaves inside the margin (there with
    z((1 + power) / 2): both ends of the interval must fit).  At least the
    fewest runs that can reach alpha; None beyond 1000 (not at this spread)."""
    ma = median(a)
    shift = median(b) - ma
    pooled = [x - ma for x in a] + [y - median(b) for y in b]
    sd = math.sqrt(sum(v * v for v in pooled) / max(1, len(pooled) - 2))
    floor = least_n(alpha) or 2
    if sd == 0:
        return floor
    za = _normal_quantile(1 - alpha / 2)
    need = []
    # Significance needs one tail of the estimate's spread inside the gap;
    # "same" needs both of the interval's ends inside the margin, so both
    # tails: z((1 + power) / 2) (simulated in tests/compare_sim_test.py).
    for gap, zp in ((abs(shift), _normal_quantile(power)),
                    (margin * abs(ma) - abs(shift), _normal_quantile((1 + power) / 2))):
        if gap > 0:
            need.append(math.ceil(2 * math.pi / 3 * ((za + zp) * sd / gap) ** 2))
    if not need:
        return None
    n = max(min(need), floor)
    return n if n <= 1000 else None


def holm_adjusted(pvalues):
    """Holm's adjusted p of each p-value (step-down, monotone, at most 1)."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    out, running = [None] * len(pvalues), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        out[i] = running
    return out


def _normal_quantile(q):
    """The standard normal quantile, by bisection on erfc (no scipy at run time)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def holm(pvalues, alpha):
    """Holm's step-down: which of the p-values stay significant at family-wise alpha."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    keep = [False] * len(pvalues)
    for rank, i in enumerate(order):
        if pvalues[i] > alpha / (len(pvalues) - rank):
            break
        keep[i] = True
    return keep


def geomean(ratios):
    """(geometric mean of the positive finite ratios, how many were left out)."""
    good = [r for r in ratios if r > 0 and math.isfinite(r)]
    if not good:
        return None, len(ratios)
    return math.exp(sum(math.log(r) for r in good) / len(good)), len(ratios) - len(good)


def change_stats(a, b, alpha):
    """The rank test of a against b, and the change with its interval, in
    percent of a's median: on the ratio (exp of the log values' shift) where
    every value is positive.  {p, method, change, ci, open}."""
    test = rank_sum_test(a, b)
    ratio = min(a) > 0 and min(b) > 0
    xa, xb = ([math.log(x) for x in a], [math.log(y) for y in b]) if ratio else (a, b)
    diffs = pairwise_diffs(xa, xb)
    iv = shift_interval(xa, xb, alpha, diffs)
    hl = hodges_lehmann(diffs)
    ma = median(a)

    def to_pct(d):
        return 100 * math.expm1(d) if ratio else (100 * d / abs(ma) if ma else None)
    ci = None
    if iv.lo is not None and iv.hi is not None and (ratio or ma):
        ci = [to_pct(iv.lo), to_pct(iv.hi)]
    return {"p": test.p, "method": test.method, "change": to_pct(hl) if ratio or ma else None,
            "ci": ci, "open": [iv.lo_open, iv.hi_open] if ci else None, "iv": iv, "hl": hl}


def change_sign(iv, hl):
    """Which way a significant change goes: its interval's, where the
    interval is on one side of 0 (an open end at 0 included); else the
    Hodges-Lehmann shift's."""
    if iv.lo is not None and (iv.lo > 0 or iv.lo == 0 and iv.lo_open):
        return 1
    if iv.hi is not None and (iv.hi < 0 or iv.hi == 0 and iv.hi_open):
        return -1
    return 1 if hl > 0 else -1
