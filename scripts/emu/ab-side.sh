#!/bin/bash
# One side of `run.sh ab`: boot one kernel as an emulated ARCH KVM host
# (boot.sh) and run run.sh there, with the same selection, into OUTDIR.
# The host gets the suite as host-suite.sh lays it out.  The results folder comes
# back through the console as a base64 tarball (KMP-REC lines, which
# boot.sh does not show).
# Usage: scripts/emu/ab-side.sh ARCH CACHE SPEC OUTDIR TIMEOUT_SECONDS RUN_SH_ARGS...
# CACHE is what scripts/emu/kernel.sh made of SPEC (named in messages).
# Env: KMP_EMU_SMP, KMP_EMU_ICOUNT, KMP_EMU_MMU, KMP_EMU_MODPARAMS,
# KMP_EMU_NAME, KMP_EMU_SYSROOT (boot.sh).
# Exit: 0 when every run passed or skipped, 1 otherwise (a failed run, a
# kernel that did not boot or has no KVM: boot.sh names it).
set -euo pipefail
arch=$1 cache=$2 spec=$3 outdir=$4 timeout_s=$5
shift 5
src=$(cd "$(dirname "$0")/../.." && pwd)
name=${KMP_EMU_NAME:-$spec}

work=$(mktemp -d "${TMPDIR:-/tmp}/kmp-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$outdir"
"$src/scripts/emu/host-suite.sh" "$arch" "$work/bin"

# busybox sh runs this; run.sh's arguments were checked by the caller, and
# are single-quoted here all the same.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	printf '/kmp/bash /kmp/run.sh'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	# Inside, KVM is the host's own: never another emulated host.
	echo ' --host local --results /tmp/results'
	# shellcheck disable=SC2016
	echo 'rc=$?'
	# The console quiet (/init raised it to warnings): a kernel line would
	# split the tarball's; /init's dump of the kernel log, last, has it.
	echo 'echo 1 > /proc/sys/kernel/printk'
	echo 'echo KMP-REC-AB-BEGIN'
	echo '(cd /tmp/results && tar cf - . | gzip -1 | base64) | sed "s/^/KMP-REC /"'
	echo 'echo KMP-REC-AB-END'
	# shellcheck disable=SC2016
	echo 'exit $rc'
} > "$work/script.sh"

log=$outdir/console.log
set +e
KMP_EMU_CACHE=$cache KMP_EMU_LOG=$log "$src/scripts/emu/boot.sh" "$arch" "$work/bin" "$work/script.sh" "$timeout_s"
rc=$?
set -e
# boot.sh has said why when the host did not boot or has no KVM.
if ! grep -q '^KMP-REC-AB-END$' "$log"; then
	echo "run.sh ab: $name ($spec): no results came back (console: $log)" >&2
	exit 1
fi
sed -n '/^KMP-REC-AB-BEGIN$/,/^KMP-REC-AB-END$/s/^KMP-REC //p' "$log" |
	base64 -d | tar xzf - -C "$outdir"
exit $((rc != 0))
