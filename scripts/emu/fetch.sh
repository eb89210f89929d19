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
# A foreign arch's index that does not match its signed Release (a mirror
# mid-sync, seen for days on bookworm-security's ppc64el) leaves apt without
# that index.  Then read it from the mirror directly and trust it only as far
# as can be checked: the native arch's signed index must name the same kernel
# version, and the .deb must match the index's size and SHA256.  Prints
# "IMAGE FILENAME SIZE SHA256 REPO" for $meta, or fails.
unsynced_index_entry() {
	local native_meta repo rel uri idx dep ver native_ver fmt
	case "$(dpkg --print-architecture)" in
	amd64) native_meta=${meta%-"$flavour"}-amd64 ;;
	arm64) native_meta=${meta%-"$flavour"}-arm64 ;;
	*) return 1 ;;
	esac
	native_ver=$(apt-cache show "$native_meta" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	[ -n "$native_ver" ] || return 1
	command -v curl > /dev/null || return 1
	# shellcheck disable=SC2016	# apt's own $(FIELD) format, not the shell's
	fmt='$(REPO_URI) $(RELEASE)'
	while read -r repo rel; do
		uri="${repo}dists/$rel/main/binary-$deb_arch/Packages.xz"
		idx=$(curl -fsS --max-time 120 "$uri" 2>/dev/null | xz -dc 2>/dev/null) || continue
		ver=$(printf '%s\n' "$idx" | awk -v p="$meta" '$0 == "Package: " p {f=1} f && /^Version: / {print $2; exit}')
		dep=$(printf '%s\n' "$idx" | awk -v p="$meta" '$0 == "Package: " p {f=1} f && /^Depends: / {print $2; exit}')
		[ -n "$dep" ] || continue
		if [ "$ver" != "$native_ver" ]; then
			echo "  NOTE    $uri: $meta $ver, but the signed $native_meta is $native_ver: not used" >&2
			continue
		fi
		printf '%s\n' "$idx" | awk -v p="$dep" -v r="$repo" '
			$0 == "Package: " p {f=1} f && /^Filename: / {fn=$2} f && /^Size: / {sz=$2}
			f && /^SHA256: / {print p, fn, sz, $2, r; exit}'
		echo "  NOTE    $uri does not match its signed Release (mirror mid-sync);" \
			"$dep taken from it: same version as the signed $native_meta, .deb size and SHA256 checked" >&2
		return 0
	done < <(apt-get indextargets --format "$fmt" "Created-By: Packages" \
		"Architecture: $(dpkg --print-architecture)" | sort -u)
	return 1
}

# Download IMAGE from REPO's FILENAME into $cache/debs and check it.
fetch_checked() {
	local image=$1 filename=$2 size=$3 sha=$4 repo=$5 deb
	deb=$cache/debs/${filename##*/}
	echo "  FETCH   $image:$deb_arch (${repo}$filename)"
	curl -fsS --max-time 1800 -o "$deb" "${repo}$filename" ||
		fail "$image" "curl ${repo}$filename failed; check the network"
	if [ "$(stat -c %s "$deb")" != "$size" ] || ! echo "$sha  $deb" | sha256sum -c --quiet - > /dev/null 2>&1; then
		fail "$image" "${filename##*/} does not match the index's size $size and SHA256 $sha"
	fi
}

# The meta package names the current kernel image package (apt-cache fails
# for an unknown one: that is the error below, not set -e's).
image=$(apt-cache depends "$meta:$deb_arch" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1 || true)
if [ -z "$image" ]; then
	apt-get update -q >/dev/null 2>&1 || true
	image=$(apt-cache depends "$meta:$deb_arch" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1 || true)
fi
unsynced=
if [ -z "$image" ] && [ -z "${KMP_EMU_KERNEL_PKG:-}" ]; then
	unsynced=$(unsynced_index_entry) && image=${unsynced%% *}
fi
[ -n "$image" ] || fail "$meta:$deb_arch" "apt-cache names no kernel image for it"
image=${KMP_EMU_KERNEL_PKG:-$image}

rm -rf "$cache"
mkdir -p "$cache/debs" "$cache/root"
pkgs=("$image:$deb_arch" "busybox-static:$deb_arch")
if [ -n "$unsynced" ]; then
	read -ra entry <<< "$unsynced"
	fetch_checked "${entry[@]}"
	pkgs=("busybox-static:$deb_arch")
fi
for pkg in "${pkgs[@]}"; do
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
