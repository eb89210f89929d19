#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fault injection (KTAP): the benchmarks and run.sh when things go wrong.

1. SIGINT at random moments (fixed seed, delays 0.05-3 s, spread so that
   every phase of every binary is hit, and short runs interrupted near their
   end): the process dies of SIGINT (or exits 0 when it had already
   finished; not counted), the host is as before, and the record is valid
   JSON (and valid against the schema) with status "interrupted".  A run
   may lack a record only if the signal came before main() blocked it
   (delay < 0.2 s and no KTAP header printed).
2. hugetlb exhausted mid-setup: the kernel cannot give the pages asked for.
   Really asking for more than this host's memory would make the kernel take
   every free page for a moment (on a machine other work shares), so the
   pool knob is replaced, in a private mount namespace, by a file: the
   benchmark "raises" it, finds the pages still missing, must put the knob
   back and skip (exit 4) naming the knob and the count.  Also with the knob
   read-only (the raise itself fails).
3. KMP_WATCHDOG_SEC=abc (and 0) is a one-line usage error, exit 2, for each
   binary, and so is a KMP_LOCKSTEP_WAIT other than auto or block.  (The
   watchdog itself is tested in C by smoke_faults.)
4. A record that cannot be written (missing folder, full filesystem) and
   run.sh on a full filesystem (blocks, then inodes too): a clear error
   naming the path and a non-zero exit; an earlier results folder on the same
   filesystem stays intact.  The tmpfs is always unmounted.
5. Two binaries at once: two zap_latency (tracefs) and two dirty_log_perf on
   2M hugetlb pages: both pass, their tracefs instances differ, tracing keeps
   working for both, and afterwards the host is as before.
6. SIGKILL, which no handler sees: each binary's long run killed at
   KMP_FAULTS_KILLS (20) points drawn from a printed seed (KMP_FAULTS_SEED
   repeats a run), each kill point logged with the last step printed; after
   each, `make restore-host`'s tool undoes what the crash journal holds, and
   the host must be as before.
7. Another process changes the same host-wide knobs (a hugetlb pool, a
   kmp-* tracefs instance) while a run goes: the run still passes, and the
   stranger's changes are notes.

"The host is as before" is checked from the run's own crash journal, kept
(KMP_JOURNAL_KEEP=1) in a directory per run: every change it records is
marked done, a file written holds its original value again, and a directory,
tracefs instance, mount or dynamic event made is gone.  Host-wide knobs that
the run did not journal (hugetlb pools, THP, tracefs mounts) are compared
with the start too, but a difference there belongs to another process on the
host and is only a note.  Whatever a failing case leaves behind is put back,
and reported.

