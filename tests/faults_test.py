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

Items 4-7 (records that cannot be written, two runs at once, SIGKILL, a
stranger) are faults_host_test.py's; what both share, and how "the host is as
before" is checked, is tests/kmp_testfaults.py's.

Exit status: 0 when every test passed, 1 otherwise; 4 (skip) without /dev/kvm.
"""
import glob
import os
import random
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from kmp_testlib import NR_HUGEPAGES, journaled, read, write  # noqa: E402
from kmp_testfaults import (BANDS, CONFIGS, binary, check_host, excerpt,  # noqa: E402
                            last_step, report, run, run_faults, sanitize, schema_check, start,
                            strict_json, summary)

HUGEPAGES_1G = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
SEED = 20261130


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


def sigint_group(tmp, baseline):
    injected, finished, per_tool = sigint_tests(tmp, baseline)
    report("at least 20 runs really interrupted (%d; %d had finished)" % (injected, finished),
           [] if injected >= 20 else ["only %d" % injected],
           ["%s: %d" % kv for kv in sorted(per_tool.items())])
    summary.append("faults injected: %d" % injected)


if __name__ == "__main__":
    sys.exit(run_faults("kmp-faults-", [sigint_group, hugetlb_tests, watchdog_env_tests]))
