#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""run.sh ab repeats (KTAP): one kernel booted twice as an emulated x86_64
KVM host under QEMU icount, with one emulated vCPU, running run.sh's
ab-repeat group (a small dirty_log_perf and zap_latency run).  The kernel
is given as a developer's build tree would be (`--kernel TREE:MODPATH`): a
tree made of Debian's package, its bzImage and .config, and its KVM modules
as `make modules_install INSTALL_MOD_PATH=MODPATH` lays them out (.ko.xz).

Both sides must pass every run, on icount-paced hosts of one vCPU, and agree:
- every timing (a figure in ns, us, ms or s, or a rate per second), each
  value of it, within 1%;
- every count (pages, mappings, lock breaks, exits: any other unit) and every
  KVM stat delta of every phase, exactly;
and compare must say the figures are instruction-paced.

Then the other arches' hosts, each with Debian's kernel make check-ARCH
boots (--arch): arm64 under icount, held to the same rules; POWER, where
QEMU's powernv has no icount, in real time and "counts only": every count
equal, and compare prints no timing.

Then the kernels that cannot serve, each named in the error: a package apt
cannot fetch (a loud failure, no results folder), a build tree whose
bzImage does not boot (the console's last lines shown), and a kernel whose
KVM does not come up (kvm_amd refuses its parameter: no /dev/kvm).

The kernel is the Debian package make check-x86's 6.12 host boots (its cache
is reused), or KMP_AB_KERNEL.  Exit status: 0 when all passed, 1 otherwise.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import RUN_SH, SRC, ktap_report  # noqa: E402
RESULTS_PY = os.path.join(SRC, "scripts", "kmp_results.py")

TIME_UNITS = ("ns", "us", "\u00b5s", "ms", "s")
TOLERANCE = 0.01


# arch: (Debian architecture, kernel flavour, the cache make check-ARCH boots, its series).
ARCHES = {"x86_64": ("amd64", "amd64", "emu-6.12", "6.12"),
          "arm64": ("arm64", "arm64", "emu", None),
          "powerpc": ("ppc64el", "powerpc64le", "emu", None)}


def kernel(arch="x86_64"):
    if arch == "x86_64" and os.environ.get("KMP_AB_KERNEL"):
        return os.environ["KMP_AB_KERNEL"]
    deb_arch, flavour, cache, series = ARCHES[arch]
    cached = os.path.join(SRC, "build", arch, cache, "kernel-package")
    if os.path.exists(cached):
        with open(cached) as f:
            return f.read().strip()
    # fetch.sh's own choice: Debian 12's current package of the series.
    meta = "linux-image-%s%s" % (series + "-" if series else "", flavour)
    out = subprocess.run(["apt-cache", "depends", "%s:%s" % (meta, deb_arch)],
                         capture_output=True, text=True).stdout
    deps = [l.split()[-1].split(":")[0] for l in out.splitlines()
            if "Depends: linux-image-%s" % (series + "." if series else "") in l]
    return deps[0] if deps else meta


def results_dir(top, side):
    """The one result folder of a side of an ab folder."""
    found = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(top, side, "*",
                                                                         "summary.ktap")))
    return found[0] if found else os.path.join(top, side)


def records(side):
    out = {}
    for path in sorted(glob.glob(os.path.join(side, "*", "*.json"))):
        with open(path) as f:
            out[os.path.basename(path)] = json.load(f)
    return out


def is_timing(unit):
    """Times, rates, and ratios of times (demand_paging's handler shares)."""
    return unit in TIME_UNITS or "/s" in unit or unit == "ratio"


def compare_figures(name, fa, fb, problems, worst):
    for fig in sorted(set(fa) | set(fb)):
        a, b = fa.get(fig), fb.get(fig)
        if a is None or b is None:
            problems.append("%s: figure %s only on one side" % (name, fig))
            continue
        va = [a.get("value")] + list(a.get("values") or [])
        vb = [b.get("value")] + list(b.get("values") or [])
        if len(va) != len(vb):
            problems.append("%s: %s has %d values against %d" % (name, fig, len(va), len(vb)))
            continue
        unit = a.get("unit", "")
        for x, y in zip(va, vb):
            if x is None or y is None:
                if x is not y:
                    problems.append("%s: %s measured on one side only (%s against %s)"
                                    % (name, fig, x, y))
                continue
            if is_timing(unit):
                dev = abs(x - y) / abs(x) if x else (0.0 if y == x else float("inf"))
                worst[0] = max(worst[0], dev)
                if dev > TOLERANCE:
                    problems.append("%s: %s %s against %s %s: %.2f%% apart (at most 1%%)"
                                    % (name, fig, x, y, unit, 100 * dev))
            elif x != y:
                problems.append("%s: count %s %s against %s %s (must be equal)"
                                % (name, fig, x, y, unit))


