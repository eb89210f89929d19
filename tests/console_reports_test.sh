#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of scripts/emu/console-reports.sh (KTAP), the check that fails an
# emulated host whose kernel reported trouble: each kind of report, in the
# form 6.12's printk gives it (with and without printk's time and caller
# prefixes), fails the host and is quoted; a clean log passes silently; the
# suite's own output never matches; a log that died or wrapped is an error.
set -u
SRC=${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}
CR=$SRC/scripts/emu/console-reports.sh
# result (KTAP lines) and scratch ($TMP): tests/kmp_testlib.sh, beside this
# script here and in bin/.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
scratch
# A console that reached its end: boot lines, the suite's output, the dump.
clean() {
	printf '%s\n' '[    0.000000] Linux version 6.12.118 (gcc 12.2.0)' \
		'# result 1 selftests: WARNING: in a test name, not the kernel' \
		'# dirty_log_perf: BUG: a word the suite may print' \
		'KMP-REC-AB-BEGIN' 'KMP-REC H4sIAAAAAAAAA+3OMQ6AIBBE0e' 'KMP-REC-AB-END' \
		'KMP-REC-DMESG Linux version 6.12.118 (gcc 12.2.0)' \
		'KMP-REC-DMESG kvm_amd: Nested Paging enabled'
}
# fails NAME FIRST-LINE DMESG-LINES...: the log with these kernel lines fails
# (exit 1), and quotes FIRST-LINE and the line after it.
fails() {
	local name=$1 first=$2
	shift 2
	{ clean; printf 'KMP-REC-DMESG %s\n' "$@"; } > "$TMP/log"
	local out rc next
	next=$(printf '%s\n' "$@" | grep -xF -A 1 -- "$first" | sed -n 2p)
	out=$("$CR" "$TMP/log" "ab: side B (k)"); rc=$?
	[ $rc = 1 ] && [[ "$(sed -n 1p <<< "$out")" == "ab: side B (k): the kernel reported trouble ("[1-9]" line(s) in $TMP/log); the first:" ]] &&
		[ "$(sed -n 2p <<< "$out")" = "  | $first" ] && [ "$(sed -n 3p <<< "$out")" = "  | $next" ]
	result $? "$name"
}

echo "TAP version 13"
echo "1..18"
clean > "$TMP/clean.log"
out=$("$CR" "$TMP/clean.log" "ab: side B (k)"); rc=$?
[ $rc = 0 ] && [ -z "$out" ]
result $? "a kernel log without a report passes, silently: the suite's own lines never match"

# WARN_ON_ONCE() in 6.12, as kvm_mmu_slot_apply_flags()'s printed it: no
# printk time (tinyconfig) and then with it, and with PRINTK_CALLER's tag.
fails "WARN_ON_ONCE's report, without printk's time" \
	'WARNING: CPU: 0 PID: 142 at arch/x86/kvm/x86.c:13145 kvm_arch_commit_memory_region+0x2a5/0x2c0' \
	'------------[ cut here ]------------' \
	'WARNING: CPU: 0 PID: 142 at arch/x86/kvm/x86.c:13145 kvm_arch_commit_memory_region+0x2a5/0x2c0' \
	'Modules linked in:' 'CPU: 0 UID: 0 PID: 142 Comm: demand_paging Not tainted 6.12.118 #1'
fails "WARN's report after printk's time and caller tags" \
	'[   41.118221] [  T142] WARNING: CPU: 0 PID: 142 at virt/kvm/kvm_main.c:1 f+0x1/0x2' \
	'[   41.118221] [  T142] WARNING: CPU: 0 PID: 142 at virt/kvm/kvm_main.c:1 f+0x1/0x2' \
	'[   41.118300] [  T142] Modules linked in:'
fails "a lockdep splat" 'WARNING: possible circular locking dependency detected' \
	'WARNING: possible circular locking dependency detected' \
	'6.12.118 #1 Not tainted' '------------------------------------------------------'
fails "sleeping in atomic context" \
	'BUG: sleeping function called from invalid context at mm/gup.c:1' \
	'BUG: sleeping function called from invalid context at mm/gup.c:1' \
	'in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 142, name: demand_paging'
fails "kernel BUG at, BUG_ON()'s report" 'kernel BUG at arch/x86/kvm/mmu/mmu.c:1!' \
	'kernel BUG at arch/x86/kvm/mmu/mmu.c:1!' 'Oops: invalid opcode: 0000 [#1] SMP'
fails "an x86 Oops" 'BUG: kernel NULL pointer dereference, address: 0000000000000000' \
	'BUG: kernel NULL pointer dereference, address: 0000000000000000' '#PF: supervisor read access in kernel mode'
fails "an arm64 Oops" \
	'Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000' \
	'Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000' \
	'Mem abort info:'
fails "a general protection fault" \
	'Oops: general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP' \
	'Oops: general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP' \
	'CPU: 1 UID: 0 PID: 9 Comm: kworker/1:0 Not tainted 6.12.118 #1'
fails "a KASAN report" 'BUG: KASAN: slab-use-after-free in kvm_mmu_zap_all+0x12/0x40' \
	'==================================================================' \
	'BUG: KASAN: slab-use-after-free in kvm_mmu_zap_all+0x12/0x40' 'Read of size 8 at addr ffff888 by task zap_latency/9'
fails "a UBSAN report" 'UBSAN: array-index-out-of-bounds in arch/x86/kvm/mmu/mmu.c:1:2' \
	'UBSAN: array-index-out-of-bounds in arch/x86/kvm/mmu/mmu.c:1:2' 'index 4 is out of range for type'
fails "an RCU stall, after rcu's prefix" 'rcu: INFO: rcu_sched self-detected stall on CPU' \
	'rcu: INFO: rcu_sched self-detected stall on CPU' 'rcu: 	0-....: (5249 ticks this GP)'
fails "an RCU stall on other CPUs" 'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
	'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' 'rcu: 	1-...!: (0 ticks this GP)'
fails "a soft lockup, after watchdog's prefix" 'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [zap_latency:9]' \
	'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [zap_latency:9]' 'Modules linked in:'

# The console alone (loglevel lets errors through): counted once with the dump.
{ clean; echo 'kernel BUG at mm/x.c:1!'; echo 'KMP-REC-DMESG kernel BUG at mm/x.c:1!'
	echo 'KMP-REC-DMESG BUG: sleeping function called from invalid context at mm/y.c:2'; } > "$TMP/two.log"
out=$("$CR" "$TMP/two.log" "L"); rc=$?
[ $rc = 1 ] && [ "$(head -1 <<< "$out")" = "L: the kernel reported trouble (2 line(s) in $TMP/two.log); the first:" ]
result $? "a report on the console and in the dump counts once"

clean | grep -v '^KMP-REC-DMESG' > "$TMP/died.log"
echo 'kernel BUG at mm/x.c:1!' >> "$TMP/died.log"
"$CR" "$TMP/died.log" "L" 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "the host did not reach its end" "$TMP/err" && grep -q 'on the console: kernel BUG at mm/x.c:1!' "$TMP/err"
result $? "a console without the kernel log (a host that died) is an error, quoting the console's report"

clean | grep -v 'Linux version' > "$TMP/wrapped.log"
"$CR" "$TMP/wrapped.log" "L" 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "the ring buffer wrapped" "$TMP/err"
result $? "a kernel log without its banner (a wrapped ring buffer) is an error, not a pass"

"$CR" "$TMP/none.log" "L" 2> /dev/null; rc=$?
[ $rc = 2 ]
result $? "an unreadable console log is an error, not a pass"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
