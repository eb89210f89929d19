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

One KTAP test per option; every failing input is listed under it as a
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

TIME_LIMIT = 1.0


# ------------------------------------------------------------ values


def size_bad():
    return [("non-numeric", "abc"), ("negative", "-1"), ("overflow", "99999999999999999999G"),
            ("overflow", "18446744073709551616"), ("overflow after suffix", "17179869184G"),
            ("trailing junk", "12x"), ("unknown suffix", "4Q"), ("fraction", "1.5G"),
            ("blank", " 4M"), ("empty", "")]


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


def int_bad(lo, hi):
    kinds = [("non-numeric", "abc"), ("negative", "-1"), ("overflow", "99999999999999999999"),
             ("trailing junk", "12x"), ("fraction", "1.5"), ("sign", "+1"), ("blank", " 1"),
             ("empty", "")]
    if lo > 0:
        kinds.append(("zero" if lo == 1 else "below the minimum", str(lo - 1)))
    if hi is not None:
        kinds.append(("above the maximum", str(hi + 1)))
    return kinds


def enum_bad(valid):
    return [("unknown", "bogus"), ("empty", ""), ("wrong case", valid.swapcase()),
            ("trailing junk", valid + "x")]


CPUS_BAD = [("non-numeric", "abc"), ("negative", "-1"), ("empty", ""),
            ("CPU that does not exist", "0,9999"), ("CPU that does not exist", "0,100"),
            ("overflow", "99999999999999999999"), ("trailing junk", "12x"),
            ("listed twice", "0,0"), ("reversed range", "1-0"), ("empty item", "0,,1"),
            ("stride without range", "0:2")]

# (option, [(kind, value, args before the option, args after)], ...)
# A value of None means the option is given last, without its value.

M64 = "6148914691236517888"     # x 3 vCPUs wraps a 64-bit byte count around to 2048
U64_MAX = "18446744073709551615"


def opt(option, kinds, base=(), names=None, rc=2):
    cases = [(k, v, list(base), []) for k, v in kinds]
    cases.append(("missing value", None, list(base), []))
    return dict(option=option, cases=cases, names=names or [option], rc=rc)


def extra(spec, *cases):
    """Add (kind, value, before, after) cases to an option spec."""
    spec["cases"].extend(cases)
    return spec


