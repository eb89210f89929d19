#!/bin/bash
# Download and unpack what an emulated KVM host needs: Debian's kernel for
# the target arch and busybox-static (and QEMU itself, when missing).  Cached in CACHE; a failed download
# fails loudly, naming the package, and never leaves a half-filled cache.
# Usage: scripts/emu/fetch.sh ARCH CACHE [SERIES]   (ARCH: x86_64, arm64 or powerpc)
# SERIES: "default" (Debian 12's current kernel, linux-image-<flavour>) or a
# kernel series Debian 12 carries a meta package for, such as 6.12
# (linux-image-6.12-<flavour>, from bookworm-security); or "busybox" for
# busybox-static alone (a kernel built from source needs nothing else).
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
default|busybox) meta=linux-image-$flavour ;;
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
# mid-sync, seen for days on bookworm-security's ppc64el) makes apt drop that
# suite, on a fresh machine for every arch.  Then read the suite from the
# mirror directly: its InRelease checked with gpgv against Debian's keyring,
# the native arch's index against the InRelease.  The foreign index is trusted
# only as far as that allows: the signed native index must name the same
# kernel version, and the .deb must match the foreign index's size and
# SHA256.  Prints "IMAGE FILENAME SIZE SHA256 REPO" for $meta, or fails.
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The index of ARCH in the signed release text REL_TEXT at REPO/dists/REL,
# uncompressed; fails unless its SHA256 is the one REL_TEXT names.
signed_index() {
	local repo=$1 rel=$2 rel_text=$3 arch=$4 want tmp
	want=$(printf '%s\n' "$rel_text" | awk -v f="main/binary-$arch/Packages.xz" '
		/^SHA256:/ {s=1; next} /^[^ ]/ {s=0} s && $3 == f {print $1; exit}')
	[ -n "$want" ] || return 1
	tmp=$(mktemp)
	curl -fsS --max-time 120 -o "$tmp" "${repo}dists/$rel/main/binary-$arch/Packages.xz" 2>/dev/null &&
		echo "$want  $tmp" | sha256sum -c --quiet - >/dev/null 2>&1 && xz -dc "$tmp"
	local rc=$?
	rm -f "$tmp"
	return $rc
}
# FIELD of package PKG in the index on stdin.
index_field() {
	awk -v p="$1" -v f="$2: " '$0 == "Package: " p {s=1} s && /^$/ {exit}
		s && index($0, f) == 1 {print substr($0, length(f) + 1); exit}'
}
mirror_index_entry() {
	local repo rel native_meta native_ver rel_text idx dep ver uri how fmt
	# shellcheck disable=SC2016	# apt's own $(FIELD) format, not the shell's
	fmt='$(REPO_URI) $(RELEASE)'
	command -v curl >/dev/null && command -v gpgv >/dev/null && [ -f "$keyring" ] || return 1
	native_meta=${meta%-"$flavour"}-$(dpkg --print-architecture | sed 's/ppc64el/powerpc64le/')
	while read -r repo rel; do
		rel_text=$(curl -fsS --max-time 120 "${repo}dists/$rel/InRelease" 2>/dev/null |
			gpgv --keyring "$keyring" --output - - 2>/dev/null) || continue
		native_ver=$(signed_index "$repo" "$rel" "$rel_text" "$(dpkg --print-architecture)" |
			index_field "$native_meta" Version) || true
		[ -n "$native_ver" ] || continue
		uri="${repo}dists/$rel/main/binary-$deb_arch/Packages.xz"
		how="does not match the gpgv-checked Release (mirror mid-sync?)"
		if idx=$(signed_index "$repo" "$rel" "$rel_text" "$deb_arch"); then
			how="matches the gpgv-checked Release"
		else
			idx=$(curl -fsS --max-time 120 "$uri" 2>/dev/null | xz -dc 2>/dev/null) || continue
		fi
		ver=$(printf '%s\n' "$idx" | index_field "$meta" Version)
		dep=$(printf '%s\n' "$idx" | index_field "$meta" Depends | sed 's/[ ,(].*//')
		[ -n "$dep" ] || continue
		if [ "$ver" != "$native_ver" ]; then
			echo "  NOTE    $uri: $meta $ver, but the signed $native_meta is $native_ver: not used" >&2
			continue
		fi
		echo "$dep $(printf '%s\n' "$idx" | index_field "$dep" Filename)" \
			"$(printf '%s\n' "$idx" | index_field "$dep" Size)" \
			"$(printf '%s\n' "$idx" | index_field "$dep" SHA256) $repo"
		echo "  NOTE    apt has no index for $meta; $uri $how;" \
			"$dep taken from it: same version as the signed $native_meta, .deb size and SHA256 checked" >&2
		return 0
	done < <(apt-get indextargets --no-release-info --format "$fmt" "Created-By: Packages" | sort -u)
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

if [ "$series" = busybox ]; then
	rm -rf "$cache"
	mkdir -p "$cache/debs" "$cache/root"
	echo "  FETCH   busybox-static:$deb_arch"
	(cd "$cache/debs" && apt-get download -q "busybox-static:$deb_arch" > /dev/null 2>&1) ||
		fail "busybox-static:$deb_arch" "apt-get download failed; check the network and apt sources"
	dpkg-deb -x "$cache"/debs/*.deb "$cache/root"
	rm -rf "$cache/debs"
	touch "$cache/.complete"
	exit 0
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
unsynced=
if [ -z "$image" ] && [ -z "${KMP_EMU_KERNEL_PKG:-}" ]; then
	unsynced=$(mirror_index_entry) && image=${unsynced%% *}
fi
[ -n "$image" ] || fail "$meta:$deb_arch" "neither apt nor the mirror's signed index names a kernel image for it"
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
	(cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) && continue
	# Not in apt's index at all is not the network's fault: say so, with close names.
	if ! apt-cache show "$pkg" > /dev/null 2>&1; then
		close=$(apt-cache pkgnames linux-image- 2>/dev/null | python3 -c 'import difflib, sys
print(" ".join(difflib.get_close_matches(sys.argv[1], sys.stdin.read().split(), 5, 0.8)))' "${pkg%:*}")
		fail "$pkg" "no such package in apt's index${close:+; close names: $close}"
	fi
	fail "$pkg" "apt-get download failed; check the network and apt sources"
done
for d in "$cache"/debs/*.deb; do
	dpkg-deb -x "$d" "$cache/root"
done
rm -rf "$cache/debs"
echo "$image" > "$cache/kernel-package"
touch "$cache/.complete"
