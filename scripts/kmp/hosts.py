# SPDX-License-Identifier: GPL-2.0
"""The hosts of a comparison: what their timings are (native, or an emulated
host's clock), whether two can be compared, and what differs between them."""
import re


def host_line(sections):
    for sec in sections.values():
        for _, rec in sec.passed:
            return rec["host"]
    return None


def clock_kind(h):
    """What a host's timings are: native (its own clock), or an emulated host's clock
    following real time or the instructions executed (QEMU -icount)."""
    if h.get("clock"):
        return h["clock"]
    emu = h.get("emulated")     # records from before host.clock
    if not emu:
        return "native"
    return "emulated, icount" if " -icount " in emu else "emulated, real time"


def emulated_setup(h):
    """The emulator's command of an emulated host, less the kernel it booted
    (boot.sh ends the text with "(<kernel origin>, <KVM parameters>)")."""
    text = h.get("emulated") or ""
    m = re.match(r"^(.*) \((?:[^(),]*)(, (?P<params>[^()]*))?\)$", text)
    return (m.group(1) + (" (" + m.group("params") + ")" if m.group("params") else "")
            if m else text)


def host_errors(hb, hn):
    """Why BASE's and NEW's hosts cannot be compared at all."""
    if not hb or not hn:
        return []
    kb, kn = clock_kind(hb), clock_kind(hn)
    if kb != kn:
        return ["BASE's timings are %s, NEW's %s: they do not measure the same thing; "
                "compare runs of one kind" % (kb, kn)]
    if kb != "native" and hb.get("cpus") != hn.get("cpus"):
        return ["BASE's emulated host had %s vCPU(s), NEW's %s: run both with the same "
                "count (run.sh ab --smp)" % (hb.get("cpus"), hn.get("cpus"))]
    return []


def built_from(h):
    """A source-built emulated host (run.sh ab from source, scripts/emu/kernel.sh):
    (source, [patch names with their hashes], config hash), or None."""
    m = re.search(r"built from (.*?)((?: \+ patch \S+ sha256 \S+)*); config sha256 (\S+)",
                  (h or {}).get("emulated") or "")
    if not m:
        return None
    return m.group(1), m.group(2).strip(" +").split(" + ") if m.group(2) else [], m.group(3)


# The post's labels for seed 003's blocks; another patch's pair gets its own.
SIDE_TITLES = ["Before optimization:", "After optimization:"]


def side_titles(hb, hn):
    """Seed 003's block titles: the post's, unless the pair is one source built with
    patches that are not the seeds' (then A and B, named by what each adds)."""
    built = [built_from(hb), built_from(hn)]
    if not all(built) or built[0][0] != built[1][0]:
        return ["Before optimization:", "After optimization:"]
    names = [[p.split()[1] for p in b[1]] for b in built]   # "patch NAME sha256 HASH"
    if any(n.startswith("seed-") for side in names for n in side):
        return ["Before optimization:", "After optimization:"]
    a_only = [n for n in names[0] if n not in names[1]]
    b_only = [n for n in names[1] if n not in names[0]]
    return ["A (base%s):" % "".join(" + " + n for n in a_only),
            "B (%s):" % ("+ " + " + ".join(b_only) if b_only else "base")]


def host_notes(hb, hn):
    """Comment lines on how BASE's and NEW's hosts differ, and what an
    emulated host's figures mean."""
    lines = []
    if clock_kind(hb) == "native":
        differ = [k for k in ("machine", "cpu_model", "cpus", "cores", "numa_nodes",
                              "mem_total_bytes") if hb.get(k) != hn.get(k)]
    else:
        # Another kernel on the same emulated machine is run.sh ab's point,
        # and each kernel keeps its own share of the memory.
        differ = [k for k in ("machine", "cpu_model", "cores", "numa_nodes")
                  if hb.get(k) != hn.get(k)]
        if emulated_setup(hb) != emulated_setup(hn):
            differ.append("emulated")
        built = [built_from(h) for h in (hb, hn)]
        if all(built) and built[0][0] == built[1][0]:
            # run.sh ab from source (scripts/emu/kernel.sh): say exactly what differs.
            patches = [b[1] for b in built]
            added = [p for p in patches[1] if p not in patches[0]]
            # run.sh ab --patch-a: a "before" fixture on BASE alone.
            base_only = [p for p in patches[0] if p not in patches[1]]
            what = "NEW adds %s" % ("; ".join(added) or "no patch")
            if base_only:
                what = ("NEW adds %s, and " % "; ".join(added) if added else "") + \
                    "BASE adds %s" % "; ".join(base_only)
            lines.append("# BASE and NEW: one emulated machine, one source (%s) built twice; %s%s"
                         % (built[0][0], what, "" if built[0][2] ==
                            built[1][2] else "; the configs differ too"))
        elif hb.get("kernel") != hn.get("kernel"):
            lines.append("# BASE and NEW: one emulated machine, two kernels: a kernel A/B (the "
                         "kernels differ in more than any one patch)")
    if differ:
        lines.append("# warning: BASE and NEW ran on different hosts (%s differ): compare runs "
                     "on one host" % ", ".join(differ))
    if clock_kind(hb) == "emulated, icount":
        lines.append("# the figures are instruction-paced (QEMU -icount): code path length in "
                     "the emulated host, repeatable, not bare-metal time (no cache, TLB or "
                     "atomic-operation costs)")
        lines.append("# counts (pages zapped, mappings dropped, exits) are code-path properties; "
                     "lock breaks and TLB flushes depend on timing: %s" % (
                         "repeatable here, with one icount-paced emulated vCPU"
                         if hb.get("cpus") == 1 else
                         "not repeatable with %s emulated vCPUs" % hb.get("cpus")))
    return lines
