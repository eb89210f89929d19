#!/bin/bash
# scripts/emu/boot.sh's watchdog, with a stand-in QEMU and a stand-in arm64
# kernel cache (no KVM, no download): a boot that never reaches the host's
# script is stopped after KMP_EMU_BOOT_TIMEOUT and tried once more, a second
# hang fails with the console quoted, the log keeping both boots' consoles
# and the markers read from the last; a hang after the script started is
# the run's own (the overall timeout, no second boot); init's marker after
# x86's BIOS text on its line is seen, and a healthy run longer than the
# boot timeout is left to end.
# Run by make check (KMP_SRC_DIR is the source tree).
src=${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}
# result (KTAP lines) and scratch ($TMP): tests/kmp_testlib.sh, beside this.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
echo "TAP version 13"
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP emu/boot.sh makes the initramfs's /dev/console node: needs root"
	exit 4
fi
echo "1..8"

scratch
t=$TMP
cache=$t/emu
mkdir -p "$cache/root/bin" "$cache/root/boot" "$t/bin" "$t/kmp"
echo linux-image-9.9-arm64 > "$cache/kernel-package"
: > "$cache/root/bin/busybox"
: > "$cache/root/boot/vmlinuz-9.9-arm64"
: > "$cache/.complete"
echo 'echo hello' > "$t/script.sh"
# The stand-in QEMU: STUB_PLAN holds one word per boot, "hang" (firmware
# chatter, then nothing), "hang-nokvm" (init's no-KVM marker, then nothing),
# "ok" (the script starts and ends), "stuck" (the script starts, then
# nothing), "bios" (as ok, the marker after SeaBIOS's "Booting from ROM.."
# on its line) or "long" (as bios, the script running 4 s); each call takes
# the next word.
cat > "$t/bin/qemu-system-aarch64" <<'STUB'
#!/bin/bash
echo x >> "$STUB_CALLS"
i=$(wc -l < "$STUB_CALLS")
case $(echo "$STUB_PLAN" | cut -d' ' -f"$i") in
hang) echo "firmware: starting"; exec sleep 60 ;;
ok) printf 'KMP-EMU-START\nhello\nKMP-EMU-EXIT 0\n' ;;
stuck) printf 'KMP-EMU-START\nhello\n'; exec sleep 60 ;;
hang-nokvm) printf 'firmware: starting\nKMP-EMU-NO-KVM\n'; exec sleep 60 ;;
bios) printf 'Booting from ROM..KMP-EMU-START\nhello\nKMP-EMU-EXIT 0\n' ;;
long) printf 'Booting from ROM..KMP-EMU-START\nhello\n'; sleep 4; printf 'done\nKMP-EMU-EXIT 0\n' ;;
esac
STUB
chmod +x "$t/bin/qemu-system-aarch64"

boot() {	# boot PLAN TIMEOUT: boot.sh's output; sets rc and calls
	: > "$t/calls"
	out=$(PATH="$t/bin:$PATH" STUB_CALLS=$t/calls STUB_PLAN=$1 KMP_EMU_CACHE=$cache \
		KMP_EMU_BOOT_TIMEOUT=2 KMP_EMU_LOG=$t/console.log \
		"$src/scripts/emu/boot.sh" arm64 "$t/kmp" "$t/script.sh" "$2" 2>&1)
	rc=$? calls=$(wc -l < "$t/calls")
}

start=$SECONDS
boot "hang ok" 60
[ $rc -eq 0 ] && [ "$calls" = 2 ] &&
	printf '%s\n' "$out" | grep -q "had not reached its script after 2s (attempt 1 of 2: a hung boot)" &&
	printf '%s\n' "$out" | grep -qx "  | firmware: starting" &&
	printf '%s\n' "$out" | grep -q "booting the emulated arm64 host once more" &&
	printf '%s\n' "$out" | grep -qx "hello" && ! printf '%s\n' "$out" | grep -q KMP-EMU-START &&
	[ $((SECONDS - start)) -lt 30 ]
result $? "a boot that hangs before the script is stopped and booted once more" "rc=$rc calls=$calls $out"
# The log: the hung boot's console, a line on the retry, the second boot's.
printf 'firmware: starting\nemu/boot.sh: the boot above had not reached its script after 2s: booting once more\nKMP-EMU-START\nhello\nKMP-EMU-EXIT 0\n' | cmp -s - "$t/console.log"
result $? "the retried boot's log keeps the first boot's console" "$(cat "$t/console.log")"

boot "hang-nokvm ok" 60
[ $rc -eq 0 ] && [ "$calls" = 2 ] && grep -qx KMP-EMU-NO-KVM "$t/console.log" &&
	! printf '%s\n' "$out" | grep -q "booted without KVM"
result $? "a marker of the hung boot is not read as the second boot's" "rc=$rc calls=$calls $out"

boot "hang hang" 60
[ $rc -eq 1 ] && [ "$calls" = 2 ] &&
	printf '%s\n' "$out" | grep -q "(attempt 2 of 2: a hung boot)" &&
	! printf '%s\n' "$out" | grep -q "never finished"
result $? "a second hung boot fails, quoting the console" "rc=$rc calls=$calls $out"

boot "stuck ok" 5
[ $rc -eq 1 ] && [ "$calls" = 1 ] &&
	printf '%s\n' "$out" | grep -q "never finished its script (QEMU exit 124: timed out after 5s)" &&
	! printf '%s\n' "$out" | grep -q "hung boot"
result $? "a hang after the script started is the run's: timed out, not booted again" "rc=$rc calls=$calls $out"

boot "bios" 60
[ $rc -eq 0 ] && [ "$calls" = 1 ] && printf '%s\n' "$out" | grep -qx "Booting from ROM.." &&
	printf '%s\n' "$out" | grep -qx "hello" && ! printf '%s\n' "$out" | grep -q KMP-EMU-START
result $? "init's marker after the BIOS's text on its line is seen, and hidden" "rc=$rc calls=$calls $out"

start=$SECONDS
boot "long ok" 60
[ $rc -eq 0 ] && [ "$calls" = 1 ] && [ $((SECONDS - start)) -ge 4 ] &&
	printf '%s\n' "$out" | grep -qx "done" && ! printf '%s\n' "$out" | grep -q "hung boot"
result $? "a run that outlasts the boot timeout after the script started is left to end" "rc=$rc calls=$calls $out"

out=$(KMP_EMU_BOOT_TIMEOUT=0 "$src/scripts/emu/boot.sh" arm64 "$t/kmp" "$t/script.sh" 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q "KMP_EMU_BOOT_TIMEOUT '0': must be a number of seconds (1 or more)"
result $? "emu/boot.sh: a boot timeout that is no number of seconds is refused" "$out"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
