#!/bin/bash
# Build a KVM host kernel from source for `run.sh ab`, out of tree, into a
# cache keyed by everything that changes the image; print the build folder
# (a TREE for scripts/emu/kernel.sh).
# Usage: scripts/emu/kernel-build.sh ARCH SOURCE CACHE_PARENT [--patch FILE]... [--config FRAGMENT]... [--check]
# (--check: unpack the source and try the patches; build nothing)
# SOURCE: a Debian source package by name (linux-source-6.12, linux-source-6.1),
# installed with apt; or a path (it has a /) to an unbuilt kernel source tree.
# The source is never written to.  Patches (git format-patch, a b4 mbox, or
# a plain diff) go on a copy, and must all apply before anything builds.
# Exit: 0 built (or found in the cache); 1 the build failed; 2 bad input.
# Nothing half-built is ever left where a later run would take it as complete.
set -euo pipefail
arch=$1 source=$2 parent=$3
shift 3
# Absolute: make's O= and ccache's base_dir take no relative path.
mkdir -p "$parent"
parent=$(cd "$parent" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
patches=() fragments=() check_only=0
die() { echo "run.sh ab: --kernel '$source': $*" >&2; exit 2; }
readable() { [ -f "$1" ] && [ -r "$1" ]; }
while [ $# -gt 0 ]; do
	case $1 in
	--patch) readable "${2:-}" || { echo "run.sh ab: --patch '${2:-}': no such readable file" >&2; exit 2; }
		patches+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
	--check) check_only=1; shift ;;
	--config) readable "${2:-}" || { echo "run.sh ab: --config '${2:-}': no such readable file" >&2; exit 2; }
		fragments+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
	*) echo "kernel-build.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $arch in
x86_64) karch=x86 target=bzImage image=arch/x86/boot/bzImage cross= ;;
arm64) karch=arm64 target=Image image=arch/arm64/boot/Image cross=aarch64-linux-gnu- ;;
powerpc) karch=powerpc target=vmlinux image=vmlinux cross=powerpc64le-linux-gnu- ;;
*) die "a kernel for an emulated $arch host cannot be built (x86_64, arm64 or powerpc)" ;;
esac
# Progress lines say how long this build has run, and how long the whole
# command has (KMP_BUILD_START: run.sh's start, in epoch seconds, so that a
# pair's second build goes on counting from the first's).
start=$SECONDS
t0=${KMP_BUILD_START:-$(date +%s)}
[[ $t0 =~ ^[0-9]+$ ]] || t0=$(date +%s)
phase() {
	printf 'kernel-build: [this build %3ds, in all %3ds] %s\n' $((SECONDS - start)) \
		$(($(date +%s) - t0)) "$*" >&2
}