def binary_specs(tmp):
    short_img = os.path.join(tmp, "short.img")
    with open(short_img, "wb") as f:
        f.write(b"\0" * 4096)
    dp_u = ["-u", "MISSING"]
    return {
        "dirty_log_perf": [
            extra(opt("-b", size_bad() + [("zero", "0")]),
                  ("beyond the guest address space", "200T", [], []),
                  ("overflow with -v 3", M64, ["-v", "3"], []),
                  ("overflow when rounded to pages", U64_MAX, [], [])),
            opt("-c", CPUS_BAD),
            opt("-i", int_bad(2, 1000000) + [("zero", "0")]),
            extra(opt("-k", size_bad() + [("zero", "0")]),
                  ("not a multiple of 256K", "100K", [], [])),
            opt("-l", int_bad(0, 3600000)),
            opt("-m", int_bad(0, 15)),
            extra(opt("-p", int_bad(1, 4503599627370495)),
                  ("below the code and data slot", "0x1000", [], []),
                  ("not fitting the address space", "0x7fffffff0000", [], []),
                  ("not a multiple of the backing's page", "0x100001000",
                   ["-s", "anonymous_hugetlb_2mb"], [])),
            opt("-r", int_bad(0, 4294967295)),
            opt("-s", enum_bad("anonymous") + [("unknown size", "anonymous_hugetlb_4mb")]),
            opt("-v", int_bad(1, 1024)),
            opt("-w", int_bad(0, 100)),
            extra(opt("-x", int_bad(1, 511)),
                  ("more memslots than pages", "2", ["-b", "4K"], []),
                  ("pages not split evenly", "3", ["-b", "4M"], []),
                  ("pages not split evenly, many slots", "511", ["-b", "4M"], [])),
            extra(opt("--ring", int_bad(1, 1 << 30)),
                  ("not a power of two", "3", [], []),
                  ("below the ring minimum", "128", [], []),
                  ("above the ring maximum", "131072", [], [])),
            opt("--json", [("empty", "")], base=["-b", "4M", "-i", "2"]),
            dict(option="--age", names=["--age"], rc=2, cases=[
                ("without -j", None, [], []),
                ("on a hugetlb backing", None, ["-j", "-s", "anonymous_hugetlb_2mb"], [])]),
        ],
        "demand_paging": [
            extra(opt("-b", size_bad() + [("zero", "0")]),
                  ("beyond the guest address space", "200T", [], []),
                  ("overflow with -v 3", M64, ["-v", "3"], []),
                  ("overflow when rounded to pages", U64_MAX, [], []),
                  ("not whole 2M pages per uffd", "3M", ["-s", "anonymous_hugetlb_2mb",
                                                         "-u", "MISSING"], []),
                  ("not whole 2M pages per uffd, MINOR", "3M", ["-s", "shared_hugetlb",
                                                                "-u", "MINOR"], [])),
            opt("-c", CPUS_BAD),
            opt("-d", int_bad(0, 10000000), base=dp_u),
            opt("-m", int_bad(0, 15)),
            opt("-r", int_bad(1, 256), base=dp_u),
            opt("-s", enum_bad("anonymous")),
            extra(opt("-u", enum_bad("MISSING")),
                  ("MINOR on a private source", "MINOR", [], [])),
            opt("-v", int_bad(1, 1024)),
            extra(opt("--source", enum_bad("pattern"), base=dp_u + ["-b", "4M"]),
                  ("file: without a path", "file:", dp_u + ["-b", "4M"], []),
                  ("file that does not exist", "file:/nonexistent/kmp.img", dp_u + ["-b", "4M"], []),
                  ("file shorter than guest memory", "file:" + short_img, dp_u + ["-b", "4M"], []),
                  ("a directory", "file:" + tmp, dp_u + ["-b", "4M"], [])),
            opt("--write-image", [("empty", ""), ("folder that does not exist",
                                                  "/nonexistent/kmp/x.img")],
                base=["-b", "4M"], rc=(1, 2)),
            opt("--sweep-vcpus", [("non-numeric", "abc"), ("negative", "-1"), ("empty", ""),
                                  ("zero", "0"), ("above the maximum", "1025"),
                                  ("overflow", "99999999999999999999"),
                                  ("trailing junk", "1,2x"), ("reversed range", "2-1"),
                                  ("empty item", "1,,2")]),
            extra(opt("--repeat", int_bad(1, 1000)),
                  ("without --sweep-vcpus", "3", [], [])),
            opt("--json", [("empty", "")], base=["-b", "4M"]),
        ],
        "zap_latency": [
            extra(opt("-b", size_bad() + [("zero", "0")]),
                  ("below 1M per vCPU", "512K", ["-v", "2"], []),
                  ("less than one 1G page, naming -b not -x", "4M",
                   ["-s", "anonymous_hugetlb_1gb"], []),
                  ("beyond the guest address space", "200T", ["-v", "2"], []),
                  ("overflow when rounded to pages", U64_MAX, ["-v", "1"], [])),
            opt("-c", CPUS_BAD),
            opt("-i", int_bad(1, 100000)),
            opt("-s", enum_bad("anonymous")),
            opt("-v", int_bad(1, 1024)),
            opt("--trigger", enum_bad("delete")),
            opt("--zap-all", enum_bad("on")),
            opt("--json", [("empty", "")], base=["-v", "1", "-b", "4M", "-i", "1"]),
        ],
        "tlbie_bench": [
            opt("-c", CPUS_BAD),
            opt("-t", int_bad(1, 86400)),
            opt("-v", int_bad(1, 1024)),
            extra(opt("--pages", int_bad(1, 512)),
                  ("too many for --shared", "200", ["-v", "4", "--shared"], [])),
            opt("--flush", enum_bad("page")),
            opt("--json", [("empty", "")], base=["-t", "1"]),
        ],
    }


PROBE_CFG = """\
# Sections whose requirement is never met: run.sh skips them without
# starting a benchmark, whatever it is asked to do.
[probe]
file = tlbie_bench
args = -v 1 -t 1
groups = probe
requires = hugetlb:1G:100000
timeout = 5

[probe-dlp]
file = dirty_log_perf
args = -v 1 -b 4M -i 2
groups = probe
requires = hugetlb:1G:100000
timeout = 5
"""


