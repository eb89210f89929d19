# SPDX-License-Identifier: GPL-2.0
"""The bad inputs of bad_input_test.py: for every option that takes a value,
of every benchmark binary and of run.sh, the malformed values of every kind
that applies.

A spec is dict(option, names (what the error must name), rc (the exit
status wanted), cases): each case (kind, value, args before, args after
[, "ro"]), a value of None meaning the option given last without its value,
and "ro" a case run with / read-only.
"""
import os


def size_bad():
    return [("non-numeric", "abc"), ("negative", "-1"), ("overflow", "99999999999999999999G"),
            ("overflow", "18446744073709551616"), ("overflow after suffix", "17179869184G"),
            ("trailing junk", "12x"), ("unknown suffix", "4Q"), ("fraction", "1.5G"),
            ("blank", " 4M"), ("empty", "")]


def int_bad(lo, hi):
    kinds = [("non-numeric", "abc"), ("negative", "-1"), ("overflow", "99999999999999999999"),
             ("trailing junk", "12x"), ("fraction", "1.5"), ("sign", "+1"), ("blank", " 1"),
             ("empty", "")]
    if lo > 0:
        kinds.append(("zero" if lo == 1 else "below the minimum", str(lo - 1)))
    if hi is not None:
        kinds.append(("above the maximum", str(hi + 1)))
    return kinds


def enum_bad(valid):
    return [("unknown", "bogus"), ("empty", ""), ("wrong case", valid.swapcase()),
            ("trailing junk", valid + "x")]


CPUS_BAD = [("non-numeric", "abc"), ("negative", "-1"), ("empty", ""),
            ("CPU that does not exist", "0,9999"), ("CPU that does not exist", "0,100"),
            ("overflow", "99999999999999999999"), ("trailing junk", "12x"),
            ("listed twice", "0,0"), ("reversed range", "1-0"), ("empty item", "0,,1"),
            ("stride without range", "0:2")]

M64 = "6148914691236517888"     # x 3 vCPUs wraps a 64-bit byte count around to 2048
U64_MAX = "18446744073709551615"


def opt(option, kinds, base=(), names=None, rc=2):
    cases = [(k, v, list(base), []) for k, v in kinds]
    cases.append(("missing value", None, list(base), []))
    return dict(option=option, cases=cases, names=names or [option], rc=rc)


def extra(spec, *cases):
    """Add (kind, value, before, after) cases to an option spec."""
    spec["cases"].extend(cases)
    return spec


def binary_specs(tmp):
    """{binary: [option spec]} for the four benchmarks."""
    return {"dirty_log_perf": dirty_log_perf_specs(), "demand_paging": demand_paging_specs(tmp),
            "zap_latency": zap_latency_specs(), "tlbie_bench": tlbie_bench_specs()}


def dirty_log_perf_specs():
    return [
        extra(opt("-b", size_bad() + [("zero", "0")]),
              ("beyond the guest address space", "200T", [], []),
              ("overflow with -v 3", M64, ["-v", "3"], []),
              ("overflow when rounded to pages", U64_MAX, [], [])),
        opt("-c", CPUS_BAD),
        opt("-i", int_bad(2, 1000000) + [("zero", "0")]),
        extra(opt("-k", size_bad() + [("zero", "0")]),
              ("not a multiple of 256K", "100K", [], [])),
        opt("-l", int_bad(0, 3600000)),
        opt("-m", int_bad(0, 15)),
        extra(opt("-p", int_bad(1, 4503599627370495)),
              ("below the code and data slot", "0x1000", [], []),
              ("not fitting the address space", "0x7fffffff0000", [], []),
              ("not a multiple of the backing's page", "0x100001000",
               ["-s", "anonymous_hugetlb_2mb"], [])),
        opt("-r", int_bad(0, 4294967295)),
        opt("-s", enum_bad("anonymous") + [("unknown size", "anonymous_hugetlb_4mb")]),
        opt("-v", int_bad(1, 1024)),
        opt("-w", int_bad(0, 100)),
        extra(opt("-x", int_bad(1, 511)),
              ("more memslots than pages", "2", ["-b", "4K"], []),
              ("pages not split evenly", "3", ["-b", "4M"], []),
              ("pages not split evenly, many slots", "511", ["-b", "4M"], [])),
        extra(opt("--ring", int_bad(1, 1 << 30)),
              ("not a power of two", "3", [], []),
              ("below the ring minimum", "128", [], []),
              ("above the ring maximum", "131072", [], [])),
        opt("--json", [("empty", "")], base=["-b", "4M", "-i", "2"]),
        dict(option="--age", names=["--age"], rc=2, cases=[
            ("without -j", None, [], []),
            ("on a hugetlb backing", None, ["-j", "-s", "anonymous_hugetlb_2mb"], [])]),
    ]


