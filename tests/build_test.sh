#!/bin/bash
# The build's and the emulated checks' refusals: an unsupported ARCH stops
# make with one line naming the supported ones, and a kernel package that
# cannot be fetched fails the emulated check loudly, naming the package.
# Run by make check (KMP_SRC_DIR is the source tree).
src=${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}
n=0 fails=0
check() {	# check NAME CONDITION_RC OUTPUT
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		printf '%s\n' "$3" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
}
echo "TAP version 13"
echo "1..7"

out=$(make -s -C "$src" ARCH=mips 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	printf '%s' "$out" | grep -q 'ARCH=mips is not supported; use one of: x86_64 arm64 powerpc'
check "unsupported ARCH: one line listing x86_64 arm64 powerpc" $? "$out"

out=$(make -s -C "$src" ARCH=aarch64 -B -n all 2>&1); rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q 'aarch64-linux-gnu-gcc\|cross-sysroot'
check "ARCH=aarch64 is arm64, cross compiled with aarch64-linux-gnu-" $? "$out"

cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
out=$(KMP_EMU_KERNEL_PKG=linux-image-kmp-no-such-version-arm64 \
	"$src/scripts/emu/fetch.sh" arm64 "$cache/emu" 2>&1); rc=$?
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q 'FAILED to fetch Debian package linux-image-kmp-no-such-version-arm64:arm64' &&
	[ ! -e "$cache/emu/.complete" ]
check "a kernel package that cannot be fetched fails, naming it" $? "$out"

out=$("$src/scripts/emu/fetch.sh" x86_64 "$cache/emu-x86" 9.99 2>&1); rc=$?
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q 'FAILED to fetch Debian package linux-image-9.99-amd64:amd64' &&
	[ ! -e "$cache/emu-x86/.complete" ]
check "an x86 kernel series Debian does not carry fails, naming its package" $? "$out"

out=$("$src/scripts/emu/fetch.sh" x86_64 "$cache/emu-x86" latest 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "kernel series 'latest' is not 'default' or a version"
check "emu/fetch.sh: a kernel series that is no version is refused" $? "$out"

printf 'tdp 6.12 -\n' > "$cache/bad.hosts"
out=$("$src/scripts/emu/check-hosts.sh" x86_64 "$cache" "$cache/bad.hosts" 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "host 'tdp' needs NAME KERNEL MACHINE LIST"
check "emu/check-hosts.sh: a host line without its list is refused" $? "$out"

out=$("$src/scripts/emu/boot.sh" sparc "$cache" /dev/null 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "unsupported ARCH 'sparc' (x86_64, arm64 or powerpc)"
check "emu/boot.sh: an unsupported ARCH is refused" $? "$out"

echo "# Totals: pass:$((n - fails)) fail:$fails"
[ $fails -eq 0 ]
