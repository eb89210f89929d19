#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare on two synthetic result sets (tests/kmp_testrecords.py): every table
and line the four benchmarks print, checked cell by cell against figures
computed in the test; KTAP.

Exit status: 0 when every test passed, 1 otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from kmp_testrecords import (DLP, DLP_ROWS, DP_BASE, DP_NEW, SEED003_POST, TB,
                             ZAP_BASE, ZAP_NEW, check, marked, med, overlap,
                             pct, run, run_tests, ts, within_noise)  # noqa: E402


def seed000(out):
    """Seed 000's framed table, exactly, then cell by cell; what ~ means."""
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


def dlp_lines(out):
    """dirty_log_perf's compare lines and their noise marks."""
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


def seed003(out):
    """Seed 003: its own title, and the median run's lines, the post's byte for byte."""
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


def seed002(out):
    """Seed 002: both tables and the ratio lines."""
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


def seed001(out):
    """Seed 001: the throughput, and the profiles side by side."""
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


def seed004(out):
    """Seed 004: the printk lines in hex, then decimal."""
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


def reports(out):
    """Sections in one set only, and failed runs excluded."""
    check("a section only in BASE is reported and skipped",
          "# section only-base only in BASE: skipped" in out and
          not any(l.startswith("only-base") for l in out))
    check("a failed run is reported, excluded from the medians",
          any(l.startswith("# excluded ") and "tlbie-page.4.json: fail: vCPU 1: stale" in l
              for l in out))


def test_compare(tmp, a, b):
    res = run("compare", "--verbose", a, b)
    check("compare exits 0 on good sets", res.returncode == 0 and not res.stderr, res.stderr)
    out = res.stdout.splitlines()
    for part in (seed000, dlp_lines, seed003, seed002, seed001, seed004, reports):
        part(out)



if __name__ == "__main__":
    sys.exit(run_tests([test_compare]))
