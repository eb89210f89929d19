#!/bin/bash
# Run test binaries through the kernel's kselftest runner.sh and fail (exit 1)
# when any of them failed.  Under KMP_REQUIRE_KVM=1 a skipped test fails too:
# CI must never count a guest test that did not run as passed.
# Usage: ktap-run.sh KSFT_INC BINDIR SETTINGS TEST...
ksft=$1 bindir=$2 settings=$3
shift 3
nr_tests=$#
base=$(dirname "$bindir")
mkdir -p "$base/kselftest"
cp "$ksft"/kselftest/* "$base/kselftest/"
cp "$settings" "$bindir/settings"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
(
	export BASE_DIR="$base"
	cd "$bindir" || exit 1
	# shellcheck disable=SC1091
	. "$base/kselftest/runner.sh"
	run_many "$@"
) | tee "$log"

# Top-level result lines only ("ok N selftests: ..."); nested ones start with '#'.
passed=$(grep -c '^ok .*selftests:' "$log" | head -1)
failed=$(grep -c '^not ok .*selftests:' "$log" | head -1)
skipped=$(grep -c '^ok .*selftests:.*# SKIP' "$log" | head -1)
# Subtests skipped inside a harness binary ("# ok 3 foo # SKIP reason").
subskips=$(grep -c '^# *ok .*# SKIP' "$log" | head -1)
passed=$((passed - skipped))
echo "# kvm-mmu-perf: $passed passed, $failed failed, $skipped skipped, $subskips subtests skipped"
rc=0
[ "$failed" -eq 0 ] || rc=1
if [ $((passed + failed + skipped)) -ne "$nr_tests" ]; then
	echo "# expected $nr_tests results, got $((passed + failed + skipped)): the runner itself failed" >&2
	rc=1
fi
if [ "${KMP_REQUIRE_KVM:-0}" = 1 ] && [ $((skipped + subskips)) -gt 0 ]; then
	echo "# KMP_REQUIRE_KVM=1: a test skipped, so a guest test did not really run:" >&2
	grep -E '# SKIP' "$log" >&2
	rc=1
	failed=$((failed + skipped + subskips))
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
