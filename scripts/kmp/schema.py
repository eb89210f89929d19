# SPDX-License-Identifier: GPL-2.0
"""The record schema (docs/results.md): which versions this reader takes, the
envelope every record has, the figure shape, and the bounds on numbers.
check_record() raises BadData naming the first thing wrong."""
import math

# Every number a writer emits is a u64 or a double of that order: bigger ones
# (or 1e999, which Python reads as infinity) are bad data, not figures that
# overflow the arithmetic of the tables.
NUM_LIMIT = 2 ** 64

# The record versions this reader takes (docs/results.md, Versioning), and
# what a command line meant differently in each.
SCHEMA_VERSIONS = (1, 2)

SCHEMA_CHANGES = {
    2: "-o gave the vCPUs -b bytes in all before version 2, and -v x -b since (upstream's "
       "meaning); zap_latency's -b was the total before version 2, and is per vCPU since",
}

ENVELOPE = ("schema_version", "tool", "tool_version", "command", "started_at", "host",
            "status", "reason", "finished_at")


class BadData(Exception):
    """A record (or a pair of sections) that must not be turned into a table."""


class BadNumber(ValueError):
    pass


def parse_int(text):
    v = int(text)
    if abs(v) > NUM_LIMIT:
        raise BadNumber("number %.40s is out of range (the limit is 2^64)" % text)
    return v


def parse_float(text):
    v = float(text)
    if not math.isfinite(v) or abs(v) > NUM_LIMIT:
        raise BadNumber("number %.40s is out of range (the limit is 2^64)" % text)
    return v


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_figures(figs, where):
    """The fixed figure shape of the schema: {unit, value[, values]}."""
    if not isinstance(figs, dict):
        raise BadData("%s is not an object" % where)
    for name, f in figs.items():
        if not isinstance(f, dict) or set(f) - {"unit", "value", "values"}:
            raise BadData("%s/%s is not a figure {unit, value, values}" % (where, name))
        if not isinstance(f.get("unit"), str) or not f["unit"]:
            raise BadData("%s/%s has no unit" % (where, name))
        if "value" not in f or not (f["value"] is None or is_num(f["value"])):
            raise BadData("%s/%s: value is not a number or null" % (where, name))
        if "values" in f and not (isinstance(f["values"], list) and
                                  all(is_num(v) for v in f["values"])):
            raise BadData("%s/%s: values is not an array of numbers" % (where, name))


def check_record(rec, tool_check):
    """A parsed record's envelope, figures and runs; tool_check(rec) checks the
    members of its tool (kmp/tools/) before its figures are read."""
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
    tool_check(rec)
    if "figures" in rec:
        check_figures(rec["figures"], "figures")
    caveats = rec.get("caveats", {})
    if not isinstance(caveats, dict) or not all(isinstance(v, str) for v in caveats.values()):
        raise BadData("caveats is not an object of strings")
    runs = rec.get("runs")
    if runs is not None:
        if not isinstance(runs, list):
            raise BadData("runs is not an array")
        for i, run in enumerate(runs):
            if (not isinstance(run, dict) or not is_num(run.get("vcpus"))
                    or not isinstance(run.get("mem_fault_exits"), bool)):
                raise BadData("runs/%d lacks vcpus or mem_fault_exits" % i)
            check_figures(run.get("figures"), "runs/%d/figures" % i)
    # A passing run measured something: its figures (a demand_paging sweep
    # keeps them per run, under runs).
    if rec["status"] == "pass" and "figures" not in rec and runs is None:
        raise BadData("status pass but no figures")
