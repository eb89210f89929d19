# SPDX-License-Identifier: GPL-2.0
"""Strict JSON for result records, shared by check-record.py and kmp_results.py.

Python's json module accepts NaN/Infinity and keeps the last of duplicate
object keys; neither is JSON (RFC 8259) nor unambiguous, so both are errors.
"""
import json


class StrictJSONError(ValueError):
    """Valid to Python's json module, but not strict JSON."""


def _no_duplicate_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise StrictJSONError("duplicate key %r" % key)
        obj[key] = value
    return obj


def _no_constants(name):
    raise StrictJSONError("%s is not a JSON number" % name)


def load(f, **kwargs):
    """json.load() with the strict hooks; kwargs add e.g. parse_int."""
    return json.load(f, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants,
                     **kwargs)
