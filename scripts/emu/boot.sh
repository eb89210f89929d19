#!/bin/bash
# Boot Debian's kernel for ARCH under QEMU (software emulation) as a KVM
# host, with BIN_DIR's files in /kmp, run `sh SCRIPT` there, and print the
# console.  Exit status: the script's, or 1 when the host never reported one
# (kernel panic, timeout, QEMU failure).
# Usage: scripts/emu/boot.sh ARCH BIN_DIR SCRIPT [TIMEOUT_SECONDS]
# Env: KMP_EMU_CACHE (default build/ARCH/emu), KMP_EMU_SYSROOT (target
# libraries, default build/ARCH/sysroot), KMP_EMU_LOG (console copy),
# KMP_EMU_MACHINE (powerpc: powernv8, powernv9 or powernv10; default powernv8),
# KMP_EMU_SMP (vCPUs of the emulated host, default 2).
set -euo pipefail
arch=$1 bindir=$2 script=$3 timeout_s=${4:-900}
src=$(cd "$(dirname "$0")/../.." && pwd)
cache=${KMP_EMU_CACHE:-$src/build/$arch/emu}
sysroot=${KMP_EMU_SYSROOT:-$src/build/$arch/sysroot}
smp=${KMP_EMU_SMP:-2}

case "$arch" in
arm64) triplet=aarch64-linux-gnu ;;
powerpc) triplet=powerpc64le-linux-gnu ;;
*) echo "emu/boot.sh: unsupported ARCH '$arch' (arm64 or powerpc)" >&2; exit 2 ;;
esac
[ -d "$bindir" ] || { echo "emu/boot.sh: no directory $bindir" >&2; exit 2; }
[ -r "$script" ] || { echo "emu/boot.sh: cannot read script $script" >&2; exit 2; }
"$src/scripts/emu/fetch.sh" "$arch" "$cache"
root=$cache/root
kver=$(sed 's/^linux-image-//' "$cache/kernel-package")

work=$(mktemp -d "$cache/initramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
ird=$work/root
mkdir -p "$ird"/{bin,dev,proc,sys,tmp,lib/kmp,lib/modules,kmp}
cp "$root/bin/busybox" "$ird/bin/busybox"
# /init prints nothing without a console node.
mknod -m 600 "$ird/dev/console" c 5 1
cp -r "$bindir"/. "$ird/kmp/"
cp "$script" "$ird/kmp-script"

# Shared libraries the binaries need, from the sysroot and the cross libc.
libdirs=("$sysroot/usr/lib/$triplet" "/usr/$triplet/lib")
declare -A seen=()
add_needed() {
	local f=$1 lib d
	for lib in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -n "${seen[$lib]:-}" ] && continue
		seen[$lib]=1
		for d in "${libdirs[@]}"; do
			if [ -e "$d/$lib" ]; then
				cp -L "$d/$lib" "$ird/lib/kmp/$lib"
				add_needed "$d/$lib"
				continue 2
			fi
		done
		echo "emu/boot.sh: $lib (needed by $(basename "$f")) not found in ${libdirs[*]}" >&2
		exit 1
	done
}
interp=
for f in "$ird"/kmp/*; do
	[ -f "$f" ] || continue
	add_needed "$f"
	i=$(readelf -l "$f" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	[ -n "$i" ] && interp=$i
done
if [ -n "$interp" ]; then
	mkdir -p "$ird$(dirname "$interp")"
	cp -L "/usr/$triplet/lib/$(basename "$interp")" "$ird$interp"
fi

modules=
if [ "$arch" = powerpc ]; then
	# Debian builds KVM-HV as modules; kvm.ko first.
	for m in kvm kvm-hv; do
		cp "$root/lib/modules/$kver/kernel/arch/powerpc/kvm/$m.ko" "$ird/lib/modules/"
		modules="$modules /lib/modules/$m.ko"
	done
fi

case "$arch" in
arm64) emulated="QEMU TCG: qemu-system-aarch64 -M virt,virtualization=on -cpu max,pauth=off (Debian $kver)" ;;
powerpc) emulated="QEMU TCG: qemu-system-ppc64 -M ${KMP_EMU_MACHINE:-powernv8} (Debian $kver)" ;;
esac
cat > "$ird/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
for m in $modules; do insmod \$m || echo "KMP-EMU: insmod \$m failed"; done
export PATH=/kmp:/bin LD_LIBRARY_PATH=/lib/kmp HOME=/tmp TMPDIR=/tmp
export KMP_REQUIRE_KVM=1 KMP_BIN=/kmp KMP_EMULATED_HOST="$emulated"
cd /kmp
sh /kmp-script
echo "KMP-EMU-EXIT \$?"
poweroff -f
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

case "$arch" in
arm64)
	qemu=(qemu-system-aarch64 -M "virt,virtualization=on,gic-version=3" -cpu "max,pauth=off"
	      -kernel "$root/boot/vmlinuz-$kver"
	      -append "console=ttyAMA0 rdinit=/init panic=-1 quiet loglevel=3") ;;
powerpc)
	machine=${KMP_EMU_MACHINE:-powernv8}
	qemu=(qemu-system-ppc64 -M "$machine" -cpu "power${machine#powernv}"
	      -kernel "$root/boot/vmlinux-$kver"
	      -append "console=hvc0 rdinit=/init panic=-1 quiet loglevel=3") ;;
esac
log=${KMP_EMU_LOG:-$work/console.log}
echo "  EMU     $arch: ${qemu[0]} ($kver), timeout ${timeout_s}s" >&2
set +e
# The console goes to the log whole; firmware chatter (skiboot's "[ t,level]"
# lines) and records passed through it (check.sh's KMP-REC lines) are left
# out of what is shown.
timeout --foreground "$timeout_s" "${qemu[@]}" -smp "$smp" -m 2G -nographic -no-reboot -nic none \
	-initrd "$work/initrd.gz" </dev/null 2>&1 | tr -d '\r' | tee "$log" |
	grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+,[0-9]\]|^ S: [0-9a-f]+ R:|^CPU [0-9a-f]+ Backtrace:| --- OPAL boot ---|^KMP-REC'
qemu_rc=${PIPESTATUS[0]}
set -e
rc=$(sed -n 's/^KMP-EMU-EXIT \([0-9]*\)$/\1/p' "$log" | tail -1)
if [ -z "$rc" ]; then
	echo "emu/boot.sh: the emulated $arch host never finished its script (QEMU exit $qemu_rc$([ "$qemu_rc" = 124 ] && echo ": timed out after ${timeout_s}s"))" >&2
	exit 1
fi
exit "$rc"
