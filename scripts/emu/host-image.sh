# Sourced by scripts/emu/boot.sh and lava/make-ramdisk.sh: the emulated KVM
# host's image.  From arch, bindir, script and src (and boot.sh's KMP_EMU_*
# environment), it writes $work/initrd.gz (BIN_DIR in /kmp, KVM's modules,
# an /init that runs `sh SCRIPT`) and sets what QEMU needs: qemu (the command
# up to the kernel), kernel, console_args, kernel_args, icount_args, mem,
# and, for messages, name, kver, origin, modparams and emulated (the
# host's description that records carry).  Its messages start with $me,
# the sourcing script's name.
# shellcheck shell=bash disable=SC2034,SC2154
# (its variables are the sourcing script's)
series=${KMP_EMU_KERNEL:-default}
cache=${KMP_EMU_CACHE:-$src/build/$arch/emu$([ "$series" = default ] || echo "-$series")}
sysroot=${KMP_EMU_SYSROOT:-$src/build/$arch/sysroot}
smp=${KMP_EMU_SMP:-2}
name=${KMP_EMU_NAME:-$arch}
case "$arch" in
x86_64) triplet=x86_64-linux-gnu mem=${KMP_EMU_MEM:-6G}
	# A native build: the build host's own libraries.
	libdirs=("/usr/lib/$triplet" "/lib/$triplet") ;;
arm64) triplet=aarch64-linux-gnu mem=${KMP_EMU_MEM:-2G}
	libdirs=("$sysroot/usr/lib/$triplet" "$sysroot/lib/$triplet" "/usr/$triplet/lib") ;;
powerpc) triplet=powerpc64le-linux-gnu mem=${KMP_EMU_MEM:-2G}
	libdirs=("$sysroot/usr/lib/$triplet" "$sysroot/lib/$triplet" "/usr/$triplet/lib") ;;
*) echo "$me: unsupported ARCH '$arch' (x86_64, arm64 or powerpc)" >&2; exit 2 ;;
esac
# The host's KVM MMU: QEMU's machine and CPU, KVM's parameters (configs/emu-hosts).
mmu=$("$src/scripts/emu/mmu.sh" "$arch" "${KMP_EMU_MMU:-}" 2>&1) || { echo "$me: $mmu" >&2; exit 2; }
eval "$mmu"
modparams=$EMU_PARAMS${KMP_EMU_MODPARAMS:+${EMU_PARAMS:+ }$KMP_EMU_MODPARAMS}
[ -d "$bindir" ] || { echo "$me: no directory $bindir" >&2; exit 2; }
[ -r "$script" ] || { echo "$me: cannot read script $script" >&2; exit 2; }
"$src/scripts/emu/fetch.sh" "$arch" "$cache" "$series"
root=$cache/root
kver=$(sed 's/^linux-image-//' "$cache/kernel-package")
# Where the kernel came from (scripts/emu/kernel.sh writes it for files and trees).
origin=$(cat "$cache/kernel-origin" 2>/dev/null || echo "Debian $kver")

