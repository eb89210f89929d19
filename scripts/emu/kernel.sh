#!/bin/bash
# Make the cache an emulated KVM host boots from (boot.sh's layout:
# root/boot/vmlinuz-KVER, root/lib/modules/KVER, root/bin/busybox,
# kernel-package, kernel-origin) for one kernel of `run.sh ab`, and print
# its path.
# Usage: scripts/emu/kernel.sh ARCH SPEC CACHE_PARENT [--patch FILE]... [--config FRAGMENT]... [--check]
# (--check: a source's patches are tried, and nothing is built)
# SPEC is one of:
#   linux-source-6.12            a Debian source package, or
#   path/to/source               an unbuilt kernel source tree: built first by
#                                kernel-build.sh (with the patches and config
#                                fragments), then booted as a TREE below;
#   linux-image-6.1.0-57-amd64   a Debian package, downloaded with apt;
#   6.12, default                a Debian 12 kernel series, its current image
#                                (default: Debian 12's own), as make check-ARCH
#                                boots it (scripts/emu/fetch.sh);
#   path/to/linux-image-*.deb    a package file;
#   TREE[:MODPATH]               a kernel build tree (its image: x86_64
#                                arch/x86/boot/bzImage, arm64 arch/arm64/boot/Image,
#                                powerpc vmlinux), its modules from `make
#                                modules_install INSTALL_MOD_PATH=MODPATH` (default
#                                TREE), or none where KVM is built in
#                                (CONFIG_KVM_AMD=y, arm64's CONFIG_KVM=y,
#                                CONFIG_KVM_BOOK3S_64_HV=y).
# Errors are one line naming SPEC, exit 2 (bad SPEC) or 1 (a failed fetch).
set -euo pipefail
arch=$1 spec=$2 parent=$3
shift 3
src=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "run.sh ab: --kernel '$spec': $*" >&2; exit 2; }
# Per arch: the image in a build tree and its name in boot/ (boot.sh's
# -kernel), the module that makes the host a KVM host, and the config line
# that builds it in instead.
case "$arch" in
x86_64) image=arch/x86/boot/bzImage boot=vmlinuz kvm_mod=arch/x86/kvm/kvm-amd builtin_cfg=CONFIG_KVM_AMD=y ;;
arm64) image=arch/arm64/boot/Image boot=vmlinuz kvm_mod='' builtin_cfg=CONFIG_KVM=y ;;
powerpc) image=vmlinux boot=vmlinux kvm_mod=arch/powerpc/kvm/kvm-hv builtin_cfg=CONFIG_KVM_BOOK3S_64_HV=y ;;
*) die "kernels for an emulated $arch host are not supported (x86_64, arm64 or powerpc)" ;;
esac
mkdir -p "$parent"
parent=$(cd "$parent" && pwd)

