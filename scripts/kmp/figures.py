# SPDX-License-Identifier: GPL-2.0
"""A figure's samples over a section's passing runs (or its boots' medians)
and their median and range."""
import math
import statistics


class Stat:
    """Median, min and max of the samples (repeats or runs) of one number;
    where (section, figure, unit) names it for compare's verdict rows, and
    kind says what one sample is (a run, or one boot's median)."""

    def __init__(self, samples, where=None, kind="runs"):
        samples = list(samples)
        # A null or non-finite value is no measurement: left out, and counted.
        self.samples = [s for s in samples if s is not None and math.isfinite(s)]
        self.dropped = len(samples) - len(self.samples)
        self.where, self.kind = where, kind
        self.n = len(self.samples)
        if self.n:
            self.med = statistics.median(self.samples)
            self.lo, self.hi = min(self.samples), max(self.samples)

    def spread(self):
        """(max - min) / |median|: the relative spread."""
        if self.med == 0:
            return 0.0 if self.hi == self.lo else math.inf
        return (self.hi - self.lo) / abs(self.med)


def rel_change(b, n):
    if b.med == 0:
        return 0.0 if n.med == 0 else math.inf
    return (n.med - b.med) / abs(b.med)


def fig_value(rec, name):
    f = rec.get("figures", {}).get(name)
    return f.get("value") if f else None


def fig_stat(sec, name):
    """Median etc. over the repeats of one figure's value; with several boots
    a side, over each boot's median."""
    unit = next((rec["figures"][name].get("unit") for _, rec in sec.passed
                 if name in rec.get("figures", {})), None)
    if len(sec.boots) > 1:
        meds = [Stat(fig_value(rec, name) for _, rec in boot) for boot in sec.boots]
        return Stat((m.med for m in meds if m.n), (sec.name, name, unit), "boots")
    return Stat((fig_value(rec, name) for _, rec in sec.passed), (sec.name, name, unit))


def fig_caveat(sec, name):
    """Why a run of the section found the figure says little (its record's caveats), or None."""
    for _, rec in sec.passed:
        if rec.get("caveats", {}).get(name):
            return rec["caveats"][name]
    return None


def median_run(sec, fig):
    """The passing record whose figure is the median (the lower one of an even count)."""
    runs = sorted((rec for _, rec in sec.passed if fig_value(rec, fig) is not None),
                  key=lambda rec: fig_value(rec, fig))
    return runs[(len(runs) - 1) // 2] if runs else None


def first_figure(names, scale=1.0):
    """The value of the first of the figures (space-separated names) the record has."""
    def samples(rec):
        v = next((fig_value(rec, n) for n in names.split() if n in rec.get("figures", {})), None)
        return [None if v is None else v * scale]
    return samples
