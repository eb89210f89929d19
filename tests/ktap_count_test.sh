#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/ktap-count.sh, make check's count of KTAP results: a result that
# says XFAIL or XPASS (kselftest's exit codes 2 and 3, a usage error inside a
# harness test) fails the run and is named, at the top level and nested; a
# log of passes and skips passes.  KTAP.
set -u
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
src=${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}
scratch
echo "TAP version 13"
echo "1..4"
count() {	# count NAME NR_TESTS LINE...: ktap-count.sh on a log of the LINEs
	local name=$1 nr=$2
	shift 2
	printf '%s\n' "$@" > "$TMP/$name.log"
	KMP_REQUIRE_KVM=0 "$src/scripts/ktap-count.sh" "$TMP/$name.log" "$nr" > "$TMP/$name.out" 2>&1
}

count clean 2 "ok 1 selftests: kvm-mmu-perf: smoke_stats" "# ok 1 global.a" \
	"# ok 2 global.b # SKIP no KVM" "ok 2 selftests: kvm-mmu-perf: unit_tests # SKIP"
rc=$?
[ $rc = 0 ] && tail -n 1 "$TMP/clean.out" | grep -qx '1 passed, 0 failed, 1 skipped'
result $? "passes and skips: exit 0" "exit $rc" "$(cat "$TMP/clean.out")"

count nested 1 "# ok 1 global.lockstep_exact_counts # XFAIL unknown" "# ok 2 global.b" \
	"ok 1 selftests: kvm-mmu-perf: smoke_memstress"
rc=$?
[ $rc = 1 ] && grep -qx '#   # ok 1 global.lockstep_exact_counts # XFAIL unknown' "$TMP/nested.out" &&
	tail -n 1 "$TMP/nested.out" | grep -qx '1 passed, 1 failed, 0 skipped'
result $? "a subtest's XFAIL: exit 1, the subtest named, counted failed" "exit $rc" "$(cat "$TMP/nested.out")"

count top 1 "ok 1 selftests: kvm-mmu-perf: smoke_stats # XFAIL"
rc=$?
[ $rc = 1 ] && grep -qx '#   ok 1 selftests: kvm-mmu-perf: smoke_stats # XFAIL' "$TMP/top.out"
result $? "a test's XFAIL: exit 1, the test named" "exit $rc" "$(cat "$TMP/top.out")"

count xpass 1 "# ok 1 global.a # XPASS unknown" "ok 1 selftests: kvm-mmu-perf: unit_tests"
rc=$?
[ $rc = 1 ] && grep -qx '#   # ok 1 global.a # XPASS unknown' "$TMP/xpass.out"
result $? "a subtest's XPASS: exit 1, the subtest named" "exit $rc" "$(cat "$TMP/xpass.out")"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
