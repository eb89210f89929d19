#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare, summary and sweep-table on the committed records, byte for byte.

tests/records/ holds result folders that do not change: the synthetic sets
of tests/kmp_testrecords.py (every tool, a failed and a base-only section), two
sweeps, a --alternate pair, and a real pair (seed 000's, arm64 under
icount), and a real seed 002 pair (x86 under icount, its within-side
rows).  Each command's stdout, stderr and exit status are compared with
tests/records/expected.txt.  A refactor must leave them identical; a change
of output is made on purpose with --update, and the diff of expected.txt is
the change a reviewer reads.  KTAP output.
"""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("KMP_SRC_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KMP = os.path.join(ROOT, "scripts", "kmp_results.py")
RECORDS = os.path.join(ROOT, "tests", "records")
EXPECTED = os.path.join(RECORDS, "expected.txt")

# (command line after kmp_results.py), run in a copy of tests/records.
CASES = [
    "compare synthetic/A synthetic/B",
    "compare --json synthetic/A synthetic/B",
    "compare --counts-only synthetic/A synthetic/B",
    "compare --alpha 0.2 synthetic/A synthetic/B",
    "compare synthetic/A synthetic/A vs synthetic/B synthetic/B",
    "compare seed-000-ab/A seed-000-ab/B",
    "compare --json seed-000-ab/A seed-000-ab/B",
    "compare seed-002-ab/A seed-002-ab/B",
    "compare alternate/A alternate/B",
    "compare synthetic/A seed-000-ab/B",
    "compare --alpha 1.5 synthetic/A synthetic/B",
    "summary synthetic/A",
    "summary synthetic/B",
    "summary seed-000-ab/B",
    "sweep-table sweeps/dp-vcpus dp-sweep vcpus",
    "sweep-table sweeps/dlp-chunk dlp chunk",
]
# The written files of a sweep, after its command.
SWEEP_FILES = ("sweep.txt", "sweep.csv")


def plot_line(line):
    """Whether gnuplot is installed is the machine's, not the output's."""
    return line.startswith(("# no plot: gnuplot", "# wrote "))


def run_case(work, case):
    args = case.split()
    res = subprocess.run([sys.executable, KMP] + args, cwd=work, capture_output=True,
                         text=True, env=dict(os.environ, LC_ALL="C.UTF-8"))
    out = ["=== kmp_results.py " + case]
    out += [l for l in res.stdout.splitlines() if not plot_line(l)]
    if res.stderr:
        out += ["--- stderr"] + res.stderr.splitlines()
    out.append("--- exit %d" % res.returncode)
    if args[0] == "sweep-table":
        for name in SWEEP_FILES:
            try:
                with open(os.path.join(work, args[1], name)) as f:
                    out += ["--- " + name] + f.read().splitlines()
            except OSError as e:
                out.append("--- %s: %s" % (name, e.strerror))
    return out


def outputs():
    work = tempfile.mkdtemp(prefix="kmp-golden-")
    try:
        shutil.copytree(RECORDS, work, dirs_exist_ok=True)
        lines = []
        for case in CASES:
            lines += run_case(work, case)
        return [l + "\n" for l in lines]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    got = outputs()
    if sys.argv[1:] == ["--update"]:
        with open(EXPECTED, "w") as f:
            f.writelines(got)
        print("wrote %s (%d lines)" % (EXPECTED, len(got)))
        return 0
    with open(EXPECTED) as f:
        want = f.readlines()
    diff = list(difflib.unified_diff(want, got, "expected.txt", "now"))
    print("TAP version 13")
    print("1..1")
    for line in diff[:200]:
        print("# " + line.rstrip("\n"))
    print("%s 1 - %d commands on tests/records: output identical to tests/records/expected.txt"
          % ("not ok" if diff else "ok", len(CASES)))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