Exit status: 0 when every test passed, 1 otherwise.
"""
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import (BIN, NR_HUGEPAGES, RUN_SH, SRC, host_state,  # noqa: E402
                         in_private_tracefs, journal_changes, journal_check, journaled, read,
                         write)

CHECK_RECORD = os.path.join(SRC, "scripts", "check-record.py")
HUGEPAGES_1G = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
SEED = 20261130

tests = []      # (name, [problems], [info lines])
notes = []
started_pids = set()


def report(name, problems, info=()):
    tests.append((name, list(problems), list(info)))


# ------------------------------------------------------------ host state
#
# Each run journals into a directory of its own, kept (KMP_JOURNAL_KEEP=1):
# what the journal says the run changed is what is checked afterwards
# (kmp_testlib.journal_check), so other processes changing the same
# host-wide knobs meanwhile do not count.


def check_host(jdir, baseline, what, problems, out=""):
    found, said = journal_check(jdir, baseline, out)
    problems += ["after %s: %s" % (what, p) for p in found]
    notes.extend("after %s: %s" % (what, n) for n in said)


# ------------------------------------------------------------ helpers


def sanitize(line):
    return line.replace("# SKIP", "[SKIP]").replace("\t", " ")[:200]


def start(argv, out_path, env=None):
    out = open(out_path, "wb")
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                         env=env, start_new_session=True)
    out.close()
    started_pids.add(p.pid)
    return p


def wait(p, timeout):
    """Exit status, or None if it had to be stopped (Ctrl-C, then SIGKILL)."""
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(p.pid, signal.SIGINT)
        p.wait(timeout=5)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return None


def run(argv, timeout, env=None, tmp=None):
    path = os.path.join(tmp, "out.%d" % len(started_pids))
    t0 = time.monotonic()
    p = start(argv, path, env)
    rc = wait(p, timeout)
    with open(path, errors="replace") as f:
        out = f.read()
    return rc, out, time.monotonic() - t0


def strict_json(path):
    def no_constant(c):
        raise ValueError("non-finite number %s" % c)

    def no_dups(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(pairs)
    with open(path) as f:
        return json.load(f, parse_constant=no_constant, object_pairs_hook=no_dups)


def schema_check(paths):
    if not paths:
        return []
    r = subprocess.run([CHECK_RECORD] + paths, capture_output=True, text=True)
    return [] if r.returncode == 0 else (r.stderr.strip().splitlines() or ["check-record.py: exit %d" % r.returncode])


def binary(tool):
    return os.path.join(BIN, tool)


def excerpt(out, n=3):
    lines = [l for l in out.splitlines() if l.strip()]
    return ["  | " + sanitize(l) for l in (lines if len(lines) <= 2 * n else
                                            lines[:n] + ["..."] + lines[-n:])]


# ------------------------------------------------------------ 1. SIGINT

CONFIGS = {     # tool: (long run, short run, delays to interrupt the short run near its end)
    "dirty_log_perf": (["-v", "2", "-b", "64M", "-i", "50", "-s", "anonymous_hugetlb_2mb"],
                       ["-v", "2", "-b", "64M", "-i", "4", "-s", "anonymous_hugetlb_2mb"],
                       (1.0, 1.5)),
    "demand_paging": (["-u", "MINOR", "-s", "shmem", "-a", "-r", "2", "--sweep-vcpus", "1,2",
                       "-b", "16M", "--repeat", "20"],
                      ["-u", "MINOR", "-s", "shmem", "-a", "-r", "2", "--sweep-vcpus", "1,2",
                       "-b", "16M", "--repeat", "2"],
                      (0.7, 1.0)),
    "zap_latency": (["-v", "2", "-b", "64M", "-i", "30"], ["-v", "2", "-b", "64M", "-i", "2"],
                    (1.0, 1.45)),
    "tlbie_bench": (["-v", "2", "-t", "30"], ["-v", "2", "-t", "1"], (0.9, 1.05)),
}
# One delay in each band on the long run, one near the end of the short run.
BANDS = [(0.05, 0.2), (0.2, 0.5), (0.5, 1.0), (1.0, 1.6), (1.6, 2.3), (2.3, 3.0)]
KTAP_FRAMING = ("not ok", "ok ", "TAP version", "1..", "# Totals", "# SKIP")


def last_step(out):
    """The last line the run printed before the interruption: where it was."""
    lines = [l for l in out.splitlines() if l.strip() and not l.startswith(KTAP_FRAMING)]
    return lines[-1] if lines else "(nothing printed yet)"


def sigint_tests(tmp, baseline):
    rng = random.Random(SEED)
    plan = []
    for tool, (long_args, short_args, short_band) in CONFIGS.items():
        for lo, hi in BANDS:
            plan.append((tool, long_args, round(rng.uniform(lo, hi), 3)))
        # zap_latency reads its trace at the end: a window worth more tries.
        for _ in range(3 if tool == "zap_latency" else 2 if tool == "dirty_log_perf" else 1):
            plan.append((tool, short_args, round(rng.uniform(*short_band), 3)))
    injected, finished, records = 0, 0, []
    per_tool = {}
    for n, (tool, args, delay) in enumerate(plan):
        problems, info = [], []
        rec = os.path.join(tmp, "sigint-%d.json" % n)
        outp = os.path.join(tmp, "sigint-%d.out" % n)
        jdir, env = journaled(tmp)
        p = start([binary(tool)] + args + ["--json", rec], outp, env)
        time.sleep(delay)
        alive = p.poll() is None
        if alive:
            os.kill(p.pid, signal.SIGINT)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            problems.append("still running 30 s after SIGINT")
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
        with open(outp, errors="replace") as f:
            out = f.read()
        header = "TAP version 13" in out.splitlines()
        label = "%s %s (SIGINT at %.3f s)" % (tool, " ".join(args), delay)
        if rc == -signal.SIGINT:
            injected += 1
            per_tool[tool] = per_tool.get(tool, 0) + 1
            info.append("%s: died of SIGINT after: %s" % (label, sanitize(last_step(out))))
            if header and not re.search(r"^not ok 1 %s: interrupted by SIGINT$" % tool, out, re.M):
                problems.append("no 'not ok 1 %s: interrupted by SIGINT' line" % tool)
        elif rc == 0:
            finished += 1
            info.append("%s: had finished (exit 0), not counted" % label)
        else:
            problems.append("exit status %s, want death by SIGINT (or 0 if finished)" % rc)
        if os.path.exists(rec):
            try:
                doc = strict_json(rec)
                want = "pass" if rc == 0 else "interrupted"
                if doc.get("status") != want:
                    problems.append("record status %r, want %r" % (doc.get("status"), want))
                if want == "interrupted" and "SIGINT" not in str(doc.get("reason")):
                    problems.append("record reason %r does not name SIGINT" % doc.get("reason"))
                records.append(rec)
            except (OSError, ValueError) as e:
                problems.append("record is not valid JSON: %s" % e)
        elif rc == -signal.SIGINT and (delay >= 0.2 or header):
            problems.append("no record (the signal came %.3f s in%s)"
                            % (delay, ", after the KTAP header" if header else ""))
        leftovers = glob.glob(rec + ".tmp*")
        if leftovers:
            problems.append("temporary record file(s) left: " + ", ".join(leftovers))
        check_host(jdir, baseline, label, problems, out)
        if problems:
            info += excerpt(out)
        report("SIGINT: " + label, problems, info)
    errs = schema_check(records)
    report("SIGINT: the %d records validate against the schema" % len(records), errs)
    return injected, finished, per_tool


# ------------------------------------------------------------ 2. hugetlb exhausted


def hugetlb_tests(tmp, baseline):
    dir2m = "/sys/kernel/mm/hugepages/hugepages-2048kB"
    cases = [
        ("2M pool cannot grow", NR_HUGEPAGES, "rw",
         ["-v", "2", "-b", "4G", "-s", "anonymous_hugetlb_2mb", "-i", "2"], 4096, "2M", dir2m),
        ("1G pool cannot grow", HUGEPAGES_1G, "rw",
         ["-v", "1", "-b", "8G", "-s", "anonymous_hugetlb_1gb", "-i", "2"], 8, "1G",
         os.path.dirname(HUGEPAGES_1G)),
        ("2M pool knob read-only", NR_HUGEPAGES, "ro",
         ["-v", "2", "-b", "4G", "-s", "anonymous_hugetlb_2mb", "-i", "2"], 4096, "2M", dir2m),
    ]
    for name, knob, mode, args, needed, size, sysdir in cases:
        problems, info = [], []
        if not os.path.exists(knob):
            report("hugetlb: " + name, [], ["%s does not exist on this host: not tried" % knob])
            continue
        fake = os.path.join(tmp, "fake-" + os.path.basename(os.path.dirname(knob)) + "-" + mode)
        original = read(knob)
        write(fake, original + "\n")
        rec = fake + ".json"
        bind = 'mount --bind "$1" "$2"'
        if mode == "ro":
            bind += ' && mount -o remount,bind,ro "$2"'
        argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                bind + ' && shift 2 && exec "$@"', "sh", fake, knob,
                binary("dirty_log_perf")] + args + ["--json", rec]
        jdir, env = journaled(tmp)
        rc, out, elapsed = run(argv, 60, env=env, tmp=tmp)
        skip = [l for l in out.splitlines() if l.startswith("# SKIP")]
        reason = skip[0][len("# SKIP"):].lstrip(": ") if skip else ""
        info.append("%s: exit %s in %.1f s; reason: %s" % (name, rc, elapsed, reason))
        if rc != 4:
            problems.append("exit %s, want 4 (skip)" % rc)
        if knob not in reason:
            problems.append("the skip reason does not name %s" % knob)
        if not re.search(r"need %d free %s hugetlb pages" % (needed, size), reason):
            problems.append("the skip reason does not say 'need %d free %s hugetlb pages'"
                            % (needed, size))
        # The count to raise the knob to: what it holds plus the pages missing.
        try:
            have = max(0, int(read(sysdir + "/free_hugepages")) -
                       int(read(sysdir + "/resv_hugepages")))
            target = int(original) + needed - have
            if not re.search(r"\b%d\b" % target, reason.split("pages;", 1)[-1]):
                problems.append("the skip reason does not give the count %d to raise %s to"
                                % (target, knob))
        except ValueError:
            pass
        got = read(fake)
        if got != original:
            problems.append("the (stand-in) knob holds %r afterwards, want %r" % (got, original))
        if os.path.exists(rec):
            try:
                doc = strict_json(rec)
                if doc.get("status") != "skip" or knob not in str(doc.get("reason")):
                    problems.append("record: status %r, reason %r" % (doc.get("status"),
                                                                      doc.get("reason")))
                problems += schema_check([rec])
            except (OSError, ValueError) as e:
                problems.append("record is not valid JSON: %s" % e)
        else:
            problems.append("no record")
        check_host(jdir, baseline, name, problems, out)
        if problems:
            info += excerpt(out)
        report("hugetlb exhausted mid-setup: " + name + ": skip naming the knob, knob put back",
               problems, info)


# ------------------------------------------------------------ 3. KMP_WATCHDOG_SEC, KMP_LOCKSTEP_WAIT


def watchdog_env_tests(tmp, baseline):
    cases = [("dirty_log_perf", ["-b", "4M", "-i", "2"], "abc", "KMP_WATCHDOG_SEC"),
             ("dirty_log_perf", ["-b", "4M", "-i", "2"], "0", "KMP_WATCHDOG_SEC"),
             ("demand_paging", ["-b", "4M"], "abc", "KMP_WATCHDOG_SEC"),
             ("zap_latency", ["-v", "1", "-b", "4M", "-i", "1"], "abc", "KMP_WATCHDOG_SEC"),
             ("tlbie_bench", ["-t", "1"], "abc", "KMP_WATCHDOG_SEC"),
             ("dirty_log_perf", ["-b", "4M", "-i", "2"], "spin", "KMP_LOCKSTEP_WAIT"),
             ("demand_paging", ["-b", "4M"], "", "KMP_LOCKSTEP_WAIT"),
             ("dirty_log_perf", ["-b", "4M", "-i", "2"], "yes", "KMP_REQUIRE_KVM"),
             ("tlbie_bench", ["-t", "1"], "true", "KMP_REQUIRE_KVM"),
             ("dirty_log_perf", ["-b", "4M", "-i", "2"], "x\nok 2 injected", "KMP_EMULATED_HOST"),
             ("zap_latency", ["-v", "1", "-b", "4M", "-i", "1"], "x" * 1100, "KMP_EMULATED_HOST")]
    for tool, args, value, var in cases:
        problems, info = [], []
        jdir, env = journaled(tmp, dict(os.environ, **{var: value}))
        rc, out, elapsed = run([binary(tool)] + args, 10, env=env, tmp=tmp)
        lines = out.splitlines()
        if rc != 2:
            problems.append("exit %s, want 2" % rc)
        if len(lines) != 1:
            problems.append("%d lines of output, want 1" % len(lines))
        if "TAP version 13" in lines:
            problems.append("started a guest first (printed 'TAP version')")
        shown = ("control character" if "\n" in value else
                 "1100 characters: at most 1023" if len(value) == 1100 else "'%s'" % value)
        if not any(var in l and shown in l for l in lines):
            problems.append("no line names %s and %s" % (var, shown))
        check_host(jdir, baseline, "%s=%s %s" % (var, value, tool), problems, out)
        if problems:
            info += excerpt(out)
        report("%s=%s %s: one-line usage error" % (var, value.replace("\n", "\\n")[:40], tool),
               problems, info)


# ------------------------------------------------------------ 4. records and results that cannot be written


def tree_hashes(root):
    h = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fp:
                h[os.path.relpath(p, root)] = hashlib.sha256(fp.read()).hexdigest()
    return h


def fill(path):
    """Write until ENOSPC."""
    try:
        with open(path, "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass


def fill_inodes(folder):
    i = 0
    try:
        while i < 100000:
            open(os.path.join(folder, "inode-%d" % i), "w").close()
            i += 1
    except OSError:
        pass


def record_write_tests(tmp, baseline):
    # A record in a folder that does not exist: found out at the end of the run.
    problems, info = [], []
    path = "/nonexistent/kmp-faults/x.json"
    jdir, env = journaled(tmp)
    rc, out, _ = run([binary("tlbie_bench"), "-v", "1", "-t", "1", "--json", path], 30, env=env,
                     tmp=tmp)
    lines = [l for l in out.splitlines() if path in l]
    info.append("tlbie_bench --json %s: exit %s; %s" % (path, rc, sanitize(lines[0]) if lines else
                                                        "no line names the path"))
    if rc in (0, None) or (rc is not None and rc < 0):
        problems.append("exit %s, want a failure (the record was not written)" % rc)
    if len(lines) != 1:
        problems.append("%d lines name the path, want 1" % len(lines))
    check_host(jdir, baseline, "--json to a missing folder", problems, out)
    report("record to a missing folder: the run fails naming the path", problems, info)

    mnt = tempfile.mkdtemp(prefix="kmp-fullfs-")
    mounted = False
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k,nr_inodes=64,mode=755",
                            "kmp-fullfs", mnt], capture_output=True, text=True)
        if r.returncode:
            report("full filesystem: tmpfs mounted", ["mount: " + r.stderr.strip()])
            return
        mounted = True
        res = os.path.join(mnt, "results")

        # An earlier results folder, made while there was room.
        rc, out, _ = run([RUN_SH, "-t", "tlbie-seed001", "--results", res], 120, tmp=tmp)
        m = re.search(r"^results: (.+)$", out, re.M)
        earlier = m.group(1) if m else None
        problems = [] if rc == 0 and earlier and os.path.isdir(earlier) else [
            "run.sh exit %s, results folder %s" % (rc, earlier)]
        report("full filesystem: an earlier results folder is made while there is room",
               problems, excerpt(out) if problems else [])
        before = tree_hashes(earlier) if earlier and os.path.isdir(earlier) else {}

        fill(os.path.join(mnt, "fill"))
        # run.sh into the full filesystem (blocks full, inodes left).
        problems, info = [], []
        jdir, env = journaled(tmp)
        rc, out, elapsed = run([RUN_SH, "-t", "tlbie-seed001", "--results", res], 60, env=env,
                               tmp=tmp)
        info.append("run.sh -t tlbie-seed001 --results <full tmpfs>: exit %s after %.1f s"
                    % (rc, elapsed))
        if rc is None:
            problems.append("still running after 60 s")
        elif rc <= 0:
            problems.append("exit %s, want a failure (nothing could be saved)" % rc)
        if not any(mnt in l and "No space left" in l for l in out.splitlines()):
            problems.append("no line names the results path and 'No space left on device'")
        if problems:
            info += excerpt(out, 4)
        check_host(jdir, baseline, "run.sh on a full filesystem", problems, out)
        report("full filesystem (blocks): run.sh fails clearly, naming the path", problems, info)

        # A benchmark's record into the full filesystem.
        problems, info = [], []
        os.makedirs(os.path.join(mnt, "bench"), exist_ok=True)
        rec = os.path.join(mnt, "bench", "x.json")
        jdir, env = journaled(tmp)
        rc, out, _ = run([binary("tlbie_bench"), "-v", "1", "-t", "1", "--json", rec], 30,
                         env=env, tmp=tmp)
        lines = [l for l in out.splitlines() if rec in l]
        info.append("tlbie_bench --json <full tmpfs>/x.json: exit %s; %s"
                    % (rc, sanitize(lines[0]) if lines else "no line names the path"))
        if rc in (0, None) or rc < 0:
            problems.append("exit %s, want a failure (the record was not written)" % rc)
        if len(lines) != 1:
            problems.append("%d lines name the record path, want 1" % len(lines))
        left = [f for f in os.listdir(os.path.dirname(rec)) if f.startswith("x.json")]
        if left:
            problems.append("left in the folder: " + ", ".join(left))
        check_host(jdir, baseline, "--json into a full filesystem", problems, out)
        report("full filesystem: a record that cannot be written fails the run, naming the path",
               problems, info)

        # Inodes exhausted too: not even a folder can be made.
        fill_inodes(mnt)
        problems, info = [], []
        rc, out, elapsed = run([RUN_SH, "-t", "tlbie-seed001", "--results", res], 10, tmp=tmp)
        info.append("run.sh -t tlbie-seed001 --results <tmpfs without inodes>: exit %s after %.1f s"
                    % (rc, elapsed))
        if rc is None:
            problems.append("still running after 10 s (killed)")
        elif rc <= 0:
            problems.append("exit %s, want a failure" % rc)
        if not any(mnt in l for l in out.splitlines()):
            problems.append("no line names the results path")
        if problems:
            info += excerpt(out, 4)
        report("full filesystem (inodes): run.sh fails clearly, naming the path", problems, info)

        problems = []
        after = tree_hashes(earlier) if earlier and os.path.isdir(earlier) else {}
        if not before or after != before:
            problems.append("earlier folder changed: %s" % sorted(
                set(before.items()) ^ set(after.items())))
        jsons = [os.path.join(earlier, f) for f in before if f.endswith(".json")] if earlier else []
        if not jsons:
            problems.append("the earlier folder has no record")
        problems += schema_check(jsons)
        report("full filesystem: the earlier results folder is intact", problems)
    finally:
        if mounted:
            r = subprocess.run(["umount", mnt], capture_output=True, text=True)
            if r.returncode:
                subprocess.run(["umount", "-l", mnt])
                notes.append("tmpfs busy; unmounted lazily: " + r.stderr.strip())
        os.rmdir(mnt)


# ------------------------------------------------------------ 5. two at once


INSTANCE_RE = re.compile(r"^# traced zaps: .*; instance (/\S+/instances/(kmp-\S+))$", re.M)


def concurrent_tests(tmp, baseline):
    for tool, args, stagger in (
            ("zap_latency", ["-v", "1", "-b", "64M", "-i", "3"], 0.3),
            ("dirty_log_perf", ["-v", "1", "-b", "64M", "-i", "5", "-s", "anonymous_hugetlb_2mb"],
             0.2)):
        problems, info = [], []
        procs = []
        jdir, env = journaled(tmp)      # one directory: a journal per process
        for i in range(2):
            rec = os.path.join(tmp, "two-%s-%d.json" % (tool, i))
            outp = os.path.join(tmp, "two-%s-%d.out" % (tool, i))
            procs.append((start([binary(tool)] + args + ["--json", rec], outp, env), rec, outp))
            time.sleep(stagger)
        outs, names = [], []
        for i, (p, rec, outp) in enumerate(procs):
            try:
                rc = p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGINT)
                rc = p.wait()
                problems.append("run %d still running after 120 s" % (i + 1))
            with open(outp, errors="replace") as f:
                out = f.read()
            outs.append(out)
            if rc != 0:
                problems.append("run %d: exit %s" % (i + 1, rc))
            try:
                status = strict_json(rec).get("status")
                if status != "pass":
                    problems.append("run %d: record status %r" % (i + 1, status))
            except (OSError, ValueError) as e:
                problems.append("run %d: record: %s" % (i + 1, e))
            broken = [l for l in out.splitlines() if l.startswith("trace: ")]
            if broken:
                problems.append("run %d: tracing broke under it: %s (%d such lines)"
                                % (i + 1, sanitize(broken[0]), len(broken)))
            m = INSTANCE_RE.search(out)
            if tool == "zap_latency":
                if not m:
                    problems.append("run %d: no '# traced zaps: ...; instance .../instances/kmp-...' line"
                                    % (i + 1))
                else:
                    names.append(m.group(2))
        if tool == "zap_latency":
            info.append("tracefs instances: " + ", ".join(names))
            if len(names) == 2 and names[0] == names[1]:
                problems.append("both runs used instance " + names[0])
        check_host(jdir, baseline, "two %s at once" % tool, problems, "\n".join(outs))
        if problems:
            for i, out in enumerate(outs):
                info.append("run %d:" % (i + 1))
                info += excerpt(out)
        report("two %s at once: both pass, host as before" % tool, problems, info)


# ------------------------------------------------------------ 6. SIGKILL

KILLS = int(os.environ.get("KMP_FAULTS_KILLS") or 20)   # per binary


def sigkill_tests(tmp, baseline):
    seed = int(os.environ.get("KMP_FAULTS_SEED") or time.time_ns() % 1000000007)
    rng = random.Random(seed)
    restore = binary("kmp_restore_host")
    for tool, (long_args, _, _) in CONFIGS.items():
        problems, info = [], []
        for k in range(KILLS):
            delay = round(rng.uniform(0.05, 1.6), 3)
            outp = os.path.join(tmp, "sigkill.out")
            jdir, env = journaled(tmp)
            p = start([binary(tool)] + long_args, outp, env)
            time.sleep(delay)
            killed = p.poll() is None
            if killed:
                os.kill(p.pid, signal.SIGKILL)
            p.wait()
            with open(outp, errors="replace") as f:
                out = f.read()
            rc, rout, _ = run([restore], 30, env=env, tmp=tmp)
            undone = [l for l in rout.splitlines() if "undid" in l]
            info.append("kill %d at %.3f s%s, after: %s; restore: %s" % (
                k + 1, delay, "" if killed else " (had ended)", sanitize(last_step(out)),
                "%d change(s) undone" % len(undone) if undone else "nothing to undo"))
            if rc != 0:
                problems.append("kill %d: kmp_restore_host exit %s: %s" % (k + 1, rc, rout[-300:]))
            check_host(jdir, baseline, "%s killed at %.3f s" % (tool, delay), problems, rout)
        report("SIGKILL (seed %d): %s %s at %d points, the host back after each" % (
            seed, tool, " ".join(long_args), KILLS), problems, info)


# ------------------------------------------------------------ 7. another process beside it


def stranger_tests(tmp, baseline):
    """Another process changes the same host-wide knobs (a hugetlb pool, a
    kmp-* tracefs instance) while a run goes: the run's check must pass, and
    note the stranger's changes rather than count them."""
    problems, info = [], []
    saved = dict(baseline)
    start_pool = read(NR_HUGEPAGES)
    stranger = "kmp-stranger-%d" % os.getpid()
    write(NR_HUGEPAGES, str(int(start_pool) + 2))
    in_private_tracefs('mkdir "$d/instances/%s"' % stranger)
    try:
        jdir, env = journaled(tmp)
        rc, out, _ = run([binary("dirty_log_perf"), "-v", "1", "-b", "16M", "-i", "3", "-s",
                          "anonymous_hugetlb_2mb"], 60, env=env, tmp=tmp)
        if rc != 0:
            problems.append("exit %s" % rc)
            info += excerpt(out)
        if not [c for c in journal_changes(jdir) if c["kind"] == "delta" and c["granted"]]:
            problems.append("the run's journal holds no raised hugetlb pool: nothing was tried")
        seen, before = [], len(notes)
        check_host(jdir, baseline, "a run beside a stranger", seen, out)
        problems += ["counted against the run: " + p for p in seen]
        said = " ".join(notes[before:])
        for what in (NR_HUGEPAGES, stranger):
            if what not in said:
                problems.append("no note names the stranger's change of " + what)
        info.append("noted: " + sanitize(said))
    finally:
        write(NR_HUGEPAGES, str(max(0, int(read(NR_HUGEPAGES)) - 2)))
        in_private_tracefs('rmdir "$d/instances/%s"' % stranger)
        baseline.clear()
        baseline.update(saved)
    report("a stranger changes the same knobs meanwhile: the run passes, the change is a note",
           problems, info)