# A source is built first; what it builds is a TREE.
# A path (it has a /) without a built image, and not a package file, is a
# source; kernel-build.sh says what is wrong with it when it is not a
# kernel source tree.
srcdir=${spec%%:*}
if [[ $spec == linux-source-* ]] || { [[ $spec == */* && $spec != *.deb ]] && [ ! -f "$srcdir/$image" ]; }; then
	spec=$("$src/scripts/emu/kernel-build.sh" "$arch" "$spec" "$parent" "$@") || exit $?
	[[ " $* " == *" --check "* ]] && exit 0	# the patches apply: nothing more asked
elif [ $# -gt 0 ]; then
	die "${1#--} given, but this is a package or a built tree, with no source to patch or configure (give linux-source-X.Y or a source tree)"
fi

# busybox-static: make check-ARCH's cache has it beside Debian's default
# kernel; otherwise it is fetched alone.
busybox_from_base() {
	local base=$src/build/$arch/emu
	[ -x "$base/root/bin/busybox" ] || {
		base=$src/build/$arch/busybox
		"$src/scripts/emu/fetch.sh" "$arch" "$base" busybox >&2
	}
	mkdir -p "$1/root/bin"
	cp "$base/root/bin/busybox" "$1/root/bin/busybox"
}

# A kernel built without BUG() support (tinyconfig's default) runs WARN_ON()
# silently: its console could never show a report (console-reports.sh).
reports_or_die() {	# reports_or_die CONFIG_FILE
	grep -qx 'CONFIG_BUG=y' "$1" 2> /dev/null ||
		die "its config ($1) has no CONFIG_BUG=y: WARN_ON() and BUG() would print nothing, so its kernel reports could not be checked"
}

case "$spec" in
default|[0-9].[0-9]|[0-9].[0-9][0-9])
	cache=$src/build/$arch/emu$([ "$spec" = default ] || echo "-$spec")
	"$src/scripts/emu/fetch.sh" "$arch" "$cache" "$spec" >&2 || exit 1 ;;
*.deb)
	[ -f "$spec" ] || die "no such package file"
	pkg=$(dpkg-deb -f "$spec" Package 2>/dev/null) || die "not a Debian package file"
	[[ $pkg == linux-image-[0-9]* ]] || die "holds package '$pkg', not a linux-image-<version> one"
	cache=$parent/file-$(sha256sum "$spec" | cut -c1-12)-$pkg
	if [ ! -f "$cache/.complete" ]; then
		rm -rf "$cache"
		mkdir -p "$cache/root"
		dpkg-deb -x "$spec" "$cache/root" || { rm -rf "$cache"; die "dpkg-deb -x failed"; }
		busybox_from_base "$cache"
		echo "$pkg" > "$cache/kernel-package"
		echo "package file $(basename "$spec")" > "$cache/kernel-origin"
		touch "$cache/.complete"
	fi ;;
linux-image-*)
	[[ $spec =~ ^linux-image-[0-9][A-Za-z0-9.+~-]*$ ]] ||
		die "not a kernel image package name (linux-image-<version>-<flavour>)"
	cache=$parent/$spec
	# make check-ARCH's caches may hold it already.
	for d in "$src/build/$arch"/emu "$src/build/$arch"/emu-*; do
		[ -f "$d/.complete" ] && [ "$(cat "$d/kernel-package")" = "$spec" ] && { cache=$d; break; }
	done
	# fetch.sh fails loudly, naming the package, when apt cannot get it.
	KMP_EMU_KERNEL_PKG=$spec "$src/scripts/emu/fetch.sh" "$arch" "$cache" default >&2 || exit 1 ;;
*)
	tree=${spec%%:*}
	modpath=$tree
	[[ $spec == *:* ]] && modpath=${spec#*:}
	[ -d "$tree" ] || die "not a Debian package (linux-image-...), a .deb file or a kernel build tree"
	tree=$(cd "$tree" && pwd)
	bz=$tree/$image
	[ -f "$bz" ] || die "$tree has no $image: build the kernel there first (make $(basename "$image"))"
	reports_or_die "$tree/.config"
	builtin=0
	# arm64's KVM cannot be a module.
	[ -z "$kvm_mod" ] && builtin=1
	grep -qx "$builtin_cfg" "$tree/.config" 2>/dev/null && builtin=1
	mods=()
	[ -d "$modpath/lib/modules" ] && mapfile -t mods < <(find "$modpath/lib/modules" -mindepth 1 -maxdepth 1 -type d)
	if [ "${#mods[@]}" -gt 1 ]; then
		die "$modpath/lib/modules holds ${#mods[@]} kernel versions: give MODPATH of one (TREE:MODPATH)"
	elif [ "${#mods[@]}" = 1 ]; then
		kver=$(basename "${mods[0]}")
		if [ $builtin = 0 ] && ! compgen -G "${mods[0]}/kernel/$kvm_mod.ko*" > /dev/null; then
			die "${mods[0]} has no $(basename "$kvm_mod") module and $tree/.config does not build it in"
		fi
	elif [ $builtin = 1 ]; then
		kver=$(cat "$tree/include/config/kernel.release" 2>/dev/null) ||
			die "$tree has no include/config/kernel.release: is the build complete?"
	else
		die "$tree builds KVM as modules but $modpath/lib/modules has none: run make modules_install INSTALL_MOD_PATH=$modpath (or give TREE:MODPATH)"
	fi
	# A tree changes between builds: made afresh every time.  boot.sh
	# picks the modules KVM needs from the installed ones, linked here.
	cache=$parent/tree-$(echo "$tree:$modpath" | sha256sum | cut -c1-12)
	rm -rf "$cache"
	mkdir -p "$cache/root/boot" "$cache/root/lib/modules"
	cp "$bz" "$cache/root/boot/$boot-$kver"
	if [ "${#mods[@]}" = 1 ]; then
		ln -s "$(cd "${mods[0]}" && pwd)" "$cache/root/lib/modules/$kver"
	else
		# All built in: the tree's list of them tells boot.sh to load none.
		mkdir "$cache/root/lib/modules/$kver"
		[ -f "$tree/modules.builtin" ] && cp "$tree/modules.builtin" "$cache/root/lib/modules/$kver/"
	fi
	busybox_from_base "$cache"
	echo "linux-image-$kver" > "$cache/kernel-package"
	[ $builtin = 1 ] && touch "$cache/kvm-builtin"	# boot.sh: parameters on the command line
	if [ -f "$tree/kmp-provenance" ]; then	# built by kernel-build.sh: what it was built from
		cp "$tree/kmp-provenance" "$cache/kernel-provenance"
		# One line, into each record's host.emulated: no ( ) or , (compare parses it).
		{
			printf 'built from %s' "$(sed -n 's/^source: //p' "$tree/kmp-provenance")"
			sed -n 's/^patch: \([^ ]*\) \(.*\)/ + patch \1 sha256 \2/p' "$tree/kmp-provenance" | tr -d '\n'
			printf '; config sha256 %s\n' "$(sed -n 's/^config: //p' "$tree/kmp-provenance")"
		} | tr -d '(),' > "$cache/kernel-origin"
	else
		echo "build tree $tree" > "$cache/kernel-origin"
	fi
	touch "$cache/.complete" ;;
esac
# A package's kernel is checked as its tree's is.
[ -n "${tree:-}" ] || reports_or_die "$(compgen -G "$cache/root/boot/config-*" | head -1 || echo "$cache/root/boot/config-*")"
echo "$cache"
