# SPDX-License-Identifier: GPL-2.0
"""kmp_results.py compare: two sides' sections paired and checked, then each
tool's tables (kmp/tools/), the path counts, and the verdicts' summary."""
import json
import os
import sys

from . import tools
from .figures import Stat, fig_stat
from .fmt import fail, fmt_num, fmt_value
from .hosts import SIDE_TITLES, clock_kind, host_errors, host_line, host_notes, side_titles
from .records import boot_id, incomplete_note, load_boots, param_diff
from .schema import SCHEMA_CHANGES
from .verdicts import JUDGE, VERBOSE, compare_line, emit
from .vtable import compact_table


def unit_errors(b, n):
    """A figure measured in one unit in BASE and another in NEW cannot be compared."""
    units = [{}, {}]
    for side, sec in zip(units, (b, n)):
        for _, rec in sec.passed:
            for name, f in rec.get("figures", {}).items():
                side.setdefault(name, f.get("unit"))
    return ["section %s: figure %s is in %r in BASE and %r in NEW" % (
        b.name, name, units[0][name], units[1][name])
        for name in sorted(set(units[0]) & set(units[1])) if units[0][name] != units[1][name]]


def split_sides(folders, notes):
    """BASE NEW, or BASE... vs NEW...: ([base folders], [new folders]); a folder
    named twice on a side counts once, and notes say so."""
    if "vs" not in folders:
        if len(folders) != 2:
            fail(["compare takes BASE NEW, or BASE1 BASE2 ... vs NEW1 NEW2 ... (one folder per "
                  "boot); got %d folders and no 'vs'" % len(folders)])
        return folders[:1], folders[1:]
    at = folders.index("vs")
    if folders.count("vs") != 1 or at == 0 or at == len(folders) - 1:
        fail(["compare: 'vs' must stand once between BASE's folders and NEW's, with one or "
              "more on each side"])
    sides = []
    for label, side in (("BASE", folders[:at]), ("NEW", folders[at + 1:])):
        seen, kept = set(), []
        for f in side:
            if os.path.realpath(f) in seen:
                notes.append("%s: folder %s named twice: counted once" % (label, f))
                continue
            seen.add(os.path.realpath(f))
            kept.append(f)
        sides.append(kept)
    return sides[0], sides[1]


def same_boot_notes(label, folders):
    """Comment lines where one side's folders are not from separate boots."""
    if len(folders) < 2:
        return []
    ids = [boot_id(f) for f in folders]
    if None in ids:
        return ["# warning: %s: %s has no boot_id in host.txt: cannot tell that its folders "
                "are separate boots" % (label, folders[ids.index(None)])]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    return ["# warning: %s: folders %s are from one boot (boot_id %s): the sample is per boot, "
            "and these are not separate ones" % (label, ", ".join(
                f for f, i in zip(folders, ids) if i == d), d) for d in dup]


def pair_sections(args, base, new):
    """BASE's and NEW's sections of one name, paired by tool where they can be
    compared: (notes, {tool: [(b, n)]}, errors)."""
    errors = []
    notes, pairs = [], {}
    for name in sorted(set(base) | set(new)):
        b, n = base.get(name), new.get(name)
        if not b or not n:
            notes.append("section %s only in %s: skipped" % (name, "BASE" if b else "NEW"))
            continue
        for label, folder, sec in (("BASE", args.base, b), ("NEW", args.new, n)):
            folder = folder if " " not in folder else label + "'s folders"
            for repeat, status, reason in sec.excluded:
                notes.append("excluded %s: %s" % (os.path.join(folder, "%s.%d.json" % (
                    name, repeat)), status + (": " + reason if reason else "")))
            for repeat in sec.no_record:
                notes.append("excluded %s/%s.%d.log: no JSON record" % (folder, name, repeat))
        if b.bad or n.bad:
            continue            # already an error
        if b.tool and n.tool and b.tool != n.tool:
            errors.append("section %s: BASE ran %s, NEW ran %s" % (name, b.tool, n.tool))
            continue
        if not b.passed or not n.passed:
            notes.append("section %s: no passing run in %s: skipped"
                         % (name, "BASE" if not b.passed else "NEW"))
            continue
        if b.params != n.params:
            # Recorded only where it is not 4K: a host property, not an option.
            pages = b.params.get("dirty_log_page_bytes") != n.params.get("dirty_log_page_bytes")
            errors.append("section %s: mismatched parameters between BASE and NEW: %s%s"
                          % (name, ", ".join(param_diff(b.params, n.params)),
                             "; the hosts' page sizes differ (absent: 4K), so pages are counted "
                             "in different units" if pages else ""))
            continue
        errors += unit_errors(b, n)
        pairs.setdefault(b.tool, []).append((b, n))
    return notes, pairs, errors


