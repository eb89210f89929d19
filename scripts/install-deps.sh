#!/bin/sh
# Install everything kvm-mmu-perf needs to build and test, with apt, as root.
# Usage: scripts/install-deps.sh [--print] [--cross DEB_ARCH TRIPLET]
#   --print only shows the command; --cross adds Debian's cross toolchain
#   for DEB_ARCH (arm64, ppc64el).
set -e
PKGS="build-essential clang libaio-dev libhwloc-dev libjansson-dev libtracefs-dev libtraceevent-dev linux-libc-dev \
linux-source-6.12 xz-utils curl perl python3 python3-jsonschema python3-scipy gnuplot-nox \
libclang-rt-14-dev cppcheck shellcheck"
PRINT=
[ "$1" = "--print" ] && PRINT=1 && shift
if [ "$1" = "--cross" ]; then
	PKGS="$PKGS gcc-$3 libc6-dev-$2-cross"
fi
CMD="apt-get install -y --no-install-recommends $PKGS"

if [ -n "$PRINT" ]; then
	echo "apt-get update && $CMD"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: needs root; run as root: apt-get update && $CMD" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# With foreign architectures added (the cross builds), an index mid-sync on
# the mirror fails the update; what is already indexed still installs, and
# the install below fails loudly if it matters.
apt-get update -q || echo "install-deps.sh: apt-get update failed; installing from the current indexes" >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $PKGS
