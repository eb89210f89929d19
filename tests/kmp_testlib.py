"""What the Python tests share: where the tree and binaries are, and the
host state every run must leave as it found it (hugetlb pools, THP knobs,
tracefs mounts and the suite's tracefs instances)."""
import glob
import os
import platform
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("KMP_SRC_DIR") or os.path.dirname(HERE)
ARCH = {"aarch64": "arm64", "ppc64le": "powerpc", "ppc64": "powerpc"}.get(
    platform.machine(), platform.machine())
BIN = os.environ.get("KMP_BIN") or os.path.join(SRC, "build", ARCH, "bin")
RUN_SH = os.path.join(SRC, "run.sh")
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
BENCH_NAMES = ("dirty_log_perf", "demand_paging", "zap_latency", "tlbie_bench", "unit_tests")


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return "<%s>" % e.strerror


def tracefs_mounts():
    with open("/proc/self/mounts") as f:
        return sorted(l.split()[1] for l in f if l.split()[2:3] == ["tracefs"])


def in_private_tracefs(script):
    """Run script with $d a private mount of tracefs (the host's mounts untouched)."""
    full = ('d=$(mktemp -d) && mount -t tracefs nodev "$d" && { %s; }; '
            'umount "$d" 2>/dev/null; rmdir "$d"') % script
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", full],
                          capture_output=True, text=True, timeout=10).stdout


def trace_instances():
    """kmp-* tracefs instances, seen through a private mount of tracefs."""
    try:
        out = in_private_tracefs('ls "$d/instances"')
    except (OSError, subprocess.TimeoutExpired) as e:
        return "<%s>" % e
    return sorted(n for n in out.split() if n.startswith("kmp-"))


def host_state(full=True):
    """The knobs a run may change; full adds the (slower) tracefs instance list."""
    s = {NR_HUGEPAGES: read(NR_HUGEPAGES),
         "/proc/sys/vm/nr_overcommit_hugepages": read("/proc/sys/vm/nr_overcommit_hugepages")}
    for p in sorted(glob.glob("/sys/kernel/mm/hugepages/hugepages-*/nr_hugepages")):
        s[p] = read(p)
    for k in ("enabled", "defrag"):
        p = "/sys/kernel/mm/transparent_hugepage/" + k
        s[p] = read(p)
    s["tracefs mounts"] = tracefs_mounts()
    if full:
        s["tracefs kmp-* instances"] = trace_instances()
    return s


def _unescape(field):
    """A journal field back to its text (%XX escapes, docs/library.md)."""
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  field.encode()).decode(errors="replace")


def journal_changes(jdir):
    """The changes recorded in the journals kept in jdir (KMP_JOURNAL_KEEP=1).

    One dict per change: pid, comm, n, kind, path, arg (the original content
    of a write, "asked before" of a delta, group/event of a dynevent), done,
    and granted (what a delta's counter grew by, as the run read it back)."""
    changes = []
    for name in sorted(os.listdir(jdir)):
        with open(os.path.join(jdir, name), errors="replace") as f:
            text = f.read()
        lines = text.split("\n")[:-1]      # a last line without its newline is ignored
        head = dict(kv.split("=", 1) for kv in lines[0].split()[2:] if "=" in kv) if lines else {}
        by_n = {}
        for line in lines[1:]:
            f = line.split(" ")
            if f[0] == "done" and len(f) == 2 and f[1] in by_n:
                by_n[f[1]]["done"] = True
            elif f[0] == "granted" and len(f) == 3 and f[1] in by_n and f[2].isdigit():
                by_n[f[1]]["granted"] = int(f[2])
            elif f[0].isdigit() and len(f) >= 3:
                by_n[f[0]] = {"pid": head.get("pid"), "comm": _unescape(head.get("comm", "?")),
                              "n": int(f[0]), "kind": f[1], "path": _unescape(f[2]),
                              "arg": " ".join(_unescape(x) for x in f[3:]), "done": False,
                              "granted": 0}
        changes += sorted(by_n.values(), key=lambda c: c["n"])
    return changes


def state_diff(before, after):
    return ["%s: %s -> %s" % (k, before[k], after.get(k)) for k in before
            if k in after and before[k] != after[k]]


def foreign_benchmarks():
    """kvm-mmu-perf processes that this test did not start (another session's).

    They change the same host knobs, so a difference seen while one runs is
    reported as a note rather than a failure."""
    me, found = os.getpid(), []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                comm = f.read().strip()
            if comm not in BENCH_NAMES and not comm.startswith("smoke_"):
                continue
            pid = int(d)
            while pid > 1 and pid != me:
                with open("/proc/%d/stat" % pid) as f:
                    pid = int(f.read().rsplit(")", 1)[1].split()[1])
            if pid != me:
                found.append("%s[%s]" % (comm, d))
        except (OSError, ValueError, IndexError):
            continue
    return found


def ktap_report(results):
    """Print [(name, [problem lines])] as KTAP, problems as diagnostics; 1 if any failed."""
    print("TAP version 13")
    print("1..%d" % len(results))
    for i, (name, problems) in enumerate(results, 1):
        for p in problems:
            print("# " + p)
        print("%sok %d %s" % ("not " if problems else "", i, name))
    failed = sum(1 for _, p in results if p)
    print("# %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0
