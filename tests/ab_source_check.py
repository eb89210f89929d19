#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""run.sh ab from kernel source (KTAP), make check-ab-source.

Seed 004's pair on x86_64: Debian's linux-source-6.12 built as A, and with
patches/seed-004-no-batch-zap.patch as B, each booted as the emulated AMD
host under icount with the legacy MMU over NPT, running a small zap_latency.
- Both sides pass, every record says KVM used the legacy MMU (ab checks
  host.mmu against --mmu, in compare), zaps shadow pages, and counts lock breaks with
  kretprobes; the records name their source, patch (sha256) and config.
- Run again, nothing is built, and the figures repeat by make check-ab's
  rule (timings within 1%, counts equal).
- The kernel-report check's negative control: tests/controls/ adds a
  WARN_ON_ONCE(1) on KVM_SET_USER_MEMORY_REGION as side B; ab must exit
  non-zero, naming side B and quoting the WARNING, with side A clean.
- Bad input that needs the source: a patch that does not apply (named with
  its hunk), a config option Kconfig drops (named), and a build that fails
  (exit 1, the log's end and its path, nothing left that looks built).
With --cross (make check-ab-source-cross, outside CI): arm64 and powerpc,
linux-source-6.12 cross-built and booted as each arch's emulated host.
Exit status: 0 when all passed, 1 otherwise.
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import RUN_SH, SRC, run_steps  # noqa: E402
from ab_repeat_check import compare_figures, records  # noqa: E402

PATCH = os.path.join(SRC, "patches", "seed-004-no-batch-zap.patch")
CACHE = os.path.join(SRC, "build", "x86_64", "emu-ab")
AB = ["--kernel", "linux-source-6.12", "--patch", PATCH, "--mmu", "legacy-npt",
      "-t", "ab-repeat-zap", "--smp", "1", "--repeat", "1"]


def ab(args, res):
    r = subprocess.run([RUN_SH, "ab"] + args + ["--results", res], capture_output=True,
                       text=True, timeout=7200)
    sys.stdout.write("".join("# " + l + "\n" for l in r.stderr.splitlines()
                             if l.startswith("kernel-build:")))
    return r, r.stdout + r.stderr


def sides(res):
    run = glob.glob(os.path.join(res, "*-ab-*"))
    return [records(os.path.join(run[0], s)) if run else {} for s in ("A", "B")]


def pair_checks(recs, out):
    problems = []
    sha = hashlib.sha256(open(PATCH, "rb").read()).hexdigest()
    for side, rs in zip("AB", recs):
        if not rs:
            problems.append("side %s: no records" % side)
        for name, rec in rs.items():
            host, figs = rec.get("host", {}), rec.get("figures", {})
            emu = host.get("emulated", "")
            if rec.get("status") != "pass":
                problems.append("%s %s: status %s" % (side, name, rec.get("status")))
            if host.get("mmu") != "legacy tdp":
                problems.append("%s %s: host.mmu %r, not the legacy MMU" % (side, name,
                                                                             host.get("mmu")))
            if (figs.get("mmu_shadow_zapped") or {}).get("value", 0) <= 0:
                problems.append("%s %s: no shadow page zapped" % (side, name))
            if (figs.get("lock_breaks") or {}).get("value") is None:
                problems.append("%s %s: lock breaks not counted (kretprobes)" % (side, name))
            if "built from package linux-source-6.12" not in emu or \
                    not re.search(r"config sha256 [0-9a-f]{64}", emu) or \
                    (("patch seed-004-no-batch-zap.patch sha256 " + sha) in emu) != (side == "B"):
                problems.append("%s %s: provenance missing or wrong in %r" % (side, name, emu))
    if "NEW adds patch seed-004-no-batch-zap.patch sha256 %s" % sha not in out:
        problems.append("compare does not say NEW adds the patch (with its sha256)")
    if "but the folder asked for --mmu" in out:
        problems.append("compare says a side ran another MMU")
    return problems


def bad_builds(tmp, results):
    before = sorted(os.listdir(CACHE))
    stale = os.path.join(tmp, "stale.patch")
    with open(PATCH) as f:      # the same change, against a line that is not there
        text = f.read().replace("-#define BATCH_ZAP_PAGES\t10", "-#define BATCH_ZAP_PAGES\t99")
    with open(stale, "w") as f:
        f.write(text)
    r, out = ab(["--kernel", "linux-source-6.12", "--patch", stale, "-t", "ab-repeat-zap"],
                os.path.join(tmp, "r1"))
    results.append(("a patch that does not apply: exit 2, the file and its failed hunk named, "
                    "nothing built", [] if r.returncode == 2 and
                    "--patch '%s' does not apply" % stale in out and
                    "hunk #1 of arch/x86/kvm/mmu/mmu.c FAILED at line 6454" in out
                    and sorted(os.listdir(CACHE)) == before else out.splitlines()[-5:]))
    frag = os.path.join(tmp, "dropped.config")
    with open(frag, "w") as f:      # an option no Kconfig defines: always dropped
        f.write("CONFIG_KMP_NO_SUCH_OPTION=y\n")
    r, out = ab(["--kernel", "linux-source-6.12", "--kernel", "linux-source-6.12",
                 "--config", frag, "-t", "ab-repeat-zap"], os.path.join(tmp, "r2"))
    results.append(("a config option Kconfig drops: exit 2, the option named, nothing built",
                    [] if r.returncode == 2 and "CONFIG_KMP_NO_SUCH_OPTION=y" in out and
                    "did not set" in out and
                    not [d for d in os.listdir(CACHE) if d not in before]
                    else out.splitlines()[-5:]))
    broken = os.path.join(tmp, "broken.patch")
    with open(PATCH) as f:
        text = f.read().replace("+#define BATCH_ZAP_PAGES\t0",
                                "+#define BATCH_ZAP_PAGES\t0\n+#error kmp: a build that fails")
    text = text.replace("@@ -6454,7 +6454,7 @@", "@@ -6454,7 +6454,8 @@")
    with open(broken, "w") as f:
        f.write(text)
    r, out = ab(["--kernel", "linux-source-6.12", "--patch", broken, "-t", "ab-repeat-zap"],
                os.path.join(tmp, "r3"))
    new = [d for d in os.listdir(CACHE) if d not in before]
    results.append(("a build that fails: exit 1, the log's last lines and its path, moved "
                    "aside as failed-*, nothing that looks built",
                    [] if r.returncode == 1 and "the kernel build failed" in out and
                    "kmp: a build that fails" in out and "the whole log: " in out and
                    all(d.startswith("failed-") for d in new) and
                    not glob.glob(os.path.join(CACHE, "build-*.tmp"))
                    else ["rc %d, new %r" % (r.returncode, new)] + out.splitlines()[-8:]))
    for d in new:
        shutil.rmtree(os.path.join(CACHE, d), ignore_errors=True)


def warn_control(tmp, results):
    control = os.path.join(SRC, "tests", "controls", "warn-once-set-memory-region.patch")
    r, out = ab(["--kernel", "linux-source-6.12", "--patch", control, "--mmu", "legacy-npt",
                 "-t", "ab-repeat-zap", "--smp", "1", "--repeat", "1"], os.path.join(tmp, "control"))
    lines = out.splitlines()
    said = [i for i, l in enumerate(lines) if l.startswith("ab: side B (linux-source-6.12): "
                                                          "the kernel reported trouble")]
    quoted = lines[said[0] + 1] if said else ""
    problems = [] if r.returncode == 1 else ["exit %d" % r.returncode]
    if not re.match(r"  \| WARNING: CPU: \d+ PID: \d+ at \S*virt/kvm/kvm_main\.c:\d+ ", quoted):
        problems.append("side B's WARNING not quoted (next line: %r)" % quoted)
    if any(l.startswith("ab: side A") for l in lines):
        problems.append("side A reported too")
    results.append(("the WARN_ON_ONCE control as side B: ab exits 1, names side B and quotes "
                    "its WARNING from virt/kvm/kvm_main.c; side A is clean",
                    problems + ([] if not problems else lines[-12:])))


def cross(tmp, results):
    """arm64 and powerpc: linux-source-6.12 cross-built and booted as that arch's host."""
    for arch, mmu in (("arm64", "stage-2"), ("powerpc", "hpt")):
        res = os.path.join(tmp, arch)
        r, out = ab(["--arch", arch, "--kernel", "linux-source-6.12", "--kernel",
                     "linux-source-6.12", "-t", "ab-repeat-dlp"], res)
        problems = [] if r.returncode == 0 else ["exit %d" % r.returncode] + out.splitlines()[-10:]
        for side, rs in zip("AB", sides(res)):
            if not rs:
                problems.append("side %s: no records" % side)
            for name, rec in rs.items():
                host = rec.get("host", {})
                if rec.get("status") != "pass" or host.get("mmu") != mmu or \
                        "built from package linux-source-6.12" not in host.get("emulated", ""):
                    problems.append("%s %s: status %s, mmu %r, emulated %r" % (
                        side, name, rec.get("status"), host.get("mmu"), host.get("emulated")))
        results.append(("%s: linux-source-6.12 cross-built, booted as the emulated host, a tiny "
                        "dirty_log_perf passes on both sides" % arch, problems))


def pair(tmp, results):
    r, out = ab(AB, os.path.join(tmp, "first"))
    first = sides(os.path.join(tmp, "first"))
    results.append(("seed 004's pair from linux-source-6.12 and its patch: both sides pass "
                    "on the legacy MMU, zap shadow pages, count lock breaks, name their "
                    "source, patch and config",
                    ([] if r.returncode == 0 else ["exit %d" % r.returncode] +
                     out.splitlines()[-10:]) + pair_checks(first, out)))
    r, out = ab(AB, os.path.join(tmp, "again"))
    again = sides(os.path.join(tmp, "again"))
    problems = [] if r.returncode == 0 else ["exit %d" % r.returncode]
    if not all(first) or [sorted(x) for x in first] != [sorted(x) for x in again]:
        problems.append("records: first %r, again %r" % ([sorted(x) for x in first],
                                                         [sorted(x) for x in again]))
    # Each kernel found built (B's also when its patches are checked first), none configured.
    # The timer is not asserted: a loaded machine takes a second or more to hash the inputs.
    cached = set(re.findall(r"kernel-build: \[this build +\d+s, in all +\d+s\] cached: (\S+)", out))
    built = [l for l in out.splitlines() if "building bzImage" in l or "configuring:" in l]
    if built or len(cached) != 2:
        problems.append("a kernel was built again (builds found cached: %r; %r)" % (
            sorted(cached), built))
    worst = [0.0]
    for s in (0, 1):
        for name in sorted(set(first[s]) | set(again[s])):
            compare_figures("%s %s" % ("AB"[s], name),
                            first[s].get(name, {}).get("figures", {}),
                            again[s].get(name, {}).get("figures", {}), problems, worst)
    results.append(("run again: nothing built, and each side's figures repeat (timings "
                    "within 1%%, worst %.3f%%; counts equal)" % (100 * worst[0]), problems))


def main():
    cross_only = sys.argv[1:] == ["--cross"]
    return run_steps("kmp-ab-source-", (cross,) if cross_only else (pair, warn_control, bad_builds))


if __name__ == "__main__":
    sys.exit(main())