# A caller that keeps the image names its folder; boot.sh's is temporary.
if [ -z "${work:-}" ]; then
	work=$(mktemp -d "$cache/initramfs.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
ird=$work/root
mkdir -p "$ird"/{bin,dev,proc,sys,tmp,lib/kmp,lib/modules,kmp}
cp "$root/bin/busybox" "$ird/bin/busybox"
# /init prints nothing without a console node.
mknod -m 600 "$ird/dev/console" c 5 1
cp -r "$bindir"/. "$ird/kmp/"
cp "$script" "$ird/kmp-script"

# Shared libraries the binaries need: the sysroot and the cross libc, or the
# build host's own for a native build.
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
		echo "$me: $lib (needed by $(basename "$f")) not found in ${libdirs[*]}" >&2
		exit 1
	done
}
interp=
for f in "$ird"/kmp/*; do
	[ -f "$f" ] || continue
	add_needed "$f"
	# Scripts have no program headers: no interpreter to add.
	i=$(readelf -l "$f" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]/\1/p' || true)
	[ -n "$i" ] && interp=$i
done
if [ -n "$interp" ]; then
	mkdir -p "$ird$(dirname "$interp")"
	for d in "${libdirs[@]}" "$(dirname "$interp")"; do
		[ -e "$d/$(basename "$interp")" ] && { cp -L "$d/$(basename "$interp")" "$ird$interp"; break; }
	done
	[ -e "$ird$interp" ] || { echo "$me: program interpreter $interp not found" >&2; exit 1; }
fi

# KVM's modules, in load order, each with its parameters from KMP_EMU_MODPARAMS.
case "$arch" in
# kvm-amd needs ccp (SEV); irqbypass comes first.
x86_64) kmods="virt/lib/irqbypass drivers/crypto/ccp/ccp arch/x86/kvm/kvm arch/x86/kvm/kvm-amd" ;;
# Debian builds KVM-HV as modules; kvm.ko first.
powerpc) kmods="arch/powerpc/kvm/kvm arch/powerpc/kvm/kvm-hv" ;;
*) kmods= ;;	# arm64: KVM is built in
esac
# KVM built in (kernel.sh marks such a tree; Debian's arm64 always): nothing
# to load, so neither is what kvm-amd's module needs (ccp, irqbypass), and
# its parameters reach it only on the kernel command line.
cmdline_params=
if [ -z "$kmods" ] || [ -f "$cache/kvm-builtin" ] ||
	grep -qx "kernel/${kmods##* }.ko" "$root/lib/modules/$kver/modules.builtin" 2>/dev/null; then
	kmods=''
	cmdline_params=$modparams
fi
insmods=
for m in $kmods; do
	base=$(basename "$m")
	f=$root/lib/modules/$kver/kernel/$m.ko
	# 6.12 compresses its modules (a build tree may use zstd or gzip);
	# busybox insmod takes plain ones.
	if [ -e "$f" ]; then
		cp "$f" "$ird/lib/modules/"
	elif [ -e "$f.xz" ]; then
		xz -dc "$f.xz" > "$ird/lib/modules/$base.ko"
	elif [ -e "$f.zst" ]; then
		command -v zstd > /dev/null || { echo "$me: $f.zst needs zstd (apt-get install zstd)" >&2; exit 1; }
		zstd -qdc "$f.zst" > "$ird/lib/modules/$base.ko"
	elif [ -e "$f.gz" ]; then
		gzip -dc "$f.gz" > "$ird/lib/modules/$base.ko"
	elif grep -qx "kernel/$m.ko" "$root/lib/modules/$kver/modules.builtin" 2>/dev/null; then
		continue	# built in: nothing to load
	else
		echo "$me: $origin has no module $m and does not build it in" >&2
		exit 1
	fi
	params=
	for p in $modparams; do
		[ "${p%%.*}" = "${base//-/_}" ] && params="$params ${p#*.}"
	done
	insmods="$insmods
insmod /lib/modules/$base.ko$params || echo \"KMP-EMU: insmod $base$params failed\""
done
for p in ${kmods:+$modparams}; do
	case " ${kmods//-/_} " in
	*"/${p%%.*} "*) ;;
	*) echo "$me: KMP_EMU_MODPARAMS '$p' names no KVM module this host loads ($kmods)" >&2; exit 2 ;;
	esac
done

case "$arch" in
x86_64) emulated="QEMU TCG: qemu-system-x86_64 -accel ${KMP_EMU_ACCEL:-tcg,thread=single}${KMP_EMU_ICOUNT:+ -icount $KMP_EMU_ICOUNT} -cpu $EMU_CPU ($origin${modparams:+, $modparams})" ;;
arm64) emulated="QEMU TCG: qemu-system-aarch64 -M $EMU_MACHINE -cpu $EMU_CPU${KMP_EMU_ICOUNT:+ -icount $KMP_EMU_ICOUNT} ($origin)" ;;
powerpc) emulated="QEMU TCG: qemu-system-ppc64 -M $EMU_MACHINE${KMP_EMU_ICOUNT:+ -icount $KMP_EMU_ICOUNT} ($origin)" ;;
esac
cat > "$ird/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# Where the kernel tells its live preemption model (sched/preempt).
mount -t debugfs debugfs /sys/kernel/debug
$insmods
# No /dev/kvm (a module refused, a kernel without KVM): nothing can run.
if [ ! -c /dev/kvm ]; then
	echo KMP-EMU-NO-KVM
	dmesg | grep -i -E 'kvm|svm' | tail -n 5
	echo "KMP-EMU-EXIT 3"
	poweroff -f
fi
export PATH=/kmp:/bin LD_LIBRARY_PATH=/lib/kmp HOME=/tmp TMPDIR=/tmp
export KMP_REQUIRE_KVM=1 KMP_BIN=/kmp KMP_EMULATED_HOST="$emulated" KMP_EMULATED_MMU="$arch $EMU_MMU"
cd /kmp
# Errors and warnings reach the console live from here on (console level 5:
# KERN_WARNING is 4), so that a report is seen even when the host hangs and
# never prints its log below (a hung task, a lockup).  The boot before stays
# quiet (boot.sh's loglevel=3); a higher level (LAVA's boot) is kept.
[ "\$(cut -f1 /proc/sys/kernel/printk)" -ge 5 ] || echo 5 > /proc/sys/kernel/printk
# boot.sh's watchdog: the boot is over, the script starts.
echo KMP-EMU-START
sh /kmp-script
rc=\$?
# The kernel's whole log, last (console-reports.sh reads it): only the exit
# marker and poweroff follow it.  The console goes quiet first: a
# kernel line printed meanwhile would split these lines and the exit marker.
echo 1 > /proc/sys/kernel/printk
dmesg | sed "s/^/KMP-REC-DMESG /"
echo "KMP-EMU-EXIT \$rc"
poweroff -f
INIT
chmod +x "$ird/init"
# Byte for byte the same archive for the same files (times, order, inode
# numbers): under icount the boot's instruction count, and so where the timer
# ticks fall in the runs that follow, then repeat too.
(cd "$ird" && find . -exec touch -h -d @0 {} + && find . | LC_ALL=C sort |
	cpio -o -H newc --quiet --reproducible | gzip -1 -n) > "$work/initrd.gz"

# QEMU's command up to the kernel's; the kernel's command line in two parts:
# the console and init, and the host's parameters (boot.sh puts "quiet
# loglevel=3" between them; LAVA must see the boot, so its jobs do not).
case "$arch" in
x86_64)
	# One TCG thread: QEMU 7.2's multi-threaded TCG corrupted the emulated
	# host's kernel at static-key patch sites (docs/arches.md).  Two 1G
	# hugetlb pages are reserved at boot: after a few tests, a runtime
	# request for a gigantic page can fail on fragmentation (there is no CMA).
	qemu=(qemu-system-x86_64 -accel "${KMP_EMU_ACCEL:-tcg,thread=single}" -cpu "$EMU_CPU")
	kernel=$root/boot/vmlinuz-$kver console_args="console=ttyS0 rdinit=/init panic=-1"
	kernel_args="log_buf_len=4M hugepagesz=1G hugepages=2${cmdline_params:+ $cmdline_params}" ;;
arm64)
	qemu=(qemu-system-aarch64 -M "$EMU_MACHINE" -cpu "$EMU_CPU")
	kernel=$root/boot/vmlinuz-$kver console_args="console=ttyAMA0 rdinit=/init panic=-1"
	kernel_args="log_buf_len=4M${cmdline_params:+ $cmdline_params}" ;;
powerpc)
	qemu=(qemu-system-ppc64 -M "$EMU_MACHINE" -cpu "$EMU_CPU")
	kernel=$root/boot/vmlinux-$kver console_args="console=hvc0 rdinit=/init panic=-1"
	kernel_args="log_buf_len=4M${cmdline_params:+ $cmdline_params}" ;;
esac
# Under icount the run should repeat exactly: the emulated host's random
# numbers (RDRAND, and so KASLR and every seed) and its clock at boot come
# from fixed values rather than from this machine.
icount_args=()
if [ -n "${KMP_EMU_ICOUNT:-}" ]; then
	icount_args=(-icount "$KMP_EMU_ICOUNT" -seed 1 -rtc "base=2026-01-01T00:00:00,clock=vm")
fi
