#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of run.sh ab's kernel sources (KTAP): the bad inputs that are refused
# before anything is unpacked or built, each with a one-line error that
# names it, exit 2, the user's tree untouched and nothing left in the cache;
# and ab's check of the MMU each side's records name.  (Its check of each
# side's console for the kernel's own reports: console_reports_test.sh.)
# (The ones that need a source unpacked or configured, and a failed build,
# are in make check-ab-source: scripts/emu/check-ab-source.sh.)
set -u
# result, and run_sh_scratch ($SRC, $RUN, $TMP): tests/kmp_testlib.sh, beside this.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
run_sh_scratch
CACHE=$SRC/build/x86_64/emu-ab

# refused NAME EXPECTED-TEXT ARGS...: run.sh ab ARGS exits 2 with one stderr
# line holding EXPECTED-TEXT, and the cache folder is as it was.
refused() {
	local name=$1 want=$2 before after out rc
	shift 2
	before=$(ls -A "$CACHE" 2>/dev/null)
	out=$("$RUN" ab "$@" -g seed-004 2>&1 > /dev/null); rc=$?
	after=$(ls -A "$CACHE" 2>/dev/null)
	[ $rc = 2 ] && [ "$(grep -c . <<< "$out")" = 1 ] && grep -qF -- "$want" <<< "$out" &&
		[ "$before" = "$after" ]
	local r=$?
	[ $r = 0 ] || printf '# rc %s: %s\n' "$rc" "${out//$'\n'/$'\n'# }"
	result $r "$name"
}

echo "TAP version 13"
if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP run.sh ab runs emulated hosts built on x86_64"
	exit 4
fi
if [ ! -x "$SRC/build/x86_64/bin/zap_latency" ]; then
	echo "1..0 # SKIP the x86_64 binaries are not built (make)"
	exit 4
fi
echo "1..14"

echo "x" > "$TMP/fix.patch"
refused "a source path that does not exist" "--kernel '$TMP/nope/': no such folder" \
	--kernel "$TMP/nope/" --patch "$TMP/fix.patch"
mkdir -p "$TMP/notkernel"
echo hello > "$TMP/notkernel/README"
refused "a folder that is not a kernel source tree" "not a kernel source tree" \
	--kernel "$TMP/notkernel/" --kernel "$TMP/notkernel/"

# A tree built in place: refused, and not cleaned.
mkdir -p "$TMP/built/arch/x86" "$TMP/built/include/config"
touch "$TMP/built/Makefile" "$TMP/built/Kconfig"
echo "CONFIG_KVM=y" > "$TMP/built/.config"
sum=$(find "$TMP/built" -type f -exec sha256sum {} + | sort | sha256sum)
refused "a source tree built in place is refused, not cleaned" "was built in place" \
	--kernel "$TMP/built/" --patch "$TMP/fix.patch"
[ "$sum" = "$(find "$TMP/built" -type f -exec sha256sum {} + | sort | sha256sum)" ] &&
	[ -d "$TMP/built/include/config" ]
result $? "the tree built in place is left exactly as it was"

# A package file's path has a / too, but it is not a source to build.
mkdir -p "$TMP/debs"
echo junk > "$TMP/debs/linux-image-6.12.0-1-amd64.deb"
refused "a package file in a folder is read as a package, not as a source" \
	"not a Debian package file" --kernel "$TMP/debs/linux-image-6.12.0-1-amd64.deb" \
	--kernel "$TMP/debs/linux-image-6.12.0-1-amd64.deb"

# A built tree whose kernel cannot print a WARN (tinyconfig's CONFIG_BUG off).
mkdir -p "$TMP/nobug/arch/x86/boot" "$TMP/nobug/include/config"
touch "$TMP/nobug/arch/x86/boot/bzImage"
printf '%s\n' 'CONFIG_KVM_AMD=y' '# CONFIG_BUG is not set' > "$TMP/nobug/.config"
refused "a built tree without CONFIG_BUG: its WARNs would print nothing" "has no CONFIG_BUG=y" \
	--kernel "$TMP/nobug" --kernel "$TMP/nobug"

refused "--patch with an image package for B: no source to patch" "no source to patch" \
	--kernel linux-image-6.12.118+deb12-amd64 --patch "$TMP/fix.patch"
refused "--patch naming no file" "--patch '$TMP/none.patch': no such readable file" \
	--kernel linux-source-6.12 --patch "$TMP/none.patch"
refused "--patch-a naming no file" "--patch-a '$TMP/none.patch': no such readable file" \
	--kernel linux-source-6.12 --patch-a "$TMP/none.patch"
refused "--patch-a with an image package for A: no source to patch" "no source to patch" \
	--kernel linux-image-6.12.118+deb12-amd64 --patch-a "$TMP/fix.patch"
refused "--config naming no file" "--config '$TMP/none.config': no such readable file" \
	--kernel linux-source-6.12 --kernel linux-source-6.12 --config "$TMP/none.config"
refused "a source package name that is not linux-source-X.Y" "not a source package name" \
	--kernel linux-source-6.12-rc1 --patch "$TMP/fix.patch"

# The emulated hosts' table (configs/emu-hosts) as run.sh, boot.sh and
# check-hosts.sh read it (scripts/emu/mmu.sh); compare's check of the records'
# MMU is in tests/results_inputs_test.py.
out=$("$SRC/scripts/emu/mmu.sh" x86_64 legacy-npt); rc=$?
[ $rc = 0 ] && [ "$out" = "EMU_MMU=legacy-npt EMU_KERNEL=6.12 EMU_MACHINE='' EMU_CPU=max EMU_PARAMS=kvm_amd.npt=1\\ kvm.tdp_mmu=0 EMU_RECORD=legacy\\ tdp" ]
result $? "configs/emu-hosts: legacy-npt's line, its parameters and the record value that proves it"
out=$("$SRC/scripts/emu/mmu.sh" arm64 tdp 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "--mmu 'tdp': the emulated arm64 host's KVM MMU must be stage2 (configs/emu-hosts)" ]
result $? "configs/emu-hosts: an MMU that the arch's lines do not have is refused, naming those it has"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
