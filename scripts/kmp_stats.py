# SPDX-License-Identifier: GPL-2.0
"""Distribution-free statistics for run.sh compare: small samples, exact.

A sample is one value per run (or per boot), never per iteration.  Every
method here is exact for the sample sizes the suite runs (tens, not
thousands), needs no distribution assumption, and has no randomness:

  median_ci        order-statistic interval of a median (binomial coverage)
  rank_sum_test    two-sided Mann-Whitney U test: the exact permutation
                   distribution of the rank sum, with midranks for ties (over
                   EXACT_MAX runs a side, the normal approximation, named)
  shift_ci         Hodges-Lehmann shift with its distribution-free interval
  least_n          the fewest runs a side at which the test can reach alpha
  holm             Holm's step-down correction over many tests
  geomean          geometric mean of ratios, leaving out those with a 0
"""
import math
from collections import namedtuple

MedianCI = namedtuple("MedianCI", "lo hi coverage")
TestResult = namedtuple("TestResult", "p statistic method")
# Runs a side up to which the rank test is exact (a side of 25 takes ~50 ms);
# more use the normal approximation, and the row's method says so.
EXACT_MAX = 25
ShiftCI = namedtuple("ShiftCI", "shift lo hi coverage")


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _binom_cdf_half(n, k):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_ci(xs, conf=0.95):
    """[x_(k), x_(n+1-k)] with the largest k whose coverage 1 - 2 P(X <= k-1)
    is still >= conf; None where no k reaches it (below 6 runs at 95%)."""
    s, n = sorted(xs), len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        cov = 1 - 2 * _binom_cdf_half(n, k - 1)
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


def _subset_sum_counts(weights, m):
    """{sum: number of m-element subsets of weights with that sum}."""
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
    if min(m, n) > EXACT_MAX:
        return TestResult(_normal_p(ranks, m, w, mean), u,
                          "Mann-Whitney U, normal approximation with tie correction "
                          "(more than %d runs a side)" % EXACT_MAX)
    dist = _subset_sum_counts(ranks, m)
    total = math.comb(m + n, m)
    far = abs(w - mean)
    hits = sum(c for s, c in dist.items() if abs(s - mean) >= far)
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


def _u_null_counts(m, n):
    """Counts of U = 0 .. m n over all splits, without ties (the classical recursion)."""
    # f[j][k]: splits of j a-values and k b-values by U; built up row by row.
    prev = [[1] for _ in range(n + 1)]          # j = 0: U is 0
    for j in range(1, m + 1):
        cur = [[1]]                             # k = 0: U is 0
        for k in range(1, n + 1):
            # the largest value is an a (adds k to U) or a b (adds nothing)
            x, y = prev[k], cur[k - 1]
            size = j * k + 1
            row = [0] * size
            for u, c in enumerate(x):
                row[u + k] += c
            for u, c in enumerate(y):
                row[u] += c
            cur.append(row)
        prev = cur
    return prev[n]


def shift_ci(a, b, conf=0.95):
    """Hodges-Lehmann estimate of the shift b - a (median of all pairwise
    differences) and its distribution-free interval: the order statistics of
    the differences at the U distribution's critical values.  None where
    even the full range of differences covers less than conf."""
    m, n = len(a), len(b)
    d = sorted(y - x for x in a for y in b)
    if min(m, n) > EXACT_MAX:      # the critical count from the normal approximation
        z = _normal_quantile(1 - (1 - conf) / 2)
        c = int(math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12)))
        if c < 0:
            return None
        return ShiftCI(median(d), d[c], d[m * n - 1 - c], conf)
    counts = _u_null_counts(m, n)
    total = math.comb(m + n, m)
    tail, c = 0, -1
    # largest c with P(U <= c) <= (1 - conf) / 2
    while c + 1 < len(counts) and (tail + counts[c + 1]) / total <= (1 - conf) / 2:
        tail += counts[c + 1]
        c += 1
    if c < 0:
        return None
    k = c + 1                      # the interval is [d_(k), d_(mn+1-k)], 1-based
    return ShiftCI(median(d), d[k - 1], d[m * n - k], 1 - 2 * tail / total)


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
