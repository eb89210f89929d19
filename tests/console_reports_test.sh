#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of scripts/emu/console-reports.sh (KTAP), the check that fails an
# emulated host whose kernel reported trouble.  tests/console-corpus/ holds
# the cases: caught/NAME, a kernel log excerpt in the form printk gives it,
# the line marked "=> " the report that must be quoted first, and
# clean/NAME, its near-miss, console-log lines (the suite's output, and the
# dump as KMP-REC-DMESG lines) that must pass; ";;" lines say where each
# comes from.  Each caught case fails the host in the dump and on the
# console alone with printk's time (a report after the dump, the console
# raised to warnings); each clean case passes silently.  Then: a report seen
# twice counts once, a dump after a line without its newline is read, and a
# log that died or wrapped, or cannot be read, is an error.
set -u
SRC=${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}
CR=$SRC/scripts/emu/console-reports.sh
corpus=$SRC/tests/console-corpus
# Every kind of report the scan must catch: a corpus case each, and each
# with its near-miss, so a case lost from the corpus fails here.
kinds=(call-trace call-trace-arm64 gpf hard-lockup hard-lockup-6.1 hung-task kasan
	kernel-bug list-corruption lockdep-circular machine-check non-static-key oom-invoked
	oom-killed oops-arm64 oops-x86 page-allocation-failure panic rcu-stall rcu-stall-others
	sleeping-in-atomic soft-lockup ubsan unchecked-msr warn)
# result (KTAP lines) and scratch ($TMP): tests/kmp_testlib.sh, beside this
# script here and in bin/.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
scratch
# A console that reached its end: boot lines, the suite's output, the dump.
clean() {
	printf '%s\n' '[    0.000000] Linux version 6.12.118 (gcc 12.2.0)' \
		'# result 1 selftests: WARNING: in a test name, not the kernel' \
		'KMP-REC-AB-BEGIN' 'KMP-REC H4sIAAAAAAAAA+3OMQ6AIBBE0e' 'KMP-REC-AB-END' \
		'KMP-REC-DMESG Linux version 6.12.118 (gcc 12.2.0)' \
		'KMP-REC-DMESG kvm_amd: Nested Paging enabled'
}
# quoted NAME LOG FIRST NEXT: the scan of LOG fails the host (exit 1) and
# quotes FIRST, then NEXT, under its message.
quoted() {
	local out rc
	out=$("$CR" "$2" "ab: side B (k)"); rc=$?
	[ $rc = 1 ] && [[ "$(sed -n 1p <<< "$out")" == "ab: side B (k): the kernel reported trouble ("[1-9]" line(s) in $2); the first:" ]] &&
		[ "$(sed -n 2p <<< "$out")" = "  | $3" ] && [ "$(sed -n 3p <<< "$out")" = "  | $4" ]
	result $? "$1" "exit $rc" "$out"
}
body() { grep -v '^;;' "$1"; }	# a case's lines, without its comments

cases() { find "$corpus/$1" -type f -printf '%f\n' | LC_ALL=C sort; }
want=$(printf '%s\n' "${kinds[@]}" | LC_ALL=C sort)
echo "TAP version 13"
echo "1..$((3 * ${#kinds[@]} + 8))"
[ "$(cases caught)" = "$want" ] && [ "$(cases clean)" = "$want" ]
result $? "the corpus has a caught case and a near-miss of every kind, and nothing else" \
	"caught: $(cases caught | tr '\n' ' ')" "clean: $(cases clean | tr '\n' ' ')"

clean > "$TMP/clean.log"
out=$("$CR" "$TMP/clean.log" "ab: side B (k)"); rc=$?
[ $rc = 0 ] && [ -z "$out" ]
result $? "a kernel log without a report passes, silently" "exit $rc" "$out"

