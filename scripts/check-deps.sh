#!/bin/sh
# Exit 0 when the build dependencies are present; else list what is missing.
# Usage: check-deps.sh CC KSFT_DIR [--cross DEB_ARCH TRIPLET]
# A cross build checks the cross compiler and its libc; libaio, hwloc,
# jansson, libtracefs and libtraceevent come from the private sysroot (cross-sysroot.sh), not from here.
CC=${1:-cc}
KSFT_DIR=$2
CROSS_ARCH=
[ "$3" = "--cross" ] && CROSS_ARCH=$4 && TRIPLET=$5
missing=""
# Extra arguments are compiler flags (tracefs.h includes event-parse.h unprefixed).
has_header() {
	h=$1
	shift
	echo "#include <$h>" | $CC "$@" -E -x c - >/dev/null 2>&1
}
if [ -n "$CROSS_ARCH" ]; then
	command -v "$CC" >/dev/null 2>&1 || missing="$missing gcc-$TRIPLET"
	has_header linux/kvm.h || missing="$missing libc6-dev-$CROSS_ARCH-cross"
else
	has_header libaio.h || missing="$missing libaio-dev"
	has_header hwloc.h || missing="$missing libhwloc-dev"
	has_header jansson.h || missing="$missing libjansson-dev"
	has_header tracefs/tracefs.h -I/usr/include/traceevent || missing="$missing libtracefs-dev"
	has_header traceevent/event-parse.h || missing="$missing libtraceevent-dev"
	has_header linux/kvm.h || missing="$missing linux-libc-dev"
fi
if [ -z "$KSFT_DIR" ] && [ ! -r /usr/src/linux-source-6.12.tar.xz ]; then
	missing="$missing linux-source-6.12"
fi
command -v xz >/dev/null 2>&1 || missing="$missing xz-utils"
# scripts/check-record.py runs under Debian's python3 (its shebang).
/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 || missing="$missing python3-jsonschema"
# tests/kmp_stats_test.py checks the statistics against scipy's (a test-only need).
/usr/bin/python3 -c 'import scipy.stats' >/dev/null 2>&1 || missing="$missing python3-scipy"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
if [ -n "$missing" ]; then
	echo "missing:$missing"
	exit 1
fi
exit 0
