#!/bin/bash
# The kernel's own reports in an emulated host's console log.  A kernel that
# made one gives figures that no one should trust.  Caught, as printk gives
# them (6.1 to 6.12; tests/console-corpus/ holds a case of each and a
# near-miss): a WARN or BUG ("WARNING: CPU: 0 PID: 1 at FILE:LINE",
# "kernel BUG at"), lockdep's splats ("WARNING: possible circular locking
# dependency detected" and kin, "INFO: trying to register non-static key"),
# sleeping in atomic context, KASAN and UBSAN, a corrupted list, an RCU
# stall, a soft or hard lockup, a hung task ("INFO: task ... blocked for
# more than"), an OOM kill, a page allocation failure, an unchecked MSR
# access, a machine check, an Oops, a fault in the kernel, a panic, and any
# other "Call Trace:".
# Where they come from: the console shows errors and warnings live (the
# hosts boot with loglevel=3, and host-image.sh's /init raises the console
# to level 5 once the boot is over), and the host ends by printing its whole
# kernel log as KMP-REC-DMESG lines (host-image.sh); both are read, and a
# report seen on both counts once.  Any line of the dumped log may hold a
# report, wherever its printk prefixes ("[ time] ", "[T12] ", "rcu: ") end;
# on the console, where the suite's own output is too, a report must start
# the line or follow "] ", maybe after a subsystem's "name: ".  The dumped log must
# hold the kernel's banner ("Linux version"), else the ring buffer wrapped
# and reports may be lost.
# Usage: scripts/emu/console-reports.sh CONSOLE_LOG LABEL
# (any console log: boot.sh's KMP_EMU_LOG, run.sh ab's A/console.log, or a
# dmesg saved with each line prefixed "KMP-REC-DMESG ")
# Exit 0 and nothing printed: no report; 1: "LABEL: the kernel reported
# trouble (N line(s) in LOG)", the first quoted with the lines after it; 2:
# the log cannot be read, or it has no whole kernel log (a host that died,
# a wrapped buffer), the console's first report named.
set -euo pipefail
log=${1:?usage: console-reports.sh CONSOLE_LOG LABEL} label=${2:?usage: console-reports.sh CONSOLE_LOG LABEL}
[ -r "$log" ] || { echo "$label: cannot read the console log $log" >&2; exit 2; }
# One alternative a line; a report led by the task's name ("%s invoked
# oom-killer", "%s: page allocation failure") includes it, so that on the
# console it is anchored where the kernel's line starts.
alts=(
	'WARNING: '
	'BUG: '
	'kernel BUG at '
	'Oops'
	'Internal error: '
	'Unable to handle kernel '
	'general protection fault'
	'Kernel panic'
	'UBSAN: '
	'INFO: rcu_[a-z_]+ (self-)?detected (expedited )?stall'
	'INFO: task .+ blocked for more than [0-9]+ seconds'
	'INFO: trying to register non-static key'
	'Watchdog detected hard LOCKUP'
	'list_(add|del) corruption'
	'[^ ]+ invoked oom-killer: '
	'(Memory cgroup o|O)ut of memory: Killed process '
	'[^ ]+: page allocation failure: order:'
	'unchecked MSR access error: '
	'\[Hardware Error\]: '
	'Machine [Cc]heck: '
	'Call [Tt]race:'
)
report="($(IFS='|'; echo "${alts[*]}"))"
quote=4	# lines quoted after the first report's (the location and call trace)
dmesg=$(mktemp) console=$(mktemp) found=$(mktemp)
trap 'rm -f "$dmesg" "$console" "$found"' EXIT
# A dump line may follow output that lacked its newline: its marker is
# looked for anywhere on the line.
tr -d '\r' < "$log" | sed -n 's/^.*KMP-REC-DMESG //p' > "$dmesg"
tr -d '\r' < "$log" | grep -av -e '^KMP-REC' -e 'KMP-REC-DMESG ' > "$console" || true
# Through a file, not < <(...): a host's ramdisk may have no /dev/fd.
{ grep -aE "$report" "$dmesg" || true
	grep -aE "(^|\] )([a-z0-9_-]+: |NMI watchdog: )?$report" "$console" || true; } | awk '!seen[$0]++' > "$found"
mapfile -t reports < "$found"
# One line, the printk prefix kept: it says when and on which host.
first=${reports[0]:-}
if ! [ -s "$dmesg" ]; then
	echo "$label: the console has no kernel log (KMP-REC-DMESG lines): the host did not reach its end, so its kernel's reports are unknown${first:+; on the console: $first}" >&2
	exit 2
fi
if ! grep -aq 'Linux version ' "$dmesg"; then
	echo "$label: the kernel log in $log has lost its start (no 'Linux version' banner: the ring buffer wrapped), so reports may be lost${first:+; the first left: $first}" >&2
	exit 2
fi
[ ${#reports[@]} -gt 0 ] || exit 0
echo "$label: the kernel reported trouble (${#reports[@]} line(s) in $log); the first:"
src=$dmesg
grep -aqxF -- "$first" "$dmesg" || src=$console
grep -axF -A "$quote" -m 1 -- "$first" "$src" | sed 's/^/  | /'
exit 1
