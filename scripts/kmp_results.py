#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Read kvm-mmu-perf result sets: compare two, tabulate a sweep, summarise one.

A result set is a folder written by run.sh: host.txt, summary.ktap, and for
each config section NAME and repeat R (from 1) NAME.R.log and NAME.R.json,
the benchmark's JSON record (docs/results.md).

  kmp_results.py compare [--counts-only] [--alpha A] [--json] BASE NEW
  kmp_results.py compare [...] BASE1 BASE2 ... vs NEW1 NEW2 ...
      The mailing-list tables of each tool for BASE (before) and NEW (after):
      medians over repeats, their range, and each change's statistics
      (kmp_verdicts.py: intervals, an exact rank test, "~" where it is not
      significant at alpha).  Several folders a side are one boot each:
      the sample is then each boot's median.  Under icount, and alone with
      --counts-only (run.sh ab on POWER), the path counts.  --json prints
      every compared figure as data instead (docs/results.md).
  kmp_results.py sweep-table DIR SECTION_PREFIX VAR
      Sections PREFIX-VAR=VALUE of DIR as DIR/sweep.txt, sweep.csv and,
      with gnuplot, sweep.png and sweep.svg.
  kmp_results.py summary DIR
      One line per section: status counts and the main figures' medians.

Exit status: 0 done; 1 gnuplot failed (sweep-table); 2 a bad command line or
bad data: a malformed, truncated or inconsistent record, or parameters that
differ between BASE and NEW.  On bad data compare and sweep-table print one
line per problem on stderr, naming the file, and no table at all.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree or an install
import kmp_json  # noqa: E402
import kmp_stats  # noqa: E402
import kmp_verdicts  # noqa: E402

PROG = "kmp_results.py"
RECORD_NAME = re.compile(r"^(?P<section>.+)\.(?P<repeat>[1-9][0-9]*)\.json$")
LOG_NAME = re.compile(r"^(?P<section>.+)\.(?P<repeat>[1-9][0-9]*)\.log$")
# The record versions this reader takes (docs/results.md, Versioning), and
# what a command line meant differently in each.
SCHEMA_VERSIONS = (1, 2)
SCHEMA_CHANGES = {
    2: "-o gave the vCPUs -b bytes in all before version 2, and -v x -b since (upstream's "
       "meaning); zap_latency's -b was the total before version 2, and is per vCPU since",
}
ENVELOPE = ("schema_version", "tool", "tool_version", "command", "started_at", "host",
            "status", "reason", "finished_at")
ZAP_EVENT = "kvm_mmu_zap_all_fast"     # zap_latency's line name when a record names none
NOTE_1RUN = kmp_verdicts.NOTE_1RUN
JUDGE = kmp_verdicts.Judge(0.05)    # compare's, set from --alpha
# Every number a writer emits is a u64 or a double of that order: bigger ones
# (or 1e999, which Python reads as infinity) are bad data, not figures that
# overflow the arithmetic of the tables.
NUM_LIMIT = 2 ** 64


class BadData(Exception):
    """A record (or a pair of sections) that must not be turned into a table."""


# ---------------------------------------------------------------- loading

class _BadNumber(ValueError):
    pass


def _json_int(text):
    v = int(text)
    if abs(v) > NUM_LIMIT:
        raise _BadNumber("number %.40s is out of range (the limit is 2^64)" % text)
    return v


def _json_float(text):
    v = float(text)
    if not math.isfinite(v) or abs(v) > NUM_LIMIT:
        raise _BadNumber("number %.40s is out of range (the limit is 2^64)" % text)
    return v


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_figures(figs, where):
    """The fixed figure shape of the schema: {unit, value[, values]}."""
    if not isinstance(figs, dict):
        raise BadData("%s is not an object" % where)
    for name, f in figs.items():
        if not isinstance(f, dict) or set(f) - {"unit", "value", "values"}:
            raise BadData("%s/%s is not a figure {unit, value, values}" % (where, name))
        if not isinstance(f.get("unit"), str) or not f["unit"]:
            raise BadData("%s/%s has no unit" % (where, name))
        if "value" not in f or not (f["value"] is None or _is_num(f["value"])):
            raise BadData("%s/%s: value is not a number or null" % (where, name))
        if "values" in f and not (isinstance(f["values"], list) and
                                  all(_is_num(v) for v in f["values"])):
            raise BadData("%s/%s: values is not an array of numbers" % (where, name))


def _check_tool_members(rec):
    """The tool-specific members the tables compute with have their C types."""
    params = rec.get("params", {})
    if rec["tool"] == "dirty_log_perf":
        chunk = params.get("clear_chunk_bytes", 0)
        if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 0:
            raise BadData("params/clear_chunk_bytes is not a byte count")
    if rec["tool"] == "demand_paging":
        if params.get("vcpus") is not None and not _is_num(params["vcpus"]):
            raise BadData("params/vcpus is not a number")
        if not isinstance(params.get("mem_fault_exits", False), bool):
            raise BadData("params/mem_fault_exits is not true or false")
        why = rec.get("mem_fault_exits_unsupported")
        if why is not None and not isinstance(why, str):
            raise BadData("mem_fault_exits_unsupported is not a string or null")
    if rec["tool"] == "zap_latency":
        trace = rec.get("trace", {})
        if not isinstance(trace, dict):
            raise BadData("trace is not an object")
        for key in ("span_function", "lock_breaks_unavailable"):
            if trace.get(key) is not None and not isinstance(trace[key], str):
                raise BadData("trace/%s is not a string or null" % key)


