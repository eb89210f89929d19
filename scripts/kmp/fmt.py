# SPDX-License-Identifier: GPL-2.0
"""How numbers, sizes, tables and errors are written: the C code's formats
(timespecs, lib/report.c's sizes) and seed 000's framed table."""
import sys

PROG = "kmp_results.py"


def one_line(text):
    """text with newlines and other unprintable characters escaped (\\n, \\x1b)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def fail(errors):
    for e in errors:    # one line per problem, whatever names and values it quotes
        print("%s: %s" % (PROG, one_line(e)), file=sys.stderr)
    sys.exit(2)


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
