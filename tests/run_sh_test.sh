#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of run.sh (KTAP): dry runs of every group, bad usage, a real run of a
# ci subset with repeats, new folders every time, unmet requirements as
# skips, Ctrl-C, and a sweep with its table and plot.
set -u
# result, and run_sh_scratch ($SRC, $RUN, $TMP): tests/kmp_testlib.sh, beside this.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
run_sh_scratch

diag() {	# diag TEXT: every line of TEXT as a KTAP diagnostic ("# ...")
	printf '# %s\n' "${1//$'\n'/$'\n'# }"
}

echo "TAP version 13"
# Its runs are real benchmark runs: without /dev/kvm there is nothing to run.
if ! { [ -c /dev/kvm ] && (exec 3<>/dev/kvm) 2>/dev/null; }; then
	if [ "${KMP_REQUIRE_KVM:-0}" = 1 ]; then
		echo "1..1"
		echo "not result 1 KMP_REQUIRE_KVM=1 but /dev/kvm cannot be opened"
		exit 1
	fi
	echo "1..0 # SKIP /dev/kvm cannot be opened: run.sh's runs need guests"
	exit 4
fi
echo "1..29"

# 1. --dry-run over every group named in the configs.
groups=$(sed -n 's/^groups *= *//p' "$SRC"/configs/*.cfg | tr ' ' '\n' | sort -u)
bad=0
for g in $groups; do
	out=$("$RUN" -g "$g" --dry-run 2>&1)
	rc=$?
	# A group may have no section for this arch (e.g. arm64 only): exit 2 saying so.
	if [ $rc != 0 ] && ! grep -q "no section in group" <<< "$out"; then
		echo "# dry run of $g: rc=$rc: $out"
		bad=1
	fi
done
result $bad "dry run of every group ($(wc -w <<< "$groups") groups)"

# 2. Bad usage is a clear error, exit 2.
out=$("$RUN" -g nosuch 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "-g 'nosuch': no such group" <<< "$out"
result $? "unknown group is an error"
out=$("$RUN" --repeat 0 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--repeat '0'" <<< "$out"
result $? "--repeat 0 is an error"
out=$("$RUN" -t nosuch 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "-t 'nosuch': no such section" <<< "$out"
result $? "unknown section is an error"

# 3. A real ci subset, twice each: one folder with every log and record.
out=$("$RUN" -t dlp-seed003 -t tlbie-seed001 --repeat 2 2>&1); rc=$?
dir=$(sed -n 's/^results: //p' <<< "$out")
diag "$out"
[ $rc = 0 ] && [ -d "$dir" ] && [ -s "$dir/host.txt" ] &&
	[ "$(grep -c '^ok ' "$dir/summary.ktap")" = 4 ] &&
	for s in dlp-seed003 tlbie-seed001; do
		for r in 1 2; do
			[ -s "$dir/$s.$r.log" ] && "$SRC/scripts/check-record.py" "$dir/$s.$r.json" || exit 1
		done
	done
result $? "ci subset with --repeat 2: logs, valid records, KTAP summary"

# 4. A second run never reuses a folder (even within the same second).
d1=$("$RUN" -t tlbie-seed001 --dry-run >/dev/null; "$RUN" -t dlp-seed003 2>&1 | sed -n 's/^results: //p')
d2=$("$RUN" -t dlp-seed003 2>&1 | sed -n 's/^results: //p')
[ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" != "$d2" ] && [ -s "$d1/dlp-seed003.1.json" ]
result $? "every run gets a new results folder"

# 5. An unmet requirement is a skip with the reason.
mkdir -p "$TMP/cfg"
skip_case() {	# skip_case REQUIRES REASON NAME: a one-section group must skip with REASON
	printf '[needs]\nfile = tlbie_bench\nargs = -v 1 -t 1\ngroups = t\nrequires = %s\ntimeout = 60\n' \
		"$1" > "$TMP/cfg/t.cfg"
	out=$(KMP_CONFIGS=$TMP/cfg "$RUN" -g t 2>&1); rc=$?
	dir=$(sed -n 's/^results: //p' <<< "$out")
	[ $rc = 0 ] && grep -qF "# SKIP $2" "$dir/summary.ktap"
	result $? "$3"
}
skip_case hugetlb:1G:100000 "needs 100000 1G hugetlb pages: more than this host's memory" \
	"unmet requirement is a skip with the reason"
# mmu: a section for other MMUs than this host's skips, naming both.
here=$("${KMP_BIN:-$(dirname "$0")}/kmp_mmu")
other=stage2
[ "${here%% *}" = stage2 ] && other=hpt
skip_case "mmu:$other,radix" "needs one of these KVM MMUs: $other radix; this host's is $here" \
	"mmu: requirement on another MMU is a skip naming both"

# 6. Config text is data: a section with shell in its args is not executed.
cat > "$TMP/cfg/t.cfg" <<EOF
[inject]
file = tlbie_bench
args = -v 1 -t 1 \$(touch $TMP/pwned) ; touch $TMP/pwned
groups = t
timeout = 60
EOF
KMP_CONFIGS=$TMP/cfg "$RUN" -g t > /dev/null 2>&1
[ ! -e "$TMP/pwned" ]
result $? "args are never evaluated"

# 7. A bad config is a clear error naming the file and line.
printf '[x]\nfile = tlbie_bench\ncolour = red\n' > "$TMP/cfg/t.cfg"
out=$(KMP_CONFIGS=$TMP/cfg "$RUN" --list 2>&1); rc=$?
[ $rc = 2 ] && grep -q "t.cfg:3: unknown key 'colour'" <<< "$out"
result $? "unknown config key names file and line"

# 8. Ctrl-C stops the group cleanly and lists what did not run.
cat > "$TMP/cfg/t.cfg" <<'EOF'
[slow-a]
file = tlbie_bench
args = -v 1 -t 20
groups = t
timeout = 60

[slow-b]
file = tlbie_bench
args = -v 1 -t 20
groups = t
timeout = 60
EOF
KMP_CONFIGS=$TMP/cfg setsid "$RUN" -g t > "$TMP/int.out" 2>&1 &
pid=$!
sleep 3
kill -INT -- -"$pid" 2>/dev/null || kill -INT "$pid"
wait "$pid"; rc=$?
grep -q "did not run: slow-b.1" "$TMP/int.out" && [ $rc = 130 ] && ! pgrep -x tlbie_bench > /dev/null
result $? "Ctrl-C stops cleanly and lists what did not run (rc=$rc)"

# 9-10. A sweep: one run per value, then text, CSV and plots.
out=$("$RUN" sweep tlbie-seed001 --vary vcpus=1,2 2>&1); rc=$?
dir=$(sed -n 's/^results: //p' <<< "$out")
diag "$out"
[ $rc = 0 ] && [ -s "$dir/tlbie-seed001-vcpus=1.1.json" ] && [ -s "$dir/tlbie-seed001-vcpus=2.1.json" ]
result $? "sweep runs each value"
[ -s "$dir/sweep.txt" ] && [ -s "$dir/sweep.csv" ] && [ -s "$dir/sweep.png" ] && [ -s "$dir/sweep.svg" ] &&
	[ "$(grep -c . "$dir/sweep.csv")" -ge 3 ]
result $? "sweep writes its table, CSV, PNG and SVG"

# 11. compare refuses what is not a results folder.
out=$("$RUN" compare "$TMP/nope" "$TMP" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "is not a results folder" <<< "$out"
result $? "compare of a missing folder is an error"

# 12. compare of two real runs: the throughput's row in the verdict table
# (one run a side can settle nothing: unknown, unless both are the same),
# and with --verbose the post's line.
a=$("$RUN" -t tlbie-seed001 2>&1 | sed -n 's/^results: //p')
b=$("$RUN" -t tlbie-seed001 2>&1 | sed -n 's/^results: //p')
out=$("$RUN" compare "$a" "$b" 2>&1); rc=$?
long=$("$RUN" compare --verbose "$a" "$b" 2>&1)
diag "$out"
[ $rc = 0 ] && grep -Eq "^  throughput \(forks/s\) .* n=1\+1 +(unknown: 1 run|exact)" <<< "$out" &&
	! grep -q "total throughput: " <<< "$out" && grep -q "^  total throughput: " <<< "$long"
result $? "compare of two real runs: the verdict row, and the post's line with --verbose"

# 12b. compare's options pass through run.sh: --json data, a bad --alpha named, one
# folder per boot with vs (the same boot twice: warned), and an unknown option.
json=$("$RUN" compare --json "$a" "$b" 2>&1) &&
	python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not d["rows"])' <<< "$json" &&
	out=$("$RUN" compare --alpha 2 "$a" "$b" 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--alpha 2: a significance level is above 0 and below 1" <<< "$out" &&
	out=$("$RUN" compare "$a" "$b" vs "$b" "$a" 2>&1) &&
	grep -q "^# warning: BASE: folders .* are from one boot" <<< "$out" &&
	! "$RUN" compare --bogus "$a" "$b" 2>/dev/null
result $? "compare --json, --alpha out of range, several folders a side with vs, unknown option"

# 13. An unknown group beside a known one is an error too, not ignored.
out=$("$RUN" -g ci -g nosuch --dry-run 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "-g 'nosuch': no such group" <<< "$out"
result $? "-g ci -g nosuch: the unknown group is an error"

# 14. A config's "*" is a word, never a glob of the current directory.
cfg=$TMP/globcfg
mkdir -p "$cfg" "$TMP/globcwd" && touch "$TMP/globcwd/zz_file"
printf '[g1]\nfile = tlbie_bench\nargs = -t 1\ngroups = *\nrequires = *\n' > "$cfg/g.cfg"
out=$(cd "$TMP/globcwd" && KMP_CONFIGS=$cfg "$RUN" -g '*' --dry-run 2>&1); rc=$?
out2=$(cd "$TMP/globcwd" && KMP_CONFIGS=$cfg "$RUN" -g zz_file --dry-run 2>&1); rc2=$?
diag "$out"
[ $rc = 0 ] && grep -q "would skip: unknown requirement '\*'" <<< "$out" && [ $rc2 = 2 ] &&
	grep -q -- "-g 'zz_file': no such group" <<< "$out2"
result $? "a config's '*' is not glob-expanded (groups, requires)"

# 15. A NUL byte in a config is an error, not dropped.
printf '[g1]\nfile = tlbie_bench\0evil\nargs = -t 1\ngroups = ci\n' > "$cfg/g.cfg"
out=$(KMP_CONFIGS=$cfg "$RUN" --list 2>&1); rc=$?
[ $rc = 2 ] && grep -q "contains a NUL byte" <<< "$out"
result $? "a NUL byte in a config is an error"

# 16. --list gives each arch-bound section its arches.
out=$("$RUN" --list 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^zap-seed004 .*(arch: x86_64)" <<< "$out"
result $? "--list names the arch of arch-bound sections"

# 17. Many -t sections: the results folder is still a valid name.
rm -f "$cfg/g.cfg"
args=()
for i in $(seq 40); do
	s=section-with-a-rather-long-name-$i
	printf '[%s]\nfile = tlbie_bench\nargs = -t 1\ngroups = many\nrequires = hugetlb:2M:999999999\n' "$s" >> "$cfg/many.cfg"
	args+=(-t "$s")
done
out=$(KMP_CONFIGS=$cfg "$RUN" "${args[@]}" 2>&1); rc=$?
dir=$(sed -n 's/^results: //p' <<< "$out")
[ $rc = 0 ] && [ -d "$dir" ] && [[ $dir == *-40-sections ]]
result $? "40 -t sections: a results folder named by their count"

# 18. SIGHUP or SIGTERM to run.sh alone (not its group): the benchmark is
# stopped too (its record says so), the folder is marked incomplete, the
# summary says which signal, and run.sh exits 128 + the signal.
for sig in HUP TERM; do
	KMP_CONFIGS=$TMP/cfg setsid "$RUN" -g t > "$TMP/sig.out" 2>&1 &
	pid=$!
	sleep 3
	kill -s $sig "$pid"
	wait "$pid"; rc=$?
	dir=$(sed -n 's/^running .* into //p' "$TMP/sig.out")
	sleep 1
	diag "$(cat "$TMP/sig.out")"
	[ $rc = $((128 + $(kill -l $sig))) ] && ! pgrep -x tlbie_bench > /dev/null &&
		grep -q "^# interrupted by SIG$sig: did not run: slow-b.1" "$dir/summary.ktap" &&
		grep -q "interrupted by SIG$sig" "$dir/incomplete" &&
		grep -q '"status": *"interrupted"' "$dir/slow-a.1.json"
	result $? "SIG$sig to run.sh: the benchmark stops, the folder is marked (rc=$rc)"
done

# 19. SIGKILL to run.sh: the benchmark still stops (SIGTERM as its parent
# dies), the folder keeps its incomplete mark, and compare, which has no
# passing run to compare, says so and names the mark (exit 2).
KMP_CONFIGS=$TMP/cfg setsid "$RUN" -g t > "$TMP/kill.out" 2>&1 &
pid=$!
sleep 3
kill -KILL "$pid"
wait "$pid" 2>/dev/null
dir=$(sed -n 's/^running .* into //p' "$TMP/kill.out")
sleep 2
out=$("$RUN" compare "$dir" "$dir" 2>&1); rc=$?
diag "$out"
! pgrep -x tlbie_bench > /dev/null && [ -s "$dir/incomplete" ] && [ $rc = 2 ] &&
	grep -q '"status": *"interrupted"' "$dir/slow-a.1.json" &&
	grep -qF "BASE $dir: no run passed (1 interrupted): no figure to compare; $dir is incomplete (" <<< "$out"
result $? "SIGKILL to run.sh: the benchmark stops, compare refuses the folder naming its mark"

# 20. A run that skipped before writing a record: the summary counts it as
# summary.ktap does (one source of truth), with the reason.
printf '[skipper]\nfile = dirty_log_perf\nargs = -b 4M -n\ngroups = sk\n' > "$cfg/sk.cfg"
out=$(KMP_CONFIGS=$cfg "$RUN" -g sk 2>&1); rc=$?
diag "$out"
[ $rc = 0 ] && grep -q "0 pass, 0 fail, 1 skip" <<< "$out" &&
	grep -q "run 1 skip: -n: nested" <<< "$out"
result $? "a skip without a record is counted as summary.ktap says"

# 22. compare takes a --results parent holding one run, and names the runs
# of a parent holding more.
for p in par1 par2; do
	"$RUN" -t tlbie-seed001 --results "$TMP/$p" > /dev/null 2>&1
done
out=$("$RUN" compare "$TMP/par1" "$TMP/par2" 2>&1); rc=$?
diag "$out"
[ $rc = 0 ] && grep -q "^# compare BASE $TMP/par1/.*-tlbie-seed001 -> NEW $TMP/par2/.*-tlbie-seed001" <<< "$out"
result $? "compare of two --results parents with one run each"
KMP_CONFIGS=$cfg "$RUN" -g sk --results "$TMP/par2" > /dev/null 2>&1
out=$("$RUN" compare "$TMP/par1" "$TMP/par2" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "'$TMP/par2' holds 2 results folders; name one" <<< "$out"
result $? "compare of a parent with two runs names them"

# 21. A results filesystem that fills up: host.txt never silently empty, and
# a run whose log could not be written says that the disk is full.
for size in 4k 12k; do
	mnt=$TMP/full-$size
	mkdir -p "$mnt"
	if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=$size tmpfs "$mnt" 2>/dev/null; then
		result 0 "results on a $size tmpfs # SKIP needs root to mount a tmpfs"
		continue
	fi
	out=$("$RUN" -t tlbie-seed001 --results "$mnt" 2>&1); rc=$?
	dir=$(sed -n 's/^running .* into //p' <<< "$out")
	diag "$out"
	[ $rc != 0 ] && grep -qi "no space left" <<< "$out" &&
		{ [ ! -e "$dir/host.txt" ] || [ -s "$dir/host.txt" ] || grep -q "cannot write $dir/host.txt" <<< "$out"; }
	result $? "results on a $size tmpfs: a clear 'no space left', never a silent empty host.txt"
	umount "$mnt"
done

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
