# SPDX-License-Identifier: GPL-2.0
"""make bench's readings of a run: the headline figures of a record or a
bare tool's output, and their medians and spreads."""
import itertools
import random
import statistics

from budgets import MIB


def noise_headline(tool, rec):
    """One run's headline figures, as the run prints them."""
    f = rec["figures"]
    if tool == "dirty_log_perf":
        n = rec["params"]["iterations"]
        return {k: f[k]["value"] / n for k in ("get_dirty_log_time", "clear_dirty_log_time")}
    if tool == "zap_latency":
        return {"ioctl_latency": f["ioctl_latency"]["value"] / 1e9}
    if tool == "demand_paging":
        return {"overall_paging_rate": f["overall_paging_rate"]["value"]}
    return {"throughput": f["throughput"]["value"]}


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def cv(xs):
    if len(xs) < 2:
        return float("nan")
    m = statistics.mean(xs)
    return statistics.stdev(xs) / m if m else float("nan")


def cv_median_of(xs, k):
    """The CV of the median of k runs, over every k-subset of the runs measured."""
    if len(xs) < k + 1:
        return float("nan")
    return cv([statistics.median(c) for c in itertools.combinations(xs, k)])


def guest_bytes(tool, rec):
    p = rec.get("params", {})
    if tool in ("dirty_log_perf", "demand_paging"):
        per = p.get("vcpu_bytes") or p.get("vcpu_memory_bytes")
        if per is None:
            return None
        # Schema 2: -o shares -v x -b (as upstream); schema 1's -o region was -b.
        shared_v1 = rec.get("schema_version") == 1 and (p.get("overlap") or p.get("shared"))
        return per if shared_v1 else per * p["vcpus"]
    if tool == "zap_latency":
        return p["bytes"]
    if tool == "tlbie_bench":
        # tlbie_bench/setup.c: (pages + max(4 * pages, 64)) frames per vCPU, 2M aligned.
        pages = p["pages"]
        per = (pages + max(pages * 4, 64)) * 4096
        return -(-per * p["vcpus"] // (2 * MIB)) * 2 * MIB
    return None


def headline(tool, rec):
    """The headline figures of one record: {name: value}."""
    if tool == "dirty_log_perf":
        f = rec["figures"]
        n = rec["params"]["iterations"]
        return {"dirty_memory_time": f["dirty_memory_time"]["value"] / n,
                "get_dirty_log_time": f["get_dirty_log_time"]["value"] / n,
                "clear_dirty_log_time": f["clear_dirty_log_time"]["value"] / n,
                "populate_time": f["populate_time"]["value"]}
    if tool == "demand_paging":
        f = rec["runs"][0]["figures"]
        return {"total_guest_execution_time": f["total_guest_execution_time"]["value"]}
    if tool == "zap_latency":
        return {"ioctl_latency": rec["figures"]["ioctl_latency"]["value"] / 1e9}
    if tool == "tlbie_bench":
        return {"throughput": rec["figures"]["throughput"]["value"]}
    return {}


def pooled(tool, rec=None, out=None):
    """Per-occurrence samples of a headline figure, for pooling across runs (zaps)."""
    if tool == "zap_latency":
        if rec is not None:
            return {"ioctl_latency": [v / 1e9 for v in rec["figures"]["ioctl_latency"]["values"]]}
        return {"ioctl_latency": [v / 1e9 for v in out["ioctl_latency"]]}
    if tool == "dirty_log_perf":
        names = ("dirty_memory_time", "get_dirty_log_time", "clear_dirty_log_time")
        if rec is not None:
            return {n: rec["figures"][n]["values"] for n in names}
        return {n: out[n] for n in names}
    return {}


def ratio_interval(suite_runs, bare_runs, draws=2000):
    """
    The 90% bootstrap interval of median(suite) / median(bare), resampling
    whole runs (each a list of occurrences; from one run to the next is where
    this host's spread is), with a fixed seed so one result reads the same.
    """
    rng = random.Random(1)
    ratios = []
    for _ in range(draws):
        s = median([x for r in rng.choices(suite_runs, k=len(suite_runs)) for x in r])
        b = median([x for r in rng.choices(bare_runs, k=len(bare_runs)) for x in r])
        if b:
            ratios.append(s / b)
    ratios.sort()
    return ratios[len(ratios) // 20], ratios[len(ratios) - 1 - len(ratios) // 20]


def tool_headline(tool, out):
    if tool == "dirty_log_perf":
        return {"dirty_memory_time": statistics.mean(out["dirty_memory_time"]),
                "get_dirty_log_time": statistics.mean(out["get_dirty_log_time"]),
                "clear_dirty_log_time": statistics.mean(out["clear_dirty_log_time"]),
                "populate_time": out["populate_time"]}
    if tool == "demand_paging":
        return {"total_guest_execution_time": out["total_guest_execution_time"],
                "overall_paging_rate": out["overall_paging_rate"]}
    if tool == "zap_latency":
        return {"ioctl_latency": statistics.median(out["ioctl_latency"]) / 1e9}
    if tool == "tlbie_bench":
        return {"throughput": out["throughput"]}
    return {}


def dp_handler_overhead(rec):
    """
    demand_paging: the uffd handlers' own time per vCPU, in s, as (bookkeeping,
    content generation): not UFFDIO_COPY, not the read(2) of the fault
    messages (handler_read_time, where recorded), not -d.  A vCPU waits in
    KVM_RUN for its handler, so this time hides inside the vCPU's kernel time.
    """
    f = rec["runs"][0]["figures"]
    read = f.get("handler_read_time", {"value": 0})["value"]
    own = f["handler_time"]["value"] - f["handler_ioctl_time"]["value"] - read - \
        f["handler_delay_time"]["value"] - f["handler_source_time"]["value"]
    n = rec["params"]["vcpus"]
    return max(own, 0) / 1e9 / n, f["handler_source_time"]["value"] / 1e9 / n


def headline_safe(rec):
    if not rec or rec.get("status") != "pass":
        return None
    try:
        return headline(rec["tool"], rec)
    except (KeyError, TypeError, ZeroDivisionError):
        return None
