#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every way a binary ends, usage errors aside, is valid KTAP (TAP::Parser).

Each benchmark passing on a tiny guest, skipping where no guest can run (as
user nobody: /dev/kvm is 0600 root) and failing there under KMP_REQUIRE_KVM=1,
skipping for a feature this host lacks
(tlbie_bench --flush hv, dirty_log_perf -n and a guest mode it lacks, all
decided while parsing options), and interrupted by SIGINT mid-run; a
harness test binary too.  Perl's TAP::Parser (the TAP 13 parser prove(1)
uses) must report no parse error, a plan matching the results, and counts
equal to the binary's own: one result, passed, skipped or failed as the
path says, and for a harness binary its "# Totals:" line.  Output is KTAP.
"""
import os
import re
import signal
import subprocess
import sys
import time

from kmp_testlib import BIN, ktap_report

PARSE = r'''
use TAP::Parser;
my $p = TAP::Parser->new({ tap => do { local $/; <STDIN> } });
while (my $r = $p->next) { }
my @err = $p->parse_errors;
printf "plan=%s run=%d passed=%d skipped=%d failed=%d errors=%s\n", $p->plan // "",
       $p->tests_run, scalar($p->passed) - scalar($p->skipped), scalar($p->skipped),
       scalar($p->failed), join(" | ", @err);
'''
TINY = {"dirty_log_perf": ["-b", "4M", "-i", "2"], "demand_paging": ["-b", "4M"],
        "zap_latency": ["-v", "1", "-b", "4M", "-i", "1", "--traced", "0"],
        "tlbie_bench": ["-t", "1"]}
LONG = {"dirty_log_perf": ["-b", "64M", "-i", "100000"],
        "demand_paging": ["-b", "16M", "-u", "MISSING", "--sweep-vcpus", "1,2", "--repeat", "50"],
        "zap_latency": ["-v", "1", "-b", "16M", "-i", "100000", "--traced", "0"],
        "tlbie_bench": ["-t", "60"]}
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
results = []


def parse(out):
    res = subprocess.run(["perl", "-e", PARSE], input=out, capture_output=True, text=True)
    m = re.match(r"plan=(\S*) run=(\d+) passed=(\d+) skipped=(\d+) failed=(\d+) errors=(.*)",
                 res.stdout)
    if not m:
        return None, "TAP::Parser said: %s %s" % (res.stdout, res.stderr)
    return {"plan": m[1], "run": int(m[2]), "pass": int(m[3]), "skip": int(m[4]),
            "fail": int(m[5]), "errors": m[6].strip()}, None


def judge(name, out, want):
    """want: {"pass": n, "skip": n, "fail": n}; the plan must count them all."""
    got, err = parse(out)
    problems = [err] if err else []
    if got:
        if got["errors"]:
            problems.append("parse errors: " + got["errors"])
        n = sum(want.values())
        if got["plan"] != "1..%d" % n or got["run"] != n:
            problems.append("plan %s, %d results, want 1..%d" % (got["plan"], got["run"], n))
        for k, v in want.items():
            if got[k] != v:
                problems.append("%d %s, want %d" % (got[k], k, v))
    if problems:
        problems += ["  | " + l for l in out.splitlines()[-8:]]
    results.append((name, problems))


def run(argv, timeout=120):
    res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return res.returncode, res.stdout


def interrupted(tool):
    p = subprocess.Popen([os.path.join(BIN, tool)] + LONG[tool], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    return p.returncode, out


def main():
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as e:
        print("TAP version 13\n1..0 # SKIP no usable /dev/kvm (%s): the passing and "
              "interrupted paths need guests" % e.strerror)
        return 4
    env = dict(os.environ)
    env.pop("KSFT_TAP_LEVEL", None)
    os.environ.clear()
    os.environ.update(env)
    for tool in TINY:
        b = os.path.join(BIN, tool)
        rc, out = run([b] + TINY[tool])
        judge("%s %s: passes (exit %d)" % (tool, " ".join(TINY[tool]), rc), out, {"pass": 1})
        rc, out = interrupted(tool)
        judge("%s interrupted by SIGINT (exit %d)" % (tool, rc), out, {"fail": 1})
        if os.geteuid() == 0:
            rc, out = run(NOBODY + ["env", "KMP_REQUIRE_KVM=0", b] + TINY[tool])
            judge("%s as nobody, no /dev/kvm access: skips (exit %d)" % (tool, rc), out,
                  {"skip": 1})
            rc, out = run(NOBODY + ["env", "KMP_REQUIRE_KVM=1", b] + TINY[tool])
            judge("%s as nobody under KMP_REQUIRE_KVM=1: fails (exit %d)" % (tool, rc), out,
                  {"fail": 1})
    for tool, args in (("tlbie_bench", ["-t", "1", "--flush", "hv"]),
                       ("dirty_log_perf", ["-b", "4M", "-n"]),
                       ("dirty_log_perf", ["-b", "4M", "-m", "1"])):
        rc, out = run([os.path.join(BIN, tool)] + args)
        judge("%s %s: skips while parsing options (exit %d)" % (tool, " ".join(args), rc),
              out, {"skip": 1})
    rc, out = run([os.path.join(BIN, "smoke_basic")])
    m = re.search(r"^# Totals: pass:(\d+) fail:(\d+) xfail:\d+ xpass:\d+ skip:(\d+)", out, re.M)
    want = {"pass": int(m[1]), "fail": int(m[2]), "skip": int(m[3])} if m else {"pass": -1}
    judge("smoke_basic (the kselftest harness): counts equal its # Totals", out, want)

    return ktap_report(results)


if __name__ == "__main__":
    sys.exit(main())
