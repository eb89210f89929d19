#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make check-lava: the suite under Debian's lava-dispatcher, offline.

Installs lava-dispatcher when lava-run is missing, takes the QEMU device
type from Debian's lava-server package (downloaded and unpacked, never
installed), builds the emulated x86_64 and arm64 KVM hosts' ramdisks
(lava/make-ramdisk.sh), renders each job and a local TCG device
(lava/render.py) and runs them with lava-run.  Then LAVA's own results (its
log's "results" records) must hold exactly the expected cases with their
results, and every passing run its measurements, each with a unit.  A
second job runs a deliberately failing case (lava/control.cfg): LAVA must
show it, and the group's verdict, as failed.  The bare-metal template is
rendered and checked against lava-dispatcher's job schema (no such device
here).  KTAP on stdout; exit 1 when a check failed."""
import glob
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kmp_testlib import SRC, run_steps  # noqa: E402

WORK = os.path.join(SRC, "build", "lava")
TYPES = os.path.join(WORK, "lava-server", "usr", "share", "lava-server", "device-types")
ENV = dict(os.environ, KMP_EMU_KERNEL="6.12", KMP_EMU_ICOUNT="shift=0,sleep=off", KMP_EMU_SMP="1")
# The emulated x86_64 host: the TDP MMU over emulated NPT.  tlbie_bench's
# section needs the shadow MMU (its skip is LAVA's skip).
TINY = {"dp-missing.1": "pass", "ab-repeat-dlp.1": "pass", "tlbie-seed001.1": "skip",
        "ab-repeat-zap.1": "pass", "kernel-reports": "pass", "group-tiny": "pass"}
# arm64's stage 2: tlbie_bench and zap_latency's sections are not for arm64.
TINY_ARM64 = {"dp-missing.1": "pass", "ab-repeat-dlp.1": "pass", "kernel-reports": "pass",
              "group-tiny": "pass"}
CONTROL = {"lava-control-fail.1": "fail", "kernel-reports": "pass", "group-lava-control": "fail"}
# The definition's cases that are no benchmark run (kmp-lava-group.sh): they carry no figures.
NOT_RUNS = ("kernel-reports", "group-")


def say(msg):
    print("# check-lava: [%3ds] %s" % (time.time() - START, msg), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, env=ENV, **kw)


def setup():
    """lava-dispatcher installed; lava-server's device types unpacked."""
    if not shutil.which("lava-run"):
        say("installing lava-dispatcher (about 2 minutes)")
        run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "lava-dispatcher"],
            stdout=subprocess.DEVNULL)
    if not os.path.exists(os.path.join(TYPES, "qemu.jinja2")):
        say("unpacking lava-server's device types (apt-get download lava-server)")
        os.makedirs(WORK, exist_ok=True)
        for old in glob.glob(os.path.join(WORK, "lava-server_*.deb")):
            os.remove(old)
        run(["apt-get", "download", "-q", "lava-server"], cwd=WORK, stdout=subprocess.DEVNULL)
        deb = glob.glob(os.path.join(WORK, "lava-server_*.deb"))[0]
        run(["dpkg-deb", "-x", deb, os.path.join(WORK, "lava-server")])


def lava_results(log):
    """LAVA's results records from lava-run's log: a YAML mapping a line."""
    import yaml
    out = []
    with open(log) as f:
        for line in f:
            if '"lvl": "results"' in line:
                out.append(yaml.safe_load(line)["msg"])
    return out


def lava_job(name, ramdisk_args, group, arch="x86_64"):
    """Build, render and run one job; its results records."""
    d = os.path.join(WORK, name)
    say("%s: building the emulated host's ramdisk" % name)
    run([os.path.join(SRC, "lava", "make-ramdisk.sh"), arch, os.path.join(d, "image")]
        + ramdisk_args, stdout=subprocess.DEVNULL)
    job, device = os.path.join(d, "job.yaml"), os.path.join(d, "device.yaml")
    render = [sys.executable, os.path.join(SRC, "lava", "render.py")]
    with open(job, "w") as f:
        run(render + ["emulated-job", os.path.join(d, "image"), "--arch", arch,
                      "--inline", "--group", group], stdout=f)
    with open(device, "w") as f:
        run(render + ["device", os.path.join(SRC, "lava", "devices", "qemu-tcg.jinja2"),
                      TYPES, job], stdout=f)
    with open(os.path.join(d, "dispatcher.yaml"), "w") as f:
        f.write("dispatcher_ip: 127.0.0.1\n")
    # lava-run works in /var/lib/lava/dispatcher/tmp/<job id>: one of its own.
    job_id = str(int(time.time() * 1000) % 10**9)
    say("%s: lava-run (job %s; the console in %s/lava-run.log)" % (name, job_id, d))
    with open(os.path.join(d, "lava-run.log"), "w") as f:
        r = subprocess.run(["lava-run", "--job-id", job_id, "--output-dir",
                            os.path.join(d, "output"), "--device", device, "--dispatcher",
                            os.path.join(d, "dispatcher.yaml"), job], stdout=f,
                           stderr=subprocess.STDOUT, env=ENV)
    say("%s: lava-run exit %d" % (name, r.returncode))
    return r.returncode, lava_results(os.path.join(d, "lava-run.log"))


