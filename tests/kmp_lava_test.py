#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kmp_lava: a results folder as lava-test-case lines (tools/kmp_lava.c).

A folder made here from committed records (tests/records) and a
summary.ktap that has every way a run can end: passed with a record (flat
figures, and a demand_paging sweep's points), failed without a record,
skipped by run.sh, passed by run.sh but failed by its record, passed with
no record at all, and left unrun by an interrupt; and section names that
LAVA could not take ('=' and '.'), one with 300 figures more.  The output must be exactly the
expected lines: each run a case with its result, each figure of a passing
run a measurement with its unit, nothing that did not run a pass.  KTAP.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import BIN, SRC, run_steps  # noqa: E402

RECORDS = os.path.join(SRC, "tests", "records")
LAVA = os.path.join(BIN, "kmp_lava")
KTAP = """TAP version 13
1..7
ok 1 dlp-flat.1
ok 2 dp-sweep.1
not ok 3 dlp-crash.1 # exit 139
ok 4 tlbie-x.1 # SKIP needs mmu:shadow
ok 5 dlp-rec-fail.1
ok 6 dlp-sweep-vcpus=2.1
ok 7 dlp-lost.1
# interrupted by SIGINT: did not run: dlp-flat.2 dlp-sweep-vcpus=4.1
"""


def folder(tmp):
    d = os.path.join(tmp, "set")
    os.makedirs(d)
    flat = os.path.join(RECORDS, "seed-000-ab", "A", "dlp-seed000-arm64-nosplit-chunk-whole.1.json")
    shutil.copy(flat, os.path.join(d, "dlp-flat.1.json"))
    shutil.copy(os.path.join(RECORDS, "seed-002-ab", "A", "dp-seed002.1.json"),
                os.path.join(d, "dp-sweep.1.json"))
    with open(flat) as f:
        rec = json.load(f)
    # A record with more figures than any benchmark writes today: all of them become cases.
    many = dict(rec, figures=dict(rec["figures"], **{
        "extra_%03d" % i: {"unit": "events", "value": i} for i in range(300)}))
    with open(os.path.join(d, "dlp-sweep-vcpus=2.1.json"), "w") as f:
        json.dump(many, f)
    rec["status"], rec["reason"] = "fail", "a check failed"
    with open(os.path.join(d, "dlp-rec-fail.1.json"), "w") as f:
        json.dump(rec, f)
    with open(os.path.join(d, "summary.ktap"), "w") as f:
        f.write(KTAP)
    return d


def expected_figures(name, figures):
    out = []
    for k in sorted(figures):
        v = figures[k].get("value")
        if v is None:
            continue
        text = "%d" % v if v == int(v) and abs(v) < 1e15 else repr(float(v))
        out.append("lava-test-case %s.%s --result pass --measurement %s --units %s"
                   % (name, k, text, figures[k]["unit"].replace(" ", "_")))
    return out


def expected(d):
    def rec(name):
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    out = ["# record dlp-flat.1 dlp-flat.1.json", "lava-test-case dlp-flat.1 --result pass"]
    out += expected_figures("dlp-flat.1", rec("dlp-flat.1.json")["figures"])
    out += ["# record dp-sweep.1 dp-sweep.1.json", "lava-test-case dp-sweep.1 --result pass"]
    for run in rec("dp-sweep.1.json")["runs"]:
        point = "dp-sweep.1.vcpus-%d%s" % (run["vcpus"], "-w" if run["mem_fault_exits"] else "")
        out += expected_figures(point, run["figures"])
    out += ["lava-test-case dlp-crash.1 --result fail",
            "lava-test-case tlbie-x.1 --result skip",
            "# record dlp-rec-fail.1 dlp-rec-fail.1.json",
            "lava-test-case dlp-rec-fail.1 --result fail",
            "# record dlp-sweep-vcpus_2.1 dlp-sweep-vcpus=2.1.json",
            "lava-test-case dlp-sweep-vcpus_2.1 --result pass"]
    out += expected_figures("dlp-sweep-vcpus_2.1", rec("dlp-sweep-vcpus=2.1.json")["figures"])
    out += ["lava-test-case dlp-lost.1 --result fail",
            "lava-test-case dlp-flat.2 --result skip",
            "lava-test-case dlp-sweep-vcpus_4.1 --result skip"]
    return out


def cases(tmp, results):
    d = folder(tmp)
    r = subprocess.run([LAVA, d], capture_output=True, text=True)
    got, want = r.stdout.splitlines(), expected(d)
    problems = [] if r.returncode == 0 else ["exit %d" % r.returncode]
    if got != want:
        problems += ["line %d: got %r, expected %r" % (i + 1, g, w)
                     for i, (g, w) in enumerate(zip(got + [None] * len(want), want + [None] * len(got)))
                     if g != w][:5]
    if "dlp-lost.1: no readable record" not in r.stderr:
        problems.append("stderr %r does not name the lost record" % r.stderr)
    results.append(("every way a run ends becomes its case (%d lines: pass with figures, a "
                    "sweep's points, fail, skip, a record's fail, a lost record, unrun runs "
                    "as skips), names LAVA can take" % len(want), problems))


def errors(tmp, results):
    problems = []
    for argv, words in (([], "usage"), ([tmp + "/none"], "cannot read"), (["-h"], "usage")):
        r = subprocess.run([LAVA] + argv, capture_output=True, text=True)
        if r.returncode != 2 or words not in r.stderr or r.stdout:
            problems.append("%r: exit %d, stderr %r" % (argv, r.returncode, r.stderr))
    results.append(("no folder, a folder without summary.ktap, an option: exit 2, said on "
                    "stderr, nothing on stdout", problems))


if __name__ == "__main__":
    sys.exit(run_steps("kmp-lava-test-", (cases, errors)))