def demand_paging_specs(tmp):
    short_img = os.path.join(tmp, "short.img")
    with open(short_img, "wb") as f:
        f.write(b"\0" * 4096)
    dp_u = ["-u", "MISSING"]
    return [
        extra(opt("-b", size_bad() + [("zero", "0")]),
              ("beyond the guest address space", "200T", [], []),
              ("overflow with -v 3", M64, ["-v", "3"], []),
              ("overflow when rounded to pages", U64_MAX, [], []),
              ("not whole 2M pages per uffd", "3M", ["-s", "anonymous_hugetlb_2mb",
                                                     "-u", "MISSING"], []),
              ("not whole 2M pages per uffd, MINOR", "3M", ["-s", "shared_hugetlb",
                                                            "-u", "MINOR"], [])),
        opt("-c", CPUS_BAD),
        opt("-d", int_bad(0, 10000000), base=dp_u),
        opt("-m", int_bad(0, 15)),
        opt("-r", int_bad(1, 256), base=dp_u),
        opt("-s", enum_bad("anonymous")),
        extra(opt("-u", enum_bad("MISSING")),
              ("MINOR on a private source", "MINOR", [], [])),
        opt("-v", int_bad(1, 1024)),
        extra(opt("--source", enum_bad("pattern"), base=dp_u + ["-b", "4M"]),
              ("file: without a path", "file:", dp_u + ["-b", "4M"], []),
              ("file that does not exist", "file:/nonexistent/kmp.img", dp_u + ["-b", "4M"], []),
              ("file shorter than guest memory", "file:" + short_img, dp_u + ["-b", "4M"], []),
              ("a directory", "file:" + tmp, dp_u + ["-b", "4M"], [])),
        opt("--write-image", [("empty", ""), ("folder that does not exist",
                                              "/nonexistent/kmp/x.img")],
            base=["-b", "4M"], rc=(1, 2)),
        opt("--sweep-vcpus", [("non-numeric", "abc"), ("negative", "-1"), ("empty", ""),
                              ("zero", "0"), ("above the maximum", "1025"),
                              ("overflow", "99999999999999999999"),
                              ("trailing junk", "1,2x"), ("reversed range", "2-1"),
                              ("empty item", "1,,2")]),
        extra(opt("--repeat", int_bad(1, 1000)),
              ("without --sweep-vcpus", "3", [], [])),
        opt("--json", [("empty", "")], base=["-b", "4M"]),
    ]


def zap_latency_specs():
    return [
        extra(opt("-b", size_bad() + [("zero", "0")]),
              ("below 1M per vCPU", "512K", ["-v", "2"], []),
              ("less than one 1G page, naming -b not -x", "4M",
               ["-s", "anonymous_hugetlb_1gb"], []),
              ("beyond the guest address space", "200T", ["-v", "2"], []),
              ("overflow when rounded to pages", U64_MAX, ["-v", "1"], [])),
        opt("-c", CPUS_BAD),
        opt("-i", int_bad(1, 100000)),
        opt("-s", enum_bad("anonymous")),
        opt("-v", int_bad(1, 1024)),
        opt("--trigger", enum_bad("delete")),
        opt("--zap-all", enum_bad("on")),
        opt("--json", [("empty", "")], base=["-v", "1", "-b", "4M", "-i", "1"]),
    ]


def tlbie_bench_specs():
    return [
        opt("-c", CPUS_BAD),
        opt("-t", int_bad(1, 86400)),
        opt("-v", int_bad(1, 1024)),
        extra(opt("--pages", int_bad(1, 512)),
              ("too many for --shared", "200", ["-v", "4", "--shared"], [])),
        opt("--flush", enum_bad("page")),
        opt("--json", [("empty", "")], base=["-t", "1"]),
    ]


PROBE_CFG = """\
# Sections whose requirement is never met: run.sh skips them without
# starting a benchmark, whatever it is asked to do.
[probe]
file = tlbie_bench
args = -v 1 -t 1
groups = probe
requires = hugetlb:1G:100000
timeout = 5

[probe-dlp]
file = dirty_log_perf
args = -v 1 -b 4M -i 2
groups = probe
requires = hugetlb:1G:100000
timeout = 5
"""


def run_sh_specs(tmp):
    """run.sh's specs: ab's, then the others'."""
    a_file = os.path.join(tmp, "a-file")
    empty_dir = os.path.join(tmp, "empty-dir")
    open(a_file, "w").close()
    os.makedirs(empty_dir, exist_ok=True)
    return ab_specs(tmp, a_file, empty_dir) + run_specs(a_file, empty_dir)


