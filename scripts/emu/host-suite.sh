#!/bin/bash
# The suite as an emulated ARCH KVM host runs it, into DIR (boot.sh's
# BIN_DIR, /kmp on the host): ARCH's build (build/ARCH/bin), run.sh and its
# configs, and bash, setpriv and timeout (busybox lacks what run.sh uses of
# them): the build host's own for x86_64, Debian's for ARCH from the cross
# sysroot (scripts/cross-sysroot.sh) otherwise.
# Usage: scripts/emu/host-suite.sh ARCH DIR
# Env: KMP_EMU_SYSROOT (default build/ARCH/sysroot).
set -euo pipefail
arch=$1 dir=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir/configs"
cp "$src/build/$arch"/bin/* "$dir/"
cp "$src/run.sh" "$dir/"
cp "$src"/configs/*.cfg "$dir/configs/"
sysroot=${KMP_EMU_SYSROOT:-$src/build/$arch/sysroot}
for t in bash setpriv timeout; do
	if [ "$arch" = x86_64 ]; then
		f=$(command -v "$t")
	else
		f=$sysroot/usr/bin/$t
		[ -e "$f" ] || f=$sysroot/bin/$t
		[ -e "$f" ] || { echo "emu/host-suite.sh: no $arch $t in $sysroot: run 'make ARCH=$arch' first (it makes the sysroot)" >&2; exit 1; }
	fi
	cp "$f" "$dir/$t"
done