def load_record(path):
    """Parse and check one record; BadData says what is wrong with it."""
    try:
        with open(path, encoding="utf-8") as f:
            rec = kmp_json.load(f, parse_int=_json_int, parse_float=_json_float)
    except OSError as e:
        raise BadData("cannot read: %s" % e.strerror) from e
    except UnicodeDecodeError as e:
        raise BadData("not UTF-8: %s" % e) from e
    except _BadNumber as e:
        raise BadData(str(e)) from e
    except ValueError as e:     # JSONDecodeError included: a truncated file lands here
        raise BadData("not valid JSON (truncated?): %s" % e) from e
    except RecursionError as e:
        raise BadData("not a result record: nested too deeply") from e
    if not isinstance(rec, dict) or "schema_version" not in rec:
        raise BadData("not a result record (no schema_version)")
    if rec["schema_version"] not in SCHEMA_VERSIONS or isinstance(rec["schema_version"], bool):
        raise BadData("schema_version %r, this reader knows %s" % (
            rec["schema_version"], " and ".join(str(v) for v in SCHEMA_VERSIONS)))
    missing = [m for m in ENVELOPE if m not in rec]
    if missing:
        raise BadData("incomplete record: no %s" % ", ".join(missing))
    if not isinstance(rec["tool"], str) or not rec["tool"]:
        raise BadData("no tool name")
    if not isinstance(rec["host"], dict):
        raise BadData("host is not an object")
    if rec["reason"] is not None and not isinstance(rec["reason"], str):
        raise BadData("reason is not a string or null")
    if rec["status"] not in ("pass", "fail", "skip", "interrupted"):
        raise BadData("status %r is not pass, fail, skip or interrupted" % (rec["status"],))
    if not isinstance(rec.get("params", {}), dict):
        raise BadData("params is not an object")
    _check_tool_members(rec)
    if "figures" in rec:
        _check_figures(rec["figures"], "figures")
    caveats = rec.get("caveats", {})
    if not isinstance(caveats, dict) or not all(isinstance(v, str) for v in caveats.values()):
        raise BadData("caveats is not an object of strings")
    runs = rec.get("runs")
    if runs is not None:
        if not isinstance(runs, list):
            raise BadData("runs is not an array")
        for i, run in enumerate(runs):
            if (not isinstance(run, dict) or not _is_num(run.get("vcpus"))
                    or not isinstance(run.get("mem_fault_exits"), bool)):
                raise BadData("runs/%d lacks vcpus or mem_fault_exits" % i)
            _check_figures(run.get("figures"), "runs/%d/figures" % i)
    # A passing run measured something: its figures (a demand_paging sweep
    # keeps them per run, under runs).
    if rec["status"] == "pass" and "figures" not in rec and runs is None:
        raise BadData("status pass but no figures")
    return rec


class Section:
    """One config section of a result set: its repeats, sorted by status."""

    def __init__(self, name):
        self.name = name
        self.tool = None
        self.params = None      # of the passing repeats, which must agree
        self.params_from = None  # the file they were first read from
        self.passed = []        # (repeat, record) with status pass
        self.excluded = []      # (repeat, status, reason) of fail/skip records
        self.no_record = []     # repeats with a log but no JSON record
        self.bad = False        # a record of it is unusable (reported as an error)
        self.schemas = set()    # schema_version of its records
        self.boots = []         # compare with several folders a side: passed, per folder

    def counts(self):
        c = {"pass": len(self.passed), "fail": 0, "skip": 0, "interrupted": 0}
        for _, status, _ in self.excluded:
            c[status] += 1
        return c


def load_set(folder):
    """All records of a result folder: ({name: Section}, [error lines])."""
    sections, errors = {}, []
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        return {}, ["%s: cannot read the result folder: %s" % (folder, e.strerror)]
    for fname in names:
        m = RECORD_NAME.match(fname)
        if not m:
            continue
        path = os.path.join(folder, fname)
        sec = sections.setdefault(m["section"], Section(m["section"]))
        repeat = int(m["repeat"])
        try:
            rec = load_record(path)
            sec.schemas.add(rec["schema_version"])
            if sec.tool is None:
                sec.tool = rec["tool"]
            elif rec["tool"] != sec.tool:
                raise BadData("tool %s, but other repeats of section %s ran %s"
                              % (rec["tool"], sec.name, sec.tool))
            if rec["status"] == "pass":
                params = rec.get("params", {})
                if sec.params is None:
                    sec.params, sec.params_from = params, fname
                elif params != sec.params:
                    raise BadData("parameters differ from those of %s (same section): %s"
                                  % (sec.params_from, ", ".join(param_diff(params, sec.params))))
                sec.passed.append((repeat, rec))
            else:
                sec.excluded.append((repeat, rec["status"], rec["reason"]))
        except BadData as e:
            sec.bad = True
            errors.append("%s: %s" % (path, e))
    verdicts = ktap_verdicts(folder)
    for fname in names:         # a log without a record: summary.ktap has its verdict
        m = LOG_NAME.match(fname)
        if m and not os.path.exists(os.path.join(folder, fname[:-4] + ".json")):
            sec = sections.setdefault(m["section"], Section(m["section"]))
            v = verdicts.get((m["section"], int(m["repeat"])))
            if v:
                sec.excluded.append((int(m["repeat"]), v[0], v[1] + " (no record)"))
            else:       # the run died hard, before run.sh could say how it ended
                sec.no_record.append(int(m["repeat"]))
    return sections, errors


KTAP_RESULT = re.compile(r"^(?P<not>not )?ok \d+ (?P<section>\S+)\.(?P<repeat>[1-9][0-9]*)"
                         r"(?: # (?P<skip>SKIP )?(?P<reason>.*))?$")


def ktap_verdicts(folder):
    """run.sh's summary.ktap, {(section, repeat): (status, reason)}: one source of truth."""
    out = {}
    try:
        with open(os.path.join(folder, "summary.ktap"), errors="replace") as f:
            for line in f:
                m = KTAP_RESULT.match(line.rstrip("\n"))
                if m:
                    status = "fail" if m["not"] else "skip" if m["skip"] else "pass"
                    out[(m["section"], int(m["repeat"]))] = (status, m["reason"] or "")
    except OSError:
        pass
    return out


def incomplete_note(folder):
    """run.sh's mark on a folder whose run was interrupted or is still going, or None."""
    try:
        with open(os.path.join(folder, "incomplete"), errors="replace") as f:
            return one_line(f.read().strip()) or "no reason given"
    except OSError:
        return None


def param_diff(a, b):
    """The keys whose values differ, as 'key (A vs B)'."""
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k, "absent") != b.get(k, "absent"):
            out.append("%s (%s vs %s)" % (k, json.dumps(a.get(k, "absent")),
                                          json.dumps(b.get(k, "absent"))))
    return out


