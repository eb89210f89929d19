#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/kmp_results.py on synthetic result sets, with KTAP output.

Two result sets A (BASE) and B (NEW) are built in a temporary folder from
records laid out like the C writers' (include/record.h and each tool's
results.c), with known numbers, and checked with scripts/check-record.py.
The expected table cells (medians, percentages, ratios, hex) are computed
here, independently of kmp_results.py, and compared cell by cell.  Bad
inputs must give exit 2, a message naming the file, and no table.

Exit status: 0 when every test passed, 1 otherwise.
"""
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

# The source tree: KMP_SRC_DIR (make check copies this file next to the binaries), else ours.
ROOT = os.environ.get("KMP_SRC_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KMP = os.path.join(ROOT, "scripts", "kmp_results.py")
CHECK = os.path.join(ROOT, "scripts", "check-record.py")
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


# ------------------------------------------------------------ the tests

def test_compare(a, b):
    res = run("compare", "--verbose", a, b)
    out = res.stdout.splitlines()
    check("compare exits 0 on good sets", res.returncode == 0 and not res.stderr,
          res.stderr)

    # Seed 000: the framed table, exactly, and then cell by cell.
    header = ["Clear Chunk size", "Clear dirty log time change", "vCPUs improvement"]
    widths = [len(h) for h in header]
    def cell(a, b):     # the change, and ~ where it is not significant
        return pct(a, b) + (" ~" if within_noise(a, b) else "")
    rows = [[label, cell([sum(x) for x in DLP[s][1]], [sum(x) for x in DLP[s][2]]),
             cell(DLP[s][3], DLP[s][4])] for label, s in DLP_ROWS]

    def line(cells):
        return "|" + "|".join(" " + c.ljust(w) + " " for c, w in zip(cells, widths)) + "|"
    double = "+" + "+".join("=" * (w + 2) for w in widths) + "+"
    single = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    expect = [double, line(header), double]
    for r in rows:
        expect += [line(r), single]
    start = out.index(double) if double in out else -1
    got = out[start:start + len(expect)] if start >= 0 else []
    check("seed-000 table framed exactly as the seed", got == expect,
          "\n".join(["expected:"] + expect + ["got:"] + got))
    # The ~ in a cell is explained right under the table.
    want_noise = "# ~: unknown; =: the same within +-2% (each figure's verdict: the table at " \
                 "the end)"
    after = out[start + len(expect)] if start >= 0 and start + len(expect) < len(out) else ""
    check("seed-000: what ~ means on a # line under the table",
          after == want_noise, "want %r\n got %r" % (want_noise, after))
    cells = [[c.strip() for c in l.strip("|").split("|")] for l in got[3::2]]
    check("seed-000 table cells: 56%/152% (192GB), -81%/72% (1GB), whole slot; 3 runs a "
          "side can never be significant, so every cell is marked ~",
          cells == rows and rows[1][1:] == ["56% ~", "152% ~"] and
          rows[2][1:] == ["-81% ~", "72% ~"], "cells %r, expected %r" % (cells, rows))

    # The compare lines and their noise marks; seed 003's blocks.
    for name, (chunk, cb, cn, pb, pn) in DLP.items():
        tb_, tn = [sum(x) for x in cb], [sum(x) for x in cn]
        head = next((i for i, l in enumerate(out) if l.startswith(name + ", clear chunk")), None)
        if head is None:
            check("dirty_log_perf %s: section block" % name, False, "no block")
            continue
        clear, pages = out[head + 1], out[head + 2]
        want_c = "  clear dirty log time: %s -> %s (%+.1f%%)" % (
            ts(med(tb_)), ts(med(tn)), (med(tn) - med(tb_)) / med(tb_) * 100)
        want_p = "  pages touched: %d -> %d (%+.1f%%)" % (
            med(pb), med(pn), (med(pn) - med(pb)) / med(pb) * 100)
        check("dirty_log_perf %s: medians and change" % name,
              clear.startswith(want_c) and pages.startswith(want_p),
              "want %r\n got %r\nwant %r\n got %r" % (want_c, clear, want_p, pages))
        check("dirty_log_perf %s: ~ exactly where the rank test says" % name,
              marked(clear) == within_noise(tb_, tn) and
              marked(pages) == within_noise(pb, pn) and
              "base %s..%s (3 runs" % (ts(min(tb_)), ts(max(tb_))) in clear,
              "%s\n%s" % (clear, pages))
        block = out[head + 3:head + 5]
        check("dirty_log_perf %s: a seed-000 section has no seed-003 block" % name,
              "Before optimization:" not in block and "" in block + [""], repr(block))

    # Seed 003: its own title, and the median run's lines, the post's byte for byte.
    title = "dirty_log_perf (seed 003): BASE -> NEW; each block is one run, the median by total"
    at = out.index(title) if title in out else -1
    blocks = [l for l in out[at:] if not l.startswith("#")] if at >= 0 else []
    start = blocks.index("Before optimization:") if "Before optimization:" in blocks else -1
    got = "\n".join(blocks[start:start + 13]) if start >= 0 else ""
    check("seed 003: Before/After blocks are the post's, byte for byte", got == SEED003_POST,
          "want:\n%s\ngot:\n%s" % (SEED003_POST, got))
    spread = [l for l in out[at:] if l.startswith("# the median of 3 run(s) by total; totals ")]
    check("seed 003: the spread over the repeats goes on its own # line", len(spread) == 2,
          repr(spread))
    seed000_title = "dirty_log_perf (seed 000): median over repeats, BASE -> NEW"
    check("seed 003 and seed 000 each under their own title",
          at > 0 and seed000_title in out and out.index(seed000_title) < at and
          "Before optimization:" not in out[out.index(seed000_title):at], "")
    few = [l for l in out if l.startswith("  clear dirty log time: ")]
    check("dirty_log_perf: 3 runs a side say they can never reach p <= 0.05, and how many can",
          few and all("3+3 runs can never reach p<=0.05, 4 a side can)" in l for l in few),
          "\n".join(few))

    # Seed 002: both tables and the ratio lines.
    table = "vCPUs, Paging Rate (w/o new cap), Paging Rate (w/ new cap), w/ : w/o"

    def mean(x):
        return sum(x) / len(x)
    idx = [i for i, l in enumerate(out) if l == table]
    ok, detail = len(idx) == 2, "table headers at %r" % idx
    for k, rates in zip(idx, (DP_BASE, DP_NEW)):
        want = []
        for v in (1, 2, 4):
            wo, w = mean(rates[(v, False)]) / 1000, rates.get((v, True))
            w = mean(w) / 1000 if w else None
            # the ratio cell compares the two columns: ~ where they do not differ significantly
            mark = " ~" if w and within_noise(rates[(v, False)], rates[(v, True)]) else ""
            want.append("%d %.0f %s %s" % (v, wo, "%.0f" % w if w else "n/a",
                                           "x%.2f%s" % (w / wo, mark) if w else "n/a"))
        got = out[k + 1:k + 4]
        ok = ok and got == want
        detail += "\nwant %r\n got %r" % (want, got)
    check("demand_paging: seed-002 tables of means for BASE and NEW, the ratio after the "
          "post's columns, n/a where -w is missing",
          ok and out[idx[0] + 1] == "1 150 340 x2.27 ~" and
          out[idx[0] + 2] == "2 191 477 x2.50 ~"
          and out[idx[0] + 3] == "4 210 n/a n/a",
          detail)
    which = out[idx[0] + 4] if idx else ""
    check("demand_paging: a table with a w/ column says both columns came from its side's kernel",
          which == "# both columns from BASE's kernel: each vCPU count run without and with -w "
          "in one run (--sweep-vcpus)", which)
    spread = out[idx[0] + 5] if idx else ""
    check("demand_paging: medians and ranges beside the table, on # lines",
          spread == "# 1 vCPUs: median (range) w/o 150 (150..150), w/ 340 (338..342)", spread)
    ok, detail = True, ""
    for (v, w), base in sorted(DP_BASE.items()):
        new = DP_NEW[(v, w)]
        prefix = "  %d vCPUs, %s: %.0f -> %.0f (x%.2f)" % (
            v, "w/ new cap" if w else "w/o new cap", med(base) / 1000, med(new) / 1000,
            med(new) / med(base))
        l = next((l for l in out if l.startswith(prefix)), None)
        if l is None or marked(l) != within_noise(base, new):
            ok, detail = False, detail + "\nno or wrong line for %r: %r" % (prefix, l)
    check("demand_paging: base -> new ratio per vCPU count, noise marked", ok, detail)
    b4, n4 = DP_BASE[(4, False)], DP_NEW[(4, False)]
    check("demand_paging: the overlap-only noise case is one",
          overlap(b4, n4) and (med(n4) - med(b4)) / med(b4) >
          max((max(x) - min(x)) / med(x) for x in (b4, n4)))

    # Seed 001.
    b_, n_ = TB["tlbie-page"]
    want = "  total throughput: %.1fK/sec -> %.1fK/sec (x%.2f)" % (
        med(b_) / 1000, med(n_) / 1000, med(n_) / med(b_))
    k = next((i for i, l in enumerate(out) if l.startswith("tlbie-page (")), -2)
    l = out[k + 1]
    check("tlbie_bench: total throughput 13.5K/sec -> 51.0K/sec (x3.78), ~ as the rank test says",
          l.startswith(want) and want.endswith("13.5K/sec -> 51.0K/sec (x3.78)")
          and marked(l) == within_noise(b_, n_), "want %r\n got %r" % (want, l))
    prof = out[k + 2:k + 5]
    want = ["  host profile of the median run, BASE | NEW:",
            "     74.52%  [k] do_tlbies                   |  21.28%  [k] do_tlbies",
            "      2.95%  [k] kvmppc_book3s_hv_page_fault |   5.26%  [k] kvmppc_run_core"]
    check("tlbie_bench: the two host profiles side by side under the throughput",
          prof == want, "want %r\n got %r" % (want, prof))
    k = next((i for i, l in enumerate(out) if l.startswith("tlbie-full (")), -2)
    full = out[k + 1]
    check("tlbie_bench: a single repeat says its noise is unknown, and how many runs can tell",
          full.endswith("(unknown: 1 run, noise unknown; 4 runs a side can tell)"), full)
    check("tlbie_bench: a host without perf says so",
          out[k + 3].strip() == "unavailable: perf is not installed | unavailable: perf is "
          "not installed", repr(out[k + 3]))
    k = next((i for i, l in enumerate(out) if l.startswith("tlbie-slow (")), -2)
    slow = out[k + 1]
    check("tlbie_bench: under 100/s three significant digits, not 0.0K/sec",
          slow.startswith("  total throughput: 0.0362K/sec -> 0.0552K/sec (x1.53)") and
          "not recorded (run without --profile)" in out[k + 3], "%r %r" % (slow, out[k + 3]))

    # Seed 004: the printk lines in hex, then decimal.
    k = out.index("zap-all:") if "zap-all:" in out else -1
    want = ["  base: lock-break: %d." % med(ZAP_BASE[2]),
            "        kvm_mmu_zap_all_fast: %s." % format(med(ZAP_BASE[0]), "x"),
            "  new:  lock-break: %d." % med(ZAP_NEW[2]),
            "        kvm_mmu_zap_all_fast: %s." % format(med(ZAP_NEW[0]), "x")]
    got = out[k + 1:k + 5]
    check("zap_latency: seed-004 lines (lock-break: 5., kvm_mmu_zap_all_fast: 174706e.)",
          got == want and want[1].endswith(" 174706e.") and want[3].endswith(" 69c1676."),
          "want %r\n got %r" % (want, got))
    win = out[k + 5]
    want = "  kernel zap span: %d ns (0x%x) -> %d ns (0x%x)" % (
        med(ZAP_BASE[0]), med(ZAP_BASE[0]), med(ZAP_NEW[0]), med(ZAP_NEW[0]))
    ioctl = out[k + 6]
    want_i = "  ioctl latency: %d ns -> %d ns" % (med(ZAP_BASE[1]), med(ZAP_NEW[1]))
    check("zap_latency: window in decimal and hex, ioctl latency medians, noise by spread",
          win.startswith(want) and ioctl.startswith(want_i) and
          marked(win) == within_noise(ZAP_BASE[0], ZAP_NEW[0]) and
          not overlap(ZAP_BASE[1], ZAP_NEW[1]) and within_noise(ZAP_BASE[1], ZAP_NEW[1]) and
          marked(ioctl),
          "want %r\n got %r\nwant %r\n got %r" % (want, win, want_i, ioctl))

    # Reports: sections in one set only, failed runs excluded.
    check("a section only in BASE is reported and skipped",
          "# section only-base only in BASE: skipped" in out and
          not any(l.startswith("only-base") for l in out))
    check("a failed run is reported, excluded from the medians",
          any(l.startswith("# excluded ") and "tlbie-page.4.json: fail: vCPU 1: stale" in l
              for l in out))


def corrupt_case(tmp, a, b, name, mutate, expect_file, expect_text):
    bad = os.path.join(tmp, "bad-" + name.replace(" ", "-"))
    shutil.copytree(b, bad)
    mutate(bad)
    res = run("compare", a, bad)
    check("bad input (%s): exit 2, one line naming the file, no table" % name,
          res.returncode == 2 and res.stdout == "" and expect_file in res.stderr
          and expect_text in res.stderr and "+====" not in res.stdout + res.stderr,
          "rc %d\nstdout %r\nstderr %r" % (res.returncode, res.stdout[:300], res.stderr))


def edit(folder, fname, fn):
    path = os.path.join(folder, fname)
    with open(path) as f:
        rec = json.load(f)
    fn(rec)
    with open(path, "w") as f:
        json.dump(rec, f)


def truncate(folder):
    path = os.path.join(folder, "zap-all.2.json")
    data = open(path).read()
    open(path, "w").write(data[:len(data) // 2])


def mismatch(folder):
    for r in (1, 2, 3):
        edit(folder, "dirty-log-clear-chunk-1G.%d.json" % r,
             lambda rec: rec["params"].update(clear_chunk_bytes=2 * GiB))


def test_bad_inputs(tmp, a, b):
    corrupt_case(tmp, a, b, "truncated JSON", truncate, "zap-all.2.json", "not valid JSON")
    corrupt_case(tmp, a, b, "pass record without figures",
                 lambda d: edit(d, "tlbie-page.2.json", lambda r: r.pop("figures")),
                 "tlbie-page.2.json", "no figures")
    corrupt_case(tmp, a, b, "mismatched params", mismatch, "dirty-log-clear-chunk-1G",
                 "mismatched parameters between BASE and NEW: clear_chunk_bytes")
    corrupt_case(tmp, a, b, "zap_latency trace not an object",
                 lambda d: edit(d, "zap-all.1.json", lambda r: r.update(trace="tracepoint")),
                 "zap-all.1.json", "trace is not an object")
    corrupt_case(tmp, a, b, "zap_latency trace/span_function not a string",
                 lambda d: edit(d, "zap-all.1.json",
                                lambda r: r.setdefault("trace", {}).update(span_function=[1])),
                 "zap-all.1.json", "trace/span_function is not a string or null")
    corrupt_case(tmp, a, b, "caveats not an object of strings",
                 lambda d: edit(d, "dirty-log-whole.1.json",
                                lambda r: r.update(caveats={"pages_touched": 0})),
                 "dirty-log-whole.1.json", "caveats is not an object of strings")
    corrupt_case(tmp, a, b, "non-record file",
                 lambda d: open(os.path.join(d, "notes.1.json"), "w").write('{"hello": 1}'),
                 "notes.1.json", "not a result record")
    corrupt_case(tmp, a, b, "schema_version 3",
                 lambda d: edit(d, "dp-sweep.1.json", lambda r: r.update(schema_version=3)),
                 "dp-sweep.1.json", "schema_version 3, this reader knows 1 and 2")
    corrupt_case(tmp, a, b, "NaN figure",
                 lambda d: open(os.path.join(d, "tlbie-full.1.json"), "w").write(
                     json.dumps(tb_record(float("nan")))),
                 "tlbie-full.1.json", "NaN")


def test_dlp_short_loop(tmp, a, b):
    """A -j run whose loop ended before the vCPUs made one pass: its record's
    caveat, not a percentage from its pages touched, in seed 000's table."""
    why = ("-j: the host's loop of 3 iterations lasted 0.000269397s, and the vCPUs touched "
           "0.00 passes of their memory in it, fewer than 1")
    short = os.path.join(tmp, "short-loop")
    shutil.copytree(b, short)
    for r in (1, 2, 3):
        edit(short, "dirty-log-clear-chunk-1G.%d.json" % r,
             lambda rec: (rec["figures"]["pages_touched"].update(value=0),
                          rec.update(caveats={"pages_touched": why})))
    res = run("compare", a, short)
    out = res.stdout.splitlines()
    row = [l for l in out if l.startswith("| 1GB ")]
    check("dirty_log_perf -j, loop too short: the vCPUs cell says so, with the reason under "
          "the table, and the clear time is still compared",
          res.returncode == 0 and len(row) == 1 and "n/a (loop too short)" in row[0] and
          "-81%" in row[0] and "# vCPUs improvement n/a, 1GB NEW: " + why in out and
          not any("1GB vCPUs" in l for l in out if l.startswith("# noise unknown")),
          "rc %d\n%s" % (res.returncode, "\n".join(out[:20])))


