#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A fixture's negative control, for make check-seed-NNN (KTAP).

Usage: tests/fixture_control_check.py SEED

linux-source-6.12 is built with the seed's fixture (patches/) and its
control (tests/controls/: the fixture with its key part removed), booted as
the seed's emulated host (x86: the AMD host with nested paging on, and the
seed's KVM parameters; arm64: the virt host with 4G; POWER: the POWER8
host with HPT guests), and runs a list of tests.  The checks that must
catch the control have to fail, with the message that names why; the
others have to pass.  So a
check that cannot see the fixture's key part would show here.
Exit status: 0 when the control was caught as expected, 1 otherwise.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import SRC, run_steps  # noqa: E402

# SEED: the arch (default x86_64), the fixture (a patch, or a list applied
# in order), the control, config
# fragments, the KVM MMU (configs/emu-hosts; default the arch's first), more
# kernel parameters, the
# host's memory (default boot.sh's), the list run, the console lines that must be there (the
# control caught; a regex, or a regex and how many times at least) and what
# they mean.
CONTROLS = {
    "seed-000": {
        "arch": "arm64",
        "fixture": "seed-000-base.patch",
        "control": "seed-000-without-the-retry.patch",
        "configs": [],
        "mem": "4G",
        "list": ["KMP_SPLIT_WALK=exclusive smoke_shared_wp_retry"],
        "caught": [r"^# not ok \d+ global\.every_lost_race_is_retried$",
                   r"pages written without reaching the log: the lost races were skipped"],
        "passed": [r"^# ok \d+ global\.aged_clears_lose_no_write$",
                   r"^# ok \d+ global\.split_clears_lose_no_write$"],
        "what": "the post's base without the write-protect's retry: with every write-protect "
                "made to lose one race (kvm.wp_lose_a_race), dirty_log_perf -j --verify finds "
                "pages written but never logged; the two cases without the aid pass",
    },
    "seed-000-b": {
        "arch": "arm64",
        "fixture": ["seed-000-base.patch", "seed-000-clear-dirty-log-read-lock.patch"],
        "control": "seed-000-b-without-the-split-retry.patch",
        "configs": [],
        "mem": "4G",
        "list": ["KMP_SPLIT_WALK=shared smoke_shared_wp_retry", "smoke_eager_split"],
        "caught": [r"^# not ok \d+ global\.aided_split_retries_every_block$",
                   r"blocks left unsplit: iteration 1's clear added 0 page-table pages, "
                   r"not one per 2M block \(8\)",
                   r"0 split retries, not 8"],
        "passed": [r"^# ok \d+ global\.every_lost_race_is_retried$",
                   r"^# ok \d+ global\.split_clears_lose_no_write$",
                   r"^# ok \d+ global\.first_clear_splits_every_block$"],
        "what": "the post without its split walker's retry: with every block's break made to "
                "lose one race (kvm.split_lose_a_race), the first clear leaves the 2M blocks "
                "unsplit and retries none; the write-protect's aided case, the unaided split "
                "case and smoke_eager_split pass",
    },
    "seed-001": {
        "arch": "powerpc",
        "fixture": "seed-001-tlbie-lock.patch",
        "control": "seed-001-lock-not-taken.patch",
        "configs": [],
        "mmu": "hpt",
        "list": ["smoke_tlbie_bench -t tlbie_lock_switch",
                 "tlbie_bench -v 2 -t 4 --alternate kvm_hv.tlbie_lock"],
        "caught": [r"^# not ok \d+ global\.tlbie_lock_switch$",
                   r"locked tlbie sequences found another CPU inside: the lock did not "
                   r"serialise them"],
        "passed": [r"^ok \d+ selftests: kvm-mmu-perf: tlbie_bench_"],
        "what": "the fixture with its lock never taken: smoke_tlbie_bench's tlbie_lock_switch "
                "fails on the witness (holders found another inside), while tlbie_bench "
                "--alternate passes, every remap verified",
    },
    "seed-002": {
        "fixture": "seed-002-mem-fault-nowait.patch",
        "control": "seed-002-without-loop-break.patch",
        "configs": ["memory-failure.config"],
        "list": ["smoke_mem_fault"],
        "caught": [r"^# not ok \d+ global\.%s$" % t for t in (
            "exits_name_the_access", "the_zero_page_under_a_read_only_mapping_exits_once",
            "a_pfnmap_mapping_exits_once", "a_hwpoisoned_page_exits_once_then_signals")]
        + [(r"the vCPU loops", 4)],
        "passed": [r"^# ok \d+ global\.%s$" % t for t in (
            "the_capability_agrees_with_the_flag",
            "a_present_read_only_page_serves_reads_without_an_exit",
            "pre_fault_maps_a_flagged_page_where_the_mmu_offers_it")],
        "what": "the fixture without its loop-break: smoke_mem_fault's 4 cases that re-enter "
                "without supplying the page fail, each saying the vCPU loops; its 3 others pass",
    },
    "seed-003": {
        "fixture": "seed-003-non-atomic-dirty-clear.patch",
        "control": "seed-003-without-the-write.patch",
        "configs": [],
        "list": ["smoke_clear_dirty_trace", "dirty_log_perf -v 2 -b 16M -i 3 --verify"],
        "caught": [r"^not ok \d+ selftests: kvm-mmu-perf: dirty_log_perf_",
                   r"was written but is missing from"],
        "passed": [r"^ok \d+ selftests: kvm-mmu-perf: smoke_clear_dirty_trace$"],
        "what": "the fixture without its SPTE write (the change still traced): the trace count "
                "passes, and dirty_log_perf --verify fails on pages written but missing from "
                "the log",
    },
    "seed-004": {
        "fixture": "seed-004-no-batch-zap.patch",
        "control": "seed-004-batch-of-one.patch",
        "configs": ["preempt.config"],
        "mmu": "legacy-npt",
        "list": ["KMP_ZAP_BATCH=0 smoke_zap_latency"],
        "caught": [r"^# not ok \d+ zl\.small_run_zaps_pages_and_cleans_up$",
                   r"the ioctl task zapped 1 page\(s\) before its first lock-break offer; "
                   r"the kernel's batch is 0"],
        "passed": [],
        "what": "the fixture with a batch of 1 instead of 0: smoke_zap_latency's traced zaps "
                "fail on the one page zapped before the first lock-break offer",
    },
}


