#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: does the suite measure the kernel, or itself?  (docs/perf.md)

Runs every benchmark at a small scale, several times, unpinned and pinned,
with harness accounting on (KMP_ACCOUNT, lib/account.c), next to selfbench/'s
bare tools that issue the same ioctls on the same VM state; then start-up
and scale runs.  Prints one table (figure, value, budget, verdict) and writes
the results next to the tools (TOOLS/results.json): an ordinary run changes
no tracked file.  With --record (make bench-record) it also writes the
tracked selfbench/results.json and appends a dated entry to docs/perf.md.

  bench.py --bin DIR --tools DIR --src SRC [--runs N] [--quick] [--no-scale]
           [--record] [--out FILE] [--perf-md FILE] [--label TEXT]
  bench.py --history-from RESULTS.json --src SRC [--perf-md FILE] [--label TEXT]
      append the history entry of an earlier run

Every number printed is measured by this run.  Exit status: 0 when every
run completed and every figure is within its budget, 1 when a budget failed
or a benchmark or tool failed, 2 for a bad command line.
"""
import argparse
import datetime
import json
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from budgets import (BIGVM, FIDELITY, LOAD_MAX, LOAD_WAIT_S, LOCKSTEP,  # noqa: E402
                     SCALE_DLP, SCALE_DP, STARTUP_ARGS, SUITE)
from readings import headline_safe  # noqa: E402
from rows import build_rows  # noqa: E402
from runs import (T0, compare_runs, log, lockstep_runs, noise_runs, paired_runs,  # noqa: E402
                  scale_runs, startup_runs, wait_for_idle)
from table import append_history, git_describe, host_line, print_table  # noqa: E402


def measure(args):
    """Every run of make bench, their raw results and the host's load around them."""
    results = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "commit": git_describe(args.src), "host": None, "runs": args.runs,
               "configs": {"suite": SUITE, "fidelity": FIDELITY, "startup": STARTUP_ARGS,
                           "lockstep": LOCKSTEP,
                           "scale": {"dirty_log_perf": SCALE_DLP, "demand_paging": SCALE_DP,
                                     "bigvm": BIGVM}},
               "failures": [], "raw": {}}
    with tempfile.TemporaryDirectory(prefix="kmp-bench.") as tmp:
        results["load_start"] = wait_for_idle()
        results["load_before"] = os.getloadavg()
        if results["load_start"] > LOAD_MAX:
            log("load average %.2f > %.1f after %d s: noise is judged all the same (each "
                "pair shares the load)" % (
                results["load_start"], LOAD_MAX, LOAD_WAIT_S))
        noise_runs(args, tmp, results)
        paired_runs(args, tmp, results)
        lockstep_runs(args, tmp, results)
        startup_runs(args, tmp, results)
        compare_runs(args, results)
        if not args.no_scale:
            scale_runs(args, tmp, results)
    results["load_after"] = os.getloadavg()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="the benchmarks' build directory")
    ap.add_argument("--tools", help="selfbench/'s tools' build directory")
    ap.add_argument("--history-from", metavar="RESULTS",
                    help="only append RESULTS' entry to the history")
    ap.add_argument("--src", required=True, help="the source tree")
    ap.add_argument("--runs", type=int, default=5, help="runs per configuration (5)")
    ap.add_argument("--quick", action="store_true", help="2 runs (never recorded)")
    ap.add_argument("--no-scale", action="store_true", help="skip the scale runs")
    ap.add_argument("--record", action="store_true",
                    help="also write SRC/selfbench/results.json and append to docs/perf.md")
    ap.add_argument("--out", help="results file (default TOOLS/results.json; with --record "
                    "SRC/selfbench/results.json)")
    ap.add_argument("--perf-md", help="history file (default SRC/docs/perf.md)")
    ap.add_argument("--label", default="", help="a note for the history entry")
    args = ap.parse_args()
    md_path = args.perf_md or os.path.join(args.src, "docs", "perf.md")
    if args.history_from:
        with open(args.history_from) as f:
            append_history(md_path, json.load(f), args.label)
        return 0
    if not args.bin or not args.tools:
        ap.error("--bin and --tools are required")
    if args.quick and args.record:
        ap.error("--quick runs are never recorded: drop --record")
    if args.quick:
        args.runs = 2
    if args.runs < 2:
        ap.error("--runs: at least 2 (a CV needs two values)")
    out_path = args.out or (os.path.join(args.src, "selfbench", "results.json") if args.record
                            else os.path.join(args.tools, "results.json"))
    if os.geteuid() != 0:
        log("not root: zap_latency's trace figures and hugetlb will be unavailable")

    results = measure(args)
    rows = build_rows(results)
    results["rows"] = rows
    results["runtime_s"] = time.monotonic() - T0
    # Records are big: keep what the rows need, drop the full records.
    for modes in results["raw"].get("suite", {}).values():
        for runs in modes.values():
            for r in runs:
                rec = r.pop("record", None)
                r["figures"] = headline_safe(rec)
    with open(out_path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(out_path + ".tmp", out_path)

    print("make bench: %s, %s, %d runs per configuration; load average %.1f before, %.1f "
          "after" % (results["commit"], host_line(results["host"]), args.runs,
                     results["load_before"][0], results["load_after"][0]))
    print_table(rows)
    fails = [r for r in rows if r["verdict"] == "FAIL"]
    print("%d figures, %d over budget; %d run failures; results in %s" % (
        len(rows), len(fails), len(results["failures"]), out_path))
    for f in results["failures"]:
        print("  run failure: %s" % f)

    if args.record:
        append_history(md_path, results, args.label)
    # A benchmark that can fail: a figure over its budget fails the run.
    return 1 if results["failures"] or fails else 0


if __name__ == "__main__":
    sys.exit(main())
