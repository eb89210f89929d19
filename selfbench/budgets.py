# SPDX-License-Identifier: GPL-2.0
"""make bench's budgets and the configurations it runs (docs/perf.md)."""

MIB = 1 << 20

OVERHEAD_BUDGET = 0.01              # harness share of a timed phase

FIDELITY_RANGE = (0.95, 1.05)       # suite / independent

MEM_SHARE, MEM_FIXED = 0.02, 64 * MIB

STARTUP_BUDGET = 0.050              # s, process start to 8 vCPUs ready

TOTAL_BUDGET = 600                  # s, the whole of make bench

# The small configurations (2 pCPUs, an emulating KVM: ~1-4 us per guest
# instruction).  "pin" is what -c adds for the pinned runs.
SUITE = {
    "dirty_log_perf": {"args": ["-v", "2", "-b", "64M", "-i", "10", "-k", "16M"],
                       "pin": ["-c", "0,1"]},
    "demand_paging": {"args": ["-v", "2", "-b", "64M", "-u", "MISSING"],
                      "pin": ["-c", "0,1"]},
    "zap_latency": {"args": ["-v", "2", "-b", "64M", "-i", "5"],
                    "pin": ["-c", "0,1"]},
    "tlbie_bench": {"args": ["-v", "2", "-t", "2"],
                    "pin": ["-c", "0,1"]},
}

# The bare tools, with the same parameters (and pinning) as the pinned suite runs.
FIDELITY = {
    "dirty_log_perf": ("fidelity_dirty_log", ["-v", "2", "-b", "64M", "-i", "10", "-k", "16M"]),
    "demand_paging": ("fidelity_paging", ["-v", "2", "-b", "64M"]),
    "zap_latency": ("fidelity_zap", ["-v", "2", "-b", "64M", "-i", "5"]),
    "tlbie_bench": ("fidelity_tlbie", ["-v", "2", "-t", "2"]),
}

# Ioctl regions whose bare tool also times them with KMP_ACCOUNT's inner pair
# (--accounted): (benchmark, region) -> the tool's figure of the time between.
BARE_REST = {("dirty_log_perf", "get_dirty_log_time"): "get_rest_time"}

# Headline figures: (binary, figure, how to read it from a record, from a tool's output).
STARTUP_ARGS = ["-v", "8", "-b", "8M", "-i", "2"]

SCALE_DLP = ["-v", "256", "-b", "4M", "-i", "2", "--verify"]

SCALE_DP = ["-v", "256", "-b", "4M", "-u", "MISSING"]

BIGVM = ["-s", "64G", "--stride", "64M", "-m", "2M"]

# Lockstep wake-up skew, the default waiting (spin where every thread has a
# CPU, lib/lockstep.c) against a condvar alone (KMP_LOCKSTEP_WAIT=block, the
# suite's waiting before): with a CPU for every thread (-v 1 and the host), and
# with more threads than CPUs (the suite's -v 2), where the default blocks too.
LOCKSTEP = {"own CPUs": ["-v", "1", "-b", "64M", "-i", "10"],
            "shared CPUs": SUITE["dirty_log_perf"]["args"]}

# Noise as a user meets it: run.sh's own sections (configs/*.cfg, the ci
# group's), each run in pairs with its bare tool (FIDELITY) issuing the
# same ioctls with the options it takes.  The bare tool's spread is what
# this host gives any program issuing those ioctls; the budget is that the
# suite's is not significantly larger (kmp_spread.spread_test, one-sided,
# at NOISE_ALPHA), judged every run whatever the host's load: the pairs
# interleave, so the load falls on both sides alike.
NOISE = {"dlp-seed003": ("get_dirty_log_time", "clear_dirty_log_time"),
         "zap-seed004": ("ioctl_latency",),
         "dp-missing": ("overall_paging_rate",),
         "tlbie-seed001": ("throughput",)}

NOISE_ALPHA = 0.05

# Pairs a section runs: the fewest at which the test finds a spread ratio
# of 1.5 in 4 runs of 5 (kmp_spread.spread_power(50, 1.5) = 0.82, 2000
# lognormal draws; 40 pairs give 0.74, 30 give 0.62).
NOISE_PAIRS = 50

# The noise runs' share of make bench's 10 minutes: a section whose pairs
# would not fit (timed from its first pair) is dropped, and its row says so.
NOISE_BUDGET_S = 330

BARE_OPTS = {"dirty_log_perf": "vbik", "demand_paging": "vbr", "zap_latency": "vbi",
             "tlbie_bench": "vt"}

LOAD_MAX = 1.0

LOAD_WAIT_S = 120

# compare's statistics on one figure of 1000 runs a side (the normal
# approximation's path, judged as compare judges: once, read by both its
# passes): at most 2 s on the CI's 2 cores.
COMPARE_RUNS = 1000
COMPARE_BUDGET_S = 2.0
