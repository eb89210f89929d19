#!/bin/bash
# Why make check-x86 runs QEMU with one TCG thread: QEMU 7.2's multi-threaded
# TCG can keep executing a translation of kernel text that another vCPU has
# since patched (fixed in QEMU 8.1 by "accel/tcg: Always lock pages before
# translation").  Linux patches static-key sites with an int3 first, so the
# emulated host runs a stale int3: an Oops, or both CPUs looping in the int3
# handler.  KVM flips such keys when a first VM is created or the last one
# destroyed.  This boots the x86 emulated host (scripts/emu/boot.sh) with no
# KVM guest at all, flips the sched_schedstats key FLIPS times while two
# pipes keep both CPUs switching tasks, and says whether the host survived.
# Usage: scripts/emu/mttcg-repro.sh [ACCEL [KERNEL [FLIPS [SMP]]]]
#   defaults: tcg,thread=multi 6.12 2000 2
# Exit: 0 the host flipped every time cleanly, 1 it did not (reproduced),
# 2 bad arguments.  Seen here: thread=multi with 2 CPUs Oopsed within 50 ms
# (6.12) or hung before 500 flips (6.1); thread=single, or one CPU, ran clean.
set -euo pipefail
accel=${1:-tcg,thread=multi} kernel=${2:-6.12} flips=${3:-2000} smp=${4:-2}
src=$(cd "$(dirname "$0")/../.." && pwd)
case "$flips" in *[!0-9]*|'') echo "mttcg-repro.sh: FLIPS '$flips': must be a number of flips (0 or more)" >&2; exit 2 ;; esac
case "$smp" in *[!0-9]*|''|0) echo "mttcg-repro.sh: SMP '$smp': must be a number of CPUs (1 or more)" >&2; exit 2 ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kmp-mttcg.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cat > "$work/flip.sh" <<FLIP
knob=/proc/sys/kernel/sched_schedstats
[ -w \$knob ] || { echo "MTTCG-REPRO: no \$knob"; exit 3; }
yes | cat > /dev/null &
yes | cat > /dev/null &
i=0
while [ \$i -lt $flips ]; do
	echo 1 > \$knob; echo 0 > \$knob
	i=\$((i + 1))
	[ \$((i % 100)) = 0 ] && echo "MTTCG-REPRO: \$i flips"
done
kill %1 %2
dmesg | grep -i -E 'int3|oops|soft lockup' && exit 1
echo "MTTCG-REPRO: $flips flips, clean"
FLIP
log=$work/console.log
set +e
KMP_EMU_ACCEL=$accel KMP_EMU_KERNEL=$kernel KMP_EMU_SMP=$smp KMP_EMU_LOG=$log \
	KMP_EMU_NAME="x86_64/mttcg-repro" "$src/scripts/emu/boot.sh" x86_64 "$work/bin" "$work/flip.sh" \
	"${KMP_EMU_REPRO_TIMEOUT:-300}" > "$work/boot.out" 2>&1
boot_rc=$?
set -e
# No console at all: the host never started (a bad kernel series, no QEMU...).
if [ ! -s "$log" ]; then
	echo "mttcg-repro: the emulated host did not start (boot.sh exit $boot_rc):" >&2
	grep -v '^  EMU ' "$work/boot.out" >&2 || true
	exit 2
fi
if grep -q "MTTCG-REPRO: $flips flips, clean" "$log"; then
	echo "mttcg-repro: -accel $accel, $smp CPUs, kernel $kernel: $flips static-key flips, clean"
	exit 0
fi
echo "mttcg-repro: -accel $accel, $smp CPUs, kernel $kernel: REPRODUCED after" \
	"$(grep -o 'MTTCG-REPRO: [0-9]* flips' "$log" | tail -1 | grep -o '[0-9]*' || echo 0) flips:"
grep -m3 -i -E 'int3|oops|soft lockup|never finished' "$log" || echo "  (no message: the host hung)"
exit 1
