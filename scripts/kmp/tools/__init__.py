# SPDX-License-Identifier: GPL-2.0
"""Each benchmark's own knowledge, one module per tool, named as its records'
"tool": print_compare(pairs), its tables, placed at COMPARE_ORDER;
SWEEP_SERIES for sweep-table; MAIN_FIGURES or summary_figures(sec) for
summary; and, where it has them, DIRECTIONS (which way is better, where the
unit does not say), NOT_JUDGED ({figure: why} for a figure compare should
not judge; every other figure its tables leave out gets a generic row),
check_record(rec) for the members it adds
to a record and print_within_side(base, new, alpha) for figures measured
within one boot.  Adding a benchmark is adding its module here."""
import importlib
import pkgutil

MODULES = sorted((importlib.import_module("%s.%s" % (__name__, m.name))
                  for m in pkgutil.iter_modules(__path__)), key=lambda m: m.COMPARE_ORDER)
BY_TOOL = {m.__name__.rsplit(".", 1)[1]: m for m in MODULES}


def get(tool):
    """The tool's module, or None for a tool this reader has no tables for."""
    return BY_TOOL.get(tool)


def check_record(rec):
    mod = BY_TOOL.get(rec["tool"])
    if mod and hasattr(mod, "check_record"):
        mod.check_record(rec)


def directions():
    """{figure: "lower" or "higher"}: which way is better, where a tool says."""
    out = {}
    for mod in MODULES:
        out.update(getattr(mod, "DIRECTIONS", {}))
    return out


def sweep_series(tool):
    return list(getattr(BY_TOOL.get(tool), "SWEEP_SERIES", []))
