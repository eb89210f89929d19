# SPDX-License-Identifier: GPL-2.0
"""How spread a sample is, and is one more spread than another: make bench's
noise figures (selfbench/rows.py).  Relative, on log values: every value
must be positive and finite.

  log_spread       each value's |log x - median of the logs|
  spread           their mean: a robust relative spread
  spread_test      is a more spread than b: the one-sided Brown-Forsythe
                   t test on log values
  spread_ratio_ci  the ratio of two samples' spreads, with a bootstrap
                   interval
  spread_power     how often spread_test finds a given ratio at n a side
"""
import math
import random

from .stats import TestResult, median


def log_spread(xs):
    """Each value's |log x - median of the log values|: Brown-Forsythe's
    deviations, on a log scale so that they are relative (a 10% swing reads
    about 0.1 whatever the unit)."""
    bad = [x for x in xs if not (isinstance(x, (int, float)) and math.isfinite(x) and x > 0)]
    if bad:
        raise ValueError("%r is not a positive finite value: a relative spread takes the log "
                         "of each" % (bad[0],))
    logs = [math.log(x) for x in xs]
    mid = median(logs)
    return [abs(v - mid) for v in logs]


def spread(xs):
    """The mean of log_spread(xs): a robust relative spread (about 0.8 CV for
    normal values)."""
    d = log_spread(xs)
    return sum(d) / len(d)


def spread_test(a, b):
    """Is a more spread than b?  The Brown-Forsythe test, one-sided: Student's
    t on the absolute deviations from each sample's median (log_spread),
    which needs no normal values, only deviations well enough behaved for a
    t test; on log values, so that a spread is relative.  ValueError, naming
    it, for a value that has no log (0, negative, NaN, infinite)."""
    za, zb = log_spread(a), log_spread(b)
    m, n = len(za), len(zb)
    method = "Brown-Forsythe (one-sided t on |log x - median|)"
    if m < 2 or n < 2:
        return TestResult(1.0, None, method)
    ma, mb = sum(za) / m, sum(zb) / n
    ss = sum((z - ma) ** 2 for z in za) + sum((z - mb) ** 2 for z in zb)
    df = m + n - 2
    if ss == 0:
        return TestResult(1.0 if ma <= mb else 0.0, None, method)
    t = (ma - mb) / math.sqrt(ss / df * (1 / m + 1 / n))
    return TestResult(student_t_sf(t, df), t, method)


def student_t_sf(t, df):
    """P(T >= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * _reg_inc_beta(df / 2, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1 - tail


def _reg_inc_beta(a, b, x):
    """The regularized incomplete beta I_x(a, b), by its continued fraction
    (modified Lentz), on the side where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _reg_inc_beta(b, a, 1 - x)
    front = math.exp(a * math.log(x) + b * math.log1p(-x) + math.lgamma(a + b)
                     - math.lgamma(a) - math.lgamma(b)) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        else:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + num / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return front * (f - 1)


def spread_ratio_ci(pairs, conf=0.95, draws=2000, seed=1):
    """spread(a) / spread(b) of pairs [(a_i, b_i)] run one after the other,
    and its percentile bootstrap interval: whole pairs are resampled, so the
    load a pair shared stays shared.  None for an interval no draw could
    give (a side with no spread)."""
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    sb = spread(b)
    ratio = spread(a) / sb if sb else None
    rng = random.Random(seed)
    ratios = []
    for _ in range(draws):
        pick = rng.choices(pairs, k=len(pairs))
        db = spread([p[1] for p in pick])
        if db:
            ratios.append(spread([p[0] for p in pick]) / db)
    if not ratios:
        return ratio, None, None
    ratios.sort()
    cut = int(len(ratios) * (1 - conf) / 2)
    return ratio, ratios[cut], ratios[len(ratios) - 1 - cut]


def spread_power(n, ratio, alpha=0.05, draws=400, seed=1):
    """The share of spread_test runs, on n lognormal values a side whose log
    spreads differ by ratio, that find a more spread than b at alpha: how
    likely n pairs are to resolve that ratio (simulated, fixed seed)."""
    rng = random.Random(seed)
    hits = 0
    for _ in range(draws):
        a = [math.exp(rng.gauss(0, 0.1 * ratio)) for _ in range(n)]
        b = [math.exp(rng.gauss(0, 0.1)) for _ in range(n)]
        hits += spread_test(a, b).p <= alpha
    return hits / draws
