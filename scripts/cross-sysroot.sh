#!/bin/sh
# Fetch the target-arch libraries a cross build links against (libaio,
# libhwloc, libjansson, libtracefs, libtraceevent and what they need at run time),
# and the programs run.sh needs beyond busybox in an emulated host of that
# arch (bash, setpriv, timeout: `run.sh ab`), from Debian's archive and
# unpack them into a private sysroot.  The host's own packages are
# untouched: only `apt-get download` and `dpkg-deb -x` are used.
# Usage: scripts/cross-sysroot.sh DEB_ARCH SYSROOT
set -eu
DEB_ARCH=$1
SYSROOT=$2
PKGS="libaio-dev libaio1 libhwloc-dev libhwloc15 libudev1 libjansson-dev libjansson4 \
libtracefs-dev libtracefs1 libtraceevent-dev libtraceevent1 \
bash libtinfo6 util-linux libcap-ng0 coreutils"

# The stamp holds the package list: a sysroot made for another list is remade.
[ "$(cat "$SYSROOT/.complete" 2>/dev/null)" = "$PKGS" ] && exit 0
if ! dpkg --print-foreign-architectures | grep -qx "$DEB_ARCH"; then
	if [ "$(id -u)" != 0 ]; then
		echo "cross-sysroot: $DEB_ARCH packages need 'dpkg --add-architecture $DEB_ARCH && apt-get update' (as root)" >&2
		exit 1
	fi
	echo "  DEPS    dpkg --add-architecture $DEB_ARCH && apt-get update"
	dpkg --add-architecture "$DEB_ARCH"
	# A foreign-arch index mid-sync can fail the update; the download below says if it mattered.
	apt-get update -q >/dev/null 2>&1 || true
fi
debs="$SYSROOT.debs"
rm -rf "$debs" "$SYSROOT"
mkdir -p "$debs" "$SYSROOT"
# _apt cannot write into root-owned build directories; that warning is harmless.
for p in $PKGS; do
	if ! (cd "$debs" && apt-get download -q "$p:$DEB_ARCH" >/dev/null 2>&1); then
		echo "cross-sysroot: FAILED to download Debian package $p:$DEB_ARCH" >&2
		exit 1
	fi
done
for d in "$debs"/*.deb; do
	dpkg-deb -x "$d" "$SYSROOT"
done
rm -rf "$debs"
echo "$PKGS" > "$SYSROOT/.complete"
echo "  SYSROOT $SYSROOT ($DEB_ARCH: $PKGS)"