def control(seed):
    c = CONTROLS[seed]
    name = seed + "-control"

    arch = c.get("arch", "x86_64")

    def step(tmp, results):
        fixtures = c["fixture"] if isinstance(c["fixture"], list) else [c["fixture"]]
        args = [os.path.join(SRC, "scripts", "emu", "kernel.sh"), arch, "linux-source-6.12",
                os.path.join(SRC, "build", arch, "emu-ab")]
        for f in fixtures:
            args += ["--patch", os.path.join(SRC, "patches", f)]
        args += ["--patch", os.path.join(SRC, "tests", "controls", c["control"])]
        for f in c["configs"]:
            args += ["--config", os.path.join(SRC, "configs", "kernel", f)]
        build = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        if build.returncode:
            results.append(("the control kernel builds", ["kernel.sh exit %d" % build.returncode]))
            return
        listing = os.path.join(tmp, "control.list")
        with open(listing, "w") as f:
            f.write("\n".join(c["list"]) + "\n")
        env = dict(os.environ, KMP_EMU_NAME="%s/%s" % (arch, name), KMP_EMU_KERNEL="6.12",
                   KMP_EMU_MMU=c.get("mmu", ""), KMP_EMU_MODPARAMS=c.get("params", ""),
                   KMP_EMU_MEM=c.get("mem", ""),
                   KMP_EMU_CACHE=build.stdout.strip(),
                   KMP_EMU_CHECK_NAME=name)
        check = subprocess.run(
            [os.path.join(SRC, "scripts", "emu", "check.sh"), arch,
             os.path.join(SRC, "build", arch, "bin"), listing, "1200"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        log_path = os.path.join(SRC, "build", arch, "emu-check-%s.log" % name)
        with open(log_path, errors="replace") as f:
            log = f.read()
        problems = [] if check.returncode else ["the checks passed the control kernel"]
        for want in c["caught"] + c["passed"]:
            pattern, times = want if isinstance(want, tuple) else (want, 1)
            if len(re.findall(pattern, log, re.M)) < times:
                problems.append("not in the console %d time(s): %s" % (times, pattern))
        results.append(("%s (console: %s)" % (c["what"], log_path),
                         problems + ([] if not problems else check.stdout.splitlines()[-15:])))
    return step


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CONTROLS:
        print("usage: %s SEED (one of: %s)" % (sys.argv[0], ", ".join(sorted(CONTROLS))),
              file=sys.stderr)
        sys.exit(2)
    sys.exit(run_steps("kmp-%s-control-" % sys.argv[1], [control(sys.argv[1])]))