def run_sh_specs(tmp):
    a_file = os.path.join(tmp, "a-file")
    empty_dir = os.path.join(tmp, "empty-dir")
    open(a_file, "w").close()
    os.makedirs(empty_dir, exist_ok=True)
    ro = "ro"       # marks cases run with / read-only
    sweep = ["sweep", "probe", "--vary", "vcpus=1"]
    repeat_kinds = int_bad(1, None)
    results_kinds = [("empty", "", ro), ("cannot be created", "/proc/kmp-nope/results", ro),
                     ("a regular file", a_file, ro)]
    vary = [("empty", ""), ("no '='", "vcpus"), ("unknown variable", "foo=1"),
            ("no values", "vcpus="), ("non-numeric", "vcpus=abc"), ("zero", "vcpus=0"),
            ("negative", "vcpus=-1"), ("overflow", "vcpus=99999999999999999999"),
            ("trailing junk", "vcpus=12x"), ("empty item", "vcpus=1,,2"),
            ("trailing junk", "chunk=12x"), ("zero", "chunk=0")]
    tree = os.path.join(tmp, "kernel-tree")       # a build tree without KVM's modules
    os.makedirs(os.path.join(tree, "arch", "x86", "boot"), exist_ok=True)
    open(os.path.join(tree, "arch", "x86", "boot", "bzImage"), "w").close()
    with open(os.path.join(tree, ".config"), "w") as f:
        f.write("CONFIG_KVM=m\nCONFIG_KVM_AMD=m\n")
    fake_deb = os.path.join(tmp, "linux-image-fake.deb")
    with open(fake_deb, "w") as f:
        f.write("not a package\n")
    ab = ["ab", "-t", "probe"]
    return [
        dict(option="ab --kernel", names=["--kernel"], cases=[
            ("empty", "", ab + ["--kernel"], ["--kernel", empty_dir]),
            ("missing value", None, ab + ["--kernel"], []),
            ("only one kernel", empty_dir, ab + ["--kernel"], []),
            ("a third kernel", "/nonexistent/kmp-third", ab + ["--kernel", empty_dir, "--kernel",
                                                               empty_dir, "--kernel"], []),
            ("does not exist", "/nonexistent/kmp-kernel", ab + ["--kernel"],
             ["--kernel", "/nonexistent/kmp-kernel"]),
            ("a regular file", a_file, ab + ["--kernel"], ["--kernel", a_file]),
            ("a .deb that is no package", fake_deb, ab + ["--kernel"], ["--kernel", fake_deb]),
            ("a package name with a space", "linux-image-6.1 x", ab + ["--kernel"],
             ["--kernel", empty_dir]),
            ("a tree without bzImage", empty_dir, ab + ["--kernel"], ["--kernel", empty_dir]),
            ("a tree without KVM's modules", tree, ab + ["--kernel"], ["--kernel", tree])]),
        dict(option="ab --mmu", names=["--mmu"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--mmu"], [])
            for k, v in (("empty", ""), ("unknown MMU", "ept"), ("upper case", "TDP"))]),
        dict(option="ab --arch", names=["--arch"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--arch"], [])
            for k, v in (("empty", ""), ("unknown arch", "sparc"), ("uname's name", "aarch64"),
                         ("missing value", None))]),
        dict(option="ab --arch arm64 --mmu", names=["--mmu"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--arch", "arm64",
                         "--mmu"], [])
            for k, v in (("x86's MMU", "tdp"), ("POWER's MMU", "hpt"))]),
        dict(option="ab --smp", names=["--smp"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--smp"], [])
            for k, v in int_bad(1, 8)]),
        dict(option="-g", names=["-g", "group"], cases=[
            ("empty", "", ["-g"], []), ("unknown group", "nosuch", ["-g"], []),
            ("missing value", None, ["-g"], [])]),
        dict(option="-t", names=["-t", "section"], cases=[
            ("empty", "", ["-t"], []), ("unknown section", "nosuch", ["-t"], []),
            ("missing value", None, ["-t"], [])]),
        dict(option="--repeat", names=["--repeat"], cases=[
            (k, v, ["-g", "probe", "--repeat"], []) for k, v in repeat_kinds] + [
            ("missing value", None, ["-g", "probe", "--repeat"], [])]),
        dict(option="--results", names=["--results"], cases=[
            (k, v, ["-g", "probe", "--results"], [], r) for k, v, r in results_kinds] + [
            ("missing value", None, ["-g", "probe", "--results"], [])]),
        dict(option="compare BASE NEW", names=["compare"], cases=[
            ("BASE does not exist", "/nonexistent/kmp-base", ["compare"], [empty_dir]),
            ("NEW does not exist", "/nonexistent/kmp-new", ["compare", empty_dir], []),
            ("empty", "", ["compare"], [""]),
            ("BASE is a file", a_file, ["compare"], [empty_dir]),
            ("not a results folder", empty_dir, ["compare"], [empty_dir]),
            ("missing NEW", None, ["compare", empty_dir], [])]),
        dict(option="sweep TEST", names=["sweep", "section", "-t"], cases=[
            ("unknown section", "nosuch", ["sweep"], ["--vary", "vcpus=1"]),
            ("empty", "", ["sweep"], ["--vary", "vcpus=1"]),
            ("missing value", None, ["sweep"], [])]),
        dict(option="sweep --vary", names=["--vary"], cases=[
            (k, v, ["sweep", "probe-dlp" if v.startswith("chunk") else "probe", "--vary"], [])
            for k, v in vary] + [("missing value", None, ["sweep", "probe", "--vary"], [])]),
        dict(option="sweep --repeat", names=["--repeat"], cases=[
            (k, v, sweep + ["--repeat"], []) for k, v in repeat_kinds] + [
            ("missing value", None, sweep + ["--repeat"], [])]),
        dict(option="sweep --results", names=["--results"], cases=[
            (k, v, sweep + ["--results"], [], r) for k, v, r in results_kinds] + [
            ("missing value", None, sweep + ["--results"], [])]),
    ]


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


