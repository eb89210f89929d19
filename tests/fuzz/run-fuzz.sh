#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libFuzzer driver for `make fuzz`.
#
#   run-fuzz.sh check-cc CC
#       CC links -fsanitize=fuzzer (else installs clang and libclang-rt-14-dev
#       with apt as root, or prints the command).
#   run-fuzz.sh run FUZZ_DIR FUZZ_SRC SECONDS TARGET...
#       For each TARGET (FUZZ_DIR/bin/TARGET): replay every input in
#       FUZZ_SRC/regressions/TARGET/, then fuzz for SECONDS on a temporary copy
#       of FUZZ_SRC/corpus/TARGET/ (with FUZZ_SRC/TARGET.dict, if any, as the
#       libFuzzer dictionary, and the flags in FUZZ_SRC/TARGET.options, one
#       a line).  Findings are written to
#       FUZZ_DIR/artifacts/TARGET/, the full log to FUZZ_DIR/logs/TARGET.log.
#       Exit 1 when a regression input fails or a finding was made.
set -u -o pipefail

PKGS=(clang libclang-rt-14-dev)

die() {
	echo "run-fuzz.sh: $*" >&2
	exit 2
}

check_cc() {
	local cc=$1 tmp rc
	tmp=$(mktemp -d) || die "mktemp failed"
	printf '%s\n' '#include <stdint.h>' '#include <stddef.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }' > "$tmp/t.c"
	"$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" > "$tmp/log" 2>&1
	rc=$?
	if [ $rc != 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "  DEPS    $cc cannot link -fsanitize=fuzzer: apt-get install ${PKGS[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PKGS[@]}" &&
			"$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" > "$tmp/log" 2>&1
		rc=$?
	fi
	if [ $rc != 0 ]; then
		sed 's/^/  /' "$tmp/log" >&2
		echo "run-fuzz.sh: '$cc -fsanitize=fuzzer' does not link; install: apt-get install -y ${PKGS[*]}" >&2
	fi
	rm -rf "$tmp"
	return $rc
}

# The last value of a libFuzzer final stat (-print_final_stats=1) in a log.
stat_of() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# The start of the first report in a log: our own, a sanitizer's or libFuzzer's.
show_finding() {
	grep -a -A 24 -m 1 -E '^==== FINDING|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$1" |
		grep -a -v -E '^ +#[0-9]+ 0x' | head -n 24 | sed 's/^/    /'
}

run() {
	local dir=$1 src=$2 secs=$3 t bin work art log rc failed=0 inputs opts before after execs
	shift 3
	[[ $secs =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS '$secs': a positive number of seconds"
	[ $# -gt 0 ] || die "no fuzz target given"
	mkdir -p "$dir/logs" || die "cannot create $dir/logs"
	for t in "$@"; do
		bin=$dir/bin/$t
		[ -x "$bin" ] || die "$bin: no such fuzz target (have: $(find "$dir/bin" -type f -printf '%f ' 2>/dev/null))"
		[ -d "$src/corpus/$t" ] || die "$src/corpus/$t: no seed corpus"
		art=$dir/artifacts/$t
		log=$dir/logs/$t.log
		mkdir -p "$art" || die "cannot create $art"
		work=$(mktemp -d "${TMPDIR:-/tmp}/kmp-fuzz-$t.XXXXXX") || die "mktemp failed"
		mkdir "$work/corpus" "$work/tmp"
		: > "$log"

		# 1. Every input that once failed must pass now.
		inputs=()
		if [ -d "$src/regressions/$t" ]; then
			mapfile -t inputs < <(find "$src/regressions/$t" -type f | sort)
		fi
		if [ ${#inputs[@]} -gt 0 ]; then
			TMPDIR=$work/tmp "$bin" -timeout=30 "${inputs[@]}" >> "$log" 2>&1
			rc=$?
			if [ $rc != 0 ]; then
				echo "  FUZZ    $t: FAIL: a regression input fails again (exit $rc); see $log"
				show_finding "$log"
				failed=1
				rm -rf "$work"
				continue
			fi
		fi

		# 2. Fuzz on a copy of the seeds.
		cp "$src/corpus/$t"/* "$work/corpus/"
		before=$(find "$work/corpus" -type f | wc -l)
		opts=()
		[ -f "$src/$t.dict" ] && opts+=(-dict="$src/$t.dict")
		[ -f "$src/$t.options" ] && mapfile -t -O ${#opts[@]} opts < <(grep -v -e '^#' -e '^$' "$src/$t.options")
		TMPDIR=$work/tmp "$bin" -max_total_time="$secs" -timeout=30 -print_final_stats=1 \
			"${opts[@]}" -artifact_prefix="$art/" "$work/corpus" >> "$log" 2>&1
		rc=$?
		after=$(find "$work/corpus" -type f | wc -l)
		execs=$(stat_of number_of_executed_units "$log")
		if [ $rc != 0 ]; then
			echo "  FUZZ    $t: FINDING (exit $rc) after ${execs:-?} execs; input in $art/, log $log"
			show_finding "$log"
			failed=1
		else
			echo "  FUZZ    $t: ${execs:-?} execs in $secs s ($(( ${execs:-0} / secs ))/s)," \
				"${#inputs[@]} regression input(s) ok, corpus $before -> $after, no findings"
		fi
		rm -rf "$work"
	done
	return $failed
}

case "${1:-}" in
check-cc) [ $# = 2 ] || die "usage: run-fuzz.sh check-cc CC"; check_cc "$2" ;;
run) shift; [ $# -ge 4 ] || die "usage: run-fuzz.sh run FUZZ_DIR FUZZ_SRC SECONDS TARGET..."; run "$@" ;;
*) die "usage: run-fuzz.sh check-cc CC | run FUZZ_DIR FUZZ_SRC SECONDS TARGET..." ;;
esac
