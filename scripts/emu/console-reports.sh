#!/bin/bash
# The kernel's own reports in an emulated host's console log: lockdep's
# ("WARNING: possible circular locking dependency detected" and kin),
# sleeping in atomic context ("BUG: sleeping function called from invalid
# context"), any other BUG or WARN, an Oops or a panic.  A kernel that made
# one gives figures that no one should trust.  The hosts boot with
# loglevel=3, which keeps warnings and errors off the console, so the guest
# script ends by printing the whole kernel log as KMP-REC-DMESG lines
# (check.sh, ab-side.sh): those are read, and the console's own lines too.
# RCU stalls and hung-task reports are left out: under emulation on a loaded
# machine they come from the emulated CPUs being starved, not the kernel.
# Usage: scripts/emu/console-reports.sh CONSOLE_LOG LABEL
# Exit 0 and nothing printed: no report; 1: "LABEL: N kernel report(s) ...",
# with the first of them; 2: the log cannot be read, or it has no kernel log
# (a host that died before its end: nothing can be said).
set -euo pipefail
log=${1:?usage: console-reports.sh CONSOLE_LOG LABEL} label=${2:?usage: console-reports.sh CONSOLE_LOG LABEL}
[ -r "$log" ] || { echo "$label: cannot read the console log $log" >&2; exit 2; }
# At a line's start, after printk's "[ time] " or after the dmesg marker:
# the suite's own output ("# ...") never matches.
pattern='(^|\] |^KMP-REC-DMESG )(WARNING: |BUG: |Oops|Kernel panic|kernel BUG at )'
# A message seen both on the console and in the dumped log counts once.
mapfile -t reports < <(tr -d '\r' < "$log" | grep -aE "$pattern" | sed 's/^KMP-REC-DMESG //' | awk '!seen[$0]++')
if ! grep -aq '^KMP-REC-DMESG ' "$log"; then
	echo "$label: the console has no kernel log (KMP-REC-DMESG lines): the host did not reach its end, so its kernel's reports are unknown${reports[0]:+; on the console: ${reports[0]#*] }}" >&2
	exit 2
fi
[ ${#reports[@]} -gt 0 ] || exit 0
echo "$label: ${#reports[@]} kernel report(s) in its log ($log); the first: ${reports[0]#*] }"
exit 1
