# SPDX-License-Identifier: GPL-2.0
"""A result folder as KCIDB's I/O data, schema v5.3 (kernelci/kcidb-io,
kcidb_io/schema/v05_03.py): one checkout (the kernel the host ran), one
build of it (the host's architecture), and a test per case and per figure.

The cases and figures are kmp_lava's (tools/kmp_lava.c), the one converter
of records to named results, which LAVA's jobs run too: SECTION.REP is a
run (PASS, FAIL or SKIP) and SECTION.REP[.POINT].FIGURE a figure (DONE, its
`number` the figure's value and unit).  KCIDB's paths get the prefix
kvm_mmu_perf; its ids are ORIGIN:kmp/FOLDER[/PATH], the folder's name
being run.sh's dated one.  Where a record gives them, a test carries the
run's start_time, duration, environment (the host) and misc (the tool, its
command line, the record's file).  KCIDB has no null: what is unknown is
left out."""
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

from .records import load_record
from .schema import BadData

ORIGIN = re.compile(r"^[a-z0-9_]+$")
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
LINE = re.compile(r"^lava-test-case (?P<name>\S+) --result (?P<result>pass|fail|skip)"
                  r"(?: --measurement (?P<value>\S+))?(?: --units (?P<unit>\S+))?$")


def cases(lava, folder):
    """kmp_lava's cases of FOLDER: ([(name, result, value, unit)], {name: record file})."""
    r = subprocess.run([lava, folder], capture_output=True, text=True)
    if r.returncode != 0:
        raise BadData(r.stderr.strip() or "kmp_lava exit %d" % r.returncode)
    out, files = [], {}
    for line in r.stdout.splitlines():
        if line.startswith("# record "):
            name, f = line.split()[2:4]
            files[name] = f
            continue
        m = LINE.match(line)
        if not m:
            raise BadData("kmp_lava printed %r" % line)
        value = float(m["value"]) if m["value"] is not None else None
        out.append((m["name"], m["result"], value, m["unit"]))
    return out, files


def seconds(rec):
    """A record's run time from started_at to finished_at, or None."""
    try:
        t = [datetime.datetime.strptime(rec[k], "%Y-%m-%dT%H:%M:%SZ")
             for k in ("started_at", "finished_at")]
    except (KeyError, TypeError, ValueError):
        return None
    return (t[1] - t[0]).total_seconds()


def rfc3339(stamp):
    """A record's "...Z" time as KCIDB writes date-times."""
    return stamp[:-1] + "+00:00" if isinstance(stamp, str) and stamp.endswith("Z") else None


def run_test(base, name, result, rec, build_id):
    """The test of one run, or of one figure of it (value not None)."""
    t = {"id": "%s/%s" % (base, name), "build_id": build_id, "origin": base.split(":")[0],
         "path": "kvm_mmu_perf." + name, "status": STATUS[result]}
    if rec is not None:
        if rfc3339(rec.get("started_at")):
            t["start_time"] = rfc3339(rec["started_at"])
        if seconds(rec) is not None:
            t["duration"] = seconds(rec)
        t["misc"] = {"tool": rec.get("tool"), "command": " ".join(rec.get("command", [])),
                     "record": rec["_file"]}
        host = rec.get("host", {})
        t["environment"] = {"comment": "%s, %s, KVM MMU %s" % (
            host.get("cpu_model"), host.get("emulated") or "native", host.get("mmu")),
            "misc": {k: v for k, v in host.items() if v is not None}}
    return t


def no_nulls(obj):
    """KCIDB allows no null anywhere: drop the members that are."""
    if isinstance(obj, dict):
        return {k: no_nulls(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [no_nulls(v) for v in obj if v is not None]
    return obj


def export(folder, lava, origin):
    """The KCIDB data of a result folder."""
    found, files = cases(lava, folder)
    recs = {}
    for n, f in files.items():
        try:
            recs[n] = load_record(os.path.join(folder, f))
        except BadData as e:
            raise BadData("%s: %s" % (f, e)) from e
        recs[n]["_file"] = f
    host = next(iter(recs.values()), {}).get("host", {})
    kernel = "%s%s" % (host.get("kernel", "unknown kernel"),
                       " (%s)" % host["emulated"] if host.get("emulated") else "")
    key = hashlib.sha256(kernel.encode()).hexdigest()[:16]
    checkout = {"id": "%s:kmp/checkout-%s" % (origin, key), "origin": origin,
                "comment": "the kernel the host ran: " + kernel}
    build = {"id": "%s:kmp/build-%s-%s" % (origin, host.get("machine", "unknown"), key),
             "checkout_id": checkout["id"], "origin": origin, "comment": kernel,
             "architecture": re.sub(r"[^a-z0-9_]", "_", host.get("machine", "").lower()),
             "misc": {"kernel": host.get("kernel")}}
    base = "%s:kmp/%s" % (origin, os.path.basename(os.path.normpath(folder)))
    tests, run = [], None
    for name, result, value, unit in found:
        if value is None:
            run = name
            tests.append(run_test(base, name, result, recs.get(name), build["id"]))
            continue
        # A figure's test: its run's time, the host once, on the run's test.
        t = run_test(base, name, result, recs.get(run), build["id"])
        t.pop("environment", None)
        if "misc" in t:
            t["misc"] = {"record": t["misc"]["record"]}
        t["status"] = "DONE"
        t["number"] = {"value": value, "unit": unit}
        tests.append(t)
    return no_nulls({"version": {"major": 5, "minor": 3}, "checkouts": [checkout],
                     "builds": [build], "tests": tests})


def cmd_kcidb(args):
    if not ORIGIN.match(args.origin):
        print("export: --origin '%s': KCIDB's origins are [a-z0-9_]+" % args.origin,
              file=sys.stderr)
        return 2
    try:
        data = export(args.dir, args.lava, args.origin)
    except BadData as e:
        print("export: %s: %s" % (args.dir, e), file=sys.stderr)
        return 2
    json.dump(data, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0
