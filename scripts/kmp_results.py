#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Read kvm-mmu-perf result sets: compare two, tabulate a sweep, summarise one.

A result set is a folder written by run.sh: host.txt, summary.ktap, and for
each config section NAME and repeat R (from 1) NAME.R.log and NAME.R.json,
the benchmark's JSON record (docs/results.md).

  kmp_results.py compare [--counts-only] [--alpha A] [--same-within PCT] [--json]
                         [--per-figure] [--verbose] BASE NEW
  kmp_results.py compare [...] BASE1 BASE2 ... vs NEW1 NEW2 ...
      The mailing-list tables of each tool for BASE (before) and NEW (after):
      medians over repeats, their range, and each change's statistics
      (kmp/verdicts.py: intervals, an exact rank test, "~" where it is not
      significant at alpha).  Several folders a side are one boot each:
      the sample is then each boot's median.  Under icount, and alone with
      --counts-only (run.sh ab on POWER), the path counts.  --json prints
      every compared figure as data instead (docs/results.md).
  kmp_results.py sweep-table DIR SECTION_PREFIX VAR
      Sections PREFIX-VAR=VALUE of DIR as DIR/sweep.txt, sweep.csv and,
      with gnuplot, sweep.png and sweep.svg.
  kmp_results.py summary DIR
      One line per section: status counts and the main figures' medians.
  kmp_results.py kcidb --lava KMP_LAVA [--origin ORIGIN] DIR
      DIR as KCIDB's I/O data (schema v5.3), its cases and figures named
      by KMP_LAVA (tools/kmp_lava.c), on stdout (kmp/kcidb.py).

Exit status: 0 done; 1 gnuplot failed (sweep-table); 2 a bad command line or
bad data: a malformed, truncated or inconsistent record, or parameters that
differ between BASE and NEW.  On bad data compare and sweep-table print one
line per problem on stderr, naming the file, and no table at all.

The code is the package kmp/ beside this file; this is its command line.
"""
import argparse
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree or an install
from kmp.compare import cmd_compare  # noqa: E402
from kmp.fmt import PROG  # noqa: E402
from kmp.kcidb import cmd_kcidb  # noqa: E402
from kmp.summary import cmd_summary  # noqa: E402
from kmp.sweep import cmd_sweep_table  # noqa: E402


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # `| head` is no error
    # Text from records and file names from the folder may not encode
    # (lone surrogates, undecodable names): escape them, do not die.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="backslashreplace")
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("compare", help="the seeds' tables for BASE (before) and NEW (after)")
    p.add_argument("--counts-only", action="store_true",
                   help="only the path counts (KVM VM stat deltas), no timings")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level of each test (default 0.05)")
    p.add_argument("--json", action="store_true",
                   help="every compared figure's statistics as JSON, instead of the tables")
    p.add_argument("--same-within", type=float, default=2.0, metavar="PCT",
                   help="the equivalence margin: 'same' when the change's whole interval is "
                        "inside +-PCT%% (default 2)")
    p.add_argument("--per-figure", action="store_true",
                   help="judge each figure alone at --alpha (default: the verdicts are "
                        "family-wise, Holm's correction over the comparison's figures)")
    p.add_argument("--verbose", action="store_true",
                   help="every figure's long line too (ranges, median intervals, the verdict)")
    p.add_argument("folders", metavar="FOLDER", nargs="+",
                   help="BASE NEW, or BASE1 BASE2 ... vs NEW1 NEW2 ... (one folder per boot)")
    p = sub.add_parser("sweep-table", help="a sweep's table, CSV and plot")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("prefix", metavar="SECTION_PREFIX")
    p.add_argument("var", metavar="VAR")
    p = sub.add_parser("summary", help="status counts and main medians per section")
    p.add_argument("dir", metavar="DIR")
    p = sub.add_parser("kcidb", help="a result folder as KCIDB's I/O data (v5.3)")
    p.add_argument("--lava", required=True, metavar="KMP_LAVA", help="tools/kmp_lava's binary")
    p.add_argument("--origin", default="kvm_mmu_perf",
                   help="KCIDB's origin: the CI system submitting, [a-z0-9_]+")
    p.add_argument("dir", metavar="DIR")
    args = ap.parse_args()
    return {"compare": cmd_compare, "sweep-table": cmd_sweep_table,
            "summary": cmd_summary, "kcidb": cmd_kcidb}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
