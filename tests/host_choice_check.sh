#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh's host choice (KTAP), for make check-ab: where no /dev/kvm opens, a
# run goes to the emulated KVM host (Debian's 6.12, the TDP MMU over emulated
# NPT, icount) and comes back as an ordinary results folder dated by this
# machine's clock; --host local skips as kselftest does; --host emulated
# asks for it anywhere; bad --host values and emulated-only options with
# --host local are one-line usage errors.  Where /dev/kvm opens, the
# automatic choice is local, and only the explicit --host emulated boots.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
# result, and run_sh_scratch ($SRC, $RUN, $TMP): tests/kmp_testlib.sh, beside this.
# shellcheck source=tests/kmp_testlib.sh
. "$(dirname "$0")/kmp_testlib.sh"
run_sh_scratch
# The one results folder a run made, newest first.
newest() { find "$KMP_RESULTS" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | sed -n '1s/^[^ ]* //p'; }
# The record of section $2 in folder $1: its status, and whether its host is emulated under icount.
record_says() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["status"], "icount" in (r["host"].get("emulated") or ""), r["host"].get("mmu"))' "$1/$2.1.json" 2>&1
}
# tools/kmp_kvm decides, as run.sh does: missing, unopenable, or not KVM.
KVM_TOOL=${KMP_BIN:-$SRC/build/x86_64/bin}/kmp_kvm
kvm_opens() { "$KVM_TOOL" > /dev/null; }

echo "TAP version 13"
echo "1..6"

out=$("$RUN" --host elsewhere 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "run.sh: --host 'elsewhere': must be local (this machine's /dev/kvm) or emulated (a KVM host under QEMU)" ]
result $? "--host elsewhere: a one-line usage error, exit 2" "exit $rc" "$out"

out=$("$RUN" --host local --mmu shadow 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "run.sh: --mmu: an emulated host's option, but --host local runs on this machine" ]
result $? "--host local --mmu shadow: a one-line usage error, exit 2" "exit $rc" "$out"

out=$("$RUN" --list -g seed-003 2>&1); rc=$?
[ $rc = 0 ] && [ "$(awk '{print $1}' <<< "$out")" = dlp-seed003 ]
result $? "--list -g seed-003: that group's one section" "exit $rc" "$out"

if kvm_opens; then
	echo "ok $((++n)) # SKIP --host local without KVM: /dev/kvm opens here"
	echo "ok $((++n)) # SKIP the automatic choice without KVM: /dev/kvm opens here"
	auto=(--host emulated)
else
	out=$("$RUN" --host local -t ab-repeat-dlp 2>&1); rc=$?
	folder=$(newest)
	[ $rc = 0 ] && grep -q '^ok 1 ab-repeat-dlp.1 # SKIP' "$folder/summary.ktap" &&
		! grep -q 'running on an emulated KVM host' <<< "$out" && [ ! -e "$folder/console.log" ]
	result $? "--host local without KVM: the run skips, exit 0, nothing emulated" "exit $rc" "$out"
	auto=()
fi

# The emulated host: the automatic choice here (no KVM), or asked for.
before=$(newest)
out=$("$RUN" ${auto[@]+"${auto[@]}"} -t ab-repeat-dlp 2>&1); rc=$?
folder=$(newest)
said=$(record_says "$folder" ab-repeat-dlp)
if [ ${#auto[@]} = 0 ]; then
	[ "$(sed -n 1p <<< "$out")" = "run.sh: $("$KVM_TOOL"): running on an emulated KVM host instead (--host local: skip)" ]
	result $? "without KVM, no --host: one line says the run goes to the emulated host" "$(sed -n 1p <<< "$out")"
fi
# Dated by this machine's clock (not the guest's), with the console and a passing record.
[ $rc = 0 ] && [ "$folder" != "$before" ] &&
	[[ $(basename "$folder") == "$(date +%Y%m%d)"-* ]] && [ -s "$folder/console.log" ] &&
	[ "$said" = "pass True tdp_mmu" ] && grep -q "^results: $folder\$" <<< "$out"
result $? "the emulated host ran it: exit 0, a folder dated today, the record passed under icount on the TDP MMU" \
	"exit $rc, folder $folder, record: $said" "$(tail -n 15 <<< "$out")"

echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
