#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every option of upstream 6.12's getopt strings, run here, means what it means there.

dirty_log_perf_test takes "ab:c:eghi:m:nop:r:s:v:x:w:" and demand_paging_test
"ahom:u:d:b:s:v:c:r:".  For each letter this runs the binary with it on a
tiny guest and checks, from the run's record, the guest memory size, the
vCPU regions and the test memory's placement against upstream's rule for
that option (tools/testing/selftests/kvm/lib/memstress.c):

- guest memory is -v x -b, with -o too;
- without -o vCPU i walks -b bytes from gpa + i x -b; with -o every vCPU
  walks all -v x -b bytes from gpa;
- gpa is the arch's place (docs/library.md), or -p's offset;
- -x splits that memory across -x memslots without changing it;
- every other option leaves the layout alone and shows in the record's
  params (or, for -h and -n, in what the binary prints and its exit code).

The layout comes from the record's "layout", which the binary reads back
from the arguments the guest itself runs with.  Output is KTAP.
"""
import json
import os
import subprocess
import sys
import tempfile

from kmp_testlib import BIN, ktap_report

MIB = 1 << 20
B = 2 * MIB                 # -b of every run: small, so 29 guests take seconds
KSFT_SKIP = 4
results = []                # (name, problems)


def report(name, problems):
    results.append((name, problems))


def run(tool, args, tmp):
    """Run tool with args and a record: (returncode, output, record or None)."""
    path = os.path.join(tmp, "%s.json" % tool)
    if os.path.exists(path):
        os.unlink(path)
    try:
        res = subprocess.run([os.path.join(BIN, tool)] + args + ["--json", path],
                             capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timed out after 120 s", None
    rec = None
    if os.path.exists(path):
        with open(path) as f:
            rec = json.load(f)
    return res.returncode, res.stdout + res.stderr, rec


def layout_problems(layout, vcpus, vcpu_bytes, overlap, gpa=None, slots=1):
    """Upstream's memstress rule for the memory size, vCPU regions and placement."""
    p = []
    page = layout["page_bytes"]
    total = vcpus * vcpu_bytes
    if layout["bytes"] != total:
        p.append("guest memory %d bytes, upstream's -v x -b is %d" % (layout["bytes"], total))
    if gpa is not None and layout["gpa"] != gpa:
        p.append("test memory at 0x%x, expected 0x%x" % (layout["gpa"], gpa))
    if layout["slots"] != slots:
        p.append("%d memslots, expected %d" % (layout["slots"], slots))
    if len(layout["vcpu_gpa"]) != vcpus:
        p.append("%d vCPU regions for %d vCPUs" % (len(layout["vcpu_gpa"]), vcpus))
    for i, (start, pages) in enumerate(zip(layout["vcpu_gpa"], layout["vcpu_pages"])):
        want_start = layout["gpa"] if overlap else layout["gpa"] + i * vcpu_bytes
        want_pages = (total if overlap else vcpu_bytes) // page
        if (start, pages) != (want_start, want_pages):
            p.append("vCPU %d walks %d pages from 0x%x; upstream's %s: %d from 0x%x"
                     % (i, pages, start, "-o" if overlap else "partition", want_pages,
                        want_start))
    return p


def default_gpa(tool, tmp):
    rc, out, rec = run(tool, ["-v", "1", "-b", str(B)] + (["-i", "2"] if tool ==
                                                        "dirty_log_perf" else []), tmp)
    if rc != 0 or not rec:
        raise RuntimeError("%s with defaults failed (rc %s):\n%s" % (tool, rc, out[-2000:]))
    lay = rec["layout"] if tool == "dirty_log_perf" else rec["runs"][0]["layout"]
    return lay["gpa"], rec["params"]["guest_mode"]


def supported_modes(tool):
    """(supported, unsupported) guest mode IDs, from -h's list."""
    out = subprocess.run([os.path.join(BIN, tool), "-h"], capture_output=True,
                         text=True).stdout
    sup, unsup = [], []
    for line in out.split(" guest modes:")[-1].splitlines():
        head = line.strip().split(":", 1)[0]
        if head.isdigit():
            (sup if "(supported)" in line else unsup).append(int(head))
    return sup, unsup


