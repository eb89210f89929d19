#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fault injection (KTAP), continued from faults_test.py: the host shared.

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

What both share, and how "the host is as before" is checked, is
tests/kmp_testfaults.py's.

Exit status: 0 when every test passed, 1 otherwise; 4 (skip) without /dev/kvm.
"""
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from kmp_testlib import (NR_HUGEPAGES, RUN_SH, in_private_tracefs,  # noqa: E402
                         journal_changes, journaled, read, write)
from kmp_testfaults import (CONFIGS, binary, check_host, excerpt, last_step,  # noqa: E402
                            notes, report, run, run_faults, sanitize, schema_check, start,
                            strict_json)


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
    missing_folder_test(tmp, baseline)
    mnt = tempfile.mkdtemp(prefix="kmp-fullfs-")
    mounted = False
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k,nr_inodes=64,mode=755",
                            "kmp-fullfs", mnt], capture_output=True, text=True)
        if r.returncode:
            report("full filesystem: tmpfs mounted", ["mount: " + r.stderr.strip()])
            return
        mounted = True
        full_fs_tests(tmp, baseline, mnt)
    finally:
        if mounted:
            r = subprocess.run(["umount", mnt], capture_output=True, text=True)
            if r.returncode:
                subprocess.run(["umount", "-l", mnt])
                notes.append("tmpfs busy; unmounted lazily: " + r.stderr.strip())
        os.rmdir(mnt)


def missing_folder_test(tmp, baseline):
    """A record in a folder that does not exist: found out at the end of the run."""
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


def full_fs_tests(tmp, baseline, mnt):
    """On the small tmpfs at mnt: an earlier results folder, then blocks and
    inodes run out; the earlier folder must stay intact."""
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
    full_blocks_tests(tmp, baseline, mnt, res)
    full_inodes_test(tmp, mnt, res)

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


def run_sh_refused(tmp, res, where, timeout, env=None):
    """run.sh -t tlbie-seed001 --results res, which must fail: its output,
    the problems with its exit, and a line saying how it ended."""
    rc, out, elapsed = run([RUN_SH, "-t", "tlbie-seed001", "--results", res], timeout, env=env,
                           tmp=tmp)
    info = ["run.sh -t tlbie-seed001 --results <%s>: exit %s after %.1f s" % (where, rc, elapsed)]
    problems = (["still running after %d s (stopped)" % timeout] if rc is None else
                ["exit %s, want a failure" % rc] if rc <= 0 else [])
    return out, problems, info


def full_blocks_tests(tmp, baseline, mnt, res):
    """Blocks run out (inodes left): run.sh, and a benchmark's record."""
    fill(os.path.join(mnt, "fill"))
    # run.sh into the full filesystem (blocks full, inodes left).
    jdir, env = journaled(tmp)
    out, problems, info = run_sh_refused(tmp, res, "full tmpfs", 60, env)
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


def full_inodes_test(tmp, mnt, res):
    """Inodes exhausted too: not even a folder can be made."""
    fill_inodes(mnt)
    out, problems, info = run_sh_refused(tmp, res, "tmpfs without inodes", 10)
    if not any(mnt in l for l in out.splitlines()):
        problems.append("no line names the results path")
    if problems:
        info += excerpt(out, 4)
    report("full filesystem (inodes): run.sh fails clearly, naming the path", problems, info)


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


if __name__ == "__main__":
    sys.exit(run_faults("kmp-faults-host-", [record_write_tests, concurrent_tests, sigkill_tests,
                                            stranger_tests]))
