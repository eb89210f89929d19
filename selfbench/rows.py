# SPDX-License-Identifier: GPL-2.0
"""make bench's table rows (figure, value, budget, verdict) from the raw
results of its runs, one function per kind of row."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from kmp import spread as kmp_spread  # noqa: E402
from budgets import (BARE_REST, COMPARE_BUDGET_S, COMPARE_RUNS, FIDELITY_RANGE, LOCKSTEP, MEM_FIXED, MEM_SHARE,  # noqa: E402
                     NOISE, NOISE_ALPHA, OVERHEAD_BUDGET, STARTUP_ARGS, STARTUP_BUDGET, SUITE,
                     TOTAL_BUDGET)
from readings import (cv, cv_median_of, dp_handler_overhead, guest_bytes, headline,  # noqa: E402
                      median, pooled, ratio_interval, tool_headline)
from runs import T0  # noqa: E402
from table import fmt_mib, fmt_pct, fmt_s  # noqa: E402


def build_rows(results):
    rows = []

    def row(section, figure, value, budget, verdict, **detail):
        rows.append({"section": section, "figure": figure, "value": value, "budget": budget,
                     "verdict": verdict, "detail": detail})

    suite = results["raw"].get("suite", {})
    overhead_rows(row, results, suite)
    fidelity_rows(row, results, suite)
    noise_cv_rows(row, suite)
    # 3b. Noise as budgeted: run.sh's sections against their bare tools, pair by pair.
    for name, r in results["raw"].get("noise", {}).items():
        for fig in NOISE[name]:
            noise_row(row, name, r, fig)

    lockstep_rows(row, results)
    # 4. Memory: peak RSS - guest memory, over every run of each binary.
    memory_rows(row, suite)
    startup_rows(row, results)
    compare_rows(row, results)
    scale_rows(row, results)
    total = time.monotonic() - T0
    row("total", "make bench wall time", fmt_s(total), "<= 10 min",
        "ok" if total <= TOTAL_BUDGET else "FAIL", seconds=total)
    return rows




def overhead_rows(row, results, suite):
    """1. Harness overhead per timed phase, over every run (pinned and unpinned)."""
    # The rest of the bare tool's ioctl regions timed as KMP_ACCOUNT times the
    # suite's (a pair inside a pair), per occurrence over all its accounted runs.
    bare_rest = {}
    for (tool, region), key in BARE_REST.items():
        vals = [v for r in results["raw"].get("fidelity", {}).get(tool, {}).get("accounted", [])
                if r.get("out") for v in r["out"].get(key, [])]
        if vals:
            bare_rest[(tool, region)] = sum(vals) / len(vals)
    for tool, modes in suite.items():
        regions = {}
        for r in modes["accounted"]:
            if not r["ok"] or not r["account"]:
                continue
            for name, a in r["account"]["regions"].items():
                acc = regions.setdefault(name, {"measured": 0, "kernel": 0, "count": 0,
                                                "worst": 0.0, "shares": []})
                acc["shares"].append((a["measured_ns"] - a["kernel_ns"]) / a["measured_ns"]
                                     if a["measured_ns"] else 0.0)
                acc["release"] = acc.get("release", 0) + a.get("release_ns", 0)
                acc["completion"] = acc.get("completion", 0) + a.get("completion_ns", 0)
                acc["measured"] += a["measured_ns"]
                acc["kernel"] += a["kernel_ns"]
                acc["count"] += a["count"]
                acc["worst"] = max(acc["worst"], a["worst_share"])
        for name, acc in regions.items():
            shares = acc["shares"]
            share = median(shares)
            per = (acc["measured"] - acc["kernel"]) / acc["count"] / 1e9
            info = name == "clear_step_wall_time"
            split = ""
            if acc.get("release") or acc.get("completion"):
                split = ": release %s, completion %s" % (fmt_s(acc["release"] / acc["count"] / 1e9),
                                                         fmt_s(acc["completion"] / acc["count"] /
                                                               1e9))
            # An ioctl region whose rest per occurrence is no more than a bare
            # loop's, timing the same ioctl the same way (within the fidelity
            # band), is the timing itself: the clock reads, which any timing of
            # that ioctl pays, and the accounting's own pair inside them.
            rest = bare_rest.get((tool, name))
            clocks = (rest is not None and share > OVERHEAD_BUDGET and
                      per <= FIDELITY_RANGE[1] * rest)
            verdict = ("info" if info else "ok" if share <= OVERHEAD_BUDGET else
                       "ok: the clock reads" if clocks else "FAIL")
            row("overhead", "%s %s%s" % (tool, name, " (the whole step: diagnostic)" if info
                                           else ""),
                "%s (%s..%s; %s each%s%s)" % (
                    fmt_pct(share), fmt_pct(min(shares)), fmt_pct(max(shares)), fmt_s(per),
                    split, "; a bare loop timing it the same way: %s each" % fmt_s(rest)
                    if rest is not None else ""),
                "info" if info else "<= 1%", verdict, share=share,
                shares=shares, per_occurrence_s=per, worst_share=acc["worst"],
                occurrences=acc["count"])
        if tool == "demand_paging":
            own, gen, tot = [], [], []
            for r in modes["accounted"]:
                if r["ok"]:
                    w = r["record"]["runs"][0]["figures"]["total_guest_execution_time"]["value"]
                    o, g = dp_handler_overhead(r["record"])
                    own.append(o / w)
                    gen.append(g / w)
                    tot.append((o + g) / w)
            if tot:
                s = median(tot)
                row("overhead", "demand_paging total_guest_execution_time: uffd handlers' own "
                    "time, per vCPU", "%s (%s..%s; bookkeeping %s, page content %s)" % (
                        fmt_pct(s), fmt_pct(min(tot)), fmt_pct(max(tot)), fmt_pct(median(own)),
                        fmt_pct(median(gen))), "<= 1%",
                    "ok" if s <= OVERHEAD_BUDGET else "FAIL", share=s, shares=tot,
                    bookkeeping=own, content=gen)

def fidelity_rows(row, results, suite):
    """2. Fidelity: suite (pinned) / bare tool (pinned), same VM state, medians."""
    fid = results["raw"].get("fidelity", {})
    for tool, variants in fid.items():
        suite_vals = [headline(tool, r["record"]) for r in suite.get(tool, {}).get("pinned", [])
                      if r["ok"]]
        same = [tool_headline(tool, r["out"]) for r in variants["same_guest"] if r["out"]]
        mini = [tool_headline(tool, r["out"]) for r in variants["minimal_guest"] if r["out"]]
        if not suite_vals or not same:
            continue
        pool_s = [pooled(tool, rec=r["record"]) for r in suite[tool]["pinned"] if r["ok"]]
        pool_b = [pooled(tool, out=r["out"]) for r in variants["same_guest"] if r["out"]]
        for fig in suite_vals[0]:
            if pool_s and pool_s[0] and fig in pool_s[0]:
                # Every occurrence of every run: the median of all zaps or iterations.
                runs_s = [p[fig] for p in pool_s]
                runs_b = [p[fig] for p in pool_b]
            else:
                runs_s = [[v[fig]] for v in suite_vals]
                runs_b = [[v[fig]] for v in same]
            s = median([x for r in runs_s for x in r])
            b = median([x for r in runs_b for x in r])
            ratio = s / b if b else float("nan")
            ok = FIDELITY_RANGE[0] <= ratio <= FIDELITY_RANGE[1]
            # How well these runs pin the ratio down: an interval wider than the
            # range means this host's run-to-run spread cannot resolve it.
            lo, hi = ratio_interval(runs_s, runs_b)
            floor = hi - lo > FIDELITY_RANGE[1] - FIDELITY_RANGE[0]
            row("fidelity", "%s %s" % (tool, fig),
                "%.3f (%s / %s); 90%% interval over the runs %.3f-%.3f%s" % (
                    ratio, fmt_s(s) if fig != "throughput" else "%.1f/s" % s,
                    fmt_s(b) if fig != "throughput" else "%.1f/s" % b, lo, hi,
                    ", wider than the range: the host's floor" if floor else ""),
                "0.95-1.05", "ok" if ok else "FAIL", ratio=ratio, suite=s, independent=b,
                interval=[lo, hi], host_floor=floor)
            if tool == "zap_latency" and pool_s:
                xs = sorted(x for p in pool_s for x in p[fig])
                ys = sorted(x for p in pool_b for x in p[fig])
                fast = 200e-6
                p10 = lambda v: v[len(v) // 10]
                row("fidelity", "zap_latency ioctl_latency: 10th percentiles; zaps under 200 us",
                    "%.3f (%s / %s); %d/%d suite, %d/%d bare" % (
                        p10(xs) / p10(ys), fmt_s(p10(xs)), fmt_s(p10(ys)),
                        sum(x < fast for x in xs), len(xs), sum(y < fast for y in ys), len(ys)),
                    "info", "info", p10_ratio=p10(xs) / p10(ys), suite=xs, independent=ys)
            if mini and fig in ("dirty_memory_time", "populate_time",
                                "total_guest_execution_time"):
                m = median([v[fig] for v in mini])
                row("fidelity", "%s %s: suite guest / one-store guest" % (tool, fig),
                    "%.2f (%s / %s)" % (b / m, fmt_s(b), fmt_s(m)), "info", "info",
                    ratio=b / m, same_guest=b, minimal_guest=m)

def noise_cv_rows(row, suite):
    """3. Noise: CV of each headline figure over the runs, unpinned and pinned."""
    for tool, modes in suite.items():
        vals = {m: [headline(tool, r["record"]) for r in modes[m] if r["ok"]]
                for m in ("unpinned", "pinned")}
        if not vals["unpinned"]:
            continue
        for fig in vals["unpinned"][0]:
            xu = [v[fig] for v in vals["unpinned"]]
            xp = [v[fig] for v in vals["pinned"]]
            cu, cp = cv(xu), cv(xp)
            mu, mp = cv_median_of(xu, 3), cv_median_of(xp, 3)
            better = "pinning helps" if cp < cu else "pinning does not help"
            row("noise", "%s %s CV (n=%d)" % (tool, fig, len(xu)),
                "%s unpinned, %s pinned; median of 3: %s, %s" % (
                    fmt_pct(cu), fmt_pct(cp), fmt_pct(mu), fmt_pct(mp)), "report", better,
                cv_unpinned=cu, cv_pinned=cp, cv_median3_unpinned=mu, cv_median3_pinned=mp,
                unpinned=xu, pinned=xp)

def lockstep_rows(row, results):
    """Lockstep wake-up skew: spin-then-block against the condvar alone, in one run."""
    for name, modes in results["raw"].get("lockstep", {}).items():
        if not modes["auto"] or not modes["block"]:
            continue
        sk = {h: median([r["release"] + r["completion"] for r in modes[h]]) for h in modes}
        parts = {h: "release %s + completion %s" % (
            fmt_s(median([r["release"] for r in modes[h]])),
            fmt_s(median([r["completion"] for r in modes[h]]))) for h in modes}
        own = name == "own CPUs"
        row("lockstep", "dirty_log_perf %s (%s): wake-up skew per iteration, default / "
            "condvar alone (medians of %d)" % (" ".join(LOCKSTEP[name]), name, len(modes["auto"])),
            "%s / %s = %.2f (default: %s; condvar: %s)" % (
                fmt_s(sk["auto"]), fmt_s(sk["block"]), sk["auto"] / sk["block"] if sk["block"]
                else float("nan"), parts["auto"], parts["block"]),
            "< 0.5 (spins)" if own else "info (blocks too)",
            ("ok" if sk["auto"] < 0.5 * sk["block"] else "FAIL") if own else "info",
            default=modes["auto"], block=modes["block"])

def mem_row(row, label, rss, guest):
    over = rss - guest
    allowed = MEM_SHARE * guest + MEM_FIXED
    row("memory", label, "%s over %s guest (%s of it)" % (fmt_mib(over), fmt_mib(guest),
                                                        fmt_pct(over / guest)),
        "<= 2%% + 64 MiB (%s)" % fmt_mib(allowed), "ok" if over <= allowed else "FAIL",
        peak_rss=rss, guest_bytes=guest, over=over, allowed=allowed)


def memory_rows(row, suite):
    """The worst run of each benchmark: peak RSS - guest memory."""
    for tool, modes in suite.items():
        runs = [r for r in modes["unpinned"] + modes["pinned"] + modes["accounted"] if r["ok"]]
        if runs:
            worst = max(runs, key=lambda r: r["rss"] - guest_bytes(tool, r["record"]))
            mem_row(row, tool + " " + " ".join(SUITE[tool]["args"]), worst["rss"],
                    guest_bytes(tool, worst["record"]))

def startup_rows(row, results):
    """5. Start-up."""
    st = results["raw"].get("startup", {})
    if st.get("dirty_log_perf"):
        xs = st["dirty_log_perf"]
        row("start-up", "dirty_log_perf %s: exec to 8 vCPUs ready (median of %d, max)" %
            (" ".join(STARTUP_ARGS), len(xs)), "%s (max %s)" % (fmt_s(median(xs)), fmt_s(max(xs))),
            "<= 50 ms", "ok" if median(xs) <= STARTUP_BUDGET else "FAIL", median=median(xs),
            max=max(xs), values=xs)
    if st.get("library"):
        lib = st["library"]
        parts = ["exec_to_main", "host_desc_read", "vm_create", "vcpus_add", "threads_start"]
        med = {k: median([x[k] for x in lib]) for k in parts + ["startup_time"]}
        row("start-up", "library alone: exec, host_desc_read, vm_create, 8 vm_vcpu_add, "
            "vcpu_threads_start", "%s = %s" % (fmt_s(med["startup_time"]),
                                                " + ".join(fmt_s(med[k]) for k in parts)),
            "<= 50 ms", "ok" if med["startup_time"] <= STARTUP_BUDGET else "FAIL", **med)

def compare_rows(row, results):
    """5b. compare's statistics at scale: one figure, COMPARE_RUNS runs a side."""
    c = results["raw"].get("compare")
    if not c or not c["seconds"]:
        return
    xs = c["seconds"]
    row("compare", "one figure, %d+%d runs: rank test, interval, Holm, both passes (median of "
        "%d, max)" % (COMPARE_RUNS, COMPARE_RUNS, len(xs)), "%s (max %s)" % (
            fmt_s(median(xs)), fmt_s(max(xs))), "<= %g s" % COMPARE_BUDGET_S,
        "ok" if median(xs) <= COMPARE_BUDGET_S else "FAIL", median=median(xs), max=max(xs),
        values=xs, verdict=c["verdict"])