# ------------------------------------------------------------ main


def main():
    t_start = time.monotonic()
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as e:
        # kselftest's exit code for a skip; the runner reports it (and
        # KMP_REQUIRE_KVM=1 turns it into a failure).
        print("TAP version 13\n1..0\n# no usable /dev/kvm (%s): nothing to inject faults into"
              % e.strerror)
        return 4
    tmp = tempfile.mkdtemp(prefix="kmp-faults-")
    os.environ.pop("KMP_WATCHDOG_SEC", None)
    baseline = host_state()
    try:
        injected, finished, per_tool = sigint_tests(tmp, baseline)
        hugetlb_tests(tmp, baseline)
        watchdog_env_tests(tmp, baseline)
        record_write_tests(tmp, baseline)
        concurrent_tests(tmp, baseline)
        sigkill_tests(tmp, baseline)
        stranger_tests(tmp, baseline)
        report("at least 20 runs really interrupted (%d; %d had finished)" % (injected, finished),
               [] if injected >= 20 else ["only %d" % injected],
               ["%s: %d" % kv for kv in sorted(per_tool.items())])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("TAP version 13")
    print("1..%d" % len(tests))
    failed = 0
    for i, (name, problems, info) in enumerate(tests, 1):
        for l in info:
            print("# " + l)
        for p in problems:
            print("# FAIL: " + sanitize(p))
        failed += bool(problems)
        print("%sok %d %s" % ("not " if problems else "", i, name))
    for n in notes:
        print("# note: " + sanitize(n))
    print("# faults injected: %d" % injected)
    print("# time: %.1f s" % (time.monotonic() - t_start))
    print("# %d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
