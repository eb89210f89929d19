#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: does the suite measure the kernel, or itself?  (docs/perf.md)

Runs every benchmark at a small scale, several times, unpinned and pinned,
with harness accounting on (KMP_ACCOUNT, lib/account.c), next to bench/'s
bare tools that issue the same ioctls on the same VM state; then start-up
and scale runs.  Prints one table (figure, value, budget, verdict) and writes
the results next to the tools (TOOLS/results.json): an ordinary run changes
no tracked file.  With --record (make bench-record) it also writes the
tracked bench/results.json and appends a dated entry to docs/perf.md.

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
import glob
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
sys.dont_write_bytecode = True
from kmp import stats as kmp_stats  # noqa: E402

MIB = 1 << 20
OVERHEAD_BUDGET = 0.01              # harness share of a timed phase
FIDELITY_RANGE = (0.95, 1.05)       # suite / independent
MEM_SHARE, MEM_FIXED = 0.02, 64 * MIB
STARTUP_BUDGET = 0.050              # s, process start to 8 vCPUs ready
TOTAL_BUDGET = 600                  # s, the whole of make bench

# The small configurations (2 pCPUs, an emulating KVM: ~1-4 us per guest
# instruction).  "pin" is what -c adds for the pinned runs.
SUITE = {
    "dirty_log_perf": {"args": ["-v", "2", "-b", "64M", "-i", "10", "-k", "16M"],
                       "pin": ["-c", "0,1"]},
    "demand_paging": {"args": ["-v", "2", "-b", "64M", "-u", "MISSING"],
                      "pin": ["-c", "0,1"]},
    "zap_latency": {"args": ["-v", "2", "-b", "64M", "-i", "5"],
                    "pin": ["-c", "0,1"]},
    "tlbie_bench": {"args": ["-v", "2", "-t", "2"],
                    "pin": ["-c", "0,1"]},
}
# The bare tools, with the same parameters (and pinning) as the pinned suite runs.
FIDELITY = {
    "dirty_log_perf": ("fidelity_dirty_log", ["-v", "2", "-b", "64M", "-i", "10", "-k", "16M"]),
    "demand_paging": ("fidelity_paging", ["-v", "2", "-b", "64M"]),
    "zap_latency": ("fidelity_zap", ["-v", "2", "-b", "64M", "-i", "5"]),
    "tlbie_bench": ("fidelity_tlbie", ["-v", "2", "-t", "2"]),
}
# Ioctl regions whose bare tool also times them with KMP_ACCOUNT's inner pair
# (--accounted): (benchmark, region) -> the tool's figure of the time between.
BARE_REST = {("dirty_log_perf", "get_dirty_log_time"): "get_rest_time"}
# Headline figures: (binary, figure, how to read it from a record, from a tool's output).
STARTUP_ARGS = ["-v", "8", "-b", "8M", "-i", "2"]
SCALE_DLP = ["-v", "256", "-b", "4M", "-i", "2", "--verify"]
SCALE_DP = ["-v", "256", "-b", "4M", "-u", "MISSING"]
BIGVM = ["-s", "64G", "--stride", "64M", "-m", "2M"]
# Lockstep wake-up skew, the default waiting (spin where every thread has a
# CPU, lib/lockstep.c) against a condvar alone (KMP_LOCKSTEP_WAIT=block, the
# suite's waiting before): with a CPU for every thread (-v 1 and the host), and
# with more threads than CPUs (the suite's -v 2), where the default blocks too.
LOCKSTEP = {"own CPUs": ["-v", "1", "-b", "64M", "-i", "10"],
            "shared CPUs": SUITE["dirty_log_perf"]["args"]}


# Noise as a user meets it: run.sh's own sections (configs/*.cfg, the ci
# group's), each run in pairs with its bare tool (FIDELITY) issuing the
# same ioctls with the options it takes.  The bare tool's spread is what
# this host gives any program issuing those ioctls; the budget is that the
# suite's is not significantly larger (kmp_stats.spread_test, one-sided,
# at NOISE_ALPHA), judged every run whatever the host's load: the pairs
# interleave, so the load falls on both sides alike.
NOISE = {"dlp-seed003": ("get_dirty_log_time", "clear_dirty_log_time"),
         "zap-seed004": ("ioctl_latency",),
         "dp-missing": ("overall_paging_rate",),
         "tlbie-seed001": ("throughput",)}
NOISE_ALPHA = 0.05
# Pairs a section runs: the fewest at which the test finds a spread ratio
# of 1.5 in 4 runs of 5 (kmp_stats.spread_power(50, 1.5) = 0.82, 2000
# lognormal draws; 40 pairs give 0.74, 30 give 0.62).
NOISE_PAIRS = 50
# The noise runs' share of make bench's 10 minutes: a section whose pairs
# would not fit (timed from its first pair) is dropped, and its row says so.
NOISE_BUDGET_S = 330
BARE_OPTS = {"dirty_log_perf": "vbik", "demand_paging": "vbr", "zap_latency": "vbi",
             "tlbie_bench": "vt"}
LOAD_MAX = 1.0
LOAD_WAIT_S = 120


def config_section(src, name):
    """(binary, args) of a run.sh config section: configs/*.cfg's [name]."""
    for path in sorted(glob.glob(os.path.join(src, "configs", "*.cfg"))):
        section = None
        fields = {}
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("["):
                    if section == name:
                        break
                    section, fields = line.strip("[]"), {}
                elif "=" in line and not line.startswith("#"):
                    k, v = line.split("=", 1)
                    fields[k.strip()] = v.strip()
        if section == name and "file" in fields:
            return fields["file"], fields.get("args", "").split()
    raise Failed("no config section [%s] in %s/configs" % (name, src))


