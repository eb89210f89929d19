#!/bin/bash
# Run a list of test commands inside one emulated KVM host (boot.sh; the
# hosts of make check-x86/-arm64/-ppc64 come from check-hosts.sh) and judge them like `make check` does: KTAP
# from the console, counted by ktap-count.sh (any failure, missing result or,
# with KVM required, any skip fails), and every JSON record the tests wrote
# validated against docs/results-schema.json here on the build host.
# Usage: scripts/emu/check.sh ARCH BIN_DIR LIST [TIMEOUT_SECONDS]
# LIST: one command per line ("smoke_zap_latency -t trigger_delete"); # comments;
# "6.12: CMD" runs CMD only on kernel series 6.12 and later, "<6.12: CMD"
# only before 6.12; "NAME=VALUE CMD" runs CMD with NAME set in its environment.
set -euo pipefail
arch=$1 bindir=$2 list=$3 timeout_s=${4:-1200}
src=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/kmp-emu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t lines < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$list" | grep -v '^$')
# "6.12: CMD" needs kernel series 6.12 or later, "<6.12: CMD" one before
# it; the host's series is KMP_EMU_KERNEL ("default": Debian 12's own,
# 6.1).  What this host's kernel is left without is named, not dropped
# silently.
series=${KMP_EMU_KERNEL:-default}
[ "$series" = default ] && series=6.1
cmds=()
for l in "${lines[@]}"; do
	if [[ $l =~ ^(\<?)([0-9]+\.[0-9]+):[[:space:]]*(.*)$ ]]; then
		below=${BASH_REMATCH[1]} need=${BASH_REMATCH[2]} l=${BASH_REMATCH[3]}
		at_least=0
		[ "$(printf '%s\n%s\n' "$need" "$series" | sort -V | head -1)" = "$need" ] && at_least=1
		if [ -z "$below" ] && [ $at_least = 0 ]; then
			echo "# not on kernel $series: $l (needs $need or later)"
			continue
		elif [ -n "$below" ] && [ $at_least = 1 ]; then
			echo "# not on kernel $series: $l (only before $need)"
			continue
		fi
	fi
	cmds+=("$l")
done
[ "${#cmds[@]}" -gt 0 ] || { echo "emu/check.sh: $list lists no tests" >&2; exit 2; }

# The listed binaries and the benchmarks they drive.
mkdir -p "$work/bin"
# A command without its leading NAME=VALUE assignments.
command_of() {
	local c=$1
	while [[ $c =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*[[:space:]]+(.*)$ ]]; do c=${BASH_REMATCH[1]}; done
	echo "$c"
}
# The benchmarks: every folder with a main.c, as the Makefile builds them.
benches=()
for m in "$src"/*/main.c; do benches+=("$(basename "$(dirname "$m")")"); done
for c in "${cmds[@]}" "${benches[@]}"; do
	c=$(command_of "$c")
	b=${c%% *}
	[ -e "$work/bin/$b" ] && continue
	if [ ! -x "$bindir/$b" ]; then
		echo "emu/check.sh: $bindir/$b is missing: build with make ARCH=$arch first" >&2
		exit 2
	fi
	cp "$bindir/$b" "$work/bin/"
done

# The runner inside the host: busybox sh, so no kselftest runner.sh; its
# lines follow runner.sh's ("ok N selftests: COLLECTION: NAME"), and each
# test has configs/settings' timeout, as under runner.sh: a test that hangs
# is ended (SIGTERM, so it restores the host) and reported, and the rest run.
test_timeout=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$src/configs/settings")
test_timeout=${KMP_EMU_TEST_TIMEOUT:-${test_timeout:-600}}
{
	echo 'mkdir -p /tmp/records; export KMP_RECORD_DEFER_DIR=/tmp/records'
	echo 'echo "TAP version 13"'
	echo "echo 1..${#cmds[@]}"
	n=0
	for c in "${cmds[@]}"; do
		n=$((n + 1))
		name=${c// /_}
		cmd=$(command_of "$c")
		cat <<RUN
echo "# selftests: kvm-mmu-perf: $c"
t0=\$(date +%s)
{ ${c%"$cmd"}timeout $test_timeout ./$cmd 2>&1; echo \$? > /tmp/rc; } | sed 's/^/# /'
rc=\$(cat /tmp/rc)
if [ \$((\$(date +%s) - t0)) -ge $test_timeout ]; then echo "not ok $n selftests: kvm-mmu-perf: $name # TIMEOUT $test_timeout seconds"
elif [ "\$rc" = 0 ]; then echo "ok $n selftests: kvm-mmu-perf: $name"
elif [ "\$rc" = 4 ]; then echo "ok $n selftests: kvm-mmu-perf: $name # SKIP"
else echo "not ok $n selftests: kvm-mmu-perf: $name # exit=\$rc"; fi
RUN
	done
	# Records go out through the console, between markers, each line marked
	# (boot.sh leaves marked lines out of what it shows).  The console is
	# quiet first (/init raised it to warnings): a kernel line would split
	# a record's; /init's dump of the kernel log, last, has it.
	echo 'echo 1 > /proc/sys/kernel/printk'
	# shellcheck disable=SC2016
	echo 'for f in /tmp/records/*; do [ -f "$f" ] || continue; echo "KMP-RECORD-BEGIN ${f##*/}"; sed "s/^/KMP-REC /" "$f"; echo; echo "KMP-RECORD-END"; done'
} > "$work/script.sh"

# The whole console stays next to the binaries for a look after a failure.
log=$(cd "$bindir/.." && pwd)/emu-check${KMP_EMU_CHECK_NAME:+-$KMP_EMU_CHECK_NAME}.log
rm -f "$log"	# a console from an earlier run must not stand in for this one
set +e
KMP_EMU_LOG=$log "$src/scripts/emu/boot.sh" "$arch" "$work/bin" "$work/script.sh" "$timeout_s"
boot_rc=$?
set -e
if [ ! -f "$log" ]; then
	echo "# the emulated ${KMP_EMU_NAME:-$arch} host never booted (exit $boot_rc)" >&2
	exit 1
fi

mkdir -p "$work/records"
awk -v dir="$work/records" '
	/^KMP-RECORD-BEGIN / { f = dir "/" $2 ".json"; next }
	/^KMP-RECORD-END$/ { close(f); f = ""; next }
	f != "" && /^KMP-REC / { print substr($0, 9) > f }' "$log"
bad=0 nrec=0
for r in "$work"/records/*.json; do
	[ -f "$r" ] || continue
	nrec=$((nrec + 1))
	if ! "$src/scripts/check-record.py" "$r" >&2; then
		echo "# record $(basename "$r") does not match docs/results-schema.json" >&2
		bad=$((bad + 1))
	fi
done
echo "# $nrec JSON records from the emulated host validated, $bad invalid (console: $log)"

rc=0
# The emulated host always has KVM: a skip there means a test did not run.
KMP_REQUIRE_KVM=1 "$src/scripts/ktap-count.sh" "$log" "${#cmds[@]}" || rc=1
# A lockdep splat, a sleep in atomic context, a BUG or a WARN fails the host.
"$src/scripts/emu/console-reports.sh" "$log" "# the emulated ${KMP_EMU_NAME:-$arch} host" || rc=1
[ "$bad" -eq 0 ] || rc=1
if [ "$boot_rc" -ne 0 ]; then
	echo "# the emulated ${KMP_EMU_NAME:-$arch} host's run failed (exit $boot_rc)" >&2
	rc=1
fi
exit $rc