def main():
    tmp = tempfile.mkdtemp(prefix="kmp-bad-input-")
    results_dir = os.path.join(tmp, "results")
    cfg_dir = os.path.join(tmp, "cfg")
    os.makedirs(cfg_dir)
    os.makedirs(results_dir)
    with open(os.path.join(cfg_dir, "probe.cfg"), "w") as f:
        f.write(PROBE_CFG)
    env = dict(os.environ, KMP_BIN=BIN, KMP_RESULTS=results_dir, KMP_CONFIGS=cfg_dir)
    env.pop("KMP_WATCHDOG_SEC", None)

    tests = []      # (name, [diagnostic lines])
    notes = []      # printed, not failures
    nr_inputs = 0
    t_start = time.monotonic()
    baseline = host_state(full=False)
    ro_ok = subprocess.run(RO_ROOT + ["true"], capture_output=True).returncode == 0
    no_kvm = kvm_unusable()

    specs = [(tool, [os.path.join(BIN, tool)], s)
             for tool, lst in binary_specs(tmp).items() for s in lst]
    specs += [("run.sh", [RUN_SH], s) for s in run_sh_specs(tmp)]

    for tool, cmd, spec in specs:
        diags = []
        option = spec["option"]
        for case in spec["cases"]:
            kind, value, before_args, after_args = case[:4]
            ro = len(case) > 4 and case[4] == "ro"
            if tool == "run.sh":
                args = before_args + ([] if value is None else [value]) + after_args
            else:
                args = before_args + [option] + ([] if value is None else [value]) + after_args
            argv = cmd + args
            if ro:
                if not ro_ok:
                    notes.append("cannot make / read-only in a mount namespace: '%s' not tried"
                                 % " ".join(map(shell_quote, args)))
                    continue
                argv = RO_ROOT + argv
            nr_inputs += 1
            results_before = sorted(os.listdir(results_dir))
            jdir, case_env = journaled(tmp, env)
            rc, out, elapsed, hung = run(argv, case_env)
            if no_kvm and (tool, option, kind) in KVM_LIMITS:
                problems = [] if rc == 4 and "/dev/kvm" in out else [
                    "exit %s without /dev/kvm, want 4 (a skip naming it)" % rc]
                if not problems:
                    notes.append("%s %s (%s): KVM's limit, a skip without /dev/kvm" % (
                        tool, " ".join(map(shell_quote, args)), kind))
            else:
                problems = check_case(spec.get("rc", 2), spec["names"], value, rc, out,
                                      elapsed, hung)
            # A bad input changes nothing, so its journal stays empty; what
            # it did journal must be undone.  Other processes' changes are notes.
            made = ["%s %s" % (c["kind"], c["path"]) for c in journal_changes(jdir)]
            if made:
                problems.append("changed the host before the error: " + ", ".join(made))
            found, said = journal_check(jdir, baseline, out)
            problems += ["host: " + p for p in found]
            notes += ["during '%s %s': %s" % (tool, " ".join(map(shell_quote, args)), n)
                      for n in said]
            new_results = sorted(set(os.listdir(results_dir)) - set(results_before))
            if new_results:
                problems.append("created results folder(s) " + ", ".join(new_results))
                for d in new_results:
                    shutil.rmtree(os.path.join(results_dir, d), ignore_errors=True)
            if problems:
                lines = out.splitlines()
                diags.append("%s %s (%s): %s" % (tool, " ".join(map(shell_quote, args)), kind,
                                                 "; ".join(problems)))
                for l in lines[:1] if len(lines) == 1 else (lines[:2] + ["..."] + lines[-2:]
                                                            if len(lines) > 4 else lines):
                    diags.append("  | " + sanitize(l))
        tests.append(("%s %s: bad values are one-line usage errors" % (tool, option), diags))

    print("TAP version 13")
    print("1..%d" % len(tests))
    failed = 0
    for i, (name, diags) in enumerate(tests, 1):
        for d in diags:
            print("# " + d)
        if diags:
            failed += 1
        print("%sok %d %s" % ("not " if diags else "", i, name))
    for n in notes:
        print("# note: " + n)
    print("# inputs tried: %d" % nr_inputs)
    print("# time: %.1f s" % (time.monotonic() - t_start))
    print("# %d passed, %d failed" % (len(tests) - failed, failed))
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
