# SPDX-License-Identifier: GPL-2.0
"""A result folder read: its records checked (schema, and each tool's own
members), grouped into sections, with the runs that did not pass and why
(summary.ktap), and several folders of one side merged as boots."""
import json
import os
import re

from . import emu_hosts, strict_json, tools
from .fmt import one_line
from .schema import BadData, BadNumber, check_record, parse_float, parse_int

RECORD_NAME = re.compile(r"^(?P<section>.+)\.(?P<repeat>[1-9][0-9]*)\.json$")

LOG_NAME = re.compile(r"^(?P<section>.+)\.(?P<repeat>[1-9][0-9]*)\.log$")


def load_record(path):
    """Parse and check one record; BadData says what is wrong with it."""
    try:
        with open(path, encoding="utf-8") as f:
            rec = strict_json.load(f, parse_int=parse_int, parse_float=parse_float)
    except OSError as e:
        raise BadData("cannot read: %s" % e.strerror) from e
    except UnicodeDecodeError as e:
        raise BadData("not UTF-8: %s" % e) from e
    except BadNumber as e:
        raise BadData(str(e)) from e
    except ValueError as e:     # JSONDecodeError included: a truncated file lands here
        raise BadData("not valid JSON (truncated?): %s" % e) from e
    except RecursionError as e:
        raise BadData("not a result record: nested too deeply") from e
    check_record(rec, tools.check_record)
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
    sections, errors, mmus = {}, [], set()
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
            mmus.add(str(rec["host"].get("mmu")))
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
    mmu_error = asked_mmu_error(folder, mmus)
    if mmu_error:
        errors.append(mmu_error)
        for sec in sections.values():
            sec.bad = True
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


def host_txt(folder, key):
    """The value of host.txt's 'key: value' line (run.sh writes it), or None."""
    try:
        with open(os.path.join(folder, "host.txt"), errors="replace") as f:
            for line in f:
                if line.startswith(key + ": "):
                    return line.split(": ", 1)[1].strip()
    except OSError:
        pass
    return None


def boot_id(folder):
    """host.txt's boot_id, or None."""
    value = host_txt(folder, "boot_id")
    return value if value != "unknown" else None


def asked_mmu_error(folder, mmus):
    """Why the records of a folder run on an emulated host (host.txt's
    emulated_mmu: ARCH MMU) are not of the MMU it asked for, or None."""
    asked = (host_txt(folder, "emulated_mmu") or "").split()
    if len(asked) != 2:
        return None
    want = emu_hosts.record_mmu(*asked)
    if want is None:
        return "%s: host.txt asked for the emulated %s host's MMU %s, which configs/emu-hosts " \
               "does not have" % (folder, asked[0], asked[1])
    ran = sorted(mmus - {want})
    if not ran:
        return None
    return "%s: its records ran KVM's %s MMU, but the folder asked for --mmu %s (%s): its " \
           "figures are not the configuration asked for" % (folder, ", ".join(ran), asked[1], want)


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
