# SPDX-License-Identifier: GPL-2.0
"""What the tests of scripts/kmp_results.py share (results_*_test.py).

Two result sets A (BASE) and B (NEW) are built in a temporary folder from
records laid out like the C writers' (include/record.h and each tool's
results.c), with known numbers, and checked with scripts/check-record.py.
The expected figures (medians, percentages, the rank test) are computed
here, independently of scripts/kmp/.
"""
import itertools
import json
import math
import os
import shutil
import subprocess
import tempfile
import traceback

from kmp_testlib import SRC, ktap_report

KMP = os.path.join(SRC, "scripts", "kmp_results.py")
CHECK = os.path.join(SRC, "scripts", "check-record.py")
GiB = 1 << 30

results = []        # (name, passed, diagnostic lines)


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail if not ok else ""))


# ------------------------------------------------------------ records, as the C code lays them out

HOST = {"kernel": "6.1.0-test", "machine": "x86_64", "cpu_model": "Test CPU", "cpus": 64,
        "cores": 64, "numa_nodes": 1, "mem_total_bytes": 256 * GiB, "kvm_module": "kvm_intel",
        "mmu": "TDP (EPT)", "kvm_params": {"kvm.tdp_mmu": "Y", "kvm.eager_page_split": "Y"}}


def figure(unit, value, values=None):
    """record_figure(): doubles; values only when there are some."""
    f = {"unit": unit, "value": None if value is None else float(value)}
    if values:
        f["values"] = [float(v) for v in values]
    return f


def record(tool, argv, params, figures=None, status="pass", reason=None, extra=None):
    """record_begin() ... record_end(): envelope, params, figures, tool members, status."""
    rec = {"schema_version": 2, "tool": tool, "tool_version": "v-test", "command": [tool] + argv,
           "started_at": "2026-11-30T04:33:12Z", "host": HOST, "params": params}
    if figures is not None:
        rec["figures"] = figures
    rec.update(extra or {})
    rec.update({"status": status, "reason": reason, "finished_at": "2026-11-30T04:33:20Z"})
    return rec


def dlp_record(chunk, clear_iters, pages_touched, nonstop=True):
    """dirty_log_perf/results.c: -v 48 -b 4G -i 3 -k CHUNK -j (nonstop False: no -k, -j)."""
    n = len(clear_iters)
    params = {"vcpus": 48, "vcpu_bytes": 4 * GiB, "backing_src": "anonymous_hugetlb_2mb",
              "slots": 1, "overlap": False, "write_percent": 100, "random_access": False,
              "random_seed": 1, "iterations": n, "nonstop": nonstop, "manual_protect": True,
              "manual_protect_caps": 3, "run_while_disabling": False, "clear_chunk_bytes": chunk,
              "clear_delay_ms": 0, "log": "bitmap", "ring_entries": 0, "verify": False, "cpus": []}
    get = [0.001] * n
    figs = {"populate_time": figure("s", 12.5), "enable_dirty_logging_time": figure("s", 0.01),
            "disable_dirty_logging_time": figure("s", 0.02),
            "get_dirty_log_time": figure("s", sum(get), get),
            "clear_dirty_log_time": figure("s", sum(clear_iters), clear_iters),
            "clear_step_wall_time": figure("s", sum(clear_iters) + 1e-6,
                                           [c + 1e-6 / n for c in clear_iters]),
            "dirty_pages": figure("pages", 1000 * n, [1000] * n),
            "pages_touched": figure("pages", pages_touched), "pages_read": figure("pages", 0),
            "pages_written": figure("pages", pages_touched),
            "pages_touched_during_clear": figure("pages", 30, [10] * n)}
    argv = ["-v", "48", "-b", "4G", "-i", str(n)] + (["-k", str(chunk), "-j"] if nonstop else [])
    return record("dirty_log_perf", argv, params, figs,
                  extra={"phases": {"populate": {"mmu_pte_write": 12}}})


