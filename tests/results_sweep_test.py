#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""sweep-table, summary, the chunk column and --alternate's within-boot block
(tests/kmp_testrecords.py's sets and records); KTAP.

Exit status: 0 when every test passed, 1 otherwise.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from kmp_testrecords import (GiB, KMP, ZAP_NEW, check, dlp_record, dp_params,
                             dp_single_record, edit, figure, med, record, run,
                             run_tests, tb_record, write)  # noqa: E402


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


def test_sweeps(tmp, a, b):
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


def test_summary(tmp, a, b):
    res = run("summary", b)
    out = res.stdout
    check("summary: status counts and main medians per section",
          res.returncode == 0 and "# tlbie-page (tlbie_bench): 3 pass, 1 fail" in out
          and "run 4 fail: vCPU 1: stale translation" in out
          and "# zap-all (zap_latency): 3 pass; median ioctl_latency %d ns" % med(ZAP_NEW[1]) in out
          and "1 vCPUs 151.0K pages/s" in out, out + res.stderr)


def test_summary_interrupted(tmp, a, b):
    """A record of a Ctrl-C'd run (status interrupted) is counted, not a crash."""
    d = os.path.join(tmp, "interrupted")
    shutil.copytree(b, d)
    edit(d, "tlbie-page.2.json", lambda r: r.update(status="interrupted",
                                                    reason="interrupted by SIGINT"))
    res = run("summary", d)
    check("summary: an interrupted run is counted among the failures, as such (Ctrl-C "
          "during run.sh)",
          res.returncode == 0 and "# tlbie-page (tlbie_bench): 2 pass, 2 fail (1 interrupted)"
          in res.stdout and "2 fail (1 interrupted)" in res.stdout.splitlines()[0] and
          "run 2 interrupted: interrupted by SIGINT" in res.stdout,
          res.stdout + res.stderr)


def test_chunk_format(tmp, a, b):
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


def test_alternate(tmp, a, b):
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



if __name__ == "__main__":
    sys.exit(run_tests([test_sweeps, test_summary, test_summary_interrupted, test_chunk_format, test_alternate]))
