# SPDX-License-Identifier: GPL-2.0
"""tlbie_bench in compare (seed 001's throughput and host profile, and
--alternate's within-boot ratios), in sweeps and in summaries."""
from .. import stats
from ..figures import fig_stat, first_figure, median_run
from ..verdicts import compare_line, emit

COMPARE_ORDER = 2


def fmt_k_per_sec(rate):
    """tlbie_bench's line: the post's %.1fK/sec from 100/s up, else 3 significant digits."""
    return "%.1fK/sec" % (rate / 1000) if rate >= 100 else "%.3gK/sec" % (rate / 1000)


def profile_lines(rec):
    """A record's host profile as '74.52%  [k] do_tlbies' lines, or one line saying why not."""
    prof = rec.get("profile") if rec else None
    if prof is None:
        return ["not recorded (run without --profile)"]
    if not prof.get("top"):
        return ["unavailable: %s" % (prof.get("unavailable") or "no samples")]
    return ["%6.2f%%  %s" % (t["share_pct"], t["symbol"]) for t in prof["top"]]


def print_compare(pairs):
    print("tlbie_bench (seed 001): forks/s over all vCPUs, BASE -> NEW")
    for b, n in pairs:
        p = b.params
        print("%s (vcpus %s, flush %s, shared %s, pages %s):" % (
            b.name, p.get("vcpus"), p.get("flush"), str(p.get("shared")).lower(), p.get("pages")))
        emit(compare_line("total throughput", fig_stat(b, "throughput"),
                           fig_stat(n, "throughput"), fmt_k_per_sec, "ratio",
                           lambda v: "%.3g/sec" % v))
        # The post's other evidence: the top of the host profile, before and after.
        base, new = (profile_lines(median_run(sec, "throughput")) for sec in (b, n))
        width = max(len(l) for l in base)
        print("  host profile of the median run, BASE | NEW:")
        for i in range(max(len(base), len(new))):
            print("    %-*s | %s" % (width, base[i] if i < len(base) else "",
                                   new[i] if i < len(new) else ""))


def print_within_side(base, new, alpha):
    """tlbie_bench --alternate: a switch's two settings measured in turn in
    one run, so within one boot; the pair ratios of every run pooled."""
    names = sorted(name for side in (base, new) for name, sec in side.items()
                   if any(rec.get("alternate") for _, rec in sec.passed))
    if not names:
        return
    print()
    print("within one boot (tlbie_bench --alternate: both settings in turn, 1 s phases in "
          "pairs; the host's clock compared only with itself):")
    for name in sorted(set(names)):
        print("%s:" % name)
        for label, side in (("BASE", base), ("NEW", new)):
            sec = side.get(name)
            runs = [rec for _, rec in sec.passed if rec.get("alternate")] if sec else []
            if not runs:
                why = ("; ".join(sorted({r for _, _, r in sec.excluded if r}))
                       if sec and sec.excluded else "not run")
                print("  %s: no --alternate result (%s)" % (label, why or "no passing run"))
                continue
            param = runs[0]["alternate"]["param"]
            ratios = [v for rec in runs
                      for v in rec["figures"]["alternate_ratio"].get("values", [])]
            if not ratios:
                print("  %s: %s: no whole pair of phases" % (label, param))
                continue
            lo, hi, p = stats.sign_test(ratios)
            # The sign test's smallest p with k untied pairs is 2 / 2^k.
            need = next(k for k in range(1, 64) if 2 / 2 ** k <= alpha)
            print("  %s: %s 1/0 throughput x%.3f (median of %d pair ratios over %d run(s), "
                  "%.3f-%.3f; lower with 1 in %d, higher in %d; sign test p = %.3g)%s"
                  % (label, param, stats.median(ratios), len(ratios), len(runs),
                     min(ratios), max(ratios), lo, hi, p,
                     "" if p <= alpha else
                     ": too few pairs (%d untied; %d can reach p<=%g)" % (lo + hi, need, alpha)
                     if lo + hi < need else
                     ": ~ (no significant change at alpha %g)" % alpha))


# sweep-table's series: (column, label, unit, samples of one record, y axis).
SWEEP_SERIES = [("throughput_forks_s", "total throughput", "forks/s", first_figure("throughput"), 1)]

# summary's figures.
MAIN_FIGURES = ["throughput"]
