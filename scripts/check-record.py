#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate kvm-mmu-perf result records against docs/results-schema.json.

Usage: check-record.py [--schema SCHEMA] RECORD...

Exit status: 0 every record is valid; 1 a record is invalid (each error is
printed on stderr as "RECORD: at /json/pointer: message"); 2 the command line,
the schema or the jsonschema module is at fault.

Parsing is stricter than Python's json module: NaN/Infinity and duplicate
object keys are errors, as they are not JSON (RFC 8259) or not unambiguous.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree or an install
from kmp import strict_json as kmp_json  # noqa: E402

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "..", "docs", "results-schema.json")
MAX_MESSAGE = 300


class RecordError(Exception):
    pass


def load_record(path):
    try:
        with open(path, encoding="utf-8") as f:
            return kmp_json.load(f)
    except OSError as e:
        raise RecordError("cannot read: %s" % e.strerror) from e
    except UnicodeDecodeError as e:
        raise RecordError("not UTF-8: %s" % e) from e
    except kmp_json.StrictJSONError as e:
        raise RecordError(str(e)) from e
    except json.JSONDecodeError as e:
        raise RecordError("not JSON: %s" % e) from e


def pointer(path):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def short(msg):
    msg = " ".join(msg.split())
    return msg if len(msg) <= MAX_MESSAGE else msg[:MAX_MESSAGE - 3] + "..."


def main():
    ap = argparse.ArgumentParser(
        description="Validate kvm-mmu-perf JSON result records.")
    ap.add_argument("--schema", default=DEFAULT_SCHEMA,
                    help="schema file (default: docs/results-schema.json)")
    ap.add_argument("records", nargs="+", metavar="RECORD")
    args = ap.parse_args()

    try:
        import jsonschema
    except ImportError:
        print("check-record.py: the jsonschema module is missing "
              "(apt-get install python3-jsonschema)", file=sys.stderr)
        return 2
    try:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print("check-record.py: bad schema %s: %s" % (args.schema, short(str(e))),
              file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)

    rc = 0
    for path in args.records:
        try:
            record = load_record(path)
        except RecordError as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            rc = 1
            continue
        errors = sorted(validator.iter_errors(record),
                        key=lambda e: [str(p) for p in e.absolute_path])
        for e in errors:
            print("%s: at %s: %s" % (path, pointer(e.absolute_path), short(e.message)),
                  file=sys.stderr)
        if errors:
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
