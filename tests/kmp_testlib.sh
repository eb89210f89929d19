# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the shell tests share, sourced (kmp_testlib.py is the Python tests'):
# result OK NAME [DETAIL...] prints "ok N NAME", or each DETAIL line as a
# "# " diagnostic and "not ok N NAME" (OK is an exit status: 0 passes), and
# counts them in $n and $failed; scratch makes $TMP, a folder removed on exit;
# run_sh_scratch does too, and sets $RUN, the tree's run.sh ($SRC, else
# $KMP_SRC_DIR), with its results folders under $TMP.
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		[ $# -le 2 ] || printf '%s\n' "${@:3}" | sed 's/^/# /'
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}
scratch() {
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
}
run_sh_scratch() {
	SRC=${SRC:-${KMP_SRC_DIR:?KMP_SRC_DIR must name the source tree}}
	# shellcheck disable=SC2034  # the sourcing test runs it
	RUN=$SRC/run.sh
	scratch
	export KMP_RESULTS=$TMP/results
}