def bad_kernels(tmp, k):
    """[(name, problems)] for kernels that cannot serve as a side."""
    results = []
    res = os.path.join(tmp, "bad")
    r = subprocess.run([RUN_SH, "ab", "--kernel", "linux-image-0.0.0-0-amd64", "--kernel", k,
                        "-g", "ab-repeat", "--results", res], capture_output=True, text=True,
                       timeout=600)
    out = r.stdout + r.stderr
    problems = [] if r.returncode != 0 else ["exit 0"]
    if "FAILED to fetch Debian package linux-image-0.0.0-0-amd64" not in out:
        problems.append("no line says 'FAILED to fetch Debian package linux-image-0.0.0-0-amd64'")
    if os.path.exists(res):
        problems.append("a results folder was made: " + res)
    results.append(("a package apt cannot fetch fails loudly, naming it, before any run",
                    problems + ([] if not problems else out.strip().splitlines()[-6:])))

    tree = os.path.join(tmp, "junk-tree")
    os.makedirs(os.path.join(tree, "arch", "x86", "boot"))
    os.makedirs(os.path.join(tree, "include", "config"))
    with open(os.path.join(tree, "arch", "x86", "boot", "bzImage"), "wb") as f:
        f.write(b"\0" * 4096)
    with open(os.path.join(tree, ".config"), "w") as f:
        f.write("CONFIG_BUG=y\nCONFIG_KVM=y\nCONFIG_KVM_AMD=y\n")
    with open(os.path.join(tree, "include", "config", "kernel.release"), "w") as f:
        f.write("6.99.0-junk\n")
    with open(os.path.join(tree, "modules.builtin"), "w") as f:     # as a build writes it
        f.write("".join("kernel/%s.ko\n" % m for m in (
            "virt/lib/irqbypass", "drivers/crypto/ccp/ccp", "arch/x86/kvm/kvm",
            "arch/x86/kvm/kvm-amd")))
    r = subprocess.run([RUN_SH, "ab", "--kernel", tree, "--kernel", k, "-g", "ab-repeat",
                        "--results", res], capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    problems = [] if r.returncode != 0 else ["exit 0"]
    if not any("never finished" in l and "build tree " + tree in l for l in out.splitlines()):
        problems.append("no line says the host (build tree %s) never finished" % tree)
    if not any(l.startswith("  | ") for l in out.splitlines()):
        problems.append("no console lines ('  | ...') shown")
    results.append(("a build tree whose bzImage does not boot: named, with the console's "
                    "last lines", problems + ([] if not problems else
                                              out.strip().splitlines()[-8:])))
    shutil.rmtree(res, ignore_errors=True)

    # kvm_amd refuses the value: the host boots without /dev/kvm.  The kernel
    # comes as a package file this time (apt-get download).
    debs = os.path.join(tmp, "debs")
    os.makedirs(debs)
    subprocess.run(["apt-get", "download", "-q", k], cwd=debs, capture_output=True)
    files = glob.glob(os.path.join(debs, "*.deb"))
    if not files:
        results.append(("a kernel whose KVM does not come up: named", ["apt-get download %s "
                                                                        "gave no file" % k]))
        return results
    cache = kernel_cache(files[0])
    env = dict(os.environ, KMP_EMU_MODPARAMS="kvm_amd.npt=bogus", KMP_EMU_SMP="1",
               KMP_EMU_NAME="x86_64/nokvm")
    env.pop("KMP_EMU_ICOUNT", None)
    r = subprocess.run([os.path.join(SRC, "scripts", "emu", "ab-side.sh"), "x86_64", cache, files[0],
                        os.path.join(tmp, "nokvm"), "600", "-g", "ab-repeat"],
                       capture_output=True, text=True, env=env, timeout=900)
    out = r.stdout + r.stderr
    problems = [] if r.returncode != 0 else ["exit 0"]
    origin = "(package file %s)" % os.path.basename(files[0])
    if not any("booted without KVM (no /dev/kvm)" in l and origin in l
               for l in out.splitlines()):
        problems.append("no line says the host %s booted without KVM" % origin)
    if not any(l.startswith("  | ") for l in out.splitlines()):
        problems.append("no console lines ('  | ...') shown")
    results.append(("a kernel (a package file) whose KVM does not come up: named, with the "
                    "console's last lines",
                    problems + ([] if not problems else out.strip().splitlines()[-8:])))
    return results


def kernel_cache(k):
    """The emulated host's cache of package k (scripts/emu/kernel.sh)."""
    return subprocess.run([os.path.join(SRC, "scripts", "emu", "kernel.sh"), "x86_64", k,
                           os.path.join(SRC, "build", "x86_64", "emu-ab")],
                          capture_output=True, text=True, check=True).stdout.strip()


def build_tree(tmp, cache):
    """TREE:MODPATH as a kernel build would leave them, made of the package in cache."""
    with open(os.path.join(cache, "kernel-package")) as f:
        kver = f.read().strip()[len("linux-image-"):]
    root = os.path.join(cache, "root")
    tree, mods = os.path.join(tmp, "linux"), os.path.join(tmp, "linux-mods")
    os.makedirs(os.path.join(tree, "arch", "x86", "boot"))
    shutil.copy(os.path.join(root, "boot", "vmlinuz-" + kver),
                os.path.join(tree, "arch", "x86", "boot", "bzImage"))
    shutil.copy(os.path.join(root, "boot", "config-" + kver), os.path.join(tree, ".config"))
    src = os.path.join(root, "lib", "modules", kver)
    dst = os.path.join(mods, "lib", "modules", kver)
    for d in ("arch/x86/kvm", "virt/lib", "drivers/crypto/ccp"):
        shutil.copytree(os.path.join(src, "kernel", d), os.path.join(dst, "kernel", d))
    shutil.copy(os.path.join(src, "modules.builtin"), dst)
    return "%s:%s" % (tree, mods)


def other_arch(tmp, arch, counts_only):
    """[(name, problems)]: one kernel of arch twice with run.sh ab --arch."""
    k = kernel(arch)
    res = os.path.join(tmp, "results-" + arch)
    r = subprocess.run([RUN_SH, "ab", "--arch", arch, "--kernel", k, "--kernel", k,
                        "-g", "ab-repeat", "--repeat", "1", "--results", res],
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    tops = glob.glob(os.path.join(res, "*"))
    what = "run.sh ab --arch %s (%s twice) -g ab-repeat" % (arch, k)
    if r.returncode != 0 or len(tops) != 1:
        return [(what + ": exit 0", ["exit %d" % r.returncode] + out.strip().splitlines()[-15:])]
    ra, rb = records(os.path.join(tops[0], "A")), records(os.path.join(tops[0], "B"))
    clock = "emulated, real time" if counts_only else "emulated, icount"
    problems = [] if set(ra) == set(rb) == {"ab-repeat-dlp.1.json"} else \
        ["records %s and %s, want ab-repeat-dlp.1.json on each side" % (sorted(ra), sorted(rb))]
    for label, recs in (("A", ra), ("B", rb)):
        for name, rec in recs.items():
            if rec["status"] != "pass" or rec["host"].get("clock") != clock or \
                    rec["host"].get("cpus") != 1:
                problems.append("%s %s: status %s, clock %r, %s CPUs; want pass, %r, 1" % (
                    label, name, rec["status"], rec["host"].get("clock"),
                    rec["host"].get("cpus"), clock))
    worst = [0.0]
    for name in sorted(set(ra) & set(rb)):
        fa, fb = ra[name].get("figures", {}), rb[name].get("figures", {})
        if counts_only:     # the real-time timings are not held to anything
            fa = {f: v for f, v in fa.items() if not is_timing(v.get("unit", ""))}
            fb = {f: v for f, v in fb.items() if not is_timing(v.get("unit", ""))}
        compare_figures(name, fa, fb, problems, worst)
    results = [(what + ": both sides passed on %s hosts of one vCPU; %s" % (
        clock, "counts equal" if counts_only else
        "timings within 1%% (the largest difference: %.4f%%), counts equal" % (100 * worst[0])),
        problems)]
    if counts_only:
        said = "# counts only:" in r.stdout and "counted figures:" in r.stdout
        timed = [l for l in r.stdout.splitlines() if "dirty log time" in l]
        results.append(("%s: compare prints the counts only" % arch,
                        ([] if said else ["no '# counts only' and 'counted figures' lines"]) +
                        ["a timing printed: " + l for l in timed]))
    else:
        said = "# the figures are instruction-paced (QEMU -icount)" in r.stdout
        results.append(("%s: compare says the figures are instruction-paced" % arch,
                        [] if said else ["no '# the figures are instruction-paced' line"]))
    if not any(p for _, p in results):
        shutil.rmtree(res, ignore_errors=True)
    return results


def sides_problems(tmp, ra, rb, want):
    """Each side has every record, passed, on one icount vCPU booted from the tree."""
    problems = []
    for label, recs in (("A", ra), ("B", rb)):
        if set(recs) != want:
            problems.append("side %s has records %s, want %s" % (label, sorted(recs), sorted(want)))
        for name, rec in recs.items():
            h = rec["host"]
            if rec["status"] != "pass":
                problems.append("%s %s: status %s (%s)" % (label, name, rec["status"],
                                                           rec["reason"]))
            if h.get("clock") != "emulated, icount" or h.get("cpus") != 1:
                problems.append("%s %s: host clock %r with %s CPUs, want icount and 1"
                                % (label, name, h.get("clock"), h.get("cpus")))
            if "(build tree %s/linux, " % tmp not in (h.get("emulated") or ""):
                problems.append("%s %s: host.emulated %r does not name the build tree"
                                % (label, name, h.get("emulated")))
    return problems


def phase_problems(ra, rb, want):
    """Every record's KVM stat deltas per phase, the same on A and B."""
    problems = []
    for name in sorted(want & set(ra) & set(rb)):
        pa, pb = ra[name].get("phases", {}), rb[name].get("phases", {})
        if pa != pb:
            diff = ["%s.%s %s/%s" % (ph, st, pa.get(ph, {}).get(st), pb.get(ph, {}).get(st))
                    for ph in sorted(set(pa) | set(pb))
                    for st in sorted(set(pa.get(ph, {})) | set(pb.get(ph, {})))
                    if pa.get(ph, {}).get(st) != pb.get(ph, {}).get(st)]
            problems.append("%s: KVM stat deltas differ: %s" % (name, ", ".join(diff[:8])))
    return problems


def main():
    k = kernel()
    tmp = tempfile.mkdtemp(prefix="kmp-ab-repeat-")
    # The caches made for this test's tree and package file.
    made = [os.path.join(SRC, "build", "x86_64", "emu-ab", p) for p in ("tree-*", "file-*")]
    before = set(glob.glob(made[0]) + glob.glob(made[1]))
    spec = build_tree(tmp, kernel_cache(k))
    res = os.path.join(tmp, "results")
    # Two runs a side: compare's verdicts on one kernel against itself (A/A).
    r = subprocess.run([RUN_SH, "ab", "--kernel", spec, "--kernel", spec, "-g", "ab-repeat",
                        "--repeat", "2", "--results", res], capture_output=True, text=True)
    out = r.stdout + r.stderr
    results = []
    tops = glob.glob(os.path.join(res, "*"))
    top = tops[0] if len(tops) == 1 else None
    results.append(("run.sh ab --kernel TREE:MODPATH (%s as a build tree, twice) -g ab-repeat: "
                    "exit 0" % k,
                    [] if r.returncode == 0 and top else
                    ["exit %d" % r.returncode] + out.strip().splitlines()[-15:]))
    if not top:
        rc = ktap_report(results)
        print("# output of run.sh ab kept in %s" % tmp)
        return rc
    ra, rb = records(os.path.join(top, "A")), records(os.path.join(top, "B"))
    want = {"ab-repeat-%s.%d.json" % (t, n) for t in ("dlp", "zap") for n in (1, 2)}
    results.append(("both sides passed each run on an icount-paced host of one vCPU, "
                    "booted from the tree", sides_problems(tmp, ra, rb, want)))

    problems, worst = [], [0.0]
    for name in sorted(want & set(ra) & set(rb)):
        compare_figures(name, ra[name].get("figures", {}), rb[name].get("figures", {}),
                        problems, worst)
    results.append(("timings within 1%% (the largest difference: %.4f%%), counts equal"
                    % (100 * worst[0]), problems))

    results.append(("KVM stat deltas of every phase equal", phase_problems(ra, rb, want)))

    verdicts = subprocess.run([RESULTS_PY, "compare", "--json", results_dir(top, "A"),
                               results_dir(top, "B")], capture_output=True, text=True)
    try:
        rows = json.loads(verdicts.stdout)["rows"]
    except ValueError:
        rows = None
    problems = ["compare --json exit %d: %s" % (verdicts.returncode, verdicts.stderr[-300:])] \
        if rows is None else ["%s %s: %s" % (r["section"], r["figure"], r["verdict"])
                              for r in rows if r["verdict"] in ("better", "worse")]
    results.append(("A/A: compare finds no figure better or worse between one kernel's two "
                    "boots (%d figures)" % len(rows or []), problems + ([] if rows else
                                                                     ["no verdict row"])))

    said = "# the figures are instruction-paced (QEMU -icount)" in r.stdout
    results.append(("compare says the figures are instruction-paced",
                    [] if said else ["no '# the figures are instruction-paced' line"]))
    results += bad_kernels(tmp, k)
    results += other_arch(tmp, "arm64", False)
    results += other_arch(tmp, "powerpc", True)
    rc = ktap_report(results)
    for d in set(glob.glob(made[0]) + glob.glob(made[1])) - before:
        shutil.rmtree(d, ignore_errors=True)
    if rc:
        print("# results kept: %s" % top)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
