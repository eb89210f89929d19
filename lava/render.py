#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fill lava/'s job templates, and render a device dictionary as lava-server
would (jinja2, the device-type templates of Debian's lava-server package).

  render.py emulated-job RAMDISK_DIR --arch x86_64|arm64 [--group G] [--run-args A]
            [--inline | --repository URL] [--url-base URL] [--kmp-dir D] [--minutes N]
            > job.yaml
  render.py bare-metal-job --device-type T --kernel-url U --rootfs-url U
            --boot-method M [--group G] [--run-args A] [--repository URL] > job.yaml
  render.py device DEVICE_TEMPLATE DEVICE_TYPES_DIR JOB_YAML > device.yaml

RAMDISK_DIR is lava/make-ramdisk.sh's: vmlinuz, initrd.gz and job.env.  The
device is rendered with the job's context, as lava-server does."""
import argparse
import os
import shlex
import sys

import jinja2
import jinja2.sandbox
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LAVA_ARCH = {"x86_64": "amd64", "arm64": "arm64"}


def read_env(path):
    """make-ramdisk.sh's job.env: NAME=shell-quoted value, a line each."""
    env = {}
    with open(path) as f:
        for line in f:
            name, _, value = line.rstrip("\n").partition("=")
            env[name] = shlex.split(value)[0] if value else ""
    return env


def qemu_options(text):
    """QEMU's options as LAVA's extra_options: each option with its value."""
    words, options = shlex.split(text), []
    for w in words:
        if w.startswith("-") or not options:
            options.append(w)
        else:
            options[-1] += " " + w
    return options


def template(name):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "jobs")),
                             trim_blocks=True, undefined=jinja2.StrictUndefined)
    return env.get_template(name)


def definition(args):
    """The definition inline (offline: lava-run clones nothing), or None for git."""
    if not args.inline:
        return None
    with open(os.path.join(HERE, "kvm-mmu-perf.yaml")) as f:
        return yaml.safe_dump(yaml.safe_load(f), sort_keys=False, width=1000)


def machine_and_cpu(options):
    """arm64: qemu.jinja2 adds -cpu and -machine itself (from the context's cpu
    and machine); x86_64 without KVM adds neither, so they stay options."""
    context = {}
    for o in list(options):
        flag, _, value = o.partition(" ")
        if flag in ("-M", "-machine", "-cpu"):
            context["cpu" if flag == "-cpu" else "machine"] = value
            options.remove(o)
    return context


def emulated_job(args):
    env = read_env(os.path.join(args.ramdisk, "job.env"))
    ramdisk = os.path.abspath(args.ramdisk)
    options = qemu_options(env["KMP_QEMU_OPTIONS"])
    context = machine_and_cpu(options) if args.arch == "arm64" else {}
    # Where the lab's dispatcher downloads them from; lava-run here reads files.
    base = args.url_base.rstrip("/") if args.url_base else "file://" + ramdisk
    return template("qemu-emulated-host.yaml.jinja2").render(
        job_name="kvm-mmu-perf %s on an emulated %s KVM host" % (args.group, args.arch),
        lava_arch=LAVA_ARCH[args.arch], memory_mb=env["KMP_MEMORY_MB"],
        qemu_options=options, machine=context.get("machine"), cpu=context.get("cpu"),
        kernel_url="%s/vmlinuz" % base, ramdisk_url="%s/initrd.gz" % base,
        kernel_args=env["KMP_KERNEL_ARGS"], job_minutes=args.minutes, boot_minutes=10,
        test_minutes=args.minutes - 15, definition_inline=definition(args),
        repository=args.repository, kmp_dir=args.kmp_dir, group=args.group,
        run_args=args.run_args)


def bare_metal_job(args):
    return template("bare-metal.yaml.jinja2").render(
        device_type=args.device_type, job_name="kvm-mmu-perf %s" % args.group,
        job_minutes=args.minutes, boot_minutes=15, test_minutes=args.minutes - 30,
        kernel_url=args.kernel_url, kernel_type=args.kernel_type, rootfs_url=args.rootfs_url,
        rootfs_compression=args.rootfs_compression, boot_method=args.boot_method,
        prompt=args.prompt, definition_inline=None, repository=args.repository,
        kmp_dir=args.kmp_dir, group=args.group, run_args=args.run_args)


def device(args):
    """As lava-server renders a device: sandboxed, no autoescape, trim_blocks,
    the device's folder and the device types on the loader's path."""
    with open(args.job) as f:
        context = yaml.safe_load(f).get("context", {})
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.FileSystemLoader([os.path.dirname(os.path.abspath(args.template)),
                                        args.types]),
        autoescape=False, trim_blocks=True)
    return env.get_template(os.path.basename(args.template)).render(**context)


def parse(argv):
    ap = argparse.ArgumentParser(prog="lava/render.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--group", default="tiny")
    common.add_argument("--run-args", default="")
    common.add_argument("--repository", default="https://example.org/kvm-mmu-perf.git")
    common.add_argument("--minutes", type=int, default=60)
    e = sub.add_parser("emulated-job", parents=[common])
    e.add_argument("ramdisk")
    e.add_argument("--arch", choices=sorted(LAVA_ARCH), required=True)
    e.add_argument("--inline", action="store_true")
    e.add_argument("--kmp-dir", default="/kmp")
    e.add_argument("--url-base", help="where the lab serves RAMDISK_DIR's vmlinuz and "
                   "initrd.gz (default: file:// of RAMDISK_DIR, for lava-run here)")
    b = sub.add_parser("bare-metal-job", parents=[common])
    for opt in ("--device-type", "--kernel-url", "--rootfs-url", "--boot-method"):
        b.add_argument(opt, required=True)
    b.add_argument("--kernel-type", default="image")
    b.add_argument("--rootfs-compression", default="xz")
    b.add_argument("--prompt", default="root@")
    b.add_argument("--kmp-dir", default="/opt/kvm-mmu-perf")
    d = sub.add_parser("device")
    d.add_argument("template")
    d.add_argument("types")
    d.add_argument("job")
    args = ap.parse_args(argv)
    if getattr(args, "minutes", 60) < 31:
        ap.error("--minutes %d: at least 31 (boot and deploy take up to 30)" % args.minutes)
    return args


def main(argv):
    args = parse(argv)
    out = {"emulated-job": emulated_job, "bare-metal-job": bare_metal_job,
           "device": device}[args.cmd](args)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