def dp_run(vcpus, w, rate):
    """demand_paging/results.c write_run()."""
    pages = 16384 * vcpus
    return {"vcpus": vcpus, "mem_fault_exits": w, "figures": {
        "total_guest_execution_time": figure("s", pages / rate),
        "per_vcpu_paging_rate": figure("pages/s/vcpu", rate / vcpus),
        "overall_paging_rate": figure("pages/s", rate), "pages": figure("pages", pages),
        "uffd_faults": figure("faults", pages), "uffd_eexist": figure("faults", 0),
        "handler_latency_p50": figure("ns", 600), "handler_latency_p99": figure("ns", 1000),
        "handler_time": figure("ns", 1e6), "handler_ioctl_time": figure("ns", 9e5),
        "handler_source_time": figure("ns", 0), "handler_delay_time": figure("ns", 0),
        "handler_outside_ioctl_share": figure("ratio", 0.1),
        "handler_overhead_share": figure("ratio", 0.1),
        "mem_fault_exits": figure("exits", pages if w else 0)}}


def dp_params(vcpus, sweep):
    return {"vcpus": vcpus, "vcpu_bytes": 64 << 20, "backing_src": "shmem", "overlap": False,
            "uffd_mode": "MINOR", "one_uffd": True, "delay_us": 0, "readers": 2,
            "mem_fault_exits": False, "source": "pattern", "sweep_vcpus": sweep, "repeat": 1}


def dp_sweep_record(rates):
    """A --sweep-vcpus record: no figures, every run under runs."""
    sweep = sorted({v for v, _ in rates})
    runs = [dp_run(v, w, rate) for (v, w), rate in sorted(rates.items())]
    return record("demand_paging", ["-b", "64M", "-u", "MINOR", "-s", "shmem", "-a", "-r", "2",
                                    "--sweep-vcpus", ",".join(map(str, sweep))],
                  dp_params(1, sweep), None, extra={"mem_fault_exits_unsupported": None,
                                                     "runs": runs})


def dp_single_record(vcpus, rate):
    """A single demand_paging run: figures and one run."""
    run = dp_run(vcpus, False, rate)
    figs = {k: run["figures"][k] for k in ("total_guest_execution_time",
                                           "per_vcpu_paging_rate", "overall_paging_rate")}
    return record("demand_paging", ["-v", str(vcpus)], dp_params(vcpus, []), figs,
                  extra={"mem_fault_exits_unsupported": None, "runs": [run]})


def tb_record(rate, flush="page", vcpus=2, profile=None):
    """tlbie_bench/main.c write_json(); profile: [(share, symbol)], "" for unavailable."""
    params = {"vcpus": vcpus, "seconds": 5, "pages": 16, "flush": flush, "shared": False}
    forks = rate * 5     # a NaN rate (the bad-input case) stays NaN
    figs = {"throughput": figure("forks/s", rate, [rate / vcpus] * vcpus),
            "forks": figure("forks", forks, [forks / vcpus] * vcpus),
            "verified_remaps": figure("remaps", forks * 16, [forks * 8] * vcpus),
            "run_time": figure("s", 5.0)}
    for stat in ("exits", "invlpg", "tlb_flush", "pf_taken", "pf_fixed", "pf_emulate",
                 "insn_emulation"):
        figs[stat] = figure("events", 100)
    extra = None
    if profile is not None:
        extra = {"profile": {"source": "perf record -a --all-kernel -F 999; perf report --sort sym",
                             "unavailable": None if profile else "perf is not installed",
                             "top": [{"share_pct": p, "symbol": sym} for p, sym in profile]}}
    return record("tlbie_bench", ["-v", str(vcpus), "--flush", flush], params, figs,
                  extra=extra)


