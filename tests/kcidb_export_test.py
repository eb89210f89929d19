#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""run.sh export --kcidb: KCIDB's I/O data from a results folder.

On the committed real pairs (tests/records/seed-000-ab, seed-002-ab):
the export validates against tests/kcidb-schema-v5.3.json (written from
kcidb-io's v05_03.py; date-times and URIs checked here, which jsonschema
does not do without extra modules), and the round trip holds: each
figure that compare reads from the records (kmp.records) is one DONE test
with the same value and unit, and nothing else is; each run's status is
summary.ktap's.  The same on a folder made here whose runs end every
other way: a record that says fail, a crash without a record, a skip, a
run left unrun by an interrupt.  The schema and the round trip each must catch a broken
export (a null, a status KCIDB lacks, an id without its origin, a path
with a space, a changed value).  Bad command lines exit 2.  KTAP.
"""
import copy
import datetime
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import BIN, RUN_SH, SRC, run_steps  # noqa: E402
sys.path.insert(0, os.path.join(SRC, "scripts"))
from kmp.records import load_set  # noqa: E402

FOLDERS = ["seed-000-ab/A", "seed-000-ab/B", "seed-002-ab/A", "seed-002-ab/B"]
ENV = dict(os.environ, KMP_BIN=BIN)


def validator():
    with open(os.path.join(SRC, "tests", "kcidb-schema-v5.3.json")) as f:
        schema = json.load(f)
    checker = copy.deepcopy(jsonschema.Draft202012Validator.FORMAT_CHECKER)

    @checker.checks("date-time", raises=ValueError)
    def date_time(value):
        return datetime.datetime.fromisoformat(value).tzinfo is not None

    @checker.checks("uri")
    def uri(value):
        return bool(urllib.parse.urlparse(value).scheme)
    return jsonschema.Draft202012Validator(schema, format_checker=checker)


def export(folder, *extra):
    r = subprocess.run([RUN_SH, "export", "--kcidb", folder] + list(extra),
                       capture_output=True, text=True, env=ENV)
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


def record_figures(folder):
    """{kcidb path: (value, unit)} of every figure compare reads."""
    sections, errors = load_set(folder)
    assert not errors, errors
    out = {}
    for sec in sections.values():
        for rep, rec in sec.passed:
            base = "kvm_mmu_perf.%s.%d" % (sec.name, rep)
            points = [(base, rec.get("figures", {}))]
            if rec.get("runs") is not None:
                points = [("%s.vcpus-%d%s" % (base, r["vcpus"], "-w" * r["mem_fault_exits"]),
                           r["figures"]) for r in rec["runs"]]
            for p, figs in points:
                for name, fig in figs.items():
                    if fig.get("value") is not None:
                        out["%s.%s" % (p, name)] = (fig["value"], fig["unit"])
    return out


def round_trip(folder, data):
    """What differs between the export's figures and statuses and the folder's."""
    problems = []
    done = {t["path"]: (t["number"]["value"], t["number"].get("unit"))
            for t in data["tests"] if t["status"] == "DONE"}
    want = record_figures(folder)
    for path in sorted(set(done) | set(want)):
        if done.get(path) != want.get(path):
            problems.append("%s: export %r, records %r" % (path, done.get(path), want.get(path)))
    ktap = {}
    with open(os.path.join(folder, "summary.ktap")) as f:
        for line in f:
            words = line.split()
            if line.startswith("ok "):
                ktap[words[2]] = "SKIP" if "# SKIP" in line else "PASS"
            elif line.startswith("not ok "):
                ktap[words[3]] = "FAIL"
            elif "did not run:" in line:
                ktap.update((n, "SKIP") for n in line.split("did not run:")[1].split())
    for name in ktap:           # a record's own verdict stands over run.sh's pass
        path = os.path.join(folder, name + ".json")
        if ktap[name] == "PASS" and os.path.exists(path):
            with open(path) as f:
                if json.load(f)["status"] == "fail":
                    ktap[name] = "FAIL"
    runs = {t["path"][len("kvm_mmu_perf."):]: t["status"] for t in data["tests"]
            if t["status"] != "DONE"}
    if runs != ktap:
        problems.append("run statuses %r, summary.ktap %r" % (runs, ktap))
    return problems


def pairs(_tmp, results):
    v = validator()
    for name in FOLDERS:
        folder = os.path.join(SRC, "tests", "records", name)
        r, data = export(folder)
        if data is None:
            results.append((name, ["exit %d: %s" % (r.returncode, r.stderr.strip())]))
            continue
        problems = ["schema: %s at %s" % (e.message, "/".join(map(str, e.absolute_path)))
                    for e in v.iter_errors(data)][:5] + round_trip(folder, data)[:5]
        results.append(("%s: the export validates (v5.3) and gives back its %d figures and "
                         "%d runs" % (name, sum(t["status"] == "DONE" for t in data["tests"]),
                                      sum(t["status"] != "DONE" for t in data["tests"])),
                         problems))


MIXED_KTAP = """TAP version 13
1..4
ok 1 dp-seed002.1
ok 2 dp-seed002.2
not ok 3 dp-crash.1 # exit 139
ok 4 dp-skip.1 # SKIP needs mmu:shadow
# interrupted by SIGINT: did not run: dp-seed002.3
"""


def mixed(tmp, results):
    """seed-002-ab/A's records, its second run's record saying fail, and the other ends."""
    src = os.path.join(SRC, "tests", "records", "seed-002-ab", "A")
    folder = os.path.join(tmp, "mixed")
    os.makedirs(folder)
    for f in ("dp-seed002.1.json", "host.txt"):
        shutil.copy(os.path.join(src, f), folder)
    with open(os.path.join(src, "dp-seed002.2.json")) as f:
        rec = json.load(f)
    rec["status"], rec["reason"] = "fail", "a check failed"
    with open(os.path.join(folder, "dp-seed002.2.json"), "w") as f:
        json.dump(rec, f)
    with open(os.path.join(folder, "summary.ktap"), "w") as f:
        f.write(MIXED_KTAP)
    r, data = export(folder)
    if data is None:
        results.append(("a folder with every end", ["exit %d: %s" % (r.returncode, r.stderr)]))
        return
    problems = ["schema: %s" % e.message for e in validator().iter_errors(data)][:5]
    problems += round_trip(folder, data)[:5]
    statuses = sorted(t["status"] for t in data["tests"] if t["status"] != "DONE")
    if statuses != ["FAIL", "FAIL", "PASS", "SKIP", "SKIP"]:
        problems.append("run statuses %r" % statuses)
    results.append(("a folder whose runs end every way: PASS with figures, FAIL by record "
                    "and by crash, SKIP by run.sh and by interrupt, no figure of a run "
                    "that did not pass", problems))


def broken(_tmp, results):
    v = validator()
    folder = os.path.join(SRC, "tests", "records", FOLDERS[0])
    _, good = export(folder)
    test = next(i for i, t in enumerate(good["tests"]) if t["status"] == "DONE")
    breaks = {"a null": ("tests", test, "comment", None),
              "a status KCIDB lacks": ("tests", test, "status", "OK"),
              "an id without its origin": ("tests", test, "id", "no-origin"),
              "a path with a space": ("tests", test, "path", "kvm_mmu_perf.a b"),
              "a start time without a zone": ("tests", test, "start_time", "2026-01-01T00:00:00")}
    problems = []
    for what, (key, i, member, value) in breaks.items():
        data = copy.deepcopy(good)
        data[key][i][member] = value
        if v.is_valid(data):
            problems.append("the schema accepts %s" % what)
    data = copy.deepcopy(good)
    data["tests"][test]["number"]["value"] += 1
    if not round_trip(folder, data):
        problems.append("the round trip misses a changed value")
    results.append(("the schema refuses a broken export (%s) and the round trip a changed "
                     "value" % ", ".join(breaks), problems))


def bad_input(tmp, results):
    problems = []
    folder = os.path.join(SRC, "tests", "records", FOLDERS[0])
    for argv, words in ((["--kcidb", tmp + "/none"], "does not exist"),
                        (["--kcidb", folder, "--origin", "Bad-Origin"], "[a-z0-9_]+"),
                        (["--kcidb"], "needs a results folder"),
                        (["--json", folder], "unknown argument"),
                        (["--kcidb", os.path.dirname(folder)], "name one: A B"),
                        ([], "usage")):
        r = subprocess.run([RUN_SH, "export"] + argv, capture_output=True, text=True, env=ENV)
        if r.returncode != 2 or words not in r.stderr or r.stdout:
            problems.append("%r: exit %d, stderr %r" % (argv, r.returncode, r.stderr))
    results.append(("bad command lines: exit 2, the option and what it takes named", problems))


if __name__ == "__main__":
    sys.exit(run_steps("kmp-kcidb-", (pairs, mixed, broken, bad_input)))
