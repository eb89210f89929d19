#!/bin/bash
# The kernel's own reports in an emulated host's console log: a WARN or BUG
# ("WARNING: CPU: 0 PID: 1 at FILE:LINE", "kernel BUG at"), lockdep's
# splats ("WARNING: possible circular locking dependency detected" and kin),
# sleeping in atomic context, KASAN and UBSAN, an RCU stall or a soft lockup,
# an Oops, a fault in the kernel or a panic.  A kernel that made one gives
# figures that no one should trust.  The hosts boot with loglevel=3, which
# keeps warnings off the console, so the guest script ends by printing the
# whole kernel log as KMP-REC-DMESG lines (check.sh, ab-side.sh): those are
# read, and the console's own lines too (a report seen on both counts once).
# Any line of the dumped log may hold a report, wherever its printk prefixes
# ("[ time] ", "[T12] ", "rcu: ") end; on the console, where the suite's
# own output is too, a report must start the line or follow "] " or a
# subsystem's "name: ".  The dumped log must hold the kernel's banner
# ("Linux version"), else the ring buffer wrapped and reports may be lost.
# Usage: scripts/emu/console-reports.sh CONSOLE_LOG LABEL
# Exit 0 and nothing printed: no report; 1: "LABEL: the kernel reported
# trouble (N line(s) in LOG)", the first quoted with the lines after it; 2: the log cannot be read, or it
# has no whole kernel log (a host that died, a wrapped buffer).
set -euo pipefail
log=${1:?usage: console-reports.sh CONSOLE_LOG LABEL} label=${2:?usage: console-reports.sh CONSOLE_LOG LABEL}
[ -r "$log" ] || { echo "$label: cannot read the console log $log" >&2; exit 2; }
report='(WARNING: |BUG: |kernel BUG at |Oops|Internal error: |Unable to handle kernel |general protection fault|Kernel panic|UBSAN: |INFO: rcu_[a-z_]+ (self-)?detected (expedited )?stall)'
quote=4	# lines quoted after the first report's (the location and call trace)
dmesg=$(mktemp) console=$(mktemp) found=$(mktemp)
trap 'rm -f "$dmesg" "$console" "$found"' EXIT
tr -d '\r' < "$log" | sed -n 's/^KMP-REC-DMESG //p' > "$dmesg"
tr -d '\r' < "$log" | grep -av '^KMP-REC' > "$console" || true
# Through a file, not < <(...): a host's ramdisk may have no /dev/fd.
{ grep -aE "$report" "$dmesg" || true
	grep -aE "(^|\] |^[a-z0-9_-]+: )$report" "$console" || true; } | awk '!seen[$0]++' > "$found"
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
