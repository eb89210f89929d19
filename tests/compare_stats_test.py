#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""End-to-end tests of compare's statistics (kmp_results.py compare), KTAP.

Result folders of tlbie_bench records (tests/kmp_testrecords.py builds them
as the C writers do) with chosen throughputs: a real change, no change, too few
runs, constant figures, several boots a side, --json and bad --alpha.  The
expected p-values come from enumerating every split here.

Exit status: 0 when every test passed, 1 otherwise.
"""
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from kmp_testlib import SRC, run_steps  # noqa: E402
import kmp_testrecords as rt  # noqa: E402  (the record builders, the enumerated rank test)

KMP = os.path.join(SRC, "scripts", "kmp_results.py")
sys.path.insert(0, os.path.join(SRC, "scripts"))
from kmp.verdicts import Judge  # noqa: E402


ICOUNT = dict(rt.HOST, emulated="QEMU TCG: qemu-system-x86_64 -icount shift=0,sleep=off",
              clock="emulated, icount")


def result_set(folder, rates, boot="boot-a", host=None):
    """A run.sh folder of section tlbie with one record per throughput (host:
    the records' host, ICOUNT for an icount-paced emulated one)."""
    os.makedirs(folder)
    with open(os.path.join(folder, "host.txt"), "w") as f:
        f.write("kernel: 6.12.0-test\nboot_id: %s\n" % boot)
    with open(os.path.join(folder, "summary.ktap"), "w") as f:
        f.write("TAP version 13\n1..%d\n" % len(rates) +
                "".join("ok %d tlbie.%d\n" % (i, i) for i in range(1, len(rates) + 1)))
    for r, rate in enumerate(rates, 1):
        rec = rt.tb_record(rate)
        rec["host"] = host or rec["host"]
        rt.write(folder, "tlbie", r, rec)
    return folder


def compare(*args, verbose=True):
    """compare, by default --verbose: every figure's long line."""
    res = subprocess.run([KMP, "compare"] + (["--verbose"] if verbose else []) + list(args),
                         capture_output=True, text=True)
    return res, res.stdout.splitlines()


def throughput_line(out):
    return next((l for l in out if l.startswith("  total throughput:")), "")


def case(tmp, name, base, new, host=None):
    a = result_set(os.path.join(tmp, name, "A"), base, host=host)
    b = result_set(os.path.join(tmp, name, "B"), new, host=host)
    return compare(a, b)


BASE6 = [13400, 13510, 13460, 13620, 13390, 13550]


def test_verdicts(tmp, results):
    new = [x * 1.1 for x in BASE6]                 # +10%, every run above every base run
    res, out = case(tmp, "change", BASE6, new)
    l = throughput_line(out)
    p = rt.rank_sum_p(BASE6, new)
    results.append(("a 10% higher throughput on 6 runs a side: better, p = 2/C(12,6) with two "
                    "digits, n, the change's 95% interval, Holm's p, each median's interval",
                    [] if res.returncode == 0 and "(better: " in l and " at 95%, p=" in l and
                    "p=%.2g, n=6+6, Holm p=%.2g" % (p, 3 * p) in l and "p=0.0022" in l and
                    l.count("median 96.9% CI") == 2 else [res.stderr, l]))
    lower = [x * 0.9 for x in BASE6]
    res, out = case(tmp, "worse", BASE6, lower)
    l = throughput_line(out)
    results.append(("a 10% lower throughput: worse (throughput's direction: higher is better)",
                    [] if "(worse: " in l else [l]))
    tight = [13500 + d for d in (-6, -3, -1, 0, 1, 3, 6, -4, 4, 2)]
    res, out = case(tmp, "same", tight, [x + 10 for x in tight])
    l = throughput_line(out)
    results.append(("10 runs a side 0.07% apart, spread 0.1%: same (the whole interval inside "
                    "+-2%), though significant, with its p",
                    [] if res.returncode == 0 and "(same: " in l and ", p<0.001, n=10+10" in l else [l]))
    res, out = compare("--same-within", "0.01", os.path.join(tmp, "same", "A"),
                       os.path.join(tmp, "same", "B"))
    l = throughput_line(out)
    results.append(("--same-within 0.01: the same runs' significant +0.07% is outside the "
                    "margin: better", [] if "(better: " in l else [l]))
    res, out = case(tmp, "open", BASE6, [13800, 13100, 13650, 13300, 13900, 13200])
    l = throughput_line(out)
    results.append(("6 runs a side, no clear shift, wide spread: unknown, with about how many "
                    "runs a side would settle it",
                    [] if "(unknown: " in l and "runs a side would settle it at this spread" in l
                    else [l]))
    res, out = case(tmp, "few", [13400, 13500, 13450], [15400, 15500, 15450])
    l = throughput_line(out)
    results.append(("3 runs a side, fully separated: unknown, p=0.1 can never reach 0.05, 4 a "
                    "side can; below 6 runs the range is printed, and says so",
                    [] if "(unknown: p=0.1, n=3+3; 3+3 runs can never reach "
                    "p<=0.05, 4 a side can)" in l and
                    "the range: an exact 95% median CI needs more runs" in l else [l]))
    res, out = case(tmp, "exact", [13400] * 3, [15400] * 3, ICOUNT)
    l = throughput_line(out)
    results.append(("constant on both sides under icount: exact, the difference is the verdict "
                    "(better), no p", [] if "(x1.15)" in l and "(better: exact, 3+3 runs, "
                    "every run the same" in l and "p=" not in l else [l]))
    res, out = case(tmp, "exact-same", [13400] * 3, [13500] * 3, ICOUNT)
    l = throughput_line(out)
    results.append(("constant on both sides under icount, 0.7% apart: same (exact, inside +-2%)",
                    [] if "(same: exact, 3+3 runs" in l else [l]))
    for n in (2, 3):
        res, out = case(tmp, "native-%d" % n, [13400] * n, [15400] * n)
        row = next((l for l in out if l.startswith("  throughput (forks/s)")), "")
        results.append(("constant on both sides, %d+%d runs on a native host: a coincidence, "
                        "not exact: unknown: too few runs" % (n, n),
                        [] if row.endswith("n=%d+%d  unknown: too few runs" % (n, n)) and
                        "exact" not in row else [row]))
    res, out = case(tmp, "one", [13400], [13500, 13600])
    l = throughput_line(out)
    results.append(("1 run on a side: unknown, noise unknown, no test, how many runs can tell",
                    [] if l.endswith("(unknown: 1 run, noise unknown; 4 runs a side can tell)")
                    and "p=" not in l else [l]))
    res, out = compare("--alpha", "0.2", "--per-figure", os.path.join(tmp, "few", "A"),
                       os.path.join(tmp, "few", "B"))
    l = throughput_line(out)
    results.append(("--alpha 0.2 --per-figure: 3 runs a side can reach it; the separated change "
                    "is better, its interval at 80%", [] if res.returncode == 0 and
                    "(better: " in l and "at 80%, p=0.1, n=3+3" in l else [res.stderr, l]))
    res, out = compare("--alpha", "0.2", os.path.join(tmp, "few", "A"),
                       os.path.join(tmp, "few", "B"))
    l = throughput_line(out)
    results.append(("--alpha 0.2, family-wise: three figures at p=0.1 each, Holm p=0.3: unknown, "
                    "and said why", [] if "(unknown: " in l and "Holm p=0.3;" in l and
                    "not after Holm's correction" in l else [l]))


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
    if not (t.get("verdict") == "better" and abs(t["p"] - rt.rank_sum_p(
            BASE6, [x * 1.1 for x in BASE6])) < 1e-12 and t["base"]["n"] == 6 and
            t["base"]["sample_of"] == "runs" and len(t["change_ci_pct"]) == 2 and
            t["change_ci_pct"][0] < 10 < t["change_ci_pct"][1] + 1e-9 and
            t["direction"] == "higher" and t["confidence"] == 0.95):
        problems.append("throughput row %r" % t)
    tested = [r for r in data["rows"] if r["p"] is not None and r["block"] == "A->B"]
    if data["tested"] != len(tested) or abs(data["expected_by_chance"] -
                                            0.05 * len(tested)) > 1e-12:
        problems.append("tested %r, expected %r" % (data["tested"], data["expected_by_chance"]))
    # Holm's family: the tested rows that are not one value on both sides.
    family = [r for r in tested if not (all(r["exact"]) and
                                        r["base"]["median"] == r["new"]["median"])]
    if len(family) != 3 or not all(r["holm_significant"] is not None and r["holm_p"] >= r["p"]
                                   for r in family):
        problems.append("Holm's family %r" % [(r["figure"], r["holm_p"]) for r in family])
    geo = {g["direction"]: g for g in data["geomeans"]}
    if abs(geo.get("higher", {}).get("geomean", 0) - 1.1) > 1e-9:
        problems.append("geomeans %r" % data["geomeans"])
    results.append(("--json: every compared figure as a row (p, verdict, direction, intervals), "
                    "tests counted, expected by chance, Holm, geomean per direction", problems))
    res, out = compare(a, b, verbose=False)
    text = "\n".join(out).replace("\n#   ", " ")
    results.append(("text: the summary counts the verdicts and the tests, and the geomean of "
                    "the figures where higher is better counts its verdicts",
                    [] if "# BASE -> NEW: %d figure(s): 1 better" % len(data["rows"]) in text and
                    "%d tested" % len(tested) in text and "about %.1f expected by chance" % (
                        0.05 * len(tested)) in text and
                    "# Geomean of NEW/BASE medians, higher is better: x1.100 over 1 figure(s) "
                    "(1 better, 0 worse, 0 same, 0 unknown)." in text
                    else out[-8:]))
    # Its cells on its name's line, or on the next where the name leaves no room.
    at = [i for i, l in enumerate(out) if l.startswith("  throughput (forks/s)")]
    table = [out[i] if out[i].endswith("better") else out[i + 1] for i in at]
    results.append(("the compact table: one aligned row for throughput, at most 100 columns, "
                    "with n and the verdict",
                    [] if len(table) == 1 and table[0].endswith("n=6+6  better") and
                    all(len(l) <= 100 for l in out[out.index(next(
                        l for l in out if l.startswith("verdicts, BASE -> NEW"))):])
                    else out[-12:]))


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
                    [] if res.returncode == 0 and "(4 boots, " in l and "p=%.3f, n=4+4" % p in l and
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
    results.append(("a 5-run folder against itself: never better or worse; p = 1 on every "
                    "figure that varies",
                    [] if varying and all(r["verdict"] in ("same", "unknown") and r["p"] == 1
                                          for r in varying)
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
    sig = [r for r in rows if r["verdict"] in ("better", "worse", "higher", "lower")]
    t = sig[0] if sig else {}
    results.append(("one figure scaled x1.5 in every run: that figure alone is significant "
                    "(better), p <= 0.01 (2/252), and its interval holds +50%",
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


def test_seed002_geomean(tmp, results):
    """A real seed-002 pair (run.sh ab, tests/records/seed-002-ab): the w/ : w/o
    rows inside NEW are their own block, and the BASE -> NEW geomean is near x1.00
    (the patch changes the w/o rates by nothing; it once read x1.479 with the
    within-side rows folded in)."""
    rec = os.path.join(SRC, "tests", "records", "seed-002-ab")
    res, _ = compare("--json", os.path.join(rec, "A"), os.path.join(rec, "B"), verbose=False)
    try:
        data = json.loads(res.stdout)
    except ValueError:
        results.append(("seed-002 pair: compare --json", [res.stderr]))
        return
    pair = [r for r in data["rows"] if r["block"] == "A->B"]
    within = [r for r in data["rows"] if r["block"] != "A->B"]
    geo = {g["direction"]: g for g in data["geomeans"]}
    g = geo.get("higher", {})
    problems = []
    directed = [r for r in pair if r["direction"] and r["base"]["n"] and r["new"]["n"]]
    if not (pair and within and len(geo) == 1 and g.get("figures") == len(directed) and
            0.99 <= (g.get("geomean") or 0) <= 1.01):
        problems.append("A->B rows %d, within %d, geomeans %r" % (len(pair), len(within),
                                                                   data["geomeans"]))
    if any("w/ : w/o" in r["figure"] for r in pair) or \
            not all("w/ : w/o" in r["figure"] for r in within):
        problems.append("rows in the wrong block: %r" % [(r["block"], r["figure"])
                                                         for r in data["rows"]])
    results.append(("a real seed-002 pair: the BASE -> NEW geomean of its %d rows is x%.3f (0.99 to "
                    "1.01); its %d w/ : w/o rows are their own block" % (
                        len(pair), g.get("geomean") or 0, len(within)), problems))


def judge(a, b, alpha=0.05, unit="s"):
    return Judge(alpha).judge("sim", "t", unit, a, b)


def test_runs_estimate(tmp, results):
    """An unknown verdict's 'about N runs a side would settle it', checked by
    simulation: from a 5-run pilot, N fresh runs a side settle it (better,
    worse or same) in most draws, and N/3 runs in fewer."""
    rng = random.Random(3)
    problems = []
    for shift, sd in ((0.03, 0.02), (0.0, 0.01)):
        tried = settled = fewer = 0
        for _ in range(60):
            a = [rng.gauss(1, sd) for _ in range(5)]
            b = [rng.gauss(1 + shift, sd) for _ in range(5)]
            k = judge(a, b)["runs_to_settle"]
            if judge(a, b)["verdict"] != "unknown" or not k or k > 60:
                continue
            tried += 1
            for n, count in ((k, "settled"), (max(4, k // 3), "fewer")):
                a = [rng.gauss(1, sd) for _ in range(n)]
                b = [rng.gauss(1 + shift, sd) for _ in range(n)]
                hit = judge(a, b)["verdict"] != "unknown"
                settled += hit and count == "settled"
                fewer += hit and count == "fewer"
        if tried < 20 or settled < 0.7 * tried or fewer >= settled:
            problems.append("shift %g sd %g: %d pilots, settled %d at N, %d at N/3"
                            % (shift, sd, tried, settled, fewer))
    results.append(("runs to settle: at the estimated N a side, 70% or more of fresh draws "
                    "settle (simulated, normal values, shift 3% sd 2%, and no shift sd 1%); at "
                    "N/3, fewer", problems))


def test_false_positives(tmp, results):
    """A/A: both sides drawn alike (normal, rounded so that values tie, and
    constant as under icount) are never better or worse in more than alpha of
    the cases, at 0.05 and 0.2."""
    rng = random.Random(5)
    problems = []
    for alpha in (0.05, 0.2):
        moved = total = 0
        for i in range(1500):
            n, m = rng.randint(3, 10), rng.randint(3, 10)
            kind = i % 3
            draw = [lambda: rng.gauss(100, 5), lambda: round(rng.gauss(100, 2)),
                    lambda: 100.0][kind]
            a, b = [draw() for _ in range(n)], [draw() for _ in range(m)]
            moved += judge(a, b, alpha)["verdict"] in ("better", "worse")
            total += 1
        # alpha, plus three binomial standard deviations of slack
        if moved > total * alpha + 3 * (total * alpha * (1 - alpha)) ** 0.5:
            problems.append("alpha %g: %d of %d better or worse" % (alpha, moved, total))
    results.append(("A/A: identical sides (normal, tied, constant; 3 to 10 runs) are better "
                    "or worse in at most alpha of 1500 cases, at alpha 0.05 and 0.2", problems))


def main():
    return run_steps("kmp-compare-stats-", (test_verdicts, test_summary_json, test_boots,
                                             test_self_and_scaled, test_bad_sets,
                                             test_bad_alpha, test_seed002_geomean, test_runs_estimate,
                                             test_false_positives))


if __name__ == "__main__":
    sys.exit(main())