def empty_side_errors(errors, *sides):
    """A side with no passing run, or no record at all, has no figure to compare."""
    out = []
    for label, dirs, side in sides:
        if side and not any(sec.passed for sec in side.values()):
            c = {}
            for sec in side.values():
                for k, v in sec.counts().items():
                    c[k] = c.get(k, 0) + v
            # run.sh's mark says why, where a run was stopped (even by SIGKILL).
            marks = ["; %s is incomplete (%s)" % (d, incomplete_note(d)) for d in dirs
                     if incomplete_note(d)]
            out.append("%s %s: no run passed (%s): no figure to compare%s" % (
                label, " ".join(dirs), ", ".join("%d %s" % (v, k) for k, v in sorted(c.items())
                                                if v) or "no record", "".join(marks)))
        elif not side and not errors + out:
            out.append("%s %s: no result record in it: no figure to compare"
                       % (label, " ".join(dirs)))
    return out


def cmd_compare(args):
    if not 0 < args.alpha < 1:
        fail(["--alpha %g: a significance level is above 0 and below 1 (0.05 by default)"
              % args.alpha])
    if not 0 < args.same_within < 100:
        fail(["--same-within %g: the equivalence margin is a percentage above 0 and below 100 "
              "(2 by default)" % args.same_within])
    JUDGE.alpha, JUDGE.same_within = args.alpha, args.same_within
    JUDGE.directions = tools.directions()
    JUDGE.per_figure = args.per_figure
    VERBOSE[0] = args.verbose
    dup_notes = []
    base_dirs, new_dirs = split_sides(args.folders, dup_notes)
    args.base, args.new = " ".join(base_dirs), " ".join(new_dirs)
    base, base_err = load_boots(base_dirs)
    new, new_err = load_boots(new_dirs)
    errors = ["BASE " + e for e in base_err] + ["NEW " + e for e in new_err]
    notes, pairs, pair_errors = pair_sections(args, base, new)
    notes = dup_notes + notes
    errors += pair_errors
    if base and new and not set(base) & set(new):
        errors.append("BASE and NEW have no section in common (BASE: %s; NEW: %s): nothing "
                      "to compare" % (", ".join(sorted(base)), ", ".join(sorted(new))))
    errors += empty_side_errors(errors, ("BASE", base_dirs, base), ("NEW", new_dirs, new))
    hb, hn = host_line(base), host_line(new)
    errors += host_errors(hb, hn)
    if errors:
        fail(errors)        # nothing on stdout: no table from bad data
    # Only an icount clock repeats a run exactly: elsewhere equal runs are chance.
    JUDGE.icount = bool(hb) and clock_kind(hb) == "emulated, icount"
    # A first pass, printed nowhere, judges every figure (each once: the
    # second pass reads JUDGE.cache): each line can then carry its
    # Holm-adjusted p and family-wise verdict, which need them all.
    with open(os.devnull, "w", errors="backslashreplace") as null:
        stdout, sys.stdout = sys.stdout, null
        try:
            print_compare(args, base, new, notes, pairs, hb, hn, base_dirs, new_dirs)
        finally:
            sys.stdout = stdout
    JUDGE.finish()
    if args.json:           # the rows are the data: the text goes nowhere
        out = JUDGE.as_json()
        out.update({"base": base_dirs, "new": new_dirs, "notes": notes})
        print(json.dumps(out, indent=1))
        return 0
    JUDGE.holm_from = [r["holm_p"] for r in JUDGE.rows]
    JUDGE.rows = []
    print_compare(args, base, new, notes, pairs, hb, hn, base_dirs, new_dirs)
    return 0