def scale_rows(row, results):
    """6. Scale."""
    sc = results["raw"].get("scale", {})
    for tool in ("dirty_log_perf", "demand_paging"):
        r = sc.get(tool)
        if not r:
            continue
        row("scale", "%s %s" % (tool, " ".join(r["cmd"])),
            "%s in %s" % ("pass" if r["ok"] else "FAIL", fmt_s(r["wall"])), "completes",
            "ok" if r["ok"] else "FAIL", wall=r["wall"], rss=r["rss"])
        if r["ok"] and r["guest_bytes"]:
            mem_row(row, "%s %s" % (tool, " ".join(r["cmd"])), r["rss"], r["guest_bytes"])
    b = sc.get("bigvm")
    if b:
        o = b["out"]
        if o:
            row("scale", "64 GiB guest (MAP_NORESERVE, 2M guest pages, 1 page per 64 MiB)",
                "setup %s, touch %s (%d pages), teardown %s" % (
                    fmt_s(o["setup_time"]), fmt_s(o["touch_time"]), o["pages_touched"],
                    fmt_s(o["teardown_time"])), "completes", "ok", **o)
            touched = o["pages_touched"] * 4096
            over = b["rss"] - touched
            allowed = MEM_SHARE * o["guest_bytes"] + MEM_FIXED
            row("memory", "64 GiB guest: peak RSS - touched guest memory",
                "%s (RSS %s; KVM's vmalloc +%s)" % (fmt_mib(over), fmt_mib(b["rss"]),
                                                    fmt_mib(o["kernel_vmalloc_growth"])),
                "<= 2%% + 64 MiB (%s)" % fmt_mib(allowed), "ok" if over <= allowed else "FAIL",
                peak_rss=b["rss"], over=over, allowed=allowed,
                kernel_vmalloc=o["kernel_vmalloc_growth"])
        else:
            row("scale", "64 GiB guest", "FAIL (exit %d)" % b["rc"], "completes", "FAIL")

