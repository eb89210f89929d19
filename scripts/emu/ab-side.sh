#!/bin/bash
# One side of `run.sh ab`: boot one kernel as an emulated x86_64 KVM host
# (boot.sh) and run run.sh there, with the same selection, into OUTDIR.
# The host gets the suite's binaries, run.sh and configs, and the build
# host's bash, setpriv and timeout (busybox lacks what run.sh uses of them);
# the results folder comes back through the console as a base64 tarball
# (KMP-REC lines, which boot.sh does not show).
# Usage: scripts/emu/ab-side.sh CACHE SPEC OUTDIR TIMEOUT_SECONDS RUN_SH_ARGS...
# CACHE is what scripts/emu/kernel.sh made of SPEC (named in messages).
# Env: KMP_EMU_SMP, KMP_EMU_ICOUNT, KMP_EMU_MODPARAMS, KMP_EMU_NAME (boot.sh).
# Exit: 0 when every run passed or skipped, 1 otherwise (a failed run, a
# kernel that did not boot or has no KVM: boot.sh names it).
set -euo pipefail
cache=$1 spec=$2 outdir=$3 timeout_s=$4
shift 4
src=$(cd "$(dirname "$0")/../.." && pwd)
name=${KMP_EMU_NAME:-$spec}

work=$(mktemp -d "${TMPDIR:-/tmp}/kmp-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin/configs" "$outdir"
cp "$src"/build/x86_64/bin/* "$work/bin/"
cp "$src/run.sh" "$work/bin/"
cp "$src"/configs/*.cfg "$work/bin/configs/"
for t in bash setpriv timeout; do
	cp "$(command -v "$t")" "$work/bin/$t"
done

# busybox sh runs this; run.sh's arguments were checked by the caller, and
# are single-quoted here all the same.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	printf '/kmp/bash /kmp/run.sh'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo ' --results /tmp/results'
	# shellcheck disable=SC2016
	echo 'rc=$?'
	echo 'echo KMP-REC-AB-BEGIN'
	echo '(cd /tmp/results && tar cf - . | gzip -1 | base64) | sed "s/^/KMP-REC /"'
	echo 'echo KMP-REC-AB-END'
	# shellcheck disable=SC2016
	echo 'exit $rc'
} > "$work/script.sh"

log=$outdir/console.log
set +e
KMP_EMU_CACHE=$cache KMP_EMU_LOG=$log "$src/scripts/emu/boot.sh" x86_64 "$work/bin" "$work/script.sh" "$timeout_s"
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
