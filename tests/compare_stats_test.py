#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""End-to-end tests of compare's statistics (kmp_results.py compare), KTAP.

Result folders of tlbie_bench records (tests/results_test.py builds them as
the C writers do) with chosen throughputs: a real change, no change, too few
runs, constant figures, several boots a side, --json and bad --alpha.  The
expected p-values come from enumerating every split here.

Exit status: 0 when every test passed, 1 otherwise.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from kmp_testlib import SRC, run_steps  # noqa: E402

_spec = importlib.util.spec_from_file_location("results_test",
                                               os.path.join(HERE, "results_test.py"))
rt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt)      # the record builders, and the enumerated rank test

KMP = os.path.join(SRC, "scripts", "kmp_results.py")


def result_set(folder, rates, boot="boot-a"):
    """A run.sh folder of section tlbie with one record per throughput."""
    os.makedirs(folder)
    with open(os.path.join(folder, "host.txt"), "w") as f:
        f.write("kernel: 6.12.0-test\nboot_id: %s\n" % boot)
    with open(os.path.join(folder, "summary.ktap"), "w") as f:
        f.write("TAP version 13\n1..%d\n" % len(rates) +
                "".join("ok %d tlbie.%d\n" % (i, i) for i in range(1, len(rates) + 1)))
    for r, rate in enumerate(rates, 1):
        rt.write(folder, "tlbie", r, rt.tb_record(rate))
    return folder


def compare(*args):
    res = subprocess.run([KMP, "compare"] + list(args), capture_output=True, text=True)
    return res, res.stdout.splitlines()


def throughput_line(out):
    return next((l for l in out if l.startswith("  total throughput:")), "")


def case(tmp, name, base, new):
    a = result_set(os.path.join(tmp, name, "A"), base)
    b = result_set(os.path.join(tmp, name, "B"), new)
    return compare(a, b)


BASE6 = [13400, 13510, 13460, 13620, 13390, 13550]


def test_verdicts(tmp, results):
    new = [x * 1.1 for x in BASE6]                 # +10%, every run above every base run
    res, out = case(tmp, "change", BASE6, new)
    l = throughput_line(out)
    p = rt.rank_sum_p(BASE6, new)
    results.append(("a 10% change on 6 runs a side: significant, p = 2/C(12,6), the change's "
                    "interval, each median's exact interval",
                    [] if res.returncode == 0 and " ~ " not in l and "p=%.3f)" % p in l and
                    "p=0.002)" in l and "(Hodges-Lehmann)" not in l and
                    "% CI, Hodges-Lehmann)" in l and l.count("median 96.9% CI") == 2
                    else [res.stderr, l]))
    shuffled = [13500, 13420, 13600, 13380, 13530, 13470]  # the same spread, no shift
    res, out = case(tmp, "same", BASE6, shuffled)
    l = throughput_line(out)
    p = rt.rank_sum_p(BASE6, shuffled)
    results.append(("no change on 6 runs a side: ~ with its p, and the smallest change the "
                    "runs resolve",
                    [] if res.returncode == 0 and " ~ (" in l and p > 0.05 and
                    "p=%.3f > 0.05" % p in l and "resolve changes beyond about +-" in l
                    else [res.stderr, l, "p %r" % p]))
    res, out = case(tmp, "few", [13400, 13500, 13450], [15400, 15500, 15450])
    l = throughput_line(out)
    results.append(("3 runs a side, fully separated: ~, p=0.100 can never reach 0.05, 4 a side "
                    "can; below 6 runs the range is printed, and says so",
                    [] if " ~ (p=0.100: 3 and 3 runs can never reach p<=0.05; 4 a side can)" in l
                    and "the range: an exact 95% median CI needs 6 runs" in l else [l]))
    res, out = case(tmp, "exact", [13400] * 3, [13500] * 3)
    l = throughput_line(out)
    results.append(("constant on both sides: the exact difference, and why no p-value",
                    [] if "(x1.01)" in l and "(exact: every run gave the same value" in l
                    and "p=" not in l else [l]))
    res, out = case(tmp, "one", [13400], [13500, 13600])
    l = throughput_line(out)
    results.append(("1 run on a side: (1 run: noise unknown), no test",
                    [] if l.endswith("(1 run: noise unknown)") and "p=" not in l else [l]))
    res, out = compare("--alpha", "0.2", os.path.join(tmp, "few", "A"),
                       os.path.join(tmp, "few", "B"))
    l = throughput_line(out)
    results.append(("--alpha 0.2: 3 runs a side can reach it, and the separated change is "
                    "significant", [] if res.returncode == 0 and " ~ " not in l and
                    "p=0.100)" in l else [res.stderr, l]))


