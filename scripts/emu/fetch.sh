#!/bin/bash
# Download and unpack what an emulated KVM host needs: Debian's kernel for
# the target arch and busybox-static (and QEMU itself, when missing).  Cached in CACHE; a failed download
# fails loudly, naming the package, and never leaves a half-filled cache.
# Usage: scripts/emu/fetch.sh ARCH CACHE [SERIES]   (ARCH: x86_64, arm64 or powerpc)
# SERIES: "default" (Debian 12's current kernel, linux-image-<flavour>) or a
# kernel series Debian 12 carries a meta package for, such as 6.12
# (linux-image-6.12-<flavour>, from bookworm-security).
# Prints nothing on success but progress; the caller reads CACHE/root.
# KMP_EMU_KERNEL_PKG names a kernel image package instead of the series' current one.
set -euo pipefail
arch=$1 cache=$2 series=${3:-default}
case "$arch" in
x86_64) deb_arch=amd64 flavour=amd64 qemu=qemu-system-x86_64 qemu_pkg=qemu-system-x86 ;;
arm64) deb_arch=arm64 flavour=arm64 qemu=qemu-system-aarch64 qemu_pkg=qemu-system-arm ;;
powerpc) deb_arch=ppc64el flavour=powerpc64le qemu=qemu-system-ppc64 qemu_pkg=qemu-system-ppc ;;
*) echo "emu/fetch.sh: unsupported ARCH '$arch' (x86_64, arm64 or powerpc)" >&2; exit 2 ;;
esac
case "$series" in
default) meta=linux-image-$flavour ;;
[0-9]*.[0-9]*) meta=linux-image-$series-$flavour ;;
*) echo "emu/fetch.sh: kernel series '$series' is not 'default' or a version such as 6.12" >&2; exit 2 ;;
esac

# The build host's tools: QEMU (without its ~56 recommended GUI packages) and cpio.
missing=
command -v "$qemu" >/dev/null || missing="$missing $qemu_pkg"
command -v cpio >/dev/null || missing="$missing cpio"
command -v xz >/dev/null || missing="$missing xz-utils"	# 6.12's modules are .ko.xz
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "emulated $arch host needs:$missing; install with: sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
	echo "  DEPS    apt-get install --no-install-recommends$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		{ echo "emu/fetch.sh: FAILED to install$missing" >&2; exit 1; }
fi

[ -f "$cache/.complete" ] && exit 0

fail() {
	rm -rf "$cache"		# never half a cache: the next run starts over
	echo "################################################################" >&2
	echo "## emulated $arch host: FAILED to fetch Debian package $1" >&2
	echo "## ($2)" >&2
	echo "################################################################" >&2
	exit 1
}

if [ "$deb_arch" != "$(dpkg --print-architecture)" ] &&
   ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
	[ "$(id -u)" = 0 ] || fail "$meta:$deb_arch" "needs root for dpkg --add-architecture $deb_arch"
	dpkg --add-architecture "$deb_arch"
	apt-get update -q >/dev/null 2>&1 || true	# a foreign index mid-sync is not fatal
fi
# The meta package names the current kernel image package (apt-cache fails
# for an unknown one: that is the error below, not set -e's).
image=$(apt-cache depends "$meta:$deb_arch" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1 || true)
if [ -z "$image" ]; then
	apt-get update -q >/dev/null 2>&1 || true
	image=$(apt-cache depends "$meta:$deb_arch" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1 || true)
fi
[ -n "$image" ] || fail "$meta:$deb_arch" "apt-cache names no kernel image for it"
image=${KMP_EMU_KERNEL_PKG:-$image}

rm -rf "$cache"
mkdir -p "$cache/debs" "$cache/root"
for pkg in "$image:$deb_arch" "busybox-static:$deb_arch"; do
	echo "  FETCH   $pkg"
	# _apt cannot write into root-owned build directories; that warning is harmless.
	(cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
		fail "$pkg" "apt-get download failed; check the network and apt sources"
done
for d in "$cache"/debs/*.deb; do
	dpkg-deb -x "$d" "$cache/root"
done
rm -rf "$cache/debs"
echo "$image" > "$cache/kernel-package"
touch "$cache/.complete"
