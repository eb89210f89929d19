#!/bin/bash
# Run test binaries through the kernel's kselftest runner.sh and fail (exit 1)
# when any of them failed (ktap-count.sh: under KMP_REQUIRE_KVM=1 a skipped
# test fails too).
# Usage: ktap-run.sh KSFT_INC BINDIR SETTINGS TEST...
ksft=$1 bindir=$2 settings=$3
# Before anything runs: "true" or "yes" must not pass for unset.
case ${KMP_REQUIRE_KVM:-0} in
0 | 1) ;;
*)
	echo "ktap-run.sh: KMP_REQUIRE_KVM='$KMP_REQUIRE_KVM': must be 0 or 1" >&2
	exit 2
	;;
esac
shift 3
nr_tests=$#
base=$(dirname "$bindir")
mkdir -p "$base/kselftest"
cp "$ksft"/kselftest/* "$base/kselftest/"
cp "$settings" "$bindir/settings"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The runner names each test by its folder ("selftests: FOLDER: TEST"): the
# collection's name, as make run_tests' install tree has it, not "bin".
coll=$base/kvm-mmu-perf
[ "$bindir" -ef "$coll" ] || ln -sfn "$(basename "$bindir")" "$coll" || exit 1
(
	export BASE_DIR="$base"
	cd "$coll" || exit 1
	# shellcheck disable=SC1091
	. "$base/kselftest/runner.sh"
	run_many "$@"
) | tee "$log"

"$(dirname "$0")/ktap-count.sh" "$log" "$nr_tests"
rc=$?
# A green run in which no guest could run says so, loudly.
# kmp_kvm decides, as the tests do: /dev/kvm missing, unopenable, or not KVM.
if ! why=$("$bindir/kmp_kvm" 2>&1); then
	[ -n "$why" ] || why="$bindir/kmp_kvm failed without saying why"
	echo "################################################################"
	echo "## NO GUEST RAN: $why."
	echo "## Every guest test above was SKIPPED; only host-side tests ran."
	echo "## KMP_REQUIRE_KVM=1 makes this a failure.  Here, without KVM:"
	echo "##   ./run.sh           runs the benchmarks on an emulated KVM host (QEMU)"
	echo "##   make check-x86     runs the guest tests on emulated x86 KVM hosts"
	echo "################################################################"
fi
exit $rc
