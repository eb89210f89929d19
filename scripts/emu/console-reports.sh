#!/bin/bash
# The kernel's own reports in an emulated host's console log: lockdep's
# ("WARNING: possible circular locking dependency detected" and kin),
# sleeping in atomic context ("BUG: sleeping function called from invalid
# context"), any other BUG or WARN, an Oops or a panic.  A kernel that made
# one gives figures that no one should trust.  RCU stalls and hung-task
# reports are left out: under emulation on a loaded machine they come from
# the emulated CPUs being starved, not from the kernel.
# Usage: scripts/emu/console-reports.sh CONSOLE_LOG LABEL
# Exit 0 and nothing printed: no report; 1: "LABEL: N kernel report(s) on
# the console ...", with the first of them; 2: the log cannot be read.
set -euo pipefail
log=${1:?usage: console-reports.sh CONSOLE_LOG LABEL} label=${2:?usage: console-reports.sh CONSOLE_LOG LABEL}
[ -r "$log" ] || { echo "$label: cannot read the console log $log" >&2; exit 2; }
# At a line's start or after printk's "[ time] ": the suite's own output
# ("# ...") never matches.
pattern='(^|\] )(WARNING: |BUG: |Oops|Kernel panic|kernel BUG at )'
n=$(grep -acE "$pattern" "$log" || true)
[ "$n" -gt 0 ] || exit 0
first=$(grep -a -m 1 -E "$pattern" "$log" | tr -d "\r")
echo "$label: $n kernel report(s) on the console ($log); the first: ${first#*] }"
exit 1
