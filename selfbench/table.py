# SPDX-License-Identifier: GPL-2.0
"""make bench's table, printed and as Markdown for docs/perf.md's history."""
import platform
import subprocess
import sys

from budgets import MIB


def fmt_pct(x):
    return "n/a" if x is None or x != x else "%.2f%%" % (100 * x)


def fmt_s(x):
    if x is None or x != x:
        return "n/a"
    if x >= 1:
        return "%.2f s" % x
    if x >= 1e-3:
        return "%.2f ms" % (x * 1e3)
    return "%.1f us" % (x * 1e6)


def fmt_mib(b):
    return "%.1f MiB" % (b / MIB)


def print_table(rows, file=sys.stdout):
    w = [max(len(r[k]) for r in rows) for k in ("figure", "value", "budget", "verdict")]
    w[0] = max(w[0], len("figure"))
    section = None
    line = "%-*s  %-*s  %-*s  %s"
    print(line % (w[0], "figure", w[1], "value", w[2], "budget", "verdict"), file=file)
    for r in rows:
        if r["section"] != section:
            section = r["section"]
            print("-- %s" % section, file=file)
        print(line % (w[0], r["figure"], w[1], r["value"], w[2], r["budget"], r["verdict"]),
              file=file)


def md_table(rows):
    out = ["| section | figure | value | budget | verdict |", "|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s |" % (r["section"], r["figure"],
                                                   r["value"].replace("|", "/"), r["budget"],
                                                   r["verdict"]))
    return "\n".join(out)


def git_describe(src):
    try:
        return subprocess.run(["git", "-C", src, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def host_line(h):
    if not h:
        return platform.node()
    return "%s, %s, %d CPUs, %.0f GiB, %s (%s)" % (
        h.get("kernel", "?").split()[0], h.get("cpu_model", "?"), h.get("cpus", 0),
        h.get("mem_total_bytes", 0) / (1 << 30), h.get("kvm_module", "?"), h.get("mmu", "?"))


def append_history(md_path, results, label):
    entry = ["", "## %s, %s" % (results["date"], results["commit"]), "",
             "Host: %s. %d runs per configuration; load average %.1f before, %.1f after; "
             "make bench took %s.%s" % (
                 host_line(results["host"]), results["runs"], results["load_before"][0],
                 results["load_after"][0], fmt_s(results["runtime_s"]),
                 (" " + label) if label else ""), "", md_table(results["rows"]), ""]
    with open(md_path, "a") as f:
        f.write("\n".join(entry))
    print("history: appended to %s" % md_path)