def zl_record(window, ioctl, breaks, vcpus=4):
    """zap_latency/results.c: value = the median over 3 zaps, values = each zap's."""
    params = {"vcpus": vcpus, "bytes": GiB, "backing_src": "anonymous", "zaps": 3,
              "trigger": "delete", "zap_all": "default", "mmu": "TDP (EPT)", "traced": True,
              "trace_unavailable": None}

    def three(v):
        return figure("ns", v, [v - 10, v, v + 10])
    figs = {"ioctl_latency": three(ioctl), "kernel_zap_span": three(window),
            "lock_breaks": figure("breaks", breaks, [breaks, breaks, breaks]),
            "mmu_shadow_zapped": figure("pages", 5000, [5000] * 3),
            "guest_stall_max": three(2000000), "refault_time": three(3000000),
            "warm_up_time": figure("ms", 250)}
    zaps = [{"ioctl_ns": int(ioctl), "traced": True, "span_seen": True,
             "kernel_zap_span_ns": int(window), "lock_breaks": breaks, "zap_tasks": 1}] * 3
    return record("zap_latency", ["-v", str(vcpus), "-b", "1G", "-i", "3"], params, figs,
                  extra={"zaps": zaps, "trace": {
                      "mechanism": "kprobe", "span_function": "kvm_mmu_zap_all_fast",
                      "span": "entry to return of kvm_mmu_zap_all_fast in the ioctl's task",
                      "worker_function": None, "clock": "mono", "clock_resolution_ns": 1,
                      "lock_breaks_observable": True, "lock_breaks_unavailable": None,
                      "preempt_model": "voluntary", "preempt_model_source": "debugfs",
                      "lock_break_means": "mmu_lock dropped"}})


def write(folder, name, repeat, rec):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "%s.%d.json" % (name, repeat))
    with open(path, "w") as f:
        json.dump(rec, f, separators=(",", ":"))     # compact, like lib/json.c
    with open(os.path.join(folder, "%s.%d.log" % (name, repeat)), "w") as f:
        f.write("TAP version 13\n1..1\nok 1 %s\n" % rec["tool"])
    return path