def one_line(text):
    """text with newlines and other unprintable characters escaped (\\n, \\x1b)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def fail(errors):
    for e in errors:    # one line per problem, whatever names and values it quotes
        print("%s: %s" % (PROG, one_line(e)), file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- statistics

class Stat:
    """Median, min and max of the samples (repeats or runs) of one number;
    where (section, figure, unit) names it for compare's verdict rows, and
    kind says what one sample is (a run, or one boot's median)."""

    def __init__(self, samples, where=None, kind="runs"):
        self.samples = [s for s in samples if s is not None]
        self.where, self.kind = where, kind
        self.n = len(self.samples)
        if self.n:
            self.med = statistics.median(self.samples)
            self.lo, self.hi = min(self.samples), max(self.samples)

    def spread(self):
        """(max - min) / |median|: the relative spread."""
        if self.med == 0:
            return 0.0 if self.hi == self.lo else math.inf
        return (self.hi - self.lo) / abs(self.med)


def rel_change(b, n):
    if b.med == 0:
        return 0.0 if n.med == 0 else math.inf
    return (n.med - b.med) / abs(b.med)


def verdict(b, n, label):
    """compare's verdict row for BASE b and NEW n (kmp_verdicts.Judge)."""
    sec, fig, unit = b.where or n.where or ("", label, None)
    return JUDGE.judge(sec, fig, unit, b.samples, n.samples, b.kind)


def pct_cell(b, n, row=None):
    """The seed-000 cell: the percentage change, integer, '56%' / '-81%';
    ' ~' after it where the row says the change is not significant."""
    if not b.n or not n.n or b.med == 0:
        return "n/a"
    cell = "%.0f%%" % (100 * rel_change(b, n))
    cell = "0%" if cell == "-0%" else cell
    return cell + (" ~" if row and row["verdict"] not in ("change", "exact") else "")


def range_text(s, fmt):
    one = s.kind[:-1]
    if s.n == 1:
        return "1 " + one
    ci = kmp_stats.median_ci(s.samples, kmp_verdicts.CONF)
    return "%s..%s (%d %s, spread %.1f%%, %s)" % (
        fmt(s.lo), fmt(s.hi), s.n, s.kind, 100 * s.spread(),
        "median %.1f%% CI %s..%s" % (100 * ci.coverage, fmt(ci.lo), fmt(ci.hi)) if ci else
        "the range: an exact %g%% median CI needs 6 %s" % (100 * kmp_verdicts.CONF, s.kind))


def compare_line(label, b, n, fmt, how="pct", rfmt=None, row=None):
    """'  label: B -> N (+x.x% | xR); base lo..hi (...), new lo..hi (...) note'.

    fmt formats the medians, rfmt (default fmt) the ranges; row is the
    verdict when the caller already has it (a table cell judged it)."""
    rfmt = rfmt or fmt
    if not b.n or not n.n:
        return "  %s: %s -> %s" % (label, fmt(b.med) if b.n else "n/a",
                                   fmt(n.med) if n.n else "n/a")
    rel = rel_change(b, n)
    if math.isinf(rel):
        change = "n/a"
    elif how == "ratio":
        change = "x%.2f" % (1 + rel)
    else:
        change = "%+.1f%%" % (100 * rel)
    line = "  %s: %s -> %s (%s); base %s, new %s" % (
        label, fmt(b.med), fmt(n.med), change, range_text(b, rfmt), range_text(n, rfmt))
    note = JUDGE.note(row or verdict(b, n, label))
    return line + (" " + note if note else "")


# ---------------------------------------------------------------- formats

def fmt_ts(sec):
    """Seconds the way the C code prints a timespec: %ld.%.9lds."""
    ns = int(round(sec * 1e9))
    return "%d.%09ds" % (ns // 10**9, ns % 10**9)


def fmt_int(v):
    return "%d" % int(round(v))


def fmt_num(v):
    return fmt_int(v) if float(v).is_integer() else "%.3f" % v


def fmt_value(v, unit):
    """A figure's value with its unit, for summaries."""
    if v is None:
        return "n/a"
    if unit == "s":
        return fmt_ts(v)
    if unit in ("ns", "pages", "pages/s", "breaks"):
        return "%s %s" % (fmt_int(v), unit)
    return "%s %s" % (fmt_num(v), unit)


def fmt_size(nbytes):
    """The seed-000 chunk column: lib/report.c size_format() with a B ('1GB', '64MB')."""
    if nbytes == 0:
        return "whole slot"
    for i in range(3, -1, -1):
        unit = 1 << (10 * (i + 1))
        whole, rem = divmod(nbytes, unit)
        if not whole:
            continue
        if rem % (unit // 4):
            break
        frac = {0: "", 2: ".5"}.get(rem * 4 // unit, ".%d" % (rem * 4 // unit * 25))
        return "%d%s%sB" % (whole, frac, "KMGT"[i])
    for i in range(3, -1, -1):
        unit = 1 << (10 * (i + 1))
        if nbytes >= unit and nbytes % unit == 0:
            return "%d%sB" % (nbytes // unit, "KMGT"[i])
    return "%dB" % nbytes


def framed_table(header, rows):
    """A '+====+' framed table in seed 000's style."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]

    def line(cells):
        return "|" + "|".join(" %-*s " % (w, c) for w, c in zip(widths, cells)) + "|"
    double = "+" + "+".join("=" * (w + 2) for w in widths) + "+"
    single = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [double, line(header), double]
    for r in rows:
        out += [line(r), single]
    return out


# ---------------------------------------------------------------- record access

def fig_value(rec, name):
    f = rec.get("figures", {}).get(name)
    return f.get("value") if f else None


def fig_stat(sec, name):
    """Median etc. over the repeats of one figure's value; with several boots
    a side, over each boot's median."""
    unit = next((rec["figures"][name].get("unit") for _, rec in sec.passed
                 if name in rec.get("figures", {})), None)
    if len(sec.boots) > 1:
        meds = [Stat(fig_value(rec, name) for _, rec in boot) for boot in sec.boots]
        return Stat((m.med for m in meds if m.n), (sec.name, name, unit), "boots")
    return Stat((fig_value(rec, name) for _, rec in sec.passed), (sec.name, name, unit))


def fig_caveat(sec, name):
    """Why a run of the section found the figure says little (its record's caveats), or None."""
    for _, rec in sec.passed:
        if rec.get("caveats", {}).get(name):
            return rec["caveats"][name]
    return None


def dlp_clear_figure(sec):
    """dirty_log_perf's clear figure and its labels (the ring resets instead)."""
    if sec.params.get("log") == "dirty_ring":
        return "reset_dirty_rings_time", "reset dirty rings", "Reset dirty rings"
    return "clear_dirty_log_time", "clear dirty log", "Clear dirty log"


def dp_runs(rec):
    """demand_paging: (vcpus, mem_fault_exits, overall rate) of every run of a record."""
    if rec.get("runs") is not None:
        return [(int(r["vcpus"]), r["mem_fault_exits"],
                 r["figures"].get("overall_paging_rate", {}).get("value")) for r in rec["runs"]]
    p = rec.get("params", {})
    return [(p.get("vcpus"), p.get("mem_fault_exits", False),
             fig_value(rec, "overall_paging_rate"))]


def dp_cells(secs):
    """{(vcpus, w): Stat of the rates in K pages/s} over every run of the sections."""
    samples = {}
    for sec in secs:
        for _, rec in sec.passed:
            for vcpus, w, rate in dp_runs(rec):
                if rate is not None and vcpus is not None:
                    samples.setdefault((vcpus, w), []).append(rate / 1000)
    return {k: Stat(v) for k, v in samples.items()}


# ---------------------------------------------------------------- compare

def print_dirty_log_perf(pairs):
    """Seed 000's chunk table for the -j sections; seed 003's blocks for the lockstep ones."""
    seed000 = [p for p in pairs if p[0].params.get("nonstop")]
    seed003 = [p for p in pairs if not p[0].params.get("nonstop")]
    if seed000:
        print_dlp_seed000(seed000)
    if seed003:
        if seed000:
            print()
        print_dlp_seed003(seed003)


def print_dlp_seed000(pairs):
    def chunk(p):
        return p[0].params.get("clear_chunk_bytes", 0)
    pairs = sorted(pairs, key=lambda p: (chunk(p) != 0, -chunk(p), p[0].name))
    labels = [fmt_size(chunk(p)) for p in pairs]
    labels = [lab if labels.count(lab) == 1 else "%s (%s)" % (lab, p[0].name)
              for lab, p in zip(labels, pairs)]
    rows, caveats, verdicts, unknown = [], [], [], []
    for lab, (b, n) in zip(labels, pairs):
        clear = dlp_clear_figure(b)[0]
        # A loop too short for the vCPUs' figure: no percentage from it.
        why = [(side, fig_caveat(sec, "pages_touched")) for side, sec in (("BASE", b), ("NEW", n))]
        why = [(side, w) for side, w in why if w]
        caveats += ["%s %s: %s" % (lab, side, w) for side, w in why]
        vc = verdict(fig_stat(b, clear), fig_stat(n, clear), clear)
        vp = verdict(fig_stat(b, "pages_touched"), fig_stat(n, "pages_touched"), "pages_touched")
        verdicts.append((vc, vp))
        unknown += ["%s %s" % (lab, col) for col, v in (("clear time", vc), ("vCPUs", vp))
                     if v["verdict"] == "1 run" and not (col == "vCPUs" and why)]
        rows.append([lab, pct_cell(fig_stat(b, clear), fig_stat(n, clear), vc),
                     "n/a (loop too short)" if why else
                     pct_cell(fig_stat(b, "pages_touched"), fig_stat(n, "pages_touched"), vp)])
    print("dirty_log_perf (seed 000): median over repeats, BASE -> NEW")
    print("\n".join(framed_table(
        ["Clear Chunk size", "Clear dirty log time change", "vCPUs improvement"], rows)))
    for c in caveats:
        print("# vCPUs improvement n/a, %s" % c)
    # The table keeps the post's layout; a cell's ~ says its change is not significant.
    print("# ~: not significant at alpha %g (exact rank test; the lines below give p and the "
          "intervals)" % JUDGE.alpha)
    if unknown:
        print("# noise unknown (1 run): %s" % ", ".join(unknown))
    print("Clear dirty log time change: of the clear time's median total; vCPUs improvement:"
          " of the median pages touched (-j: while the host ran its iterations).")
    for lab, (b, n), (vc, vp) in zip(labels, pairs, verdicts):
        clear, name, _ = dlp_clear_figure(b)
        print()
        print("%s, clear chunk %s:" % (b.name, fmt_size(chunk((b, n)))))
        print(compare_line(name + " time", fig_stat(b, clear), fig_stat(n, clear), fmt_ts,
                           row=vc))
        print(compare_line("pages touched", fig_stat(b, "pages_touched"),
                           fig_stat(n, "pages_touched"), fmt_int, row=vp))


def median_run(sec, fig):
    """The passing record whose figure is the median (the lower one of an even count)."""
    runs = sorted((rec for _, rec in sec.passed if fig_value(rec, fig) is not None),
                  key=lambda rec: fig_value(rec, fig))
    return runs[(len(runs) - 1) // 2] if runs else None


def print_dlp_seed003(pairs):
    print("dirty_log_perf (seed 003): BASE -> NEW; each block is one run, the median by total")
    for b, n in sorted(pairs, key=lambda p: p[0].name):
        clear, name, total_name = dlp_clear_figure(b)
        print()
        print("%s:" % b.name)
        print(compare_line(name + " time", fig_stat(b, clear), fig_stat(n, clear), fmt_ts))
        for title, sec in zip(SIDE_TITLES, (b, n)):
            print()
            print(title)
            print("-" * len(title))
            rec = median_run(sec, clear)
            iters = rec["figures"][clear].get("values", []) if rec else []
            if not iters:
                print("(no %s time in these records)" % name)
                continue
            # The run's own lines: they add up to its total, as the post's do.
            for i, v in enumerate(iters):
                print("Iteration %d %s time: %s" % (i + 1, name, fmt_ts(v)))
            total = fig_value(rec, clear)
            avg_ns = int(round(total * 1e9)) // len(iters)
            print("%s over %d iterations took %s. (Avg %s/iteration)"
                  % (total_name, len(iters), fmt_ts(total), fmt_ts(avg_ns / 1e9)))
            t = fig_stat(sec, clear)
            print("# the median of %d run(s) by total; totals %s" % (t.n, range_text(t, fmt_ts)))


def print_demand_paging(pairs):
    # Sections of one workload (all but the vCPU count, -w and the sweep) share a table.
    groups = {}
    for b, n in pairs:
        key = json.dumps({k: v for k, v in b.params.items()
                          if k not in ("vcpus", "mem_fault_exits", "sweep_vcpus", "repeat")},
                         sort_keys=True)
        groups.setdefault(key, []).append((b, n))
    for key, grp in groups.items():
        workload = json.loads(key)
        names = ", ".join(b.name for b, _ in grp)
        print("demand_paging (seed 002): sections %s" % names)
        print("# " + ", ".join("%s %s" % (k, json.dumps(v)) for k, v in workload.items()))
        cells = [dp_cells([b for b, _ in grp]), dp_cells([n for _, n in grp])]
        counts = sorted({v for c in cells for v, _ in c})
        for title, c in (("BASE", cells[0]), ("NEW", cells[1])):
            print("%s:" % title)
            # The post's two columns hold means, as its "average of five runs" does.
            print("vCPUs, Paging Rate (w/o new cap), Paging Rate (w/ new cap), w/ : w/o")
            for v in counts:
                means = [statistics.mean(c[(v, w)].samples) if (v, w) in c else None
                         for w in (False, True)]
                ratio = "n/a"
                if None not in means and means[0]:
                    # The ratio cell compares the two columns: judged as any change is.
                    row = JUDGE.judge(names, "%d vCPUs w/ : w/o new cap (%s)" % (v, title),
                                      "K pages/s", c[(v, False)].samples, c[(v, True)].samples)
                    ratio = "x%.2f" % (means[1] / means[0]) + (
                        " ~" if row["verdict"] not in ("change", "exact") else "")
                print(" ".join([str(v)] + ["%.0f" % m if m is not None else "n/a" for m in means]
                               + [ratio]))
            if any(w for _, w in c):
                # Which kernel each column is from (ab: A unpatched, B patched).
                print("# both columns from %s's kernel: each vCPU count run without and with -w "
                      "in one run (--sweep-vcpus)" % title)
            for v in counts:
                print("# %d vCPUs: median (range) %s" % (v, ", ".join(
                    "%s %.0f (%.0f..%.0f)" % (what, c[(v, w)].med, c[(v, w)].lo, c[(v, w)].hi)
                    for w, what in ((False, "w/o"), (True, "w/")) if (v, w) in c)))
        print("# rates in thousands of pages/s: the table holds each cell's mean over every run "
              "of every repeat; the medians and ranges are on the # lines; ~: the two columns "
              "do not differ significantly (alpha %g)" % JUDGE.alpha)
        print("BASE -> NEW:")
        for v in counts:
            for w, what in ((False, "w/o new cap"), (True, "w/ new cap")):
                b, n = cells[0].get((v, w)), cells[1].get((v, w))
                if b or n:
                    b, n = b or Stat([]), n or Stat([])
                    b.where = (names, "%d vCPUs, %s" % (v, what), "K pages/s")
                    print(compare_line(b.where[1], b, n, lambda x: "%.0f" % x, "ratio",
                                       lambda x: "%.1f" % x))
        reasons = sorted({rec.get("mem_fault_exits_unsupported") for b, n in grp
                          for _, rec in b.passed + n.passed} - {None})
        for r in reasons:
            print("# n/a: %s" % r)


def fmt_k_per_sec(rate):
    """tlbie_bench's line: the post's %.1fK/sec from 100/s up, else 3 significant digits."""
    return "%.1fK/sec" % (rate / 1000) if rate >= 100 else "%.3gK/sec" % (rate / 1000)


def profile_lines(rec):
    """A record's host profile as '74.52%  [k] do_tlbies' lines, or one line saying why not."""
    prof = rec.get("profile") if rec else None
    if prof is None:
        return ["not recorded (run without --profile)"]
    if not prof.get("top"):
        return ["unavailable: %s" % (prof.get("unavailable") or "no samples")]
    return ["%6.2f%%  %s" % (t["share_pct"], t["symbol"]) for t in prof["top"]]


def print_tlbie_bench(pairs):
    print("tlbie_bench (seed 001): forks/s over all vCPUs, BASE -> NEW")
    for b, n in pairs:
        p = b.params
        print("%s (vcpus %s, flush %s, shared %s, pages %s):" % (
            b.name, p.get("vcpus"), p.get("flush"), str(p.get("shared")).lower(), p.get("pages")))
        print(compare_line("total throughput", fig_stat(b, "throughput"),
                           fig_stat(n, "throughput"), fmt_k_per_sec, "ratio",
                           lambda v: "%.3g/sec" % v))
        # The post's other evidence: the top of the host profile, before and after.
        base, new = (profile_lines(median_run(sec, "throughput")) for sec in (b, n))
        width = max(len(l) for l in base)
        print("  host profile of the median run, BASE | NEW:")
        for i in range(max(len(base), len(new))):
            print("    %-*s | %s" % (width, base[i] if i < len(base) else "",
                                   new[i] if i < len(new) else ""))


def print_zap_latency(pairs):
    print("zap_latency (seed 004): medians over repeats of each run's median over its zaps")
    hexdec = lambda v: "%d ns (0x%x)" % (int(round(v)), int(round(v)))   # noqa: E731
    for b, n in pairs:
        print("%s:" % b.name)
        for title, sec in (("base:", b), ("new: ", n)):
            brk, win = fig_stat(sec, "lock_breaks"), fig_stat(sec, "kernel_zap_span")
            trace = sec.passed[0][1].get("trace", {}) if sec.passed else {}
            if win.n:
                if brk.n:
                    print("  %s lock-break: %d." % (title, int(round(brk.med))))
                else:   # no kretprobes there: never an inferred number
                    print("  %s lock-break: not observable (%s)" % (
                        title, trace.get("lock_breaks_unavailable") or "not in the record"))
                print("        %s: %x." % (trace.get("span_function") or ZAP_EVENT,
                                         int(round(win.med))))
            else:
                reason = sec.params.get("trace_unavailable") or "no traced zap"
                print("  %s trace figures unavailable: %s" % (title, reason))
        print(compare_line("kernel zap span", fig_stat(b, "kernel_zap_span"),
                           fig_stat(n, "kernel_zap_span"), hexdec, "pct", fmt_int))
        print(compare_line("ioctl latency", fig_stat(b, "ioctl_latency"),
                           fig_stat(n, "ioctl_latency"), lambda v: "%d ns" % int(round(v))))
        print(compare_line("lock breaks", fig_stat(b, "lock_breaks"),
                           fig_stat(n, "lock_breaks"), fmt_num))
        for name, title in (("longest_stretch", "longest stretch without a break"),
                            ("lock_break_offers", "lock-break offers"),
                            ("pages_before_first_offer", "pages zapped before the first offer"),
                            ("mmu_shadow_zapped", "MMU pages zapped"),
                            ("mappings_dropped", "mappings dropped")):
            if fig_stat(b, name).n or fig_stat(n, name).n:
                print(compare_line(title, fig_stat(b, name), fig_stat(n, name), fmt_num))


def print_generic(pairs):
    for b, n in pairs:
        print("%s (%s): every figure, BASE -> NEW" % (b.name, b.tool))
        names = sorted({k for _, r in b.passed + n.passed for k in r.get("figures", {})})
        for name in names:
            unit = next(r["figures"][name]["unit"] for _, r in b.passed + n.passed
                        if name in r.get("figures", {}))
            print(compare_line(name, fig_stat(b, name), fig_stat(n, name),
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


def print_alternates(base, new, alpha):
    """tlbie_bench --alternate: a switch's two settings measured in turn in
    one run, so within one boot; the pair ratios of every run pooled."""
    names = sorted(name for side in (base, new) for name, sec in side.items()
                   if any(rec.get("alternate") for _, rec in sec.passed))
    if not names:
        return
    print()
    print("within one boot (tlbie_bench --alternate: both settings in turn, 1 s phases in "
          "pairs; the host's clock compared only with itself):")
    for name in sorted(set(names)):
        print("%s:" % name)
        for label, side in (("BASE", base), ("NEW", new)):
            sec = side.get(name)
            runs = [rec for _, rec in sec.passed if rec.get("alternate")] if sec else []
            if not runs:
                why = ("; ".join(sorted({r for _, _, r in sec.excluded if r}))
                       if sec and sec.excluded else "not run")
                print("  %s: no --alternate result (%s)" % (label, why or "no passing run"))
                continue
            param = runs[0]["alternate"]["param"]
            ratios = [v for rec in runs
                      for v in rec["figures"]["alternate_ratio"].get("values", [])]
            if not ratios:
                print("  %s: %s: no whole pair of phases" % (label, param))
                continue
            lo, hi, p = kmp_stats.sign_test(ratios)
            print("  %s: %s 1/0 throughput x%.3f (median of %d pair ratios over %d run(s), "
                  "%.3f-%.3f; lower with 1 in %d, higher in %d; sign test p = %.3g)%s"
                  % (label, param, kmp_stats.median(ratios), len(ratios), len(runs),
                     min(ratios), max(ratios), lo, hi, p,
                     "" if p <= alpha else ": ~ (no significant change at alpha %g)" % alpha))


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


PRINTERS = {"dirty_log_perf": print_dirty_log_perf, "demand_paging": print_demand_paging,
            "tlbie_bench": print_tlbie_bench, "zap_latency": print_zap_latency}


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


def boot_id(folder):
    """host.txt's boot_id line (run.sh writes it), or None."""
    try:
        with open(os.path.join(folder, "host.txt"), errors="replace") as f:
            for line in f:
                if line.startswith("boot_id: "):
                    value = line.split(": ", 1)[1].strip()
                    return value if value != "unknown" else None
    except OSError:
        pass
    return None


def load_boots(folders):
    """Several result folders of one side, one per boot, as one set whose
    sections keep each folder's passing runs apart (Section.boots)."""
    if len(folders) == 1:
        return load_set(folders[0])
    merged, errors = {}, []
    for folder in folders:
        sections, errs = load_set(folder)
        errors += errs
        for name, sec in sections.items():
            into = merged.get(name)
            if into is None:
                into = merged[name] = sec
                sec.boots = [sec.passed]
                continue
            if sec.tool and into.tool and sec.tool != into.tool:
                errors.append("%s: section %s ran %s, but %s in another boot's folder"
                              % (folder, name, sec.tool, into.tool))
                into.bad = True
            elif sec.params is not None and into.params is not None and \
                    sec.params != into.params:
                errors.append("%s: section %s: parameters differ from another boot's: %s"
                              % (folder, name, ", ".join(param_diff(sec.params, into.params))))
                into.bad = True
            into.params = into.params if into.params is not None else sec.params
            into.tool = into.tool or sec.tool
            into.passed += sec.passed
            into.boots.append(sec.passed)
            into.excluded += sec.excluded
            into.no_record += sec.no_record
            into.bad |= sec.bad
            into.schemas |= sec.schemas
    return merged, errors


def split_sides(folders):
    """BASE NEW, or BASE... vs NEW...: ([base folders], [new folders])."""
    if "vs" not in folders:
        if len(folders) != 2:
            fail(["compare takes BASE NEW, or BASE1 BASE2 ... vs NEW1 NEW2 ... (one folder per "
                  "boot); got %d folders and no 'vs'" % len(folders)])
        return folders[:1], folders[1:]
    at = folders.index("vs")
    if folders.count("vs") != 1 or at == 0 or at == len(folders) - 1:
        fail(["compare: 'vs' must stand once between BASE's folders and NEW's, with one or "
              "more on each side"])
    return folders[:at], folders[at + 1:]


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


def cmd_compare(args):
    if not 0 < args.alpha < 1:
        fail(["--alpha %g: a significance level is above 0 and below 1 (0.05 by default)"
              % args.alpha])
    JUDGE.alpha = args.alpha
    base_dirs, new_dirs = split_sides(args.folders)
    args.base, args.new = " ".join(base_dirs), " ".join(new_dirs)
    base, base_err = load_boots(base_dirs)
    new, new_err = load_boots(new_dirs)
    errors = ["BASE " + e for e in base_err] + ["NEW " + e for e in new_err]
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
    if base and new and not set(base) & set(new):
        errors.append("BASE and NEW have no section in common (BASE: %s; NEW: %s): nothing "
                      "to compare" % (", ".join(sorted(base)), ", ".join(sorted(new))))
    hb, hn = host_line(base), host_line(new)
    errors += host_errors(hb, hn)
    if errors:
        fail(errors)        # nothing on stdout: no table from bad data
    if args.json:           # the rows are the data: the text goes nowhere
        with open(os.devnull, "w") as null:
            stdout, sys.stdout = sys.stdout, null
            try:
                print_compare(args, base, new, notes, pairs, hb, hn, base_dirs, new_dirs)
            finally:
                sys.stdout = stdout
        out = JUDGE.as_json()
        out.update({"base": base_dirs, "new": new_dirs, "notes": notes})
        print(json.dumps(out, indent=1))
        return 0
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
    for tool in list(PRINTERS) + sorted(set(pairs) - set(PRINTERS)):
        if tool in pairs and not args.counts_only:
            print()
            PRINTERS.get(tool, print_generic)(pairs[tool])
    if args.counts_only:
        print()
        print_counted_figures([p for tool in sorted(pairs) for p in pairs[tool]])
    print_alternates(base, new, args.alpha)
    if args.counts_only or hb and clock_kind(hb) == "emulated, icount":
        print()
        print_path_counts([p for tool in sorted(pairs) for p in pairs[tool]])
    if JUDGE.rows:
        print()
        for line in JUDGE.summary_lines():
            print(line)


# ---------------------------------------------------------------- sweep-table

SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([KMGT])B?$", re.I)


def sweep_number(text):
    """A sweep value as a number: 4, 0.5, or a size (64M, 1G) in bytes."""
    try:
        return float(text)
    except ValueError:
        pass
    m = SIZE.match(text)
    if not m:
        return None
    return float(m[1]) * 1024 ** ("KMGT".index(m[2].upper()) + 1)


def _fig(names, scale=1.0):
    """The value of the first of the figures (space-separated names) the record has."""
    def samples(rec):
        v = next((fig_value(rec, n) for n in names.split() if n in rec.get("figures", {})), None)
        return [None if v is None else v * scale]
    return samples


def _dp_rates(w):
    return lambda rec: [r / 1000 for v, ww, r in dp_runs(rec) if ww == w and r is not None]


# Per tool: (column, label, unit, samples of one record, y axis) of each series.
SWEEP_SERIES = {
    "demand_paging": [
        ("paging_rate_kpages_s", "paging rate w/o new cap", "K pages/s", _dp_rates(False), 1),
        ("paging_rate_w_kpages_s", "paging rate w/ new cap", "K pages/s", _dp_rates(True), 1)],
    "dirty_log_perf": [
        ("clear_time_ms", "clear dirty log time", "ms", _fig("clear_dirty_log_time reset_dirty_rings_time", 1e3), 1),
        ("pages_touched", "pages touched", "pages", _fig("pages_touched"), 2)],
    "tlbie_bench": [("throughput_forks_s", "total throughput", "forks/s", _fig("throughput"), 1)],
    "zap_latency": [
        ("ioctl_latency_ms", "ioctl latency", "ms", _fig("ioctl_latency", 1e-6), 1),
        ("kernel_zap_span_ms", "kernel zap span", "ms", _fig("kernel_zap_span", 1e-6), 1)],
}


def gp_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gnuplot_script(folder, var, tool, points, series):
    """Medians with min..max error bars; a second y axis for a second unit."""
    rows = []
    for x, label, _, stats in points:
        cells = []
        for st in stats:
            cells += ["%.9g" % v for v in (st.med, st.lo, st.hi)] if st.n else ["NaN"] * 3
        rows.append(" ".join(["%.9g" % x, gp_quote(label)] + cells))
    xs = [p[0] for p in points]
    logx = min(xs) > 0 and max(xs) / min(xs) >= 16
    units = [s[2] for s in series]
    lines = ["$data << EOD"] + rows + ["EOD",
             "set title %s noenhanced" % gp_quote("%s: %s sweep (median, min..max)"
                                                 % (tool, var)),
             "set xlabel %s noenhanced" % gp_quote(var),
             "set ylabel %s" % gp_quote(units[0]),
             "set grid", "set key below noenhanced", "set yrange [0:*]", 'set format y "%g"',
             "set offsets graph 0.05, graph 0.05, 0, 0"]
    if logx:
        lines.append("set logscale x 2")
    if any(s[4] == 2 for s in series):
        y2 = next(s[2] for s in series if s[4] == 2)
        lines += ["set ytics nomirror", "set y2tics", "set y2range [0:*]",
                  "set y2label %s" % gp_quote(y2), 'set format y2 "%g"']
    plots = []
    for i, s in enumerate(series):
        col = 3 + 3 * i
        plots.append("$data using 1:%d:%d:%d%s axes x1y%d with yerrorlines title %s" % (
            col, col + 1, col + 2, ":xtic(2)" if i == 0 else "", s[4],
            gp_quote("%s (%s)" % (s[1], s[2]))))
    png, svg = os.path.join(folder, "sweep.png"), os.path.join(folder, "sweep.svg")
    lines += ['if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {',
              "  set terminal pngcairo size 900,560", "} else {",
              "  set terminal png size 900,560", "}",
              "set output %s" % gp_quote(png), "plot " + ", ".join(plots),
              "set terminal svg size 900,560", "set output %s" % gp_quote(svg), "replot",
              "unset output"]
    return "\n".join(lines) + "\n"


def cmd_sweep_table(args):
    sections, errors = load_set(args.dir)
    pat = re.compile("^" + re.escape(args.prefix) + "-" + re.escape(args.var) + "=(.+)$")
    chosen = [(m[1], sec) for name, sec in sections.items() for m in [pat.match(name)] if m]
    if not chosen:
        errors.append("%s: no section named %s-%s=VALUE" % (args.dir, args.prefix, args.var))
    tools = sorted({sec.tool for _, sec in chosen if sec.tool})
    if len(tools) > 1:
        errors.append("%s: the sweep's sections ran different tools: %s"
                      % (args.dir, ", ".join(tools)))
    for value, sec in chosen:
        if sweep_number(value) is None:
            errors.append("%s: section %s: sweep value %r is not a number or size"
                          % (args.dir, sec.name, value))
    if errors:
        fail(errors)
    tool = tools[0] if tools else None
    series = SWEEP_SERIES.get(tool, [])
    if not series:
        fail(["%s: no sweep table for tool %s" % (args.dir, tool)])
    points = []         # (x, value as named, section, [Stat per series])
    for value, sec in sorted(chosen, key=lambda c: (sweep_number(c[0]), c[0])):
        stats = [Stat(x for _, rec in sec.passed for x in s[3](rec)) for s in series]
        points.append((sweep_number(value), value, sec, stats))
    # Drop series nobody measured (e.g. -w rates on a kernel without the cap).
    keep = [i for i in range(len(series)) if any(p[3][i].n for p in points)] or [0]
    series = [series[i] for i in keep]
    points = [(x, v, sec, [stats[i] for i in keep]) for x, v, sec, stats in points]

    # sweep.csv: raw medians, min, max and sample counts; sweep.txt: the same, aligned.
    csv = [",".join([args.var, "label", "section", "pass", "not_pass"] +
                    ["%s_%s" % (s[0], k) for s in series for k in ("median", "min", "max", "n")])]
    head = [args.var, "section", "runs"] + ["%s (%s)" % (s[1], s[2]) for s in series]
    txt = [head]
    for x, value, sec, stats in points:
        c = sec.counts()
        cells = ["%.9g" % x, value, sec.name, str(c["pass"]), str(c["fail"] + c["skip"])]
        tcells = [value, sec.name, "%d pass" % c["pass"] +
                  (", %d fail/skip" % (c["fail"] + c["skip"]) if c["fail"] + c["skip"] else "")]
        for st in stats:
            if st.n:
                cells += ["%.9g" % v for v in (st.med, st.lo, st.hi)] + [str(st.n)]
                tcells.append("%.4g [%.4g..%.4g]" % (st.med, st.lo, st.hi))
            else:
                cells += ["", "", "", "0"]
                tcells.append("n/a")
        csv.append(",".join(cells))
        txt.append(tcells)
    widths = [max(len(r[i]) for r in txt) for i in range(len(head))]
    lines = ["# %s sweep of %s over %s: median [min..max] over repeats" % (
        args.prefix, tool, args.var)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in txt]
    with open(os.path.join(args.dir, "sweep.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.dir, "sweep.csv"), "w") as f:
        f.write("\n".join(csv) + "\n")
    print("\n".join(lines))

    gnuplot = shutil.which("gnuplot")
    if not any(st.n for p in points for st in p[3]):
        print("# no plot: no passing run measured anything")
        return 0
    if not gnuplot:
        print("# no plot: gnuplot is not installed (apt-get install gnuplot-nox); "
              "sweep.txt and sweep.csv written")
        return 0
    script = gnuplot_script(args.dir, args.var, tool, points, series)
    res = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
    if res.returncode != 0:
        print("%s: gnuplot failed: %s" % (PROG, res.stderr.strip()), file=sys.stderr)
        return 1
    print("# wrote %s/sweep.{txt,csv,png,svg}" % args.dir)
    return 0


# ---------------------------------------------------------------- summary

MAIN_FIGURES = {
    "dirty_log_perf": ["clear_dirty_log_time", "reset_dirty_rings_time", "get_dirty_log_time",
                       "pages_touched"],
    "tlbie_bench": ["throughput"],
    "zap_latency": ["ioctl_latency", "kernel_zap_span", "lock_breaks"],
}


def cmd_summary(args):
    if not os.path.isdir(args.dir):
        fail(["%s: not a result folder" % args.dir])
    sections, errors = load_set(args.dir)
    total = {"pass": 0, "fail": 0, "skip": 0, "interrupted": 0}
    out = []
    for name in sorted(sections):
        sec = sections[name]
        c = sec.counts()
        for k in total:
            total[k] += c[k]
        status = ", ".join("%d %s" % (c[k], k) for k in ("pass", "fail", "skip", "interrupted")
                           if c[k])
        if sec.no_record:
            status += (", " if status else "") + "%d without a record" % len(sec.no_record)
        figs = []
        if sec.tool == "demand_paging":
            for (v, w), st in sorted(dp_cells([sec]).items()):
                figs.append("%d vCPUs%s %.1fK pages/s" % (v, " -w" if w else "", st.med))
        else:
            names = MAIN_FIGURES.get(sec.tool) or sorted(
                {k for _, r in sec.passed for k in r.get("figures", {})})[:3]
            for fname in names:
                st = fig_stat(sec, fname)
                if st.n:
                    unit = sec.passed[0][1]["figures"][fname]["unit"]
                    figs.append("%s %s" % (fname, fmt_value(st.med, unit)))
        out.append("# %s (%s): %s%s" % (name, sec.tool or "?", status or "no runs",
                                        ("; median " + ", ".join(figs)) if figs else ""))
        for repeat, st, reason in sec.excluded:
            out.append("#   run %d %s: %s" % (repeat, st, reason or "no reason given"))
    for e in errors:
        out.append("#   bad record %s" % e)
    note = incomplete_note(args.dir)
    if note:
        print("# warning: %s is incomplete: %s" % (args.dir, note))
    print("# %s: %d section(s); %d pass, %d fail, %d skip%s%s" % (
        args.dir, len(sections), total["pass"], total["fail"], total["skip"],
        ", %d interrupted" % total["interrupted"] if total["interrupted"] else "",
        ", %d bad record(s)" % len(errors) if errors else ""))
    print("\n".join(out))
    return 0


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # `| head` is no error
    # Text from records and file names from the folder may not encode
    # (lone surrogates, undecodable names): escape them, do not die.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="backslashreplace")
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("compare", help="the seeds' tables for BASE (before) and NEW (after)")
    p.add_argument("--counts-only", action="store_true",
                   help="only the path counts (KVM VM stat deltas), no timings")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level of each test (default 0.05)")
    p.add_argument("--json", action="store_true",
                   help="every compared figure's statistics as JSON, instead of the tables")
    p.add_argument("folders", metavar="FOLDER", nargs="+",
                   help="BASE NEW, or BASE1 BASE2 ... vs NEW1 NEW2 ... (one folder per boot)")
    p = sub.add_parser("sweep-table", help="a sweep's table, CSV and plot")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("prefix", metavar="SECTION_PREFIX")
    p.add_argument("var", metavar="VAR")
    p = sub.add_parser("summary", help="status counts and main medians per section")
    p.add_argument("dir", metavar="DIR")
    args = ap.parse_args()
    return {"compare": cmd_compare, "sweep-table": cmd_sweep_table,
            "summary": cmd_summary}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
