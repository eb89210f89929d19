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
echo "1..11"

out=$(make -s -C "$src" ARCH=mips 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
	printf '%s' "$out" | grep -q 'ARCH=mips is not supported; use one of: x86_64 arm64 powerpc'
check "unsupported ARCH: one line listing x86_64 arm64 powerpc" $? "$out"

cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
# make -n still writes generated headers: into a scratch OUTPUT, never build/arm64.
out=$(make -s -C "$src" ARCH=aarch64 OUTPUT="$cache/arm64" -B -n all 2>&1); rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q 'aarch64-linux-gnu-gcc\|cross-sysroot'
check "ARCH=aarch64 is arm64, cross compiled with aarch64-linux-gnu-" $? "$out"
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
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "host 'tdp' needs NAME KERNEL MMU LIST"
check "emu/check-hosts.sh: a host line without its list is refused" $? "$out"

# A failed host's reason is repeated at the end (CI keeps only a log's tail).
mkdir -p "$cache/emptybin"
printf 'unit_tests\n' > "$cache/one.list"
printf 'nobin default - one.list\n' > "$cache/nobin.hosts"
out=$("$src/scripts/emu/check-hosts.sh" x86_64 "$cache/emptybin" "$cache/nobin.hosts" 2>&1); rc=$?
[ $rc -eq 1 ] && printf '%s\n' "$out" | tail -n 3 | head -1 | grep -qx -- "--- why 'nobin' failed ($cache/emptybin/emu-check-nobin.out):" &&
	printf '%s\n' "$out" | tail -n 2 | head -1 | grep -q "emptybin/unit_tests is missing"
check "emu/check-hosts.sh: a failed host's reason is repeated at the end" $? "$out"

out=$("$src/scripts/emu/boot.sh" sparc "$cache" /dev/null 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "unsupported ARCH 'sparc' (x86_64, arm64 or powerpc)"
check "emu/boot.sh: an unsupported ARCH is refused" $? "$out"

# make install: every test binary is in kselftest-list.txt, and the kernel's
# run_kselftest.sh -t runs one of them from the installed tree.
out=$(make -s -C "$src" install INSTALL_PATH="$cache/inst" 2>&1); rc=$?
missing=""
for t in dirty_log_perf demand_paging zap_latency tlbie_bench unit_tests smoke_basic \
	smoke_dirty_log_perf smoke_zap_latency; do
	grep -qx "kvm-mmu-perf:$t" "$cache/inst/kselftest-list.txt" 2>/dev/null || missing="$missing $t"
done
[ $rc -eq 0 ] && [ -z "$missing" ]
check "make install lists every test binary in kselftest-list.txt" $? "$out${missing:+ missing:$missing}"
out=$(cd "$cache/inst" && ./run_kselftest.sh -t kvm-mmu-perf:smoke_basic 2>&1); rc=$?
printf '%s' "$out" | grep -q '^ok 1 selftests: kvm-mmu-perf: smoke_basic'
check "run_kselftest.sh -t kvm-mmu-perf:smoke_basic runs it" $? "$out"
[ ! -d "$src/build/arm64" ] || [ -d "$src/build/arm64/bin" ] || [ -d "$src/build/arm64/sysroot" ]
check "the checks leave no stray build/arm64 behind" $? "$(ls "$src/build/arm64" 2>&1)"

echo "# Totals: pass:$((n - fails)) fail:$fails"
[ $fails -eq 0 ]