def med(values):
    """The median of an odd count (the test sets are built that way)."""
    assert len(values) % 2 == 1
    return sorted(values)[len(values) // 2]


def ts(sec):
    """%ld.%.9lds, from integer nanoseconds."""
    ns = int(round(sec * 10**9))
    return "%d.%09ds" % (ns // 10**9, ns % 10**9)


def overlap(a, b):
    return min(a) <= max(b) and min(b) <= max(a)


def rank_sum_p(a, b):
    """Two-sided exact rank-sum p by enumerating every split (midranks for ties):
    written here apart from scripts/kmp/stats.py, which counts them by a recurrence."""
    pooled = sorted(a + b)
    rank = {v: sum(i + 1 for i, w in enumerate(pooled) if w == v) / pooled.count(v)
            for v in pooled}
    ranks = [rank[v] for v in a + b]
    mean = len(a) * (len(pooled) + 1) / 2
    far = abs(sum(ranks[:len(a)]) - mean)
    splits = list(itertools.combinations(ranks, len(a)))
    return sum(abs(sum(c) - mean) >= far - 1e-9 for c in splits) / len(splits)


def marked(line):
    """A compare line whose verdict is unknown (not significant, not shown the same)."""
    return "(unknown:" in line


def within_noise(a, b, alpha=0.05):
    """Unknown to compare: p above alpha, or too few runs to ever reach it (not when
    both sides are constant: then the difference is exact); none of these samples'
    intervals fits inside compare's +-2%, so none is 'same'."""
    if len(set(a)) == 1 and len(set(b)) == 1:
        return False
    least = 2 / math.comb(len(a) + len(b), len(a))
    return least > alpha or rank_sum_p(a, b) > alpha


def pct(a, b):
    return "%d%%" % round((med(b) - med(a)) / med(a) * 100)


# ------------------------------------------------------------ the data (seed-like numbers)

# dirty_log_perf: section -> (chunk, [BASE per-repeat per-iteration clear times],
# [NEW ...], BASE pages touched per repeat, NEW ...)
DLP = {
    "dirty-log-clear-chunk-192G": (192 * GiB,
                                   [[1.1, 1.0, 0.95], [1.11, 1.01, 0.96], [1.09, 0.99, 0.94]],
                                   [[1.72, 1.56, 1.48], [1.7, 1.55, 1.47], [1.74, 1.58, 1.5]],
                                   [100000, 101000, 99000], [252000, 250000, 254000]),
    "dirty-log-clear-chunk-1G": (GiB,
                                 [[5.2, 4.9, 4.9], [5.3, 5.0, 5.0], [5.1, 4.8, 4.8]],
                                 [[1.0, 0.9, 0.95], [1.05, 0.95, 0.9], [0.95, 0.9, 0.95]],
                                 [100000, 98000, 102000], [172000, 170000, 175000]),
    "dirty-log-whole": (0,
                        [[0.5, 0.4, 0.4], [0.52, 0.41, 0.42], [0.49, 0.39, 0.4]],
                        [[0.51, 0.41, 0.41], [0.48, 0.4, 0.39], [0.53, 0.42, 0.43]],
                        [50000, 51000, 49000], [50500, 49500, 51500]),
}
# Seed 003 (lockstep, -v 160 -b 1G -i 3): per repeat, per iteration clear times.  The
# middle repeat by total is the post's own run, so the blocks must print it back.
SEED003_BEFORE = [3.638543593, 3.145032742, 3.142340358]
SEED003_AFTER = [2.318988110, 1.794470164, 1.791668628]
DLP003 = ([[3.7, 3.2, 3.2], SEED003_BEFORE, [3.5, 3.1, 3.1]],
          [[2.4, 1.9, 1.8], [2.2, 1.7, 1.7], SEED003_AFTER])
SEED003_POST = """Before optimization:
--------------------
Iteration 1 clear dirty log time: 3.638543593s
Iteration 2 clear dirty log time: 3.145032742s
Iteration 3 clear dirty log time: 3.142340358s
Clear dirty log over 3 iterations took 9.925916693s. (Avg 3.308638897s/iteration)

After optimization:
-------------------
Iteration 1 clear dirty log time: 2.318988110s
Iteration 2 clear dirty log time: 1.794470164s
Iteration 3 clear dirty log time: 1.791668628s
Clear dirty log over 3 iterations took 5.905126902s. (Avg 1.968375634s/iteration)"""

DLP_ROWS = [("whole slot", "dirty-log-whole"), ("192GB", "dirty-log-clear-chunk-192G"),
            ("1GB", "dirty-log-clear-chunk-1G")]

# demand_paging sweep: (vcpus, -w) -> per-repeat overall rates (pages/s); (4, True) missing.
# 1 vCPU w/o: ranges overlap, small change; 4 vCPUs w/o: ranges overlap, but the change
# (+14%) is above both spreads (9.5%, 10.4%); 3 runs a side: ~ all the same.
DP_BASE = {(1, False): [150100, 149800, 150400], (2, False): [191000, 190500, 192300],
           (4, False): [200000, 210000, 220000], (1, True): [340000, 338000, 342000],
           (2, True): [477000, 475000, 480000]}
DP_NEW = {(1, False): [151000, 149000, 153000], (2, False): [240000, 238000, 242000],
          (4, False): [220000, 240000, 245000], (1, True): [520000, 515000, 526000],
          (2, True): [700000, 690000, 710000]}

TB = {"tlbie-page": ([13400, 13500, 13650], [50900, 51000, 51200]),
      "tlbie-full": ([20000], [20500]), "tlbie-slow": ([36.18], [55.18])}
# Seed 001's profiles (the post: do_tlbies 74.52% before, 21.28% after).
TB_PROFILE = ([(74.52, "[k] do_tlbies"), (2.95, "[k] kvmppc_book3s_hv_page_fault")],
              [(21.28, "[k] do_tlbies"), (5.26, "[k] kvmppc_run_core")])

ZW_BASE, ZW_NEW = 0x174706e, 0x69c1676          # seed 004's latencies
# (windows, ioctl latencies, lock breaks); the ioctl ranges do not overlap, but the
# change (+32%) is below the base spread (35%); 3 runs a side: ~.
ZAP_BASE = ([ZW_BASE - 1000, ZW_BASE, ZW_BASE + 5000], [29000000, 31000000, 40000000], [5, 4, 6])
ZAP_NEW = ([ZW_NEW, ZW_NEW + 100, ZW_NEW - 300], [40500000, 41000000, 42000000], [13, 13, 12])


def build_sets(tmp):
    a, b = os.path.join(tmp, "A"), os.path.join(tmp, "B")
    paths = []
    for folder, side in ((a, 0), (b, 1)):
        os.makedirs(folder)
        with open(os.path.join(folder, "host.txt"), "w") as f:
            f.write("kernel 6.1.0-test\n")
        with open(os.path.join(folder, "summary.ktap"), "w") as f:
            f.write("TAP version 13\n1..1\nok 1 all\n")
        for name, (chunk, cb, cn, pb, pn) in DLP.items():
            clears, pages = (cb, pb) if side == 0 else (cn, pn)
            for r, (c, p) in enumerate(zip(clears, pages), 1):
                paths.append(write(folder, name, r, dlp_record(chunk, c, p)))
        for r, clears in enumerate(DLP003[side], 1):
            paths.append(write(folder, "dlp-seed003", r, dlp_record(0, clears, 5000, False)))
        rates = DP_BASE if side == 0 else DP_NEW
        for r in range(3):
            paths.append(write(folder, "dp-sweep", r + 1,
                               dp_sweep_record({k: v[r] for k, v in rates.items()})))
        for name, sides in TB.items():
            for r, rate in enumerate(sides[side], 1):
                prof = (TB_PROFILE[side] if name == "tlbie-page" else
                        "" if name == "tlbie-full" else None)
                paths.append(write(folder, name, r, tb_record(rate, name.split("-")[1],
                                                              profile=prof)))
        win, ioctl, brk = ZAP_BASE if side == 0 else ZAP_NEW
        for r in range(3):
            paths.append(write(folder, "zap-all", r + 1, zl_record(win[r], ioctl[r], brk[r])))
    # Only in BASE; a failed run in NEW (no figures: it failed in setup).
    paths.append(write(a, "only-base", 1, tb_record(1000)))
    fail = record("tlbie_bench", ["-v", "2"], tb_record(1)["params"], None, "fail",
                  "vCPU 1: stale translation at gva 0x10000")
    paths.append(write(b, "tlbie-page", 4, fail))
    return a, b, paths


def run(*args):
    return subprocess.run([KMP] + list(args), capture_output=True, text=True)


def edit(folder, fname, fn):
    path = os.path.join(folder, fname)
    with open(path) as f:
        rec = json.load(f)
    fn(rec)
    with open(path, "w") as f:
        json.dump(rec, f)



def run_tests(tests):
    """Build A and B, check their records, then each test(tmp, a, b); KTAP."""
    tmp = tempfile.mkdtemp(prefix="kmp-results-test-")
    try:
        a, b, paths = build_sets(tmp)
        res = subprocess.run([CHECK] + paths, capture_output=True, text=True)
        check("synthetic records pass scripts/check-record.py (%d records)" % len(paths),
              res.returncode == 0, res.stderr)
        for test in tests:
            test(tmp, a, b)
    except Exception:      # a crash is a failed test, not a traceback without KTAP
        check("the test itself ran to the end", False, traceback.format_exc())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ktap_report([(name, [] if ok else str(detail).splitlines() or ["failed"])
                        for name, ok, detail in results])
