#!/bin/bash
# Boot Debian's kernel for ARCH under QEMU (software emulation) as a KVM
# host, with BIN_DIR's files in /kmp, run `sh SCRIPT` there, and print the
# console.  The console log ends with the kernel's whole log as KMP-REC-DMESG
# lines (host-image.sh's /init), for scripts/emu/console-reports.sh.
# Exit status: the script's, or 1 when the host never reported one
# (kernel panic, timeout, QEMU failure).
# Usage: scripts/emu/boot.sh ARCH BIN_DIR SCRIPT [TIMEOUT_SECONDS]
# Env: KMP_EMU_KERNEL (kernel series: "default", Debian 12's current kernel,
# or e.g. 6.12), KMP_EMU_CACHE (default build/ARCH/emu, or build/ARCH/emu-SERIES),
# KMP_EMU_SYSROOT (target libraries of a cross build, default build/ARCH/sysroot),
# KMP_EMU_LOG (console copy), KMP_EMU_MMU (the host's KVM MMU, a line of
# configs/emu-hosts: QEMU's machine and CPU and KVM's parameters; default the
# arch's first), KMP_EMU_SMP (vCPUs of the emulated host,
# default 2), KMP_EMU_MEM (its memory, default 2G; 6G on x86_64),
# KMP_EMU_MODPARAMS (more parameters, after the MMU's, in the kernel command
# line's syntax, e.g. "kvm_hv.tlbie_lock=1"), KMP_EMU_NAME (a label for the
# host in messages), KMP_EMU_ACCEL (x86_64: QEMU's -accel, default
# tcg,thread=single; "tcg" is multi-threaded TCG, which is not stable, see
# docs/arches.md), KMP_EMU_ICOUNT (QEMU's -icount, e.g. "shift=5,sleep=off":
# the emulated clock follows instructions, so timings repeat run to run; with
# it, random numbers and the boot-time clock are fixed too),
# KMP_EMU_BOOT_TIMEOUT (seconds the host may take to reach its script,
# default 600: a boot that hangs is stopped then and tried once more; the
# log keeps both boots' consoles).
set -euo pipefail
arch=$1 bindir=$2 script=$3 timeout_s=${4:-900}
boot_s=${KMP_EMU_BOOT_TIMEOUT:-600}
case "$boot_s" in
''|*[!0-9]*|0) echo "emu/boot.sh: KMP_EMU_BOOT_TIMEOUT '$boot_s': must be a number of seconds (1 or more)" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
work="" me=emu/boot.sh
# shellcheck source=scripts/emu/host-image.sh
. "$src/scripts/emu/host-image.sh"
log=${KMP_EMU_LOG:-$work/console.log}
echo "  EMU     $name: ${qemu[0]} ($kver${modparams:+, $modparams}), timeout ${timeout_s}s" >&2
# The console goes to the log whole, less carriage returns and SeaBIOS's
# terminal escapes; firmware chatter (skiboot's "[ t,level]" lines) and
# records passed through it (check.sh's KMP-REC lines) are left out of what
# is shown, and so is init's KMP-EMU-START marker. Every stage is
# line-buffered (sed -u, grep --line-buffered): a block-buffered stage such
# as tr held a long ab side's output back for many minutes.
qemu+=(-kernel "$kernel" -append "$console_args quiet loglevel=3 $kernel_args" ${icount_args[@]+"${icount_args[@]}"})
boot_once() {	# one boot; sets qemu_rc
	{ echo "$BASHPID" > "$work/timeout.pid"
	  exec timeout --foreground -k 20 "$timeout_s" "${qemu[@]}" -smp "$smp" -m "$mem" -nographic \
		-no-reboot -nic none -initrd "$work/initrd.gz"; } </dev/null 2>&1 |
		sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' | tee -a "$log" |
		sed -u -e '/^KMP-EMU-START$/d' -e 's/KMP-EMU-START$//' |
		grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+,[0-9]\]|^ S: [0-9a-f]+ R:|^CPU [0-9a-f]+ Backtrace:| --- OPAL boot ---|KMP-REC'
	qemu_rc=${PIPESTATUS[0]}
}
# The watchdog: QEMU 7.2's TCG has hung in an emulated host's boot (once in
# CI, on the POWER8 host: no test had started after 1800 s, where the boot
# takes 15 s).  The boot is not what is under test, so a host that has not
# reached its script (init's KMP-EMU-START) in boot_s seconds is stopped and
# booted once more; a hang after that point is the run's own and fails it.
# init's markers are looked for anywhere on their line: a line may hold
# other output before them (x86's SeaBIOS leaves "Booting from ROM.."
# without its newline, and the quiet kernel prints nothing after it).
watch_boot() {
	local waited=0
	while [ "$waited" -lt "$boot_s" ]; do
		sleep 1
		waited=$((waited + 1))
		this_boot | grep 'KMP-EMU-START' > /dev/null && return 0
	done
	: > "$work/boot-hung"
	kill "$(cat "$work/timeout.pid")" 2>/dev/null || true
}
# The log holds every boot's console (a hung boot's may show why); the
# markers are read from the last boot's alone, which starts at byte $from
# (grep without -q: pipefail would take tail's SIGPIPE for a failure).
this_boot() { tail -c +$((from + 1)) "$log" 2>/dev/null; }
console_tail() {	# the console's last $1 lines, quoted under a failure's message
	this_boot | grep -v 'KMP-REC' | grep -v '^[[:space:]]*$' | tail -n "$1" | sed 's/^/  | /' >&2
}
: > "$log"
for attempt in 1 2; do
	rm -f "$work/boot-hung"
	if [ "$attempt" = 2 ]; then
		echo "emu/boot.sh: the boot above had not reached its script after ${boot_s}s: booting once more" >> "$log"
	fi
	from=$(stat -c %s "$log")
	watch_boot &
	watcher=$!
	set +e
	boot_once
	set -e
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	[ -e "$work/boot-hung" ] || break
	echo "emu/boot.sh: the emulated $name host ($origin) had not reached its script after ${boot_s}s (attempt $attempt of 2: a hung boot); the console's last lines:" >&2
	console_tail 8
	[ "$attempt" = 2 ] && exit 1
	echo "emu/boot.sh: booting the emulated $name host once more" >&2
done
if this_boot | grep 'KMP-EMU-NO-KVM$' > /dev/null; then
	echo "emu/boot.sh: the emulated $name host ($origin) booted without KVM (no /dev/kvm); the console's last lines:" >&2
	console_tail 8
	exit 1
fi
rc=$(this_boot | sed -n 's/.*KMP-EMU-EXIT \([0-9]*\)$/\1/p' | tail -1)
if [ -z "$rc" ]; then
	echo "emu/boot.sh: the emulated $name host ($origin) never finished its script (QEMU exit $qemu_rc$([ "$qemu_rc" = 124 ] && echo ": timed out after ${timeout_s}s")); the console's last lines:" >&2
	console_tail 12
	exit 1
fi
exit "$rc"
