#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Bad-input matrix (KTAP): every option that takes a value, of every
benchmark binary and of run.sh, given malformed values of every kind that
applies (non-numeric, negative, zero or below the minimum, above the maximum,
overflow, trailing junk, fractions, signs, blanks, empty, missing, unknown
names, CPUs that do not exist, paths that do not exist, values that overflow
in combination with another option).

Each input must, within 1 s: exit 2 (a usage error; --write-image to a
missing folder may exit 1, it is an I/O error), print exactly one line on
stdout+stderr combined naming the option and the value as typed, not die of
a signal, start no guest (no "TAP version" in the output), and change nothing
on the host: each input runs with a crash journal of its own, kept
(KMP_JOURNAL_KEEP=1), which must stay empty (and whatever it holds must be
undone, kmp_testlib.journal_check); host-wide knobs such as the hugetlb pools
that another process on the host changed meanwhile are notes.  run.sh must
create no results folder.

--json PATH is checked only with an empty path here: a missing folder is
found out only when the record is written at the end of a run, so it is not
a usage error; faults_test.py checks that such a run fails clearly.

run.sh inputs that might make it write results run in a private mount
namespace where / is read-only (run.sh used to write into / when it could not
create the results folder), with KMP_CONFIGS pointing at sections whose
requirement is never met, so that no benchmark can start.

The inputs are in kmp_testinputs.py.  One KTAP test per option; every failing input is listed under it as a
diagnostic.  Exit status: 0 when every test passed, 1 otherwise.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import (BIN, RUN_SH, host_state, journal_changes, journal_check,  # noqa: E402
                         journaled)
from kmp_testinputs import PROBE_CFG, binary_specs, run_sh_specs  # noqa: E402

TIME_LIMIT = 1.0


# Inputs only KVM's own limits make bad (KVM_CAP_NR_MEMSLOTS, the dirty ring's
# largest size): without /dev/kvm they skip, saying so, instead.
KVM_LIMITS = {("dirty_log_perf", "-x", "above the maximum"),
              ("dirty_log_perf", "--ring", "above the ring maximum")}


def kvm_unusable():
    """Why /dev/kvm cannot be opened, or None."""
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
        return None
    except OSError as e:
        return e.strerror


# ------------------------------------------------------------ running

RO_ROOT = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
           'mount -o remount,bind,ro / && exec "$@"', "sh"]


def shell_quote(a):
    return "'%s'" % a if not a or any(c in a for c in " \t'\"$\\") else a


def sanitize(line):
    """Quote a line of program output as a diagnostic that KTAP parsers ignore."""
    return line.replace("# SKIP", "[SKIP]").replace("\t", " ")[:200]