def option_case(tool, letter, args, tmp, base, check_rec=None, layout=None):
    """Run base + args; the layout as upstream's rule gives it, and check_rec's findings."""
    rc, out, rec = run(tool, base + args, tmp)
    problems = []
    if rc != 0 or not rec or rec.get("status") != "pass":
        problems.append("exit %s, status %s" % (rc, rec and rec.get("status")))
        problems += ["  " + l for l in out.splitlines()[-15:]]
    else:
        lay = rec["layout"] if tool == "dirty_log_perf" else rec["runs"][0]["layout"]
        problems += layout_problems(lay, **layout)
        if check_rec:
            problems += check_rec(rec, out)
    report("%s -%s (%s): upstream's meaning" % (tool, letter, " ".join(args)), problems)


def param_is(name, want):
    def check(rec, _out):
        got = rec["params"].get(name)
        return [] if got == want else ["params.%s is %r, expected %r" % (name, got, want)]
    return check


def all_of(*checks):
    return lambda rec, out: [p for c in checks for p in c(rec, out)]


def touched(rec, out):
    """Lockstep: each of -i iterations walks every vCPU's pages once."""
    lay, it = rec["layout"], rec["params"]["iterations"]
    want = it * sum(lay["vcpu_pages"])
    got = rec["figures"]["pages_touched"]["value"]
    return [] if got == want else ["pages touched %s, expected %d" % (got, want)]


def guest_writes(seed, pages, iterations, percent):
    """The writes memstress_guest_code makes in order with -w: its xorshift32, per vCPU."""
    writes = []
    for idx, n in enumerate(pages):
        x = (seed * 2654435761 + idx + 1) & 0xffffffff or 1
        w = 0
        for _ in range(iterations * n):
            x ^= (x << 13) & 0xffffffff
            x ^= x >> 17
            x ^= (x << 5) & 0xffffffff
            w += x % 100 < percent
        writes.append(w)
    return sum(writes)


def reads_and_writes(rec, out):
    """-w 50: exactly the writes the guest's own generator decides, the rest reads."""
    for line in out.splitlines():
        if line.startswith("Total pages touched:"):
            nums = [int(t.strip(",()")) for t in line.replace(":", " ").split()
                    if t.strip(",()").isdigit()]
            total, reads, writes = nums[0], nums[1], nums[2]
            p = rec["params"]
            want = guest_writes(p["random_seed"], rec["layout"]["vcpu_pages"], p["iterations"],
                                p["write_percent"])
            if writes != want or reads + writes != total:
                return ["%s: want %d writes (the guest's generator, seed %d), reads the rest" % (
                    line, want, p["random_seed"])]
            return touched(rec, out)
    return ["no 'Total pages touched' line"]


def dirty_log_perf_cases(tmp):
    tool, base = "dirty_log_perf", ["-v", "2", "-b", str(B), "-i", "2"]
    gpa, mode = default_gpa(tool, tmp)
    part = dict(vcpus=2, vcpu_bytes=B, overlap=False, gpa=gpa)
    case = lambda letter, args, check=None, **lay: option_case(
        tool, letter, args, tmp, base, check, dict(part, **lay))
    case("a", ["-a"], all_of(param_is("random_access", True), touched))
    case("b", ["-b", str(4 * MIB)], touched, vcpu_bytes=4 * MIB)
    case("c", ["-c", "0,1"], param_is("cpus", [0, 1]))
    case("e", ["-e"], param_is("run_while_disabling", True))
    case("g", ["-g"], lambda rec, out: param_is("manual_protect", False)(rec, out) + (
        ["a clear step ran without manual protect"] if "clear dirty log time" in out else []))
    case("i", ["-i", "3"], all_of(param_is("iterations", 3), touched))
    case("o", ["-o"], touched, overlap=True)
    case("p", ["-p", hex(gpa + 4 * (1 << 30))], param_is("test_gpa", gpa + 4 * (1 << 30)),
         gpa=gpa + 4 * (1 << 30))
    # The seed really drives the guest's generator: its exact writes under -w.
    case("r", ["-r", "7", "-w", "50"], all_of(param_is("random_seed", 7), reads_and_writes))
    case("s", ["-s", "anonymous_thp"], param_is("backing_src", "anonymous_thp"))
    case("v", ["-v", "3"], touched, vcpus=3)
    case("x", ["-x", "2"], touched, slots=2)
    case("w", ["-w", "50"], all_of(param_is("write_percent", 50), reads_and_writes))
    mode_cases(tool, tmp, base, part, mode)
    help_and_nested(tool, tmp)


