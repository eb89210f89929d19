"""What the Python tests share: where the tree and binaries are, the host
state a run may touch (hugetlb pools, THP knobs, tracefs mounts and the
suite's tracefs instances), and the check that a run undid what its own
crash journal says it changed (journaled(), journal_check())."""
import glob
import os
import platform
import re
import shutil
import subprocess
import tempfile

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


def write(path, value):
    with open(path, "w") as f:
        f.write(value)


def default_pool():
    """The default hugetlb size's pool: the counter /proc/sys/vm/nr_hugepages also names."""
    with open("/proc/meminfo") as f:
        kb = next((l.split()[1] for l in f if l.startswith("Hugepagesize:")), None)
    return "/sys/kernel/mm/hugepages/hugepages-%skB/nr_hugepages" % kb if kb else NR_HUGEPAGES


DEFAULT_POOL = default_pool()


def counter_names(path):
    """path and the other name of the same counter, if it has one."""
    if path == NR_HUGEPAGES:
        return [path, DEFAULT_POOL]
    return [path, NR_HUGEPAGES] if path == DEFAULT_POOL else [path]


def journaled(tmp, env=None):
    """A private journal directory for one run (kept: KMP_JOURNAL_KEEP=1), and
    the run's environment."""
    jdir = tempfile.mkdtemp(prefix="journal-", dir=tmp)
    return jdir, dict(env or os.environ, KMP_JOURNAL_DIR=jdir, KMP_JOURNAL_KEEP="1")


def _selected(text):
    """A knob's value: the [bracketed] choice of a sysfs choice list, else the text."""
    m = re.search(r"\[([^\]]*)\]", text)
    return m.group(1) if m else text.strip()


def _counters_back(changes, baseline, notes):
    """Raised counters given back.  They are host-wide, so others may move
    them meanwhile; a counter above its start by exactly what some of this
    run's grants add up to still holds those."""
    problems = []
    for path in sorted({c["path"] for c in changes if c["kind"] == "delta"}):
        start = next((baseline[n] for n in counter_names(path) if n in baseline), "")
        now = read(path)
        grants = [c["granted"] for c in changes
                  if c["kind"] == "delta" and c["path"] in counter_names(path) and c["granted"]]
        if not (start.isdigit() and now.isdigit() and grants):
            continue
        sums = {sum(g for i, g in enumerate(grants) if mask >> i & 1)
                for mask in range(1, 1 << min(len(grants), 12))}
        if int(now) - int(start) in sums:
            problems.append("%s holds %s, %d above the start: this run's +%s not given back"
                            % (path, now, int(now) - int(start), "/+".join(map(str, grants))))
            write(path, start)
        elif int(now) != int(start):
            notes.append("%s moved from %s to %s meanwhile, by another process (this run's +%s "
                         "were given back)" % (path, start, now, "/+".join(map(str, grants))))
    return problems


def _undone(c, instances):
    """Why change c is not undone (and put it back), or None."""
    kind, path = c["kind"], c["path"]
    if kind == "write" and os.path.exists(path):
        now = read(path)
        if _selected(now) != _selected(c["arg"]):
            write(path, c["arg"])
            return "holds %r, was %r" % (now, c["arg"].strip())
    elif kind == "dir" and "/instances/" in path:
        # The tracefs it was made in was a private mount: look through another.
        name = os.path.basename(path.rstrip("/"))
        if name in instances():
            in_private_tracefs('rmdir "$d/instances/%s"' % name)
            return "tracefs instance %s is still there" % name
    elif kind == "dir" and os.path.isdir(path):
        return "directory is still there"
    elif kind == "mount" and os.path.ismount(path):
        subprocess.run(["umount", "-l", path])
        return "still mounted"
    elif kind == "dynevent" and c["arg"]:
        event = c["arg"].split()[0]
        if re.search(r"^\S+:%s\s" % re.escape(event),
                     in_private_tracefs('cat "$d/dynamic_events"'), re.M):
            in_private_tracefs('echo "-:%s" >> "$d/dynamic_events"' % event)
            return "dynamic event %s is still defined" % event
    return None


def journal_check(jdir, baseline, out=""):
    """What the run(s) journaled in jdir (see journaled()) is all undone.

    Returns (problems, notes) and removes jdir.  Every record must be done,
    a written file hold its original, a directory, tracefs instance, mount or
    dynamic event be gone, and a raised counter not still hold this run's
    grants; out is searched for host_state's "could not restore/undo".
    What is not undone is put back.  The host-wide knobs the run did not
    journal are compared with baseline (a host_state(), full or not) too, but
    a difference there is another process's: a note (and baseline follows it)."""
    problems, notes = [], []
    changes = journal_changes(jdir)
    left = [c for c in changes if not c["done"]]
    if left:
        # A dead owner's records: the recovery tool undoes them.
        subprocess.run([os.path.join(BIN, "kmp_restore_host")], capture_output=True,
                       env=dict(os.environ, KMP_JOURNAL_DIR=jdir), timeout=30)
    problems += ["record %d of pid %s (%s %s) was never undone" % (
        c["n"], c["pid"], c["kind"], c["path"]) for c in left]
    problems += [l.strip() for l in out.splitlines()
                 if "could not restore" in l or "could not undo" in l]
    cache = []

    def instances():
        if not cache:
            cache.append(trace_instances())
        return cache[0]
    for c in changes:
        bad = _undone(c, instances)
        if bad:
            problems.append("%s %s (pid %s): %s" % (c["kind"], c["path"], c["pid"], bad))
    problems += _counters_back(changes, baseline, notes)
    shutil.rmtree(jdir, ignore_errors=True)

    ours = {alias for c in changes for alias in counter_names(c["path"])}
    now = host_state(full="tracefs kmp-* instances" in baseline)
    others = state_diff({k: v for k, v in baseline.items() if k not in ours}, now)
    if others:
        notes.append("changed by another process (not in this run's journal): "
                     + "; ".join(others))
        baseline.update({k: now[k] for k in baseline if k not in ours and k in now})
    return problems, notes


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


def run_steps(prefix, steps):
    """Each step(tmp, results) in one temporary folder, removed at the end; KTAP."""
    results = []
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        for step in steps:
            step(tmp, results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ktap_report(results)