def print_compare(args, base, new, notes, pairs, hb, hn, base_dirs, new_dirs):
    print("# compare BASE %s -> NEW %s" % (args.base, args.new))
    for label, dirs in (("BASE", base_dirs), ("NEW", new_dirs)):
        if len(dirs) > 1:
            print("# %s: %d boots, one folder each: each figure's sample is its boots' "
                  "medians (n = %d)" % (label, len(dirs), len(dirs)))
        for line in same_boot_notes(label, dirs):
            print(line)
        for folder in dirs:
            note = incomplete_note(folder)
            if note:
                print("# warning: %s %s is incomplete (%s): its figures may lack runs, and a "
                      "record may be from a run stopped midway" % (label, folder, note))
    for label, h in (("BASE", hb), ("NEW ", hn)):
        if h:
            print("# %s host: %s, %s, %s CPUs, %s, %s%s" % (label, h.get("kernel"),
                  h.get("cpu_model") or "no CPU model name", h.get("cpus"),
                  h.get("kvm_module"), h.get("mmu"),
                  ", EMULATED (%s)" % h["emulated"] if h.get("emulated") else ""))
    if hb and hn:
        for line in host_notes(hb, hn):
            print(line)
    vb = sorted(set().union(*(s.schemas for s in base.values())))
    vn = sorted(set().union(*(s.schemas for s in new.values())))
    if vb != vn:
        changes = [SCHEMA_CHANGES[v] for v in SCHEMA_CHANGES
                   if min(vb + vn) < v <= max(vb + vn)]
        print("# warning: BASE records are schema_version %s, NEW %s: the same command line "
              "measured something else (%s)" % ("/".join(map(str, vb)), "/".join(map(str, vn)),
                                                "; ".join(changes)))
    for note in notes:
        print("# " + note)
    if not pairs:
        print("# no section to compare")
    if args.counts_only:
        print("# counts only: the timings are left out (not comparable on these hosts)")
    SIDE_TITLES[:] = side_titles(hb, hn)
    for tool in list(tools.BY_TOOL) + sorted(set(pairs) - set(tools.BY_TOOL)):
        if tool in pairs and not args.counts_only:
            print()
            mod = tools.get(tool)
            (mod.print_compare if mod else print_generic)(pairs[tool])
            if mod:
                print_generic(pairs[tool], getattr(mod, "NOT_JUDGED", {}))
    if args.counts_only:
        print()
        print_counted_figures([p for tool in sorted(pairs) for p in pairs[tool]])
    for mod in tools.MODULES:
        if hasattr(mod, "print_within_side"):
            mod.print_within_side(base, new, args.alpha)
    if args.counts_only or hb and clock_kind(hb) == "emulated, icount":
        print()
        print_path_counts([p for tool in sorted(pairs) for p in pairs[tool]])
    if JUDGE.rows:
        print_verdicts()


def print_verdicts():
    """Every judged figure in one compact table (BASE -> NEW, then within one
    side), and the summary."""
    pair, within = JUDGE.pair_rows(), JUDGE.within_rows()
    print()
    print("verdicts, BASE -> NEW: each side's median \u00b1half its range; the change, its "
          "%g%% interval; p; runs" % (100 * (1 - JUDGE.alpha)))
    print("(unknown: N runs: about N runs a side would settle it at this spread; exact: icount, "
          "no spread)")
    for line in compact_table(pair):
        print(line)
    if within:
        print()
        print("within one side (on against off inside one boot), its own tests:")
        for line in compact_table(within):
            print(line)
    print()
    for line in JUDGE.summary_lines():
        print(line)