def noise_headline(tool, rec):
    """One run's headline figures, as the run prints them."""
    f = rec["figures"]
    if tool == "dirty_log_perf":
        n = rec["params"]["iterations"]
        return {k: f[k]["value"] / n for k in ("get_dirty_log_time", "clear_dirty_log_time")}
    if tool == "zap_latency":
        return {"ioctl_latency": f["ioctl_latency"]["value"] / 1e9}
    if tool == "demand_paging":
        return {"overall_paging_rate": f["overall_paging_rate"]["value"]}
    return {"throughput": f["throughput"]["value"]}


def steal_ticks():
    """The host's steal time so far (/proc/stat), in clock ticks: time a hypervisor took."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) if len(fields) > 8 else 0


def wait_for_idle():
    """The 1-minute load average, after waiting up to LOAD_WAIT_S for it to fall to LOAD_MAX."""
    deadline = time.monotonic() + LOAD_WAIT_S
    load = os.getloadavg()[0]
    while load > LOAD_MAX and time.monotonic() < deadline:
        time.sleep(5)
        load = os.getloadavg()[0]
    return load


def load_record(path):
    """The JSON record a run wrote at path, or None when it wrote none."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def passing_record(args, tmp, tool, a, env, results, what):
    """Run tool with a record; the record of a passing run, else None and a failure noted."""
    rec_path = os.path.join(tmp, "run.json")
    if os.path.exists(rec_path):
        os.unlink(rec_path)
    rc, _, _, _, _ = run([os.path.join(args.bin, tool)] + a + ["--json", rec_path],
                         env_extra=env, label=what)
    rec = load_record(rec_path) if rc == 0 else None
    if not rec or rec.get("status") != "pass":
        results["failures"].append("%s: exit %d" % (what, rc))
        return None
    return rec


def bare_args(tool, a):
    """The options of a suite command line that tool's bare tool takes (BARE_OPTS)."""
    keep, out = BARE_OPTS[tool], []
    # Each kept option takes a value (-v N, -b SIZE, ...); flags between them are skipped.
    for i, opt in enumerate(a[:-1]):
        if len(opt) == 2 and opt[0] == "-" and opt[1] in keep:
            out += [opt, a[i + 1]]
    return out


def noise_pair(args, tmp, results, name, i):
    """Run pair i of section name: the suite and its bare tool one after the
    other, in turn first (so neither always meets the other's leftovers).
    Its (suite, bare) headline figures, or None when either run failed."""
    r = results["raw"]["noise"][name]
    t0 = time.monotonic()
    got = {}
    for side in (("suite", "bare") if i % 2 == 0 else ("bare", "suite")):
        what = "noise %s %s run %d" % (name, side, i + 1)
        if side == "suite":
            rec = passing_record(args, tmp, r["tool"], r["args"], None, results, what)
            got[side] = noise_headline(r["tool"], rec) if rec else None
            continue
        rc, out, _, _, _ = run([os.path.join(args.tools, r["bare"])] + r["bare_args"], label=what)
        if rc != 0:
            results["failures"].append("%s: exit %d" % (what, rc))
        got[side] = tool_headline(r["tool"], json.loads(out)) if rc == 0 else None
    r["seconds"] += time.monotonic() - t0
    if got["suite"] and got["bare"]:
        r["pairs"].append([got["suite"], got["bare"]])


def noise_runs(args, tmp, results):
    """NOISE_PAIRS pairs (5 with --quick) of each section that fits in
    NOISE_BUDGET_S: one pair of each times it, the cheapest fit first."""
    raw = results["raw"]["noise"] = {}
    for name in NOISE:
        tool, a = config_section(args.src, name)
        raw[name] = {"tool": tool, "args": a, "bare": FIDELITY[tool][0],
                     "bare_args": bare_args(tool, a), "pairs": [], "seconds": 0.0,
                     "steal_ticks": 0, "dropped": None}
    pairs = 5 if args.quick else NOISE_PAIRS
    for name in NOISE:
        noise_pair(args, tmp, results, name, 0)
    left = NOISE_BUDGET_S - sum(r["seconds"] for r in raw.values())
    for name in sorted(NOISE, key=lambda n: raw[n]["seconds"]):
        r = raw[name]
        need = r["seconds"] * (pairs - 1)
        if need > left:
            r["dropped"] = ("%d pairs would take %.0f s (%.1f s a pair), and %.0f s of the "
                            "noise budget's %d s are left" % (pairs, need + r["seconds"],
                                                              r["seconds"], max(left, 0),
                                                              NOISE_BUDGET_S))
            log("noise: %s dropped: %s" % (name, r["dropped"]))
            continue
        left -= need
        steal0 = steal_ticks()
        for i in range(1, pairs):
            noise_pair(args, tmp, results, name, i)
        r["steal_ticks"] = steal_ticks() - steal0
        log("noise: %s: %d complete pairs in %.0f s" % (name, len(r["pairs"]), r["seconds"]))


def log(msg):
    print("[bench %6.1fs] %s" % (time.monotonic() - T0, msg), file=sys.stderr, flush=True)


T0 = time.monotonic()


class Failed(Exception):
    pass