def noise_row(row, name, r, fig):
    """The row of one figure of a noise section: the suite's spread over its
    bare tool's, with its interval and the one-sided test's verdict."""
    label = "%s (%s %s) %s: spread, suite / bare %s %s" % (
        name, r["tool"], " ".join(r["args"]), fig, r["bare"], " ".join(r["bare_args"]))
    budget = "suite not noisier (p > %g)" % NOISE_ALPHA
    if r["dropped"]:
        row("noise", label, "dropped: " + r["dropped"], budget, "not run")
        return
    pairs = [(s[fig], b[fig]) for s, b in r["pairs"]]
    if len(pairs) < 3:
        row("noise", label, "%d complete pairs: too few to compare" % len(pairs), budget, "FAIL")
        return
    suite, bare = [p[0] for p in pairs], [p[1] for p in pairs]
    try:
        test = kmp_spread.spread_test(suite, bare)
    except ValueError as e:     # a figure of 0 or less has no relative spread
        row("noise", label, "no spread test: %s" % e, budget, "FAIL")
        return
    # 90%: its lower end is the one-sided 95% bound, the test's side and level.
    ratio, lo, hi = kmp_spread.spread_ratio_ci(pairs, conf=0.90)
    f = fmt_s if "time" in fig or "latency" in fig else (lambda x: "%.4g/s" % x)
    value = "%s (90%% CI %s; suite %s, bare %s; CV %s, %s; medians %s, %s; %d pairs, p=%.3g, " \
        "%s; host steal time %d ms)" % (
            "%.2f" % ratio if ratio is not None else "n/a (bare has no spread)",
            "%.2f..%.2f" % (lo, hi) if lo is not None else "n/a",
            fmt_pct(kmp_spread.spread(suite)), fmt_pct(kmp_spread.spread(bare)),
            fmt_pct(cv(suite)), fmt_pct(cv(bare)), f(median(suite)), f(median(bare)),
            len(pairs), test.p, test.method, r["steal_ticks"] * 1000 // os.sysconf("SC_CLK_TCK"))
    row("noise", label, value, budget, "FAIL" if test.p <= NOISE_ALPHA else "ok",
        ratio=ratio, ratio_lo=lo, ratio_hi=hi, p=test.p, method=test.method,
        values=suite, bare_values=bare)
