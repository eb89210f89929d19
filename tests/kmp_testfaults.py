# SPDX-License-Identifier: GPL-2.0
"""What the fault-injection tests share (faults_test.py, faults_host_test.py).

"The host is as before" is checked from the run's own crash journal, kept
(KMP_JOURNAL_KEEP=1) in a directory per run: every change it records is
marked done, a file written holds its original value again, and a directory,
tracefs instance, mount or dynamic event made is gone.  Host-wide knobs that
the run did not journal (hugetlb pools, THP, tracefs mounts) are compared
with the start too, but a difference there belongs to another process on the
host and is only a note.  Whatever a failing case leaves behind is put back,
and reported.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from kmp_testlib import BIN, SRC, host_state, journal_check

CHECK_RECORD = os.path.join(SRC, "scripts", "check-record.py")

tests = []      # (name, [problems], [info lines])
notes = []
summary = []    # closing "# ..." lines
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


def run_faults(prefix, groups):
    """Each group(tmp, baseline), then the KTAP; a skip (4) without /dev/kvm."""
    t_start = time.monotonic()
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as e:
        # kselftest's exit code for a skip; the runner reports it (and
        # KMP_REQUIRE_KVM=1 turns it into a failure).
        print("TAP version 13\n1..0\n# no usable /dev/kvm (%s): nothing to inject faults into"
              % e.strerror)
        return 4
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.environ.pop("KMP_WATCHDOG_SEC", None)
    baseline = host_state()
    try:
        for group in groups:
            group(tmp, baseline)
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
    for s in summary:
        print("# " + s)
    print("# time: %.1f s" % (time.monotonic() - t_start))
    print("# %d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0
