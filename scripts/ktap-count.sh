#!/bin/bash
# Count a kselftest-style KTAP log's results and fail (exit 1) when a test
# failed, when any result says XFAIL or XPASS (kselftest's exit codes 2 and
# 3: a test of this suite never expects to fail, and its usage errors exit
# 2), when fewer or more than NR_TESTS reported, or, under
# KMP_REQUIRE_KVM=1, when anything skipped: CI must never count a guest test
# that did not really run as passed.
# Usage: ktap-count.sh LOG NR_TESTS
log=$1 nr_tests=$2
# Top-level result lines only ("ok N selftests: ..."); nested ones start with '#'.
passed=$(grep -c '^ok .*selftests:' "$log" | head -1)
failed=$(grep -c '^not ok .*selftests:' "$log" | head -1)
skipped=$(grep -c '^ok .*selftests:.*# SKIP' "$log" | head -1)
# Subtests skipped inside a harness binary ("# ok 3 foo # SKIP reason").
subskips=$(grep -c '^# *ok .*# SKIP' "$log" | head -1)
passed=$((passed - skipped))
echo "# kvm-mmu-perf: $passed passed, $failed failed, $skipped skipped, $subskips subtests skipped"
rc=0
if [ "$failed" -gt 0 ]; then
	# Name what failed last, so a log's tail says which test and subtest.
	echo "# failed:"
	grep -E '^(# )*not ok ' "$log" | sed 's/^/#   /'
	rc=1
fi
if [ $((passed + failed + skipped)) -ne "$nr_tests" ]; then
	echo "# expected $nr_tests results, got $((passed + failed + skipped)): the runner itself failed" >&2
	rc=1
fi
# Any level: "ok 3 foo # XFAIL unknown", "# ok 3 foo # XFAIL ...".
xfails=$(grep -cE '^(# *)*(not )?ok .*# (XFAIL|XPASS)' "$log" | head -1)
if [ "$xfails" -gt 0 ]; then
	echo "# XFAIL/XPASS: kselftest's exit code 2 or 3 (a usage error inside a test?), a failure here:"
	grep -E '^(# *)*(not )?ok .*# (XFAIL|XPASS)' "$log" | sed 's/^/#   /'
	rc=1
	failed=$((failed + xfails))
fi
if [ "${KMP_REQUIRE_KVM:-0}" = 1 ] && [ $((skipped + subskips)) -gt 0 ]; then
	echo "# KMP_REQUIRE_KVM=1: a test skipped, so a guest test did not really run:" >&2
	grep -E '# SKIP' "$log" >&2
	rc=1
	failed=$((failed + skipped + subskips))
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
