#!/bin/bash
# The emulated KVM host of configs/emu-hosts as a LAVA QEMU device boots it:
# OUTDIR/vmlinuz (Debian's kernel, as boot.sh boots it), OUTDIR/initrd.gz
# (the suite in /kmp as host-suite.sh lays it out, with scripts/ holding
# kmp-lava-group.sh and console-reports.sh; /init loads KVM and leaves a
# shell on the console, lava/shell.sh) and OUTDIR/job.env (what a job
# template needs: QEMU's options, the kernel's command line, memory, the
# host's description).  --control adds lava/control.cfg, whose group
# lava-control fails on purpose.
# Usage: lava/make-ramdisk.sh ARCH OUTDIR [--control]
# Env: boot.sh's KMP_EMU_* (KMP_EMU_MMU, KMP_EMU_ICOUNT, KMP_EMU_SMP, ...).
set -euo pipefail
arch=${1:?usage: lava/make-ramdisk.sh ARCH OUTDIR [--control]}
out=${2:?usage: lava/make-ramdisk.sh ARCH OUTDIR [--control]}
control=${3:-}
case "$control" in ''|--control) ;; *) echo "lava/make-ramdisk.sh: unknown option '$control' (--control)" >&2; exit 2 ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$src/build/$arch/bin/kmp_lava" ] || { echo "lava/make-ramdisk.sh: no $src/build/$arch/bin/kmp_lava: run 'make ARCH=$arch' first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
bindir=$out/suite script=$src/lava/shell.sh work=$out
"$src/scripts/emu/host-suite.sh" "$arch" "$bindir"
mkdir -p "$bindir/scripts"
cp "$src/lava/kmp-lava-group.sh" "$src/scripts/emu/console-reports.sh" "$bindir/scripts/"
[ -z "$control" ] || cp "$src/lava/control.cfg" "$bindir/configs/"
me=lava/make-ramdisk.sh
# shellcheck source=scripts/emu/host-image.sh
. "$src/scripts/emu/host-image.sh"
cp "$kernel" "$out/vmlinuz"
rm -rf "$bindir" "$work/root"
mb=${mem%G}
[ "$mb" != "$mem" ] && mb=$((mb * 1024))
{
	printf 'KMP_QEMU=%q\n' "${qemu[0]}"
	printf 'KMP_QEMU_OPTIONS=%q\n' "${qemu[*]:1} ${icount_args[*]} -smp $smp"
	printf 'KMP_KERNEL_ARGS=%q\n' "$console_args $kernel_args"
	printf 'KMP_MEMORY_MB=%q\n' "$mb"
	printf 'KMP_EMULATED=%q\n' "$emulated"
} > "$out/job.env"
echo "lava/make-ramdisk.sh: $out/vmlinuz and $out/initrd.gz ($name: $origin${modparams:+, $modparams})"