def ab_specs(tmp, a_file, empty_dir):
    tree = os.path.join(tmp, "kernel-tree")       # a build tree without KVM's modules
    os.makedirs(os.path.join(tree, "arch", "x86", "boot"), exist_ok=True)
    open(os.path.join(tree, "arch", "x86", "boot", "bzImage"), "w").close()
    with open(os.path.join(tree, ".config"), "w") as f:
        f.write("CONFIG_KVM=m\nCONFIG_KVM_AMD=m\n")
    fake_deb = os.path.join(tmp, "linux-image-fake.deb")
    with open(fake_deb, "w") as f:
        f.write("not a package\n")
    ab = ["ab", "-t", "probe"]
    return [
        dict(option="ab --kernel", names=["--kernel"], cases=[
            ("empty", "", ab + ["--kernel"], ["--kernel", empty_dir]),
            ("missing value", None, ab + ["--kernel"], []),
            ("only one kernel", empty_dir, ab + ["--kernel"], []),
            ("a third kernel", "/nonexistent/kmp-third", ab + ["--kernel", empty_dir, "--kernel",
                                                               empty_dir, "--kernel"], []),
            ("does not exist", "/nonexistent/kmp-kernel", ab + ["--kernel"],
             ["--kernel", "/nonexistent/kmp-kernel"]),
            ("a regular file", a_file, ab + ["--kernel"], ["--kernel", a_file]),
            ("a .deb that is no package", fake_deb, ab + ["--kernel"], ["--kernel", fake_deb]),
            ("a package name with a space", "linux-image-6.1 x", ab + ["--kernel"],
             ["--kernel", empty_dir]),
            ("a tree without bzImage", empty_dir, ab + ["--kernel"], ["--kernel", empty_dir]),
            ("a tree without KVM's modules", tree, ab + ["--kernel"], ["--kernel", tree])]),
        dict(option="ab --mmu", names=["--mmu"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--mmu"], [])
            for k, v in (("empty", ""), ("unknown MMU", "ept"), ("upper case", "TDP"))]),
        dict(option="ab --arch", names=["--arch"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--arch"], [])
            for k, v in (("empty", ""), ("unknown arch", "sparc"), ("uname's name", "aarch64"),
                         ("missing value", None))]),
        dict(option="ab --arch arm64 --mmu", names=["--mmu"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--arch", "arm64",
                         "--mmu"], [])
            for k, v in (("x86's MMU", "tdp"), ("POWER's MMU", "hpt"))]),
        dict(option="ab --smp", names=["--smp"], cases=[
            (k, v, ab + ["--kernel", empty_dir, "--kernel", empty_dir, "--smp"], [])
            for k, v in int_bad(1, 8)]),
    ]


def run_specs(a_file, empty_dir):
    ro = "ro"       # marks cases run with / read-only
    sweep = ["sweep", "probe", "--vary", "vcpus=1"]
    repeat_kinds = int_bad(1, None)
    results_kinds = [("empty", "", ro), ("cannot be created", "/proc/kmp-nope/results", ro),
                     ("a regular file", a_file, ro)]
    vary = [("empty", ""), ("no '='", "vcpus"), ("unknown variable", "foo=1"),
            ("no values", "vcpus="), ("non-numeric", "vcpus=abc"), ("zero", "vcpus=0"),
            ("negative", "vcpus=-1"), ("overflow", "vcpus=99999999999999999999"),
            ("trailing junk", "vcpus=12x"), ("empty item", "vcpus=1,,2"),
            ("trailing junk", "chunk=12x"), ("zero", "chunk=0")]
    return [
        dict(option="-g", names=["-g", "group"], cases=[
            ("empty", "", ["-g"], []), ("unknown group", "nosuch", ["-g"], []),
            ("missing value", None, ["-g"], [])]),
        dict(option="-t", names=["-t", "section"], cases=[
            ("empty", "", ["-t"], []), ("unknown section", "nosuch", ["-t"], []),
            ("missing value", None, ["-t"], [])]),
        dict(option="--repeat", names=["--repeat"], cases=[
            (k, v, ["-g", "probe", "--repeat"], []) for k, v in repeat_kinds] + [
            ("missing value", None, ["-g", "probe", "--repeat"], [])]),
        dict(option="--results", names=["--results"], cases=[
            (k, v, ["-g", "probe", "--results"], [], r) for k, v, r in results_kinds] + [
            ("missing value", None, ["-g", "probe", "--results"], [])]),
        dict(option="compare BASE NEW", names=["compare"], cases=[
            ("BASE does not exist", "/nonexistent/kmp-base", ["compare"], [empty_dir]),
            ("NEW does not exist", "/nonexistent/kmp-new", ["compare", empty_dir], []),
            ("empty", "", ["compare"], [""]),
            ("BASE is a file", a_file, ["compare"], [empty_dir]),
            ("not a results folder", empty_dir, ["compare"], [empty_dir]),
            ("missing NEW", None, ["compare", empty_dir], [])]),
        dict(option="sweep TEST", names=["sweep", "section", "-t"], cases=[
            ("unknown section", "nosuch", ["sweep"], ["--vary", "vcpus=1"]),
            ("empty", "", ["sweep"], ["--vary", "vcpus=1"]),
            ("missing value", None, ["sweep"], [])]),
        dict(option="sweep --vary", names=["--vary"], cases=[
            (k, v, ["sweep", "probe-dlp" if v.startswith("chunk") else "probe", "--vary"], [])
            for k, v in vary] + [("missing value", None, ["sweep", "probe", "--vary"], [])]),
        dict(option="sweep --repeat", names=["--repeat"], cases=[
            (k, v, sweep + ["--repeat"], []) for k, v in repeat_kinds] + [
            ("missing value", None, sweep + ["--repeat"], [])]),
        dict(option="sweep --results", names=["--results"], cases=[
            (k, v, sweep + ["--results"], [], r) for k, v, r in results_kinds] + [
            ("missing value", None, sweep + ["--results"], [])]),
    ]
