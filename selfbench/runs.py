# SPDX-License-Identifier: GPL-2.0
"""make bench's runs: the suite's benchmarks and the bare tools beside them,
each run's record, output, accounting and peak RSS into results["raw"]."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

from budgets import (BARE_OPTS, BARE_REST, BIGVM, COMPARE_RUNS, FIDELITY, LOAD_MAX,
                     LOAD_WAIT_S, LOCKSTEP, NOISE,
                     NOISE_BUDGET_S, NOISE_PAIRS, SCALE_DLP, SCALE_DP, STARTUP_ARGS, SUITE)
from readings import guest_bytes, headline, noise_headline, tool_headline


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


def compare_runs(args, results):
    """compare's verdict on one figure of COMPARE_RUNS runs a side (fixed-seed
    draws, a 1% shift at a CV of 2%), as kmp/compare.py makes it: judged,
    Holm's family finished, judged again from the cache; args.runs times."""
    sys.path.insert(0, os.path.join(args.src, "scripts"))
    import random
    from kmp.verdicts import Judge
    rng = random.Random(1)
    a = [rng.gauss(1.0, 0.02) for _ in range(COMPARE_RUNS)]
    b = [rng.gauss(1.01, 0.02) for _ in range(COMPARE_RUNS)]
    raw = results["raw"]["compare"] = {"runs": COMPARE_RUNS, "seconds": [], "verdict": None}
    for _ in range(args.runs):
        t = time.monotonic()
        judge = Judge(0.05)
        judge.judge("bench", "t", "s", a, b)
        judge.finish()
        judge.holm_from, judge.rows = [r["holm_p"] for r in judge.rows], []
        raw["verdict"] = judge.judge("bench", "t", "s", a, b)["verdict"]
        raw["seconds"].append(time.monotonic() - t)