def test_summary_json(tmp, results):
    a, b = os.path.join(tmp, "change", "A"), os.path.join(tmp, "change", "B")
    res, out = compare("--json", a, b)
    try:
        data = json.loads(res.stdout)
    except ValueError as e:
        results.append(("--json: one JSON document", ["%s: %r" % (e, res.stdout[:300])]))
        return
    rows = {r["figure"]: r for r in data["rows"] if r["section"] == "tlbie"}
    t = rows.get("throughput", {})
    problems = []
    if not (t.get("verdict") == "change" and abs(t["p"] - rt.rank_sum_p(
            BASE6, [x * 1.1 for x in BASE6])) < 1e-12 and t["base"]["n"] == 6 and
            t["base"]["sample_of"] == "runs" and len(t["change_ci_pct"]) == 2 and
            t["change_ci_pct"][0] < 10 < t["change_ci_pct"][1] + 1e-9):
        problems.append("throughput row %r" % t)
    tested = [r for r in data["rows"] if r["p"] is not None and r["verdict"] != "too few runs"]
    if data["tested"] != len(tested) or abs(data["expected_by_chance"] -
                                            0.05 * len(tested)) > 1e-12:
        problems.append("tested %r, expected %r" % (data["tested"], data["expected_by_chance"]))
    if not all(r["holm_significant"] is not None for r in tested):
        problems.append("a tested row without Holm's verdict")
    geo = {g["unit"]: g for g in data["geomeans"]}
    if abs(geo.get("forks/s", {}).get("geomean", 0) - 1.1) > 1e-9:
        problems.append("geomeans %r" % data["geomeans"])
    results.append(("--json: every compared figure as a row (p, verdict, intervals), tests "
                    "counted, expected by chance, Holm, geomean per unit", problems))
    res, out = compare(a, b)
    summ = [l for l in out if l.startswith("# %d figure(s) tested: " % len(tested))]
    results.append(("text: the summary says how many figures were tested and how many would "
                    "come out significant by chance",
                    [] if len(summ) == 1 and "about %.1f expected by chance" % (
                        0.05 * len(tested)) in summ[0] and
                    any(l.startswith("# geomean of NEW/BASE medians, forks/s: x1.100") for l in out)
                    else out[-6:]))


def test_boots(tmp, results):
    base, new = [], []
    for i in range(4):      # 4 boots a side, 3 runs each; NEW's boots all above BASE's
        base.append(result_set(os.path.join(tmp, "boots", "A%d" % i),
                               [13400 + 10 * i, 13500 + 10 * i, 13450 + 10 * i], "a%d" % i))
        new.append(result_set(os.path.join(tmp, "boots", "B%d" % i),
                              [14400 + 10 * i, 14500 + 10 * i, 14450 + 10 * i], "b%d" % i))
    res, out = compare(*(base + ["vs"] + new))
    l = throughput_line(out)
    p = rt.rank_sum_p([13450 + 10 * i for i in range(4)], [14450 + 10 * i for i in range(4)])
    results.append(("several folders a side: one sample per boot (its median), n = boots, "
                    "said in the output",
                    [] if res.returncode == 0 and "(4 boots, " in l and "p=%.3f)" % p in l and
                    "# BASE: 4 boots, one folder each: each figure's sample is its boots' "
                    "medians (n = 4)" in out else [res.stderr, l] + out[:4]))
    same = result_set(os.path.join(tmp, "boots", "A-again"), [13400, 13500, 13450], "a0")
    res, out = compare(base[0], same, "vs", new[0], new[1])
    results.append(("two folders of one boot on a side: a warning names them",
                    [] if any(l.startswith("# warning: BASE: folders ") and "one boot" in l
                              for l in out) else out[:6]))
    res, out = compare(base[0], base[1], new[0])
    results.append(("three folders without vs: exit 2 and how to write it",
                    [] if res.returncode == 2 and "vs" in res.stderr and not out
                    else [res.stderr]))