def run(cmd, env_extra=None, timeout=600, tmp=None, label=None):
    """Run cmd; return (rc, stdout, wall seconds, peak RSS bytes (ru_maxrss), account dict)."""
    env = dict(os.environ)
    acct = None
    if env_extra is not None:
        env.update(env_extra)
    if tmp is not None:
        acct = os.path.join(tmp, "account.%d.json" % int(time.monotonic() * 1e6))
        env["KMP_ACCOUNT"] = acct
    out = tempfile.TemporaryFile(mode="w+")
    err = tempfile.TemporaryFile(mode="w+")
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
    deadline = start + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, ru = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
    account = None
    if acct and os.path.exists(acct):
        with open(acct) as f:
            account = json.load(f)
        os.unlink(acct)
    if proc.returncode != 0:
        tail = (stderr.strip().splitlines() or stdout.strip().splitlines() or ["?"])[-1]
        log("%s: exit %d: %s" % (label or os.path.basename(cmd[0]), proc.returncode, tail))
    return proc.returncode, stdout, wall, ru.ru_maxrss * 1024, account


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def cv(xs):
    if len(xs) < 2:
        return float("nan")
    m = statistics.mean(xs)
    return statistics.stdev(xs) / m if m else float("nan")


def cv_median_of(xs, k):
    """The CV of the median of k runs, over every k-subset of the runs measured."""
    if len(xs) < k + 1:
        return float("nan")
    return cv([statistics.median(c) for c in itertools.combinations(xs, k)])


# ---------------------------------------------------------------- reading results

