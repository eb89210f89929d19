#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check where no guest can run: /dev/kvm hidden (a tmpfs over /dev in a
# private mount namespace, as root), /dev/kvm and /dev/userfaultfd both
# hidden (a container's /dev), and /dev/kvm unopenable (user nobody).
# Each way every test must pass or skip (exit 0), the summary must say loudly
# that no guest ran, under KMP_REQUIRE_KVM=1 the run must fail, and the
# tests leave nothing in their TMPDIR: a private folder, so that other
# processes' files in /tmp do not count.  Then the unit tests where guests
# can run but /dev/userfaultfd is missing, as in many CI containers: they
# pass under KMP_REQUIRE_KVM=1.  KTAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${KMP_BIN:-$here}
src=${KMP_SRC_DIR:-$(dirname "$here")}
base=$(dirname "$bin")
# result, KTAP's lines: tests/kmp_testlib.sh, beside this script here and in bin/.
# shellcheck source=tests/kmp_testlib.sh
. "$here/kmp_testlib.sh"
echo "TAP version 13"
if [ "$(id -u)" != 0 ] || ! unshare --mount true 2>/dev/null; then
	echo "1..0 # SKIP needs root and mount namespaces to hide /dev/kvm"
	exit 4
fi
echo "1..7"
# Every test of make check but this one (and the build test, which builds).
tests=()
for t in "$bin"/unit_tests "$bin"/smoke_* "$bin"/*_test.py "$bin"/*_test.sh; do
	case $(basename "$t") in no_kvm_test.sh | build_test.sh) continue ;; esac
	[ -x "$t" ] && tests+=("$(basename "$t")")
done
work=$(mktemp -d /tmp/kmp-nokvm-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"	# the tests' TMPDIR
# ktap-run.sh copies the runner next to the binaries and writes settings there.
cp -r "$bin" "$work/bin"
cp -r "$base/kselftest" "$work/kselftest"
chmod -R a+rX "$work"
hide_devs() {	# hide_devs "NODE..." LOG [ENV...] -- TEST...: as root, in a private /dev without NODEs
	local hide=$1 log=$2 envs=()
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --mount --propagation private sh -c '
		hide=$1; shift
		d=$(mktemp -d) && mount -t tmpfs tmpfs "$d" || exit 99
		for f in /dev/*; do
			[ -c "$f" ] || continue
			case " $hide " in *" ${f#/dev/} "*) continue ;; esac
			cp -a "$f" "$d/"
		done
		mkdir "$d/pts" "$d/shm"; ln -s /proc/self/fd "$d/fd"
		mount --bind "$d" /dev && mount -t tmpfs tmpfs /dev/shm || exit 99
		exec env "$@"' sh "$hide" "${envs[@]}" TMPDIR="$work/tmp" KMP_SRC_DIR="$src" \
		KMP_BIN="$work/bin" "$src/scripts/ktap-run.sh" "$work" "$work/bin" \
		"$src/configs/settings" "$@" >"$log" 2>&1
}
run_hidden() {	# run_hidden LOG [ENV...]: as root, /dev/kvm hidden
	local log=$1
	shift
	hide_devs kvm "$log" "$@" -- "${run[@]}"
}
run_container() {	# run_container LOG [ENV...]: as root, /dev/kvm and /dev/userfaultfd hidden
	local log=$1
	shift
	hide_devs "kvm userfaultfd" "$log" "$@" -- "${run[@]}"
}
run_nobody() {	# run_nobody LOG [ENV...]: as user nobody, /dev/kvm there but 0600 root
	local log=$1
	shift
	chown -R nobody "$work"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$work" TMPDIR="$work/tmp" "$@" \
		KMP_SRC_DIR="$src" KMP_BIN="$work/bin" "$src/scripts/ktap-run.sh" "$work" \
		"$work/bin" "$src/configs/settings" "${run[@]}" >"$log" 2>&1
	local rc=$?
	chown -R root "$work"
	return $rc
}
litter() {	# what the tests' TMPDIR holds
	local f
	for f in "$work"/tmp/* "$work"/tmp/.[!.]*; do
		[ -e "$f" ] && echo "$f"
	done
}
check() {	# check NAME HOW: exit 0, every result a pass or skip, the banner, no litter
	local log=$work/$2.log rc before after
	before=$(litter)
	run=("${tests[@]}")
	"run_$2" "$log" KMP_REQUIRE_KVM=0
	rc=$?
	after=$(litter)
	if [ "$before" != "$after" ]; then
		echo "# left in TMPDIR by skipped tests: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
		rc=99
	fi
	if [ $rc = 0 ] && grep -q '^## NO GUEST RAN' "$log" && grep -q '# SKIP' "$log" &&
	   ! grep -q '^not ok' "$log"; then
		result 0 "$1: exit 0, skips, and 'NO GUEST RAN' ($(tail -n 10 "$log" | grep -m1 passed))"
	else
		result 1 "$1: exit 0, skips, and 'NO GUEST RAN'" "exit $rc" \
			"$(grep -E '^not ok|NO GUEST|passed,' "$log" | head -20)"
	fi
	# A guest test that did not run fails the run: one guest test shows it.
	run=(smoke_basic)
	"run_$2" "$log" KMP_REQUIRE_KVM=1
	rc=$?
	if [ $rc != 0 ] && grep -q 'KMP_REQUIRE_KVM=1' "$log"; then
		result 0 "$1 under KMP_REQUIRE_KVM=1: fails (exit $rc)"
	else
		result 1 "$1 under KMP_REQUIRE_KVM=1: fails" "exit $rc" "$(tail -n 5 "$log")"
	fi
}
check "root, /dev/kvm hidden" hidden
check "root, /dev/kvm and /dev/userfaultfd hidden" container
check "user nobody, /dev/kvm 0600 root" nobody
# Guests run, but there is no /dev/userfaultfd: what the unit tests expect
# is what the host allows (uffd_open_eperm skips its fallback, saying why).
if [ -c /dev/kvm ] && (exec 3<>/dev/kvm) 2>/dev/null; then
	log=$work/no-uffd.log
	hide_devs userfaultfd "$log" KMP_REQUIRE_KVM=1 -- unit_tests
	rc=$?
	if [ $rc = 0 ] && grep -q '^ok 1 selftests: kvm-mmu-perf: unit_tests' "$log"; then
		result 0 "root, /dev/userfaultfd hidden, /dev/kvm there: unit_tests pass under KMP_REQUIRE_KVM=1"
	else
		result 1 "root, /dev/userfaultfd hidden, /dev/kvm there: unit_tests pass under KMP_REQUIRE_KVM=1" \
			"exit $rc" "$(grep -E '^# +not ok|Expected|output:|passed,' "$log" | head -20)"
	fi
else
	echo "ok $((++n)) # SKIP root, /dev/userfaultfd hidden: this host has no usable /dev/kvm"
fi
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