def run(argv, env, timeout=TIME_LIMIT):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env, start_new_session=True)
    hung = False
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        hung = True
        # Ctrl-C first: a benchmark then gives the host back what it changed.
        try:
            os.killpg(p.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        try:
            out, _ = p.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
    return p.returncode, out.decode(errors="replace"), time.monotonic() - t0, hung


def check_case(rc_want, names, value, rc, out, elapsed, hung):
    """Problems with one input's outcome, as short phrases."""
    problems = []
    lines = out.splitlines()
    if hung:
        problems.append("still running after %.1f s (interrupted)" % TIME_LIMIT)
    elif elapsed > TIME_LIMIT:
        problems.append("took %.2f s" % elapsed)
    if rc is not None and rc < 0:
        problems.append("died of signal %d" % -rc)
    elif not hung and rc not in (rc_want if isinstance(rc_want, tuple) else (rc_want,)):
        problems.append("exit %s, want %s" % (rc, rc_want))
    if any(l.startswith("TAP version") for l in lines):
        problems.append("started a guest (printed 'TAP version')")
    if len(lines) != 1:
        problems.append("%d lines of output, want 1" % len(lines))
    first = lines[0] if lines else ""
    text = out if len(lines) != 1 else first
    # getopt's own message names a short option as "-- 'b'".
    alias = ["-- '%s'" % n[1] for n in names if len(n) == 2 and n[0] == "-"]
    if not any(n in text for n in names + alias):
        problems.append("message does not name the option (%s)" % " or ".join(names))
    if value == "":
        if "''" not in text:
            problems.append("message does not show the empty value as ''")
    elif value is not None and value not in text:
        problems.append("message does not show the value '%s' as typed" % value)
    return problems


class Matrix:
    """Where the inputs run: the environment, the host's baseline, notes."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.results_dir = os.path.join(tmp, "results")
        cfg_dir = os.path.join(tmp, "cfg")
        os.makedirs(cfg_dir)
        os.makedirs(self.results_dir)
        with open(os.path.join(cfg_dir, "probe.cfg"), "w") as f:
            f.write(PROBE_CFG)
        self.env = dict(os.environ, KMP_BIN=BIN, KMP_RESULTS=self.results_dir,
                        KMP_CONFIGS=cfg_dir)
        self.env.pop("KMP_WATCHDOG_SEC", None)
        self.notes = []      # printed, not failures
        self.nr_inputs = 0
        self.baseline = host_state(full=False)
        self.ro_ok = subprocess.run(RO_ROOT + ["true"], capture_output=True).returncode == 0
        self.no_kvm = kvm_unusable()

    def spec_diags(self, tool, cmd, spec):
        """The diagnostic lines of every input of one option that failed."""
        diags = []
        for case in spec["cases"]:
            kind, value, before_args, after_args = case[:4]
            opt = [] if tool == "run.sh" else [spec["option"]]
            args = before_args + opt + ([] if value is None else [value]) + after_args
            argv = cmd + args
            if len(case) > 4 and case[4] == "ro":
                if not self.ro_ok:
                    self.notes.append("cannot make / read-only in a mount namespace: '%s' "
                                      "not tried" % " ".join(map(shell_quote, args)))
                    continue
                argv = RO_ROOT + argv
            self.nr_inputs += 1
            problems, out = self.try_input(tool, spec, kind, value, args, argv)
            if problems:
                lines = out.splitlines()
                diags.append("%s %s (%s): %s" % (tool, " ".join(map(shell_quote, args)), kind,
                                                 "; ".join(problems)))
                for l in lines[:1] if len(lines) == 1 else (lines[:2] + ["..."] + lines[-2:]
                                                            if len(lines) > 4 else lines):
                    diags.append("  | " + sanitize(l))
        return diags

    def try_input(self, tool, spec, kind, value, args, argv):
        """Run one input: its problems, and its output."""
        results_before = sorted(os.listdir(self.results_dir))
        jdir, case_env = journaled(self.tmp, self.env)
        rc, out, elapsed, hung = run(argv, case_env)
        quoted = "%s %s" % (tool, " ".join(map(shell_quote, args)))
        if self.no_kvm and (tool, spec["option"], kind) in KVM_LIMITS:
            problems = [] if rc == 4 and "/dev/kvm" in out else [
                "exit %s without /dev/kvm, want 4 (a skip naming it)" % rc]
            if not problems:
                self.notes.append("%s (%s): KVM's limit, a skip without /dev/kvm"
                                  % (quoted, kind))
        else:
            problems = check_case(spec.get("rc", 2), spec["names"], value, rc, out,
                                  elapsed, hung)
        # A bad input changes nothing, so its journal stays empty; what
        # it did journal must be undone.  Other processes' changes are notes.
        made = ["%s %s" % (c["kind"], c["path"]) for c in journal_changes(jdir)]
        if made:
            problems.append("changed the host before the error: " + ", ".join(made))
        found, said = journal_check(jdir, self.baseline, out)
        problems += ["host: " + p for p in found]
        self.notes += ["during '%s': %s" % (quoted, n) for n in said]
        new_results = sorted(set(os.listdir(self.results_dir)) - set(results_before))
        if new_results:
            problems.append("created results folder(s) " + ", ".join(new_results))
            for d in new_results:
                shutil.rmtree(os.path.join(self.results_dir, d), ignore_errors=True)
        return problems, out


def main():
    tmp = tempfile.mkdtemp(prefix="kmp-bad-input-")
    t_start = time.monotonic()
    m = Matrix(tmp)
    specs = [(tool, [os.path.join(BIN, tool)], s)
             for tool, lst in binary_specs(tmp).items() for s in lst]
    specs += [("run.sh", [RUN_SH], s) for s in run_sh_specs(tmp)]
    tests = [("%s %s: bad values are one-line usage errors" % (tool, spec["option"]),
              m.spec_diags(tool, cmd, spec)) for tool, cmd, spec in specs]

    print("TAP version 13")
    print("1..%d" % len(tests))
    failed = 0
    for i, (name, diags) in enumerate(tests, 1):
        for d in diags:
            print("# " + d)
        if diags:
            failed += 1
        print("%sok %d %s" % ("not " if diags else "", i, name))
    for n in m.notes:
        print("# note: " + n)
    print("# inputs tried: %d" % m.nr_inputs)
    print("# time: %.1f s" % (time.monotonic() - t_start))
    print("# %d passed, %d failed" % (len(tests) - failed, failed))
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