def test_zap_tdp_mmu(tmp):
    """TDP-MMU records have no lock breaks or shadow pages: compare says so, never a 0."""
    sets = []
    for side, dropped in (("tdp-a", 60000), ("tdp-b", 64000)):
        d = os.path.join(tmp, side)
        for r in range(3):
            rec = zl_record(ZW_BASE, 30000000, 0)
            rec["params"]["mmu"] = "tdp_mmu"
            del rec["figures"]["lock_breaks"], rec["figures"]["mmu_shadow_zapped"]
            rec["figures"]["mappings_dropped"] = figure("mappings", dropped, [dropped] * 3)
            rec["zaps"] = [{k: v for k, v in z.items() if k not in ("lock_breaks", "zap_tasks")}
                           for z in rec["zaps"]]
            rec["trace"]["lock_breaks_observable"] = False
            rec["trace"]["lock_breaks_unavailable"] = "no kprobe_events here"
            write(d, "zap-tdp", r + 1, rec)
        sets.append(d)
    out = run("compare", "--verbose", *sets).stdout.splitlines()
    check("zap_latency on the TDP MMU: no lock-break count, the mappings dropped compared",
          "  base: lock-break: not observable (no kprobe_events here)" in out and
          "        kvm_mmu_zap_all_fast: %x." % ZW_BASE in out and
          any(l.startswith("  mappings dropped: 60000 -> 64000") for l in out) and
          not any("MMU pages zapped" in l for l in out), "\n".join(out))


