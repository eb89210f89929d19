#!/bin/sh
# Provide the kselftest harness files in DEST, from KSFT_DIR (a kernel's
# tools/testing/selftests) or from Debian's linux-source-6.12 tarball.
# Nothing from the kernel is ever committed to this repository.
# Usage: get-kselftest.sh DEST [KSFT_DIR]
set -e
DEST=$1
KSFT_DIR=$2
TARBALL=${KSFT_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
FILES="kselftest.h kselftest_harness.h run_kselftest.sh kselftest/runner.sh \
kselftest/prefix.pl kselftest/ktap_helpers.sh"

mkdir -p "$DEST.tmp"
if [ -n "$KSFT_DIR" ]; then
	for f in $FILES; do
		[ -e "$KSFT_DIR/$f" ] || { [ "$f" = kselftest/ktap_helpers.sh ] && continue; }
		mkdir -p "$DEST.tmp/$(dirname "$f")"
		cp "$KSFT_DIR/$f" "$DEST.tmp/$f" || {
			echo "get-kselftest.sh: KSFT_DIR=$KSFT_DIR has no $f" >&2; exit 1; }
	done
else
	if [ ! -r "$TARBALL" ]; then
		echo "get-kselftest.sh: $TARBALL not found; install linux-source-6.12" \
		     "(scripts/install-deps.sh) or set KSFT_DIR=/path/to/linux/tools/testing/selftests" >&2
		exit 1
	fi
	top=$(basename "$TARBALL" .tar.xz)
	members=""
	for f in $FILES; do members="$members $top/tools/testing/selftests/$f"; done
	echo "  KSFT    extracting harness from $TARBALL"
	# shellcheck disable=SC2086
	tar -xJf "$TARBALL" -C "$DEST.tmp" --strip-components=4 $members
fi
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
