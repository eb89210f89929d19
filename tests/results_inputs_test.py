#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare's refusals and warnings (tests/kmp_testrecords.py's sets): bad or
corrupt records (exit 2, one line naming the file, no table), hosts of
different kinds, the MMU a folder asked for, schema versions, and records
that lack a figure for a reason; KTAP.

Exit status: 0 when every test passed, 1 otherwise.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from kmp_testrecords import (GiB, HOST, ZW_BASE, check, edit, figure, run,
                             run_tests, tb_record, write, zl_record)  # noqa: E402


def corrupt_case(tmp, a, b, name, mutate, expect_file, expect_text):
    bad = os.path.join(tmp, "bad-" + name.replace(" ", "-"))
    shutil.copytree(b, bad)
    mutate(bad)
    res = run("compare", a, bad)
    check("bad input (%s): exit 2, one line naming the file, no table" % name,
          res.returncode == 2 and res.stdout == "" and expect_file in res.stderr
          and expect_text in res.stderr and "+====" not in res.stdout + res.stderr,
          "rc %d\nstdout %r\nstderr %r" % (res.returncode, res.stdout[:300], res.stderr))


def truncate(folder):
    path = os.path.join(folder, "zap-all.2.json")
    data = open(path).read()
    open(path, "w").write(data[:len(data) // 2])


def mismatch(folder):
    for r in (1, 2, 3):
        edit(folder, "dirty-log-clear-chunk-1G.%d.json" % r,
             lambda rec: rec["params"].update(clear_chunk_bytes=2 * GiB))


def test_bad_inputs(tmp, a, b):
    corrupt_case(tmp, a, b, "truncated JSON", truncate, "zap-all.2.json", "not valid JSON")
    corrupt_case(tmp, a, b, "pass record without figures",
                 lambda d: edit(d, "tlbie-page.2.json", lambda r: r.pop("figures")),
                 "tlbie-page.2.json", "no figures")
    corrupt_case(tmp, a, b, "mismatched params", mismatch, "dirty-log-clear-chunk-1G",
                 "mismatched parameters between BASE and NEW: clear_chunk_bytes")
    corrupt_case(tmp, a, b, "zap_latency trace not an object",
                 lambda d: edit(d, "zap-all.1.json", lambda r: r.update(trace="tracepoint")),
                 "zap-all.1.json", "trace is not an object")
    corrupt_case(tmp, a, b, "zap_latency trace/span_function not a string",
                 lambda d: edit(d, "zap-all.1.json",
                                lambda r: r.setdefault("trace", {}).update(span_function=[1])),
                 "zap-all.1.json", "trace/span_function is not a string or null")
    corrupt_case(tmp, a, b, "caveats not an object of strings",
                 lambda d: edit(d, "dirty-log-whole.1.json",
                                lambda r: r.update(caveats={"pages_touched": 0})),
                 "dirty-log-whole.1.json", "caveats is not an object of strings")
    corrupt_case(tmp, a, b, "non-record file",
                 lambda d: open(os.path.join(d, "notes.1.json"), "w").write('{"hello": 1}'),
                 "notes.1.json", "not a result record")
    corrupt_case(tmp, a, b, "schema_version 3",
                 lambda d: edit(d, "dp-sweep.1.json", lambda r: r.update(schema_version=3)),
                 "dp-sweep.1.json", "schema_version 3, this reader knows 1 and 2")
    corrupt_case(tmp, a, b, "NaN figure",
                 lambda d: open(os.path.join(d, "tlbie-full.1.json"), "w").write(
                     json.dumps(tb_record(float("nan")))),
                 "tlbie-full.1.json", "NaN")


def test_dlp_short_loop(tmp, a, b):
    """A -j run whose loop ended before the vCPUs made one pass: its record's
    caveat, not a percentage from its pages touched, in seed 000's table."""
    why = ("-j: the host's loop of 3 iterations lasted 0.000269397s, and the vCPUs touched "
           "0.00 passes of their memory in it, fewer than 1")
    short = os.path.join(tmp, "short-loop")
    shutil.copytree(b, short)
    for r in (1, 2, 3):
        edit(short, "dirty-log-clear-chunk-1G.%d.json" % r,
             lambda rec: (rec["figures"]["pages_touched"].update(value=0),
                          rec.update(caveats={"pages_touched": why})))
    res = run("compare", a, short)
    out = res.stdout.splitlines()
    row = [l for l in out if l.startswith("| 1GB ")]
    check("dirty_log_perf -j, loop too short: the vCPUs cell says so, with the reason under "
          "the table, and the clear time is still compared",
          res.returncode == 0 and len(row) == 1 and "n/a (loop too short)" in row[0] and
          "-81%" in row[0] and "# vCPUs improvement n/a, 1GB NEW: " + why in out and
          not any("1GB vCPUs" in l for l in out if l.startswith("# noise unknown")),
          "rc %d\n%s" % (res.returncode, "\n".join(out[:20])))


def test_zap_tdp_mmu(tmp, a, b):
    """TDP-MMU records have no lock breaks or shadow pages: compare says so, never a 0."""
    sets = []
    for side, dropped in (("tdp-a", 60000), ("tdp-b", 64000)):
        d = os.path.join(tmp, side)
        for r in range(3):
            rec = zl_record(ZW_BASE, 30000000, 0)
            rec["params"]["mmu"] = "tdp_mmu"
            del rec["figures"]["lock_breaks"], rec["figures"]["mmu_shadow_zapped"]
            rec["figures"]["mappings_dropped"] = figure("mappings", dropped, [dropped] * 3)
            rec["zaps"] = [{k: v for k, v in z.items() if k not in ("lock_breaks", "zap_tasks")}
                           for z in rec["zaps"]]
            rec["trace"]["lock_breaks_observable"] = False
            rec["trace"]["lock_breaks_unavailable"] = "no kprobe_events here"
            write(d, "zap-tdp", r + 1, rec)
        sets.append(d)
    out = run("compare", "--verbose", *sets).stdout.splitlines()
    check("zap_latency on the TDP MMU: no lock-break count, the mappings dropped compared",
          "  base: lock-break: not observable (no kprobe_events here)" in out and
          "        kvm_mmu_zap_all_fast: %x." % ZW_BASE in out and
          any(l.startswith("  mappings dropped: 60000 -> 64000") for l in out) and
          not any("MMU pages zapped" in l for l in out), "\n".join(out))


def test_asked_mmu(tmp, a, b):
    """A folder run on an emulated host says which MMU it asked for (host.txt's
    emulated_mmu, configs/emu-hosts); records of another MMU are refused."""
    sides = []
    for side, mmu in (("mmu-a", "legacy tdp"), ("mmu-b", "tdp_mmu")):
        d = os.path.join(tmp, side)
        for r in (1, 2):
            rec = zl_record(ZW_BASE, 30000000, 5)
            rec["host"] = dict(HOST, mmu=mmu)
            write(d, "zap-all", r, rec)
        with open(os.path.join(d, "host.txt"), "w") as f:
            f.write("boot_id: %s\nemulated_mmu: x86_64 legacy-npt\n" % side)
        sides.append(d)
    res = run("compare", *sides)
    want = ("kmp_results.py: NEW %s: its records ran KVM's tdp_mmu MMU, but the folder asked "
            "for --mmu legacy-npt (legacy tdp): its figures are not the configuration asked "
            "for" % sides[1])
    check("compare: a folder whose records ran another MMU than the one it asked for is "
          "refused (exit 2, one line naming both); the other side passes the check",
          res.returncode == 2 and res.stderr.splitlines() == [want] and not res.stdout,
          "rc %d\n%s%s" % (res.returncode, res.stdout, res.stderr))
    good, bad = (run("summary", d) for d in sides)
    check("summary: exit 0 on the folder of the MMU asked for, 2 (bad data) on the other",
          good.returncode == 0 and bad.returncode == 2 and "its records ran KVM's tdp_mmu MMU"
          in bad.stdout, "rc %d/%d\n%s" % (good.returncode, bad.returncode, bad.stdout))
    with open(os.path.join(sides[0], "host.txt"), "w") as f:
        f.write("emulated_mmu: x86_64 ept\n")
    res = run("summary", sides[0])
    check("summary: an emulated_mmu that configs/emu-hosts does not have is bad data",
          res.returncode == 2 and "MMU ept, which configs/emu-hosts does not have" in res.stdout,
          res.stdout)


def test_emulated_host(tmp, a, b):
    """Timings of different kinds (bare metal, emulated in real time, emulated
    under icount) are never compared; nor emulated hosts of different vCPU
    counts.  Two kernels on one emulated setup are a kernel A/B: said so,
    with what icount figures mean, and no "different hosts" warning."""
    icount = "QEMU TCG: qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off " \
             "-cpu max (%s, kvm_amd.npt=1)"

    def variant(src, name, **host):
        d = os.path.join(tmp, name)
        shutil.copytree(src, d)
        for fname in os.listdir(d):
            if fname.endswith(".json"):
                edit(d, fname, lambda r: r["host"].update(host))
        return d
    real = variant(b, "emulated-real", emulated="QEMU TCG: qemu-system-x86_64 -cpu max (Debian 6.1)")
    res = run("compare", a, real)
    check("bare metal against an emulated host: refused, naming both kinds",
          res.returncode == 2 and not res.stdout and
          "BASE's timings are native, NEW's emulated, real time" in res.stderr,
          res.stdout + res.stderr)
    k61 = variant(a, "emulated-6.1", emulated=icount % "Debian 6.1.0-57-amd64", cpus=1,
                  kernel="6.1.0-57-amd64", mem_total_bytes=6000000000)
    k612 = variant(b, "emulated-6.12", emulated=icount % "Debian 6.12.117+deb12-amd64", cpus=1,
                   kernel="6.12.117+deb12-amd64", mem_total_bytes=5900000000)
    res = run("compare", real, k612)
    check("real-time emulation against icount: refused",
          res.returncode == 2 and "emulated, real time, NEW's emulated, icount" in res.stderr,
          res.stdout + res.stderr)
    two = variant(b, "emulated-6.12-smp2", emulated=icount % "Debian 6.12.117+deb12-amd64",
                  cpus=2, kernel="6.12.117+deb12-amd64")
    res = run("compare", k61, two)
    check("emulated hosts with 1 and 2 vCPUs: refused, naming --smp",
          res.returncode == 2 and "had 1 vCPU(s), NEW's 2" in res.stderr and
          "--smp" in res.stderr, res.stdout + res.stderr)
    res = run("compare", k61, k612)
    out = res.stdout.splitlines()
    check("6.1 against 6.12 on one icount setup: compared as a kernel A/B, path length said",
          res.returncode == 0 and any(l.startswith("# NEW  host:") and "EMULATED (" in l
                                      for l in out) and
          "# BASE and NEW: one emulated machine, two kernels: a kernel A/B (the kernels differ "
          "in more than any one patch)" in out and
          any(l.startswith("# the figures are instruction-paced (QEMU -icount)") for l in out) and
          any("repeatable here, with one icount-paced emulated vCPU" in l for l in out) and
          "path counts: KVM VM stat deltas per phase (vcpus_*: the vCPUs' stats, summed), medians over runs, BASE -> NEW" in out and
          not any("different hosts" in l for l in out), res.stdout + res.stderr)
    # One source built twice (run.sh ab from source): the patch named on its side.
    src = "built from package linux-source-6.12 6.12.118-1~deb12u1%s; config sha256 c0ffee"
    fix = " + patch seed-003-fix.patch sha256 aa11"
    plain = variant(a, "source-plain", emulated=icount % (src % ""), cpus=1, kernel="6.12.118")
    patched = variant(b, "source-patched", emulated=icount % (src % fix), cpus=1,
                      kernel="6.12.118")
    for base, new, says in ((plain, patched, "NEW adds patch seed-003-fix.patch sha256 aa11"),
                            (patched, plain, "BASE adds patch seed-003-fix.patch sha256 aa11"),
                            (plain, plain, "NEW adds no patch")):
        out = run("compare", base, new).stdout.splitlines()
        line = "# BASE and NEW: one emulated machine, one source (package linux-source-6.12 " \
               "6.12.118-1~deb12u1) built twice; " + says
        check("one source built twice: '%s'" % says, line in out,
              "\n".join(l for l in out if "built twice" in l))
    # Seed 003's blocks carry the post's titles for a seed's patch, A and B for another.
    mine = variant(b, "source-mine", emulated=icount % (src % " + patch mine.patch sha256 bb22"),
                   cpus=1, kernel="6.12.118")
    for base, new, titles in ((plain, patched, ["Before optimization:", "After optimization:"]),
                              (plain, mine, ["A (base):", "B (+ mine.patch):"]),
                              (mine, plain, ["A (base + mine.patch):", "B (base):"])):
        out = run("compare", base, new).stdout.splitlines()
        check("seed 003's blocks titled %s" % " / ".join(titles),
              all(t in out for t in titles) and
              ("Before optimization:" in titles or "Before optimization:" not in out),
              "\n".join(l for l in out if l.endswith(":")))


def test_schema_versions(tmp, a, b):
    """Version 1 records are read, and a compare across versions says what changed."""
    old = os.path.join(tmp, "schema-1")
    shutil.copytree(a, old)
    for fname in os.listdir(old):
        if fname.endswith(".json"):
            edit(old, fname, lambda r: r.update(schema_version=1))
    res = run("compare", old, b)
    out = res.stdout.splitlines()
    check("schema_version 1 against 2: compared, with a warning naming -o and -b",
          res.returncode == 0 and any("+====" in l for l in out) and
          any(l.startswith("# warning: BASE records are schema_version 1, NEW 2:") and
              "-v x -b" in l and "zap_latency's -b" in l for l in out),
          res.stdout + res.stderr)
    res = run("compare", a, b)
    check("records of one version: no schema warning",
          res.returncode == 0 and "schema_version" not in res.stdout, res.stdout)



if __name__ == "__main__":
    sys.exit(run_tests([test_bad_inputs, test_dlp_short_loop, test_zap_tdp_mmu, test_asked_mmu, test_emulated_host, test_schema_versions]))