def test_self_and_scaled(tmp, results):
    """The issue's acceptance: a folder against itself, and against a copy with one
    figure scaled beyond its own max/min."""
    rates = [13400, 13950, 13100, 13720, 13555]
    a = result_set(os.path.join(tmp, "self", "A"), rates)
    res, out = compare("--json", a, a)
    rows = json.loads(res.stdout)["rows"] if res.returncode == 0 else []
    varying = [r for r in rows if r["base"]["min"] != r["base"]["max"]]
    results.append(("a 5-run folder against itself: ~ with p = 1 on every figure that varies",
                    [] if varying and all(r["verdict"] == "~" and r["p"] == 1 for r in varying)
                    else [res.stderr] + ["%s %s %s" % (r["figure"], r["verdict"], r["p"])
                                         for r in rows]))
    factor = 1.5                # above the throughputs' own max/min (1.065)
    b = os.path.join(tmp, "self", "B")
    shutil.copytree(a, b)
    for r in range(1, 6):
        path = os.path.join(b, "tlbie.%d.json" % r)
        with open(path) as f:
            rec = json.load(f)
        rec["figures"]["throughput"]["value"] *= factor
        with open(path, "w") as f:
            json.dump(rec, f)
    res, out = compare("--json", a, b)
    rows = json.loads(res.stdout)["rows"] if res.returncode == 0 else []
    sig = [r for r in rows if r["verdict"] == "change"]
    t = sig[0] if sig else {}
    results.append(("one figure scaled x1.5 in every run: that figure alone is a significant "
                    "change, p <= 0.01 (2/252), and its interval holds +50%",
                    [] if len(sig) == 1 and t["figure"] == "throughput" and
                    abs(t["p"] - 2 / 252) < 1e-12 and
                    t["change_ci_pct"][0] <= 100 * (factor - 1) <= t["change_ci_pct"][1] and
                    all(r["p"] == 1 for r in rows if r is not t and r["p"] is not None)
                    else [res.stderr] + ["%s %s %s %s" % (r["figure"], r["verdict"], r["p"],
                                                          r["change_ci_pct"]) for r in rows]))


def test_bad_sets(tmp, results):
    a = result_set(os.path.join(tmp, "bad", "A"), [13400, 13500])
    b = os.path.join(tmp, "bad", "B")
    shutil.copytree(a, b)
    for name in os.listdir(b):      # the same runs, under another section's name
        if name.startswith("tlbie."):
            os.rename(os.path.join(b, name), os.path.join(b, "other" + name[5:]))
    res, out = compare(a, b)
    results.append(("BASE and NEW with no section in common: one line, exit 2, no table",
                    [] if res.returncode == 2 and not out and
                    len(res.stderr.splitlines()) == 1 and "no section in common" in res.stderr
                    else [res.stderr] + out[:3]))
    c = os.path.join(tmp, "bad", "C")
    shutil.copytree(a, c)
    for r in (1, 2):
        path = os.path.join(c, "tlbie.%d.json" % r)
        with open(path) as f:
            rec = json.load(f)
        rec["figures"]["run_time"]["unit"] = "ms"
        with open(path, "w") as f:
            json.dump(rec, f)
    res, out = compare(a, c)
    results.append(("a figure in other units on each side: one line naming it, exit 2, no table",
                    [] if res.returncode == 2 and not out and
                    "figure run_time is in 's' in BASE and 'ms' in NEW" in res.stderr and
                    len(res.stderr.splitlines()) == 1 else [res.stderr] + out[:3]))


def test_bad_alpha(tmp, results):
    a, b = os.path.join(tmp, "change", "A"), os.path.join(tmp, "change", "B")
    problems = []
    for value in ("0", "1", "1.5", "-0.1", "nan", "abc"):
        res, out = compare("--alpha", value, a, b)
        if res.returncode != 2 or "--alpha" not in res.stderr or out:
            problems.append("--alpha %s: rc %d, %r" % (value, res.returncode, res.stderr))
    results.append(("--alpha outside (0, 1): exit 2, the option named, no table", problems))


def main():
    return run_steps("kmp-compare-stats-", (test_verdicts, test_summary_json, test_boots,
                                             test_self_and_scaled, test_bad_sets,
                                             test_bad_alpha))


if __name__ == "__main__":
    sys.exit(main())