def test_asked_mmu(tmp):
    """A folder run on an emulated host says which MMU it asked for (host.txt's
    emulated_mmu, configs/emu-hosts); records of another MMU are refused."""
    sides = []
    for side, mmu in (("mmu-a", "legacy tdp"), ("mmu-b", "tdp_mmu")):
        d = os.path.join(tmp, side)
        for r in (1, 2):
            rec = zl_record(ZW_BASE, 30000000, 5)
            rec["host"] = dict(HOST, mmu=mmu)
            write(d, "zap-all", r, rec)
        with open(os.path.join(d, "host.txt"), "w") as f:
            f.write("boot_id: %s\nemulated_mmu: x86_64 legacy-npt\n" % side)
        sides.append(d)
    res = run("compare", *sides)
    want = ("kmp_results.py: NEW %s: its records ran KVM's tdp_mmu MMU, but the folder asked "
            "for --mmu legacy-npt (legacy tdp): its figures are not the configuration asked "
            "for" % sides[1])
    check("compare: a folder whose records ran another MMU than the one it asked for is "
          "refused (exit 2, one line naming both); the other side passes the check",
          res.returncode == 2 and res.stderr.splitlines() == [want] and not res.stdout,
          "rc %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    good, bad = (run("summary", d) for d in sides)
    check("summary: exit 0 on the folder of the MMU asked for, 2 (bad data) on the other",
          good.returncode == 0 and bad.returncode == 2 and "its records ran KVM's tdp_mmu MMU"
          in bad.stdout, "rc %d/%d\n%s" % (good.returncode, bad.returncode, bad.stdout))
    with open(os.path.join(sides[0], "host.txt"), "w") as f:
        f.write("emulated_mmu: x86_64 ept\n")
    res = run("summary", sides[0])
    check("summary: an emulated_mmu that configs/emu-hosts does not have is bad data",
          res.returncode == 2 and "MMU ept, which configs/emu-hosts does not have" in res.stdout,
          res.stdout)


def test_emulated_host(tmp, a, b):
    """Timings of different kinds (bare metal, emulated in real time, emulated
    under icount) are never compared; nor emulated hosts of different vCPU
    counts.  Two kernels on one emulated setup are a kernel A/B: said so,
    with what icount figures mean, and no "different hosts" warning."""
    icount = "QEMU TCG: qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off " \
             "-cpu max (%s, kvm_amd.npt=1)"

    def variant(src, name, **host):
        d = os.path.join(tmp, name)
        shutil.copytree(src, d)
        for fname in os.listdir(d):
            if fname.endswith(".json"):
                edit(d, fname, lambda r: r["host"].update(host))
        return d
    real = variant(b, "emulated-real", emulated="QEMU TCG: qemu-system-x86_64 -cpu max (Debian 6.1)")
    res = run("compare", a, real)
    check("bare metal against an emulated host: refused, naming both kinds",
          res.returncode == 2 and not res.stdout and
          "BASE's timings are native, NEW's emulated, real time" in res.stderr,
          res.stdout + res.stderr)
    k61 = variant(a, "emulated-6.1", emulated=icount % "Debian 6.1.0-57-amd64", cpus=1,
                  kernel="6.1.0-57-amd64", mem_total_bytes=6000000000)
    k612 = variant(b, "emulated-6.12", emulated=icount % "Debian 6.12.117+deb12-amd64", cpus=1,
                   kernel="6.12.117+deb12-amd64", mem_total_bytes=5900000000)
    res = run("compare", real, k612)
    check("real-time emulation against icount: refused",
          res.returncode == 2 and "emulated, real time, NEW's emulated, icount" in res.stderr,
          res.stdout + res.stderr)
    two = variant(b, "emulated-6.12-smp2", emulated=icount % "Debian 6.12.117+deb12-amd64",
                  cpus=2, kernel="6.12.117+deb12-amd64")
    res = run("compare", k61, two)
    check("emulated hosts with 1 and 2 vCPUs: refused, naming --smp",
          res.returncode == 2 and "had 1 vCPU(s), NEW's 2" in res.stderr and
          "--smp" in res.stderr, res.stdout + res.stderr)
    res = run("compare", k61, k612)
    out = res.stdout.splitlines()
    check("6.1 against 6.12 on one icount setup: compared as a kernel A/B, path length said",
          res.returncode == 0 and any(l.startswith("# NEW  host:") and "EMULATED (" in l
                                      for l in out) and
          "# BASE and NEW: one emulated machine, two kernels: a kernel A/B (the kernels differ "
          "in more than any one patch)" in out and
          any(l.startswith("# the figures are instruction-paced (QEMU -icount)") for l in out) and
          any("repeatable here, with one icount-paced emulated vCPU" in l for l in out) and
          "path counts: KVM VM stat deltas per phase (vcpus_*: the vCPUs' stats, summed), medians over runs, BASE -> NEW" in out and
          not any("different hosts" in l for l in out), res.stdout + res.stderr)
    # One source built twice (run.sh ab from source): the patch named on its side.
    src = "built from package linux-source-6.12 6.12.118-1~deb12u1%s; config sha256 c0ffee"
    fix = " + patch seed-003-fix.patch sha256 aa11"
    plain = variant(a, "source-plain", emulated=icount % (src % ""), cpus=1, kernel="6.12.118")
    patched = variant(b, "source-patched", emulated=icount % (src % fix), cpus=1,
                      kernel="6.12.118")
    for base, new, says in ((plain, patched, "NEW adds patch seed-003-fix.patch sha256 aa11"),
                            (patched, plain, "BASE adds patch seed-003-fix.patch sha256 aa11"),
                            (plain, plain, "NEW adds no patch")):
        out = run("compare", base, new).stdout.splitlines()
        line = "# BASE and NEW: one emulated machine, one source (package linux-source-6.12 " \
               "6.12.118-1~deb12u1) built twice; " + says
        check("one source built twice: '%s'" % says, line in out,
              "\n".join(l for l in out if "built twice" in l))
    # Seed 003's blocks carry the post's titles for a seed's patch, A and B for another.
    mine = variant(b, "source-mine", emulated=icount % (src % " + patch mine.patch sha256 bb22"),
                   cpus=1, kernel="6.12.118")
    for base, new, titles in ((plain, patched, ["Before optimization:", "After optimization:"]),
                              (plain, mine, ["A (base):", "B (+ mine.patch):"]),
                              (mine, plain, ["A (base + mine.patch):", "B (base):"])):
        out = run("compare", base, new).stdout.splitlines()
        check("seed 003's blocks titled %s" % " / ".join(titles),
              all(t in out for t in titles) and
              ("Before optimization:" in titles or "Before optimization:" not in out),
              "\n".join(l for l in out if l.endswith(":")))


def test_schema_versions(tmp, a, b):
    """Version 1 records are read, and a compare across versions says what changed."""
    old = os.path.join(tmp, "schema-1")
    shutil.copytree(a, old)
    for fname in os.listdir(old):
        if fname.endswith(".json"):
            edit(old, fname, lambda r: r.update(schema_version=1))
    res = run("compare", old, b)
    out = res.stdout.splitlines()
    check("schema_version 1 against 2: compared, with a warning naming -o and -b",
          res.returncode == 0 and any("+====" in l for l in out) and
          any(l.startswith("# warning: BASE records are schema_version 1, NEW 2:") and
              "-v x -b" in l and "zap_latency's -b" in l for l in out),
          res.stdout + res.stderr)
    res = run("compare", a, b)
    check("records of one version: no schema warning",
          res.returncode == 0 and "schema_version" not in res.stdout, res.stdout)


def read_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    return head, [dict(zip(head, l.split(","))) for l in lines[1:]]


def close(text, value):
    return text != "" and abs(float(text) - value) <= 1e-6 * max(1.0, abs(value))


def check_plots(d, what):
    png, svg = os.path.join(d, "sweep.png"), os.path.join(d, "sweep.svg")
    ok = all(os.path.isfile(p) and os.path.getsize(p) > 0 for p in (png, svg))
    ok = ok and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and "<svg" in open(svg).read()
    check("sweep-table %s: sweep.png and sweep.svg written by gnuplot" % what, ok)


def test_sweeps(tmp):
    # demand_paging over vCPUs (16 sorts after 4), one failed run at 4.
    d = os.path.join(tmp, "dp-sweep-set")
    rates = {1: [30000, 31000, 29500], 2: [55000, 56000, 54000], 4: [90000, 88000, 91000],
             16: [120000, 110000, 125000]}
    for v, rs in rates.items():
        for r, rate in enumerate(rs, 1):
            write(d, "dp-sweep-vcpus=%d" % v, r, dp_single_record(v, rate))
    write(d, "dp-sweep-vcpus=4", 4, record("demand_paging", [], dp_params(4, []), None,
                                           "fail", "watchdog: vCPU 2 made no progress"))
    res = run("sweep-table", d, "dp-sweep", "vcpus")
    check("sweep-table demand_paging: exit 0", res.returncode == 0, res.stderr)
    head, rows = read_csv(os.path.join(d, "sweep.csv"))
    want_head = ["vcpus", "label", "section", "pass", "not_pass", "paging_rate_kpages_s_median",
                 "paging_rate_kpages_s_min", "paging_rate_kpages_s_max", "paging_rate_kpages_s_n"]
    ok = head == want_head and [r["vcpus"] for r in rows] == ["1", "2", "4", "16"]
    for row, (v, rs) in zip(rows, sorted(rates.items())):
        ok = ok and close(row["paging_rate_kpages_s_median"], med(rs) / 1000) \
            and close(row["paging_rate_kpages_s_min"], min(rs) / 1000) \
            and close(row["paging_rate_kpages_s_max"], max(rs) / 1000) \
            and row["paging_rate_kpages_s_n"] == "3" and row["pass"] == "3" \
            and row["not_pass"] == ("1" if v == 4 else "0")
    check("sweep-table demand_paging: sweep.csv medians, ranges, order, failed run counted",
          ok, "head %r\nrows %r" % (head, rows))
    txt = open(os.path.join(d, "sweep.txt")).read()
    check("sweep-table demand_paging: sweep.txt aligned table",
          "dp-sweep-vcpus=16" in txt and "paging rate w/o new cap (K pages/s)" in txt)
    check_plots(d, "demand_paging")

    # dirty_log_perf over chunk sizes: two y axes, values in bytes for sizes.
    d = os.path.join(tmp, "dlp-sweep-set")
    chunks = {"256K": 256 << 10, "64M": 64 << 20, "1G": GiB}
    clear = {"256K": [3.0, 3.2, 2.9], "64M": [1.5, 1.4, 1.6], "1G": [2.0, 2.2, 2.1]}
    for c, reps in clear.items():
        for r, t in enumerate(reps, 1):
            write(d, "dlp-chunk=%s" % c, r, dlp_record(chunks[c], [t / 3] * 3, 1000 * r))
    res = run("sweep-table", d, "dlp", "chunk")
    head, rows = read_csv(os.path.join(d, "sweep.csv"))
    ok = res.returncode == 0 and [r["label"] for r in rows] == ["256K", "64M", "1G"]
    for row in rows:
        c = row["label"]
        ok = ok and close(row["chunk"], chunks[c]) \
            and close(row["clear_time_ms_median"], med(clear[c]) * 1000) \
            and close(row["pages_touched_median"], 2000) \
            and close(row["pages_touched_max"], 3000)
    check("sweep-table dirty_log_perf: sizes ordered, clear time and pages touched", ok,
          "rc %d %s\nrows %r" % (res.returncode, res.stderr, rows))
    check_plots(d, "dirty_log_perf")

    res = run("sweep-table", d, "dlp", "vcpus")
    check("sweep-table with no matching section: exit 2 and a message",
          res.returncode == 2 and "no section named dlp-vcpus=VALUE" in res.stderr, res.stderr)


def test_summary(a, b):
    res = run("summary", b)
    out = res.stdout
    check("summary: status counts and main medians per section",
          res.returncode == 0 and "# tlbie-page (tlbie_bench): 3 pass, 1 fail" in out
          and "run 4 fail: vCPU 1: stale translation" in out
          and "# zap-all (zap_latency): 3 pass; median ioctl_latency %d ns" % med(ZAP_NEW[1]) in out
          and "1 vCPUs 151.0K pages/s" in out, out + res.stderr)


def test_summary_interrupted(tmp, b):
    """A record of a Ctrl-C'd run (status interrupted) is counted, not a crash."""
    d = os.path.join(tmp, "interrupted")
    shutil.copytree(b, d)
    edit(d, "tlbie-page.2.json", lambda r: r.update(status="interrupted",
                                                    reason="interrupted by SIGINT"))
    res = run("summary", d)
    check("summary: an interrupted run is counted as such (Ctrl-C during run.sh)",
          res.returncode == 0 and "# tlbie-page (tlbie_bench): 2 pass, 1 fail, 1 interrupted"
          in res.stdout and "1 interrupted" in res.stdout.splitlines()[0] and
          "run 2 interrupted: interrupted by SIGINT" in res.stdout,
          res.stdout + res.stderr)


def test_chunk_format():
    """The seed-000 chunk column, like lib/report.c size_format() plus a B."""
    sys.dont_write_bytecode = True          # no scripts/kmp/__pycache__ left behind
    sys.path.insert(0, os.path.dirname(KMP))
    from kmp import fmt as mod
    cases = {0: "whole slot", 192 * GiB: "192GB", GiB: "1GB", 3 * GiB // 2: "1.5GB",
             5 * GiB // 4: "1.25GB", 64 << 20: "64MB", 256 << 10: "256KB",
             GiB + (256 << 10): "1048832KB", 1 << 40: "1TB"}
    got = {n: mod.fmt_size(n) for n in cases}
    check("seed-000 chunk column: 192GB, 1.5GB, 1.25GB, 64MB, 256KB, whole slot",
          got == cases, "got %r" % got)


def test_alternate(tmp):
    """tlbie_bench --alternate: both settings in one run; compare pools the
    pair ratios of every run of a side and says why the other has none."""
    base, new = os.path.join(tmp, "alt-a"), os.path.join(tmp, "alt-b")
    why = "--alternate kvm_hv.tlbie_lock: this kernel has no such module parameter"
    for folder in (base, new):
        write(folder, "tlbie-page", 1, tb_record(900))
    write(base, "tlbie-lock", 1, record("tlbie_bench", ["--alternate", "kvm_hv.tlbie_lock"],
                                        tb_record(900)["params"], None, "skip", why))
    for rep, ratios in ((1, [0.9, 0.8, 0.95]), (2, [0.85, 1.0, 0.9])):
        rec = tb_record(900)
        rec["figures"]["alternate_ratio"] = figure("ratio", med(ratios), ratios)
        rec["alternate"] = {"param": "kvm_hv.tlbie_lock", "pairs": 3,
                            "lower_with_1": sum(r < 1 for r in ratios),
                            "higher_with_1": sum(r > 1 for r in ratios), "sign_test_p": 1.0}
        write(new, "tlbie-lock", rep, rec)
    res = run("compare", base, new)
    out = res.stdout.splitlines()
    k = next((i for i, l in enumerate(out) if l.startswith("within one boot")), -3)
    block = out[k + 1:k + 4]
    # 6 pair ratios pooled, median 0.9; 5 lower, 1 tie left out: p = 2/32.
    want = ["tlbie-lock:",
            "  BASE: no --alternate result (%s)" % why,
            "  NEW: kvm_hv.tlbie_lock 1/0 throughput x0.900 (median of 6 pair ratios over 2 "
            "run(s), 0.800-1.000; lower with 1 in 5, higher in 0; sign test p = 0.0625): too few "
            "pairs (5 untied; 6 can reach p<=0.05)"]
    check("compare: --alternate's pairs pooled over runs under 'within one boot', with the "
          "sign test (5 untied pairs: too few, 6 can reach 0.05); a side without the switch "
          "says why", res.returncode == 0 and block == want,
          "\n".join(out))


def main():
    tmp = tempfile.mkdtemp(prefix="kmp-results-test-")
    try:
        a, b, paths = build_sets(tmp)
        res = subprocess.run([CHECK] + paths, capture_output=True, text=True)
        check("synthetic records pass scripts/check-record.py (%d records)" % len(paths),
              res.returncode == 0, res.stderr)
        test_compare(a, b)
        test_bad_inputs(tmp, a, b)
        test_emulated_host(tmp, a, b)
        test_schema_versions(tmp, a, b)
        test_dlp_short_loop(tmp, a, b)
        test_zap_tdp_mmu(tmp)
        test_asked_mmu(tmp)
        test_sweeps(tmp)
        test_summary(a, b)
        test_summary_interrupted(tmp, b)
        test_chunk_format()
        test_alternate(tmp)
    except Exception as e:      # a crash is a failed test, not a traceback without KTAP
        import traceback
        check("the test itself ran to the end", False, traceback.format_exc())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("TAP version 13")
    print("1..%d" % len(results))
    for i, (name, ok, detail) in enumerate(results, 1):
        if not ok:
            for l in str(detail).splitlines():
                print("# " + l)
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    failed = sum(1 for _, ok, _ in results if not ok)
    print("# %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