stamp='[   41.118221] '
for name in "${kinds[@]}"; do
	f=$corpus/caught/$name
	body "$f" | sed 's/^=> //' > "$TMP/kernel"
	first=$(sed -n 's/^=> //p' "$f")
	next=$(grep -xF -A 1 -- "$first" "$TMP/kernel" | sed -n 2p)
	if [ "$(grep -c '^=> ' "$f")" != 1 ] || [ -z "$next" ]; then
		result 1 "caught/$name: one line marked '=> ', and a line after it" "$(cat "$f")"
		result 1 "caught/$name on the console"
	else
		{ clean; sed 's/^/KMP-REC-DMESG /' "$TMP/kernel"; } > "$TMP/log"
		quoted "caught/$name in the kernel log's dump" "$TMP/log" "$first" "$next"
		{ clean; sed "s/^/$stamp/" "$TMP/kernel"; } > "$TMP/log"
		quoted "caught/$name on the console, after the dump" "$TMP/log" "$stamp$first" "$stamp$next"
	fi
	{ clean; body "$corpus/clean/$name"; } > "$TMP/log"
	out=$("$CR" "$TMP/log" "L"); rc=$?
	[ $rc = 0 ] && [ -z "$out" ]
	result $? "clean/$name: its near-miss passes" "exit $rc" "$out"
done

# printk's caller tag after its time, in the dump.
{ clean; echo 'KMP-REC-DMESG [   41.118221] [  T142] WARNING: CPU: 0 PID: 142 at virt/kvm/kvm_main.c:1 f+0x1/0x2'
	echo 'KMP-REC-DMESG [   41.118300] [  T142] Modules linked in:'; } > "$TMP/log"
quoted "a report after printk's time and caller tags" "$TMP/log" \
	'[   41.118221] [  T142] WARNING: CPU: 0 PID: 142 at virt/kvm/kvm_main.c:1 f+0x1/0x2' \
	'[   41.118300] [  T142] Modules linked in:'

# A dump whose first line follows output that lacked its newline.
{ clean | grep -v '^KMP-REC-DMESG'; printf '# partialKMP-REC-DMESG Linux version 6.12.118\n'
	echo 'KMP-REC-DMESG kernel BUG at mm/x.c:1!'; echo 'KMP-REC-DMESG Oops: invalid opcode'; } > "$TMP/log"
quoted "a dump after a line without its newline is read whole" "$TMP/log" 'kernel BUG at mm/x.c:1!' 'Oops: invalid opcode'

# The console alone and the dump: counted once.
{ clean; echo 'kernel BUG at mm/x.c:1!'; echo 'KMP-REC-DMESG kernel BUG at mm/x.c:1!'
	echo 'KMP-REC-DMESG BUG: sleeping function called from invalid context at mm/y.c:2'; } > "$TMP/two.log"
out=$("$CR" "$TMP/two.log" "L"); rc=$?
[ $rc = 1 ] && [ "$(head -1 <<< "$out")" = "L: the kernel reported trouble (2 line(s) in $TMP/two.log); the first:" ]
result $? "a report on the console and in the dump counts once" "$out"

clean | grep -v '^KMP-REC-DMESG' > "$TMP/died.log"
echo '[  130.2] INFO: task zap_latency:142 blocked for more than 122 seconds.' >> "$TMP/died.log"
"$CR" "$TMP/died.log" "L" 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "the host did not reach its end" "$TMP/err" &&
	grep -qF 'on the console: [  130.2] INFO: task zap_latency:142 blocked for more than 122 seconds.' "$TMP/err"
result $? "a console without the kernel log (a host that hung) is an error, quoting the console's report" "$(cat "$TMP/err")"

clean | grep -v 'Linux version' > "$TMP/wrapped.log"
"$CR" "$TMP/wrapped.log" "L" 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "the ring buffer wrapped" "$TMP/err"
result $? "a kernel log without its banner (a wrapped ring buffer) is an error, not a pass"

"$CR" "$TMP/none.log" "L" 2> /dev/null; rc=$?
[ $rc = 2 ]
result $? "an unreadable console log is an error, not a pass"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
