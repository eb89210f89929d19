#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check where no guest can run: /dev/kvm hidden (a tmpfs over /dev in a
# private mount namespace, as root), /dev/kvm and /dev/userfaultfd both
# hidden (a container's /dev), /dev/kvm unopenable (user nobody), and a
# /dev/kvm that opens but is not KVM (a copy of /dev/null: there the C tests
# and make run_tests' benchmarks, the ones that open it).
# Each way every test must pass or skip (exit 0), the summary must say loudly
# that no guest ran, under KMP_REQUIRE_KVM=1 the run must fail, and the
# tests leave nothing in their TMPDIR: a private folder, so that other
# processes' files in /tmp do not count.  Missing, unopenable and not KVM,
# ./run.sh -g seed-003 chooses the emulated host, saying why (its kernel
# script a stub here: nothing boots).  Then the unit tests where guests
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
echo "1..12"
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
in_devs() {	# in_devs "NODE..." "FAKE..." CMD...: as root, in a private /dev without NODEs, FAKEs copies of /dev/null
	local hide=$1 fake=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --mount --propagation private sh -c '
		hide=$1 fake=$2; shift 2
		d=$(mktemp -d) && mount -t tmpfs tmpfs "$d" || exit 99
		for f in /dev/*; do
			[ -c "$f" ] || continue
			case " $hide $fake " in *" ${f#/dev/} "*) continue ;; esac
			cp -a "$f" "$d/"
		done
		for f in $fake; do cp -a /dev/null "$d/$f" || exit 99; done
		mkdir "$d/pts" "$d/shm"; ln -s /proc/self/fd "$d/fd"
		mount --bind "$d" /dev && mount -t tmpfs tmpfs /dev/shm || exit 99
		exec "$@"' sh "$hide" "$fake" "$@"
}
as_nobody() {	# as_nobody CMD...: as user nobody (/dev/kvm there but 0600 root), $work its own
	chown -R nobody "$work"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$work" "$@"
	local rc=$?
	chown -R root "$work"
	return $rc
}
ktap_run() {	# ktap_run [ENV...]: the command of make check's runner on "${run[@]}", the copied tree
	ktap=(env "$@" TMPDIR="$work/tmp" KMP_SRC_DIR="$src" KMP_BIN="$work/bin" "$src/scripts/ktap-run.sh"
		"$work" "$work/bin" "$src/configs/settings" "${run[@]}")
}
hide_devs() {	# hide_devs "NODE..." LOG [ENV...] -- TEST...: as root, in a private /dev without NODEs
	local hide=$1 log=$2 envs=()
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	run=("$@")
	ktap_run "${envs[@]}"
	in_devs "$hide" "" "${ktap[@]}" >"$log" 2>&1
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
run_notkvm() {	# run_notkvm LOG [ENV...]: as root, /dev/kvm a copy of /dev/null
	local log=$1
	shift
	ktap_run "$@"
	in_devs "" kvm "${ktap[@]}" >"$log" 2>&1
}
run_nobody() {	# run_nobody LOG [ENV...]: as user nobody, /dev/kvm there but 0600 root
	local log=$1
	shift
	ktap_run "$@"
	as_nobody "${ktap[@]}" >"$log" 2>&1
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
# Not KVM: the tests that open /dev/kvm, the C ones and make run_tests' benchmarks.
all_tests=("${tests[@]}")
tests=()
for t in "$bin"/unit_tests "$bin"/smoke_* "$bin"/dirty_log_perf "$bin"/demand_paging \
	 "$bin"/zap_latency "$bin"/tlbie_bench; do
	[ -x "$t" ] && tests+=("$(basename "$t")")
done
check "root, /dev/kvm opens but is not KVM (/dev/null)" notkvm
tests=("${all_tests[@]}")

# run.sh's choice: a tree whose emulated-kernel script is a stub, so that
# the run stops right after choosing (exit 3, the stub's line).
tree=$work/tree
# run.sh takes its binaries from build/$(uname -m)/bin, whatever OUTPUT
# built these (make check's ASan pass builds build/asan).
mkdir -p "$tree/scripts/emu" "$tree/build/$(uname -m)"
cp "$src/run.sh" "$tree/"
ln -s "$src/configs" "$tree/configs"
ln -s "$work/bin" "$tree/build/$(uname -m)/bin"
for f in "$src"/*/main.c; do	# the benchmarks, as run.sh finds them
	mkdir -p "$tree/$(basename "$(dirname "$f")")" && ln -s "$f" "$tree/$(basename "$(dirname "$f")")/"
done
for f in "$src"/scripts/*; do [ "$(basename "$f")" = emu ] || ln -s "$f" "$tree/scripts/"; done
for f in "$src"/scripts/emu/*; do ln -s "$f" "$tree/scripts/emu/"; done
rm "$tree/scripts/emu/kernel.sh"
printf '#!/bin/sh\necho "kernel.sh: stub, nothing boots" >&2\nexit 3\n' > "$tree/scripts/emu/kernel.sh"
chmod +x "$tree/scripts/emu/kernel.sh"
chmod -R a+rX "$work"
choice() {	# choice NAME WHY HOW...: run.sh -g seed-003 under HOW goes to the emulated host, saying WHY
	local name=$1 why=$2 out rc
	shift 2
	out=$("$@" env KMP_RESULTS="$work/results" KMP_BIN= "$tree/run.sh" -g seed-003 2>&1)
	rc=$?
	[ $rc = 3 ] && [ "$(sed -n 1p <<< "$out")" = "run.sh: $why: running on an emulated KVM host instead (--host local: skip)" ] &&
		grep -qx 'kernel.sh: stub, nothing boots' <<< "$out"
	result $? "$name: ./run.sh -g seed-003 chooses the emulated host, saying why" "exit $rc" "$out"
}
choice "root, /dev/kvm hidden" "/dev/kvm does not exist: load kvm and kvm_intel/kvm_amd (modprobe), or run on a host with virtualization enabled" \
	in_devs kvm ""
# kvm_open_advice's words: the group named where one, not root's, owns the node.
if [ "$(stat -c %g /dev/kvm)" = 0 ]; then
	denied="/dev/kvm (mode $(stat -c %04a /dev/kvm), owned by uid $(stat -c %u /dev/kvm) gid 0): permission denied; run as root"
else
	denied="/dev/kvm (mode $(stat -c %04a /dev/kvm), group $(stat -c %G /dev/kvm)): permission denied; run as root or add this user to group $(stat -c %G /dev/kvm)"
fi
choice "user nobody, /dev/kvm 0600 root" "$denied" as_nobody
choice "root, /dev/kvm opens but is not KVM" "/dev/kvm opens but is not KVM: KVM_GET_API_VERSION failed: errno 25 (Inappropriate ioctl for device)" \
	in_devs "" kvm
# Guests run, but there is no /dev/userfaultfd: what the unit tests expect
# is what the host allows (uffd_open_eperm skips its fallback, saying why).
if "$bin/kmp_kvm" >/dev/null; then
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