def check_cases(results, expected):
    """The suite's cases (its definition's) against EXPECTED, exactly."""
    problems = []
    ours = [r for r in results if r.get("definition", "").endswith("_kvm-mmu-perf")]
    runs = {r["case"]: r["result"] for r in ours if "measurement" not in r}
    if runs != expected:
        problems.append("cases %r, expected %r" % (runs, expected))
    for case, result in runs.items():
        figures = [r for r in ours if r["case"].startswith(case + ".") and "measurement" in r]
        if result == "pass" and not case.startswith(NOT_RUNS) and not figures:
            problems.append("%s passed with no measurement" % case)
        if result != "pass" and figures:
            problems.append("%s is %s but has %d measurements" % (case, result, len(figures)))
        problems += ["%s: measurement %r without a unit" % (r["case"], r["measurement"])
                     for r in figures if not r.get("units")]
    job = [r["result"] for r in results if r["case"] == "job"]
    if job != ["pass"]:
        problems.append("LAVA's job result %r (the job did not complete)" % job)
    return problems, len([r for r in ours if "measurement" in r])


def tiny_job(tmp, results):
    rc, res = lava_job("tiny", [], "tiny")
    problems, n = check_cases(res, TINY)
    results.append(("lava-run of the x86_64 emulated host's job (group tiny): exit %d, every "
                    "case with its result, %d measurements, each with a unit" % (rc, n),
                    problems + (["lava-run exit %d" % rc] if rc else [])))
    results.append(("the job's results folder comes back out of LAVA's log, its records give "
                    "exactly LAVA's cases and measurements, and run.sh compare reads it",
                    folder_from_log(tmp, res)))


def folder_from_log(tmp, lava):
    """lava/results-from-log.py on the tiny job's log; kmp_lava on what it gives."""
    folder = os.path.join(tmp, "tiny-results")
    r = subprocess.run([sys.executable, os.path.join(SRC, "lava", "results-from-log.py"),
                        os.path.join(WORK, "tiny", "lava-run.log"), folder],
                       capture_output=True, text=True)
    if r.returncode:
        return ["results-from-log.py exit %d: %s" % (r.returncode, r.stderr.strip())]
    lines = subprocess.run([os.path.join(SRC, "build", "x86_64", "bin", "kmp_lava"), folder],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    want = set()
    for line in lines:
        if line.startswith("lava-test-case "):
            w = line.split()
            want.add((w[1], w[3], float(w[5]) if len(w) > 5 else None,
                      w[7] if len(w) > 7 else None))
    got = {(r["case"], r["result"], r.get("measurement"), r.get("units")) for r in lava
           if r.get("definition", "").endswith("_kvm-mmu-perf")
           and not r["case"].startswith(NOT_RUNS)}
    problems = ["only in LAVA: %r" % (x,) for x in sorted(got - want, key=str)][:3]
    problems += ["only in the records: %r" % (x,) for x in sorted(want - got, key=str)][:3]
    c = subprocess.run([os.path.join(SRC, "run.sh"), "compare", folder, folder],
                       capture_output=True, text=True)
    if c.returncode:
        problems.append("run.sh compare exit %d: %s" % (c.returncode, c.stderr.strip()[-300:]))
    return problems


def control_job(_tmp, results):
    rc, res = lava_job("control", ["--control"], "lava-control")
    problems, _ = check_cases(res, CONTROL)
    results.append(("the deliberately failing job: LAVA shows lava-control-fail.1 and "
                    "group-lava-control as failed", problems))


def arm64_job(_tmp, results):
    rc, res = lava_job("arm64", [], "tiny", "arm64")
    problems, n = check_cases(res, TINY_ARM64)
    results.append(("lava-run of the arm64 emulated host's job (group tiny): exit %d, every "
                    "case with its result, %d measurements, each with a unit" % (rc, n),
                    problems + (["lava-run exit %d" % rc] if rc else [])))


def bare_metal(_tmp, results):
    from lava_common.schemas import validate
    import yaml
    out = subprocess.run([sys.executable, os.path.join(SRC, "lava", "render.py"),
                          "bare-metal-job", "--device-type", "x86", "--kernel-url",
                          "https://lab.example/bzImage", "--rootfs-url",
                          "https://lab.example/rootfs.tar.xz", "--boot-method", "ipxe"],
                         check=True, capture_output=True, text=True).stdout
    try:
        validate(yaml.safe_load(out), strict=True)
        problems = []
    except Exception as exc:  # voluptuous' errors name the key that is wrong
        problems = ["schema: %s" % exc]
    results.append(("the bare-metal job template renders to a job that lava-dispatcher's "
                    "schema accepts", problems))


def main():
    setup()
    return run_steps("kmp-lava-", (tiny_job, control_job, arm64_job, bare_metal))


START = time.time()
if __name__ == "__main__":
    sys.exit(main())