def dp_pages(rec, _out):
    """Upstream counts pages per vCPU walk: the sum of every vCPU's pages."""
    run0 = rec["runs"][0]
    want = sum(run0["layout"]["vcpu_pages"])
    got = run0["figures"]["pages"]["value"]
    return [] if got == want else ["pages %s, expected %d" % (got, want)]


def dp_delay(rec, _out):
    """-d 20: every fault waits its own 20 us (usleep sleeps at least that long)."""
    f = rec["runs"][0]["figures"]
    faults, delay = f["uffd_faults"]["value"], f["handler_delay_time"]["value"]
    p = param_is("delay_us", 20)(rec, _out)
    if not faults or delay < faults * 20000:
        p.append("handler delay %s ns over %s faults: less than 20 us each" % (delay, faults))
    return p


def demand_paging_cases(tmp):
    tool, base = "demand_paging", ["-v", "2", "-b", str(B)]
    gpa, mode = default_gpa(tool, tmp)
    part = dict(vcpus=2, vcpu_bytes=B, overlap=False, gpa=gpa)
    case = lambda letter, args, check=None, **lay: option_case(
        tool, letter, args, tmp, base, check, dict(part, **lay))
    case("a", ["-u", "MISSING", "-a"], all_of(param_is("one_uffd", True), dp_pages))
    case("o", ["-u", "MISSING", "-o"], dp_pages, overlap=True)
    case("u", ["-u", "MINOR", "-s", "shmem"], all_of(param_is("uffd_mode", "MINOR"), dp_pages))
    case("d", ["-u", "MISSING", "-d", "20"], dp_delay)
    case("b", ["-b", str(4 * MIB)], dp_pages, vcpu_bytes=4 * MIB)
    case("s", ["-s", "shmem"], param_is("backing_src", "shmem"))
    case("v", ["-v", "3"], dp_pages, vcpus=3)
    case("c", ["-c", "0,1"], param_is("cpus", [0, 1]))
    case("r", ["-u", "MISSING", "-r", "2"], param_is("readers", 2))
    mode_cases(tool, tmp, base, part, mode)
    help_and_nested(tool, tmp)


def mode_cases(tool, tmp, base, part, default_mode):
    """-m: each supported mode runs as itself; a mode this host lacks skips, saying why."""
    sup, unsup = supported_modes(tool)
    for m in sup:
        option_case(tool, "m", ["-m", str(m)], tmp, base,
                    lambda rec, out: [] if rec["params"]["guest_mode"] else ["no guest_mode"],
                    part if m == sup[0] else dict(part, gpa=None))
    if unsup:
        m = unsup[0]
        rc, out, _ = run(tool, base + ["-m", str(m)], tmp)
        ok = rc == KSFT_SKIP and ("guest mode %d" % m) in out and "not supported here" in out
        report("%s -m %d (a mode this host lacks): skips with the reason" % (tool, m),
               [] if ok else ["exit %s" % rc] + out.splitlines()[-5:])


def help_and_nested(tool, tmp):
    res = subprocess.run([os.path.join(BIN, tool), "-h"], capture_output=True, text=True)
    report("%s -h: usage on stdout, exit 0" % tool,
           [] if res.returncode == 0 and res.stdout.startswith("usage:") else
           ["exit %d" % res.returncode, res.stdout[:200]])
    if tool != "dirty_log_perf":
        return      # -n is dirty_log_perf_test's alone
    rc, out, _ = run(tool, ["-n", "-b", str(B)], tmp)
    report("%s -n: nested vCPUs skip with the reason" % tool,
           [] if rc == KSFT_SKIP and "nested" in out else ["exit %s" % rc] + out.splitlines()[-5:])


def main():
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as e:
        print("TAP version 13\n1..0 # SKIP no usable /dev/kvm (%s): no guest can run" % e.strerror)
        return KSFT_SKIP
    tmp = tempfile.mkdtemp(prefix="kmp-upstream-opts-")
    try:
        dirty_log_perf_cases(tmp)
        demand_paging_cases(tmp)
    except Exception:           # a crash is a failed test, not a traceback without KTAP
        import traceback
        report("the test itself ran to the end", traceback.format_exc().splitlines())
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return ktap_report(results)


if __name__ == "__main__":
    sys.exit(main())