def guest_bytes(tool, rec):
    p = rec.get("params", {})
    if tool in ("dirty_log_perf", "demand_paging"):
        per = p.get("vcpu_bytes") or p.get("vcpu_memory_bytes")
        if per is None:
            return None
        # Schema 2: -o shares -v x -b (as upstream); schema 1's -o region was -b.
        shared_v1 = rec.get("schema_version") == 1 and (p.get("overlap") or p.get("shared"))
        return per if shared_v1 else per * p["vcpus"]
    if tool == "zap_latency":
        return p["bytes"]
    if tool == "tlbie_bench":
        # tlbie_bench/setup.c: (pages + max(4 * pages, 64)) frames per vCPU, 2M aligned.
        pages = p["pages"]
        per = (pages + max(pages * 4, 64)) * 4096
        return -(-per * p["vcpus"] // (2 * MIB)) * 2 * MIB
    return None


def headline(tool, rec):
    """The headline figures of one record: {name: value}."""
    if tool == "dirty_log_perf":
        f = rec["figures"]
        n = rec["params"]["iterations"]
        return {"dirty_memory_time": f["dirty_memory_time"]["value"] / n,
                "get_dirty_log_time": f["get_dirty_log_time"]["value"] / n,
                "clear_dirty_log_time": f["clear_dirty_log_time"]["value"] / n,
                "populate_time": f["populate_time"]["value"]}
    if tool == "demand_paging":
        f = rec["runs"][0]["figures"]
        return {"total_guest_execution_time": f["total_guest_execution_time"]["value"]}
    if tool == "zap_latency":
        return {"ioctl_latency": rec["figures"]["ioctl_latency"]["value"] / 1e9}
    if tool == "tlbie_bench":
        return {"throughput": rec["figures"]["throughput"]["value"]}
    return {}


def pooled(tool, rec=None, out=None):
    """Per-occurrence samples of a headline figure, for pooling across runs (zaps)."""
    if tool == "zap_latency":
        if rec is not None:
            return {"ioctl_latency": [v / 1e9 for v in rec["figures"]["ioctl_latency"]["values"]]}
        return {"ioctl_latency": [v / 1e9 for v in out["ioctl_latency"]]}
    if tool == "dirty_log_perf":
        names = ("dirty_memory_time", "get_dirty_log_time", "clear_dirty_log_time")
        if rec is not None:
            return {n: rec["figures"][n]["values"] for n in names}
        return {n: out[n] for n in names}
    return {}


def ratio_interval(suite_runs, bare_runs, draws=2000):
    """
    The 90% bootstrap interval of median(suite) / median(bare), resampling
    whole runs (each a list of occurrences; from one run to the next is where
    this host's spread is), with a fixed seed so one result reads the same.
    """
    rng = random.Random(1)
    ratios = []
    for _ in range(draws):
        s = median([x for r in rng.choices(suite_runs, k=len(suite_runs)) for x in r])
        b = median([x for r in rng.choices(bare_runs, k=len(bare_runs)) for x in r])
        if b:
            ratios.append(s / b)
    ratios.sort()
    return ratios[len(ratios) // 20], ratios[len(ratios) - 1 - len(ratios) // 20]


def tool_headline(tool, out):
    if tool == "dirty_log_perf":
        return {"dirty_memory_time": statistics.mean(out["dirty_memory_time"]),
                "get_dirty_log_time": statistics.mean(out["get_dirty_log_time"]),
                "clear_dirty_log_time": statistics.mean(out["clear_dirty_log_time"]),
                "populate_time": out["populate_time"]}
    if tool == "demand_paging":
        return {"total_guest_execution_time": out["total_guest_execution_time"],
                "overall_paging_rate": out["overall_paging_rate"]}
    if tool == "zap_latency":
        return {"ioctl_latency": statistics.median(out["ioctl_latency"]) / 1e9}
    if tool == "tlbie_bench":
        return {"throughput": out["throughput"]}
    return {}


def dp_handler_overhead(rec):
    """
    demand_paging: the uffd handlers' own time per vCPU, in s, as (bookkeeping,
    content generation): not UFFDIO_COPY, not the read(2) of the fault
    messages (handler_read_time, where recorded), not -d.  A vCPU waits in
    KVM_RUN for its handler, so this time hides inside the vCPU's kernel time.
    """
    f = rec["runs"][0]["figures"]
    read = f.get("handler_read_time", {"value": 0})["value"]
    own = f["handler_time"]["value"] - f["handler_ioctl_time"]["value"] - read - \
        f["handler_delay_time"]["value"] - f["handler_source_time"]["value"]
    n = rec["params"]["vcpus"]
    return max(own, 0) / 1e9 / n, f["handler_source_time"]["value"] / 1e9 / n


# ---------------------------------------------------------------- the runs

def suite_run(args, tmp, results, tool, mode, i):
    """mode: unpinned, pinned, or accounted (unpinned, with KMP_ACCOUNT)."""
    cfg = SUITE[tool]
    rec_path = os.path.join(tmp, "%s.%s.%d.json" % (tool, mode, i))
    cmd = [os.path.join(args.bin, tool)] + cfg["args"] + \
        (cfg["pin"] if mode == "pinned" else []) + ["--json", rec_path]
    rc, _, wall, rss, acct = run(cmd, tmp=tmp if mode == "accounted" else None, label=tool)
    rec = load_record(rec_path)
    ok = rc == 0 and rec is not None and rec.get("status") == "pass"
    if not ok:
        results["failures"].append("%s %s run %d: exit %d" % (tool, mode, i + 1, rc))
    elif not results["host"]:
        results["host"] = rec["host"]
    results["raw"]["suite"][tool][mode].append({"cmd": cmd[1:], "rc": rc, "wall": wall,
                                                "rss": rss, "account": acct, "record": rec,
                                                "ok": ok})


def fidelity_run(args, results, tool, variant, i):
    """variant: same_guest, minimal_guest, or accounted (unpinned, as the suite's accounted runs)."""
    fid, fargs = FIDELITY[tool]
    extra = {"minimal_guest": ["--minimal-guest"], "accounted": ["--accounted"]}.get(variant, [])
    pin = [] if variant == "accounted" else SUITE[tool]["pin"]
    rc, out, wall, rss, _ = run([os.path.join(args.tools, fid)] + fargs + pin + extra, label=fid)
    if rc != 0:
        results["failures"].append("%s %s run %d: exit %d" % (fid, variant, i + 1, rc))
    results["raw"]["fidelity"][tool][variant].append(
        {"rc": rc, "wall": wall, "rss": rss, "out": json.loads(out) if rc == 0 else None})


def paired_runs(args, tmp, results):
    """
    Each benchmark's runs interleaved with its bare tool's: other load on the
    host then falls on both alike (unpinned suite, bare tool, pinned suite,
    suite with harness accounting, and for the memstress-driven ones a
    one-store-guest run, in turn).  Fidelity compares the pinned runs of both
    (the least noisy here); noise uses the runs without accounting (its clock
    reads are not part of the suite); the overhead figures the accounted ones.
    """
    results["raw"]["suite"] = {t: {"unpinned": [], "pinned": [], "accounted": []} for t in SUITE}
    results["raw"]["fidelity"] = {t: {"same_guest": [], "minimal_guest": [], "accounted": []}
                                  for t in FIDELITY}
    for tool in SUITE:
        for i in range(args.runs):
            suite_run(args, tmp, results, tool, "unpinned", i)
            fidelity_run(args, results, tool, "same_guest", i)
            suite_run(args, tmp, results, tool, "pinned", i)
            suite_run(args, tmp, results, tool, "accounted", i)
            if tool in BARE_REST:
                fidelity_run(args, results, tool, "accounted", i)
            if tool in ("dirty_log_perf", "demand_paging") and i < max(1, args.runs // 2):
                fidelity_run(args, results, tool, "minimal_guest", i)
        log("%s: %d runs unpinned, pinned and bare (%s)" % (tool, args.runs, FIDELITY[tool][0]))


def startup_runs(args, tmp, results):
    raw = results["raw"]["startup"] = {"dirty_log_perf": [], "library": []}
    for i in range(args.runs):
        cmd = [os.path.join(args.tools, "startup"), "exec",
               os.path.join(args.bin, "dirty_log_perf")] + STARTUP_ARGS
        rc, _, wall, rss, acct = run(cmd, tmp=tmp, label="startup dirty_log_perf")
        if rc != 0 or not acct or acct.get("startup_ns") is None:
            results["failures"].append("startup dirty_log_perf run %d: exit %d" % (i + 1, rc))
            continue
        raw["dirty_log_perf"].append(acct["startup_ns"] / 1e9)
    for i in range(args.runs):
        rc, out, _, _, _ = run([os.path.join(args.tools, "startup"), "exec",
                                os.path.join(args.tools, "startup")], label="startup")
        if rc != 0:
            results["failures"].append("startup (library) run %d: exit %d" % (i + 1, rc))
            continue
        raw["library"].append(json.loads(out))
    log("start-up: %d + %d runs" % (len(raw["dirty_log_perf"]), len(raw["library"])))


def lockstep_runs(args, tmp, results):
    """Both ways of waiting, interleaved: each run's skew per iteration, release + completion."""
    raw = results["raw"]["lockstep"] = {k: {"auto": [], "block": []} for k in LOCKSTEP}
    for name, a in LOCKSTEP.items():
        for i in range(args.runs):
            for how in ("auto", "block"):
                rec = passing_record(args, tmp, "dirty_log_perf", a,
                                     {"KMP_LOCKSTEP_WAIT": how}, results,
                                     "lockstep %s %s run %d" % (name, how, i + 1))
                if not rec:
                    continue
                f, n = rec["figures"], rec["params"]["iterations"]
                raw[name][how].append({"release": f["lockstep_release_skew"]["value"] / n,
                                       "completion": f["lockstep_completion_skew"]["value"] / n})
    log("lockstep: %d runs each way, twice" % args.runs)


def scale_runs(args, tmp, results):
    raw = results["raw"]["scale"] = {}
    for tool, a in (("dirty_log_perf", SCALE_DLP), ("demand_paging", SCALE_DP)):
        rec_path = os.path.join(tmp, "scale.%s.json" % tool)
        rc, _, wall, rss, _ = run([os.path.join(args.bin, tool)] + a + ["--json", rec_path],
                                  timeout=300, label="scale " + tool)
        rec = load_record(rec_path)
        ok = rc == 0 and rec is not None and rec.get("status") == "pass"
        if not ok:
            results["failures"].append("scale %s: exit %d" % (tool, rc))
        raw[tool] = {"cmd": a, "rc": rc, "ok": ok, "wall": wall, "rss": rss,
                     "guest_bytes": guest_bytes(tool, rec) if rec else None,
                     "figures": headline(tool, rec) if ok else None}
        log("scale %s: %s in %.1f s" % (tool, "pass" if ok else "FAIL", wall))
    rc, out, wall, rss, _ = run([os.path.join(args.tools, "bigvm")] + BIGVM, timeout=300,
                                label="bigvm")
    if rc != 0:
        results["failures"].append("bigvm: exit %d" % rc)
    raw["bigvm"] = {"cmd": BIGVM, "rc": rc, "ok": rc == 0, "wall": wall, "rss": rss,
                    "out": json.loads(out) if rc == 0 else None}
    log("bigvm: %s in %.1f s" % ("pass" if rc == 0 else "FAIL", wall))


# ---------------------------------------------------------------- the table

def fmt_pct(x):
    return "n/a" if x is None or x != x else "%.2f%%" % (100 * x)


def fmt_s(x):
    if x is None or x != x:
        return "n/a"
    if x >= 1:
        return "%.2f s" % x
    if x >= 1e-3:
        return "%.2f ms" % (x * 1e3)
    return "%.1f us" % (x * 1e6)


def fmt_mib(b):
    return "%.1f MiB" % (b / MIB)


def build_rows(results):
    rows = []

    def row(section, figure, value, budget, verdict, **detail):
        rows.append({"section": section, "figure": figure, "value": value, "budget": budget,
                     "verdict": verdict, "detail": detail})

    suite = results["raw"].get("suite", {})
    # The rest of the bare tool's ioctl regions timed as KMP_ACCOUNT times the
    # suite's (a pair inside a pair), per occurrence over all its accounted runs.
    bare_rest = {}
    for (tool, region), key in BARE_REST.items():
        vals = [v for r in results["raw"].get("fidelity", {}).get(tool, {}).get("accounted", [])
                if r.get("out") for v in r["out"].get(key, [])]
        if vals:
            bare_rest[(tool, region)] = sum(vals) / len(vals)
    # 1. Harness overhead per timed phase, over every run (pinned and unpinned).
    for tool, modes in suite.items():
        regions = {}
        for r in modes["accounted"]:
            if not r["ok"] or not r["account"]:
                continue
            for name, a in r["account"]["regions"].items():
                acc = regions.setdefault(name, {"measured": 0, "kernel": 0, "count": 0,
                                                "worst": 0.0, "shares": []})
                acc["shares"].append((a["measured_ns"] - a["kernel_ns"]) / a["measured_ns"]
                                     if a["measured_ns"] else 0.0)
                acc["release"] = acc.get("release", 0) + a.get("release_ns", 0)
                acc["completion"] = acc.get("completion", 0) + a.get("completion_ns", 0)
                acc["measured"] += a["measured_ns"]
                acc["kernel"] += a["kernel_ns"]
                acc["count"] += a["count"]
                acc["worst"] = max(acc["worst"], a["worst_share"])
        for name, acc in regions.items():
            shares = acc["shares"]
            share = median(shares)
            per = (acc["measured"] - acc["kernel"]) / acc["count"] / 1e9
            info = name == "clear_step_wall_time"
            split = ""
            if acc.get("release") or acc.get("completion"):
                split = ": release %s, completion %s" % (fmt_s(acc["release"] / acc["count"] / 1e9),
                                                         fmt_s(acc["completion"] / acc["count"] /
                                                               1e9))
            # An ioctl region whose rest per occurrence is no more than a bare
            # loop's, timing the same ioctl the same way (within the fidelity
            # band), is the timing itself: the clock reads, which any timing of
            # that ioctl pays, and the accounting's own pair inside them.
            rest = bare_rest.get((tool, name))
            clocks = (rest is not None and share > OVERHEAD_BUDGET and
                      per <= FIDELITY_RANGE[1] * rest)
            verdict = ("info" if info else "ok" if share <= OVERHEAD_BUDGET else
                       "ok: the clock reads" if clocks else "FAIL")
            row("overhead", "%s %s%s" % (tool, name, " (the whole step: diagnostic)" if info
                                           else ""),
                "%s (%s..%s; %s each%s%s)" % (
                    fmt_pct(share), fmt_pct(min(shares)), fmt_pct(max(shares)), fmt_s(per),
                    split, "; a bare loop timing it the same way: %s each" % fmt_s(rest)
                    if rest is not None else ""),
                "info" if info else "<= 1%", verdict, share=share,
                shares=shares, per_occurrence_s=per, worst_share=acc["worst"],
                occurrences=acc["count"])
        if tool == "demand_paging":
            own, gen, tot = [], [], []
            for r in modes["accounted"]:
                if r["ok"]:
                    w = r["record"]["runs"][0]["figures"]["total_guest_execution_time"]["value"]
                    o, g = dp_handler_overhead(r["record"])
                    own.append(o / w)
                    gen.append(g / w)
                    tot.append((o + g) / w)
            if tot:
                s = median(tot)
                row("overhead", "demand_paging total_guest_execution_time: uffd handlers' own "
                    "time, per vCPU", "%s (%s..%s; bookkeeping %s, page content %s)" % (
                        fmt_pct(s), fmt_pct(min(tot)), fmt_pct(max(tot)), fmt_pct(median(own)),
                        fmt_pct(median(gen))), "<= 1%",
                    "ok" if s <= OVERHEAD_BUDGET else "FAIL", share=s, shares=tot,
                    bookkeeping=own, content=gen)

    # 2. Fidelity: suite (pinned) / bare tool (pinned), same VM state, medians.
    fid = results["raw"].get("fidelity", {})
    for tool, variants in fid.items():
        suite_vals = [headline(tool, r["record"]) for r in suite.get(tool, {}).get("pinned", [])
                      if r["ok"]]
        same = [tool_headline(tool, r["out"]) for r in variants["same_guest"] if r["out"]]
        mini = [tool_headline(tool, r["out"]) for r in variants["minimal_guest"] if r["out"]]
        if not suite_vals or not same:
            continue
        pool_s = [pooled(tool, rec=r["record"]) for r in suite[tool]["pinned"] if r["ok"]]
        pool_b = [pooled(tool, out=r["out"]) for r in variants["same_guest"] if r["out"]]
        for fig in suite_vals[0]:
            if pool_s and pool_s[0] and fig in pool_s[0]:
                # Every occurrence of every run: the median of all zaps or iterations.
                runs_s = [p[fig] for p in pool_s]
                runs_b = [p[fig] for p in pool_b]
            else:
                runs_s = [[v[fig]] for v in suite_vals]
                runs_b = [[v[fig]] for v in same]
            s = median([x for r in runs_s for x in r])
            b = median([x for r in runs_b for x in r])
            ratio = s / b if b else float("nan")
            ok = FIDELITY_RANGE[0] <= ratio <= FIDELITY_RANGE[1]
            # How well these runs pin the ratio down: an interval wider than the
            # range means this host's run-to-run spread cannot resolve it.
            lo, hi = ratio_interval(runs_s, runs_b)
            floor = hi - lo > FIDELITY_RANGE[1] - FIDELITY_RANGE[0]
            row("fidelity", "%s %s" % (tool, fig),
                "%.3f (%s / %s); 90%% interval over the runs %.3f-%.3f%s" % (
                    ratio, fmt_s(s) if fig != "throughput" else "%.1f/s" % s,
                    fmt_s(b) if fig != "throughput" else "%.1f/s" % b, lo, hi,
                    ", wider than the range: the host's floor" if floor else ""),
                "0.95-1.05", "ok" if ok else "FAIL", ratio=ratio, suite=s, independent=b,
                interval=[lo, hi], host_floor=floor)
            if tool == "zap_latency" and pool_s:
                xs = sorted(x for p in pool_s for x in p[fig])
                ys = sorted(x for p in pool_b for x in p[fig])
                fast = 200e-6
                p10 = lambda v: v[len(v) // 10]
                row("fidelity", "zap_latency ioctl_latency: 10th percentiles; zaps under 200 us",
                    "%.3f (%s / %s); %d/%d suite, %d/%d bare" % (
                        p10(xs) / p10(ys), fmt_s(p10(xs)), fmt_s(p10(ys)),
                        sum(x < fast for x in xs), len(xs), sum(y < fast for y in ys), len(ys)),
                    "info", "info", p10_ratio=p10(xs) / p10(ys), suite=xs, independent=ys)
            if mini and fig in ("dirty_memory_time", "populate_time",
                                "total_guest_execution_time"):
                m = median([v[fig] for v in mini])
                row("fidelity", "%s %s: suite guest / one-store guest" % (tool, fig),
                    "%.2f (%s / %s)" % (b / m, fmt_s(b), fmt_s(m)), "info", "info",
                    ratio=b / m, same_guest=b, minimal_guest=m)

    # 3. Noise: CV of each headline figure over the runs, unpinned and pinned.
    for tool, modes in suite.items():
        vals = {m: [headline(tool, r["record"]) for r in modes[m] if r["ok"]]
                for m in ("unpinned", "pinned")}
        if not vals["unpinned"]:
            continue
        for fig in vals["unpinned"][0]:
            xu = [v[fig] for v in vals["unpinned"]]
            xp = [v[fig] for v in vals["pinned"]]
            cu, cp = cv(xu), cv(xp)
            mu, mp = cv_median_of(xu, 3), cv_median_of(xp, 3)
            better = "pinning helps" if cp < cu else "pinning does not help"
            row("noise", "%s %s CV (n=%d)" % (tool, fig, len(xu)),
                "%s unpinned, %s pinned; median of 3: %s, %s" % (
                    fmt_pct(cu), fmt_pct(cp), fmt_pct(mu), fmt_pct(mp)), "report", better,
                cv_unpinned=cu, cv_pinned=cp, cv_median3_unpinned=mu, cv_median3_pinned=mp,
                unpinned=xu, pinned=xp)

    # 3b. Noise as budgeted: run.sh's sections against their bare tools, pair by pair.
    for name, r in results["raw"].get("noise", {}).items():
        for fig in NOISE[name]:
            noise_row(row, name, r, fig)

    # 4. Memory: peak RSS - guest memory, over every run of each binary.
    # Lockstep wake-up skew: spin-then-block against the condvar alone, in one run.
    for name, modes in results["raw"].get("lockstep", {}).items():
        if not modes["auto"] or not modes["block"]:
            continue
        sk = {h: median([r["release"] + r["completion"] for r in modes[h]]) for h in modes}
        parts = {h: "release %s + completion %s" % (
            fmt_s(median([r["release"] for r in modes[h]])),
            fmt_s(median([r["completion"] for r in modes[h]]))) for h in modes}
        own = name == "own CPUs"
        row("lockstep", "dirty_log_perf %s (%s): wake-up skew per iteration, default / "
            "condvar alone (medians of %d)" % (" ".join(LOCKSTEP[name]), name, len(modes["auto"])),
            "%s / %s = %.2f (default: %s; condvar: %s)" % (
                fmt_s(sk["auto"]), fmt_s(sk["block"]), sk["auto"] / sk["block"] if sk["block"]
                else float("nan"), parts["auto"], parts["block"]),
            "< 0.5 (spins)" if own else "info (blocks too)",
            ("ok" if sk["auto"] < 0.5 * sk["block"] else "FAIL") if own else "info",
            default=modes["auto"], block=modes["block"])

    def mem_row(label, rss, guest):
        over = rss - guest
        allowed = MEM_SHARE * guest + MEM_FIXED
        row("memory", label, "%s over %s guest (%s of it)" % (fmt_mib(over), fmt_mib(guest),
                                                            fmt_pct(over / guest)),
            "<= 2%% + 64 MiB (%s)" % fmt_mib(allowed), "ok" if over <= allowed else "FAIL",
            peak_rss=rss, guest_bytes=guest, over=over, allowed=allowed)

    for tool, modes in suite.items():
        runs = [r for r in modes["unpinned"] + modes["pinned"] + modes["accounted"] if r["ok"]]
        if runs:
            worst = max(runs, key=lambda r: r["rss"] - guest_bytes(tool, r["record"]))
            mem_row(tool + " " + " ".join(SUITE[tool]["args"]), worst["rss"],
                    guest_bytes(tool, worst["record"]))

    # 5. Start-up.
    st = results["raw"].get("startup", {})
    if st.get("dirty_log_perf"):
        xs = st["dirty_log_perf"]
        row("start-up", "dirty_log_perf %s: exec to 8 vCPUs ready (median of %d, max)" %
            (" ".join(STARTUP_ARGS), len(xs)), "%s (max %s)" % (fmt_s(median(xs)), fmt_s(max(xs))),
            "<= 50 ms", "ok" if median(xs) <= STARTUP_BUDGET else "FAIL", median=median(xs),
            max=max(xs), values=xs)
    if st.get("library"):
        lib = st["library"]
        parts = ["exec_to_main", "host_desc_read", "vm_create", "vcpus_add", "threads_start"]
        med = {k: median([x[k] for x in lib]) for k in parts + ["startup_time"]}
        row("start-up", "library alone: exec, host_desc_read, vm_create, 8 vm_vcpu_add, "
            "vcpu_threads_start", "%s = %s" % (fmt_s(med["startup_time"]),
                                                " + ".join(fmt_s(med[k]) for k in parts)),
            "<= 50 ms", "ok" if med["startup_time"] <= STARTUP_BUDGET else "FAIL", **med)

    # 6. Scale.
    sc = results["raw"].get("scale", {})
    for tool in ("dirty_log_perf", "demand_paging"):
        r = sc.get(tool)
        if not r:
            continue
        row("scale", "%s %s" % (tool, " ".join(r["cmd"])),
            "%s in %s" % ("pass" if r["ok"] else "FAIL", fmt_s(r["wall"])), "completes",
            "ok" if r["ok"] else "FAIL", wall=r["wall"], rss=r["rss"])
        if r["ok"] and r["guest_bytes"]:
            mem_row("%s %s" % (tool, " ".join(r["cmd"])), r["rss"], r["guest_bytes"])
    b = sc.get("bigvm")
    if b:
        o = b["out"]
        if o:
            row("scale", "64 GiB guest (MAP_NORESERVE, 2M guest pages, 1 page per 64 MiB)",
                "setup %s, touch %s (%d pages), teardown %s" % (
                    fmt_s(o["setup_time"]), fmt_s(o["touch_time"]), o["pages_touched"],
                    fmt_s(o["teardown_time"])), "completes", "ok", **o)
            touched = o["pages_touched"] * 4096
            over = b["rss"] - touched
            allowed = MEM_SHARE * o["guest_bytes"] + MEM_FIXED
            row("memory", "64 GiB guest: peak RSS - touched guest memory",
                "%s (RSS %s; KVM's vmalloc +%s)" % (fmt_mib(over), fmt_mib(b["rss"]),
                                                    fmt_mib(o["kernel_vmalloc_growth"])),
                "<= 2%% + 64 MiB (%s)" % fmt_mib(allowed), "ok" if over <= allowed else "FAIL",
                peak_rss=b["rss"], over=over, allowed=allowed,
                kernel_vmalloc=o["kernel_vmalloc_growth"])
        else:
            row("scale", "64 GiB guest", "FAIL (exit %d)" % b["rc"], "completes", "FAIL")

    total = time.monotonic() - T0
    row("total", "make bench wall time", fmt_s(total), "<= 10 min",
        "ok" if total <= TOTAL_BUDGET else "FAIL", seconds=total)
    return rows


def noise_row(row, name, r, fig):
    """The row of one figure of a noise section: the suite's spread over its
    bare tool's, with its interval and the one-sided test's verdict."""
    label = "%s (%s %s) %s: spread, suite / bare %s %s" % (
        name, r["tool"], " ".join(r["args"]), fig, r["bare"], " ".join(r["bare_args"]))
    budget = "suite not noisier (p > %g)" % NOISE_ALPHA
    if r["dropped"]:
        row("noise", label, "dropped: " + r["dropped"], budget, "not run")
        return
    pairs = [(s[fig], b[fig]) for s, b in r["pairs"]]
    if len(pairs) < 3:
        row("noise", label, "%d complete pairs: too few to compare" % len(pairs), budget, "FAIL")
        return
    suite, bare = [p[0] for p in pairs], [p[1] for p in pairs]
    test = kmp_stats.spread_test(suite, bare)
    # 90%: its lower end is the one-sided 95% bound, the test's side and level.
    ratio, lo, hi = kmp_stats.spread_ratio_ci(pairs, conf=0.90)
    f = fmt_s if "time" in fig or "latency" in fig else (lambda x: "%.4g/s" % x)
    value = "%s (90%% CI %s; suite %s, bare %s; CV %s, %s; medians %s, %s; %d pairs, p=%.3g, " \
        "%s; host steal time %d ms)" % (
            "%.2f" % ratio if ratio is not None else "n/a (bare has no spread)",
            "%.2f..%.2f" % (lo, hi) if lo is not None else "n/a",
            fmt_pct(kmp_stats.spread(suite)), fmt_pct(kmp_stats.spread(bare)),
            fmt_pct(cv(suite)), fmt_pct(cv(bare)), f(median(suite)), f(median(bare)),
            len(pairs), test.p, test.method, r["steal_ticks"] * 1000 // os.sysconf("SC_CLK_TCK"))
    row("noise", label, value, budget, "FAIL" if test.p <= NOISE_ALPHA else "ok",
        ratio=ratio, ratio_lo=lo, ratio_hi=hi, p=test.p, method=test.method,
        values=suite, bare_values=bare)


def print_table(rows, file=sys.stdout):
    w = [max(len(r[k]) for r in rows) for k in ("figure", "value", "budget", "verdict")]
    w[0] = max(w[0], len("figure"))
    section = None
    line = "%-*s  %-*s  %-*s  %s"
    print(line % (w[0], "figure", w[1], "value", w[2], "budget", "verdict"), file=file)
    for r in rows:
        if r["section"] != section:
            section = r["section"]
            print("-- %s" % section, file=file)
        print(line % (w[0], r["figure"], w[1], r["value"], w[2], r["budget"], r["verdict"]),
              file=file)


def md_table(rows):
    out = ["| section | figure | value | budget | verdict |", "|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s |" % (r["section"], r["figure"],
                                                   r["value"].replace("|", "/"), r["budget"],
                                                   r["verdict"]))
    return "\n".join(out)


def git_describe(src):
    try:
        return subprocess.run(["git", "-C", src, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def host_line(h):
    if not h:
        return platform.node()
    return "%s, %s, %d CPUs, %.0f GiB, %s (%s)" % (
        h.get("kernel", "?").split()[0], h.get("cpu_model", "?"), h.get("cpus", 0),
        h.get("mem_total_bytes", 0) / (1 << 30), h.get("kvm_module", "?"), h.get("mmu", "?"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="the benchmarks' build directory")
    ap.add_argument("--tools", help="bench/'s tools' build directory")
    ap.add_argument("--history-from", metavar="RESULTS",
                    help="only append RESULTS' entry to the history")
    ap.add_argument("--src", required=True, help="the source tree")
    ap.add_argument("--runs", type=int, default=5, help="runs per configuration (5)")
    ap.add_argument("--quick", action="store_true", help="2 runs (never recorded)")
    ap.add_argument("--no-scale", action="store_true", help="skip the scale runs")
    ap.add_argument("--record", action="store_true",
                    help="also write SRC/bench/results.json and append to docs/perf.md")
    ap.add_argument("--out", help="results file (default TOOLS/results.json; with --record "
                    "SRC/bench/results.json)")
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
    out_path = args.out or (os.path.join(args.src, "bench", "results.json") if args.record
                            else os.path.join(args.tools, "results.json"))
    if os.geteuid() != 0:
        log("not root: zap_latency's trace figures and hugetlb will be unavailable")

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
        if not args.no_scale:
            scale_runs(args, tmp, results)
    results["load_after"] = os.getloadavg()
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


def append_history(md_path, results, label):
    entry = ["", "## %s, %s" % (results["date"], results["commit"]), "",
             "Host: %s. %d runs per configuration; load average %.1f before, %.1f after; "
             "make bench took %s.%s" % (
                 host_line(results["host"]), results["runs"], results["load_before"][0],
                 results["load_after"][0], fmt_s(results["runtime_s"]),
                 (" " + label) if label else ""), "", md_table(results["rows"]), ""]
    with open(md_path, "a") as f:
        f.write("\n".join(entry))
    print("history: appended to %s" % md_path)


def headline_safe(rec):
    if not rec or rec.get("status") != "pass":
        return None
    try:
        return headline(rec["tool"], rec)
    except (KeyError, TypeError, ZeroDivisionError):
        return None


if __name__ == "__main__":
    sys.exit(main())