def print_generic(pairs, not_judged=None):
    """Every figure, BASE -> NEW, in its unit's direction; after a tool's own
    tables (not_judged: its NOT_JUDGED), the figures they did not judge."""
    for b, n in pairs:
        names = sorted({k for _, r in b.passed + n.passed for k in r.get("figures", {})})
        if not_judged is not None:
            done = {r["figure"] for r in JUDGE.pair_rows() if r["section"] == b.name}
            names = [k for k in names if k not in done and k not in not_judged]
            if names and VERBOSE[0]:
                print("%s (%s): the records' other figures, BASE -> NEW" % (b.name, b.tool))
        else:
            print("%s (%s): every figure, BASE -> NEW" % (b.name, b.tool))
        for name in names:
            unit = next(r["figures"][name]["unit"] for _, r in b.passed + n.passed
                        if name in r.get("figures", {}))
            emit(compare_line(name, fig_stat(b, name), fig_stat(n, name),
                              lambda v, u=unit: fmt_value(v, u)))


def print_path_counts(pairs):
    """The KVM VM stat deltas of each phase beside the timings: under icount
    they are the code path's own counts.  Only stats that moved on a side."""
    print("path counts: KVM VM stat deltas per phase (vcpus_*: the vCPUs' stats, summed), "
          "medians over runs, BASE -> NEW")
    for b, n in sorted(pairs, key=lambda p: p[0].name):
        keys = sorted({(ph, st) for sec in (b, n) for _, rec in sec.passed
                       for ph, stats in (rec.get("phases") or {}).items()
                       for st, v in stats.items() if v})
        print("%s:%s" % (b.name, "" if keys else " no stat moved"))
        for ph, st in keys:
            sb, sn = (Stat((rec.get("phases") or {}).get(ph, {}).get(st, 0)
                           for _, rec in sec.passed) for sec in (b, n))
            print("  %s %s: %s -> %s%s" % (ph, st, fmt_num(sb.med), fmt_num(sn.med),
                                           " (timing-dependent)" if "tlb_flush" in st else ""))


def is_count(unit):
    """A figure's unit counts events or items: not a time, a rate, or a ratio
    (demand_paging's handler shares are ratios of times)."""
    return unit not in ("s", "ms", "us", "\u00b5s", "ns", "ratio") and "/" not in unit


def print_counted_figures(pairs):
    """--counts-only: the figures that count (pages, hcalls, exits), medians
    over runs.  tlbie_bench runs for a fixed time, so its counts follow the
    timing; per fork they are the code path's."""
    print("counted figures: medians over runs, BASE -> NEW")
    for b, n in sorted(pairs, key=lambda p: p[0].name):
        units = {k: f.get("unit", "") for _, r in b.passed + n.passed
                 for k, f in r.get("figures", {}).items()}
        names = sorted(k for k, u in units.items() if is_count(u))
        print("%s (%s):%s" % (b.name, b.tool, "" if names else " no counted figure"))
        per_fork = b.tool == "tlbie_bench"
        for name in names:
            sb, sn = fig_stat(b, name), fig_stat(n, name)
            if not sb.n or not sn.n:
                continue
            line = "  %s: %s -> %s %s" % (name, fmt_num(sb.med), fmt_num(sn.med), units[name])
            fb, fn = fig_stat(b, "forks"), fig_stat(n, "forks")
            if per_fork and name != "forks" and fb.n and fn.n and fb.med and fn.med:
                line += "; per fork %.3f -> %.3f" % (sb.med / fb.med, sn.med / fn.med)
            print(line)