# The source: a package is unpacked once into the cache; a tree is checked.
case $source in
*/*)
	[ -d "$source" ] || die "no such folder"
	tree=$(cd "$source" && pwd)
	if ! [ -f "$tree/Makefile" ] || ! [ -f "$tree/Kconfig" ] || ! [ -d "$tree/arch/$karch" ]; then
		die "not a kernel source tree (no Makefile, Kconfig and arch/$karch)"
	fi
	if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ]; then
		die "the tree was built in place (it has .config or include/config), and a built tree takes no out-of-tree build; give an unbuilt copy (it is not cleaned here)"
	fi
	# Its identity: the commit and any local change, or every file's hash.
	if git -C "$tree" rev-parse --verify -q HEAD > /dev/null 2>&1; then
		ident="git $(git -C "$tree" rev-parse HEAD) $(git -C "$tree" diff HEAD | sha256sum | cut -c1-16)"
	else
		phase "hashing the source tree (no git)"
		ident="tree $(cd "$tree" && find . -type f ! -path './.git/*' -print0 | LC_ALL=C sort -z |
			xargs -0 sha256sum | sha256sum | cut -c1-16)"
	fi ;;
linux-source-[0-9]*)
	[[ $source =~ ^linux-source-[0-9]+\.[0-9]+$ ]] || die "not a source package name (linux-source-<major>.<minor>)"
	tarball=/usr/src/$source.tar.xz
	if [ ! -f "$tarball" ]; then
		phase "installing $source with apt"
		apt-get install -y --no-install-recommends "$source" > /dev/null 2>&1 ||
			{ echo "run.sh ab: --kernel '$source': apt-get install $source failed" >&2; exit 1; }
	fi
	ident="package $source $(dpkg-query -W -f='${Version}' "$source")"
	tree=$parent/src-$source-$(dpkg-query -W -f='${Version}' "$source")
	if [ ! -f "$tree/.complete" ]; then
		phase "unpacking $tarball"
		rm -rf "$tree" "$tree.tmp"
		mkdir -p "$tree.tmp"
		tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1 ||
			{ rm -rf "$tree.tmp"; echo "run.sh ab: cannot unpack $tarball" >&2; exit 1; }
		touch "$tree.tmp/.complete"
		mv "$tree.tmp" "$tree"
	fi ;;
*) die "not a source package (linux-source-X.Y) or a source tree path (with a /)" ;;
esac

# The build host's tools, installed as the emulated hosts' packages are
# (before the key, which names the compiler's version).
need=()
for t in flex:flex bison:bison bc:bc ccache:ccache "${cross}gcc:gcc-${cross%-}" xz:xz-utils; do
	command -v "${t%%:*}" > /dev/null || need+=("${t#*:}")
done
[ -e /usr/include/libelf.h ] || need+=(libelf-dev)
[ -e /usr/include/openssl/ssl.h ] || need+=(libssl-dev)
if [ ${#need[@]} -gt 0 ]; then
	phase "installing ${need[*]}"
	apt-get install -y --no-install-recommends "${need[@]}" > /dev/null ||
		{ echo "run.sh ab: cannot install ${need[*]} (apt-get install failed)" >&2; exit 1; }
fi

# The key: source, patches, fragments and compiler.  The same inputs build
# nothing.  A patch counts from its first "--- " line: its header (the
# description patch(1) skips) can be edited without a rebuild.
frag_list=("$src/configs/config" "$src/configs/kernel/host.config" "$src/configs/kernel/$arch.config" ${fragments[@]+"${fragments[@]}"})
key=$( {
	echo "$arch $ident"
	for p in ${patches[@]+"${patches[@]}"}; do sed -n '/^--- /,$p' "$p" | sha256sum; done
	echo fragments; cat "${frag_list[@]}"
	"${cross}gcc" --version | head -1
} | sha256sum | cut -c1-16)
out=$parent/build-$key
if [ -f "$out/.complete" ]; then
	phase "cached: $out (same source, patches, config and compiler)"
	echo "$out/tree"
	exit 0
fi
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
log=$out.tmp/build.log
: > "$log"
fail() {	# fail STATUS MESSAGE: the log's end, and nothing left to be taken as built
	echo "run.sh ab: $2" >&2
	# The first errors (make -j goes on with other jobs after one), then the end.
	{ grep -m 3 -E '(error|Error):? ' "$log" | grep -v '^make' | sed 's/^/  | /' >&2; } || true
	echo "  | ..." >&2
	tail -n 12 "$log" | sed 's/^/  | /' >&2
	rm -rf "$parent/failed-$key"
	mv "$out.tmp" "$parent/failed-$key"
	echo "run.sh ab: the whole log: $parent/failed-$key/build.log" >&2
	exit "$1"
}

# Every build is of a copy beside its objects (hard links: patch replaces the
# files it changes, so the source's own files are never written).  The same
# layout for every build, and ccache's base_dir, make the compiler's paths
# the same relative ones: a patched build reuses what the unpatched one compiled.
work=$out.tmp/src
# (another filesystem takes no hard links: then a real copy)
cp -al "$tree" "$work" 2> /dev/null || { rm -rf "$work"; cp -a "$tree" "$work"; }
rm -f "$work/.complete"
export CCACHE_BASEDIR=$out.tmp
if [ ${#patches[@]} -gt 0 ]; then
	phase "checking ${#patches[@]} patch(es) on a copy of the source"
	for p in "${patches[@]}"; do
		if ! msg=$(patch -d "$work" -p1 --dry-run -N < "$p" 2>&1); then
			# "checking file F" then "Hunk #N FAILED at L.": name both.
			hunk=$(awk '/^(checking|patching) file /{f=$3} /Hunk #[0-9]+ FAILED/{sub(/\.$/, "", $5)
				print "hunk " $2 " of " f " FAILED at line " $5; exit}
				/can.t find file|malformed|Reversed/{print; exit}' <<< "$msg")
			rm -rf "$out.tmp"
			echo "run.sh ab: --patch '$p' does not apply to $source: ${hunk:-$(head -1 <<< "$msg")}" >&2
			exit 2
		fi
		patch -d "$work" -p1 -N -s --no-backup-if-mismatch < "$p" >> "$log" 2>&1 ||
			fail 2 "--patch '$p' failed to apply"
	done
fi
if [ $check_only = 1 ]; then	# --check: the patches apply; build nothing
	rm -rf "$out.tmp"
	exit 0
fi

mk() { nice -n 10 make -C "$work" O="$out.tmp/obj" ARCH=$karch ${cross:+CROSS_COMPILE=$cross} \
	CC="ccache ${cross}gcc" -j"$(nproc)" "$@" >> "$log" 2>&1; }
phase "configuring: tinyconfig + ${#frag_list[@]} fragment(s) (log: $log)"
mk tinyconfig || fail 1 "make tinyconfig failed"
"$work/scripts/kconfig/merge_config.sh" -m -O "$out.tmp/obj" "$out.tmp/obj/.config" "${frag_list[@]}" >> "$log" 2>&1 ||
	fail 2 "merging the config fragments failed"
mk olddefconfig || fail 1 "make olddefconfig failed"
# Kconfig drops an option whose dependencies are missing, silently: name each.
# A later fragment overrides an earlier one (merge_config.sh), so each option
# is checked at the last value the fragments give it.
dropped=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$out.tmp/obj/.config" || dropped+=("$line") ;;
	"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=[ym]" "$out.tmp/obj/.config" || dropped+=("$line") ;;
	esac
done < <(cat "${frag_list[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { o = $2 }
	o != "" { if (!(o in last)) order[n++] = o; last[o] = $0; o = "" }
	END { for (i = 0; i < n; i++) print last[order[i]] }')
if [ ${#dropped[@]} -gt 0 ]; then
	rm -rf "$out.tmp"
	echo "run.sh ab: the config fragments ask for options Kconfig did not set (missing dependencies, or not in this source): ${dropped[*]}" >&2
	exit 2
fi
phase "building $target with ${cross}gcc through ccache, -j$(nproc), nice 10"
# A cold build takes many minutes: say once a minute how far it got (the
# loop ends with this script, whichever way it ends; its sleep holds no
# pipe of the caller's open).
while sleep 60 > /dev/null 2>&1 && kill -0 $$ 2>/dev/null; do
	phase "building: $(grep -c '^  CC ' "$log") files compiled so far"
done > /dev/null &
ticker=$!
rc=0
mk "$target" || rc=$?
kill "$ticker" 2>/dev/null || true
[ $rc = 0 ] || fail 1 "the kernel build failed"
phase "built $image"
cfg_hash=$(sha256sum < "$out.tmp/obj/.config" | cut -c1-64)
{
	echo "source: $ident"
	for p in ${patches[@]+"${patches[@]}"}; do echo "patch: $(basename "$p") $(sha256sum < "$p" | cut -c1-64)"; done
	echo "config: $cfg_hash"
	echo "compiler: $("${cross}gcc" --version | head -1)"
} > "$out.tmp/obj/kmp-provenance"
rm -rf "$out.tmp/src"		# the copy: links, or the user's own files again
mv "$out.tmp/obj" "$out.tmp/tree"
mv "$log" "$out.tmp/tree/build.log"
touch "$out.tmp/.complete"
mv "$out.tmp" "$out"
echo "$out/tree"
